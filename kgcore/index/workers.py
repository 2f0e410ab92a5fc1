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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from kgcore.core.errors import KgcoreError
from kgcore.core.limits import Deadline
from kgcore.core.settings import IndexOptions, Settings
from kgcore.index.build import StageTimer, build_shard
from kgcore.index.coref import CorefResolver
from kgcore.index.document_pool import DocumentProgress, build_in_pool
from kgcore.index.load import load_bytes, load_document
from kgcore.index.parallel import shared_pools
from kgcore.index.parse import Parser
from kgcore.index.store.shard import DocumentShard, staged_folder, write_shard


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


#: A file at least this large is worth a worker process of its own (each worker loads the models again).
PARALLEL_MIN_BYTES = 200_000


def worker_count(sizes: Sequence[int], configured: int = 0, cpus: int = 1) -> int:
    """Worker processes for a batch of files of ``sizes`` bytes: the configured number, else one per large file
    (up to the cores); small files are built one after another in one process.

    >>> worker_count([5_000, 8_000], cpus=8), worker_count([900_000, 700_000, 10], cpus=8), worker_count([1], 3, 8)
    (1, 2, 1)
    """
    if configured > 0:
        return max(1, min(configured, len(sizes)))
    large = sum(1 for size in sizes if size >= PARALLEL_MIN_BYTES)
    return max(1, min(large, cpus)) if large > 1 else 1


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
    timer = StageTimer(progress, deadline=Deadline(job.filename, settings.max_document_seconds))
    shard = build_job(job, options, settings, timer, parser)
    with timer.stage("store"):
        return write_shard(staged_folder(staging, shard.doc_id), shard)


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
        with shared_pools():  # a long document's parser processes serve every stage and document
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
    built = build_in_pool(jobs, options, settings, staging, workers, progress, build_staged)
    return [_outcome(job, result) for job, result in zip(jobs, built)]


def _outcome(job: Job, result: Path | BaseException) -> Built:
    if isinstance(result, Path):
        return Built(job, result)
    return Built(job, error=str(result) if isinstance(result, (KgcoreError, OSError)) else
                 f"internal error: {type(result).__name__}: {result}")
