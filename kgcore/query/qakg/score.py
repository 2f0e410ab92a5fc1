"""The features of one candidate pair for one question (see :mod:`kgcore.query.rerank.base`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from kgcore.core.qa_pair import QAPair
from kgcore.index.narrator import COMPANIONS
from kgcore.index.qa.base import content, is_name, is_number
from kgcore.query.qakg.graph import QAGraph
from kgcore.query.qakg.question import Names, QuestionInfo, fuzzy_entities, merged_types, noun_types
from kgcore.query.rerank.base import Candidate, type_agreement

#: The entity key of the narrator pass's "companions" ("we" -> "Robinson Crusoe and companions"): the narrator
#: and whoever is with them name no one new, so "Robinson Crusoe and companions" repeats a question about Crusoe.
NARRATOR_COMPANIONS = frozenset({COMPANIONS.removesuffix("s")})


@dataclass
class Evidence:
    """What a question matched besides its vector: entities by fuzzy match, entity types by their nouns."""

    fuzzy: dict[str, dict] = field(default_factory=dict)
    types: dict[str, float] = field(default_factory=dict)
    entity_types: dict[str, set[str]] = field(default_factory=dict)
    #: The types the question's wh-determined nouns name ("what year"): answers of these are what it asks for.
    asked_types: set[str] = field(default_factory=set)


def question_evidence(names: Names, graph: QAGraph | None, info: QuestionInfo, embedder) -> Evidence:
    """A question's :class:`Evidence` against ``names`` and, when given, the QA graph's entity types."""
    if graph is None:
        return Evidence(fuzzy_entities(names, info.mentions))
    per_noun = noun_types(graph, [*info.nouns, *info.asked], embedder)
    return Evidence(fuzzy_entities(names, info.mentions), merged_types(per_noun, info.nouns), graph.entity_types,
                    set(merged_types(per_noun, info.asked)))


def candidates(pairs: Sequence[QAPair], indices: Sequence[int], q_sims: np.ndarray, a_sims: np.ndarray,
               info: QuestionInfo, evidence: Evidence) -> list[Candidate]:
    """One :class:`Candidate` per pair index, with its features (``q_sims``/``a_sims`` indexed like pairs)."""
    out = []
    repeated = set(evidence.types) - evidence.asked_types  # types the question names as given, not asked for
    for i in indices:
        pair = pairs[i]
        c = Candidate(int(i), pair)
        kinds = {t for key, _ in pair.entities + pair.answer_entities for t in evidence.entity_types.get(key, ())
                 if t in evidence.types}
        said = content(f"{pair.question} {pair.answer}") | kinds
        answered = {key for key, _ in pair.answer_entities} - NARRATOR_COMPANIONS
        typed = {key for key in answered if evidence.entity_types.get(key, set()) & repeated}
        named = typed | set(evidence.fuzzy)  # entities the question names, or names by their type
        c.features = {
            "similarity": float(q_sims[i]),
            "answer_sim": float(a_sims[i]),
            "type": answer_agreement(info.expected, pair),
            "lexical": len(info.words & said) / len(info.words) if info.words else 0.0,
            "fuzzy": 0.0,
            "type_level": 0.0,
            "repeat": 1.0 if _new_words(pair, named) <= info.words or (answered and answered <= named) else 0.0,
        }
        _entity_features(c, evidence)
        out.append(c)
    return out


def answer_agreement(expected: str | None, pair: QAPair) -> float:
    """:func:`~kgcore.query.rerank.base.type_agreement`, except that any answer that counts ("Giry's three teeth",
    typed a thing since it does not open with the number) answers a "how many" question, and a question asking for
    a name ("what was the parrot's name?") only by a name (:func:`~kgcore.index.qa.base.is_name`: its head is
    capitalised)."""
    if expected == "number" and is_number(pair.answer):
        return 1.0
    if expected == "name":
        return 1.0 if is_name(pair.answer) else 0.0
    return type_agreement(expected, pair.answer_type)


def _new_words(pair: QAPair, named: set[str]) -> set[str]:
    """The answer's content words but those of the entities the question names ("Robinson Crusoe's island" for a
    question about Crusoe and the island brings nothing new)."""
    given = {w for key, label in pair.answer_entities if key in named for w in content(label)}
    return content(pair.answer) - given


def _entity_features(c: Candidate, evidence: Evidence) -> None:
    for key, _label in c.pair.entities + c.pair.answer_entities:
        match = evidence.fuzzy.get(key)
        if match:
            value = 1.0 - match["distance"] / (match["allowed"] + 1)
            if value > c.features["fuzzy"]:
                c.features["fuzzy"] = value
                c.why["fuzzy"] = {k: match[k] for k in ("mention", "label", "distance")}
        for type_name in evidence.entity_types.get(key, ()):
            cosine = evidence.types.get(type_name, 0.0)
            if cosine > c.features["type_level"]:
                c.features["type_level"] = cosine
                c.why["type"] = {"type": type_name, "entity": _label}
