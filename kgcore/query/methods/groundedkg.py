"""GroundedKG retrieval (paper section 3.4) with a graph-ranked, budgeted context.

Steps, each timed: ``parse`` the question with the index's parser Φ into a
query graph; ``embed`` its nodes with the index's embedding variant;
``match`` every query node to its top-K graph nodes by cosine (exact numpy
search over the stored node matrix, or Chroma); ``select`` the union of the
matched nodes' grounded sentences (the paper's context), apply the paper's
optional filters (VectorSim τ, RetCount ≥ n), rank the union by
:func:`graph_score` over a soft alignment of the query graph onto each
sentence (:mod:`kgcore.query.align`) and honour the sentence/word budget.  With no
budget the result is the paper's plain union.
"""

from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from kgcore.core.embed import Embedder
from kgcore.core.settings import RetrievalOptions
from kgcore.core.timing import Timer
from kgcore.core.types import ENTITY, LocalNode, QueryResult, SelectedSentence, SentenceGraph
from kgcore.index.parse import Parser
from kgcore.index.store.disk import CacheKey, Index
from kgcore.query import multihop
from kgcore.query.align import Alignment, GraphMatch, align, aligned_nodes, paper_union
from kgcore.query.answer.base import ParseMemo, shared_cache
from kgcore.query.asked_kind import AskedKind, applies
from kgcore.query.context import apply_budget, number_ranks, question_vector, selected_sentence
from kgcore.query.fused import rank_fused
from kgcore.query.match import (
    match_nodes,
    match_pools,
    node_cosines,
    query_adjacency,
    query_masks,
    query_node_vectors,
)
from kgcore.query.methods.base import EVERYTHING, Method, Models

#: Encodes a question while it is parsed: spaCy's parse holds the interpreter, the encoder's run releases it
#: (ObliQA, 150 questions each run both ways in one process: 9 ms less a question at the median, paired).
#: Several workers so the app's concurrent sessions do not queue behind one another.
_BACKGROUND = ThreadPoolExecutor(max_workers=4, thread_name_prefix="kgcore-question")

#: Weights of the graph score (see :func:`graph_score`).
W_STRUCTURE = 1.0
W_SIMILARITY = 1.0
W_NEIGHBOUR = 0.3
#: How strongly a word budget prefers short sentences (score per words**exponent, relative to the mean).
LENGTH_EXPONENT = 0.3


def fallback_query_graph(question: str) -> SentenceGraph:
    """The whole question as a single query node (used when parsing finds nothing to match)."""
    node = LocalNode("q0", question, (question,), ENTITY, None, 0)
    return SentenceGraph("query", (node,), (), {"fallback": True})


def graph_score(graph_evidence: float, similarity: float, neighbour_evidence: float = 0.0) -> float:
    """Rank of a sentence in the union; higher is better.

    * **graph evidence** (:class:`kgcore.query.align.Alignment` ``graph``): for
      every query node, the best evidence among the sentence's *own* nodes
      (cosine above a noise floor, near the query node's best match in the
      whole graph, times the node's specificity, an IDF over grounded
      sentences, so the hero grounded in thousands of sentences adds little
      and a rare concept much), averaged over query nodes so a sentence that
      answers several parts of the question wins; plus ``W_STRUCTURE`` times
      the query edges whose two ends align to nodes linked by an edge of this
      very sentence (the question's structure recurs: "Crusoe -ARG0- make"
      in "Robinson Crusoe ... make an umbrella");
    * **narrative neighbourhood**: ``W_NEIGHBOUR`` times the graph evidence
      of the stronger adjacent sentence, because stories answer "how" and
      "what next" in the sentence after the one that matches ("Mr. McGregor
      was quite sure that Peter was somewhere in the tool-shed" ->
      "Presently Peter sneezed");
    * **similarity**: ``W_SIMILARITY`` times the question-sentence cosine,
      which separates sentences with equal graph evidence.

    Under a word budget the score is divided by (words / mean words) **
    ``LENGTH_EXPONENT``, a mild preference for evidence per word.

    >>> graph_score(0.8, 0.5) > graph_score(0.4, 0.5) > graph_score(0.4, 0.3)
    True
    """
    return graph_evidence + W_NEIGHBOUR * neighbour_evidence + W_SIMILARITY * similarity


