"""GroundedKG retrieval (paper section 3.4) with a graph-ranked, budgeted context.

Steps, each timed: ``parse`` the question with the index's parser Φ into a
query graph; ``embed`` its nodes with the index's embedding variant;
``match`` every query node to its top-K graph nodes by cosine (exact numpy
search over the stored node matrix, or Chroma); ``select`` the union of the
matched nodes' grounded sentences, apply the paper's optional filters
(VectorSim τ, RetCount ≥ n), rank by :func:`graph_score` and honour the
sentence/word budget.  With no budget the result is the paper's plain union.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from .embed import embed_query_nodes
from .match import match_nodes, query_adjacency
from .settings import RetrievalOptions
from .store import Index
from .types import ENTITY, LocalNode, Match, QueryResult, SelectedSentence, SentenceGraph

#: Weights of the graph score (see :func:`graph_score`).
W_STRUCTURE = 0.5
W_SIMILARITY = 1.5
W_NEIGHBOUR = 0.3
LENGTH_EXPONENT = 0.3
#: Lowest specificity a matched node keeps, so a sentence about the hero still counts a little.
MIN_SPECIFICITY = 0.15
#: Cosines below this are treated as no evidence at all (MiniLM gives unrelated phrases ~0.1-0.25).
COSINE_FLOOR = 0.25
#: Decay of a match's weight with its distance to the query node's best match.
MATCH_TEMPERATURE = 0.1


@dataclass
class _Candidate:
    """Evidence gathered for one sentence while matching."""

    row: int
    node_ids: list[str] = field(default_factory=list)
    best_per_query: dict[str, float] = field(default_factory=dict)


def fallback_query_graph(question: str) -> SentenceGraph:
    """The whole question as a single query node (used when parsing finds nothing to match)."""
    node = LocalNode("q0", question, (question,), ENTITY, None, 0)
    return SentenceGraph("query", (node,), (), {"fallback": True})


def specificity(grounded: int, total_sentences: int) -> float:
    """How much a match tells about *which* sentence: an IDF scaled to [MIN_SPECIFICITY, 1].

    >>> specificity(1, 1000)
    1.0
    >>> round(specificity(1000, 1000), 2)
    0.15
    """
    if total_sentences <= 1:
        return 1.0
    idf = math.log(total_sentences / max(grounded, 1)) / math.log(total_sentences)
    return MIN_SPECIFICITY + (1 - MIN_SPECIFICITY) * max(0.0, min(1.0, idf))


def match_evidence(score: float, best_score: float) -> float:
    """How strongly a match speaks for its query node, in [0, 1].

    The absolute part discounts cosines near the noise floor; the relative
    part (a softmax-like decay from the query node's best match, temperature
    ``MATCH_TEMPERATURE``) keeps the long tail of K=10 from counting as much
    as the real matches: "tool-shed" -> "shed" (0.78) counts, "wood" (0.44) hardly.

    >>> match_evidence(0.9, 0.9) > match_evidence(0.8, 0.9) > match_evidence(0.5, 0.9)
    True
    >>> match_evidence(0.2, 0.2)
    0.0
    """
    absolute = max(0.0, score - COSINE_FLOOR) / (1 - COSINE_FLOOR)
    return absolute * math.exp((score - best_score) / MATCH_TEMPERATURE)


def match_strengths(matches: list[Match]) -> list[float]:
    """:func:`match_evidence` of every match against its query node's best match, in order."""
    best: dict[str, float] = {}
    for m in matches:
        best[m.query_node] = max(best.get(m.query_node, -1.0), m.score)
    return [match_evidence(m.score, best[m.query_node]) for m in matches]


def _gather(index: Index, matches: list[Match], strengths: list[float]) -> dict[str, _Candidate]:
    total = len(index.sentences)
    candidates: dict[str, _Candidate] = {}
    for m, strength in zip(matches, strengths):
        grounded = index.graph.nodes[m.node_id].grounded_texts
        evidence = strength * specificity(len(grounded), total)
        for sid in grounded:
            cand = candidates.get(sid)
            if cand is None:
                cand = candidates[sid] = _Candidate(index.sentence_row(sid))
            if m.node_id not in cand.node_ids:
                cand.node_ids.append(m.node_id)
            cand.best_per_query[m.query_node] = max(cand.best_per_query.get(m.query_node, 0.0), evidence)
    return candidates


