"""Evaluate: run methods and settings over a QA set and compare them (the paper's Tables 1 and 2)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from kgcore.api import (
    ANSWERERS,
    METHODS,
    EvalRun,
    Judge,
    JudgeCache,
    default_answerer,
    evaluate,
    is_failure,
    judge_settings,
    judge_unavailable,
    load_qa,
    parse_values,
    send_failures_to_audit,
    settings_grid,
)
from ui import evaluate_view as view
from ui import resources_panel as resources
from ui.boot_panel import ensure_app_navigation
from ui.diff_panel import compare_panel
from ui.errors_panel import reported
from ui.identity_panel import reviewer_sidebar
from ui.labels import METHOD_LABELS, label
from ui.markup_html import md_escape
from ui.state_panel import get_state
from ui.widgets_panel import pick_collection

RUN_KEY = "eval.result"
SENT_KEY = "eval.sent"
ASK_QUESTION_KEY = "ask.question"  # the Ask page's question field
BUNDLED, UPLOAD = "Bundled QA set", "Upload a CSV"
TAU_CHOICES = ["none", 0.1, 0.2, 0.3, 0.4]
PAGES = Path(__file__).resolve().parent


def qa_items():
    """The chosen QA set's items, or None (with the reason shown) when there is none or it is invalid."""
    source = st.radio("QA set", [BUNDLED, UPLOAD], horizontal=True, key="eval.source")
    if source == BUNDLED:
        sets = view.bundled_qa_sets()
        if not sets:
            st.info("No QA sets are bundled; upload one.", icon=":material/inbox:")
            return None
        name = st.selectbox("Bundled QA set", list(sets), key="eval.bundled")
        with reported("Reading the QA set"):
            return load_qa(sets[name])
        return None
    upload = st.file_uploader("QA CSV (question, answer1, optional answer2, optional evidence)", type=["csv"],
                              key="eval.upload")
    if upload is None:
        st.caption("Columns: `question,answer1[,answer2][,evidence]`; `evidence` is a substring of the document "
                   "used for the evidence hit rate.")
        return None
    with reported(f"Reading {upload.name}"):
        return view.read_upload(upload.name, upload.getvalue())
    return None


def grid_controls(settings):
    """Methods and retrieval settings; returns (grid, answerer) or None when a value is invalid."""
    c1, c2 = st.columns([3, 2])
    methods = c1.multiselect("Methods", list(METHODS), default=list(METHODS),
                             format_func=lambda m: label(METHOD_LABELS, m), key="eval.methods")
    default = default_answerer(settings)
    answerers = list(ANSWERERS)
    answerer = c2.selectbox("Answerer", answerers, index=answerers.index(default), key="eval.answerer")
    with st.expander("Ablation grid (paper Table 2)", icon=":material/tune:"):
        c1, c2, c3, c4 = st.columns(4)
        ks = c1.multiselect("K", [1, 3, 5, 10, 20], default=[10], key="eval.k")
        taus = c2.multiselect("VectorSim τ (GroundedKG)", TAU_CHOICES, default=["none"], key="eval.tau")
        counts = c3.multiselect("RetCount ≥ n (GroundedKG)", [1, 2, 3], default=[1], key="eval.min_count")
        budgets = c4.text_input("Word budgets (comma-separated, 0 = none)", "0", key="eval.budgets")
        st.caption("Embedding and parser variants are properties of an index: index the book again under another "
                   "name with another variant and evaluate that collection.")
    with reported("Reading the settings"):
        tau_values = [None if t == "none" else float(t) for t in taus]
        grid = settings_grid(methods, ks, tau_values, counts, parse_values(budgets, int, "Word budgets"))
        if not grid:
            st.warning("Choose at least one method, K, τ and count.", icon=":material/warning:")
            return None
        return grid, answerer
    return None


def judge_control(settings) -> bool:
    """The LLM judge's checkbox, or why the judge is unavailable (then False)."""
    reason = judge_unavailable(settings)
    if reason:
        st.info(f"LLM judge unavailable: {md_escape(reason)}.", icon=":material/gavel:")
        return False
    model = judge_settings(settings).openai_model
    return st.checkbox(f"Score the answers with the LLM judge ({md_escape(model)}): relevance, correctness and "
                       "completeness, 1-5", key="eval.judge")


