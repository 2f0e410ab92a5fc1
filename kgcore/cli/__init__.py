"""Command line: ``python -m kgcore index|remove|delete|list|show|ask|eval|sentences|cites|overview|audit|doctor``
(and ``entities``).

Exit codes: 0 ok, 2 bad input or configuration, a server that cannot be reached, or a damaged index (the
message names the file or field, the reason and what to do; also when some
documents of an ``index`` call failed while the others were indexed), 1
internal error (also ``eval`` when every answer failed, and ``doctor`` when a check failed).  Progress goes to
stderr, results (JSON) to stdout; third-party warnings and model-loading
bars are silenced so that kgcore's own message is what is printed.
"""

from __future__ import annotations

import argparse
import errno
import json
import logging
import os
import signal
import sys
import warnings

from kgcore.api import (
    ANSWERERS,
    COREF_BACKENDS,
    EMBEDDING_VARIANTS,
    METHODS,
    PARSERS,
    RANKINGS,
    AuditError,
    Cancelled,
    DamagedIndexError,
    IndexMismatchError,
    IndexNotFoundError,
    InputError,
    KgcoreError,
    ModelUnavailableError,
    ServiceUnavailableError,
)
from kgcore.cli.audit import add_audit
from kgcore.cli.commands import cmd_ask, cmd_delete, cmd_index, cmd_jobs, cmd_list, cmd_remove, cmd_show
from kgcore.cli.doctor import add_doctor
from kgcore.cli.entities import add_entities
from kgcore.cli.evaluation import add_eval
from kgcore.cli.overview import add_overview
from kgcore.cli.reading import add_reading

__all__ = ["build_parser", "main"]

#: Bad input or configuration (exit 2); an audit file or database that cannot be used is one.
USER_ERRORS = (InputError, IndexNotFoundError, IndexMismatchError, ModelUnavailableError, DamagedIndexError,
               ServiceUnavailableError, AuditError)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m kgcore", description="GroundedKG indexing and question answering.")
    sub = p.add_subparsers(dest="command", required=True)
    _add_index(sub)
    _add_collection_commands(sub)
    _add_ask(sub)
    add_eval(sub)
    add_reading(sub)
    add_overview(sub)
    add_entities(sub)
    add_audit(sub)
    add_doctor(sub)
    for sp in sub.choices.values():
        sp.add_argument("--store", help="store root (default: $KGCORE_STORE or data/)")
        sp.add_argument("--quiet", action="store_true", help="no progress output on stderr")
    return p


def _add_index(sub) -> None:
    ix = sub.add_parser("index", help="add .txt/.md/.pdf files to a collection (each its own collection without one)")
    ix.add_argument("paths", nargs="+", metavar="FILE")
    ix.add_argument("--collection", help="the collection to add to, created when missing (default: one per file)")
    ix.add_argument("--name", help="document id of a single file (default: from the file name)")
    ix.add_argument("--workers", type=workers_count, default=0,
                    help="processes parsing documents in parallel (default: $KGCORE_WORKERS or one per core)")
    ix.add_argument("--parser", choices=PARSERS, default="srl")
    ix.add_argument("--coref", choices=COREF_BACKENDS, default="heuristic")
    ix.add_argument("--embedding", choices=EMBEDDING_VARIANTS, default="basic")
    ix.add_argument("--narrator", default="auto", metavar="auto|none|NAME",
                    help="who 'I' is in a first-person book: found in the text (auto), off (none), or this name")
    ix.add_argument("--force", action="store_true",
                    help="re-index a document already indexed, or replace one with the same id and other content")
    ix.add_argument("--communities", action="store_true",
                    help="also build the collection's communities and summaries now (as KGCORE_COMMUNITIES_AT_INDEX=1) "
                         "instead of on the first community query")
    ix.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                    help="build the documents on Ray: a Ray started on this machine (--workers CPUs), or the "
                         "cluster at ADDRESS (HOST:PORT of `ray start --head`, ray://HOST:PORT or auto); "
                         "give it after the files or as --ray=ADDRESS")
    ix.set_defaults(func=cmd_index)


