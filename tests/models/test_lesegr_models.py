"""The contextual graph and LeSeGR / fused GroundedKG ranking on real indexes (spaCy, MiniLM): edges, storage with
the index, budgets, explanations, the reduction to score fusion, and citation edges between two real PDFs."""

import numpy as np
import pdfs
import pytest
from scipy.stats import rankdata

from kgcore.core.settings import RetrievalOptions
from kgcore.index.pipeline import Job, index_files
from kgcore.index.store.disk import Store
from kgcore.index.store.recovery import linked_folder
from kgcore.index.views import context_store, contextual
from kgcore.index.views.context_types import BIT
from kgcore.index.views.contextual import context_graph, document_citations
from kgcore.query import expanded_bm25, fused, propagation
from kgcore.query.engine import QueryEngine
from kgcore.query.sentence_ranking import bm25_tokens, sentence_bm25, sentence_tokens
from kgcore.query.sparse_bm25 import SparseBM25
from paths import PETER_ID

FATHER_Q = "What happened to the young rabbits' father?"


def _row(index, words: str) -> int:
    return next(r for r, s in enumerate(index.sentences) if words in s.original)


def _kinds(cg, a, b) -> list[str]:
    return cg.kind_names(int(cg.kinds[a, b]))


def test_peter_rabbit_contextual_graph_links_sentences_chunks_and_shared_nodes(peter_index):
    cg = context_graph(peter_index)
    n = len(peter_index.sentences)
    assert cg.n_sentences == n and cg.weights.shape == (cg.n_nodes, cg.n_nodes)
    assert (cg.weights != cg.weights.T).nnz == 0  # undirected
    assert all("adjacent" in _kinds(cg, r, r + 1) for r in range(n - 1))
    assert all("chunk" in _kinds(cg, r, n + cg.chunk_of[r]) for r in range(n))
    spans = cg.chunk_spans
    assert spans[0, 0] == 0 and spans[-1, 1] == n and np.all(spans[1:, 0] == spans[:-1, 1])
    coo = cg.kinds.tocoo()
    assert ((coo.data & BIT["shared-node"]) > 0).any()
    assert 0 <= cg.affinity.data.min() and cg.affinity.data.max() <= 1.0 + 1e-5


def test_the_graph_is_stored_with_the_index_and_read_back(peter_store, monkeypatch):
    index = peter_store.load(PETER_ID)
    built = context_graph(index)
    file = index.path / linked_folder(index.manifest.generation) / context_store.STORED
    assert file.exists()
    monkeypatch.setattr(contextual, "build", lambda _index: pytest.fail("a stored graph must not be rebuilt"))
    again = context_graph(peter_store.load(PETER_ID))
    assert (again.weights != built.weights).nnz == 0 and np.array_equal(again.chunk_of, built.chunk_of)
    monkeypatch.undo()
    file.write_bytes(b"damaged")
    rebuilt = context_graph(peter_store.load(PETER_ID))
    assert (rebuilt.weights != built.weights).nnz == 0 and context_store.read(file, index.manifest.stamp) is not None


@pytest.mark.parametrize("variant", [{"method": "lesegr"}, {"method": "groundedkg", "ranking": "fused"}])
def test_budgeted_rankings_find_the_pie_and_explain_every_sentence(engine, peter_index, variant):
    result = engine.retrieve(PETER_ID, FATHER_Q, RetrievalOptions(budget_words=150, **variant))
    pie = next(s for s in result.sentences if "put in a pie" in s.text)
    assert result.context_words <= 150 and pie.rank <= 3
    assert [s.position for s in result.sentences] == sorted(s.position for s in result.sentences)
    for s in result.sentences:
        sig = s.signals
        own = propagation.W_SPARSE * sig["lexical"] + sig["dense"] + propagation.W_GRAPH * sig["graph"]
        assert sig["own"] == pytest.approx(own, abs=1e-3)
        assert s.score == pytest.approx(sig["own"] + sig["propagated"], abs=1e-3)
        assert all(n["message"] > 0 and n["kinds"] for n in sig["neighbours"])
    by_rank = sorted(result.sentences, key=lambda s: s.rank)
    assert [s.score for s in by_rank] == sorted((s.score for s in by_rank), reverse=True)
    if variant["method"] == "groundedkg":
        assert pie.signals["graph"] > 0 and pie.selected_by
    else:
        assert all(s.signals["graph"] == 0 for s in result.sentences)


