"""Evaluation harness: the paper's Table 1/2 for any document and QA set.

A QA set is a CSV with ``question,answer1[,answer2][,evidence]``
(:func:`kgcore.qaset.load_qa`, re-exported here).  :func:`evaluate` runs
every retrieval setting of a grid (:func:`settings_grid`: methods × K ×
VectorSim τ × RetCount ≥ n × budget) over every question, answers with one
answerer and scores the answers with :mod:`kgcore.metrics`.  The result
(:class:`EvalRun`) holds per-question records and a summary table with one
row per setting.  Answers are cached by (question, context): settings that
select the same sentences share one answer (``answer_cached``).

One run evaluates one index.  Index-time variants (SRL vs AMR parse,
``basic``/``neighbor``/``attention`` embedding) need one index each: build
them under different document ids and evaluate each; the summary rows carry
``doc_id`` and ``index`` (parser/coref/embedding) so their tables
concatenate (the CLI accepts ``--doc a,b`` and does exactly that).

>>> [setting_label(o) for o in settings_grid(["groundedkg", "dense", "none"], ks=[5, 10], budget_words=[0])]
['groundedkg k=5', 'groundedkg k=10', 'dense k=5', 'dense k=10', 'none']
"""

from __future__ import annotations

import csv
import io
import itertools
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterable, Sequence

from . import __version__
from .errors import GenerationError, InputError
from .metrics import BertScorer, answer_token_recall, evidence_hit, exact_match, rouge_l, sequence_match
from .qaset import QAItem, load_qa, parse_qa
from .settings import METHODS, RetrievalOptions

__all__ = [
    "QAItem", "EvalRecord", "EvalRun", "load_qa", "parse_qa", "settings_grid", "canonical_options", "setting_label",
    "evaluate", "is_failure", "send_failures_to_audit", "summarize", "write_outputs", "format_table",
    "add_eval_command", "answer_token_recall", "evidence_hit",
]

#: Methods whose ranking is cut at K when no budget is given.
RANKED = ("dense", "bm25", "hybrid")
#: Summary columns with their display headers (answer metrics and rates are ×100 like the paper).
SUMMARY_COLUMNS = {
    "em": "EM", "sm": "SM", "rouge_l": "ROUGE-L", "bertscore": "BERTScore",
    "evidence_hit_rate": "EvidHit", "answer_token_recall": "AnsRecall",
    "context_sentences": "Sents", "context_words": "Words", "book_pct": "%Book",
    "retrieval_ms_p50": "Ret.ms", "answer_ms_p50": "Ans.ms",
}
Progress = Callable[[str, int, int], None]


# -- the settings grid ------------------------------------------------------------
def canonical_options(options: RetrievalOptions) -> RetrievalOptions:
    """``options`` with the fields its method ignores reset, so equal runs are not repeated.

    Only GroundedKG uses τ and RetCount; ranked baselines use K only without
    a budget; ``full`` uses budgets only; ``none`` uses nothing.

    >>> canonical_options(RetrievalOptions("dense", k=5, tau=0.2, budget_words=500)) == RetrievalOptions("dense", budget_words=500)
    True
    """
    o = options
    if o.method == "none":
        return RetrievalOptions("none")
    if o.method == "groundedkg":
        return o
    budgeted = bool(o.budget_words or o.budget_sentences)
    k = o.k if o.method in RANKED and not budgeted else RetrievalOptions.k
    return RetrievalOptions(o.method, k=k, budget_sentences=o.budget_sentences, budget_words=o.budget_words)


def settings_grid(methods: Sequence[str] = METHODS, ks: Sequence[int] = (10,), taus: Sequence[float | None] = (None,),
                  min_counts: Sequence[int] = (1,), budget_words: Sequence[int] = (0,),
                  budget_sentences: Sequence[int] = (0,)) -> list[RetrievalOptions]:
    """Every combination, canonicalised and without repeats, grouped by method in the given order."""
    grid: list[RetrievalOptions] = []
    for method, words, sents, k, tau, count in itertools.product(methods, budget_words, budget_sentences, ks, taus, min_counts):
        options = canonical_options(RetrievalOptions(method, k, tau, count, sents, words))
        if options not in grid:
            grid.append(options)
    return grid


