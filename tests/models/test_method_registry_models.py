"""Adding a retrieval method takes one function and one registration: the engine, the CLI (``ask`` and ``eval``)
and the evaluation grid offer it from the registry, with nothing else changed.

The toy method here ranks sentences by their place in the collection: the opening sentences, budgeted like every
method by the shared steps of :mod:`kgcore.query.sentence_ranking`.
"""

from __future__ import annotations

import csv
import json

import pytest

from kgcore.cli import main
from kgcore.core.settings import RetrievalOptions
from kgcore.evaluate.grid import setting_label, settings_grid
from kgcore.query.methods import METHODS, RANKED, Method
from kgcore.query.sentence_ranking import retrieve_ranked
from paths import DEV_QA, PETER_ID


def by_position(index, question, sims, scope):
    return list(range(len(index.sentences))), [0.0] * len(index.sentences)


def opening(index, question, options, models):
    return retrieve_ranked(index, question, options, models.embedder, by_position)


OPENING = Method("opening", "Opening sentences", "the collection's first sentences, whatever the question",
                 opening, reads=RANKED)
QUESTION = "Where did Peter lose his shoes?"


@pytest.fixture
def toy():
    with METHODS.registered(OPENING) as method:
        yield method
    assert "opening" not in METHODS


def test_the_engine_runs_a_registered_method(engine, peter_index, toy):
    result = engine.retrieve(PETER_ID, QUESTION, RetrievalOptions(method="opening"))
    assert result.method == "opening" and len(result.sentences) == 10
    scope = peter_index.sentence_scope((), False)
    assert [s.position for s in result.sentences] == [i for i, kept in enumerate(scope) if kept][:10]
    budgeted = engine.retrieve(PETER_ID, QUESTION, RetrievalOptions(method="opening", budget_words=60))
    assert 0 < budgeted.context_words <= 60


def test_the_cli_asks_with_a_registered_method(engine, peter_store, toy, capsys):
    assert main(["ask", "--store", str(peter_store.root), "--collection", PETER_ID, "--method", "opening",
                 "--answerer", "extractive", "--json", "--quiet", QUESTION]) == 0
    printed = json.loads(capsys.readouterr().out)
    expected = engine.retrieve(PETER_ID, QUESTION, RetrievalOptions(method="opening", budget_words=1000))
    assert printed["method"] == "opening"
    assert [s["id"] for s in printed["sentences"]] == [s.id for s in expected.sentences]


def test_the_evaluation_grid_and_eval_offer_a_registered_method(peter_store, toy, tmp_path, capsys):
    grid = settings_grid(ks=[5], budget_words=[0, 500])
    assert [setting_label(o) for o in grid if o.method == "opening"] == ["opening k=5", "opening budget=500w"]
    out = tmp_path / "eval"
    assert main(["eval", "--store", str(peter_store.root), "--collection", PETER_ID, "--qa", str(DEV_QA),
                 "--methods", "opening,dense", "--answerer", "extractive", "--limit", "2", "--out", str(out),
                 "--quiet"]) == 0
    with (out / "summary.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [r["label"] for r in rows] == ["opening k=10", "dense k=10"]
    assert all(r["questions"] == "2" and r["errors"] == "0" for r in rows)


def test_an_unregistered_method_is_refused_everywhere(engine, peter_store, capsys):
    with pytest.raises(SystemExit):
        main(["ask", "--store", str(peter_store.root), "--collection", PETER_ID, "--method", "opening", QUESTION])
    assert "invalid choice: 'opening'" in capsys.readouterr().err
    with pytest.raises(Exception, match="method: unknown value 'opening'"):
        engine.retrieve(PETER_ID, QUESTION, RetrievalOptions(method="opening"))
