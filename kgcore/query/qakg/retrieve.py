"""The ``qa-kg`` retrieval method (the graph of generated QA pairs): question -> generated QA pairs -> their grounding
sentences.

Candidates are the union of (a) the :data:`SEMANTIC_CANDIDATES` pairs whose generated question or answer is
closest to the question, (b) pairs about entities of a type a question noun names (type-level match) and
(c) pairs about entities the question names, found by fuzzy matching (:mod:`kgcore.query.qakg.question`);
(b) and (c) keep their :data:`ENTITY_CANDIDATES` most similar pairs.  The reranker
(:mod:`kgcore.query.rerank`) orders them; the context is the pairs' grounding sentences in that order,
followed by the remaining sentences in dense order so a word budget is filled like every other method's,
and capped by the same budget rule.
"""

from __future__ import annotations

import numpy as np

from kgcore.core.embed import Embedder
from kgcore.core.settings import RetrievalOptions
from kgcore.core.timing import Timer
from kgcore.core.types import QueryResult, SelectedSentence
from kgcore.index.store.in_memory import Index
from kgcore.query.context import apply_budget, number_ranks, selected_sentence
from kgcore.query.qakg.graph import QAGraph, qa_graph
from kgcore.query.qakg.question import analyse, graph_names, plain
from kgcore.query.qakg.score import Evidence, candidates, question_evidence
from kgcore.query.rerank import Candidate, Reranker

SEMANTIC_CANDIDATES = 300
ENTITY_CANDIDATES = 200
#: Ranked pairs kept in the result (shown on the Ask page, read by the answerer).
KEPT_PAIRS = 25


def retrieve_qakg(index: Index, question: str, options: RetrievalOptions, embedder: Embedder, nlp,
                  reranker: Reranker) -> QueryResult:
    """Run ``qa-kg`` on ``index`` (within the options' documents, front matter left out)."""
    timer = Timer()
    with timer.step("load"):
        graph = qa_graph(index, embedder)
    with timer.step("parse"):
        info = analyse(question, nlp, embedder)
    with timer.step("match"):
        scope = index.sentence_scope(options.documents, options.front_matter)
        allowed = np.ones(len(graph.pairs), bool) if scope is None else scope[graph.rows]
        q_sims, a_sims = graph.q_vectors @ info.vector, graph.a_vectors @ info.vector
        evidence = question_evidence(graph_names(index, graph), graph, info, embedder)
        pool = _pool(graph, evidence, np.maximum(q_sims, a_sims), allowed)
        found = candidates(graph.pairs, pool, q_sims, a_sims, info, evidence)
    with timer.step("rerank"):
        ranked = reranker.rerank(question, found)
    with timer.step("select"):
        sentences = _sentences(index, graph, ranked, info.vector, scope)
        if not options.budget_sentences and not options.budget_words:
            sentences = sentences[: options.k]
        kept = sorted(apply_budget(sentences, options.budget_sentences, options.budget_words), key=lambda s: s.position)
    timer.ms["retrieval"] = timer.total(*timer.ms)
    result = QueryResult(question, "qa-kg", index.collection, None, [], kept, options.to_dict(), timer.ms,
                         _notes(graph, evidence), len(found), [c.to_dict() for c in ranked[:KEPT_PAIRS]])
    return result


def _pool(graph: QAGraph, evidence: Evidence, sims: np.ndarray, allowed: np.ndarray) -> list[int]:
    """Candidate pair indices: the semantic top, then the best pairs of fuzzy-matched and type-matched entities."""
    masked = np.where(allowed, sims, -np.inf)
    top = np.argsort(-masked, kind="stable")[:SEMANTIC_CANDIDATES]
    pool = [int(i) for i in top if allowed[i]]
    keys = list(evidence.fuzzy) + [k for k, types in graph.entity_types.items() if types & set(evidence.types)]
    for key in dict.fromkeys(keys):
        ids = np.array([i for i in graph.entity_pairs.get(key, ()) if allowed[i]], dtype=np.int64)
        if len(ids):
            pool += ids[np.argsort(-sims[ids], kind="stable")[:ENTITY_CANDIDATES]].tolist()
    return list(dict.fromkeys(pool))


def _sentences(index: Index, graph: QAGraph, ranked: list[Candidate], qv: np.ndarray,
               scope: np.ndarray | None) -> list[SelectedSentence]:
    """Grounding sentences of the ranked pairs, best first, then the rest of the scope in dense order."""
    sims = index.sentence_vectors @ qv
    out: dict[int, SelectedSentence] = {}
    for c in ranked:
        row = int(graph.rows[c.index])
        if row not in out:
            out[row] = selected_sentence(index, row, similarity=round(float(sims[row]), 4), score=round(c.score, 4),
                                         selected_by=[c.pair.id])
        else:
            out[row].selected_by.append(c.pair.id)
    floor = min((s.score for s in out.values()), default=0.0)
    for row in np.argsort(-sims, kind="stable").tolist():
        if row not in out and (scope is None or scope[row]):
            out[row] = selected_sentence(index, row, similarity=round(float(sims[row]), 4),
                                         score=round(floor - 1.0 + float(sims[row]), 4))
    return number_ranks(list(out.values()))


def _notes(graph: QAGraph, evidence: Evidence) -> list[str]:
    notes = list(graph.notes)
    rescued = [f"{m['mention']!r} -> {m['label']} ({m['distance']} edits)" for m in evidence.fuzzy.values()
               if m["matched"] != plain(m["mention"])]
    if rescued:
        notes.append("Fuzzy entity match: " + "; ".join(rescued[:5]))
    if evidence.types:
        notes.append("Type-level match: " + ", ".join(f"{t} ({c:.2f})" for t, c in evidence.types.items()))
    return notes