def setting_label(options: RetrievalOptions) -> str:
    """A short row label for a setting.

    >>> setting_label(RetrievalOptions("groundedkg", k=5, tau=0.2, min_count=2, budget_words=1000))
    'groundedkg k=5 tau=0.2 count>=2 budget=1000w'
    """
    o, parts = canonical_options(options), [options.method]
    if o.method == "groundedkg" or (o.method in RANKED and not (o.budget_words or o.budget_sentences)):
        parts.append(f"k={o.k}")
    if o.tau is not None:
        parts.append(f"tau={o.tau:g}")
    if o.min_count > 1:
        parts.append(f"count>={o.min_count}")
    if o.budget_words:
        parts.append(f"budget={o.budget_words}w")
    if o.budget_sentences:
        parts.append(f"budget={o.budget_sentences}s")
    return " ".join(parts)


# -- running ----------------------------------------------------------------------
@dataclass
class EvalRecord:
    """One (setting, question) outcome.  Answer metrics are in [0, 1]; ``evidence_hit`` is None without evidence."""

    doc_id: str
    label: str
    method: str
    options: dict
    question_id: int
    question: str
    answers: list[str]
    evidence: str
    prediction: str
    exact_match: float = 0.0
    sequence_match: float = 0.0
    rouge_l: float = 0.0
    bertscore: float = 0.0
    evidence_hit: bool | None = None
    answer_token_recall: float = 0.0
    context_sentences: int = 0
    context_words: int = 0
    book_pct: float = 0.0
    retrieval_ms: float = 0.0
    answer_ms: float = 0.0
    answer_cached: bool = False
    sentence_ids: list[str] = field(default_factory=list)
    error: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class EvalRun:
    """Records, summary rows and provenance (``meta``) of one or more evaluations."""

    meta: list[dict]
    records: list[EvalRecord]
    summary: list[dict]
    #: (QueryResult, Answer) of failed records by record position, when kept (for the audit queue).
    kept: dict[int, tuple] = field(default_factory=dict, repr=False)

    @classmethod
    def concat(cls, runs: Iterable["EvalRun"]) -> "EvalRun":
        runs, kept, offset = list(runs), {}, 0
        for r in runs:
            kept.update({offset + i: pair for i, pair in r.kept.items()})
            offset += len(r.records)
        return cls([m for r in runs for m in r.meta], [x for r in runs for x in r.records],
                   [s for r in runs for s in r.summary], kept)

    def failures(self) -> list[int]:
        """Positions of the failed records (see :func:`is_failure`)."""
        return [i for i, r in enumerate(self.records) if is_failure(r)]


def is_failure(record: EvalRecord) -> bool:
    """A record failed when answering raised an error or no reference is in the answer even as a token sequence."""
    return bool(record.error) or record.sequence_match == 0.0


