"""Entity resolution of a collection: an overlay of merge decisions on its linked graph.

Steps (:func:`resolve`): acronym definitions are read from the sentences; candidate pairs come from blocking
(:mod:`~kgcore.index.views.entities.blocking`); every pair is scored by the name rules
(:mod:`~kgcore.index.views.entities.rules`) and by the cosine of the two nodes' name + grounded-context vectors
(the node vector plus the mean vector of its grounded sentences, no model call); guards keep apart

* common nouns of different documents (the linked graph's notion: a node id scoped to its document, whose
  texts hold no acronym and no long form the text defines, is a common noun; "father" in two novels is two
  people), directly and through a name both would merge with (:func:`build_groups`),
* names the same up to case, number or titles whose grounded contexts are disjoint (context cosine below
  :data:`~kgcore.index.views.entities.outcome.APART_BELOW`): flagged ``same-name-different-context``,
* entities of incompatible types (a person never merges with a dataset),
* a one-word name that is part of several disagreeing names ("Box": "Box Five", "Box Seven"): flagged.

A name the linked graph already made one node across documents, used in disjoint contexts there ("Liu" of two
papers), cannot be split by an overlay: it is flagged (:func:`shared_names`).

Strong rules merge on their own, weak rules (fuzzy names, initials, a name's part) only with a cosine of at
least :data:`~kgcore.index.views.entities.outcome.MERGE_AT`.  Both thresholds were measured on the dev half of
``bench/entity_pairs.csv`` (``bench/experiments/entities_bench.py``).  The candidates are stored with the linked graph
(``entities.json``); people's confirmations and splits (:mod:`~kgcore.index.views.entities.decisions`) are applied on
top when the groups are built (:func:`build_groups`), so splitting a merge gives back exactly the groups before it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from kgcore.core.types import ENTITY
from kgcore.index.store.in_memory import CacheKey, Index
from kgcore.index.views.entities import rules, stored, types
from kgcore.index.views.entities.blocking import MAX_TEXTS, candidate_pairs
from kgcore.index.views.entities.decisions import (
    AMBIGUOUS_PART,
    NEAR_THRESHOLD,
    PROPOSED,
    SAME_NAME_APART,
    Merge,
    applicable,
    read_human,
)
from kgcore.index.views.entities.entity import Alias, EntityGroup
from kgcore.index.views.entities.names import definitions, is_named, singular, strip_honorific
from kgcore.index.views.entities.outcome import DEFAULT, Resolution, SharedName, Thresholds

#: Candidates within this distance of a threshold are shown in the review queue.
NEAR = 0.08
#: A node's context is the mean vector of at most this many of its grounded sentences.
CONTEXT_SENTENCES = 24
#: The type guard applies when both types are at least this sure: patterns only (NER and zero-shot stay below).
TYPE_GUARD_AT = 0.75
#: Names longer than this many words are table rows or run-on spans, not entity names: never resolved.
MAX_NAME_WORDS = 6


RESOLUTION: CacheKey[Resolution] = CacheKey("entity-resolution")


def resolution(index: Index) -> Resolution:
    """The index's resolution: read from its linked folder, else computed and stored there."""
    return index.cache.get(RESOLUTION, lambda: stored.load_or_build(index, resolve))


def resolved_groups(index: Index) -> tuple[EntityGroup, ...]:
    """The entities of ``index``: its resolution with people's decisions applied."""
    return build_groups(index, resolution(index), read_human(index.path))


@dataclass
class _Nodes:
    """The entity nodes resolution looks at, with their names, documents and vectors."""

    ids: list[str]
    labels: list[str]
    #: Per node, the spans it was written as (its ``texts``).
    texts: list[list[str]]
    named: list[bool]
    documents: list[frozenset[str]]
    combined: np.ndarray
    context: np.ndarray
    #: Whether the collection is narrative (names of people and places), not research papers.
    narrative: bool = False


