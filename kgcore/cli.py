"""Command line: ``python -m kgcore index|list|show|ask|eval``, every subcommand in one place.

Exit codes: 0 ok, 2 bad input or configuration (the message names the file
or field and the reason), 1 internal error.  Progress goes to stderr, results
(JSON) to stdout.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

from kgcore.audit import AuditDB, send_failures_to_audit
from kgcore.core.errors import IndexMismatchError, IndexNotFoundError, InputError, KgcoreError, ModelUnavailableError
from kgcore.core.settings import (
    ANSWERERS,
    COREF_BACKENDS,
    EMBEDDING_VARIANTS,
    METHODS,
    PARSERS,
    IndexOptions,
    RetrievalOptions,
    Settings,
)
from kgcore.core.types import Answer, QueryResult
from kgcore.evaluate import BertScorer, EvalRun, evaluate, format_table, load_qa, settings_grid, write_outputs
from kgcore.evaluate.grid import parse_method, parse_tau, parse_values
from kgcore.index.embed import get_embedder
from kgcore.index.pipeline import index_file
from kgcore.index.store import Store
from kgcore.query.engine import QueryEngine, result_to_json

USER_ERRORS = (InputError, IndexNotFoundError, IndexMismatchError, ModelUnavailableError)


class StderrProgress:
    """A one-line progress bar per stage on stderr (silent when not a terminal unless forced)."""

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.current = None
        self.started = time.perf_counter()

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        width = 24
        filled = int(width * done / max(total, 1))
        elapsed = time.perf_counter() - self.started
        sys.stderr.write(f"\r{stage:<6} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} {elapsed:6.1f}s")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _store(args: argparse.Namespace) -> Store:
    return Store(Path(args.store) if args.store else Settings.from_env().store_root)


def cmd_index(args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    options = IndexOptions(parser=args.parser, coref=args.coref, embedding=args.embedding, narrator=args.narrator)
    outcome = index_file(args.path, _store(args), options, settings, name=args.name, force=args.force,
                         progress=StderrProgress(not args.quiet))
    print(json.dumps(outcome.summary()))
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    print(json.dumps([m.to_dict() for m in _store(args).list()], indent=1))
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    print(json.dumps(_store(args).manifest(args.doc_id).to_dict(), indent=1))
    return 0


def read_questions(path: str) -> list[str]:
    """Questions from a CSV with a ``question`` column, or one question per line."""
    file = Path(path)
    if not file.is_file():
        raise InputError(path, "file not found")
    try:
        text = file.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(path, "is not UTF-8 text") from None
    first = text.splitlines()[0] if text.strip() else ""
    if "question" in [c.strip().lower() for c in next(csv.reader([first]), [])]:
        rows = list(csv.DictReader(text.splitlines()))
        key = next(k for k in rows[0] if k and k.strip().lower() == "question") if rows else "question"
        questions = [(r.get(key) or "").strip() for r in rows]
    else:
        questions = [line.strip() for line in text.splitlines()]
    questions = [q for q in questions if q]
    if not questions:
        raise InputError(path, "contains no questions")
    return questions


def cmd_ask(args: argparse.Namespace) -> int:
    if not args.question and not args.questions:
        raise InputError("question", "give a QUESTION or --questions FILE")
    options = RetrievalOptions(method=args.method, k=args.k, tau=args.tau, min_count=args.min_count,
                               budget_sentences=args.budget_sentences, budget_words=args.budget_words)
    engine = QueryEngine(_store(args))
    engine.index(args.doc)  # fail fast on an unknown document before parsing the questions
    questions = read_questions(args.questions) if args.questions else [" ".join(args.question)]
    for i, question in enumerate(questions):
        result, answer = engine.ask(args.doc, question, options, args.answerer)
        if args.json or args.questions:
            print(json.dumps(result_to_json(result, answer), ensure_ascii=False), flush=True)
        else:
            _print_human(result, answer)
        if args.questions:
            StderrProgress(not args.quiet)("ask", i + 1, len(questions))
    return 0


def _print_human(result: QueryResult, answer: Answer) -> None:
    print(f"Q: {result.question}\nA: {answer.text}   [{answer.generator}]")
    for c in answer.citations:
        print(f"   cites {', '.join(c.sentence_ids) or 'nothing (unsupported)'}")
    print(f"\nContext ({len(result.sentences)} sentences, {result.context_words} words, method {result.method}):")
    for s in result.sentences:
        print(f"  [{s.id}] {s.text}")
    print(f"\nTimings (ms): {json.dumps(result.timings_ms)}")


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
        sent = send_failures_to_audit(engine, run, AuditDB.for_store(engine.store.root))
        print(f"sent {len(sent)} failures to the audit queue in {engine.store.root}", file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m kgcore", description="GroundedKG indexing and question answering.")
    sub = p.add_subparsers(dest="command", required=True)
    _add_index(sub)
    sub.add_parser("list", help="list indexed documents").set_defaults(func=cmd_list)
    sh = sub.add_parser("show", help="print one index manifest")
    sh.add_argument("doc_id")
    sh.set_defaults(func=cmd_show)
    _add_ask(sub)
    _add_eval(sub)
    for sp in sub.choices.values():
        sp.add_argument("--store", help="store root (default: $KGCORE_STORE or data/)")
        sp.add_argument("--quiet", action="store_true", help="no progress output on stderr")
    return p


def _add_index(sub) -> None:
    ix = sub.add_parser("index", help="index a .txt/.md/.pdf file")
    ix.add_argument("path")
    ix.add_argument("--name", help="document id (default: from the file name)")
    ix.add_argument("--parser", choices=PARSERS, default="srl")
    ix.add_argument("--coref", choices=COREF_BACKENDS, default="heuristic")
    ix.add_argument("--embedding", choices=EMBEDDING_VARIANTS, default="basic")
    ix.add_argument("--narrator", default="auto", metavar="auto|none|NAME",
                    help="who 'I' is in a first-person book: found in the text (auto), off (none), or this name")
    ix.add_argument("--force", action="store_true", help="re-index even if the same file and settings are indexed")
    ix.set_defaults(func=cmd_index)


def _add_ask(sub) -> None:
    ask = sub.add_parser("ask", help="answer a question (or a file of questions) from an index")
    ask.add_argument("question", nargs="*")
    ask.add_argument("--doc", required=True)
    ask.add_argument("--method", choices=METHODS, default="groundedkg")
    ask.add_argument("--k", type=int, default=10)
    ask.add_argument("--tau", type=float, default=None, help="VectorSim filter threshold")
    ask.add_argument("--min-count", type=int, default=1, help="RetCount filter: keep sentences retrieved by >= N nodes")
    ask.add_argument("--budget-sentences", type=int, default=0)
    ask.add_argument("--budget-words", type=int, default=0, help="0 = the paper's unbudgeted union")
    ask.add_argument("--answerer", choices=ANSWERERS, default=None,
                     help="default: openai when configured, else extractive")
    ask.add_argument("--questions", help="CSV with a question column, or one question per line; JSONL output")
    ask.add_argument("--json", action="store_true")
    ask.set_defaults(func=cmd_ask)


def _add_eval(sub) -> None:
    ev = sub.add_parser("eval", help="evaluate methods and settings on a QA CSV (paper Tables 1/2)")
    ev.add_argument("--doc", required=True, help="document id; several comma-separated ids evaluate each index")
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
    ev.add_argument("--out", required=True, help="output folder for results.jsonl, summary.json, summary.csv")
    ev.set_defaults(func=cmd_eval)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except USER_ERRORS as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KgcoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - last resort: one line, exit 1, never a traceback dump
        print(f"internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
