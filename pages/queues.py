"""Queues: hand audit records to reviewers with overlap, work your queue record by record, follow progress."""

from __future__ import annotations

import streamlit as st

from kgcore.api import (
    LABEL_TYPES,
    AuditDB,
    KgcoreError,
    Queue,
    Selection,
    assignments,
    create_queue,
    list_queues,
    next_assignment,
    parse_qa,
    parse_run_outcomes,
    progress,
    records_for_questions,
    records_for_run,
    select_records,
    skip,
    submit,
)
from ui.artefacts_panel import record_artefacts
from ui.boot_panel import ensure_app_navigation
from ui.errors_panel import reported, short_reason
from ui.identity_panel import reviewer_sidebar, reviewing_as
from ui.labelling_panel import audit_db, flash, show_flash
from ui.labels import METHOD_LABELS, STAGE_SHORT_LABELS, TYPE_LABELS
from ui.markup_html import md_escape
from ui.team_view import progress_frame

QUEUE_KEY = "queues.queue"
#: (queue name, record id) the reviewer is working on.
CURRENT_KEY = "queues.current"
STAGES_KEY = "queues.stages"
COMMENT_KEY = "queues.comment"
ERROR_KEY = "queues.error"
#: Keyboard shortcut of each stage label ("C" and "R" are reserved by Streamlit).
SHORTCUTS = {"I": "1", "II": "2", "III": "3", "correct": "K", "gold-not-in-document": "G"}
SOURCES = {"filter": "A filter of audit records", "questions": "A question set (QA CSV)",
           "run": "An evaluation run (results.jsonl)"}


def toggle(stage: str) -> None:
    chosen = list(st.session_state.get(STAGES_KEY) or [])
    st.session_state[STAGES_KEY] = [s for s in chosen if s != stage] if stage in chosen else [*chosen, stage]


def _act(db: AuditDB, action: str, queue: str, record_id: int, me: str) -> None:
    """Save (``submit``) or skip the current record; runs as a button callback, before the page is drawn."""
    stages, comment = list(st.session_state.get(STAGES_KEY) or []), st.session_state.get(COMMENT_KEY, "")
    try:
        if action == "save":
            submit(db, queue, record_id, me, stages, comment)
        else:
            skip(db, queue, record_id, me, comment)
    except Exception as exc:  # noqa: BLE001 - shown on the page, never as a traceback
        st.session_state[ERROR_KEY] = str(exc) if isinstance(exc, KgcoreError) else short_reason(exc)
        return
    st.session_state[STAGES_KEY], st.session_state[COMMENT_KEY] = [], ""
    st.session_state[CURRENT_KEY] = (queue, record_id, "next")
    names = ", ".join(TYPE_LABELS.get(s, s) for s in stages)
    flash(f"Saved record #{record_id}: {names}." if action == "save" else f"Skipped record #{record_id}.")


def current_item(db: AuditDB, queue: Queue, me: str):
    """The record being worked on: kept across reruns until it is saved or skipped, then the next one."""
    mine = {a.record_id: a for a in assignments(db, queue.id, me)}
    held = st.session_state.get(CURRENT_KEY)
    if held and held[0] == queue.name and len(held) == 2 and held[1] in mine and mine[held[1]].status != "done":
        return mine[held[1]]
    after = mine[held[1]].position if held and held[0] == queue.name and held[1] in mine else None
    item = next_assignment(db, queue.id, me, after=after)
    st.session_state[CURRENT_KEY] = (queue.name, item.record_id) if item else None
    return item


def label_controls(db: AuditDB, queue: Queue, record_id: int, me: str) -> None:
    """Stage toggles (with shortcuts), a comment, save and skip."""
    st.markdown("**Which stages failed?** (press the key to choose or unchoose a stage)")
    cols = [*st.columns(3), *st.columns(3)]
    for col, stage in zip(cols, SHORTCUTS):
        col.button(STAGE_SHORT_LABELS[stage], key=f"queues.toggle.{stage}", shortcut=SHORTCUTS[stage],
                   on_click=toggle, args=(stage,), width="stretch", help=TYPE_LABELS[stage])
    st.pills("Chosen", list(SHORTCUTS), selection_mode="multi", format_func=STAGE_SHORT_LABELS.get, key=STAGES_KEY)
    st.text_input("Comment (optional)", key=COMMENT_KEY, max_chars=5000, placeholder="Why? Anything unclear?")
    c1, c2 = st.columns(2)
    c1.button("Save", key="queues.save", help="Store the chosen stages and go to the next record", type="primary",
              icon=":material/done:", shortcut="Ctrl+Enter", on_click=_act,
              args=(db, "save", queue.name, record_id, me), width="stretch",
              disabled=not st.session_state.get(STAGES_KEY))
    c2.button("Skip", key="queues.skip", icon=":material/skip_next:", shortcut="S", width="stretch",
              on_click=_act, args=(db, "skip", queue.name, record_id, me))
    if error := st.session_state.pop(ERROR_KEY, None):
        st.error(md_escape(error), icon=":material/error:")


def work(db: AuditDB, queue: Queue, me: str) -> None:
    """The reviewer's next record of the queue."""
    mine = assignments(db, queue.id, me)
    if not mine:
        st.info(f"{md_escape(me)} has no records in queue {md_escape(queue.name)}.", icon=":material/inbox:")
        return
    done = sum(a.status == "done" for a in mine)
    skipped = sum(a.status == "skipped" for a in mine)
    st.progress(done / len(mine), text=f"{md_escape(me)}: {done} of {len(mine)} done · {skipped} skipped")
    show_flash()
    item = current_item(db, queue, me)
    if item is None:
        st.success(f"All your records of {md_escape(queue.name)} are done.", icon=":material/task_alt:")
        return
    left, right = st.columns([3, 2])
    with left:
        record_artefacts(db, db.get_record(item.record_id), key="queues.record")
    with right:
        status = " (skipped before)" if item.status == "skipped" else ""
        st.caption(f"Record {item.position + 1} of {queue.records} in the queue{status}")
        label_controls(db, queue, item.record_id, me)


