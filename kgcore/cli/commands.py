"""The document and question subcommands: index, remove, delete, list, show, ask."""

from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from kgcore.api import (
    SHARDED_GRAPH,
    Answer,
    CollectionManifest,
    Diagnosis,
    IndexOptions,
    InputError,
    Job,
    JobQueue,
    QueryEngine,
    QueryResult,
    RayRunner,
    RetrievalOptions,
    Settings,
    ShardedEngine,
    Store,
    check_answerer,
    check_documents,
    check_served_answerer,
    check_served_method,
    decode_text,
    diagnose,
    diagnose_without_gold,
    index_files,
    parse_values,
    remove_documents,
    result_to_json,
    stuck,
    validate_question,
)
from kgcore.cli.progress import DocumentStderrProgress, StderrProgress


def _store(args: argparse.Namespace) -> Store:
    return Store(Path(args.store) if args.store else Settings.from_env().store_root)


#: More index worker processes than this per core only add copies of the models (each loads spaCy and MiniLM).
MAX_WORKERS_PER_CORE = 4


def cmd_index(args: argparse.Namespace) -> int:
    """Add files to a collection (or each to its own); one JSON line per document, then one per collection."""
    settings = Settings.from_env()
    if args.communities:
        settings = dataclasses.replace(settings, communities_at_index=True)
    options = IndexOptions(parser=args.parser, coref=args.coref, embedding=args.embedding, narrator=args.narrator)
    if args.name and len(args.paths) > 1:
        raise InputError("--name", "names one document; give it with a single file")
    jobs = [Job(Path(p).name, Path(p), name=args.name) for p in args.paths]
    progress = DocumentStderrProgress(not args.quiet, several=len(jobs) > 1)
    workers = args.workers or settings.workers or None
    if workers and not args.ray and workers > MAX_WORKERS_PER_CORE * (os.cpu_count() or 1):
        raise InputError("--workers" if args.workers else "KGCORE_WORKERS",
                         f"{workers} processes on {os.cpu_count() or 1} cores would each load the models (about "
                         f"0.5 GB each); give at most {MAX_WORKERS_PER_CORE} per core")
    ray = RayRunner(args.ray, workers or 0, settings) if args.ray else contextlib.nullcontext()
    with ray as runner:  # --ray: the documents are built on Ray, then linked here as without it
        outcomes = index_files(jobs, _store(args), args.collection, options, settings, workers, args.force, progress,
                               runner, _say_refused if len(jobs) > 1 else None)
    for outcome in outcomes:
        for line in outcome.document_lines():
            print(json.dumps(line, ensure_ascii=False))
        print(json.dumps(outcome.summary(), ensure_ascii=False))
    for outcome in outcomes:
        for filename, reason in outcome.failed:
            print(f"error: {filename}: {reason.removeprefix(filename + ': ')}", file=sys.stderr)
        for note in outcome.notes:
            print(f"warning: {outcome.name}: {note}", file=sys.stderr)
    return 2 if any(o.failed for o in outcomes) else 0


def _say_refused(filename: str, reason: str) -> None:
    """A file of a batch refused before any parsing, said at once (the others are indexed; the summary and the
    ``error:`` lines at the end repeat it); a single file's refusal is said once, at the end."""
    print(f"refused: {filename}: {reason.removeprefix(filename + ': ')} (the other files go on)", file=sys.stderr,
          flush=True)


def cmd_remove(args: argparse.Namespace) -> int:
    manifest = remove_documents(_store(args), args.collection, args.doc_ids)
    print(json.dumps({"collection": manifest.name, "removed": args.doc_ids, "documents": list(manifest.doc_ids),
                      "sentences": manifest.counts.sentences, "nodes": manifest.counts.nodes,
                      "edges": manifest.counts.edges}))
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    _store(args).delete(args.collection)
    print(json.dumps({"deleted": args.collection}))
    return 0


def cmd_jobs(args: argparse.Namespace) -> int:
    """The store's background indexing jobs, newest first, one JSON line each; ``--cancel ID`` cancels one."""
    settings = Settings.from_env()
    queue = JobQueue(_store(args).root, settings)
    if args.cancel:
        job = queue.cancel(args.cancel, "cancelled from the command line")
        print(json.dumps({"job": job.id, "state": job.state, "cancel": "requested" if job.state == "running"
                          else "done"}))
        return 0
    now = time.time()
    for job in queue.jobs():
        print(json.dumps({"job": job.id, "state": job.state, "collection": job.collection, "files": job.filenames,
                          "owner": job.owner, "where": job.where(), "seconds": round(job.elapsed(now), 1),
                          "stuck": stuck(job, now, settings.job_stuck_s), "error": job.error or None},
                         ensure_ascii=False))
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    """The collections as JSON; a damaged one is listed with ``"damaged"`` (why, and what to do)."""
    print(json.dumps([_listing(m) for m in _store(args).list()], indent=1, ensure_ascii=False))
    return 0