def _add_collection_commands(sub) -> None:
    sub.add_parser("list", help="list the collections").set_defaults(func=cmd_list)
    sh = sub.add_parser("show", help="print a collection's manifest: documents, counts, settings")
    sh.add_argument("name", nargs="?", help="the collection (or give --collection)")
    sh.add_argument("--collection")
    sh.set_defaults(func=cmd_show)
    rm = sub.add_parser("remove", help="remove documents from a collection")
    rm.add_argument("doc_ids", nargs="+", metavar="DOC_ID")
    rm.add_argument("--collection", required=True)
    rm.set_defaults(func=cmd_remove)
    de = sub.add_parser("delete", help="delete a whole collection")
    de.add_argument("--collection", required=True)
    de.set_defaults(func=cmd_delete)
    jb = sub.add_parser("jobs", help="the app's background indexing jobs (one JSON line each), or cancel one")
    jb.add_argument("--cancel", metavar="JOB_ID", help="cancel this job (a running one stops within seconds)")
    jb.set_defaults(func=cmd_jobs)


def _add_ask(sub) -> None:
    ask = sub.add_parser("ask", help="answer a question (or a file of questions) from a collection")
    ask.add_argument("question", nargs="*")
    ask.add_argument("--collection", help="the collection to ask")
    ask.add_argument("--chroma", action="store_true",
                     help="search the collection's Chroma copy (nodes, community summaries) instead of exact search "
                          "over the stored vectors (the same results; built first when missing)")
    ask.add_argument("--doc", help="the older name of --collection (a one-document collection)")
    ask.add_argument("--documents", help="comma-separated document ids: retrieve only from these")
    ask.add_argument("--front-matter", action="store_true", help="let title pages, contents and headings in")
    ask.add_argument("--no-respell", dest="respell", action="store_false",
                     help="ask misspelt names as written (by default a word the collection never writes is read in "
                          "its nearest spelling, and the notes say so)")
    ask.add_argument("--method", choices=METHODS, default="groundedkg")
    ask.add_argument("--ranking", choices=RANKINGS, default="fused",
                     help="groundedkg under a budget: fused (LeSeGR-style) or graph-score (the earlier ranking)")
    ask.add_argument("--k", type=positive_int, default=10)
    ask.add_argument("--tau", type=float, default=None, help="VectorSim filter threshold")
    ask.add_argument("--min-count", type=positive_int, default=1,
                     help="RetCount filter: keep sentences retrieved by >= N nodes")
    ask.add_argument("--budget-sentences", type=count, default=0)
    ask.add_argument("--budget-words", type=count, default=None,
                     help="context words (default: KGCORE_BUDGET_WORDS, 1000, as the app; none when only "
                          "--budget-sentences is given); 0 = the paper's unbudgeted union")
    ask.add_argument("--answerer", choices=ANSWERERS, default=None,
                     help="default: openai when configured, else extractive")
    ask.add_argument("--questions", help="CSV with a question column, or one question per line; JSONL output")
    ask.add_argument("--shards", type=int, default=0, metavar="N",
                     help="serve the collection from N Ray actors, each holding some of its documents: dense, "
                          "bm25 and hybrid give one process's sentences; groundedkg and lesegr come close where "
                          "entities cross shards (docs/architecture.md); answerers extractive and openai")
    ask.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                     help="with --shards: a Ray started on this machine (the default), or the cluster at ADDRESS "
                          "(HOST:PORT, ray://HOST:PORT or auto) whose nodes mount the store at the same path")
    ask.add_argument("--diagnose", action="store_true",
                     help="also suggest the failing stage (I graph construction, II retrieval, III answer "
                          "generation, or correct) from the verdict and the retrieval's signals: a guess without a "
                          "gold answer")
    ask.add_argument("--gold", action="append", metavar="ANSWER",
                     help="the answer the question should have had (repeat for several): diagnose against it, "
                          "finding its evidence in the collection")
    ask.add_argument("--json", action="store_true")
    ask.set_defaults(func=cmd_ask)


