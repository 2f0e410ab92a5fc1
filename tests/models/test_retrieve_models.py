"""Question answering on a real Peter Rabbit index: GroundedKG, baselines, filters, budgets, CLI."""

import json

import pytest

from kgcore.cli import main
from kgcore.core.errors import IndexMismatchError, IndexNotFoundError, InputError
from kgcore.core.settings import RetrievalOptions
from kgcore.query.answer.base import shared_cache
from kgcore.query.engine import QueryEngine, result_to_json
from kgcore.query.methods import METHODS
from paths import PETER_ID

FATHER_Q = "What happened to the young rabbits' father?"


def _pie_id(index):
    return next(s.id for s in index.sentences if "put in a pie" in s.original)


def test_father_question_selects_the_pie_sentence(engine, peter_index):
    result = engine.retrieve(PETER_ID, FATHER_Q, RetrievalOptions(budget_words=200))
    assert _pie_id(peter_index) in result.sentence_ids
    assert result.context_words <= 200
    pie = next(s for s in result.sentences if s.id == _pie_id(peter_index))
    assert f"{PETER_ID}/father" in pie.selected_by and pie.retrieval_count >= 1 and pie.score > 0
    assert (pie.document, pie.source_file, pie.rank) == (PETER_ID, "peter_rabbit.txt", pie.rank) and pie.rank >= 1
    # the query graph holds the question's structure, with the wh-word as an unmatched node
    labels = {n.label for n in result.query_graph.nodes}
    assert {"happen", "father"} <= labels
    assert not any(m.query_node.startswith("unknown") for m in result.matches)
    assert set(result.timings_ms) >= {"parse", "embed", "match", "select", "retrieval"}


def test_budgeted_context_ranks_the_pie_sentence_first_among_father_sentences(engine, peter_index):
    result = engine.retrieve(PETER_ID, FATHER_Q, RetrievalOptions(budget_sentences=3))
    assert len(result.sentences) == 3 and _pie_id(peter_index) in result.sentence_ids


def test_unbudgeted_union_is_the_papers_union(engine, peter_index):
    result = engine.retrieve(PETER_ID, FATHER_Q, RetrievalOptions(k=10))
    expected = set()
    for m in result.matches:
        expected |= set(peter_index.graph.nodes[m.node_id].grounded_texts)
    assert set(result.sentence_ids) == expected and result.candidates == len(expected)
    positions = [s.position for s in result.sentences]
    assert positions == sorted(positions)
    per_query = {m.query_node for m in result.matches}
    assert all(len([m for m in result.matches if m.query_node == q]) == 10 for q in per_query)


def test_filters_reduce_the_context_monotonically(engine):
    sizes = [len(engine.retrieve(PETER_ID, FATHER_Q, RetrievalOptions(tau=t)).sentences) for t in (None, 0.1, 0.3, 0.5)]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > sizes[-1]
    counts = [len(engine.retrieve(PETER_ID, FATHER_Q, RetrievalOptions(min_count=n)).sentences) for n in (1, 2, 3)]
    assert counts == sorted(counts, reverse=True) and counts[0] > counts[-1]
    for s in engine.retrieve(PETER_ID, FATHER_Q, RetrievalOptions(tau=0.3, min_count=2)).sentences:
        assert s.similarity >= 0.3 and s.retrieval_count >= 2


@pytest.mark.parametrize("method", METHODS)
def test_every_method_honours_budgets(engine, method):
    for words in (50, 200):
        result = engine.retrieve(
            PETER_ID, "Where did Peter lose his shoes?", RetrievalOptions(method=method, budget_words=words)
        )
        assert result.context_words <= words and result.method == method
    result = engine.retrieve(
        PETER_ID, "Where did Peter lose his shoes?", RetrievalOptions(method=method, budget_sentences=4)
    )
    assert len(result.sentences) <= 4


def test_baselines_find_their_evidence(engine, peter_index):
    q = "Where did Peter lose his shoes?"
    for method in ("dense", "bm25", "hybrid"):
        result = engine.retrieve(PETER_ID, q, RetrievalOptions(method=method, k=3))
        assert len(result.sentences) == 3
        assert any("one shoe among the cabbages" in s.text for s in result.sentences), method
    full = engine.retrieve(PETER_ID, q, RetrievalOptions(method="full"))
    assert len(full.sentences) == len([s for s in peter_index.sentences if s.role == "body"])
    everything = engine.retrieve(PETER_ID, q, RetrievalOptions(method="full", front_matter=True))
    assert len(everything.sentences) == len(peter_index.sentences)
    assert engine.retrieve(PETER_ID, q, RetrievalOptions(method="none")).sentences == []


