"""Tables, charts and files of the Evaluate page (pure: no streamlit).

>>> from kgcore.evaluate import EvalRecord
>>> r = EvalRecord("d", "dense k=10", "dense", {}, 3, "Who?", ["Peter"], "", "Flopsy", evidence_hit=True)
>>> failure_rows([r])[0]["diagnosis hint"]
'III? evidence was in the context, the answer missed it'
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from kgcore.api import MAX_QA_BYTES, SUMMARY_COLUMNS, EvalRecord, EvalRun, QAItem, is_failure, parse_qa
from ui.chart_view import slanted_axis
from ui.markup_html import md_escape

if TYPE_CHECKING:
    import altair as alt

ROOT = Path(__file__).resolve().parent.parent
#: Folders searched for bundled QA sets (CSV files whose name contains "qa").
QA_FOLDERS = (ROOT / "assets", ROOT / "bench")
#: Per-question metrics (all in [0, 1]) that can be charted, with their display names.
RECORD_METRICS = {
    "exact_match": "EM", "sequence_match": "SM", "rouge_l": "ROUGE-L", "bertscore": "BERTScore",
    "evidence_hit": "Evidence hit", "answer_token_recall": "Answer-token recall",
}
#: Summary columns drawn as bars (all on the paper's 0-100 scale).
BAR_METRICS = ("em", "sm", "rouge_l", "bertscore", "evidence_hit_rate", "answer_token_recall")


def bundled_qa_sets() -> dict[str, Path]:
    """QA CSVs shipped with the app, by their path relative to the project."""
    found = {}
    for folder in QA_FOLDERS:
        for path in sorted(folder.glob("*.csv")):
            if "qa" in path.stem.lower():
                found[str(path.relative_to(ROOT))] = path
    return found


def read_upload(name: str, data: bytes) -> list[QAItem]:
    """Validate an uploaded QA CSV; a problem is a kgcore InputError naming the file, row and field.

    >>> [i.question for i in read_upload("qa.csv", b"question,answer1\\nWho?,Peter\\n")]
    ['Who?']
    >>> read_upload("qa.csv", b"question\\nWho?\\n")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: qa.csv: missing column 'answer1'
        (found question; expected question,answer1[,answer2][,evidence])
    """
    from kgcore.api import InputError

    if len(data) > MAX_QA_BYTES:
        raise InputError(name, f"is larger than {MAX_QA_BYTES // 2**20} MB")
    return parse_qa(data, name)


def summary_frame(rows: Sequence[dict]) -> pd.DataFrame:
    """The summary with display headers; the document column only when several documents."""
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    keep = (["doc_id", "index"] if frame["doc_id"].nunique() > 1 else []) + ["label", "questions", "errors"]
    frame = frame[keep + list(SUMMARY_COLUMNS)]
    return frame.rename(columns={"doc_id": "document", "label": "setting", **SUMMARY_COLUMNS})


def records_frame(records: Sequence[EvalRecord]) -> pd.DataFrame:
    """One flat row per (setting, question), for tables and the CSV download."""
    return pd.DataFrame([{
        "document": r.doc_id, "setting": r.label, "method": r.method, "question id": r.question_id,
        "question": r.question, "prediction": r.prediction, "gold": " | ".join(r.answers),
        **{name: getattr(r, key) for key, name in RECORD_METRICS.items()},
        "context sentences": r.context_sentences, "context words": r.context_words, "% of book": r.book_pct,
        "retrieval ms": r.retrieval_ms, "answer ms": r.answer_ms, "failed": is_failure(r), "error": r.error,
    } for r in records])


def metric_bars(rows: Sequence[dict], metrics: Sequence[str] = BAR_METRICS) -> alt.Chart:
    """Grouped bars: one group per setting (in run order), one bar per metric (0-100).

    >>> rows = [{"doc_id": "d", "label": "dense k=10", "em": 20.0, "sm": 50.0}, {"doc_id": "d", "label": "none",
    ...          "em": 0.0, "sm": None}]
    >>> spec = metric_bars(rows, ("em", "sm")).to_dict()
    >>> spec["encoding"]["xOffset"]["field"], spec["encoding"]["y"]["scale"]["domain"]
    ('metric', [0, 100])
    >>> next(iter(spec["datasets"].values()))
    [{'setting': 'dense k=10', 'metric': 'EM', 'score': 20.0}, {'setting': 'dense k=10', 'metric': 'SM', \
'score': 50.0}, {'setting': 'none', 'metric': 'EM', 'score': 0.0}]
    """
    import altair as alt

    names = [SUMMARY_COLUMNS[k] for k in metrics]
    long = pd.DataFrame([{"setting": f"{r['label']} ({r['doc_id']})" if _several_docs(rows) else r["label"],
                          "metric": SUMMARY_COLUMNS[k], "score": r[k]} for r in rows for k in metrics
                         if r.get(k) is not None], columns=["setting", "metric", "score"])
    return alt.Chart(long, title="Metrics per setting (×100)").mark_bar().encode(
        x=alt.X("setting:N", sort=None, title=None, axis=slanted_axis()),
        xOffset=alt.XOffset("metric:N", sort=names),
        y=alt.Y("score:Q", scale=alt.Scale(domain=[0, 100])),
        color=alt.Color("metric:N", sort=names, title=None),
        tooltip=["setting:N", "metric:N", alt.Tooltip("score:Q", format=".1f")])


def _several_docs(rows) -> bool:
    return len({r["doc_id"] for r in rows}) > 1


def _value(record: EvalRecord, metric: str) -> float | None:
    value = getattr(record, metric)
    return None if value is None else float(value)


def question_heatmap(records: Sequence[EvalRecord], metric: str = "rouge_l") -> alt.Chart:
    """Questions (rows, first at the top) × settings (columns), coloured by a per-question metric in [0, 1]; a
    question's text is data shown in the tooltip (Vega's tooltip escapes it), never markup.

    >>> recs = [EvalRecord("d", lab, "dense", {}, q, f"Is <b>{q}</b>?", ["a"], "", "a", rouge_l=0.5 * q)
    ...         for lab in ("x", "y") for q in (2, 1)]
    >>> spec = question_heatmap(recs).to_dict()
    >>> spec["encoding"]["y"]["sort"], spec["encoding"]["color"]["scale"]
    (['Q1', 'Q2'], {'domain': [0, 1], 'scheme': 'viridis'})
    >>> next(iter(spec["datasets"].values()))[0]
    {'question id': 'Q2', 'question': 'Is <b>2</b>?', 'setting': 'x', 'score': 1.0}
    """
    import altair as alt

    labels = list(dict.fromkeys(r.label for r in records))
    qids = sorted({r.question_id for r in records})
    frame = pd.DataFrame([{"question id": f"Q{r.question_id}", "question": r.question, "setting": r.label,
                           "score": _value(r, metric)} for r in records],
                         columns=["question id", "question", "setting", "score"]).dropna(subset=["score"])
    name = RECORD_METRICS[metric]
    return alt.Chart(frame, title=f"{name} per question", height=_heatmap_height(len(qids))).mark_rect().encode(
        x=alt.X("setting:N", sort=labels, title=None, axis=slanted_axis()),
        y=alt.Y("question id:N", sort=[f"Q{q}" for q in qids], title=None),
        color=alt.Color("score:Q", title=name, scale=alt.Scale(domain=[0, 1], scheme="viridis")),
        tooltip=["question id:N", "question:N", "setting:N", alt.Tooltip("score:Q", title=name, format=".2f")])


def _heatmap_height(questions: int) -> int:
    """Pixels for the whole heatmap: Streamlit fits a chart's title and axes into its height, and the slanted
    setting names take up to about 130 of them; each question's row gets 28.

    >>> _heatmap_height(3), _heatmap_height(20)
    (300, 730)
    """
    return max(300, 28 * questions + 170)


def size_scatter(records: Sequence[EvalRecord], metric: str = "rouge_l") -> alt.Chart:
    """Context words against a per-question metric, one colour per setting; the question in the tooltip.

    >>> recs = [EvalRecord("d", "x", "dense", {}, 1, "Who <i>?", ["a"], "", "a", rouge_l=0.5, context_words=40)]
    >>> spec = size_scatter(recs).to_dict()
    >>> spec["encoding"]["x"]["field"], spec["encoding"]["y"]["scale"]["domain"], spec["encoding"]["tooltip"][0]
    ('context words', [-0.05, 1.05], {'field': 'question', 'type': 'nominal'})
    >>> next(iter(spec["datasets"].values()))
    [{'setting': 'x', 'context words': 40, 'score': 0.5, 'question': 'Who <i>?'}]
    """
    import altair as alt

    frame = pd.DataFrame([{"setting": r.label, "context words": r.context_words, "score": _value(r, metric),
                           "question": r.question} for r in records],
                         columns=["setting", "context words", "score", "question"]).dropna(subset=["score"])
    name = RECORD_METRICS[metric]
    return alt.Chart(frame, title=f"Context size vs {name}").mark_circle(size=60).encode(
        x="context words:Q", y=alt.Y("score:Q", title=name, scale=alt.Scale(domain=[-0.05, 1.05], nice=False)),
        color=alt.Color("setting:N", sort=list(dict.fromkeys(r.label for r in records))),
        tooltip=["question:N", "setting:N", "context words:Q", alt.Tooltip("score:Q", title=name, format=".2f")])


def diagnosis_hint(record: EvalRecord) -> str:
    """A first guess at the failing stage from the evidence alone (the audit diagnosis is finer)."""
    if record.error:
        return "answer generation raised an error"
    if record.evidence_hit is None:
        return "unknown (no evidence given)"
    if record.evidence_hit:
        return "III? evidence was in the context, the answer missed it"
    return "I/II? evidence was not retrieved"


def failure_rows(records: Sequence[EvalRecord]) -> list[dict]:
    """Failed records (:func:`kgcore.evaluate.is_failure`) with their position and a diagnosis hint."""
    return [{"position": i, "setting": r.label, "question id": r.question_id, "question": r.question,
             "prediction": r.prediction, "gold": " | ".join(r.answers), "evidence": r.evidence,
             "diagnosis hint": diagnosis_hint(r)} for i, r in enumerate(records) if is_failure(r)]


def question_outcomes(records: Sequence[EvalRecord], question_id: int) -> list[EvalRecord]:
    """Every setting's record of one question, in run order."""
    return [r for r in records if r.question_id == question_id]


