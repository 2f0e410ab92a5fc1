"""Review: every audit record and label, error statistics, agreement, re-open and re-run."""

from __future__ import annotations

import json
import tempfile
from datetime import date
from pathlib import Path

import pandas as pd
import streamlit as st

from kgcore.audit import (
    LABEL_TYPES,
    AuditDB,
    cohen_kappa,
    compare_runs,
    import_csv,
    import_jsonl,
    record_to_result,
    rerun,
)
from kgcore.audit.transfer import csv_text, jsonl_text
from ui import resources
from ui.ask_view import SentenceView, answer_html, numbering, question_terms, sentences_html
from ui.boot import ensure_app_navigation
from ui.errors import reported
from ui.labelling import audit_db, author_field, render_label_controls, reopen_record
from ui.labels import METHOD_LABELS, TYPE_LABELS
from ui.markup import md_escape
from ui.review_view import agreement_table, label_charts, labels_frame, records_frame

RECORD_KEY = "review.record"
RERUN_KEY = "review.rerun"


def filters(records, labels) -> dict:
    """Filter widgets; returns keyword filters for ``list_records``/``list_labels``."""
    docs = sorted({r.doc_id for r in records})
    methods = sorted({r.method for r in records})
    authors = sorted({lb.author for lb in labels})
    dates = sorted(r.created_at[:10] for r in records)
    c = st.columns([2, 2, 2, 2, 3])
    chosen = {
        "doc_ids": c[0].multiselect("Collection", docs, key="review.f.doc"),
        "methods": c[1].multiselect("Method", methods, format_func=lambda m: METHOD_LABELS.get(m, m),
                                    key="review.f.method"),
        "label_types": c[2].multiselect("Label type", LABEL_TYPES, format_func=TYPE_LABELS.get, key="review.f.type"),
        "authors": c[3].multiselect("Author", authors, key="review.f.author"),
    }
    first, last = date.fromisoformat(dates[0]), date.fromisoformat(dates[-1])
    span = c[4].date_input("Created between", (first, last), key="review.f.dates")
    if isinstance(span, (tuple, list)) and len(span) == 2:
        chosen["since"], chosen["until"] = span[0].isoformat(), span[1].isoformat()
    return {k: v for k, v in chosen.items() if v}


def charts(frame: pd.DataFrame) -> None:
    """Label counts by error type, method, document and over time."""
    figures = label_charts(frame)
    if not figures:
        st.caption("No labels match the filters, so there is nothing to chart.")
        return
    for row in range(0, len(figures), 2):
        for col, (key, figure) in zip(st.columns(2), figures[row:row + 2]):
            col.plotly_chart(figure, key=f"review.chart.{key}")


def agreement(db: AuditDB, chosen: dict) -> None:
    """Cohen's kappa between two authors over the records both labelled."""
    authors = db.authors()
    if len(authors) < 2:
        st.caption("Agreement needs human labels from at least two authors.")
        return
    c1, c2 = st.columns(2)
    a = c1.selectbox("Author A", authors, index=0, key="review.kappa.a")
    b = c2.selectbox("Author B", authors, index=1, key="review.kappa.b")
    record_filters = {k: v for k, v in chosen.items() if k in ("doc_ids", "methods")}
    result = cohen_kappa(db, a, b, **record_filters)
    if a == b or not result.pairs:
        st.caption("Choose two different authors who labelled the same record(s).")
        return
    m = st.columns(3)
    m[0].metric("Cohen's kappa", "n/a" if result.kappa is None else f"{result.kappa:.2f}")
    m[1].metric("Records labelled by both", result.records)
    m[2].metric("Observed agreement", f"{100 * result.observed:.0f} %")
    st.dataframe(agreement_table(result, a, b), key="review.kappa.table")
    st.caption("A verdict per author and record: the earliest failing stage among the author's labels "
               "(gold not in document, I, II, III), else correct.")


def _index_for(doc_id: str):
    """The loaded collection ``doc_id``, or None (with a note) when it is not indexed any more."""
    if doc_id not in resources.collection_names():
        st.caption(f"{md_escape(doc_id)} is not indexed any more: showing the stored record only.")
        return None
    return resources.engine().index(doc_id)


def stored_view(record, index) -> None:
    result, answer = record_to_result(record)
    same = index is not None and record.manifest_hash == index.manifest.content_hash
    st.markdown(f"#### {md_escape(record.question)}")
    st.caption(f"Record {record.id} · {md_escape(record.doc_id)} · {METHOD_LABELS.get(record.method, record.method)} · "
               f"{record.created_at} · index {record.manifest_hash}"
               + ("" if index is None else " (current)" if same else " (the collection changed since)"))
    if record.gold:
        st.markdown("**Gold:** " + md_escape("; ".join(record.gold)))
    if answer is not None:
        st.markdown(answer_html(answer, numbering(result.sentences), "r"), unsafe_allow_html=True)
    marks = {s.id: question_terms(result.question) for s in result.sentences}
    with st.expander(f"Context sentences ({len(result.sentences)})"):
        html = sentences_html(result.sentences, marks, SentenceView(anchor_prefix="r"))
        st.markdown(f'<div class="kg-scroll">{html}</div>', unsafe_allow_html=True)
    with st.expander("Models and settings"):
        st.json({"models": record.models, "settings": record.settings}, expanded=False)