def test_chroma_and_numpy_matching_agree(engine):
    a = engine.retrieve(PETER_ID, FATHER_Q, RetrievalOptions(), use_chroma=False)
    b = engine.retrieve(PETER_ID, FATHER_Q, RetrievalOptions(method="groundedkg"), use_chroma=True)
    top_a = {m.query_node: m.node_id for m in a.matches if m.rank == 0}
    top_b = {m.query_node: m.node_id for m in b.matches if m.rank == 0}
    assert top_a == top_b


def test_question_without_predicate_or_entity_falls_back(engine):
    result = engine.retrieve(PETER_ID, "Why?", RetrievalOptions(budget_words=100))
    assert result.notes and "whole question" in result.notes[0]
    assert [n.label for n in result.query_graph.nodes] == ["Why?"]


def test_bad_questions_and_documents(engine, peter_store):
    with pytest.raises(InputError, match="question"):
        engine.retrieve(PETER_ID, "   ")
    with pytest.raises(IndexNotFoundError, match="no-such-book"):
        engine.retrieve("no-such-book", "Who?")
    with pytest.raises(InputError, match="method: unknown value 'magic' \\(choose one of groundedkg, lesegr, "):
        engine.retrieve(PETER_ID, "Who?", RetrievalOptions(method="magic"))


def test_index_built_with_another_embedding_model_is_refused(peter_store, tmp_path):
    import shutil

    from kgcore.index.store.disk import Store

    shutil.copytree(peter_store.root / PETER_ID, tmp_path / PETER_ID)
    manifest = json.loads((tmp_path / PETER_ID / "collection.json").read_text())
    manifest["models"]["embedding"], manifest["models"]["embedding_dim"] = "bge-large", 1024
    (tmp_path / PETER_ID / "collection.json").write_text(json.dumps(manifest))
    with pytest.raises(IndexMismatchError, match="bge-large"):
        QueryEngine(Store(tmp_path)).retrieve(PETER_ID, FATHER_Q)


def test_answer_has_citations_into_the_context(engine):
    result, answer = engine.ask(
        PETER_ID, "Where did Peter lose his shoes?", RetrievalOptions(budget_words=300), "extractive"
    )
    assert "cabbages" in answer.text and answer.generator == "extractive"
    cited = {i for c in answer.citations for i in c.sentence_ids}
    assert cited and cited <= set(result.sentence_ids)
    data = result_to_json(result, answer)
    assert data["timings_ms"]["answer"] > 0 and data["citations"]