def _listing(m: CollectionManifest) -> dict:
    if m.damaged:
        return {"collection": m.name, "damaged": m.damaged}
    counts = {("document_count" if k == "documents" else k): v for k, v in m.to_dict()["counts"].items()}
    return {"collection": m.name, "documents": list(m.doc_ids), **counts, "options": m.options.to_dict(),
            "updated_at": m.updated_at}


def cmd_show(args: argparse.Namespace) -> int:
    name = args.collection or args.name
    if not name:
        raise InputError("--collection", "name the collection to show")
    print(json.dumps(_store(args).manifest(name).to_dict(), indent=1, ensure_ascii=False))
    return 0


def read_questions(path: str, settings: Settings | None = None) -> list[str]:
    """Questions from a CSV with a ``question`` column, or one question per line (UTF-8, UTF-16 or cp1252).

    Every question is checked before any is answered; a bad one is refused naming its line.
    """
    settings = settings or Settings.from_env()
    file = Path(path)
    if file.is_dir():
        raise InputError(path, "is a directory, not a file")
    if not file.is_file():
        raise InputError(path, "file not found")
    settings.check_limit(path, "max_file_mb", file.stat().st_size / 2**20)
    lines = decode_text(file.read_bytes(), path).splitlines()
    header = [c.strip().lower() for c in next(csv.reader(lines[:1]), [])]
    if file.suffix.lower() == ".csv" and "question" not in header:
        raise InputError(path, f"a CSV needs a 'question' column; its header is {', '.join(header) or 'empty'} "
                               "(or give one question per line in a .txt file); nothing was asked")
    if "question" in header:
        reader = csv.DictReader(lines)
        key = next(k for k in reader.fieldnames or [] if k and k.strip().lower() == "question")
        numbered = [(reader.line_num, row.get(key) or "") for row in reader]  # line_num: the row's last line
    else:
        numbered = list(enumerate(lines, start=1))
    numbered = [(n, q) for n, q in numbered if q.strip()]
    if not numbered:
        raise InputError(path, "contains no questions")
    settings.check_limit(path, "max_batch", len(numbered))
    questions = []
    for number, question in numbered:
        try:
            questions.append(validate_question(question, settings.max_question_chars))
        except InputError as exc:
            raise InputError(f"{path} line {number}", f"{exc}; nothing was asked") from None
    return questions


def _collection(args: argparse.Namespace) -> str:
    """The collection an ``ask``/``eval`` names (``--doc`` is the older name of ``--collection``)."""
    if args.collection and args.doc and args.collection != args.doc:
        raise InputError("--doc", f"is an alias of --collection; {args.doc!r} and {args.collection!r} differ")
    name = args.collection or args.doc
    if not name:
        raise InputError("--collection", "name the collection to ask (python -m kgcore list shows them)")
    return name


def ask_budget_words(args: argparse.Namespace, settings: Settings) -> int:
    """``--budget-words`` when given; else none when only ``--budget-sentences`` is given, else the settings' budget.

    >>> s = Settings(budget_words=1000)
    >>> [ask_budget_words(argparse.Namespace(budget_words=w, budget_sentences=n), s)
    ...  for w, n in ((None, 0), (0, 0), (300, 5), (None, 5))]
    [1000, 0, 300, 0]
    """
    if args.budget_words is not None:
        return args.budget_words
    return 0 if args.budget_sentences else settings.budget_words


def cmd_ask(args: argparse.Namespace) -> int:
    if not args.question and not args.questions:
        raise InputError("question", "give a QUESTION or --questions FILE")
    documents = tuple(parse_values(args.documents, str, "--documents")) if args.documents else ()
    settings = Settings.from_env()
    options = RetrievalOptions(method=args.method, k=args.k, tau=args.tau, min_count=args.min_count,
                               budget_sentences=args.budget_sentences, budget_words=ask_budget_words(args, settings),
                               documents=documents, front_matter=args.front_matter, ranking=args.ranking,
                               respell=args.respell)
    questions = read_questions(args.questions, settings) if args.questions else [
        validate_question(" ".join(args.question), settings.max_question_chars)]
    if args.answerer:  # say what to set before seconds of loading, not after
        check_answerer(args.answerer, settings)
    _check_gold(args)
    with _asker(args, options, settings) as ask:
        _ask_each(args, questions, ask)
    return 0


