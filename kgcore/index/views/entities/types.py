"""Domain entity types, offline: patterns, spaCy NER where it applies, and zero-shot typing by MiniLM.

The types a node may have are its collection's **type set** (:mod:`~kgcore.index.views.entities.type_sets`:
declared in its folder, else :data:`RESEARCH` for papers and :data:`NARRATIVE` for stories).

Each entity node gets the first of: a pattern of its name (confidence :data:`PATTERN_CONFIDENCE`; a story's
common noun that names someone, "mother" or "the captain", is a person), person for a
name that says, thinks or feels (:mod:`~kgcore.index.views.entities.animate`; not in papers), the type a type noun
in its first grounded sentences gives it ("Chubby is a lock service": system; :mod:`~.evidence`), spaCy's
named-entity label of the name in those sentences (:data:`NER_CONFIDENCE`), or the type whose description is
closest to the node's name + context vector (confidence: the softmax of the cosines).  Outside stories, a name
those sentences use as a thing ("the Chubby cell", "our Paxos") is never a person, by NER or by similarity.

>>> pattern_type("Natural Questions", RESEARCH), pattern_type("F1", RESEARCH), pattern_type("Mr. Smith", NARRATIVE)
('dataset', 'metric', 'person')
>>> choose_type_set(["a.pdf", "b.pdf", "c.txt"]).name, choose_type_set(["peter.txt"]).name
('research', 'narrative')
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from kgcore.core.embed import get_embedder
from kgcore.core.graph import is_pronoun_label
from kgcore.core.nlp import load_spacy
from kgcore.index.parse.srl.tokens import GROUP_NOUNS, PERSON_NOUNS
from kgcore.index.views.entities import animate, evidence, people
from kgcore.index.views.entities.names import HONORIFICS, head, is_named, normalise
from kgcore.index.views.entities.people import cited_author  # noqa: F401  (its former home)
from kgcore.index.views.entities.type_sets import (  # noqa: F401  (their former home)
    DECLARED_FILE,
    NARRATIVE,
    REGULATORY,
    RESEARCH,
    TypeSet,
    choose_type_set,
    read_declared,
    type_set_of,
)

PATTERN_CONFIDENCE, NER_CONFIDENCE = 0.9, 0.72
#: Zero-shot confidences are scaled by this: a guess from similarity is never as sure as a pattern or NER.
ZERO_SHOT_SCALE = 0.7
#: Softmax temperature over the cosines of zero-shot typing.
TEMPERATURE = 0.05
#: spaCy NER looks at this many named nodes at most (those grounded most often first) ...
NER_MAX_NODES = 1500
#: ... in this many of their grounded sentences each ...
NER_SENTENCES = 3
#: ... and read what this many of them say the name is (:mod:`~kgcore.index.views.entities.evidence`; the
#: parser costs about an eighth more than NER alone).
EVIDENCE_SENTENCES = 3
#: A name is looked for as a cited author in this many of its grounded sentences (a pattern: no parser).
CITE_SENTENCES = 8


_METRICS = {"f1", "accuracy", "precision", "recall", "bleu", "rouge", "rouge l", "em", "exact match", "mrr", "ndcg",
            "perplexity", "latency", "hit rate", "faithfulness", "answer relevance", "context relevance", "auc",
            "meteor", "bertscore", "recall k", "top k accuracy", "f1 score", "map"}
_METRIC_HEADS = {"score", "accuracy", "metric", "precision", "recall", "perplexity", "f1", "rate", "latency"}
_DATASETS = {"natural questions", "triviaqa", "hotpotqa", "squad", "ms marco", "msmarco", "nq", "fever", "kilt",
             "beir", "webquestions", "curatedtrec", "popqa", "asqa", "eli5", "jeopardy", "wikipedia", "tqa", "wq",
             "musique", "2wikimultihopqa", "strategyqa", "qasper", "narrativeqa", "arc", "pubhealth", "bioasq"}
_DATASET_HEADS = {"dataset", "corpus", "benchmark", "treebank", "collection", "split", "set"}
_MODEL_RE = re.compile(r"(?i)\b(gpt|bert|roberta|t5|bart|llama|codex|chatgpt|claude|palm|opt|bloom|flan|mistral|"
                       r"vicuna|alpaca|electra|deberta|contriever|retro|atlas|realm)\b|\d+(\.\d+)?[bm]\b|-(base|large|xl)\b")
_MODEL_HEADS = {"model", "encoder", "decoder", "retriever", "reader", "generator", "transformer", "lm", "llm",
                "network", "classifier", "ranker", "reranker"}
_METHOD_HEADS = {"method", "approach", "technique", "algorithm", "framework", "strategy", "training", "pipeline",
                 "retrieval", "generation", "indexing", "compression", "distillation", "optimization", "optimisation",
                 "search", "decoding", "prompting", "augmentation", "fine tuning", "tuning", "objective", "loss",
                 "attention", "mechanism", "procedure", "architecture"}
_TOPIC_HEADS = {"task", "field", "area", "domain", "answering", "summarization", "translation", "processing"}


def pattern_type(name: str, type_set: TypeSet) -> str | None:
    """The type a name's form gives away, or None.

    >>> pattern_type("p(y|x)", RESEARCH), pattern_type("BERT-base", RESEARCH), pattern_type("RAG", RESEARCH)
    ('equation', 'model', None)
    >>> pattern_type("x_i", RESEARCH), pattern_type("θ", RESEARCH), pattern_type("KG", RESEARCH)
    ('variable', 'variable', None)
    >>> pattern_type("mother", NARRATIVE), pattern_type("the old sailors", NARRATIVE), pattern_type("family", NARRATIVE)
    ('person', 'person', None)
    """
    norm, hd = normalise(name), head(name)
    if type_set.name == "research":
        return _research_pattern(name, norm, hd)
    found = _declared_pattern(norm)
    if found in type_set.descriptions:
        return found
    words = norm.split()
    if "person" in type_set.descriptions and len(words) > 1 and words[0] in HONORIFICS and HONORIFICS[words[0]]:
        return "person"
    if "person" in type_set.descriptions and hd in PERSON_NOUNS and hd not in GROUP_NOUNS:
        return "person"  # "mother", "the captain": a common noun that names someone
    if "place" in type_set.descriptions and hd in evidence.PLACE_WORDS:
        return "place"
    return None


_RULE_RE = re.compile(r"^(rule|section|paragraph|article|regulation)s?\s+[a-z]?\d")
_REGULATION_RE = re.compile(r"\b(rules|regulations|rulebook|act|law|directive|schedule|chapter|part \d+)\b")
_INSTRUMENT_RE = re.compile(r"\b(shares?|bonds?|units?|derivatives?|securit(y|ies)|futures?|options?|dollars?|sukuk|"
                            r"debentures?|warrants?|currenc(y|ies)|tokens?)$")


def _declared_pattern(norm: str) -> str | None:
    """Patterns for the type names a declared set may use (rule, regulation, financial instrument).

    >>> _declared_pattern("rule 3 2 1"), _declared_pattern("schedule 1 chapter"), _declared_pattern("us dollars")
    ('rule', 'regulation', 'financial instrument')
    """
    if _RULE_RE.search(norm):
        return "rule"
    if _REGULATION_RE.search(norm):
        return "regulation"
    return "financial instrument" if _INSTRUMENT_RE.search(norm) else None


def _research_pattern(name: str, norm: str, hd: str) -> str | None:
    if "=" in name or re.search(r"\w\s*\(.*\|.*\)", name) or norm.startswith(("eq ", "equation")):
        return "equation"
    if norm in _METRICS or (hd in _METRIC_HEADS and len(norm.split()) <= 3) or re.fullmatch(r"\w+@\d+", name.strip()):
        return "metric"
    if re.fullmatch(r"[A-Za-z\u0370-\u03ff]([_^]\{?\w{1,3}\}?|\d{1,2})?'?", name.strip()):
        return "variable"
    if norm in _DATASETS or re.search(r"\w\w(QA|Bench|Eval)$", name.strip()) or hd in _DATASET_HEADS:
        return "dataset"
    if _MODEL_RE.search(name) or hd in _MODEL_HEADS:
        return "model"
    if hd in _TOPIC_HEADS:
        return "topic"
    if hd in _METHOD_HEADS or (hd.endswith("ing") and len(hd) > 5):
        return "method"
    return "paper" if " et al" in name else None


def zero_shot(vectors: np.ndarray, type_vectors: np.ndarray, types: Sequence[str]) -> list[tuple[str, float]]:
    """Per row of ``vectors``, the closest type description and its softmax confidence.

    >>> zero_shot(np.array([[1.0, 0.0], [0.6, 0.8]]), np.array([[1.0, 0.0], [0.0, 1.0]]), ["a", "b"])
    [('a', 0.7), ('b', 0.69)]
    """
    if not len(vectors):
        return []
    sims = np.asarray(vectors, dtype=np.float64) @ np.asarray(type_vectors, dtype=np.float64).T
    exp = np.exp((sims - sims.max(axis=1, keepdims=True)) / TEMPERATURE)
    probs = exp / exp.sum(axis=1, keepdims=True)
    best = probs.argmax(axis=1)
    return [(types[b], round(float(probs[i, b]) * ZERO_SHOT_SCALE, 2)) for i, b in enumerate(best)]


def ner_types(names: Sequence[str], sentences: Sequence[str], type_set: TypeSet, nlp) -> list[str | None]:
    """Per (name, sentence), the type spaCy's NER gives the name inside its sentence (None: no usable label)."""
    readings = evidence.read_names(names, [[s] for s in sentences], type_set, nlp, ner_sentences=1)
    return [r.ner[0] if r.ner else None for r in readings]