def progress_view(db: AuditDB, queue: Queue) -> None:
    state = progress(db, queue.id)
    m = st.columns(4)
    m[0].metric("Records", queue.records)
    m[1].metric("Records done", state.records_done)
    m[2].metric("Labelled by two or more", state.overlapping)
    m[3].metric("Assignments done", f"{state.done} / {state.assignments}")
    st.dataframe(progress_frame(state), hide_index=True, key="queues.progress",
                 column_config={"% done": st.column_config.ProgressColumn("% done", min_value=0, max_value=100,
                                                                          format="%d %%")})
    how = "full overlap" if queue.per_overlap > 2 or (queue.overlap == 1.0 and queue.per_overlap > 1) else (
        f"{round(100 * queue.overlap)} % of the records labelled by two reviewers")
    st.caption(f"Created {queue.created_at} by {md_escape(queue.created_by or 'unknown')} · {how} · "
               f"source: {md_escape(queue.source.get('kind', 'records'))}")


def _selection(db: AuditDB, source: str) -> Selection | None:
    """The records a new queue would hold, from the chosen source."""
    records = db.list_records(with_payload=False)
    collections = sorted({r.doc_id for r in records})
    if source == "filter":
        c = st.columns(4)
        docs = c[0].multiselect("Collection", collections, key="queues.new.doc")
        methods = c[1].multiselect("Method", sorted({r.method for r in records}), key="queues.new.method",
                                   format_func=lambda m: METHOD_LABELS.get(m, m))
        documents = c[2].text_input("Documents (comma-separated ids)", key="queues.new.documents")
        diagnoses = c[3].multiselect("Automatic diagnosis", LABEL_TYPES, format_func=TYPE_LABELS.get,
                                     key="queues.new.diag")
        return select_records(db, docs, methods, [d.strip() for d in documents.split(",") if d.strip()], diagnoses)
    kind = "csv" if source == "questions" else "jsonl"
    upload = st.file_uploader(SOURCES[source], type=[kind], key=f"queues.new.{source}")
    if upload is None:
        return None
    if source == "questions":
        return records_for_questions(db, [q.question for q in parse_qa(upload.getvalue(), upload.name)], upload.name)
    return records_for_run(db, parse_run_outcomes(upload.getvalue().decode("utf-8", "replace"), upload.name),
                           upload.name)


def new_queue(db: AuditDB, me: str) -> None:
    source = st.radio("Records from", list(SOURCES), format_func=SOURCES.get, horizontal=True, key="queues.new.src")
    chosen = None
    with reported("Choosing the records"):
        chosen = _selection(db, source)
    if chosen is None:
        return
    st.caption(f"{len(chosen.record_ids)} record(s) match." + (
        f" {len(chosen.missing)} question(s) have no audit record, e.g. {md_escape(chosen.missing[0])}."
        if chosen.missing else ""))
    reviewers = [r.name for r in db.reviewers()]
    c = st.columns([3, 2, 2, 2])
    people = c[0].multiselect("Reviewers", reviewers, key="queues.new.reviewers")
    full = c[1].toggle("Full overlap", key="queues.new.full", help="Every reviewer labels every record")
    overlap = c[2].slider("Overlap (% labelled by two)", 0, 100, 25, 5, key="queues.new.overlap", disabled=full)
    name = c[3].text_input("Queue name", key="queues.new.name", max_chars=100)
    if st.button("Create queue", key="queues.new.go", type="primary", icon=":material/playlist_add:",
                 disabled=not me, help=None if me else "Choose who is reviewing in the sidebar first"):
        created = None
        with reported("Creating the queue"):
            created = create_queue(db, name, chosen.record_ids, people, overlap / 100, me, chosen.source, full)
        if created:
            flash(f"Created queue {created.name}: {created.records} records.")
            st.session_state[QUEUE_KEY] = created.name
            st.rerun()


def main() -> None:
    st.title("Review queues")
    db, me = audit_db(), reviewing_as()
    if not me:
        st.info("Choose who is reviewing in the sidebar (or add yourself) to work a queue.", icon=":material/person:")
    queues = list_queues(db)
    t_work, t_progress, t_new = st.tabs(["Work", "Progress", "New queue"])
    if queues:
        names = [q.name for q in queues]
        if st.session_state.get(QUEUE_KEY) not in names:
            st.session_state[QUEUE_KEY] = names[0]
        picked = st.sidebar.selectbox("Queue", names, key=QUEUE_KEY)
        queue = next(q for q in queues if q.name == picked)
        with t_work, reported("Working the queue"):
            if me:
                work(db, queue, me)
            else:
                st.caption("Nobody is reviewing yet.")
        with t_progress, reported("Queue progress"):
            progress_view(db, queue)
    else:
        for tab in (t_work, t_progress):
            tab.info("No review queue yet: create one under New queue.", icon=":material/inbox:")
    with t_new:
        if not db.list_records(with_payload=False):
            st.info("No audit records yet: label answers on the Ask page, or send an evaluation's failures.",
                    icon=":material/inbox:")
            return
        new_queue(db, me)


ensure_app_navigation()
reviewer_sidebar()  # the "reviewing as" choice, on every page
with reported("Review queues"):
    main()