def _nodes(index: Index, defined: Mapping[str, set[str]]) -> _Nodes:
    ids = [i for i, n in index.graph.nodes.items() if n.node_type == ENTITY
           and 0 < len(n.label.split()) <= MAX_NAME_WORDS]
    nodes = index.graph.nodes
    rows = [index.node_row[i] for i in ids]
    context = np.zeros((len(ids), index.sentence_vectors.shape[1]), dtype=np.float32)
    for k, node_id in enumerate(ids):
        grounded = [index.sentence_row(s) for s in nodes[node_id].grounded_texts[:CONTEXT_SENTENCES]]
        context[k] = index.sentence_vectors[grounded].mean(axis=0)
    context = _normalise(context)
    combined = _normalise(index.node_vectors[rows] + context) if ids else context
    return _Nodes(ids, [nodes[i].label for i in ids], [list(nodes[i].texts) for i in ids],
                  [is_named(i, nodes[i].texts, nodes[i].label) or _defined_term(nodes[i].texts, defined)
                   for i in ids],
                  [frozenset(index.node_documents[i]) for i in ids], combined, context)


def _defined_term(texts: Sequence[str], defined: Mapping[str, set[str]]) -> bool:
    """Whether a node is written as a long form the text defines ("retrieval-augmented generation" for RAG): a
    term, not a common noun.

    >>> _defined_term(["Retrieval-augmented generation"], {"rag": {"retrieval augmented generation"}})
    True
    """
    forms = {f for fs in defined.values() for f in fs}
    return any(singular(t) in forms for t in texts[:MAX_TEXTS])


def _normalise(m: np.ndarray) -> np.ndarray:
    return (m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)).astype(np.float32)


def resolve(index: Index, thresholds: Thresholds = DEFAULT, embedder=None, nlp=None,
            type_set: types.TypeSet | None = None) -> Resolution:
    """Score every candidate pair of ``index`` and type every entity node (see the module docstring)."""
    started = time.perf_counter()
    defined = definitions(s.original for s in index.sentences if "(" in s.original)
    nodes = _nodes(index, defined)
    node_types, chosen = types.type_nodes(index, nodes.ids, nodes.combined, embedder, nlp, type_set)
    nodes.narrative = chosen.name != types.RESEARCH.name
    candidates = []
    for i, j in sorted(candidate_pairs(nodes.labels, defined, nodes.texts)):
        merge = score_pair(nodes, i, j, defined, node_types, thresholds)
        if merge is not None:
            candidates.append(merge)
    common = {n: next(iter(d)) for n, named, d in zip(nodes.ids, nodes.named, nodes.documents)
              if not named and len(d) == 1}
    labels = dict(zip(nodes.ids, nodes.labels))
    marked = [replace(m, merged=merged, flag=flag) for m in one_part_each(candidates, labels)
              for merged, flag in [decision(m.rule, dict(m.scores), thresholds)]]
    return Resolution(tuple(marked), node_types, chosen.name, round(time.perf_counter() - started, 3),
                      thresholds, common, shared_names(index, nodes, thresholds))


def shared_names(index: Index, nodes: _Nodes, thresholds: Thresholds) -> tuple[SharedName, ...]:
    """Names grounded in several documents whose documents' contexts are disjoint (least pairwise cosine of the
    per-document mean sentence vectors below ``apart_below``)."""
    out = []
    for k, docs in enumerate(nodes.documents):
        if len(docs) < 2 or not nodes.named[k]:
            continue
        by_doc: dict[str, list[int]] = {}
        for sid in index.graph.nodes[nodes.ids[k]].grounded_texts:
            rows = by_doc.setdefault(index.sentences[index.sentence_row(sid)].doc_id, [])
            if len(rows) < CONTEXT_SENTENCES:
                rows.append(index.sentence_row(sid))
        names = sorted(by_doc)
        vectors = _normalise(np.stack([index.sentence_vectors[by_doc[d]].mean(axis=0) for d in names]))
        sims = vectors @ vectors.T
        i, j = np.unravel_index(np.argmin(sims), sims.shape)
        if sims[i, j] < thresholds.apart_below:
            out.append(SharedName(nodes.ids[k], nodes.labels[k], (names[i], names[j]), round(float(sims[i, j]), 3)))
    return tuple(out)