def type_vectors(type_set: TypeSet, embedder) -> np.ndarray:
    """The embedded descriptions of a type set ("dataset: a dataset, corpus ...")."""
    return embedder.encode([f"{t}: {d}" for t, d in type_set.descriptions.items()])


def vote(types: Sequence[tuple[str, float]], weights: Sequence[float]) -> tuple[str, float]:
    """A group's type from its members' (type, confidence), weighted by grounding: the heaviest type and the
    confidence of its best member.

    >>> vote([("model", 0.9), ("method", 0.4), ("model", 0.5)], [1, 10, 1])
    ('method', 0.4)
    >>> vote([], [])
    ('unknown', 0.0)
    """
    totals: dict[str, float] = {}
    best: dict[str, float] = {}
    for (t, c), w in zip(types, weights):
        totals[t] = totals.get(t, 0.0) + c * w
        best[t] = max(best.get(t, 0.0), c)
    if not totals:
        return "unknown", 0.0
    chosen = max(totals, key=lambda t: totals[t])
    return chosen, best[chosen]


def type_nodes(index, node_ids: Sequence[str], vectors: np.ndarray, embedder=None, nlp=None,
               type_set: TypeSet | None = None) -> tuple[dict[str, tuple[str, float]], TypeSet]:
    """(type, confidence) of every node in ``node_ids`` (``vectors``: their name + context vectors), in
    ``type_set`` (default: :func:`type_set_of` the index): a pattern of the name, a cited author's name, a name's
    actions (:mod:`~kgcore.index.views.entities.animate`), a type noun or spaCy NER in its sentences
    (:func:`_by_reading`), else zero-shot among the types that fit the kind of name (:func:`candidate_types`)."""
    type_set = type_set or type_set_of(index)
    nodes = index.graph.nodes
    out: dict[str, tuple[str, float]] = {}
    authors = people.collection_authors(index) if type_set.name == RESEARCH.name else people.Authors()
    for node_id in node_ids:
        found = pattern_type(nodes[node_id].label, type_set)
        if found is None and type_set.name == RESEARCH.name and _capitalised(nodes[node_id].label):
            sentences = [index.sentence(s) for s in nodes[node_id].grounded_texts[:CITE_SENTENCES]]
            found = "person" if people.cited_person(nodes[node_id].label, sentences, authors) else None
        if found is not None and found in type_set.descriptions:
            out[node_id] = (found, PATTERN_CONFIDENCE)
    if type_set.name != RESEARCH.name and "person" in type_set.descriptions:  # who says, thinks, loves is someone
        # names ("Raoul") and common nouns ("the mother"); not acronyms, which are in capitals, nor pronouns
        doers = [n for n in node_ids if n not in out and not is_pronoun_label(nodes[n].label)
                 and (_capitalised(nodes[n].label) or nodes[n].label[:1].islower())]
        out.update(dict.fromkeys(animate.people_by_roles(index.graph, doers), ("person", animate.CONFIDENCE)))
    read, things = _by_reading(index, [n for n in node_ids if n not in out], type_set, nlp)
    out.update(read)
    rest = [k for k, n in enumerate(node_ids) if n not in out]
    if rest:
        out.update(_by_similarity(index, node_ids, rest, vectors, type_set, things, embedder or get_embedder()))
    return out, type_set