@pytest.mark.parametrize("method", ["groundedkg", "lesegr"])
def test_a_ranked_sentence_reports_its_plain_cosine_as_similarity(engine, peter_index, method):
    """``similarity`` is the question's cosine to the sentence for every method (the answerers and the support
    check read it as one); the fused ranking reported its rescaled dense signal (cosine / best in scope)."""
    question = "What happened to the young rabbits' father?"
    result = engine.retrieve(PETER_ID, question, RetrievalOptions(method=method, budget_words=300))
    vector = engine.embedder.encode([question])[0]
    for s in result.sentences:
        cosine = float(peter_index.sentence_vectors[peter_index.sentence_row(s.id)] @ vector)
        assert s.similarity == pytest.approx(cosine, abs=2e-4)
    assert max(s.similarity for s in result.sentences) < 0.99  # a rescaled signal would reach 1.0


def test_the_fused_ranking_propagates_further_only_under_a_small_word_budget(engine, monkeypatch):
    """At most SMALL_BUDGET_WORDS words the fused ranking's scores are the two-layer ones; one word more, the
    one-layer ones (lesegr keeps one layer at every budget)."""
    def scores(words: int, method: str = "groundedkg") -> dict[str, float]:
        found = engine.retrieve(PETER_ID, FATHER_Q, RetrievalOptions(method=method, budget_words=words)).sentences
        return {s.id: s.score for s in found}

    small, large = fused.SMALL_BUDGET_WORDS, fused.SMALL_BUDGET_WORDS + 1
    default = {words: scores(words) for words in (small, large)}
    lesegr = scores(small, "lesegr")
    monkeypatch.setattr(fused, "SMALL_BUDGET_LAYERS", 1)  # one layer at every budget
    one_layer = {words: scores(words) for words in (small, large)}
    assert default[small] != one_layer[small] and default[large] == one_layer[large]
    monkeypatch.setattr(fused, "SMALL_BUDGET_LAYERS", 2)
    monkeypatch.setattr(propagation, "LAYERS", 2)  # two layers at every budget
    assert scores(small) == default[small] and scores(large) != default[large]
    assert scores(small, "lesegr") != lesegr


def test_graph_score_ranking_stays_selectable_and_unbudgeted_groundedkg_is_the_papers_union(engine):
    old = engine.retrieve(PETER_ID, FATHER_Q, RetrievalOptions(budget_words=150, ranking="graph-score"))
    assert old.sentences and all(s.signals == {} for s in old.sentences)
    union = engine.retrieve(PETER_ID, FATHER_Q, RetrievalOptions(k=10, ranking="fused"))
    assert all(s.signals == {} for s in union.sentences) and union.candidates == len(union.sentences)


def _reciprocal_ranks(values: np.ndarray, scope: np.ndarray, k: int) -> np.ndarray:
    """(k + 1) / (k + r) for the r-th best positive value in scope (ties share the better rank), else 0."""
    ranks = rankdata(-values, method="min")  # 1 for the best
    return np.where(scope & (values > 0), (k + 1) / (k + ranks), 0.0)


@pytest.mark.parametrize("scale", ["rank", "max"])
def test_without_layers_lesegr_is_post_retrieval_score_fusion(engine, peter_index, monkeypatch, scale):
    """LeSeGR's Proposition 4.1 on a real index: no propagation leaves BM25 + cosine, each on the
    reciprocal-rank scale (``rank``, the default) or divided by the best in scope (``max``)."""
    monkeypatch.setattr(propagation, "LAYERS", 0)
    monkeypatch.setattr(propagation, "SCALE", scale)
    result = engine.retrieve(PETER_ID, FATHER_Q, RetrievalOptions(method="lesegr", budget_sentences=8))
    bm25 = propagation.sentence_sparse(peter_index, bm25_tokens(FATHER_Q))
    vector = engine.embedder.encode([FATHER_Q])[0]
    cosine = np.clip(peter_index.sentence_vectors @ vector, 0, None)
    scope = peter_index.sentence_scope((), False)  # headings and front matter stay out by default
    if scale == "max":
        fusion = np.where(scope, bm25 / bm25[scope].max() + cosine / cosine[scope].max(), -1.0)
    else:
        in_scope = [np.where(scope, v, 0.0) for v in (bm25, cosine)]
        fusion = np.where(scope, sum(_reciprocal_ranks(v, scope, propagation.RANK_K) for v in in_scope), -1.0)
    expected = [peter_index.sentences[r].id for r in np.argsort(-fusion, kind="stable")[:8]]
    assert [s.id for s in sorted(result.sentences, key=lambda s: s.rank)] == expected
    assert all(s.signals["propagated"] == 0 for s in result.sentences)


