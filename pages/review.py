"""Review: every audit record and label, error statistics and analysis, agreement, re-open and re-run."""

from __future__ import annotations

import json
import tempfile
from datetime import date
from pathlib import Path

import pandas as pd
import streamlit as st

from kgcore.api import ERROR_STAGES as STAGES
from kgcore.api import (
    GROUPINGS,
    LABEL_TYPES,
    TARGETS,
    AuditDB,
    agreement_report,
    compare_runs,
    csv_text,
    drill,
    effective_labels,
    error_analysis,
    import_file,
    jsonl_text,
    list_queues,
    merge_authors,
    merge_log,
    parquet_bytes,
    queue_record_ids,
    record_to_result,
    rerun,
    suggest_merges,
)
from ui import auth_panel as auth
from ui import resources_panel as resources
from ui.analysis_view import GROUPING_LABELS, drill_frame, stage_chart, stage_table
from ui.ask_view import SentenceView, answer_html, numbering, question_terms, sentences_html
from ui.boot_panel import ensure_app_navigation
from ui.errors_panel import reported
from ui.identity_panel import reviewer_sidebar
from ui.labelling_panel import audit_db, current_author, flash, render_label_controls, reopen_record, show_flash
from ui.labels import METHOD_LABELS, TYPE_LABELS
from ui.markup_html import md_escape
from ui.review_view import label_charts, labels_frame, records_frame
from ui.team_view import agreement_frame, confusion_frame, merge_frame, pairs_frame, target_label
from ui.widgets_panel import open_tab_only

RECORD_KEY = "review.record"
RERUN_KEY = "review.rerun"
ALL = "(all audit records)"


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


def charts(frame: pd.DataFrame, adjudicated: int) -> None:
    """Label counts by error type, method, document and over time (adjudicated records: their final labels)."""
    figures = label_charts(frame)
    if not figures:
        st.caption("No labels match the filters, so there is nothing to chart.")
        return
    if adjudicated:
        st.caption(f"{adjudicated} adjudicated record(s) count with their final labels only, not their reviewers'.")
    for row in range(0, len(figures), 2):
        for col, (key, figure) in zip(st.columns(2), figures[row:row + 2]):
            col.altair_chart(figure, key=f"review.chart.{key}")


def analysis(db: AuditDB, chosen: dict) -> None:
    """Error-stage distribution per method, collection, document or index version, drilled down to the records."""
    c = st.columns([2, 2])
    by = c[0].selectbox("Group by", GROUPINGS, format_func=GROUPING_LABELS.get, key="review.err.by")
    source = c[1].radio("Labels", ("human", "automatic"), horizontal=True, key="review.err.source",
                        format_func=lambda s: "reviewers (final)" if s == "human" else "automatic diagnosis")
    rows = error_analysis(db, source, **chosen)
    if not rows:
        st.caption("No labelled records match the filters.")
        return
    st.dataframe(stage_table(rows, by), hide_index=True, key="review.err.table")
    st.caption("Records per stage; a record's stage is the earliest failing stage among its counted labels "
               "(adjudicated records: the final labels). A record citing two documents counts under both.")
    figure = stage_chart(rows, by)
    if figure is not None:
        st.altair_chart(figure, key="review.err.chart")
    d = st.columns(2)
    values = sorted({v for r in rows for v in r.values(by)})
    value = d[0].selectbox(f"Records of {GROUPING_LABELS[by].lower()}", [None, *values], key="review.err.value",
                           format_func=lambda v: "(any)" if v is None else v)
    stage = d[1].selectbox("with stage", [None, *STAGES], key="review.err.stage",
                           format_func=lambda s: "(any)" if s is None else s)
    cell = drill(rows, by, value, stage)
    st.dataframe(drill_frame(cell), hide_index=True, key="review.err.records")
    if cell:
        record_id = st.selectbox("Show record", [r.record_id for r in cell], key="review.err.open",
                                 format_func=lambda i: f"#{i}")
        stored_view(db.get_record(record_id), None)


