"""Building document shards, in this process or in worker processes, each written to a staging folder.

A job is one file (a path, or bytes with a file name).  :func:`build_staged`
loads it, indexes it on its own (:func:`kgcore.index.build.build_shard`)
and writes the shard to ``<staging>/<doc_id>``; nothing in a collection
changes until the pipeline commits it.  :func:`run` runs jobs one after
another, or with ``workers > 1`` in that many spawned processes (each loads
its own models, with its share of the CPU threads), and reports every
document's failure by file name instead of stopping.  Any :class:`Runner`
can take its place: :class:`kgcore.index.ray_runner.RayRunner` builds the
shards on a Ray cluster (``index --ray``).
"""

from __future__ import annotations

import multiprocessing
import os
import queue
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from kgcore.core.errors import KgcoreError
from kgcore.core.settings import IndexOptions, Settings
from kgcore.index.build import StageTimer, build_shard
from kgcore.index.coref import CorefResolver
from kgcore.index.load import load_bytes, load_document
from kgcore.index.parse import Parser
from kgcore.index.store.shard import DocumentShard, write_shard

#: (document, stage, done, total) progress of many documents.
DocumentProgress = Callable[[str, str, int, int], None]


@dataclass(frozen=True)
class Job:
    """One document to index: a file ``path``, or ``data`` (an upload) called ``filename``."""

    filename: str
    path: Path | None = None
    data: bytes | None = None
    #: The document id comes from this name when given (default: the file name).
    name: str | None = None

    def read(self) -> bytes:
        if self.data is not None:
            return self.data
        assert self.path is not None
        return self.path.read_bytes()


@dataclass(frozen=True)
class Built:
    """A job's outcome: the staged shard folder, or the reason it failed."""

    job: Job
    staged: Path | None = None
    error: str = ""


class Runner(Protocol):
    """Builds every job's shard into ``staging`` somewhere (this process, worker processes, a Ray cluster);
    a document's failure is returned with its reason, never raised (only a runner that cannot run at all
    raises: an unreachable cluster), and the results come in the jobs' order."""

    def __call__(self, jobs: Sequence[Job], options: IndexOptions, settings: Settings, staging: Path,
                 progress: DocumentProgress | None = None) -> list[Built]: ...


def build_staged(job: Job, options: IndexOptions, settings: Settings, staging: Path,
                 progress: Callable[[str, int, int], None] | None = None, parser: Parser | None = None) -> Path:
    """Load, index and write one document's shard into ``staging``; returns the shard's folder."""
    timer = StageTimer(progress)
    shard = build_job(job, options, settings, timer, parser)
    with timer.stage("store"):
        return write_shard(staging / shard.doc_id, shard)


def build_job(job: Job, options: IndexOptions, settings: Settings, timer: StageTimer,
              parser: Parser | None = None, resolver: CorefResolver | None = None) -> DocumentShard:
    """Load and index one document into its shard, in memory (what :func:`build_staged` writes); ``parser`` and
    ``resolver``: the backends already loaded (default: loaded from ``options``)."""
    with timer.stage("load"):
        pages = lambda done, total: timer.report("load", done, total)  # noqa: E731 - a PDF's pages read
        if job.path is not None and job.data is None:
            document = load_document(job.path, settings, name=job.name, progress=pages)
        else:
            document = load_bytes(job.read(), job.filename, settings, name=job.name, progress=pages)
    return build_shard(document, options, settings, timer, parser, job.read(), resolver)


def run(jobs: Sequence[Job], options: IndexOptions, settings: Settings, staging: Path, workers: int = 1,
        progress: DocumentProgress | None = None, parser: Parser | None = None) -> list[Built]:
    """Build every job's shard; failures are returned with their reason, never raised."""
    if workers <= 1 or len(jobs) <= 1:
        return [_in_process(job, options, settings, staging, progress, parser) for job in jobs]
    if parser is not None:
        raise KgcoreError("a parser object cannot be sent to worker processes; index with workers=1")
    return _in_pool(jobs, options, settings, staging, min(workers, len(jobs)), progress)


def _in_process(job: Job, options: IndexOptions, settings: Settings, staging: Path,
                progress: DocumentProgress | None, parser: Parser | None) -> Built:
    def report(stage: str, done: int, total: int) -> None:
        if progress:
            progress(job.filename, stage, done, total)

    try:
        return Built(job, build_staged(job, options, settings, staging, report, parser))
    except (KgcoreError, OSError) as exc:
        return Built(job, error=str(exc))


def _in_pool(jobs: Sequence[Job], options: IndexOptions, settings: Settings, staging: Path, workers: int,
             progress: DocumentProgress | None) -> list[Built]:
    context = multiprocessing.get_context("spawn")  # fork after torch or spaCy threads may deadlock
    threads = max(1, (os.cpu_count() or 1) // workers)
    with context.Manager() as manager:
        events = manager.Queue()
        with ProcessPoolExecutor(workers, mp_context=context, initializer=_init_worker, initargs=(threads,)) as pool:
            each = settings.with_(parse_processes=1)  # the documents are the parallel part
            futures = {pool.submit(_worker, job, options, each, staging, events): job for job in jobs}
            pending: set[Future] = set(futures)
            while pending:
                _, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                _drain(events, progress)
            _drain(events, progress)
    return [_outcome(futures[f], f) for f in futures]


def _outcome(job: Job, future: Future) -> Built:
    try:
        return Built(job, future.result())
    except Exception as exc:  # noqa: BLE001 - a worker's failure, whatever it is, belongs to its document
        return Built(job, error=str(exc) if isinstance(exc, (KgcoreError, OSError)) else
                     f"internal error: {type(exc).__name__}: {exc}")


def _drain(events, progress: DocumentProgress | None) -> None:
    while True:
        try:
            event = events.get_nowait()
        except queue.Empty:
            return
        if progress:
            progress(*event)


def _init_worker(threads: int) -> None:
    """Each worker gets its share of the cores (set before torch is imported)."""
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[name] = str(threads)


def _worker(job: Job, options: IndexOptions, settings: Settings, staging: Path, events) -> Path:
    return build_staged(job, options, settings, staging, lambda s, d, t: events.put((job.filename, s, d, t)))
