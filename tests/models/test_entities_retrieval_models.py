"""The ``entities`` retrieval method with the real spaCy and MiniLM on self-written texts: entities chosen by
description vectors and fuzzy names, their neighbourhood's grounding, budgets, document scope, ``selected_by``,
and the JSON a result becomes (engine and CLI)."""

from __future__ import annotations

import json

import pytest

from kgcore.cli import main
from kgcore.core.settings import RetrievalOptions
from kgcore.index.pipeline import Job, index_files
from kgcore.index.store.disk import Store
from kgcore.index.views.entities import entity_groups
from kgcore.query.engine import QueryEngine, result_to_json
from kgcore.query.methods import METHODS
from kgcore.query.methods.entities import question_keywords
from samples import COUNCIL, LIGHT

ORCHARD = ("Old Tomas Brel grew apples and pears in an orchard above the valley. Tomas Brel pressed the apples into "
           "cider every autumn. A hailstorm destroyed half of the pears in August. Tomas Brel sold the cider at the "
           "market of Port Ness.")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("entities-retrieval"))
    jobs = [Job(n, data=t.encode()) for n, t in (("light.txt", LIGHT), ("council.txt", COUNCIL),
                                                  ("orchard.txt", ORCHARD))]
    index_files(jobs, store, "coast", workers=1)
    return store


@pytest.fixture(scope="module")
def engine(store):
    return QueryEngine(store)


def test_method_is_registered():
    assert "entities" in METHODS


def test_question_keywords_are_entities_noun_chunks_and_names(engine):
    from kgcore.core.nlp import load_spacy

    keywords = question_keywords("What did the Harbour Council decide about the northern pier?",
                                 load_spacy(engine.settings.spacy_model))
    assert "Harbour Council" in keywords and "northern pier" in keywords
    assert not any(k.lower().startswith(("the ", "what")) for k in keywords)


def test_a_misspelt_name_selects_its_entity_and_its_grounding(engine):
    # the method's own matching, on the name as written (the engine would respell "Martha" first: below)
    result = engine.retrieve("coast", "What did Martha Vel do during the storm?",
                             RetrievalOptions(method="entities", budget_words=60, respell=False))
    assert result.method == "entities" and result.matches[0].node_id == "marta vell"
    assert result.matches[0].query_node in ("Martha Vel", "question")
    best = min(result.sentences, key=lambda s: s.rank)
    assert "rescued two fishermen" in best.text and "marta vell" in best.selected_by
    index = engine.index("coast")
    groups = {g.entity_id: g for g in entity_groups(index)}
    for s in result.sentences:  # every sentence is grounded in an entity that selected it
        assert s.selected_by and all(s.id in groups[e].grounded_texts for e in s.selected_by)
        assert s.query_nodes and {a["depth"] for a in s.aligned} <= {0, 1, 2}
        assert [a["node_id"] for a in s.aligned] == s.selected_by and not s.signals
    assert result.context_words <= 60
    respelt = engine.retrieve("coast", "What did Martha Vel do during the storm?",
                              RetrievalOptions(method="entities", budget_words=60))
    assert respelt.respelled == {"Martha": "Marta"} and respelt.matches[0].node_id == "marta vell"
    assert "rescued two fishermen" in min(respelt.sentences, key=lambda s: s.rank).text
    assert respelt.matches[0].query_node == "Marta Vel"  # the question's node, as the book writes the name


@pytest.mark.parametrize("budget", [15, 40, 80])
def test_method_stays_within_the_word_budget_in_rank_order(engine, budget):
    result = engine.retrieve("coast", "Who decided to repair the pier of Port Ness?",
                             RetrievalOptions(method="entities", budget_words=budget))
    assert result.sentences and result.context_words <= budget
    assert [s.position for s in result.sentences] == sorted(s.position for s in result.sentences)
    by_rank = sorted(result.sentences, key=lambda s: s.rank)
    assert [s.score for s in by_rank] == sorted((s.score for s in by_rank), reverse=True)
    if budget >= 40:
        assert "repair the northern pier" in by_rank[0].text


def test_documents_scope_every_sentence_and_entity(engine):
    question = "Where was the cider of Tomas Brel sold?"
    everywhere = engine.retrieve("coast", question, RetrievalOptions(method="entities", budget_words=200))
    assert {s.document for s in everywhere.sentences} >= {"orchard"}
    scoped = engine.retrieve("coast", question, RetrievalOptions(method="entities", budget_words=200,
                                                                 documents=("light", "council")))
    assert scoped.sentences and {s.document for s in scoped.sentences} <= {"light", "council"}
    assert "tomas brel" not in {m.node_id for m in scoped.matches}
    unbudgeted = engine.retrieve("coast", question, RetrievalOptions(method="entities", k=2))
    assert len(unbudgeted.sentences) == 2