def test_the_sparse_signal_reads_the_words_coreference_adds(peter_index, monkeypatch):
    """A sentence that says "he" of Peter is lexically about Peter for the graph methods, not for the baseline."""
    rows = [r for r, s in enumerate(peter_index.sentences)
            if "peter" not in bm25_tokens(s.normalized) and "peter" in bm25_tokens(s.resolved or "")]
    assert rows
    expanded = propagation.sentence_sparse(peter_index, ["peter"])
    assert (expanded[rows] > 0).all() and (sentence_bm25(peter_index, ["peter"])[rows] == 0).all()
    monkeypatch.setattr(propagation, "EXPANDED", False)
    assert (propagation.sentence_sparse(peter_index, ["peter"])[rows] == 0).all()


def test_models_built_from_shared_tokens_equal_tokenising_each_text(peter_index):
    """The sentence and chunk BM25 models reuse each sentence's tokens: the same documents as tokenising the
    sentence (and the chunk's joined text) itself."""
    tokens = sentence_tokens(peter_index)
    sentences = peter_index.sentences
    assert tokens.written == [bm25_tokens(s.normalized) for s in sentences]
    expected = [expanded_bm25.expanded_tokens(s.normalized, s.resolved or "") for s in sentences]
    assert [own + list(tokens.added[i]) for i, own in enumerate(tokens.written)] == expected
    assert any(tokens.added)  # coreference adds words
    spans = context_graph(peter_index).chunk_spans
    chunk_model = propagation._chunk_bm25(peter_index, context_graph(peter_index))
    joined = [expanded_bm25.expanded_tokens(" ".join(s.normalized for s in sentences[lo:hi]),
                                     " ".join(s.resolved or "" for s in sentences[lo:hi])) or ["_"] for lo, hi in spans]
    reference = SparseBM25(joined)
    assert chunk_model.vocabulary == reference.vocabulary and (chunk_model.matrix != reference.matrix).nnz == 0


def test_lesegr_respects_the_document_scope(tmp_path):
    store = Store(tmp_path)
    texts = {"rabbit.txt": "Peter lost his shoes in the garden. Mr. McGregor found the shoes.",
             "ship.txt": "The sailors lost their shoes on the ship. The captain found the shoes."}
    index_files([Job(name, data=text.encode()) for name, text in texts.items()], store, "shelf", workers=1)
    engine = QueryEngine(store)
    everywhere = engine.retrieve("shelf", "Who found the shoes?", RetrievalOptions(method="lesegr", k=4))
    assert {s.document for s in everywhere.sentences} == {"rabbit", "ship"}
    scoped = engine.retrieve("shelf", "Who found the shoes?",
                             RetrievalOptions(method="lesegr", k=4, documents=("ship",)))
    assert scoped.sentences and {s.document for s in scoped.sentences} == {"ship"}


@pytest.mark.parametrize("variant", [{"method": "lesegr"}, {"method": "groundedkg", "ranking": "fused"}])
def test_a_repeated_sentence_is_ranked_once(tmp_path, monkeypatch, variant):
    store = Store(tmp_path)
    text = ("Conflicts of interest. A Recognised Body must manage conflicts of interest between its members.\n\n"
            "Conflicts of interest. The Governing Body reviews every conflict of interest each year.\n\n"
            "Conflicts of interest. An Employee with a conflict of interest must tell the compliance officer.")
    index_files([Job("rules.txt", data=text.encode())], store, "rules", workers=1)
    engine = QueryEngine(store)
    options = RetrievalOptions(budget_words=200, **variant)

    def headings() -> int:
        found = engine.retrieve("rules", "How are conflicts of interest managed?", options).sentences
        return sum(s.text.strip() == "Conflicts of interest." for s in found)

    assert headings() == 1
    monkeypatch.setattr(fused, "DEDUPE_TEXTS", False)
    assert headings() == 3  # each repeat takes a place of its own without the rule