def match_question(index: Index, question: str, options: RetrievalOptions, parser: Parser, embedder: Embedder,
                   use_chroma: bool = False, best: np.ndarray | None = None, pools: bool = False) -> GraphMatch:
    """Parse, embed, match and align ``question`` within the options' scope (each step timed; the question's
    own embedding runs beside the parse, so ``embed`` is what remains of it after the parse, with the nodes').
    ``best``: the query nodes' best cosines over the whole collection, when ``index`` is a shard of it;
    ``pools``: also keep each query node's pool of candidates (:func:`~kgcore.query.match.match_pools`), for a
    driver choosing the collection's top-K from its shards'."""
    timer = Timer()
    notes: list[str] = []
    with timer.step("parse"):
        question_future = _BACKGROUND.submit(question_vector, index, embedder, question)
        query_graph = parse_question(parser, question, notes)

    with timer.step("embed"):
        keys, vectors = query_node_vectors(index, query_graph, embedder)
        matchable = {n.key for n in query_graph.nodes if not n.is_unknown} or {n.key for n in query_graph.nodes}
        wanted = [i for i, key in enumerate(keys) if key in matchable]
        vector, sims = question_future.result()

    with timer.step("match"):
        rows, nodes = scopes(index, options)
        by_key = {n.key: n for n in query_graph.nodes}
        query_keys = [keys[i] for i in wanted]
        query_nodes = [by_key[key] for key in query_keys]
        cosines = node_cosines(index, vectors[wanted])  # shared by matching and alignment (the largest product)
        masks = query_masks(index, query_nodes, nodes)  # likewise
        adjacency = query_adjacency(query_graph, query_keys)
        matches = match_nodes(index, vectors[wanted], query_nodes, options.k, use_chroma, neighbours=adjacency,
                              scope=nodes, cosines=cosines, masks=masks)
        found = match_pools(index, vectors[wanted], query_nodes, options.k, adjacency, cosines,
                            masks) if pools else None

    with timer.step("align"):
        rows_of = {key: row for row, key in enumerate(query_keys)}
        query_edges = [(rows_of[e.source], rows_of[e.target]) for e in query_graph.edges
                       if e.source in rows_of and e.target in rows_of and e.source != e.target]
        alignment = align(index, vectors[wanted], masks, query_edges, W_STRUCTURE, cosines, best)
    return GraphMatch(query_graph, matches, alignment, query_keys, query_edges, vector, sims, rows,
                      timer.ms, notes, found, (vectors[wanted], masks, cosines))


def realigned(index: Index, gm: GraphMatch, best: np.ndarray) -> GraphMatch:
    """``gm`` aligned again against ``best``, each query node's best cosine over the whole collection, without
    parsing, embedding or matching the question again (a shard first reports its own best cosines, then aligns
    with the collection's: :mod:`kgcore.query.shard_graph`).  The same as :func:`match_question` with ``best``."""
    if gm.inputs is None:
        raise ValueError("this match keeps no inputs to align it again")
    vectors, masks, cosines = gm.inputs  # masked in place by the first alignment: the penalties are 0 or -inf,
    alignment = align(index, vectors, masks, gm.query_edges, W_STRUCTURE, cosines, np.asarray(best))  # so again: same
    return dataclasses.replace(gm, alignment=alignment, pools=None, inputs=None, timings=dict(gm.timings))