def _sentence_edges(index: Index) -> dict[str, list[tuple[str, str]]]:
    cache = index.cache.get("sentence_edges")
    if cache is None:
        cache = defaultdict(list)
        for e in index.graph.edges:
            for sid in e.grounded_texts:
                cache[sid].append((e.source, e.target))
        index.cache["sentence_edges"] = cache
    return cache


def structure_overlap(edges: list[tuple[str, str]], owners: dict[str, dict[str, float]]) -> float:
    """Weighted count of distinct query-node pairs whose matches are joined by an edge of the sentence.

    ``owners`` maps a matched node id to {query node: match evidence}; a
    pair counts with the weaker of its two matches' evidence, so two
    long-tail matches that happen to be linked add almost nothing.

    >>> structure_overlap([("give_3", "tea")], {"give_3": {"q_give": 1.0}, "tea": {"q_tea": 0.5}})
    0.5
    >>> structure_overlap([("give_3", "tea")], {"give_3": {"q_give": 1.0}})
    0.0
    """
    pairs: dict[frozenset, float] = {}
    for source, target in edges:
        for u, eu in owners.get(source, {}).items():
            for w, ew in owners.get(target, {}).items():
                if u != w:
                    key = frozenset((u, w))
                    pairs[key] = max(pairs.get(key, 0.0), min(eu, ew))
    return float(sum(pairs.values()))


def graph_evidence(evidence_per_query: dict[str, float], structure_pairs: float, n_query_nodes: int) -> float:
    """The graph part of :func:`graph_score`: query-node coverage plus recurring structure."""
    coverage = sum(evidence_per_query.values()) / max(n_query_nodes, 1)
    structure = structure_pairs / max(n_query_nodes - 1, 1)
    return coverage + W_STRUCTURE * structure


def graph_score(own_evidence: float, similarity: float, neighbour_evidence: float = 0.0) -> float:
    """Rank of a sentence in the union; higher is better.

    * **coverage** — for every *distinct* query node matched in the sentence,
      its best evidence there: the match cosine above a noise floor, decayed
      by its distance to the query node's best match, times the matched
      node's *specificity* (an IDF over grounded sentences), so the hero
      grounded in thousands of sentences adds little while a rare concept
      adds much; summed over query nodes and divided by their number, so a
      sentence that answers several parts of the question wins;
    * **structure** — query-node pairs whose matches are linked by an edge
      grounded in this very sentence (the question's action–argument
      structure recurs here), each pair weighted by its weaker match's
      evidence, then by ``W_STRUCTURE``;
    * **narrative neighbourhood** — ``W_NEIGHBOUR`` times the graph evidence
      of the stronger adjacent sentence in the union: stories answer "how"
      and "what next" in the sentence after the one that matches ("Mr.
      McGregor was quite sure that Peter was somewhere in the tool-shed" ->
      "Presently Peter sneezed");
    * **similarity** — cosine between question and sentence (``W_SIMILARITY``),
      which breaks ties among sentences with the same graph evidence.

    ``own_evidence`` is :func:`graph_evidence` (coverage + structure).

    >>> two_parts = graph_evidence({"a": 0.9, "b": 0.8}, 1, 2)
    >>> one_part = graph_evidence({"a": 0.9}, 0, 2)
    >>> graph_score(two_parts, 0.5) > graph_score(one_part, 0.5)
    True
    """
    return own_evidence + W_NEIGHBOUR * neighbour_evidence + W_SIMILARITY * similarity


def apply_budget(ranked: list[SelectedSentence], budget_sentences: int = 0, budget_words: int = 0) -> list[SelectedSentence]:
    """Take sentences in rank order while they fit; the same rule for every method.

    A sentence that would overflow the word budget is skipped and shorter
    lower-ranked ones may still fit.  Zero means no limit.

    >>> s = [SelectedSentence(str(i), i, "w " * n, "") for i, n in enumerate([3, 5, 2])]
    >>> [x.id for x in apply_budget(s, budget_words=6)]
    ['0', '2']
    """
    kept, words = [], 0
    for sent in ranked:
        if budget_sentences and len(kept) >= budget_sentences:
            break
        n = len(sent.text.split())
        if budget_words and words + n > budget_words:
            continue
        kept.append(sent)
        words += n
    return kept