def jsonl_text(records: Sequence[EvalRecord]) -> str:
    return "".join(json.dumps(r.to_dict(), ensure_ascii=False) + "\n" for r in records)


def csv_text(frame: pd.DataFrame) -> str:
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False, quoting=csv.QUOTE_MINIMAL)
    return buffer.getvalue()


def run_summary_json(run: EvalRun) -> str:
    return json.dumps({"runs": run.meta, "columns": SUMMARY_COLUMNS, "rows": run.summary}, ensure_ascii=False, indent=1)


#: The LLM judge's summary columns (kgcore.evaluate.records.JUDGE_COLUMNS) with the page's headers.
JUDGE_HEADERS = {
    "label": "setting", "judge_relevance": "relevance", "judge_correctness": "correctness",
    "judge_completeness": "completeness", "judge_success_rate": "success %", "judge_failures": "failed calls",
}


def judged(rows: Sequence[dict]) -> bool:
    """Whether the run's answers were scored by the LLM judge.

    >>> judged([{"label": "dense"}]), judged([{"label": "dense", "judge_failures": 0}])
    (False, True)
    """
    return bool(rows) and "judge_failures" in rows[0]


def judge_frame(rows: Sequence[dict]) -> pd.DataFrame:
    """One row per setting: the judge's mean scores (1-5, successful calls only), success rate and failures.

    >>> row = {"doc_id": "d", "label": "dense k=10", "questions": 2, "judge_relevance": 4.5,
    ...        "judge_correctness": 4.0, "judge_completeness": 3.0, "judge_success_rate": 50.0, "judge_failures": 0}
    >>> judge_frame([row]).iloc[0].to_dict()["success %"]
    50.0
    """
    frame = pd.DataFrame(rows)
    keep = (["doc_id"] if frame["doc_id"].nunique() > 1 else []) + list(JUDGE_HEADERS)
    return frame[keep].rename(columns={"doc_id": "document", **JUDGE_HEADERS})