def evaluate(engine, doc_id: str, qa_items: Sequence[QAItem], settings_grid: Sequence[RetrievalOptions],
             answerer: str | None = None, progress: Progress | None = None, scorer: BertScorer | None = None,
             keep_failures: bool = False) -> EvalRun:
    """Run every setting over every question on ``doc_id``; see the module docstring.

    ``progress("eval", done, total)`` is called after each question;
    ``keep_failures`` keeps the QueryResult and Answer of failed records in
    :attr:`EvalRun.kept` so they can be sent to the audit queue.
    """
    from .answer import default_answerer

    if not qa_items:
        raise InputError("qa", "no questions to evaluate")
    grid = list(dict.fromkeys(canonical_options(o) for o in settings_grid))
    if not grid:
        raise InputError("methods", "no retrieval settings to evaluate")
    started = time.perf_counter()
    index = engine.index(doc_id)
    answerer = answerer or default_answerer(engine.settings)
    generator = engine.generator(answerer)  # fails fast when e.g. no endpoint is configured
    scorer = scorer or BertScorer()
    answers: dict[tuple, tuple] = {}
    records, kept, total = [], {}, len(grid) * len(qa_items)
    for options, item in itertools.product(grid, qa_items):
        record, result, answer = _evaluate_one(engine, index, item, options, answerer, scorer, answers)
        if keep_failures and is_failure(record):
            kept[len(records)] = (result, answer)
        records.append(record)
        if progress:
            progress("eval", len(records), total)
    manifest = index.manifest
    meta = {
        "doc_id": doc_id, "index": index_variant(manifest), "index_options": manifest.get("options", {}),
        "index_created_at": manifest.get("created_at", ""), "models": manifest.get("models", {}),
        "book_words": index.total_words, "answerer": answerer, "answer_model": getattr(generator, "model", ""),
        "bertscore_model": scorer.model_name, "questions": len(qa_items), "settings": [setting_label(o) for o in grid],
        "kgcore_version": __version__, "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "seconds": round(time.perf_counter() - started, 2),
    }
    return EvalRun([meta], records, summarize(records, {doc_id: meta["index"]}), kept)


def index_variant(manifest: dict) -> str:
    """``parser/coref/embedding`` of an index, e.g. ``srl/heuristic/basic``."""
    o = manifest.get("options", {})
    return "/".join(str(o.get(k, "?")) for k in ("parser", "coref", "embedding"))


def _evaluate_one(engine, index, item: QAItem, options: RetrievalOptions, answerer: str, scorer, cache) -> EvalRecord:
    result = engine.retrieve(index.doc_id, item.question, options)
    context = [s.text for s in result.sentences]
    record = EvalRecord(
        index.doc_id, setting_label(options), options.method, options.to_dict(), item.row, item.question,
        list(item.answers), item.evidence, "",
        evidence_hit=evidence_hit(item.evidence, context) if item.evidence else None,
        answer_token_recall=answer_token_recall(item.answers, context),
        context_sentences=len(context), context_words=result.context_words,
        book_pct=round(100 * result.context_words / max(index.total_words, 1), 2),
        retrieval_ms=result.timings_ms.get("retrieval", 0.0), sentence_ids=result.sentence_ids,
    )
    # The answer depends only on the question and its context: equal contexts are answered once.
    key = (item.question, tuple(result.sentence_ids))
    if key in cache:
        answer, record.answer_ms = cache[key]
        record.answer_cached = True
    else:
        try:
            answer = engine.answer(result, answerer)
        except GenerationError as exc:
            record.error = str(exc)
            return record, result, None
        record.answer_ms = result.timings_ms.get("answer", 0.0)
        cache[key] = (answer, record.answer_ms)
    record.prediction = answer.text
    record.exact_match = exact_match(record.prediction, item.answers)
    record.sequence_match = sequence_match(record.prediction, item.answers)
    record.rouge_l = round(rouge_l(record.prediction, item.answers), 4)
    record.bertscore = scorer.score(record.prediction, item.answers)
    return record, result, answer


def send_failures_to_audit(engine, run: EvalRun, db, positions: Iterable[int] | None = None) -> list[dict]:
    """Save failed records in the audit database with their gold answers and an automatic diagnosis.

    ``db`` is a :class:`kgcore.audit.AuditDB`; ``positions`` default to all
    failures.  A record whose result was not kept is retrieved and answered
    again (with the run's answerer).  Returns one dict per record: its
    position, the audit ``record_id``, the suggested ``stage`` and ``reason``.
    """
    from .diagnose import diagnose, store_suggestion

    answerers = {m["doc_id"]: m["answerer"] for m in run.meta}
    sent = []
    for pos in run.failures() if positions is None else positions:
        record = run.records[pos]
        result, answer = run.kept.get(pos) or engine.ask(
            record.doc_id, record.question, RetrievalOptions(**record.options), answerers.get(record.doc_id))
        index = engine.index(record.doc_id)
        record_id = db.save_record(result, answer, index.manifest, gold=record.answers)
        diagnosis = diagnose(result, answer, record.answers, index, engine.embedder)
        store_suggestion(db, record_id, diagnosis)
        sent.append({"position": pos, "record_id": record_id, "stage": diagnosis.stage, "reason": diagnosis.reason})
    return sent


