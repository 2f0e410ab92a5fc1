"""Summaries of an evaluation: one row per (document, setting), written as JSONL, JSON and CSV, or as a text table."""

from __future__ import annotations

import csv
import io
import json
import statistics
from collections.abc import Sequence
from pathlib import Path

from kgcore.core.errors import InputError
from kgcore.evaluate.judge import CRITERIA, aggregate
from kgcore.evaluate.records import JUDGE_COLUMNS, SUMMARY_COLUMNS, EvalRecord, EvalRun


def _mean(values: list[float], scale: float = 1.0) -> float | None:
    return round(scale * statistics.fmean(values), 1) if values else None


def summarize(records: Sequence[EvalRecord], variants: dict[str, str] | None = None) -> list[dict]:
    """One row per (document, setting) in first-seen order; answer metrics and rates ×100.

    >>> r = EvalRecord("d", "none", "none", {}, 1, "q", ["a"], "", "a", 1.0, 1.0, 1.0, 0.9, None, 0.5,
    ...                retrieval_ms=2, answer_ms=4)
    >>> row = summarize([r, r])[0]
    >>> row["em"], row["bertscore"], row["evidence_hit_rate"], row["answer_token_recall"], row["answer_ms_p50"]
    (100.0, 90.0, None, 50.0, 4.0)
    """
    judged = any(r.judge is not None for r in records)
    groups: dict[tuple[str, str], list[EvalRecord]] = {}
    for r in records:
        groups.setdefault((r.doc_id, r.label), []).append(r)
    rows = []
    for (doc_id, label), group in groups.items():
        ok = [r for r in group if not r.error]
        hits = [float(r.evidence_hit) for r in group if r.evidence_hit is not None]
        options = group[0].options
        rows.append({
            "doc_id": doc_id, "index": (variants or {}).get(doc_id, ""), "label": label, "method": group[0].method,
            **{k: options.get(k) for k in ("k", "tau", "min_count", "budget_words", "budget_sentences")},
            "questions": len(group), "errors": len(group) - len(ok),
            "em": _mean([r.exact_match for r in ok], 100), "sm": _mean([r.sequence_match for r in ok], 100),
            "rouge_l": _mean([r.rouge_l for r in ok], 100), "bertscore": _mean([r.bertscore for r in ok], 100),
            "evidence_hit_rate": _mean(hits, 100),
            "answer_token_recall": _mean([r.answer_token_recall for r in group], 100),
            "context_sentences": _mean([r.context_sentences for r in group]),
            "context_words": _mean([r.context_words for r in group]), "book_pct": _mean([r.book_pct for r in group]),
            "retrieval_ms_p50": round(statistics.median(r.retrieval_ms for r in group), 1),
            "answer_ms_p50": round(statistics.median(r.answer_ms for r in ok), 1) if ok else None,
            **(judge_summary(group) if judged else {}),
        })
    return rows


def judge_summary(group: Sequence[EvalRecord]) -> dict:
    """The ``judge_*`` summary columns (:data:`JUDGE_COLUMNS`) of one setting of a judged run.

    >>> r = EvalRecord("d", "none", "none", {}, 1, "q", ["a"], "", "a", judge={
    ...     "ok": True, "relevance": 5, "correctness": 4, "completeness": 3, "success": True})
    >>> judge_summary([r])["judge_success_rate"], judge_summary([r])["judge_failures"]
    (100.0, 0)
    """
    stats = aggregate([r.judge for r in group])
    return {"judge_" + k: stats[k] for k in (*CRITERIA, "success_rate")} | {
        "judge_failures": stats["judge_failures"]}


def write_outputs(run: EvalRun, out_dir: str | Path) -> dict[str, Path]:
    """Write ``results.jsonl``, ``summary.json`` and ``summary.csv`` into ``out_dir``."""
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(str(out_dir), f"cannot create the output folder ({exc.strerror})") from None
    paths = {"results": out / "results.jsonl", "summary_json": out / "summary.json", "summary_csv": out / "summary.csv"}
    with paths["results"].open("w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r.to_dict(), ensure_ascii=False) + "\n" for r in run.records)
    summary = {"runs": run.meta, "columns": columns_of(run.summary), "rows": run.summary}
    paths["summary_json"].write_text(json.dumps(summary, ensure_ascii=False, indent=1), encoding="utf-8")
    paths["summary_csv"].write_text(summary_csv(run.summary), encoding="utf-8")
    return paths


def summary_csv(rows: Sequence[dict]) -> str:
    """The summary rows as CSV text (empty cells for missing values)."""
    buffer = io.StringIO()
    if rows:
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: "" if v is None else v for k, v in row.items()} for row in rows)
    return buffer.getvalue()


def columns_of(rows: Sequence[dict]) -> dict[str, str]:
    """:data:`SUMMARY_COLUMNS`, and :data:`JUDGE_COLUMNS` when the rows were judged."""
    judged = bool(rows) and "judge_failures" in rows[0]
    return {**SUMMARY_COLUMNS, **(JUDGE_COLUMNS if judged else {})}


def format_table(rows: Sequence[dict]) -> str:
    """The summary as a fixed-width text table (a document column only when several documents)."""
    docs = len({r["doc_id"] for r in rows}) > 1
    columns = columns_of(rows)
    heads = (["Document"] if docs else []) + ["Setting"] + list(columns.values())
    body = [([r["doc_id"]] if docs else []) + [r["label"]]
            + ["-" if r[k] is None else f"{r[k]:g}" for k in columns]
            for r in rows]
    widths = [max(len(str(x)) for x in column) for column in zip(heads, *body)]
    line = lambda cells: "  ".join(str(c).ljust(w) if i < len(heads) - len(columns) else str(c).rjust(w)  # noqa: E731
                                   for i, (c, w) in enumerate(zip(cells, widths)))
    return "\n".join([line(heads), line(["-" * w for w in widths])] + [line(b) for b in body])