def test_result_json_round_trip_and_cli(engine, store, capsys):
    result = engine.retrieve("coast", "Who gave Marta Vell a medal?", RetrievalOptions(method="entities",
                                                                                     budget_words=50))
    data = json.loads(json.dumps(result_to_json(result)))
    assert data["method"] == "entities" and data["sentences"]
    assert [s["id"] for s in data["sentences"]] == result.sentence_ids
    assert [s["selected_by"] for s in data["sentences"]] == [s.selected_by for s in result.sentences]
    assert data["matches"][0]["node_id"] == result.matches[0].node_id
    code = main(["ask", "--store", str(store.root), "--collection", "coast", "--method", "entities",
                 "--budget-words", "50", "--answerer", "extractive", "--json", "--quiet",
                 "Who gave Marta Vell a medal?"])
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["method"] == "entities" and [s["id"] for s in printed["sentences"]] == result.sentence_ids
    assert printed["answer"]


def test_eval_runs_the_entities_method(store, tmp_path, capsys):
    qa = tmp_path / "qa.csv"
    qa.write_text("question,answer1,answer2,evidence\n"
                  "Who rescued two fishermen?,Marta Vell,Marta,rescued two fishermen from a sinking boat\n"
                  "What did Tomas Brel make from the apples?,cider,Cider,pressed the apples into cider\n",
                  encoding="utf-8")
    out = tmp_path / "out"
    code = main(["eval", "--store", str(store.root), "--collection", "coast", "--qa", str(qa), "--methods",
                 "entities", "--budget-words", "60", "--answerer", "extractive", "--out", str(out), "--quiet"])
    assert code == 0, capsys.readouterr().err
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line]
    assert [r["method"] for r in records] == ["entities", "entities"] and all(not r["error"] for r in records)
    assert all(r["evidence_hit"] and r["context_words"] <= 60 for r in records)


def test_typed_relations_reach_their_sentences_and_are_named(tmp_path):
    from kgcore.index.views.entities.relations import entity_relations
    from kgcore.index.views.entities.types import DECLARED_FILE

    paper = ("BioRank is a retrieval model for biomedical questions. BioRank uses the PubMed Central corpus for "
             "training. BioRank outperforms BM25 on the TREC Genomics benchmark. The authors evaluate BioRank on the "
             "BioASQ dataset.")
    store = Store(tmp_path)
    index_files([Job("biorank.txt", data=paper.encode())], store, "papers", workers=1)
    (tmp_path / "papers" / DECLARED_FILE).write_text(json.dumps({"name": "research", "types": [
        "model", "dataset", "method", "metric", "concept"]}), encoding="utf-8")
    engine = QueryEngine(store)
    typed = {(r.source, r.relation_type, r.target): r.grounded_texts for r in entity_relations(engine.index("papers"))}
    assert ("biorank", "tool/resource", "pubmed central corpus") in typed
    result = engine.retrieve("papers", "What does BioRank use for training?",
                             RetrievalOptions(method="entities", budget_words=60))
    uses = next(s for s in result.sentences if "uses the PubMed Central corpus" in s.text)
    assert "tool/resource" in {a["relation"] for a in uses.aligned}
    assert {"biorank", "pubmed central corpus"} <= set(uses.selected_by)
    assert typed[("biorank", "tool/resource", "pubmed central corpus")] == (uses.id,)


def test_the_question_vector_adds_candidates_the_entities_did_not_reach(engine, monkeypatch):
    """Under a budget the sentences closest to the question join the entity-reached ones (DENSE_POOL); one that
    no entity reached says so (no ``selected_by``, ``question`` as its query node); with the pool off there is none."""
    from kgcore.query.methods import entities

    question, options = "Which weather event spoiled the fruit crop?", RetrievalOptions(method="entities",
                                                                                        budget_words=30)
    pooled = engine.retrieve("coast", question, options)
    assert "hailstorm destroyed half of the pears" in min(pooled.sentences, key=lambda s: s.rank).text
    only_question = [s for s in pooled.sentences if not s.selected_by]
    assert only_question and all(s.query_nodes == ["question"] and not s.aligned for s in only_question)
    monkeypatch.setattr(entities, "DENSE_POOL", 0)
    alone = engine.retrieve("coast", question, options)
    assert all(s.selected_by for s in alone.sentences) and alone.candidates < pooled.candidates