def one_part_each(candidates: Sequence[Merge], labels: Mapping[str, str]) -> tuple[Merge, ...]:
    """A one-word name that is the name-part of longer names which disagree ("Box" of "Box Five" and "Box Seven",
    "Daae" of "Christine Daae" and "Daddy Daae": their other words differ entirely) is ambiguous: its name-part
    pairs get the score ``ambiguous`` and never merge (they are flagged for review).  Names that agree
    ("Moncharmin" of "Armand Moncharmin" and "M. Armand Moncharmin") are not.

    >>> part = lambda b: Merge("box", b, "name-part", (("name-part", 0.5), ("short", 0.0), ("cosine", 0.8)))
    >>> names = {"box": "Box", "b5": "Box Five", "b7": "Box Seven", "b5m": "M. Box Five"}
    >>> [m.score("ambiguous") for m in one_part_each([part("b5"), part("b7")], names)]
    [1.0, 1.0]
    >>> [m.score("ambiguous") for m in one_part_each([part("b5"), part("b5m")], names)]
    [0.0, 0.0]
    """
    others: dict[str, list[frozenset[str]]] = {}
    for m in candidates:
        if m.rule == rules.NAME_PART:
            short, long = (m.a, m.b) if m.score("short") == 0.0 else (m.b, m.a)
            word = strip_honorific(labels[short])[1]
            others.setdefault(short, []).append(frozenset(strip_honorific(labels[long])[1].split()) - {word})
    ambiguous = {s for s, sets in others.items()
                 if any(x and y and not x & y for i, x in enumerate(sets) for y in sets[i + 1:])}
    return tuple(replace(m, scores=m.scores + (("ambiguous", 1.0),))
                 if m.rule == rules.NAME_PART and (m.a if m.score("short") == 0.0 else m.b) in ambiguous else m
                 for m in candidates)


def score_pair(nodes: _Nodes, i: int, j: int, defined: Mapping[str, set[str]],
               node_types: Mapping[str, tuple[str, float]], thresholds: Thresholds) -> Merge | None:
    """The candidate record of one pair, or None when no rule holds or a common noun crosses documents."""
    a, b = nodes.ids[i], nodes.ids[j]
    if not _may_meet(nodes, i, j):
        return None
    found = rules.name_rules(nodes.labels[i], nodes.labels[j], defined, nodes.named[i] and nodes.named[j]) \
        or _written_acronym(nodes, i, j, defined)
    if not found or rules.titles_disagree(nodes.labels[i], nodes.labels[j]):
        return None
    (ta, ca), (tb, cb) = node_types.get(a, ("unknown", 0.0)), node_types.get(b, ("unknown", 0.0))
    if found[0][0] == rules.NAME_PART and "person" not in (ta, tb) and len(found) == 1 and not nodes.narrative:
        return None  # in papers a part of a name is evidence for people only ("Peter"/"Peter Rabbit", not "fusion")
    rule, rule_score = found[0]
    cosine = float(nodes.combined[i] @ nodes.combined[j])
    context = float(nodes.context[i] @ nodes.context[j])
    scores: tuple[tuple[str, float], ...] = ((rule, rule_score), ("cosine", round(cosine, 3)),
                                             ("context", round(context, 3)))
    if rule == rules.NAME_PART:
        scores += (("short", 0.0 if len(nodes.labels[i].split()) <= len(nodes.labels[j].split()) else 1.0),)
    if not rules.type_compatible(ta, tb) and min(ca, cb) >= TYPE_GUARD_AT:
        scores += (("types", 0.0),)
    merged, flag = decision(rule, dict(scores), thresholds)
    return Merge(a, b, rule, scores, merged=merged, flag=flag)