def _by_similarity(index, node_ids: Sequence[str], rest: Sequence[int], vectors: np.ndarray, type_set: TypeSet,
                   things: set[str], embedder) -> dict[str, tuple[str, float]]:
    """Zero-shot types of ``node_ids[k]`` for ``k`` in ``rest``, among :func:`candidate_types` (a name used as a
    thing is no person)."""
    nodes, out = index.graph.nodes, {}
    described = type_vectors(type_set, embedder)
    for named, thing in ((True, False), (True, True), (False, False), (False, True)):
        part = [k for k in rest if is_named(node_ids[k], nodes[node_ids[k]].texts, nodes[node_ids[k]].label) == named
                and (node_ids[k] in things) == thing]
        allowed = [i for i, t in enumerate(type_set.types) if t in candidate_types(type_set, named)
                   and not (thing and t == "person")]
        if part and allowed:
            guesses = zero_shot(vectors[part], described[allowed], [type_set.types[i] for i in allowed])
            out.update({node_ids[k]: guess for k, guess in zip(part, guesses)})
    return out


#: Types a common noun (no name) may have, per type set; names may have any type but ``concept``-like ones.
_COMMON_TYPES = {"research": ("concept",), "narrative": ("object", "concept", "place")}


#: Types zero-shot typing never gives a name: common-noun types, and a formula's or a symbol's, which its written
#: form shows (:func:`pattern_type`), never its vector ("Haskell" is no variable, "Oz" no equation).
_NOT_GUESSED = frozenset({"concept", "object", "topic", "equation", "variable"})