def agreement(db: AuditDB, chosen: dict) -> None:
    """Krippendorff's alpha per error stage and on the verdict; Cohen's kappa and confusion matrix per pair."""
    queues = [q.name for q in list_queues(db)]
    c = st.columns([2, 1, 1])
    scope = c[0].selectbox("Records", [ALL, *queues], key="review.agree.scope",
                           format_func=lambda s: s if s == ALL else f"queue {s}")
    samples = c[1].number_input("Bootstrap resamples", 0, 10_000, 1000, 100, key="review.agree.samples")
    target = c[2].selectbox("Pairs compared on", TARGETS, index=TARGETS.index("verdict"), format_func=target_label,
                            key="review.agree.target")
    record_filters = {k: v for k, v in chosen.items() if k in ("doc_ids", "methods")}
    report = agreement_report(db, queue_record_ids(db, scope) if scope != ALL else None, int(samples),
                              **record_filters)
    if len(report.reviewers) < 2 or not report.pairs:
        st.caption("Agreement needs human labels from at least two reviewers.")
        return
    verdict = report.target("verdict")
    m = st.columns(3)
    m[0].metric("Reviewers", len(report.reviewers))
    m[1].metric("Records rated by two or more", verdict.items)
    m[2].metric("Krippendorff's alpha (verdict)", "n/a" if verdict.alpha is None else f"{verdict.alpha:.2f}")
    alpha_format = {"Krippendorff's alpha": st.column_config.NumberColumn(format="%.3f"),
                    "Cohen's kappa": st.column_config.NumberColumn(format="%.3f")}
    st.dataframe(agreement_frame(report), hide_index=True, key="review.agree.targets", column_config=alpha_format)
    st.caption("Per stage: did each reviewer use the stage on the record (raw labels); the verdict is the earliest "
               "failing stage. Records a reviewer did not label are missing, not \"no\". Empty: undefined "
               "(fewer than two records rated twice, or one value throughout).")
    st.markdown(f"**Pairs of reviewers** ({md_escape(target_label(target))})")
    st.dataframe(pairs_frame(report, target), hide_index=True, key="review.agree.pairs", column_config=alpha_format)
    pairs = [(p.a, p.b) for p in report.pairs if p.target == target]
    a, b = st.selectbox("Confusion matrix of", pairs, format_func=lambda p: f"{p[0]} / {p[1]}",
                        key="review.agree.pair")
    st.dataframe(confusion_frame(report.pair(a, b, target)), key="review.agree.confusion")


def reviewers(db: AuditDB, me: str) -> None:
    """The reviewer profile: registered reviewers, spellings that look like one person (merged on request)."""
    st.dataframe(pd.DataFrame([{"reviewer": r.name, "from": r.origin, "labels": r.labels, "since": r.created_at}
                               for r in db.reviewers()]), hide_index=True, key="review.reviewers")
    groups = suggest_merges(db)
    if not groups:
        st.caption("No two author spellings look like one person.")
    else:
        st.markdown("**Spellings that look like one person.** Nothing changes until you merge; every label keeps "
                    "its old author in the history.")
        st.dataframe(merge_frame(groups), hide_index=True, key="review.merges")
        for i, group in enumerate(groups):
            label = f"Merge {', '.join(group.spellings)} into {group.into} ({group.labels_changed} labels)"
            if st.button(md_escape(label), key=f"review.merge.{i}", icon=":material/merge:"):
                done = None
                with reported("Merging spellings"):
                    done = merge_authors(db, group.into, group.spellings, merged_by=me)
                if done:
                    flash(f"Merged {', '.join(done.merged)} into {done.into}: {done.labels_changed} label(s).")
                    st.rerun()
    log = merge_log(db)
    if log:
        st.markdown("**Merges applied**")
        st.dataframe(pd.DataFrame(log), hide_index=True, key="review.merge_log")


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
            st.session_state[RERUN_KEY] = (record.id, *rerun(record, resources.query_engine()))
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
        st.download_button("Records and labels (Parquet)", parquet_bytes(db, **chosen),
                           file_name=f"audit-{stamp}.parquet", mime="application/vnd.apache.parquet",
                           icon=":material/download:", key="review.export.parquet")
        st.caption("One schema for the three files (format groundedkg-audit/1): see docs/review.md, "
                   "\"Export and import\".")
    with c2:
        upload = st.file_uploader("Import an export (CSV, JSONL or Parquet)", type=["csv", "jsonl", "parquet"],
                                  key="review.import.file")
        if (upload is not None and st.button("Import", key="review.import.go", icon=":material/upload:")
                and auth.permitted("import labels")):
            with reported(f"Importing {upload.name}"):
                with tempfile.TemporaryDirectory() as tmp:
                    path = Path(tmp) / Path(upload.name).name
                    path.write_bytes(upload.getvalue())
                    report = import_file(db, path)
                st.success(md_escape(report.summary()), icon=":material/check_circle:")


def main() -> None:
    st.title("Review")
    author = current_author()
    db = audit_db()
    show_flash()
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
    views = {
        "Records": lambda: records_tab(db, records, labels, author),
        "Charts": lambda: charts_tab(records, labels),
        "Error analysis": lambda: analysis(db, chosen),
        "Agreement": lambda: agreement(db, chosen),
        "Reviewers": lambda: reviewers(db, author),
        "Import / export": lambda: import_export(db, chosen),
    }
    # Only the open tab runs: labelling a record must not recompute the agreement's bootstrap (1,000 resamples by
    # default) and every chart of the whole database.
    open_tab_only(views)


def records_tab(db: AuditDB, records: list, labels: list, author: str | None) -> None:
    st.dataframe(records_frame(records, labels), hide_index=True, key="review.records")
    st.dataframe(labels_frame(labels, {r.id: r for r in records}), hide_index=True, key="review.labels")
    if records:
        record_detail(db, records, author)


def charts_tab(records: list, labels: list) -> None:
    counted, adjudicated = effective_labels(labels)
    charts(labels_frame(counted, {r.id: r for r in records}), len(adjudicated))


ensure_app_navigation()
reviewer_sidebar()  # the "reviewing as" choice, on every page
with reported("Review"):
    main()