def decision(rule: str, scores: Mapping[str, float], thresholds: Thresholds = DEFAULT) -> tuple[bool, str]:
    """(merged, flag) for a candidate from its strongest rule and its scores.

    >>> decision("exact-name", {"cosine": 0.9, "context": 0.1})
    (False, 'same-name-different-context')
    >>> decision("fuzzy-name", {"cosine": DEFAULT.merge_at + 0.01, "context": 0.5})
    (True, 'near-threshold')
    >>> decision("acronym", {"cosine": 0.2, "context": 0.2, "types": 0.0})
    (False, '')
    """
    if scores.get("types", 1.0) == 0.0:
        return False, ""
    if scores.get("ambiguous", 0.0) == 1.0:
        return False, AMBIGUOUS_PART
    cosine, context = scores.get("cosine", 0.0), scores.get("context", 0.0)
    if rule in (rules.EXACT, rules.PLURAL, rules.HONORIFIC):
        if context < thresholds.apart_below:
            return False, SAME_NAME_APART
        return True, NEAR_THRESHOLD if context < thresholds.apart_below + NEAR else ""
    if rule == rules.ACRONYM:
        return True, ""
    near = abs(cosine - thresholds.merge_at) < NEAR
    return cosine >= thresholds.merge_at, NEAR_THRESHOLD if near else ""


def with_thresholds(found: Resolution, thresholds: Thresholds) -> Resolution:
    """``found`` decided again at other thresholds (the scores do not depend on them)."""
    candidates = [replace(m, merged=merged, flag=flag) for m in found.candidates
                  for merged, flag in [decision(m.rule, dict(m.scores), thresholds)]]
    return replace(found, candidates=tuple(candidates), thresholds=thresholds)


def _written_acronym(nodes: _Nodes, i: int, j: int, defined: Mapping[str, set[str]]) -> list[tuple[str, float]]:
    """The acronym rule applied to the spans a node was written as: the parser may label "Large language models"
    as "language model", or cut "Retrieval-Augmented Generation" to "-Augmented Generation"."""
    for short, other in ((i, j), (j, i)):
        for text in nodes.texts[other][:MAX_TEXTS]:
            if rules.acronym(nodes.labels[short], text, defined):
                return [(rules.ACRONYM, 1.0)]
    return []


def _may_meet(nodes: _Nodes, i: int, j: int) -> bool:
    """The common-noun guard: two common nouns never meet across documents, and a common noun meets a name
    only inside its own documents."""
    da, db = nodes.documents[i], nodes.documents[j]
    if nodes.named[i] and nodes.named[j]:
        return True
    if not nodes.named[i] and not nodes.named[j]:
        return da == db
    common = da if not nodes.named[i] else db
    other = db if not nodes.named[i] else da
    return common <= other


def build_groups(index: Index, found: Resolution, human: Sequence[Merge]) -> tuple[EntityGroup, ...]:
    """Entities from the resolver's merges and people's decisions: people's confirmations first, then the
    resolver's merges by score, never joining two nodes a person split (directly or through others)."""
    entity_ids = [i for i, n in index.graph.nodes.items() if n.node_type == ENTITY]
    parent = {i: i for i in entity_ids}
    decided = applicable(human, set(entity_ids))
    apart = {p for p, d in decided.items() if not d.merged}
    edges = [d for d in decided.values() if d.merged]
    edges += sorted((m for m in found.candidates if m.merged and m.pair not in decided and m.a in parent
                     and m.b in parent), key=lambda m: (-m.score("cosine"), m.pair))
    members: dict[str, set[str]] = {i: {i} for i in entity_ids}
    common = {i: {found.common[i]} if i in found.common else set() for i in entity_ids}
    used: list[Merge] = []
    for edge in edges:
        ra, rb = _root(parent, edge.a), _root(parent, edge.b)
        if ra == rb or any(pair_apart(x, y, apart) for x in members[ra] for y in members[rb]):
            continue
        if edge.status == PROPOSED and len(common[ra] | common[rb]) > 1:
            continue  # the resolver never joins two documents' common nouns, not even through a name
        parent[rb] = ra
        members[ra] |= members.pop(rb)
        common[ra] |= common.pop(rb)
        used.append(edge)
    return _groups(index, [sorted(m) for m in members.values()], used, found.node_types)