# -- summary and output -------------------------------------------------------------
def _mean(values: list[float], scale: float = 1.0) -> float | None:
    return round(scale * statistics.fmean(values), 1) if values else None


def summarize(records: Sequence[EvalRecord], variants: dict[str, str] | None = None) -> list[dict]:
    """One row per (document, setting) in first-seen order; answer metrics and rates ×100.

    >>> r = EvalRecord("d", "none", "none", {}, 1, "q", ["a"], "", "a", 1.0, 1.0, 1.0, 0.9, None, 0.5, retrieval_ms=2, answer_ms=4)
    >>> row = summarize([r, r])[0]
    >>> row["em"], row["bertscore"], row["evidence_hit_rate"], row["answer_token_recall"], row["answer_ms_p50"]
    (100.0, 90.0, None, 50.0, 4.0)
    """
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
            "evidence_hit_rate": _mean(hits, 100), "answer_token_recall": _mean([r.answer_token_recall for r in group], 100),
            "context_sentences": _mean([r.context_sentences for r in group]),
            "context_words": _mean([r.context_words for r in group]), "book_pct": _mean([r.book_pct for r in group]),
            "retrieval_ms_p50": round(statistics.median(r.retrieval_ms for r in group), 1),
            "answer_ms_p50": round(statistics.median(r.answer_ms for r in ok), 1) if ok else None,
        })
    return rows