def rerun_view(db: AuditDB, record, index) -> None:
    """Re-ask with the current index and models (stored retrieval options) and compare side by side."""
    if index is None:
        return
    if st.button("Re-run with current settings", key="review.rerun.go", icon=":material/replay:",
                 help="Same question and retrieval options, current index, parser and models"):
        with reported("Re-running the question"), st.spinner("Re-running…"):
            st.session_state[RERUN_KEY] = (record.id, *rerun(record, resources.engine()))
    stored = st.session_state.get(RERUN_KEY)
    if not stored or stored[0] != record.id:
        return
    old_result, old_answer = record_to_result(record)
    new_result, new_answer = stored[1], stored[2]
    diff = compare_runs(old_result, old_answer, new_result, new_answer)
    m = st.columns(4)
    m[0].metric("Shared sentences", len(diff["shared"]))
    m[1].metric("Only in the record", len(diff["only_old"]))
    m[2].metric("Only in the re-run", len(diff["only_new"]))
    m[3].metric("Jaccard", f"{diff['jaccard']:.2f}")
    st.caption("The answer is unchanged." if diff["same_answer"] else "The answer changed.")
    ids = (set(old_result.sentence_ids), set(new_result.sentence_ids))
    for col, title, result, answer, other, prefix in zip(
            st.columns(2), ("As recorded", "Re-run now"), (old_result, new_result), (old_answer, new_answer),
            (ids[1], ids[0]), ("o", "n")):
        with col:
            st.markdown(f"**{title}**")
            if answer is not None:
                st.markdown(answer_html(answer, numbering(result.sentences), prefix), unsafe_allow_html=True)
            view = SentenceView(other_ids=other, anchor_prefix=prefix)
            st.markdown(f'<div class="kg-scroll">{sentences_html(result.sentences, view=view)}</div>',
                        unsafe_allow_html=True)


def record_detail(db: AuditDB, records, author: str) -> None:
    ids = [r.id for r in records]
    by_id = {r.id: r for r in records}
    record_id = st.selectbox("Open record", ids, key=RECORD_KEY,
                             format_func=lambda i: (f"#{i} · {by_id[i].doc_id} · {by_id[i].method} · "
                                                    f"{by_id[i].question[:80]}"))
    record = db.get_record(record_id)
    index = _index_for(record.doc_id)
    stored_view(record, index)
    c1, c2 = st.columns(2)
    if index is not None:
        if c1.button("Open in the Ask view", key="review.open", icon=":material/open_in_new:",
                     help="Show this record on the Ask page exactly as it was answered"):
            reopen_record(record)
        bundle = db.audit_bundle(record.id, index)
    else:
        bundle = {"record": record.to_dict(), "labels": [lb.to_dict() for lb in db.labels_for(record.id)]}
    c2.download_button("Audit bundle (JSON)", json.dumps(bundle, ensure_ascii=False, indent=1),
                       file_name=f"audit-{record.doc_id}-{record.id}.json", mime="application/json",
                       icon=":material/download:", key="review.bundle")
    rerun_view(db, record, index)
    if index is not None:
        st.subheader("Label this record")
        result, answer = record_to_result(record)
        render_label_controls(db, record.id, result, answer, index, author)


def import_export(db: AuditDB, chosen: dict) -> None:
    c1, c2 = st.columns(2)
    with c1:
        st.markdown("**Export** (the filtered records, with their labels)")
        stamp = date.today().isoformat()
        st.download_button("Records and labels (CSV)", csv_text(db, **chosen), file_name=f"audit-{stamp}.csv",
                           mime="text/csv", icon=":material/download:", key="review.export.csv")
        st.download_button("Records and labels (JSONL)", jsonl_text(db, **chosen), file_name=f"audit-{stamp}.jsonl",
                           mime="application/jsonl", icon=":material/download:", key="review.export.jsonl")
    with c2:
        upload = st.file_uploader("Import a CSV or JSONL export", type=["csv", "jsonl"], key="review.import.file")
        if upload is not None and st.button("Import", key="review.import.go", icon=":material/upload:"):
            with reported(f"Importing {upload.name}"):
                with tempfile.TemporaryDirectory() as tmp:
                    path = Path(tmp) / Path(upload.name).name
                    path.write_bytes(upload.getvalue())
                    report = import_csv(db, path) if path.suffix == ".csv" else import_jsonl(db, path)
                st.success(md_escape(report.summary()), icon=":material/check_circle:")


def main() -> None:
    st.title("Review")
    author = author_field()
    db = audit_db()
    everything = db.list_records(with_payload=False)
    if not everything:
        st.info("No audit records yet. Answer a question on the Ask page and label it, or import an export below.",
                icon=":material/inbox:")
        import_export(db, {})
        return
    chosen = filters(everything, db.list_labels())
    records = db.list_records(**chosen, with_payload=False)
    label_filters = {k: v for k, v in chosen.items() if k in ("doc_ids", "methods", "label_types", "authors")}
    record_ids = {r.id for r in records}
    labels = [lb for lb in db.list_labels(**label_filters) if lb.record_id in record_ids]
    st.caption(f"{len(records)} of {len(everything)} record(s), {len(labels)} label(s) match the filters.")
    t_records, t_charts, t_agree, t_io = st.tabs(["Records", "Charts", "Agreement", "Import / export"])
    with t_records:
        st.dataframe(records_frame(records, labels), hide_index=True, key="review.records")
        st.dataframe(labels_frame(labels, {r.id: r for r in records}), hide_index=True, key="review.labels")
        if records:
            record_detail(db, records, author)
    with t_charts:
        charts(labels_frame(labels, {r.id: r for r in records}))
    with t_agree:
        agreement(db, chosen)
    with t_io:
        import_export(db, chosen)


ensure_app_navigation()
with reported("Review"):
    main()