def merged_components(found: Resolution) -> dict[str, str]:
    """Node -> a representative of its entity, from the resolver's merges alone (no people's decisions): the
    same entities :func:`build_groups` makes then, without building them (the benchmark's threshold sweep).

    >>> m = Merge("a", "b", "plural-case", (("cosine", 0.9),))
    >>> c = merged_components(Resolution((m, Merge("b", "x", "exact-name", ())), {}, "narrative",
    ...                                  common={"a": "d1", "x": "d2"}))
    >>> c["a"] == c["b"], c["b"] == c.get("x", "x")
    (True, False)
    """
    parent: dict[str, str] = {}
    common: dict[str, set[str]] = {}

    def find(x: str) -> str:
        if x not in parent:
            parent[x], common[x] = x, {found.common[x]} if x in found.common else set()
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for m in sorted((m for m in found.candidates if m.merged), key=lambda m: (-m.score("cosine"), m.pair)):
        ra, rb = find(m.a), find(m.b)
        if ra != rb and len(common[ra] | common[rb]) <= 1:
            parent[rb] = ra
            common[ra] |= common.pop(rb)
    return {x: find(x) for x in list(parent)}


def pair_apart(x: str, y: str, apart: set[tuple[str, str]]) -> bool:
    """Whether a person split ``x`` and ``y``.

    >>> pair_apart("b", "a", {("a", "b")})
    True
    """
    return ((x, y) if x <= y else (y, x)) in apart


def _root(parent: dict[str, str], x: str) -> str:
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def _groups(index: Index, components: list[list[str]], used: list[Merge],
            node_types: Mapping[str, tuple[str, float]]) -> tuple[EntityGroup, ...]:
    nodes = index.graph.nodes
    by_node: dict[str, list[Merge]] = {}
    for m in used:
        by_node.setdefault(m.a, []).append(m)
        by_node.setdefault(m.b, []).append(m)
    out = []
    for component in components:
        rows = {n: min(index.sentence_row(s) for s in nodes[n].grounded_texts) for n in component}
        ordered = sorted(component, key=lambda n: (-len(nodes[n].grounded_texts), rows[n], n))
        aliases = _aliases(ordered, by_node, {n: nodes[n].label for n in component})
        sentence_rows = sorted({index.sentence_row(s) for n in component for s in nodes[n].grounded_texts})
        docs = list(dict.fromkeys(d for n in ordered for d in index.node_documents[n]))
        order = {d: k for k, d in enumerate(index.manifest.doc_ids)}
        entity_type, confidence = types.vote([node_types.get(n, ("unknown", 0.0)) for n in ordered],
                                             [len(nodes[n].grounded_texts) for n in ordered])
        out.append((min(rows.values()), EntityGroup(
            ordered[0], nodes[ordered[0]].label, tuple(ordered), aliases, entity_type, confidence,
            tuple(sorted(docs, key=lambda d: order.get(d, len(order)))),
            tuple(index.sentences[r].id for r in sentence_rows))))
    return tuple(g for _, g in sorted(out, key=lambda x: (x[0], x[1].entity_id)))


def _aliases(ordered: list[str], by_node: Mapping[str, list[Merge]], labels: Mapping[str, str]) -> tuple[Alias, ...]:
    """Each member with the rule of the merge that reached it first from the canonical member (breadth first)."""
    out = [Alias(labels[ordered[0]], ordered[0], "canonical", 1.0)]
    seen, queue = {ordered[0]}, [ordered[0]]
    while queue:
        current = queue.pop(0)
        for m in sorted(by_node.get(current, []), key=lambda m: m.pair):
            other = m.b if m.a == current else m.a
            if other not in seen:
                seen.add(other)
                queue.append(other)
                rule = m.rule if m.status == "proposed" else f"{m.status} by {m.reviewer}"
                out.append(Alias(labels[other], other, rule, m.score(m.rule, m.score("cosine"))))
    return tuple(out)