def _check_gold(args: argparse.Namespace) -> None:
    """``--gold`` diagnoses one question against the whole collection: not a file of them, not from shards."""
    if args.gold is None:
        return
    args.gold = [g.strip() for g in args.gold if g.strip()]
    if not args.gold:
        raise InputError("--gold", "is empty: give the answer the question should have had")
    if args.questions:
        raise InputError("--gold", "diagnoses one question; for a file of questions with gold answers use eval "
                                   "--send-failures")
    if args.shards:
        raise InputError("--gold", "finds the gold answer's evidence in the whole collection: leave out --shards "
                                   "(--diagnose works with shards)")


@contextlib.contextmanager
def _asker(args: argparse.Namespace, options: RetrievalOptions, settings: Settings) -> Iterator[Callable]:
    """``ask(question) -> (result, answer)`` from one process, or with ``--shards N`` from a collection served by N
    Ray actors (ended when the questions are done)."""
    collection, store = _collection(args), _store(args)
    if not args.shards:
        if args.ray is not None:
            raise InputError("--ray", "serves a collection from shards: give --shards N with it")
        engine = QueryEngine(store, settings)
        engine.index(collection).sentence_scope(options.documents)  # fail fast on an unknown collection or document

        def ask_one(question: str) -> tuple[QueryResult, Answer, Diagnosis | None]:
            result, answer = engine.ask(collection, question, options, args.answerer, args.chroma)
            if args.gold:
                return result, answer, diagnose(result, answer, args.gold, engine.index(collection), engine.embedder)
            return result, answer, diagnose_without_gold(result, answer) if args.diagnose else None
        yield ask_one
        return
    _check_sharded(args, options, store, collection)
    with ShardedEngine(store, collection, args.shards, args.ray or "local", settings,
                       graph=options.method in SHARDED_GRAPH) as sharded:
        def ask(question: str) -> tuple[QueryResult, Answer, Diagnosis | None]:
            result = sharded.retrieve(question, options)
            answer = sharded.answer(result, args.answerer)
            return result, answer, diagnose_without_gold(result, answer) if args.diagnose else None
        yield ask


def _check_sharded(args: argparse.Namespace, options: RetrievalOptions, store: Store, collection: str) -> None:
    """What ``--shards`` cannot serve, named before any actor starts."""
    if args.shards < 1:
        raise InputError("--shards", f"must be at least 1, not {args.shards}")
    if args.chroma:
        raise InputError("--chroma", "searches one process's Chroma copy; leave it out with --shards")
    check_served_method(options.method, "--method")
    check_served_answerer(args.answerer)
    # an unknown collection is named by reading its manifest
    check_documents(store.manifest(collection).doc_ids, options.documents, collection)


def _ask_each(args: argparse.Namespace, questions: list[str], ask: Callable) -> None:
    progress = StderrProgress(not args.quiet)  # one for the batch: its elapsed time counts from the first question
    for i, question in enumerate(questions):
        result, answer, diagnosis = ask(question)
        if args.json or args.questions:
            out = result_to_json(result, answer)
            if diagnosis is not None:
                out["diagnosis"] = diagnosis.to_dict()
            print(json.dumps(out, ensure_ascii=False), flush=True)
        else:
            _print_human(result, answer, diagnosis)
        if args.questions:
            progress("ask", i + 1, len(questions))


def _print_human(result: QueryResult, answer: Answer, diagnosis: Diagnosis | None = None) -> None:
    print(f"Q: {result.question}\nA: {answer.text}   [{answer.generator}]")
    for c in answer.citations:
        print(f"   cites {', '.join(c.sentence_ids) or 'nothing (unsupported)'}")
    if answer.verdict is not None:
        print(f"Verdict: {answer.verdict.state} - {answer.verdict.reason}")
        for alt in answer.verdict.alternatives:
            print(f"   next best [{alt.sentence_id}] (score {alt.score:.2f}): {alt.quote}")
    if diagnosis is not None:
        print(f"Diagnosis: {diagnosis.stage} - {diagnosis.reason}")
    print(f"\nContext ({len(result.sentences)} sentences, {result.context_words} words, method {result.method}):")
    for s in result.sentences:
        print(f"  [{s.id}] {s.text}")
    print(f"\nTimings (ms): {json.dumps(result.timings_ms)}")


