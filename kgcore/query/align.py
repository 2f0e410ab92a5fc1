"""Soft alignment of a query graph onto every sentence of the grounded graph.

Top-K matching (paper section 3.4) decides *which sentences* are candidates;
it is a poor guide to *how well* a sentence answers.  Actions are one node
per occurrence, so the hundreds of ``make_*`` nodes of a novel tie and K=10
keeps an arbitrary handful: the "make" of "I ... make an umbrella" is
rarely among them, and the question's structure (Crusoe -ARG0- make) then
cannot be seen in the sentence that answers it.

Alignment looks at every sentence's own nodes instead.  For each query node
``q`` and graph node ``v`` the **evidence** is

    evidence(q, v) = max(0, cos - floor) / (1 - floor)          # absolute: above MiniLM's noise
                   * exp((cos - best_q) / temperature)           # relative: near q's best match anywhere
                   * specificity(v)                              # IDF over grounded sentences

and per sentence ``s``

* **coverage(q, s)** is the best evidence of ``q`` among the nodes grounded
  in ``s`` (of ``q``'s type: an entity aligns to entities, an action to actions);
* **structure(s)** sums, over the query's edges (q1, q2), the best
  ``min(evidence(q1, a), evidence(q2, b))`` over edges (a, b) grounded in
  ``s``, in either direction: the question's action-argument structure recurs.

Everything is vectorised over the whole book (a sentence-node incidence
and an edge list, built once per index), so scoring 2,000 sentences costs
a few milliseconds.

0.3 is above the floor, but 0.6 below the best match: its evidence (0.0002) is under MIN_EVIDENCE.

>>> np.round(node_evidence(np.array([[0.9, 0.5, 0.3]]), np.ones(3)), 4).tolist()
[[0.8667, 0.0061, 0.0]]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from kgcore.core.graph import specificity
from kgcore.core.types import ACTION, Match, SentenceGraph
from kgcore.index.store.disk import CacheKey, Index
from kgcore.index.store.partial import WHOLE, grounded_count, part_counts, whole_sentences
from kgcore.query.match import gather_runs, mask_penalties, node_cosines

#: Cosines below this are no evidence at all (MiniLM gives unrelated phrases ~0.1-0.25).
COSINE_FLOOR = 0.25
#: Decay of evidence with the distance to the query node's best match anywhere in the graph.
MATCH_TEMPERATURE = 0.1
#: Alignments weaker than this are not reported as a reason (they move the score by less than 1%).
MIN_REPORTED_EVIDENCE = 0.01
#: Whether an action node's specificity counts the sentences grounding *any* action of its label (``label``) or only
#: its own occurrence (``node``).  Actions are one node per occurrence, so by the node each "be", "have" and "do" of a
#: novel was as specific as its rarest verb, and a question's light verb ("What is Anne's job?") aligned with full
#: weight to every copula of the book; counted by label, "be" is as common as it is.  NarrativeQA design books, fused
#: ranking with the graph added to f0: 0.312 / 0.447 / 0.553 / 0.681 -> 0.313 / 0.452 / 0.576 / 0.692 at 200 / 500 /
#: 1,000 / 2,000 words; with the graph gated by the dense signal (:data:`kgcore.query.propagation.GRAPH_GATE`) it moves
#: nothing measurable (within 0.002).
ACTION_SPECIFICITY = "label"
#: Evidence below this counts as none.  It moves a sentence's graph evidence by less than 0.001 (the scores are
#: rounded to 4 places), while 87% of an ObliQA query's graph nodes have some evidence above 0 and only 25% this
#: much: coverage and structure then read a quarter of the pairs and edges.
MIN_EVIDENCE = 1e-3


@dataclass(frozen=True)
class Incidence:
    """Which nodes and edges each sentence grounds, as flat arrays (cached per index)."""

    node_rows: np.ndarray          # node row of every (sentence, node) pair, sorted by sentence
    segment_starts: np.ndarray     # where each sentence's run starts in node_rows
    segment_sentences: np.ndarray  # the sentence row of each run
    edges: np.ndarray              # (sentence row, source node row, target node row) per grounding, by sentence;
    #                                column-major, so each column is contiguous
    specificity: np.ndarray        # per node row
    pair_sentences: np.ndarray     # the sentence row of every (sentence, node) pair, aligned with node_rows
    node_starts: np.ndarray        # where each node row's sentences start in node_sentences (length nodes + 1)
    node_sentences: np.ndarray     # the pairs' sentence rows ordered by node row (each node's in reading order)


INCIDENCE: CacheKey[Incidence] = CacheKey("incidence")


@dataclass(frozen=True)
class Alignment:
    """A query graph aligned onto every sentence of an index.

    ``evidence`` is (query nodes x graph nodes), ``coverage`` (query nodes x
    sentences), ``structure`` and ``graph`` (sentences): ``graph`` is the mean
    coverage over query nodes plus ``w_structure`` times the structure per
    query edge.
    """

    evidence: np.ndarray
    coverage: np.ndarray
    structure: np.ndarray
    graph: np.ndarray
    #: Each query node's best cosine the evidence was measured against (-inf: none anywhere).
    best: np.ndarray | None = None


@dataclass
class GraphMatch:
    """A question matched onto the grounded graph: the query graph, its top-K matches (the paper's union is
    :func:`paper_union` of them) and the soft alignment of its nodes and edges onto every sentence, with the
    question's vector and cosines."""

    query_graph: SentenceGraph
    matches: list[Match]
    alignment: Alignment
    query_keys: list[str]
    query_edges: list[tuple[int, int]]
    vector: np.ndarray
    sims: np.ndarray
    scope: np.ndarray | None
    timings: dict[str, float]
    notes: list[str]
    #: Each query node's pool of candidates, when asked (a shard's, for the driver's top-K: ``match.Pool``).
    pools: list | None = None
    #: What aligning the question again takes (``methods.groundedkg.realigned``): the matched query nodes'
    #: vectors, their type masks and their cosines to every graph node (masked).
    inputs: tuple[np.ndarray, list, np.ndarray] | None = None


