"""Review as a team through ``streamlit.testing.v1.AppTest``: the "reviewing as" choice on every page and
across reloads, review queues, adjudication, agreement and merging spellings (records from ``auditkit``, a real
SQLite audit database in a temporary store, or a PostgreSQL one named by ``KGCORE_AUDIT_DB_URL``; no models)."""

from __future__ import annotations

import pytest
from apptest import errors, open_tab, table
from auditkit import add_records
from streamlit.testing.v1 import AppTest

from kgcore.audit import AuditDB
from kgcore.audit.adjudication import adjudications_for
from kgcore.audit.queues import assignments, create_queue, get_queue, progress, submit
from paths import APP

TIMEOUT = 120


@pytest.fixture
def db(tmp_path, monkeypatch, audit_location):
    monkeypatch.setenv("KGCORE_STORE", str(tmp_path / "store"))
    if "://" in audit_location:  # PostgreSQL: the app finds it through the setting
        monkeypatch.setenv("KGCORE_AUDIT_DB_URL", audit_location)
    db = AuditDB.for_store(tmp_path / "store")
    assert db.dialect == ("postgresql" if "://" in audit_location else "sqlite")
    for name in ("Ada", "Bob"):
        db.add_reviewer(name)
    return db


def page(name: str, reviewer: str | None = None, address: str | None = None) -> AppTest:
    """A new session on page ``name``: ``reviewer`` already chosen, or ``address`` as ``?reviewer=`` (a reload)."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    if address:
        at.query_params["reviewer"] = address
    if reviewer:
        at.session_state["identity.reviewer"] = reviewer
    at.run()
    if name != "library":
        at.switch_page(f"pages/{name}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("name, message", [
    ("queues", "No audit records yet"), ("adjudicate", "No record where reviewers disagree")])
def test_pages_render_on_an_empty_audit_database(tmp_path, monkeypatch, name, message):
    monkeypatch.setenv("KGCORE_STORE", str(tmp_path / "empty"))
    at = page(name)
    assert not errors(at) and any(message in i.value for i in at.info)
    assert any("Choose who is reviewing" in i.value for i in at.info) or name == "adjudicate"


# -- identity ------------------------------------------------------------------------
def test_reviewer_choice_survives_reloads_and_page_switches(db):
    at = page("review")
    choice = at.sidebar.selectbox(key="identity.choice")
    assert choice.value is None and choice.options == ["Ada", "Bob"]
    choice.set_value("Bob").run()
    assert at.session_state["identity.reviewer"] == "Bob"
    assert at.query_params["reviewer"] == "Bob"  # in the page address: a reload keeps it
    at.switch_page("pages/queues.py").run()
    assert at.sidebar.selectbox(key="identity.choice").value == "Bob"
    # A reload: a new session whose address carries the reviewer.
    reloaded = page("adjudicate", address="Bob")
    assert reloaded.sidebar.selectbox(key="identity.choice").value == "Bob"
    assert reloaded.session_state["identity.reviewer"] == "Bob"


def test_unknown_reviewer_in_the_address_and_adding_one(db):
    at = page("library", address="Eve")
    assert any("Eve is not a registered reviewer" in w.value for w in at.sidebar.warning)
    assert at.sidebar.selectbox(key="identity.choice").value is None
    at.sidebar.text_input(key="identity.new").set_value("  ada ").run()
    at.sidebar.button(key="identity.add").click().run()
    assert any("'ada' is already registered as 'Ada'" in e for e in errors(at))
    assert at.sidebar.selectbox(key="identity.choice").value is None
    at.sidebar.text_input(key="identity.new").set_value("Dana").run()
    at.sidebar.button(key="identity.add").click().run()
    assert not errors(at)
    assert [r.name for r in db.reviewers()] == ["Ada", "Bob", "Dana"]
    assert at.session_state["identity.reviewer"] == "Dana"
    assert at.sidebar.selectbox(key="identity.choice").value == "Dana"


# -- queues --------------------------------------------------------------------------
def test_work_a_queue_with_stage_shortcuts_skip_and_progress(db):
    ids = add_records(db, 6)
    create_queue(db, "six", ids, ["Ada", "Bob"], overlap=0.5)
    at = page("queues", reviewer="Ada")
    assert [p.proto.text for p in at.get("progress")] == ["Ada: 0 of 4 done · 0 skipped"]
    first = at.session_state["queues.current"][1]
    assert any(m.value == f"#### Question {ids.index(first)}?" for m in at.markdown)
    at.button(key="queues.toggle.II").click().run()
    at.button(key="queues.toggle.III").click().run()
    at.button(key="queues.toggle.III").click().run()  # pressing a stage again takes it back
    assert at.session_state["queues.stages"] == ["II"]
    at.text_input(key="queues.comment").set_value("the <b>pie</b> sentence is missing").run()
    at.button(key="queues.save").click().run()
    assert not errors(at), errors(at)
    (label,) = db.labels_for(first)
    assert (label.label_type, label.author, label.note) == ("II", "Ada", "the <b>pie</b> sentence is missing")
    assert any("Saved record" in s.value and f"{first}: II" in s.value for s in at.success)
    second = at.session_state["queues.current"][1]
    assert second != first and at.session_state["queues.stages"] == []
    at.button(key="queues.skip").click().run()
    third = at.session_state["queues.current"][1]
    assert third not in (first, second)
    mine = {a.record_id: a.status for a in assignments(db, "six", "Ada")}
    assert (mine[first], mine[second], mine[third]) == ("done", "skipped", "pending")
    progress_table = table(at, "reviewer", "assigned", "% done").set_index("reviewer")
    assert (progress_table.loc["Ada", "done"], progress_table.loc["Ada", "skipped"]) == (1, 1)


def test_save_without_a_stage_is_refused_and_nothing_is_written(db):
    ids = add_records(db, 2)
    create_queue(db, "two", ids, ["Bob"])
    at = page("queues", reviewer="Bob")
    assert at.button(key="queues.save").disabled  # no stage chosen yet
    at.button(key="queues.toggle.correct").click().run()
    db.delete_record(at.session_state["queues.current"][1])  # removed with its document meanwhile
    at.button(key="queues.save").click().run()
    assert any("audit record" in e and "was removed" in e for e in errors(at)), errors(at)
    assert db.list_labels() == []


def test_create_a_queue_from_a_filter(db):
    add_records(db, 8)
    at = page("queues", reviewer="Ada")
    assert any("No review queue yet" in i.value for i in at.info)
    at.multiselect(key="queues.new.reviewers").set_value(["Ada", "Bob"]).run()
    at.text_input(key="queues.new.name").set_value("first round").run()
    at.button(key="queues.new.go").click().run()
    assert not errors(at), errors(at)
    queue = get_queue(db, "first round")
    assert (queue.records, queue.created_by, queue.overlap, queue.source["kind"]) == (8, "Ada", 0.25, "filter")
    assert progress(db, queue.id).overlapping == 2
    # Bad input: a queue with a name in use is refused, naming the field; nothing is written.
    at.button(key="queues.new.go").click().run()
    assert any("queue: a queue named 'first round' exists already" in e for e in errors(at))


# -- adjudication --------------------------------------------------------------------
def test_adjudicate_a_disagreement(db):
    first, second = add_records(db, 2)
    create_queue(db, "q", [first, second], ["Ada", "Bob"], full_overlap=True)
    submit(db, "q", first, "Ada", ["II"], "missed it")
    submit(db, "q", first, "Bob", ["III"])
    submit(db, "q", second, "Ada", ["correct"])
    submit(db, "q", second, "Bob", ["correct"])
    db.add_reviewer("Cy")
    at = page("adjudicate", reviewer="Cy")
    disputed = table(at, "record", "differs on")
    assert list(disputed["record"]) == [first] and list(disputed["Ada"]) == ["II"] and list(disputed["Bob"]) == ["III"]
    matrix = next(m.value for m in at.markdown if "kg-stage-matrix" in m.value)
    assert "Ada" in matrix and "Bob" in matrix and matrix.count("✓") == 2
    assert set(table(at, "reviewer", "role", "stage")["reviewer"]) == {"Ada", "Bob"}
    at.multiselect(key=f"adjudicate.{first}.stages").set_value(["II"]).run()
    at.button(key=f"adjudicate.{first}.go").click().run()
    assert any("reason: is empty" in e for e in errors(at)) and adjudications_for(db, first) == []
    at.text_area(key=f"adjudicate.{first}.reason").set_value("the evidence was never retrieved").run()
    at.button(key=f"adjudicate.{first}.go").click().run()
    assert not errors(at), errors(at)
    (final,) = adjudications_for(db, first)
    assert (final.adjudicator, final.stages, final.reason) == ("Cy", ["II"], "the evidence was never retrieved")
    assert table(at, "adjudicator", "reason")["adjudicator"].tolist() == ["Cy"]
    at.toggle(key="adjudicate.open").set_value(True).run()
    assert any("No record where reviewers disagree" in i.value for i in at.info)


# -- review page: agreement and spellings ----------------------------------------------------------
def test_agreement_per_stage_and_merging_spellings(db):
    ids = add_records(db, 4)
    db.add_reviewer("Cy")
    create_queue(db, "q", ids, ["Ada", "Bob", "Cy"], full_overlap=True)
    for who, stages in {"Ada": ["II", "II", "III", "correct"], "Bob": ["II", "III", "III", "correct"],
                        "Cy": ["II", "II", "III", "correct"]}.items():
        for record, stage in zip(ids, stages):
            submit(db, "q", record, who, [stage])
    db.add_label(ids[0], "II", author="Bob.")  # a second spelling of Bob
    at = open_tab(page("review", reviewer="Ada"), "Agreement")
    assert not errors(at), errors(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Reviewers"] == "4" and metrics["Records rated by two or more"] == "4"
    targets = table(at, "target", "Krippendorff's alpha").set_index("target")
    assert targets.loc["II · retrieval", "records compared"] == 4
    # Stage II (records x Ada, Bob, Cy, "Bob."): (1,1,1,1), (1,0,1,-), (0,0,0,-), (0,0,0,-): o11 = 5,
    # o10 = o01 = 1, o00 = 6, n = 13 (n1 = 6, n0 = 7): alpha = 1 - (2/13) / (2*6*7 / (13*12)) = 5/7.
    assert targets.loc["II · retrieval", "Krippendorff's alpha"] == pytest.approx(5 / 7)
    assert targets.loc["gold not in document", "Krippendorff's alpha"] != targets.loc[
        "gold not in document", "Krippendorff's alpha"]  # NaN: nobody used it
    pairs = table(at, "reviewer A", "Cohen's kappa")
    assert len(pairs) == 6 and set(pairs.columns) >= {"Cohen's kappa", "95 % CI", "records both rated"}
    merges = table(open_tab(at, "Reviewers"), "keep", "merge")
    assert merges.values.tolist() == [["Bob", "Bob.", 1]]
    assert len(db.labels_for(ids[0])) == 4  # shown, not applied
    at.button(key="review.merge.0").click().run()
    assert not errors(at), errors(at)
    assert "Bob." not in {lb.author for lb in db.list_labels()}
    assert table(at, "into", "from")["into"].tolist() == ["Bob"]


def test_the_label_form_empties_after_a_label_is_added(db):
    """After "Add label" the note and error type start afresh: a second click does not store the label again."""
    (record,) = add_records(db, 1)

    def script(root: str, record_id: int) -> None:
        from kgcore.audit import AuditDB
        from ui.labelling_panel import label_form, show_flash

        show_flash()
        label_form(AuditDB.for_store(root), record_id, None, None, None, "Ada")

    import os

    at = AppTest.from_function(script, args=(os.environ["KGCORE_STORE"], record), default_timeout=TIMEOUT)
    at.run()
    at.radio(key=f"label.form.{record}.type").set_value("II")
    at.text_area(key=f"label.form.{record}.note").set_value("the pie sentence is missing")
    at.button(key=f"label.form.{record}.add").click().run()
    assert not errors(at), errors(at)
    assert [(lb.label_type, lb.note) for lb in db.labels_for(record)] == [("II", "the pie sentence is missing")]
    assert at.text_area(key=f"label.form.{record}.note").value == ""
    assert any("Saved: II" in s.value for s in at.success)


def test_a_suggestion_is_accepted_or_overridden_from_the_label_list(db):
    """The Ask page's label list: the automatic diagnosis shown as a suggestion, accepted as the reviewer's own
    label, or overridden with another stage."""
    import os

    from kgcore.audit.suggest import store_suggestion
    from kgcore.evaluate.diagnose import Diagnosis

    (record,) = add_records(db, 1)
    suggestion = store_suggestion(db, record, Diagnosis("II", "the pie sentence was never retrieved"))

    def script(root: str, record_id: int) -> None:
        from kgcore.audit import AuditDB
        from ui.labelling_panel import labels_list

        labels_list(AuditDB.for_store(root), record_id, "Ada")

    at = AppTest.from_function(script, args=(os.environ["KGCORE_STORE"], record), default_timeout=TIMEOUT).run()
    (shown,) = at.dataframe[0].value.to_dict("records")
    assert (shown["label"], shown["on"]) == ("II · retrieval", "the answer") and "(suggestion)" in shown["by"]
    at.button(key=f"label.list.{record}.accept").click().run()
    at.selectbox(key=f"label.list.{record}.pick").set_value(suggestion).run()
    at.selectbox(key=f"label.list.{record}.override_type").set_value("III").run()
    at.button(key=f"label.list.{record}.override").click().run()
    assert not errors(at), errors(at)
    mine = [(lb.label_type, lb.suggestion_id) for lb in db.labels_for(record) if lb.author == "Ada"]
    assert mine == [("II", suggestion), ("III", suggestion)]
