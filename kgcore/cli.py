"""Command line: ``python -m kgcore index|list|show|ask|eval``.

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

from .errors import IndexMismatchError, IndexNotFoundError, InputError, KgcoreError, ModelUnavailableError
from .settings import ANSWERERS, COREF_BACKENDS, EMBEDDING_VARIANTS, METHODS, PARSERS, IndexOptions, RetrievalOptions, Settings
from .store import Store

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


def _store(args) -> Store:
    return Store(Path(args.store) if args.store else Settings.from_env().store_root)


def cmd_index(args) -> int:
    from .pipeline import index_file

    settings = Settings.from_env()
    options = IndexOptions(parser=args.parser, coref=args.coref, embedding=args.embedding, narrator=args.narrator)
    manifest = index_file(args.path, _store(args), options, settings, name=args.name, force=args.force,
                          progress=StderrProgress(not args.quiet))
    counts = manifest["counts"]
    summary = {"doc_id": manifest["doc_id"], "sentences": counts["sentences"], "nodes": counts["nodes"],
               "narrator": (manifest.get("narrator") or {}).get("name") or None,
               "edges": counts["edges"], "seconds": manifest.get("seconds"), "reused": manifest.get("reused", False)}
    print(json.dumps(summary))
    return 0


def cmd_list(args) -> int:
    print(json.dumps(_store(args).list(), indent=1))
    return 0


def cmd_show(args) -> int:
    print(json.dumps(_store(args).manifest(args.doc_id), indent=1))
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


def cmd_ask(args) -> int:
    from .engine import QueryEngine, result_to_json

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


def _print_human(result, answer) -> None:
    print(f"Q: {result.question}\nA: {answer.text}   [{answer.generator}]")
    for c in answer.citations:
        print(f"   cites {', '.join(c.sentence_ids) or 'nothing (unsupported)'}")
    print(f"\nContext ({len(result.sentences)} sentences, {result.context_words} words, method {result.method}):")
    for s in result.sentences:
        print(f"  [{s.id}] {s.text}")
    print(f"\nTimings (ms): {json.dumps(result.timings_ms)}")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m kgcore", description="GroundedKG indexing and question answering.")
    sub = p.add_subparsers(dest="command", required=True)

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

    sub.add_parser("list", help="list indexed documents").set_defaults(func=cmd_list)
    sh = sub.add_parser("show", help="print one index manifest")
    sh.add_argument("doc_id")
    sh.set_defaults(func=cmd_show)

    ask = sub.add_parser("ask", help="answer a question (or a file of questions) from an index")
    ask.add_argument("question", nargs="*")
    ask.add_argument("--doc", required=True)
    ask.add_argument("--method", choices=METHODS, default="groundedkg")
    ask.add_argument("--k", type=int, default=10)
    ask.add_argument("--tau", type=float, default=None, help="VectorSim filter threshold")
    ask.add_argument("--min-count", type=int, default=1, help="RetCount filter: keep sentences retrieved by >= N nodes")
    ask.add_argument("--budget-sentences", type=int, default=0)
    ask.add_argument("--budget-words", type=int, default=0, help="0 = the paper's unbudgeted union")
    ask.add_argument("--answerer", choices=ANSWERERS, default=None, help="default: openai when configured, else extractive")
    ask.add_argument("--questions", help="CSV with a question column, or one question per line; JSONL output")
    ask.add_argument("--json", action="store_true")
    ask.set_defaults(func=cmd_ask)

    try:
        from .evaluate import add_eval_command
    except ImportError:  # evaluation harness not installed in this build
        pass
    else:
        add_eval_command(sub)

    for sp in sub.choices.values():
        sp.add_argument("--store", help="store root (default: $KGCORE_STORE or data/)")
        sp.add_argument("--quiet", action="store_true", help="no progress output on stderr")
    return p


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