def node_evidence(cosines: np.ndarray, node_specificity: np.ndarray) -> np.ndarray:
    """Evidence of every graph node for every query node (rows), from their cosines.

    A query node's best match gets its absolute strength; a match 0.1 below
    it keeps 1/e of that, so "tool-shed" -> "shed" counts and "wood" hardly.

    >>> ev = node_evidence(np.array([[0.9, 0.8, 0.5]]), np.ones(3))
    >>> bool(ev[0, 0] > ev[0, 1] > ev[0, 2] > 0)
    True
    """
    return evidence_rows(cosines, node_specificity)[0]


def evidence_rows(cosines: np.ndarray, node_specificity: np.ndarray, best: np.ndarray | None = None
                  ) -> tuple[np.ndarray, list[np.ndarray]]:
    """:func:`node_evidence`, and per query node the graph rows where it is not zero.  ``best``: each query node's
    best cosine anywhere in the collection, when ``cosines`` cover only part of it (default: their own best).

    One query node at a time, and only over the graph rows whose cosine can give evidence at all
    (:func:`least_cosine`: about a third of ObliQA's 124,000 nodes for a typical query node); every other row's
    evidence is 0, as the full computation makes it.
    """
    if best is None:
        best = best_cosines(cosines)
    best = np.maximum(np.asarray(best, dtype=cosines.dtype).reshape(-1, 1), -1.0)  # masked whole: no evidence
    weights = node_specificity.astype(cosines.dtype, copy=False)
    evidence = np.zeros_like(cosines)
    rows = []
    for q, (out, row) in enumerate(zip(evidence, cosines)):
        candidates = np.flatnonzero(row >= least_cosine(float(best[q, 0])))
        cos = row[candidates]
        value = cos - best[q]
        value *= 1 / MATCH_TEMPERATURE
        np.exp(value, out=value)
        absolute = cos - COSINE_FLOOR
        absolute *= 1 / (1 - COSINE_FLOOR)
        np.maximum(absolute, 0.0, out=absolute)
        value *= absolute
        value *= weights[candidates]
        kept = value >= MIN_EVIDENCE
        out[candidates[kept]] = value[kept]
        rows.append(candidates[kept])
    return evidence, rows