def scopes(index: Index, options: RetrievalOptions) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The sentence rows and node rows ``options`` let retrieval use (None: all), built once per selection of
    documents and front matter (the node scope is a product over every grounding: ObliQA's 271,000)."""
    key = CacheKey[tuple[np.ndarray | None, np.ndarray | None]](
        f"scopes:{int(options.front_matter)}:{chr(0).join(sorted(options.documents))}")

    def build() -> tuple[np.ndarray | None, np.ndarray | None]:
        rows = index.sentence_scope(options.documents, options.front_matter)
        nodes = index.node_scope(rows)
        for mask in (rows, nodes):
            if mask is not None:
                mask.flags.writeable = False  # shared by every later question
        return rows, nodes

    return index.cache.get(key, build)


def retrieve_groundedkg(index: Index, question: str, options: RetrievalOptions, parser: Parser, embedder: Embedder,
                        use_chroma: bool = False, nlp=None) -> QueryResult:
    """The paper's node-matching retrieval, ranked by :func:`graph_score` and budgeted.

    Only sentences of ``options.documents`` (all when empty) take part, and
    title pages, contents and headings only with ``options.front_matter``.
    With ``nlp`` (a spaCy pipeline) the fused ranking raises the candidates that hold an answer of the kind the
    question asks for (:mod:`kgcore.query.asked_kind`).
    """
    gm = match_question(index, question, options, parser, embedder, use_chroma)
    timer = Timer(gm.timings)
    timer.add("select", timer.ms.pop("align"))  # aligning the query graph is the first part of selecting
    with timer.step("select"):
        if fused_budgeted(options):
            walk = multihop.plan(index, question, gm)  # questions that chain facts, over entity pages
            selected, candidates = (multihop.rank_multihop(index, question, gm, options, walk) if walk else
                                    rank_fused(index, question, gm, options,
                                               asked=asked_kind(question, nlp, len(index.sentences))))
        else:
            union = paper_union(index, gm.matches, gm.scope)
            selected = _rank_union(index, union, gm.alignment, gm.sims, options, gm.query_keys, gm.query_edges)
            candidates = len(union)
    return graph_result(index, question, options, gm, selected, timer, candidates)


def fused_budgeted(options: RetrievalOptions) -> bool:
    """Whether GroundedKG ranks with the fused ranking: ``ranking="fused"`` under a budget (without one it
    returns the paper's union)."""
    return options.ranking == "fused" and bool(options.budget_words or options.budget_sentences)


def asked_kind(question: str, nlp, sentences: int = 0) -> AskedKind | None:
    """The question's asked kind read through ``nlp``'s shared parse cache, in a collection of ``sentences``
    (None without ``nlp``, for a kind with no spans to find, or past :data:`~kgcore.query.asked_kind.MAX_SENTENCES`)."""
    return AskedKind.of(question, ParseMemo(nlp, shared_cache(nlp)).pipe, sentences) if nlp is not None else None


def graph_result(index: Index, question: str, options: RetrievalOptions, gm: GraphMatch,
                 selected: list[SelectedSentence], timer: Timer, candidates: int) -> QueryResult:
    """The QueryResult of a graph method, its steps timed by ``timer``."""
    timer.ms["retrieval"] = timer.total("parse", "embed", "match", "select")
    return QueryResult(
        question, "groundedkg", index.collection, gm.query_graph, gm.matches, selected,
        {**options.to_dict(), "index_options": index.manifest.options.to_dict()}, timer.ms, gm.notes,
        candidates=candidates,
    )


def parse_question(parser: Parser, question: str, notes: list[str]) -> SentenceGraph:
    """The query graph of ``question``; the whole question as one node (with a note) when nothing is matchable."""
    query_graph = parser.parse_question(question)
    if any(not n.is_unknown for n in query_graph.nodes):
        return query_graph
    notes.append("The question has no parseable predicate or entity; the whole question was embedded as one "
                 "query node.")
    return fallback_query_graph(question)


def narrative_neighbour(index: Index, graph: np.ndarray) -> np.ndarray:
    """Per sentence, the graph evidence of the stronger adjacent sentence of the same document."""
    docs = index.sentence_documents
    same = docs[1:] == docs[:-1] if len(docs) > 1 else np.zeros(0, dtype=bool)
    before = np.r_[0.0, np.where(same, graph[:-1], 0.0)]
    after = np.r_[np.where(same, graph[1:], 0.0), 0.0]
    return np.maximum(before, after)


def _rank_union(index, union, alignment: Alignment, sims, options, query_keys, query_edges) -> list[SelectedSentence]:
    graph = alignment.graph
    neighbour = narrative_neighbour(index, graph)
    ranked = []
    for sid, entry in union.items():
        row = index.sentence_row(sid)
        sim = float(sims[row])
        if (options.tau is not None and sim < options.tau) or len(entry["nodes"]) < options.min_count:
            continue
        score = graph_score(float(graph[row]), sim, float(neighbour[row]))
        ranked.append(selected_sentence(index, row, selected_by=list(entry["nodes"]),
                                        query_nodes=sorted(entry["queries"]), retrieval_count=len(entry["nodes"]),
                                        similarity=round(sim, 4), score=round(score, 4)))
    if options.budget_words and LENGTH_EXPONENT:
        mean_words = sum(len(s.text.split()) for s in ranked) / max(len(ranked), 1)

        def per_word(s: SelectedSentence) -> float:
            return s.score / (max(len(s.text.split()), 1) / mean_words) ** LENGTH_EXPONENT

        ranked.sort(key=lambda s: (-per_word(s), s.position))
    else:
        ranked.sort(key=lambda s: (-s.score, s.position))
    kept = apply_budget(number_ranks(ranked), options.budget_sentences, options.budget_words)
    for s in kept:
        s.aligned = aligned_nodes(index, alignment, index.sentence_row(s.id), query_keys, query_edges)
    return sorted(kept, key=lambda s: s.position)


#: GroundedKG's rankings of its sentences under a budget (``RetrievalOptions.ranking``; without a budget it returns
#: the paper's plain union): name -> the app's label.
RANKING_LABELS = {
    "fused": "Fused (alignment + BM25 + dense, propagated)",
    "graph-score": "Graph score (hand-weighted)",
}


def retrieve(index: Index, question: str, options: RetrievalOptions, models: Models) -> QueryResult:
    parser = models.parser(index.manifest.options.parser)
    raising = fused_budgeted(options) and applies(len(index.sentences))
    return retrieve_groundedkg(index, question, options, parser, models.embedder, models.use_chroma,
                               models.nlp if raising else None)


METHOD = Method("groundedkg", "GroundedKG (graph nodes)",
                "the question's graph matched against the collection's grounded graph; the matched nodes' sentences",
                retrieve, reads=EVERYTHING)