def quiet_third_parties() -> None:
    """No third-party warning or model-loading bar prints before (or instead of) kgcore's own message
    (``-W``/``PYTHONWARNINGS`` still choose warnings)."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    if not sys.warnoptions:
        warnings.simplefilter("ignore")
        warnings.filterwarnings("default", module=r"kgcore(\.|$)")
    for name in ("pypdf", "pdfminer"):  # "EOF marker not found" for a PDF kgcore refuses in its own words anyway
        logging.getLogger(name).setLevel(logging.ERROR)


def _whole_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None


def count(text: str) -> int:
    """An argparse type: a whole number, 0 or more (a budget; 0 = none).

    >>> count("200"), count("0")
    (200, 0)
    >>> count("-5")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be 0 (none) or a positive whole number, got -5
    """
    if (value := _whole_number(text)) < 0:
        raise argparse.ArgumentTypeError(f"must be 0 (none) or a positive whole number, got {value}")
    return value


def workers_count(text: str) -> int:
    """An argparse type for ``--workers``: 0 (one process per core) or more.

    >>> workers_count("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be 0 (one process per core) or a positive whole number, got -1
    """
    if (value := _whole_number(text)) < 0:
        raise argparse.ArgumentTypeError(f"must be 0 (one process per core) or a positive whole number, got {value}")
    return value


def positive_int(text: str) -> int:
    """An argparse type: a whole number, 1 or more (``--k``, ``--min-count``).

    >>> positive_int("3")
    3
    >>> positive_int("-3")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a whole number of 1 or more, got -3
    """
    if (value := _whole_number(text)) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of 1 or more, got {value}")
    return value


class _Parser(argparse.ArgumentParser):
    """argparse's parser, keeping its last error message (its subcommands' parsers are of this class too), so that
    a command asked for ``--json`` can say it in JSON as well."""

    last_error = ""

    def error(self, message: str):
        _Parser.last_error = message
        super().error(message)


def main(argv: list[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else list(argv)
    try:
        args = build_parser().parse_args(given)
    except SystemExit as exc:  # argparse said why on stderr; with --json, say it on stdout too
        if exc.code == 2 and "--json" in given:
            print(json.dumps({"error": _Parser.last_error, "field": None, "exit_code": 2}), flush=True)
        raise
    quiet_third_parties()
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        return args.func(args)
    except Cancelled as exc:  # SIGTERM: workers killed, staging removed, locks released, nothing committed
        return _failed(args, f"stopped ({exc.reason}); nothing of the unfinished work was kept", 1)
    except USER_ERRORS as exc:
        return _failed(args, str(exc), 2, getattr(exc, "where", None))
    except KgcoreError as exc:
        return _failed(args, str(exc), 1)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 1
    except BrokenPipeError:  # "| head" closed the output: stop quietly, as other command-line tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as exc:
        if exc.errno not in STORAGE_ERRORS:
            return _failed(args, f"{type(exc).__name__}: {exc}", 1, said="internal error")
        return _failed(args, storage_message(exc), 2, exc.filename)
    except Exception as exc:  # noqa: BLE001 - last resort: one line, exit 1, never a traceback dump
        return _failed(args, f"{type(exc).__name__}: {exc}", 1, said="internal error")
    finally:
        signal.signal(signal.SIGTERM, previous)


#: What the place written to lacks, not what kgcore got wrong: no room, read-only, not allowed, over quota.
STORAGE_ERRORS = {errno.ENOSPC: "no space left on the device: free some room there",
                  errno.EDQUOT: "the disk quota is used up: free some room there",
                  errno.EROFS: "the file system is read-only: write somewhere else (--store, --out)",
                  errno.EACCES: "permission denied: this user may not read or write it",
                  errno.EPERM: "operation not permitted: this user may not read or write it"}


def storage_message(exc: OSError) -> str:
    """The file (or the output, when the error names none) and what to do, for an error of the place read or
    written (:data:`STORAGE_ERRORS`); nothing that was committed before is lost (a collection is replaced whole,
    or not at all).

    >>> print(storage_message(OSError(errno.ENOSPC, "No space left on device", "/s/x")))
    /s/x: no space left on the device: free some room there (nothing committed before was changed)
    >>> print(storage_message(OSError(errno.ENOSPC, "No space left on device")))
    the output: no space left on the device: free some room there (nothing committed before was changed)
    """
    where = exc.filename or "the output"
    return f"{where}: {STORAGE_ERRORS.get(exc.errno or 0, exc.strerror)} (nothing committed before was changed)"


def _failed(args: argparse.Namespace, message: str, code: int, where: str | None = None, said: str = "error") -> int:
    """Say why a command failed on stderr (after ``said``), and with ``--json`` also as one JSON object on stdout
    (``error``, the ``field`` or file it names, ``exit_code``), so that a caller reading the JSON learns why;
    return ``code``."""
    print(f"{said}: {message}", file=sys.stderr)
    if getattr(args, "json", False):
        print(json.dumps({"error": message, "field": where, "exit_code": code}, ensure_ascii=False), flush=True)
    return code


def _stop(number: int, _frame) -> None:
    """SIGTERM unwinds the command like Ctrl-C does (every ``finally`` on the way cleans up), once."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise Cancelled(f"stopped by {signal.Signals(number).name}")
