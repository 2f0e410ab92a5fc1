"""``python -m kgcore eval``: a settings grid over a QA CSV, written as JSONL, JSON and CSV."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kgcore.api import (
    ANSWERERS,
    METHODS,
    PROMPT_VERSION,
    AuditDB,
    BertScorer,
    EvalRun,
    InputError,
    Judge,
    JudgeCache,
    KgcoreError,
    QueryEngine,
    evaluate,
    format_table,
    get_embedder,
    judge_unavailable,
    load_qa,
    parse_method,
    parse_tau,
    parse_values,
    send_failures_to_audit,
    settings_grid,
    write_outputs,
)
from kgcore.cli.commands import _collection, _store
from kgcore.cli.progress import StderrProgress


def cmd_eval(args: argparse.Namespace) -> int:
    grid = settings_grid(parse_values(args.methods, parse_method, "--methods"), parse_values(args.k, int, "--k"),
                         parse_values(args.tau, parse_tau, "--tau"), parse_values(args.min_count, int, "--min-count"),
                         parse_values(args.budget_words, int, "--budget-words"),
                         parse_values(args.budget_sentences, int, "--budget-sentences"))
    items = load_qa(args.qa)
    if args.limit < 0:
        raise InputError("--limit", "must be 0 (all questions) or positive")
    items = items[: args.limit] if args.limit else items
    engine = QueryEngine(_store(args))
    docs = parse_values(_collection(args), str, "--collection")
    for doc_id in docs:
        engine.index(doc_id)  # fail fast on an unknown document
    scorer = BertScorer(_bertscore_model(args.bertscore_model) if args.bertscore_model else None)
    judge = _judge(engine) if args.judge else None
    run = EvalRun.concat(evaluate(engine, d, items, grid, args.answerer, StderrProgress(not args.quiet), scorer,
                                  keep_failures=args.send_failures, judge=judge) for d in docs)
    for meta in run.meta:
        meta["qa_file"] = str(args.qa)
    paths = write_outputs(run, args.out)
    print(format_table(run.summary))
    print(f"BERTScore encoder: {scorer.model_name}; answerer: {run.meta[0]['answerer']}; "
          f"wrote {', '.join(str(p) for p in paths.values())}", file=sys.stderr)
    if judge is not None and not _report_judge(run, judge):
        return 1
    errors = [r.error for r in run.records if r.error]
    if args.send_failures:
        sent = send_failures_to_audit(engine, run, AuditDB.for_store(engine.store.root))
        skipped = f" ({len(errors)} answers that failed with an error were not sent)" if errors else ""
        print(f"sent {len(sent)} failures to the audit queue in {engine.store.root}{skipped}", file=sys.stderr)
    if errors and len(errors) == len(run.records):
        print(f"error: every answer failed ({len(errors)} of {len(run.records)}), e.g. {errors[0]}", file=sys.stderr)
        return 1
    if errors:
        print(f"warning: {len(errors)} of {len(run.records)} answers failed, e.g. {errors[0]}", file=sys.stderr)
    return 0


def _judge(engine: QueryEngine) -> Judge:
    """The LLM judge with its cache in the store's folder; exit 2 naming what to set when none is configured."""
    reason = judge_unavailable(engine.settings)
    if reason:
        raise InputError("--judge", reason)
    return Judge(engine.settings, JudgeCache.for_store(engine.store.root))


def _report_judge(run: EvalRun, judge: Judge) -> bool:
    """Print the judge's tally; False (an error printed) when every judge call failed."""
    scores = [r.judge for r in run.records if r.judge is not None]
    failed = [s for s in scores if not s["ok"]]
    cached = sum(1 for s in scores if s["cached"])
    print(f"judge {judge.model} ({PROMPT_VERSION}): {len(scores) - len(failed)} of {len(scores)} answers scored, "
          f"{cached} from the cache {judge.cache.path if judge.cache else ''}, {len(failed)} failed", file=sys.stderr)
    if scores and len(failed) == len(scores):
        print(f"error: every judge call failed ({len(failed)} of {len(scores)}), e.g. {failed[0]['error']}",
              file=sys.stderr)
        return False
    if failed:
        print(f"warning: {len(failed)} judge calls failed (not scored, not counted), e.g. {failed[0]['error']}",
              file=sys.stderr)
    return True


def add_eval(sub) -> None:
    ev = sub.add_parser("eval", help="evaluate methods and settings on a QA CSV (paper Tables 1/2)")
    ev.add_argument("--collection", help="collection; several comma-separated names evaluate each")
    ev.add_argument("--doc", help="the older name of --collection")
    ev.add_argument("--qa", required=True, help="CSV with question,answer1[,answer2][,evidence]")
    ev.add_argument("--methods", default=",".join(METHODS), help="comma-separated (default: all)")
    ev.add_argument("--k", default="10", help="comma-separated K values, e.g. 5,10")
    ev.add_argument("--tau", default="none", help="VectorSim thresholds, e.g. none,0.2 (GroundedKG only)")
    ev.add_argument("--min-count", default="1", help="RetCount >= n values, e.g. 1,2 (GroundedKG only)")
    ev.add_argument("--budget-words", default="0", help="word budgets, e.g. 0,1000 (0 = none)")
    ev.add_argument("--budget-sentences", default="0", help="sentence budgets (0 = none)")
    ev.add_argument("--answerer", choices=ANSWERERS, default=None,
                    help="default: openai when configured, else extractive")
    ev.add_argument("--limit", type=int, default=0, help="evaluate only the first N questions (0 = all)")
    ev.add_argument("--bertscore-model", default="",
                    help="local sentence-transformers folder (default: bundled MiniLM)")
    ev.add_argument("--send-failures", action="store_true",
                    help="save failed answers with an automatic diagnosis in the store's audit database")
    ev.add_argument("--judge", action="store_true",
                    help="also score every answer 1-5 for relevance, correctness and completeness with the LLM judge "
                         "(KGCORE_JUDGE_MODEL / KGCORE_JUDGE_BASE_URL, else the answerer's endpoint); cached in "
                         "<store>/judge_cache.sqlite")
    ev.add_argument("--out", required=True, help="output folder for results.jsonl, summary.json, summary.csv")
    ev.set_defaults(func=cmd_eval)


def _bertscore_model(folder: str):
    """The embedder of ``--bertscore-model``: a local sentence-transformers folder, named as that flag when it is
    missing or not such a model (the embedding setting is not what the user gave)."""
    if not Path(folder).is_dir():
        raise InputError("--bertscore-model", f"{folder!r} is not a folder (give a local sentence-transformers model)")
    try:
        return get_embedder(folder, "cpu", "torch")
    except (ValueError, OSError, KgcoreError) as exc:
        raise InputError("--bertscore-model", f"{folder!r} holds no sentence-transformers model it can load "
                                              f"({str(exc).splitlines()[0][:200]})") from None

