"""What ``qa-kg`` reads off a question: its vector, the answer type it expects, its content words, the
entities it names (fuzzy-matched to the graph's) and its nouns (matched to entity types).

Entities named in the question are spaCy's named entities and runs of proper nouns.  Each is compared,
lower-cased and without titles, with every *name* of the graph (its full label, the label without title or
spaces, and each of its words of four letters or more) by Levenshtein distance (rapidfuzz), allowing
:func:`max_edits` edits of the shorter string (at most 3, fewer for short names so "Tom" does not match
"Tim" and "Crusader" not "Crusoe"):
"Mc Gregor" -> Mr. McGregor, "Crusoe" -> Robinson Crusoe, "Robinson Cruso" -> Robinson Crusoe.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from kgcore.core.embed import Embedder
from kgcore.index.qa.base import WH_WORDS, asked_for, asks_action, content
from kgcore.index.store.in_memory import CacheKey, Index
from kgcore.query.qakg.graph import QAGraph

TITLES = frozenset("mr mrs miss ms dr captain capt sir lady lord master madam".split())
ENTITY_LABELS = frozenset("PERSON GPE ORG LOC NORP FAC WORK_OF_ART EVENT PRODUCT".split())
#: A question noun names a type when its cosine to the type's name reaches this.
TYPE_MIN_COSINE = 0.75


@dataclass
class QuestionInfo:
    text: str
    vector: np.ndarray
    expected: str | None
    words: set[str]
    mentions: list[str] = field(default_factory=list)
    nouns: list[str] = field(default_factory=list)
    #: The nouns a wh-determiner asks for ("year" in "what year", "island" in "which large island"): an answer of
    #: that type is what the question wants, not a repeat of it.
    asked: list[str] = field(default_factory=list)


def expected_type(words: list[str]) -> str | None:
    """What a question (its lower-cased words) asks for: person, place, time, reason, number, name, manner,
    action ("what did X do", "what happened") or object ("what did X buy"); None when it does not say.

    >>> [expected_type(q.lower().rstrip("?").split()) for q in ("Who ran?", "How many buns?", "What did he do?")]
    ['person', 'number', 'action']
    """
    asked = asked_for(words)
    if asked is not None:
        return asked
    wh = next((w for w in words if w in WH_WORDS), None)
    if wh == "how":
        return "manner"
    if wh in ("what", "which"):
        if asks_action(words):
            return "action"
        return "object"
    return None


def analyse(question: str, nlp, embedder: Embedder, doc=None) -> QuestionInfo:
    """The :class:`QuestionInfo` of ``question`` (one spaCy parse, unless the caller has ``doc``; one embedding)."""
    doc = nlp(question) if doc is None else doc
    mentions = [e.text for e in doc.ents if e.label_ in ENTITY_LABELS]
    run: list[str] = []
    for token in list(doc) + [None]:
        if token is not None and token.pos_ == "PROPN":
            run.append(token.text)
        elif run:
            mentions.append(" ".join(run))
            run = []
    nouns = [t.lemma_.lower() for t in doc if t.pos_ == "NOUN"]
    asked = [t.head.lemma_.lower() for t in doc if t.lower_ in ("what", "which") and t.dep_ == "det"
             and t.head.pos_ == "NOUN"]
    words = [t.lower_ for t in doc if not t.is_punct]
    return QuestionInfo(question, embedder.encode([question])[0], expected_type(words), content(question),
                        list(dict.fromkeys(mentions)), list(dict.fromkeys(nouns)), list(dict.fromkeys(asked)))


def max_edits(name: str) -> int:
    """Edits allowed when matching ``name``: 0 up to 3 letters, 1 up to 5, 2 up to 7, else 3.

    >>> [max_edits(n) for n in ("tom", "peter", "crusoe", "mc gregor")]
    [0, 1, 2, 3]
    """
    n = len(name)
    return 0 if n <= 3 else 1 if n <= 5 else 2 if n <= 7 else 3


def plain(name: str) -> str:
    """Lower-cased, titles and punctuation out.

    >>> plain("Mr. McGregor's")
    'mcgregor'
    """
    words = re.findall(r"[a-z0-9-]+", name.lower().replace("'s", ""))
    return " ".join(w for w in words if w not in TITLES)


def name_variants(label: str) -> set[str]:
    """The strings a name is matched by: without titles, without spaces, and its longer words."""
    base = plain(label)
    return {v for v in {base, base.replace(" ", "")} | {w for w in base.split() if len(w) >= 4} if v}


@dataclass(frozen=True)
class Names:
    """Every proper name of a QA graph as match strings: ``variants[i]`` is a variant of entity ``keys[i]``."""

    variants: list[str]
    keys: list[str]
    labels: dict[str, str]


def names_of(labels: dict[str, str]) -> Names:
    """The :class:`Names` of entities ``key -> label`` (capitalised labels only: names, not common nouns)."""
    rows = [(v, key) for key, label in labels.items() if label[:1].isupper() for v in sorted(name_variants(label))]
    return Names([v for v, _ in rows], [k for _, k in rows], labels)


NAMES: CacheKey[Names] = CacheKey("qa-names")


def graph_names(index: Index, graph: QAGraph) -> Names:
    """The QA graph's :class:`Names`, cached on the index."""
    return index.cache.get(NAMES, lambda: names_of(graph.labels))


def fuzzy_entities(names: Names, mentions: list[str]) -> dict[str, dict]:
    """Per matched entity key: the mention, the name it matched, the edit distance and the allowed edits."""
    found: dict[str, dict] = {}
    for mention in mentions:
        for query in dict.fromkeys(q for q in (plain(mention), plain(mention).replace(" ", "")) if q):
            allowed = max_edits(query)
            for variant, distance, row in process.extract(query, names.variants, scorer=Levenshtein.distance,
                                                          score_cutoff=allowed, limit=None):
                key = names.keys[row]
                if distance > max_edits(variant):  # the shorter of the two strings bounds the edits
                    continue
                if key not in found:
                    found[key] = {"mention": mention, "matched": variant, "label": names.labels[key],
                                  "distance": int(distance), "allowed": allowed}
    return found


def noun_types(graph: QAGraph, nouns: Sequence[str], embedder: Embedder) -> dict[str, dict[str, float]]:
    """Per noun, the entity types it names (same word, or cosine >= :data:`TYPE_MIN_COSINE`) with the cosine; one
    ``encode`` for all the nouns."""
    nouns = list(dict.fromkeys(nouns))
    if not nouns or not graph.types:
        return {}
    sims = embedder.encode(nouns) @ graph.type_vectors.T
    out: dict[str, dict[str, float]] = {}
    for n, noun in enumerate(nouns):
        found = out.setdefault(noun, {})
        for t in np.flatnonzero(sims[n] >= TYPE_MIN_COSINE).tolist() + \
                 [i for i, name in enumerate(graph.types) if name == noun]:
            found[graph.types[t]] = max(found.get(graph.types[t], 0.0), min(1.0, float(sims[n, t])))
    return out


def merged_types(per_noun: Mapping[str, Mapping[str, float]], nouns: Iterable[str]) -> dict[str, float]:
    """The types ``nouns`` name (from :func:`noun_types`), each with its best cosine.

    >>> merged_types({"rabbits": {"rabbit": 0.9}, "bunny": {"rabbit": 0.7, "animal": 0.5}}, ["rabbits", "bunny"])
    {'rabbit': 0.9, 'animal': 0.5}
    """
    found: dict[str, float] = {}
    for noun in nouns:
        for name, cosine in per_noun.get(noun, {}).items():
            found[name] = max(found.get(name, 0.0), cosine)
    return found