def test_cli_ask_starts_from_the_apps_word_budget(peter_store, capsys, monkeypatch):
    """``ask`` without ``--budget-words`` ranks within the settings' budget (1,000 words, as the app) instead of
    returning the paper's unranked union, whose graph-score order quoted "Peter gave himself up for lost"."""
    question = "What happened to Peter's father?"
    args = ["ask", "--store", str(peter_store.root), "--doc", PETER_ID, "--json", question]
    assert main(args) == 0
    default = json.loads(capsys.readouterr().out)
    assert default["settings"]["budget_words"] == 1000 and default["settings"]["ranking"] == "fused"
    assert "pie" in default["answer"], default["answer"]
    assert main([*args, "--budget-words", "0"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["budget_words"] == 0
    assert main([*args, "--budget-sentences", "4"]) == 0  # a sentence budget alone is not capped by words
    only_sentences = json.loads(capsys.readouterr().out)
    assert only_sentences["settings"]["budget_words"] == 0 and len(only_sentences["sentences"]) == 4
    monkeypatch.setenv("KGCORE_BUDGET_WORDS", "60")
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["context_words"] <= 60
    monkeypatch.setenv("KGCORE_BUDGET_WORDS", "lots")
    assert main(args) == 2
    assert "KGCORE_BUDGET_WORDS" in capsys.readouterr().err


def test_prepare_builds_what_the_first_question_would(peter_store):
    """After ``prepare`` a question with the same options builds nothing: the index and its retrieval structures
    are in place (the app prepares a collection while the analyst types)."""
    engine = QueryEngine(peter_store)
    options = RetrievalOptions(budget_words=1000)
    seconds = engine.prepare(PETER_ID, options)
    assert set(seconds) == {"load", "retrieve", "answer", "parses"}
    index = engine.index(PETER_ID)
    cache = shared_cache(engine.generator().nlp)  # the answerer's parses of every sentence it may quote
    assert all(s.original in cache and (s.resolved or s.original) in cache for s in index.sentences)
    built, attributes = set(index.cache.keys()), set(vars(index))
    assert any(key.name == "context-graph" for key in built), built
    result, answer = engine.ask(PETER_ID, "Where did Peter lose his shoes?", options)
    assert "cabbages" in answer.text
    assert set(index.cache.keys()) == built and set(vars(index)) == attributes
    assert engine.index(PETER_ID) is index  # not loaded again
    cold = QueryEngine(peter_store)
    cold.ask(PETER_ID, "Where did Peter lose his shoes?", options)
    assert set(cold.index(PETER_ID).cache.keys()) - built == set()  # the probe built at least what a question does
    assert len(set(cold.index(PETER_ID).cache.keys())) > 3


def test_cli_batch_jsonl(peter_store, tmp_path, capsys):
    questions = tmp_path / "q.csv"
    questions.write_text(
        "question,answer1\nWhere did Peter lose his shoes?,x\nWhat did Mrs. Rabbit buy at the baker's?,y\n"
    )
    code = main(["ask", "--store", str(peter_store.root), "--doc", PETER_ID, "--questions", str(questions),
                 "--budget-words", "300", "--quiet"])
    assert code == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.strip().splitlines()]
    assert [r["question"] for r in rows] == [
        "Where did Peter lose his shoes?",
        "What did Mrs. Rabbit buy at the baker's?",
    ]
    for r in rows:
        assert set(r) >= {
            "question",
            "method",
            "query_graph",
            "matches",
            "sentences",
            "answer",
            "citations",
            "timings_ms",
        }
        assert set(r["timings_ms"]) >= {"parse", "embed", "match", "select", "retrieval", "answer"}
        assert r["sentences"] and all({"id", "text"} <= set(s) for s in r["sentences"])
        assert all({"query_node", "node_id", "label", "score"} <= set(m) for m in r["matches"])
    plain = tmp_path / "q.txt"
    plain.write_text("Where did Peter lose his shoes?\n\n")
    assert main(["ask", "--store", str(peter_store.root), "--doc", PETER_ID, "--questions", str(plain), "--quiet"]) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 1
    assert main(["ask", "--store", str(peter_store.root), "--doc", "nope", "Who?"]) == 2
    assert (
        main(["ask", "--store", str(peter_store.root), "--doc", PETER_ID, "--questions", str(tmp_path / "none.csv")])
        == 2
    )


def test_the_old_doc_id_names_still_work_with_a_warning(engine, peter_index):
    from kgcore.core.deprecation import KgcoreDeprecationWarning

    with pytest.warns(KgcoreDeprecationWarning, match="the argument 'doc_id' is deprecated"):
        result = engine.retrieve(doc_id=PETER_ID, question="Who is Peter?")
    assert result.collection == PETER_ID == peter_index.collection
    with pytest.warns(KgcoreDeprecationWarning, match="Index.doc_id is deprecated"):
        assert peter_index.doc_id == PETER_ID


def test_cli_ask_diagnoses_with_and_without_a_gold_answer(peter_store, tmp_path, capsys):
    """``ask --gold`` says the failing stage against the gold answer, finding its evidence in the collection;
    ``--diagnose`` suggests one from the verdict alone; a file of questions or an empty gold answer is refused."""
    base = ["ask", "--store", str(peter_store.root), "--doc", PETER_ID, "--budget-words", "60"]
    question = "What happened to Peter's father?"
    assert main([*base, "--json", "--gold", "put in a pie by Mrs. McGregor", question]) == 0
    assert json.loads(capsys.readouterr().out)["diagnosis"]["stage"] == "correct"
    assert main([*base, "--json", "--gold", "went down the lane to gather blackberries", question]) == 0
    wrong = json.loads(capsys.readouterr().out)
    assert wrong["diagnosis"]["evidence_sentence_ids"]  # where the gold answer is said, found in the book
    in_context = bool(set(wrong["diagnosis"]["evidence_sentence_ids"]) & {s["id"] for s in wrong["sentences"]})
    assert wrong["diagnosis"]["stage"] in (("III",) if in_context else ("I", "II"))
    assert main([*base, "--json", "--gold", "a purple zeppelin over Tokyo", question]) == 0
    assert json.loads(capsys.readouterr().out)["diagnosis"]["stage"] == "gold-not-in-document"
    assert main([*base, "--diagnose", question]) == 0
    human = capsys.readouterr().out
    assert "\nDiagnosis: " in human and "No gold answer" in human
    assert main([*base, "--json", question]) == 0
    assert "diagnosis" not in json.loads(capsys.readouterr().out)
    questions = tmp_path / "q.txt"
    questions.write_text(question + "\n")
    assert main([*base, "--questions", str(questions), "--gold", "pie"]) == 2
    assert "--gold: diagnoses one question" in capsys.readouterr().err
    assert main([*base, "--gold", " ", question]) == 2
    assert "--gold: is empty" in capsys.readouterr().err