def candidate_types(type_set: TypeSet, named: bool) -> tuple[str, ...]:
    """The types zero-shot typing chooses among for a name (``named``) or a common noun: a common noun is no
    person, paper or dataset by its vector ("the father" is a person by its noun, :func:`pattern_type`, or by
    what it does: :mod:`~kgcore.index.views.entities.animate`).

    >>> candidate_types(NARRATIVE, True), candidate_types(NARRATIVE, False)
    (('person', 'place', 'organisation'), ('object', 'concept', 'place'))
    >>> candidate_types(REGULATORY, False)
    ('concept',)
    """
    common = _COMMON_TYPES.get(type_set.name, ("concept",) if "concept" in type_set.descriptions else type_set.types)
    if not named:
        return tuple(t for t in common if t in type_set.descriptions) or type_set.types
    names = tuple(t for t in type_set.types if t not in _NOT_GUESSED)
    return names or type_set.types


def _by_reading(index, node_ids: Sequence[str], type_set: TypeSet, nlp) -> tuple[dict[str, tuple[str, float]],
                                                                              set[str]]:
    """Types of names (capitalised words and acronyms) by what their first :data:`EVIDENCE_SENTENCES` grounded
    sentences say (:mod:`~kgcore.index.views.entities.evidence`): a type noun, else spaCy's NER label of a
    capitalised name (not an acronym) that at least half of its first :data:`NER_SENTENCES` give; and the names
    that must not be persons (used as things, outside stories; in papers, every name without a person's cue:
    "he" or "she" resolved to it, which needs no parse, counts past the :data:`NER_MAX_NODES` names read too)."""
    nodes = index.graph.nodes
    written = {n: _written_name(nodes[n].label, nodes[n].texts) for n in node_ids}
    named = sorted((n for n in node_ids if written[n]), key=lambda n: -len(nodes[n].grounded_texts))[:NER_MAX_NODES]
    papers = type_set.name == RESEARCH.name
    uncued = set(node_ids) - people.referred_to_as_person(index, node_ids, CITE_SENTENCES) if papers else set()
    if not named:
        return {}, uncued
    texts = [[index.sentence(sid).resolved for sid in nodes[n].grounded_texts[:EVIDENCE_SENTENCES]] for n in named]
    readings = evidence.read_names([written[n] for n in named], texts, type_set, nlp or load_spacy(), NER_SENTENCES)
    story = type_set.name == NARRATIVE.name
    things = {n for n, r in zip(named, readings) if r.is_thing() and not story}
    if papers:  # in papers someone is named with a person's cues; a name without any is a thing
        cued = {n for n, r in zip(named, readings) if people.person_cue(written[n], nodes[n].texts, r)}
        things |= uncued - cued
    out = {}
    for n, reading in zip(named, readings):
        said, ner = reading.type_said(), majority(reading.ner) if _capitalised(written[n]) else None
        if said is None and reading.person and (story or not reading.is_thing()) and "person" in type_set.descriptions:
            said = "person"  # "Mr. Lamport", "the Phantom said"
        if said is not None:
            out[n] = (said, evidence.EVIDENCE_CONFIDENCE)
        elif ner is not None and not (ner == "person" and n in things):
            out[n] = (ner, NER_CONFIDENCE)
    return out, things