def best_cosines(cosines: np.ndarray) -> np.ndarray:
    """Each query node's (row's) best cosine, -inf where it has none (every graph row masked, or no graph rows).

    >>> best_cosines(np.array([[0.2, 0.7], [-np.inf, -np.inf]])).tolist(), best_cosines(np.zeros((1, 0))).tolist()
    ([0.7, -inf], [-inf])
    """
    if not cosines.shape[1]:
        return np.full(len(cosines), -np.inf)
    return cosines.max(axis=1)


def least_cosine(best: float) -> float:
    """A cosine below which a graph node has no evidence for a query node whose best cosine is ``best``: evidence
    is exp((c - best) / T) * (c - floor) / (1 - floor) * specificity, rising with c, and specificity is at most 1,
    so below the c where the rest reaches :data:`MIN_EVIDENCE` it cannot (found by bisection, less a margin).

    >>> c = least_cosine(0.9)
    >>> 0.35 < c < 0.4
    True
    >>> least_cosine(-1.0) > 1  # nothing matches a query node masked everywhere
    True
    """
    def reach(c: float) -> float:
        return math.exp((c - best) / MATCH_TEMPERATURE) * (c - COSINE_FLOOR) / (1 - COSINE_FLOOR)

    lo, hi = COSINE_FLOOR, max(best, COSINE_FLOOR)
    if reach(hi) < MIN_EVIDENCE:
        return 2.0
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if reach(mid) < MIN_EVIDENCE else (lo, mid)
    return lo - 1e-4


def incidence(index: Index) -> Incidence:
    """The index's sentence-node incidence and edge list, built on first use."""
    return index.cache.get(INCIDENCE, lambda: _incidence(index))


def _incidence(index: Index) -> Incidence:
    row_of, sentence_row = index.node_row, index.sentence_row
    pairs = _sorted_rows([(sentence_row(sid), row_of[node_id])
                          for node_id, node in index.graph.nodes.items() for sid in node.grounded_texts], 2)
    starts = _segments(pairs[:, 0])
    edges = _sorted_rows([(sentence_row(sid), row_of[e.source], row_of[e.target])
                          for e in index.graph.edges for sid in e.grounded_texts], 3)
    grounded = grounded_sentences(index)
    node_starts = np.zeros(len(index.node_ids) + 1, dtype=np.int64)
    node_starts[1:] = np.cumsum(np.bincount(pairs[:, 1], minlength=len(index.node_ids)))
    return Incidence(pairs[:, 1], starts, pairs[starts, 0], np.asfortranarray(edges),
                     np.asarray(specificity(grounded, whole_sentences(index))), pairs[:, 0], node_starts,
                     np.ascontiguousarray(pairs[np.argsort(pairs[:, 1], kind="stable"), 0]))


def grounded_sentences(index: Index) -> np.ndarray:
    """Per node row, how many sentences ground it -- for an action, when :data:`ACTION_SPECIFICITY` is ``label``,
    how many ground an action with its label (lower-cased), each sentence once."""
    nodes = [index.graph.nodes[n] for n in index.node_ids]
    counts = np.array([grounded_count(index, n) for n in index.node_ids])  # a part counts over the whole
    if ACTION_SPECIFICITY != "label":
        return counts
    whole = index.cache.peek(WHOLE)  # a part of a collection counts an action's label over the whole
    by_label = (whole or part_counts(index)).action_labels
    return np.array([by_label[node.label.lower()] if node.node_type == ACTION else count
                     for node, count in zip(nodes, counts)])