def write_outputs(run: EvalRun, out_dir: str | Path) -> dict[str, Path]:
    """Write ``results.jsonl``, ``summary.json`` and ``summary.csv`` into ``out_dir``."""
    import json

    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(str(out_dir), f"cannot create the output folder ({exc.strerror})") from None
    paths = {"results": out / "results.jsonl", "summary_json": out / "summary.json", "summary_csv": out / "summary.csv"}
    with paths["results"].open("w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r.to_dict(), ensure_ascii=False) + "\n" for r in run.records)
    summary = {"runs": run.meta, "columns": SUMMARY_COLUMNS, "rows": run.summary}
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


def format_table(rows: Sequence[dict]) -> str:
    """The summary as a fixed-width text table (a document column only when several documents)."""
    docs = len({r["doc_id"] for r in rows}) > 1
    heads = (["Document"] if docs else []) + ["Setting"] + list(SUMMARY_COLUMNS.values())
    body = [([r["doc_id"]] if docs else []) + [r["label"]] + ["-" if r[k] is None else f"{r[k]:g}" for k in SUMMARY_COLUMNS]
            for r in rows]
    widths = [max(len(str(x)) for x in column) for column in zip(heads, *body)]
    line = lambda cells: "  ".join(str(c).ljust(w) if i < len(heads) - len(SUMMARY_COLUMNS) else str(c).rjust(w)  # noqa: E731
                                   for i, (c, w) in enumerate(zip(cells, widths)))
    return "\n".join([line(heads), line(["-" * w for w in widths])] + [line(b) for b in body])


# -- command line --------------------------------------------------------------------
def parse_values(raw: str, convert: Callable[[str], object], flag: str) -> list:
    """Comma-separated values of a command-line flag, converted; a bad piece is an InputError.

    >>> parse_values("5, 10", int, "--k"), parse_values("none,0.2", _tau, "--tau")
    ([5, 10], [None, 0.2])
    >>> parse_values("5,x", int, "--k")
    Traceback (most recent call last):
    ...
    kgcore.errors.InputError: --k: 'x' is not a valid value
    """
    values = []
    for piece in (p.strip() for p in raw.split(",")):
        if not piece:
            continue
        try:
            values.append(convert(piece))
        except ValueError:
            raise InputError(flag, f"{piece!r} is not a valid value") from None
    if not values:
        raise InputError(flag, "needs at least one value")
    return values


def _tau(text: str) -> float | None:
    return None if text.lower() in ("none", "off", "-") else float(text)


def _method(text: str) -> str:
    if text not in METHODS:
        raise InputError("--methods", f"unknown method {text!r} (choose from {', '.join(METHODS)})")
    return text


def cmd_eval(args) -> int:
    from .cli import StderrProgress, _store
    from .embed import get_embedder
    from .engine import QueryEngine

    grid = settings_grid(parse_values(args.methods, _method, "--methods"), parse_values(args.k, int, "--k"),
                         parse_values(args.tau, _tau, "--tau"), parse_values(args.min_count, int, "--min-count"),
                         parse_values(args.budget_words, int, "--budget-words"),
                         parse_values(args.budget_sentences, int, "--budget-sentences"))
    items = load_qa(args.qa)
    if args.limit < 0:
        raise InputError("--limit", "must be 0 (all questions) or positive")
    items = items[: args.limit] if args.limit else items
    engine = QueryEngine(_store(args))
    docs = parse_values(args.doc, str, "--doc")
    for doc_id in docs:
        engine.index(doc_id)  # fail fast on an unknown document
    scorer = BertScorer(get_embedder(args.bertscore_model) if args.bertscore_model else None)
    run = EvalRun.concat(evaluate(engine, d, items, grid, args.answerer, StderrProgress(not args.quiet), scorer,
                                  keep_failures=args.send_failures) for d in docs)
    for meta in run.meta:
        meta["qa_file"] = str(args.qa)
    paths = write_outputs(run, args.out)
    print(format_table(run.summary))
    print(f"BERTScore encoder: {scorer.model_name}; answerer: {run.meta[0]['answerer']}; "
          f"wrote {', '.join(str(p) for p in paths.values())}", file=sys.stderr)
    if args.send_failures:
        from .audit import AuditDB

        sent = send_failures_to_audit(engine, run, AuditDB.for_store(engine.store.root))
        print(f"sent {len(sent)} failures to the audit queue in {engine.store.root}", file=sys.stderr)
    return 0


def add_eval_command(subparsers) -> None:
    """Register ``eval`` on the ``python -m kgcore`` sub-command parser."""
    from .settings import ANSWERERS

    ev = subparsers.add_parser("eval", help="evaluate methods and settings on a QA CSV (paper Tables 1/2)")
    ev.add_argument("--doc", required=True, help="document id; several comma-separated ids evaluate each index")
    ev.add_argument("--qa", required=True, help="CSV with question,answer1[,answer2][,evidence]")
    ev.add_argument("--methods", default=",".join(METHODS), help="comma-separated (default: all)")
    ev.add_argument("--k", default="10", help="comma-separated K values, e.g. 5,10")
    ev.add_argument("--tau", default="none", help="VectorSim thresholds, e.g. none,0.2 (GroundedKG only)")
    ev.add_argument("--min-count", default="1", help="RetCount >= n values, e.g. 1,2 (GroundedKG only)")
    ev.add_argument("--budget-words", default="0", help="word budgets, e.g. 0,1000 (0 = none)")
    ev.add_argument("--budget-sentences", default="0", help="sentence budgets (0 = none)")
    ev.add_argument("--answerer", choices=ANSWERERS, default=None, help="default: openai when configured, else extractive")
    ev.add_argument("--limit", type=int, default=0, help="evaluate only the first N questions (0 = all)")
    ev.add_argument("--bertscore-model", default="", help="local sentence-transformers folder (default: bundled MiniLM)")
    ev.add_argument("--send-failures", action="store_true",
                    help="save failed answers with an automatic diagnosis in the store's audit database")
    ev.add_argument("--out", required=True, help="output folder for results.jsonl, summary.json, summary.csv")
    ev.set_defaults(func=cmd_eval)
