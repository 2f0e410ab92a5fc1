"""The Evaluate page's "Compare two settings": a win/loss/tie table with paired tests, the questions that
flipped, and a one-question diff opened from any result row or flipped question."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from kgcore.api import EvalRecord, EvalRun, RetrievalOptions, compare_settings, question_diff

from . import resources_panel as resources
from .ask_view import answer_html, numbering
from .diff_view import comparison_frame, flips_frame, hit_text, node_rows, sentence_rows
from .errors_panel import reported
from .evaluate_view import records_frame
from .markup_html import md_escape

A_KEY, B_KEY = "eval.diff.a", "eval.diff.b"
ROWS_KEY = "eval.diff.rows"
FLIP_KEY = "eval.diff.flip"
QUESTION_KEY = "eval.diff.question"
#: (doc id, question id, setting x, setting y) -> (QuestionDiff, answers), so a rerun does not ask again.
CACHE_KEY = "eval.diff.cache"


def _selected_row(key: str) -> int | None:
    event = st.session_state.get(key)
    selection = getattr(event, "selection", None) or (event or {}).get("selection", {}) if event else {}
    rows = selection.get("rows", []) if isinstance(selection, dict) else getattr(selection, "rows", [])
    return rows[0] if rows else None


def _ask(record: EvalRecord, answerer: str):
    return resources.query_engine().ask(record.doc_id, record.question, RetrievalOptions(**record.options), answerer)


def question_panel(run: EvalRun, x: EvalRecord, y: EvalRecord) -> None:
    """Both settings asked again on one question, and their diff."""
    key = (x.doc_id, x.question_id, x.label, y.label)
    cache = st.session_state.setdefault(CACHE_KEY, {})
    if key not in cache:
        answerer = run.meta[0]["answerer"]
        with st.spinner("Asking both settings…"):
            (ra, aa), (rb, ab) = _ask(x, answerer), _ask(y, answerer)
        cache[key] = (question_diff(ra, aa, rb, ab, x.evidence, x.label, y.label), aa, ab, ra, rb)
    d, aa, ab, ra, rb = cache[key]
    st.markdown(f"#### Q{x.question_id}: {md_escape(d.question)}")
    st.caption(f"A = {md_escape(d.a)} · B = {md_escape(d.b)} · gold: {md_escape(' | '.join(x.answers))}")
    m = st.columns(4)
    m[0].metric("Sentences only in A / B", f"{len(d.only_a)} / {len(d.only_b)}")
    m[1].metric("In both", len(d.both))
    m[2].metric("Words A / B", f"{d.words_a} / {d.words_b}")
    m[3].metric("Gold evidence A / B", f"{hit_text(d.evidence_a)} / {hit_text(d.evidence_b)}")
    st.caption("The answers are the same." if d.same_answer else "The answers differ.")
    for col, title, answer, result, prefix in zip(st.columns(2), ("A", "B"), (aa, ab), (ra, rb), ("da", "db")):
        col.markdown(f"**{title}: {md_escape(d.a if title == 'A' else d.b)}**")
        if answer is not None:
            col.markdown(answer_html(answer, numbering(result.sentences), prefix), unsafe_allow_html=True)
    st.dataframe(pd.DataFrame(sentence_rows(d)), hide_index=True, key="eval.diff.sentences")
    nodes = node_rows(d)
    if nodes:
        st.dataframe(pd.DataFrame(nodes), hide_index=True, key="eval.diff.nodes")
    else:
        st.caption("Neither setting matches graph nodes.")


def _pair_for(run: EvalRun, record: EvalRecord, a: str, b: str) -> tuple[EvalRecord, EvalRecord] | None:
    """The row's setting against B (against A when the row is B's), on the row's question."""
    other = a if record.label == b else b
    match = next((r for r in run.records if r.label == other and r.question_id == record.question_id
                  and r.doc_id == record.doc_id), None)
    return (record, match) if match is not None else None


def _chosen_pair(run: EvalRun, flipped: list, a: str, b: str) -> tuple[EvalRecord, EvalRecord] | None:
    """The question to diff: a selected result row, else a selected flipped question, else the picked question."""
    if (row := _selected_row(ROWS_KEY)) is not None and row < len(run.records):
        return _pair_for(run, run.records[row], a, b)
    qid = None
    if (row := _selected_row(FLIP_KEY)) is not None and row < len(flipped):
        qid = flipped[row].question_id
    qid = qid if qid is not None else st.session_state.get(QUESTION_KEY)
    first = next((r for r in run.records if r.label == a and r.question_id == qid), None)
    return _pair_for(run, first, a, b) if first is not None else None


def compare_panel(run: EvalRun) -> None:
    labels = list(dict.fromkeys(r.label for r in run.records))
    if len(labels) < 2:
        st.caption("Evaluate at least two methods or settings to compare them.")
        return
    c1, c2, c3 = st.columns([2, 2, 3])
    a = c1.selectbox("Setting A", labels, index=0, key=A_KEY)
    b = c2.selectbox("Setting B", labels, index=1, key=B_KEY)
    questions = {r.question_id: r.question for r in run.records}
    c3.selectbox("Diff one question", list(questions), index=None, key=QUESTION_KEY,
                 format_func=lambda q: f"Q{q}: {questions[q]}", placeholder="or select a row below")
    result = compare_settings(run.records, a, b)
    st.caption(f"{result.questions} question(s) answered by both. Yes/no metrics: McNemar's exact test; graded "
               "ones: a paired bootstrap of the mean difference.")
    st.dataframe(comparison_frame(result), hide_index=True, key="eval.diff.table")
    flips = flips_frame(result)
    st.markdown(f"**Questions that flipped** ({len(flips)}); select one to open its diff")
    if not flips.empty:
        st.dataframe(flips, hide_index=True, key=FLIP_KEY, on_select="rerun", selection_mode="single-row")
    st.markdown("**Every result**; select a row to diff its question between its setting and the other one")
    st.dataframe(records_frame(run.records), hide_index=True, key=ROWS_KEY, on_select="rerun",
                 selection_mode="single-row", height=260)
    pair = _chosen_pair(run, result.flipped, a, b)
    if pair is not None:
        with reported("Opening the diff"):
            question_panel(run, *pair)