def _sorted_rows(rows: list[tuple[int, ...]], width: int) -> np.ndarray:
    """``rows`` as an (n, ``width``) array in lexicographic order (numpy's sort: on ObliQA's 271,000 groundings
    Python's tuple sort took most of a second).

    >>> _sorted_rows([(2, 1), (0, 5), (2, 0)], 2).tolist(), _sorted_rows([], 3).shape
    ([[0, 5], [2, 0], [2, 1]], (0, 3))
    """
    array = np.array(rows, dtype=np.int64).reshape(-1, width)
    return array[np.lexsort(array.T[::-1])]


def align(index: Index, query_vectors: np.ndarray, type_masks: list[np.ndarray | None],
          query_edges: list[tuple[int, int]], w_structure: float, cosines: np.ndarray | None = None,
          best: np.ndarray | None = None) -> Alignment:
    """Align query nodes (rows of ``query_vectors``) onto every sentence of ``index``.

    ``type_masks`` (from :func:`kgcore.query.match.type_mask`) restricts each query
    node to the graph rows it may align to (None: any); ``query_edges`` are
    pairs of query rows linked in the query graph.  ``cosines`` (query rows × graph rows), when the caller
    has them, saves the largest product of a query; they are changed in place (masked rows set to -inf).
    ``best``: each query node's best cosine over the whole collection when ``index`` is a part of it (a shard);
    the alignment then weighs evidence as the whole collection's does.  :attr:`Alignment.best` is what was used.
    """
    inc = incidence(index)
    cosines = node_cosines(index, query_vectors) if cosines is None else cosines
    for row, penalty in enumerate(mask_penalties(type_masks, cosines.dtype)):
        if penalty is not None:
            cosines[row] += penalty
    best = best_cosines(cosines) if best is None else best
    evidence, rows = evidence_rows(cosines, inc.specificity, best)
    # Only graph rows some query node has evidence for can raise a sentence's coverage or structure (every other
    # term is 0 and both are maxima of non-negative terms), so coverage reads those rows' sentences and the
    # edges are cut to those rows first.
    positive = np.zeros(evidence.shape[1], dtype=bool)
    for found in rows:
        positive[found] = True
    coverage = _coverage(evidence, rows, inc, len(index.sentences))
    structure = _structure(evidence, inc, positive, set(query_edges), len(index.sentences))
    graph = coverage.sum(axis=0) / max(len(query_vectors), 1) + w_structure * structure / max(len(set(query_edges)), 1)
    return Alignment(evidence, coverage, structure, graph, np.asarray(best, dtype=np.float64))


def _segments(sentences: np.ndarray) -> np.ndarray:
    """Where each run of equal sentence rows starts in ``sentences`` (sorted)."""
    return np.flatnonzero(np.r_[True, sentences[1:] != sentences[:-1]]) if len(sentences) else sentences


def _coverage(evidence: np.ndarray, rows: list[np.ndarray], inc: Incidence, n_sentences: int) -> np.ndarray:
    """Per query node and sentence, the best evidence among the sentence's nodes: each query node's evidence at
    its ``rows`` (those with evidence) is spread to the sentences those rows are grounded in.

    Evidence is never negative, so a maximum into zeros is exact; ``np.maximum.at`` one query node at a time
    is several times faster than a 2-D ``reduceat`` over ObliQA's 13,000 sentence segments.
    """
    coverage = np.zeros((len(evidence), n_sentences), dtype=evidence.dtype)  # ufunc.at is fast without a cast
    for q, found in enumerate(rows):
        sentences, lengths = gather_runs(inc.node_starts, inc.node_sentences, found)
        np.maximum.at(coverage[q], sentences, np.repeat(evidence[q].take(found), lengths))
    return coverage.astype(np.float64, copy=False)