def _written_name(label: str, texts: Sequence[str]) -> str:
    """The name as the text writes it with a capital ("Bigtable" of the node "bigtable", which coreference also
    wrote "the distributed storage system"), or "" when it is never written so.

    >>> _written_name("bigtable", ["the storage system", "Bigtable"]), _written_name("tablet", ["Tablets", "tablet"])
    ('Bigtable', '')
    """
    if label[:1].isupper():
        return label
    return next((t for t in texts if t[:1].isupper() and t == t.strip() and normalise(t) == normalise(label)), "")


def majority(labels: Sequence[str | None]) -> str | None:
    """The label at least half the sentences gave (None counts as a vote for nothing).

    >>> majority(["person", None, "person"]), majority(["person", None, None]), majority([None])
    ('person', None, None)
    """
    counts: dict[str, int] = {}
    for t in labels:
        if t:
            counts[t] = counts.get(t, 0) + 1
    if not counts:
        return None
    best = max(counts, key=lambda t: counts[t])
    return best if counts[best] * 2 >= len(labels) else None


def _capitalised(label: str) -> bool:
    """A name written with a capital and lower-case letters ("Peter", "Mr. McGregor"), not an acronym.

    >>> _capitalised("Peter"), _capitalised("RAG"), _capitalised("fir tree")
    (True, False, False)
    """
    return label[:1].isupper() and any(ch.islower() for ch in label)