def run_evaluation(doc_id, items, grid, answerer, use_judge: bool = False) -> None:
    bar = st.progress(0.0, text="starting")

    def progress(stage: str, done: int, total: int) -> None:
        bar.progress(done / total, text=f"{done}/{total} answers")

    st.session_state.pop(RUN_KEY, None)  # a failed run must not leave the previous table looking current
    st.session_state.pop(SENT_KEY, None)
    engine = resources.query_engine()
    judge = Judge(resources.settings(), JudgeCache.for_store(engine.store.root)) if use_judge else None
    run = evaluate(engine, doc_id, items, grid, answerer, progress, keep_failures=True, judge=judge)
    bar.progress(1.0, text=f"done in {run.meta[0]['seconds']:.1f} s")
    st.session_state[RUN_KEY] = run


def show_summary(run: EvalRun) -> None:
    meta = run.meta[0]
    st.subheader("Summary")
    st.caption(f"Collection **{md_escape(meta['doc_id'])}** (index {md_escape(meta['index'])}), "
               f"{meta['questions']} questions, answerer **{md_escape(meta['answerer'])}**, BERTScore encoder "
               f"**{md_escape(meta['bertscore_model'])}** (scores are comparable only with the same encoder). "
               "EM, SM, ROUGE-L, BERTScore, evidence hit and answer-token recall are ×100; latencies are medians.")
    st.dataframe(view.summary_frame(run.summary), hide_index=True, key="eval.summary")
    if view.judged(run.summary):
        show_judge(run)


def show_judge(run: EvalRun) -> None:
    st.subheader("LLM judge")
    st.caption(view.judge_caption(run.meta[0]))
    st.dataframe(view.judge_frame(run.summary), hide_index=True, key="eval.judge_table")
    errors = view.judge_errors(run.records)
    if errors:
        scored = sum(1 for r in run.records if r.judge is not None) - len(errors)
        level = st.error if not scored else st.warning
        level(f"{len(errors)} judge calls failed ({scored} scored), e.g. {md_escape(errors[0])}",
              icon=":material/error:")


def show_charts(run: EvalRun) -> None:
    st.altair_chart(view.metric_bars(run.summary), key="eval.chart.bars")
    metric = st.selectbox("Per-question metric", list(view.RECORD_METRICS), index=2,
                          format_func=view.RECORD_METRICS.get, key="eval.metric")
    left, right = st.columns(2)
    left.altair_chart(view.question_heatmap(run.records, metric), key="eval.chart.heatmap")
    right.altair_chart(view.size_scatter(run.records, metric), key="eval.chart.scatter")


def show_question(run: EvalRun) -> None:
    questions = {r.question_id: r.question for r in run.records}
    qid = st.selectbox("Question", list(questions), format_func=lambda q: f"Q{q}: {questions[q]}", key="eval.question")
    outcomes = view.question_outcomes(run.records, qid)
    st.markdown(f"**Gold:** {md_escape(' | '.join(outcomes[0].answers))}")
    if outcomes[0].evidence:
        st.markdown(f"**Evidence:** {md_escape(outcomes[0].evidence)}")
    if st.button("Open this question in Ask", icon=":material/question_answer:", key="eval.open_ask"):
        state = get_state()
        state.remember_collection(outcomes[0].doc_id)
        state.ask = None  # the Ask page must not show the previous question's answer under this one
        st.session_state[ASK_QUESTION_KEY] = questions[qid]
        st.switch_page("pages/ask.py")
    index = resources.engine().index(outcomes[0].doc_id)
    for r in outcomes:
        verdict = ":red[failed]" if is_failure(r) else ":green[ok]"
        with st.expander(f"{r.label} — {verdict} · ROUGE-L {r.rouge_l:.2f} · {r.context_sentences} sentences"):
            st.markdown(f"**Answer:** {md_escape(r.prediction or r.error)}")
            st.caption(f"EM {r.exact_match:.0f} · SM {r.sequence_match:.0f} · BERTScore {r.bertscore:.2f} · "
                       f"evidence hit {r.evidence_hit} · answer-token recall {r.answer_token_recall:.2f} · "
                       f"{r.context_words} words · retrieval {r.retrieval_ms:.0f} ms · answer {r.answer_ms:.0f} ms")
            if r.judge is not None:
                st.caption(md_escape(view.judge_line(r.judge)))
            texts = [f"[{sid}] {index.sentence(sid).original}" for sid in r.sentence_ids[:50]
                     if index.has_sentence(sid)]
            st.text("\n".join(texts) + (f"\n… and {len(r.sentence_ids) - 50} more" if len(r.sentence_ids) > 50 else ""))