def _structure(evidence: np.ndarray, inc: Incidence, positive: np.ndarray, query_edges: set[tuple[int, int]],
               n_sentences: int) -> np.ndarray:
    """Per sentence, the summed evidence of query edges whose two ends align to nodes an edge of it joins."""
    structure = np.zeros(n_sentences)
    if not len(inc.edges) or not query_edges:
        return structure
    sentences, sources, targets = inc.edges.T  # contiguous columns
    keep = np.flatnonzero(positive[sources] & positive[targets])
    sentence, source, target = sentences.take(keep), sources.take(keep), targets.take(keep)
    best = np.zeros(n_sentences, dtype=evidence.dtype)
    ends = {q for edge in query_edges for q in edge} if len(keep) else set()
    at_source = {q: evidence[q].take(source) for q in ends}  # gathered once per query node, not once per edge
    at_target = {q: evidence[q].take(target) for q in ends}
    for a, b in query_edges if len(keep) else ():
        linked = np.maximum(np.minimum(at_source[a], at_target[b]), np.minimum(at_source[b], at_target[a]))
        best.fill(0.0)
        np.maximum.at(best, sentence, linked)  # per sentence, its best edge (as in _coverage)
        structure += best
    return structure


def paper_union(index: Index, matches: list[Match], scope: np.ndarray | None = None,
                only: set[str] | None = None) -> dict[str, dict[str, list[str]]]:
    """The paper's S_selected: sentence id -> {"nodes": matched node ids, "queries": query nodes}, in match order.

    Sentences outside ``scope`` (sentence rows) are left out, and with ``only`` (sentence ids) every other one:
    a ranking that keeps a few sentences of every one in scope asks only for theirs.
    """
    union: dict[str, dict[str, list[str]]] = {}
    for m in matches:
        for sid in index.graph.nodes[m.node_id].grounded_texts:
            if (only is not None and sid not in only) or (scope is not None and not scope[index.sentence_row(sid)]):
                continue
            entry = union.setdefault(sid, {"nodes": [], "queries": []})
            if m.node_id not in entry["nodes"]:
                entry["nodes"].append(m.node_id)
            if m.query_node not in entry["queries"]:
                entry["queries"].append(m.query_node)
    return union


def aligned_nodes(index: Index, alignment: Alignment, sentence_row: int, query_keys: list[str],
                  query_edges: list[tuple[int, int]]) -> list[dict]:
    """Why one sentence scored: per query node, the sentence's node it aligned to.

    Each item has ``query_node``, ``node_id``, ``label``, ``evidence`` and
    ``linked`` (the reported query nodes whose aligned nodes share an edge
    of this sentence with this one); alignments with evidence below
    :data:`MIN_REPORTED_EVIDENCE` are left out.
    """
    inc = incidence(index)
    hit = np.searchsorted(inc.segment_sentences, sentence_row)
    if hit >= len(inc.segment_sentences) or inc.segment_sentences[hit] != sentence_row:
        return []
    end = inc.segment_starts[hit + 1] if hit + 1 < len(inc.segment_starts) else len(inc.node_rows)
    rows = inc.node_rows[inc.segment_starts[hit]:end]
    among = alignment.evidence[:, rows]  # query nodes x this sentence's nodes, gathered once
    top = among.argmax(axis=1)
    best = {q: int(rows[top[q]]) for q in range(len(query_keys)) if among[q, top[q]] >= MIN_REPORTED_EVIDENCE}
    lo, hi = np.searchsorted(inc.edges[:, 0], [sentence_row, sentence_row + 1]) if len(inc.edges) else (0, 0)
    edges = {(int(s), int(t)) for _, s, t in inc.edges[lo:hi]}
    out = []
    for q, node_row in best.items():
        value = float(alignment.evidence[q, node_row])
        linked = sorted(query_keys[o] for a, b in query_edges for me, o in ((a, b), (b, a))
                        if me == q and o in best and ((node_row, best[o]) in edges or (best[o], node_row) in edges))
        node_id = index.node_ids[node_row]
        out.append({"query_node": query_keys[q], "node_id": node_id, "label": index.graph.nodes[node_id].label,
                    "evidence": round(value, 4), "linked": linked})
    return out
