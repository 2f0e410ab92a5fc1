"""Adjudicate: records where reviewers disagree, every reviewer's labels beside the artefacts, final labels."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from kgcore.api import (
    LABEL_TYPES,
    AuditDB,
    Disagreement,
    adjudicate,
    adjudications_for,
    disagreements,
    label_history,
    list_queues,
    queue_record_ids,
)
from ui import auth_panel as auth
from ui.artefacts_panel import record_artefacts
from ui.boot_panel import ensure_app_navigation
from ui.errors_panel import reported
from ui.identity_panel import reviewer_sidebar, reviewing_as
from ui.labelling_panel import audit_db, flash, show_flash
from ui.labels import TYPE_LABELS
from ui.team_view import disagreements_frame, stage_matrix_html

ALL = "(all audit records)"
SCOPE_KEY = "adjudicate.scope"
RECORD_KEY = "adjudicate.record"


def reviewer_labels(db: AuditDB, record_id: int) -> pd.DataFrame:
    """Every human label of the record: reviewers' and adjudicators', oldest first."""
    return pd.DataFrame([{
        "id": lb.id, "reviewer": lb.author, "role": lb.role, "stage": TYPE_LABELS.get(lb.label_type, lb.label_type),
        "artifact": lb.artifact_kind, "artifact id": lb.artifact_id, "note": lb.note, "at (UTC)": lb.created_at,
    } for lb in db.labels_for(record_id) if lb.source == "human"])


def final_form(db: AuditDB, found: Disagreement, me: str, queue: str | None) -> None:
    """Final stages, reviewers' labels to adopt (with their artifacts) and the reason; one click records them."""
    k = f"adjudicate.{found.record_id}"
    reviews = {lb.id: lb for lb in db.labels_for(found.record_id) if lb.source == "human" and lb.role == "review"}
    stages = st.multiselect("Final stages", LABEL_TYPES, format_func=TYPE_LABELS.get, key=f"{k}.stages")
    adopt = st.multiselect(
        "Adopt reviewers' labels (kept with their artifacts)", list(reviews), key=f"{k}.adopt",
        format_func=lambda i: f"#{i} {reviews[i].author}: {TYPE_LABELS.get(reviews[i].label_type)} on "
                              f"{reviews[i].artifact_kind} {reviews[i].artifact_id}".strip())
    reason = st.text_area("Reason", key=f"{k}.reason", height=80, placeholder="Why these are the final labels")
    # refused, permitted() says why and who may, and no button is drawn
    if auth.permitted("adjudicate disagreements") and st.button(
            "Record the final labels", key=f"{k}.go", type="primary", icon=":material/gavel:", disabled=not me,
            help=None if me else "Choose who is reviewing in the sidebar first"):
        done = None
        with reported("Recording the final labels"):
            done = adjudicate(db, found.record_id, me, stages, reason, adopt, queue)
        if done:
            flash(f"Record #{found.record_id} adjudicated: {', '.join(TYPE_LABELS[s] for s in done.stages)}.")
            st.rerun()


def history(db: AuditDB, record_id: int) -> None:
    earlier = adjudications_for(db, record_id)
    if earlier:
        st.markdown("**Adjudications** (the last one is final)")
        st.dataframe(pd.DataFrame([{"at (UTC)": a.created_at, "adjudicator": a.adjudicator,
                                    "stages": ", ".join(a.stages), "reason": a.reason} for a in earlier]),
                     hide_index=True, key="adjudicate.history")
    changes = label_history(db, record_id)
    if changes:
        st.markdown("**Label history** (deleted labels, changed authors)")
        st.dataframe(pd.DataFrame(changes), hide_index=True, key="adjudicate.changes")


def record_view(db: AuditDB, found: Disagreement, me: str, queue: str | None) -> None:
    record = db.get_record(found.record_id)
    left, right = st.columns([3, 2])
    with left:
        record_artefacts(db, record, key="adjudicate.rec")
    with right:
        earlier = adjudications_for(db, record.id)
        final = earlier[-1].stages if earlier else None
        st.markdown("**Each reviewer's stages**")
        st.markdown(stage_matrix_html(found.stages, final), unsafe_allow_html=True)
        st.dataframe(reviewer_labels(db, record.id), hide_index=True, key="adjudicate.labels")
        st.subheader("Final labels")
        final_form(db, found, me, queue)
        history(db, record.id)


def main() -> None:
    st.title("Adjudicate")
    db, me = audit_db(), reviewing_as()
    show_flash()
    queues = [q.name for q in list_queues(db)]
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    scope = c1.selectbox("Records", [ALL, *queues], key=SCOPE_KEY, format_func=lambda s: s if s == ALL else
                         f"queue {s}")
    open_only = c2.toggle("Only unsettled", key="adjudicate.open", help="Hide records already adjudicated")
    queue = None if scope == ALL else scope
    found = disagreements(db, queue_record_ids(db, queue) if queue else None)
    shown = [d for d in found if not (open_only and d.adjudicated)]
    if not shown:
        st.info("No record where reviewers disagree" + (" and that is not adjudicated yet." if open_only else "."),
                icon=":material/handshake:")
        return
    st.caption(f"{len(shown)} record(s) where reviewers disagree ({sum(d.adjudicated for d in shown)} adjudicated).")
    st.dataframe(disagreements_frame(shown), hide_index=True, key="adjudicate.table")
    by_id = {d.record_id: d for d in shown}
    if st.session_state.get(RECORD_KEY) not in by_id:
        st.session_state[RECORD_KEY] = shown[0].record_id
    picked = st.selectbox("Open record", list(by_id), key=RECORD_KEY, format_func=lambda i: (
        f"#{i} · {by_id[i].question[:80]}" + (" · adjudicated" if by_id[i].adjudicated else "")))
    record_view(db, by_id[picked], me, queue)


ensure_app_navigation()
reviewer_sidebar()  # the "reviewing as" choice, on every page
with reported("Adjudicate"):
    main()
