"""The Evaluate page through ``streamlit.testing.v1.AppTest`` on a copy of the real Peter Rabbit index.

AppTest cannot upload files, so runs use the page's "bundled QA set" path;
the upload path's validation is the pure :func:`ui.evaluate_view.read_upload`
(tests/unit/test_evaluate_view.py).
"""

from __future__ import annotations

import pytest
from apptest import charts, store_copy
from streamlit.testing.v1 import AppTest

from kgcore.evaluate import EvalRun
from paths import APP

TIMEOUT = 240
FIRST_QUESTION = "What happened to the young rabbits' father?"


def evaluate_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page("pages/evaluate.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture
def private_store(peter_store, tmp_path):
    """A private copy of the session's Peter Rabbit store (the page writes an audit database into it)."""
    with store_copy(peter_store.root, tmp_path) as root:
        yield root


@pytest.fixture(scope="module")
def finished_run(peter_store, tmp_path_factory):
    """The page after evaluating GroundedKG and no-context on the first two dev questions."""
    with store_copy(peter_store.root, tmp_path_factory.mktemp("eval_store")) as root:
        at = evaluate_page()
        assert at.radio(key="eval.source").value == "Bundled QA set"
        assert at.selectbox(key="eval.bundled").value == "assets/peter_rabbit_dev_qa.csv"
        at.multiselect(key="eval.methods").set_value(["groundedkg", "none"])
        at.number_input(key="eval.limit").set_value(2)
        at.button(key="eval.run").click().run()
        yield at, root


def test_page_renders_on_an_empty_store(tmp_path, monkeypatch):
    monkeypatch.setenv("KGCORE_STORE", str(tmp_path / "empty"))
    at = evaluate_page()
    assert not at.error
    assert any("No documents are indexed yet" in i.value for i in at.info)


def test_run_shows_a_complete_summary_and_charts(finished_run):
    at, _ = finished_run
    assert not at.exception and not at.error, [e.value for e in at.error]
    summary = at.dataframe[0].value  # the summary table comes first (dataframes expose no key)
    assert list(summary["setting"]) == ["groundedkg k=10", "none"]
    assert list(summary["questions"]) == [2, 2]
    for column in ("EM", "SM", "ROUGE-L", "BERTScore", "EvidHit", "AnsRecall", "%Book"):
        assert summary[column].between(0, 100).all(), column
    none = summary.set_index("setting").loc["none"]
    assert none["Words"] == 0 and none["EvidHit"] == 0
    (bars, bar_rows), (heat, cells), (scatter, points) = charts(at)  # Vega-Lite charts (st.altair_chart)
    assert bars["title"] == "Metrics per setting (×100)"
    assert list(dict.fromkeys(bar_rows["setting"])) == ["groundedkg k=10", "none"]
    assert bar_rows["score"].between(0, 100).all()
    assert heat["title"] == "ROUGE-L per question" and len(cells) == 4  # 2 settings x 2 questions
    assert set(cells["question"]) == {FIRST_QUESTION, "What did Peter's mother give him when he got home?"}
    assert scatter["title"] == "Context size vs ROUGE-L"
    assert set(points.loc[points["setting"] == "none", "context words"]) == {0}
    assert isinstance(at.session_state["eval.result"], EvalRun)


def test_failures_are_listed_and_sent_to_the_labelling_queue(finished_run):
    from kgcore.audit import AuditDB

    at, root = finished_run
    failures = next(d.value for d in at.dataframe if "diagnosis hint" in d.value.columns)
    # The no-context answers cannot contain the gold answers: both questions fail there.
    assert (failures["setting"] == "none").sum() == 2
    at.button(key="eval.send").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any(f"Sent {len(failures)} records" in s.value for s in at.success)
    records = AuditDB.for_store(root).list_records()
    assert len(records) == len(failures)
    assert {r.question for r in records if r.method == "none"} == {
        FIRST_QUESTION,
        "What did Peter's mother give him when he got home?",
    }


def test_compare_two_settings_and_diff_one_question(finished_run):
    at, _ = finished_run
    table = next(d.value for d in at.dataframe if "B better" in d.value.columns).set_index("metric")
    assert (at.selectbox(key="eval.diff.a").value, at.selectbox(key="eval.diff.b").value) == ("groundedkg k=10",
                                                                                               "none")
    assert table.loc["SM", "questions"] == 2 and table.loc["SM", "test"] == "McNemar exact"
    # No context never contains the gold answer: B (none) is never better on SM.
    assert table.loc["SM", "B better"] == 0 and table.loc["Evidence hit", "B better"] == 0
    assert table.loc["Context words (fewer is better)", "B better"] == 2
    at.selectbox(key="eval.diff.question").set_value(1).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any(m.value == f"#### Q1: {FIRST_QUESTION}" for m in at.markdown)
    sentences = next(d.value for d in at.dataframe if "rank in A" in d.value.columns)
    assert set(sentences["in"]) == {"A only"}  # no context: every GroundedKG sentence is A's alone
    assert {m.label: m.value for m in at.metric}["Words A / B"].endswith("/ 0")


def test_open_in_ask_prefills_the_question(private_store):
    at = evaluate_page()
    at.multiselect(key="eval.methods").set_value(["none"])
    at.number_input(key="eval.limit").set_value(1)
    at.button(key="eval.run").click().run()
    assert at.selectbox(key="eval.question").value == 1
    at.button(key="eval.open_ask").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.text_input(key="ask.question").value == FIRST_QUESTION


def test_bad_grid_values_are_reported(private_store):
    at = evaluate_page()
    at.text_input(key="eval.budgets").input("0, lots").run()
    assert any("Word budgets: 'lots' is not a valid value" in e.value for e in at.error)
    assert "eval.run" not in [b.key for b in at.button]  # nothing to run until the value is fixed