def test_a_paper_citing_another_paper_of_the_collection_gets_citation_edges(tmp_path):
    store = Store(tmp_path)
    dpr = pdfs.short_paper("Dense Passage Retrieval for Open-Domain Question Answering",
                           ["We train a dual encoder on question and passage pairs and",
                            "retrieve passages by inner product search over an index."])
    jobs = [Job("citing.pdf", data=pdfs.author_year_paper()), Job("dpr.pdf", data=dpr)]
    index_files(jobs, store, "papers", workers=1)
    index = store.load("papers")
    cg = context_graph(index)
    (citation,) = document_citations(index, cg)
    assert (citation.citing, citation.cited) == ("citing", "dpr")
    texts = [index.sentences[r].original for r in citation.rows]
    assert any("Karpukhin" in t for t in texts)
    first_chunk = cg.n_sentences + cg.chunk_of[next(r for r, s in enumerate(index.sentences) if s.doc_id == "dpr")]
    assert all("citation" in _kinds(cg, r, first_chunk) for r in citation.rows)
    names = [fused.node_name(index, cg, nb.node) for nb in contextual.neighbours(cg, citation.rows[0])]
    assert any(name.startswith("chunk:dpr/") for name in names)


def test_a_large_budget_is_filled_past_the_graph_head_by_text_relevance(engine, peter_index, monkeypatch):
    monkeypatch.setattr(fused, "GRAPH_HEAD_WORDS", 200)  # the whole tale is shorter than the real head
    options = RetrievalOptions(budget_words=600, method="groundedkg", ranking="fused")
    result = engine.retrieve(PETER_ID, FATHER_Q, options)
    by_rank = sorted(result.sentences, key=lambda s: s.rank)
    stages = [s.signals["stage"] for s in by_rank]
    head = stages.count("graph")
    assert 0 < head < len(stages) and stages == ["graph"] * head + ["text"] * (len(stages) - head)
    assert sum(len(s.text.split()) for s in by_rank[:head]) <= fused.GRAPH_HEAD_WORDS
    for s in by_rank[head:]:  # ranked without the graph signal: it is reported but not counted
        sig = s.signals
        assert sig["own"] == pytest.approx(propagation.W_SPARSE * sig["lexical"] + sig["dense"], abs=1e-3)
        assert s.score == pytest.approx(sig["own"] + sig["propagated"], abs=1e-3)
    assert [s.score for s in by_rank[head:]] == sorted((s.score for s in by_rank[head:]), reverse=True)
    # the head is the fused ranking's own start: the same sentences as a budget of exactly the head's size, ranked
    # over as many layers as the large budget (a small budget's own ranking propagates further)
    monkeypatch.setattr(fused, "SMALL_BUDGET_LAYERS", propagation.LAYERS)
    small = engine.retrieve(PETER_ID, FATHER_Q, RetrievalOptions(budget_words=fused.GRAPH_HEAD_WORDS,
                                                                   method="groundedkg", ranking="fused"))
    assert {s.id for s in by_rank[:head]} == {s.id for s in small.sentences}
    assert all("stage" not in s.signals for s in small.sentences)


def test_graph_evidence_counts_as_far_as_the_sentence_means_what_the_question_asks(engine, peter_index, monkeypatch):
    """The fused ranking's graph signal is the alignment evidence (divided by the best) times the node's dense
    relevance: sentences that hold the question's words or structure equally are told apart by meaning, and the
    reported signals still add up to the score.  Without the gate it is the evidence alone."""
    from kgcore.query.methods.groundedkg import match_question

    parser = engine.parser(peter_index.manifest.options.parser)
    gm = match_question(peter_index, FATHER_Q, RetrievalOptions(), parser, engine.embedder)
    cg = context_graph(peter_index)
    n, starts = cg.n_sentences, cg.chunk_spans[:, 0]
    scope = gm.scope if gm.scope is not None else np.ones(n, dtype=bool)
    evidence = propagation.normalised(gm.alignment.graph, scope)
    gated = propagation.signals(peter_index, cg, FATHER_Q, gm.vector, gm.sims, gm.scope, graph=gm.alignment.graph)
    assert np.allclose(gated.graph[:n], evidence * gated.dense[:n])
    assert np.allclose(gated.graph[n:], np.maximum.reduceat(evidence, starts) * gated.dense[n:])
    values, counts = np.unique(evidence[evidence > 0], return_counts=True)
    tied = np.flatnonzero(evidence == values[counts > 1][-1])  # sentences with the same evidence (Peter has some)
    assert len(set(np.round(gated.graph[tied], 6))) > 1  # told apart by meaning once gated
    monkeypatch.setattr(propagation, "GRAPH_GATE", None)
    added = propagation.signals(peter_index, cg, FATHER_Q, gm.vector, gm.sims, gm.scope, graph=gm.alignment.graph)
    assert np.allclose(added.graph[:n], evidence) and np.allclose(added.dense, gated.dense)
    assert (gated.graph <= added.graph + 1e-12).all() and gated.graph.sum() < added.graph.sum()