def question_vector(index: Index, embedder, question: str) -> tuple[np.ndarray, np.ndarray]:
    """The question's embedding and its cosine to every sentence of the index."""
    q = embedder.encode([question])[0]
    return q, index.sentence_vectors @ q


def retrieve_groundedkg(index: Index, question: str, options: RetrievalOptions, parser, embedder, use_chroma: bool = False) -> QueryResult:
    """The paper's node-matching retrieval, ranked by :func:`graph_score` and budgeted."""
    timings, notes = {}, []
    start = time.perf_counter()
    query_graph = parser.parse_question(question)
    matchable = [n for n in query_graph.nodes if not n.is_unknown]
    if not matchable:
        notes.append("The question has no parseable predicate or entity; the whole question was embedded as one query node.")
        query_graph = fallback_query_graph(question)
        matchable = list(query_graph.nodes)
    timings["parse"] = _ms(start)

    start = time.perf_counter()
    opts = index.manifest.get("options", {})
    keys, vectors = embed_query_nodes(query_graph, embedder, opts.get("embedding", "basic"), opts.get("alpha", 0.5), opts.get("beta", 0.8))
    wanted = [i for i, key in enumerate(keys) if key in {n.key for n in matchable}]
    _, sims = question_vector(index, embedder, question)
    timings["embed"] = _ms(start)

    start = time.perf_counter()
    by_key = {n.key: n for n in query_graph.nodes}
    neighbours = query_adjacency(query_graph, [keys[i] for i in wanted])
    matches = match_nodes(index, vectors[wanted], [by_key[keys[i]] for i in wanted], options.k, use_chroma, neighbours=neighbours)
    timings["match"] = _ms(start)

    start = time.perf_counter()
    strengths = match_strengths(matches)
    candidates = _gather(index, matches, strengths)
    selected = _rank_candidates(index, candidates, matches, strengths, sims, len(wanted), options)
    timings["select"] = _ms(start)
    timings["retrieval"] = round(sum(timings[k] for k in ("parse", "embed", "match", "select")), 3)
    return QueryResult(
        question, "groundedkg", index.doc_id, query_graph, matches, selected,
        {**options.to_dict(), "index_options": opts}, timings, notes, candidates=len(candidates),
    )


def _rank_candidates(index, candidates, matches, strengths, sims, n_query_nodes, options) -> list[SelectedSentence]:
    owners: dict[str, dict[str, float]] = defaultdict(dict)
    for m, strength in zip(matches, strengths):
        owners[m.node_id][m.query_node] = strength
    edges = _sentence_edges(index)
    kept_ids = [sid for sid, cand in candidates.items()
                if (options.tau is None or sims[cand.row] >= options.tau) and len(cand.node_ids) >= options.min_count]
    own = {sid: graph_evidence(candidates[sid].best_per_query, structure_overlap(edges.get(sid, []), owners), n_query_nodes)
           for sid in kept_ids}
    by_row = {candidates[sid].row: own[sid] for sid in kept_ids}
    ranked = []
    for sid in kept_ids:
        cand = candidates[sid]
        sent = index.sentences[cand.row]
        sim = float(sims[cand.row])
        neighbour = max(by_row.get(cand.row - 1, 0.0), by_row.get(cand.row + 1, 0.0))
        score = graph_score(own[sid], sim, neighbour)
        ranked.append(SelectedSentence(
            sid, sent.position, sent.original, sent.resolved, list(cand.node_ids),
            sorted(cand.best_per_query), len(cand.node_ids), round(sim, 4), round(score, 4),
        ))
    if options.budget_words and LENGTH_EXPONENT:
        mean_words = sum(len(s.text.split()) for s in ranked) / max(len(ranked), 1)
        ranked.sort(key=lambda s: (-s.score / (max(len(s.text.split()), 1) / mean_words) ** LENGTH_EXPONENT, s.position))
    else:
        ranked.sort(key=lambda s: (-s.score, s.position))
    kept = apply_budget(ranked, options.budget_sentences, options.budget_words)
    return sorted(kept, key=lambda s: s.position)


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 3)