def judge_errors(records: Sequence[EvalRecord]) -> list[str]:
    """The reasons of the failed judge calls, in run order (a failed call is not scored, never a zero).

    >>> r = EvalRecord("d", "dense", "dense", {}, 1, "q", ["a"], "", "a", judge={"ok": False, "error": "HTTP 500"})
    >>> judge_errors([r])
    ['HTTP 500']
    """
    return [r.judge["error"] for r in records if r.judge is not None and not r.judge["ok"]]


def judge_caption(meta: dict) -> str:
    """What the judge scores mean, with its model and prompt version (markdown, escaped).

    >>> "qwen3" in judge_caption({"judge_model": "qwen3", "judge_prompt_version": "judge-v1"})
    True
    """
    model, version = md_escape(meta.get("judge_model", "?")), md_escape(meta.get("judge_prompt_version", "?"))
    return (f"Judge **{model}**, prompt {version}: "
            "relevance, correctness and completeness from 1 (very poor) to 5 (fully correct and comprehensive), "
            "means over the successful calls; an answer succeeds when relevance ≥ 4, correctness ≥ 4 and "
            "completeness ≥ 3. Failed calls are counted, not scored.")


def judge_line(score: dict) -> str:
    """One record's judge outcome in words.

    >>> judge_line({"ok": True, "relevance": 5, "correctness": 4, "completeness": 2, "success": False,
    ...             "rationale": "misses the buns"})
    'judge: relevance 5 · correctness 4 · completeness 2 → failed (misses the buns)'
    >>> judge_line({"ok": False, "error": "timed out"})
    'judge call failed (not scored): timed out'
    """
    if not score["ok"]:
        return f"judge call failed (not scored): {score['error']}"
    verdict = "succeeded" if score["success"] else "failed"
    why = f" ({score['rationale']})" if score.get("rationale") else ""
    return (f"judge: relevance {score['relevance']} · correctness {score['correctness']} · "
            f"completeness {score['completeness']} → {verdict}{why}")