def show_failures(run: EvalRun) -> None:
    rows = view.failure_rows(run.records)
    st.caption("A failure is an answer that does not contain any gold answer even as a token sequence (SM = 0).")
    if not rows:
        st.success("No failures.", icon=":material/check_circle:")
        return
    st.dataframe(pd.DataFrame(rows), hide_index=True, key="eval.failures")
    c1, c2 = st.columns(2)
    c1.download_button("Failures (CSV)", view.csv_text(pd.DataFrame(rows)), file_name="failures.csv",
                       mime="text/csv", key="eval.dl.failures")
    if c2.button(f"Send {len(rows)} failures to the labelling queue", icon=":material/rate_review:", key="eval.send"):
        from ui.labelling_panel import audit_db

        with st.spinner("Saving and diagnosing…"):
            st.session_state[SENT_KEY] = send_failures_to_audit(resources.query_engine(), run, audit_db())
    sent = st.session_state.get(SENT_KEY)
    if sent:
        stages = pd.Series([s["stage"] for s in sent]).value_counts().to_dict()
        st.success(f"Sent {len(sent)} records with automatic diagnoses: "
                   + ", ".join(f"{k}: {v}" for k, v in stages.items()), icon=":material/check_circle:")
        if (PAGES / "review.py").exists():
            st.page_link("pages/review.py", label="Review and label them", icon=":material/rate_review:")


def show_downloads(run: EvalRun) -> None:
    c1, c2, c3 = st.columns(3)
    c1.download_button("Results (JSONL)", view.jsonl_text(run.records), file_name="results.jsonl",
                       mime="application/jsonl", key="eval.dl.jsonl")
    c2.download_button("Results (CSV)", view.csv_text(view.records_frame(run.records)), file_name="results.csv",
                       mime="text/csv", key="eval.dl.csv")
    c3.download_button("Summary (JSON)", view.run_summary_json(run), file_name="summary.json",
                       mime="application/json", key="eval.dl.summary")


def main() -> None:
    st.title("Evaluate")
    doc_id = pick_collection("eval.doc")
    if doc_id is None:
        return
    items = qa_items()
    controls = grid_controls(resources.settings())
    if items and controls:
        grid, answerer = controls
        n = st.number_input("Questions (the first N of the set)", 1, len(items), len(items), key="eval.limit")
        items = items[: int(n)]
        st.caption(f"{len(grid)} settings × {len(items)} questions = {len(grid) * len(items)} answers.")
        use_judge = judge_control(resources.settings())
        if st.button("Run evaluation", type="primary", icon=":material/play_arrow:", key="eval.run"):
            with reported("Evaluating"):
                run_evaluation(doc_id, items, grid, answerer, use_judge)
    run = st.session_state.get(RUN_KEY)
    if isinstance(run, EvalRun):
        with reported("Showing the evaluation"):
            show_summary(run)
            tabs = st.tabs(["Charts", "Per question", "Compare two settings", "Failures", "Downloads"])
            with tabs[0]:
                show_charts(run)
            with tabs[1]:
                show_question(run)
            with tabs[2], reported("Comparing two settings"):
                compare_panel(run)
            with tabs[3]:
                show_failures(run)
            with tabs[4]:
                show_downloads(run)


ensure_app_navigation()
reviewer_sidebar()  # the "reviewing as" choice, on every page
with reported("Evaluate"):
    main()
