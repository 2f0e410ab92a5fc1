"""The Review page through ``streamlit.testing.v1.AppTest``, on a copy of the real Peter Rabbit index."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from apptest import charts, open_tab
from streamlit.testing.v1 import AppTest

from kgcore.audit import AuditDB
from kgcore.core.settings import RetrievalOptions
from paths import APP, PETER_ID

PIE_QUESTION = "What happened to the young rabbits' father?"
TIMEOUT = 120


def review(**session) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in session.items():
        at.session_state[key] = value
    at.run()
    at.switch_page("pages/review.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def metric(at: AppTest, label: str) -> str:
    (value,) = [m.value for m in at.metric if m.label == label]
    return value


@pytest.fixture
def store_root(tmp_path, monkeypatch, peter_store):
    """A store holding a copy of the session's Peter Rabbit index, and nothing else."""
    root = tmp_path / "store"
    shutil.copytree(Path(peter_store.root) / PETER_ID, root / PETER_ID)
    monkeypatch.setenv("KGCORE_STORE", str(root))
    return root


@pytest.fixture
def labelled(store_root, engine):
    """Two records, each labelled by Ada and Bob (they agree on one, disagree on the other)."""
    db = AuditDB.for_store(store_root)
    manifest = engine.index(PETER_ID).manifest
    first = db.save_record(*engine.ask(PETER_ID, PIE_QUESTION), manifest, gold="put in a pie by Mrs. McGregor")
    second = db.save_record(*engine.ask(PETER_ID, PIE_QUESTION, RetrievalOptions(method="bm25")), manifest)
    db.add_label(first, "II", author="Ada")
    db.add_label(first, "II", author="Bob")
    db.add_label(second, "correct", author="Ada")
    db.add_label(second, "III", "answer_sentence", "0", "quoted the wrong sentence", "Bob")
    db.add_reviewer("Cy")
    return db, first, second


def test_empty_database(tmp_path, monkeypatch):
    monkeypatch.setenv("KGCORE_STORE", str(tmp_path / "empty"))
    at = review()
    assert any("No audit records yet" in i.value for i in at.info)
    assert not at.metric and not at.error
    assert (tmp_path / "empty" / "audit.sqlite").is_file()  # the page created the database under the store root


def test_records_labels_charts_and_agreement(labelled):
    db, first, second = labelled
    at = review()
    assert not at.error, [e.value for e in at.error]
    records, labels = at.dataframe[0].value, at.dataframe[1].value
    assert sorted(records["id"]) == sorted([first, second])
    assert sorted(records["method"]) == ["bm25", "groundedkg"]
    assert len(labels) == 4 and set(labels["author"]) == {"Ada", "Bob"}
    assert not at.get("vega_lite_chart") and not at.metric  # only the open tab (Records) runs
    label_charts = charts(open_tab(at, "Charts"))
    assert [spec["title"] for spec, _ in label_charts] == ["Labels by error type", "By method", "By collection",
                                                           "Over time (per day)"]
    assert label_charts[0][1].values.tolist() == [["II", "human", 2], ["III", "human", 1], ["correct", "human", 1]]
    by_method = label_charts[1][1]
    assert by_method[["method", "type", "labels"]].values.tolist() == [["bm25", "III", 1], ["bm25", "correct", 1],
                                                                      ["groundedkg", "II", 2]]
    [(stages, shares)] = charts(open_tab(at, "Error analysis"))
    assert stages["title"] == "Error stage by method"
    # Ada and Bob differ on the bm25 record (correct / III): its stage is the earliest failing one.
    assert sorted(shares.loc[shares["count"] > 0, ["method", "stage", "share"]].values.tolist()) == [
        ["bm25", "III", 1.0], ["groundedkg", "II", 1.0]]
    open_tab(at, "Agreement")
    # Ada/Bob agree on record 1 (II/II) and not on record 2 (correct/III):
    # kappa: po = 1/2, pe = 1/2·1/2 (II) = 1/4, kappa = (1/2 - 1/4) / (3/4) = 1/3;
    # alpha: o(II,II) = 2, o(correct,III) = o(III,correct) = 1, n = 4: D_o = 1/2, D_e = 10/12, alpha = 0.4.
    assert metric(at, "Krippendorff's alpha (verdict)") == "0.40"
    assert metric(at, "Records rated by two or more") == "2" and metric(at, "Reviewers") == "2"
    pairs = next(d.value for d in at.dataframe if "Cohen's kappa" in d.value.columns)
    assert pairs["Cohen's kappa"].tolist() == [pytest.approx(1 / 3)] and pairs["records both rated"].tolist() == [2]
    # Filtering by label type narrows the table to the matching record.
    at.multiselect(key="review.f.type").set_value(["correct"]).run()
    assert list(open_tab(at, "Records").dataframe[0].value["id"]) == [second]


def test_error_analysis_drills_down_to_the_records(labelled):
    db, first, second = labelled
    at = open_tab(review(), "Error analysis")
    table = next(d.value for d in at.dataframe if "gold-not-in-document" in d.value.columns)
    # record 1: II (both); record 2: Ada correct, Bob III -> earliest failing stage III, disputed
    assert {r["method"]: (r["II"], r["III"], r["records"]) for r in table.to_dict("records")} == {
        "groundedkg": (1, 0, 1), "bm25": (0, 1, 1)}
    at.selectbox(key="review.err.by").set_value("index").run()
    table = next(d.value for d in at.dataframe if "gold-not-in-document" in d.value.columns)
    assert len(table) == 1 and table["records"].tolist() == [2]
    at.selectbox(key="review.err.stage").set_value("III").run()
    cell = next(d.value for d in at.dataframe if "disputed" in d.value.columns)
    assert cell["record"].tolist() == [second] and cell["disputed"].tolist() == [True]
    assert not at.exception and not at.error
    assert any(PIE_QUESTION in m.value for m in at.markdown)  # the drilled-down record is shown


def test_label_from_the_review_page(labelled):
    db, first, second = labelled
    at = review(**{"identity.reviewer": "Cy"})
    at.selectbox(key="review.record").set_value(first).run()
    at.button(key=f"label.correct.{first}.correct").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert [(lb.label_type, lb.author) for lb in db.labels_for(first)][-1] == ("correct", "Cy")
    assert any("Saved" in s.value for s in at.success)
    assert len(at.dataframe[1].value) == 5  # the labels table already shows the new label


def test_rerun_and_reopen_in_ask(labelled):
    db, first, _ = labelled
    at = review()
    at.selectbox(key="review.record").set_value(first).run()
    at.button(key="review.rerun.go").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert metric(at, "Jaccard") == "1.00"  # same index, same settings: the same context
    at.button(key="review.open").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert [t.value for t in at.title] == ["Ask"]
    assert any(m.value == f"#### {PIE_QUESTION}" for m in at.markdown)  # the Ask page shows the stored run
    assert any("Grounded sentences" in h.value for h in at.subheader)
    assert at.session_state["audit.open_record"] == first
    reopened, record_id = at.session_state["audit.reopened"]
    assert record_id == first
    assert reopened.sentence_ids == [s["id"] for s in db.get_record(first).payload["sentences"]]
