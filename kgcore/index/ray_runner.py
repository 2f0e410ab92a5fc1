"""Building document shards on a Ray cluster: ``python -m kgcore index FILE... --collection NAME --ray [ADDRESS]``.

    driver (this process)                             Ray workers: actors, each holding the models it loaded once
    plan; read each file's bytes  --- Job(bytes) -->  load, coref, parse, graph, embed (kgcore.index.workers.build_job)
    write the shard into staging  <-- the shard ----  (rows and float32 arrays, through Ray's object store)
    link and commit the collection (kgcore.index.pipeline, exactly as without Ray)

:class:`RayRunner` is a :class:`kgcore.index.workers.Runner`: it takes the
place of the local worker processes and nothing else changes.  Each actor
(one per ``KGCORE_RAY_WORKER_CPUS`` CPUs of the cluster, or ``--workers``)
loads spaCy, the parser, the coreference backend and the embedder when it
starts and builds document after document with them; a document goes to
whichever actor is free.

Shards travel back as objects, not files: the workers need neither the input
files nor the store, so the machines share nothing but Ray's connection.  The
driver writes each shard into its own staging folder as it arrives (at most
one shard per actor is in memory) and links them in the jobs' order, as the
local path does, so the collection is the same: graph and vectors
(tests/models/test_ray_models.py).  The price: every file and every shard
crosses the network once (a 30-page paper: about 1 MB out, 4 MB back).

``--ray`` without an address starts a Ray on this machine for the run (``--workers``
CPUs, default all) and stops it afterwards; it listens on loopback only
(Ray's single-machine mode), with Ray's token authentication, without dashboard
or usage statistics.  With an
address (``HOST:PORT`` printed by ``ray start --head``, ``ray://HOST:PORT``, or
``auto`` for a cluster started on this machine) the driver joins that cluster
and leaves it running; every node needs this project and its virtualenv at
the same path (the workers import kgcore from it and load the models
themselves).  Worker logs stay on the nodes (``/tmp/ray/session_latest/logs``);
a document's failure comes back with its reason, as in the local path, and a
worker that dies (out of memory) fails the document it was building and is
restarted for the next ones.  Ray is imported only here, when used.
"""

from __future__ import annotations

import os
import re
import socket
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from kgcore.core.embed import embedder_for, embedder_loads
from kgcore.core.errors import InputError, KgcoreError, ModelUnavailableError
from kgcore.core.limits import Deadline
from kgcore.core.nlp import load_spacy, spacy_loads
from kgcore.core.settings import IndexOptions, Settings
from kgcore.index.build import STAGES, StageTimer
from kgcore.index.coref import get_resolver
from kgcore.index.parse import get_parser
from kgcore.index.store.shard import DocumentShard, staged_folder, write_shard
from kgcore.index.workers import Built, DocumentProgress, Job, build_job

__all__ = ["RayRunner", "ShardBuilder", "WorkerInfo", "check_address", "import_ray"]

#: The folder holding the kgcore package: added to the workers' ``sys.path`` (the same path on every node).
ROOT = Path(__file__).resolve().parents[2]
#: Addresses meaning "start a Ray on this machine".
LOCAL = ("", "local")
#: Times Ray restarts an actor that died (its document fails; the next ones go to the restarted actor).
RESTARTS = 2


def import_ray() -> Any:
    """The ``ray`` module, or a :class:`ModelUnavailableError` saying what to install."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        import ray
    except ImportError as exc:
        raise ModelUnavailableError(f"indexing with --ray needs Ray ({exc}): pip install -r requirements-ray.txt "
                                    "(ray==2.60.0)") from None
    return ray


def check_address(address: str | None) -> str:
    """``address`` checked without connecting: ``local`` (a Ray on this machine), ``auto``, or ``[ray://]HOST:PORT``.

    >>> check_address(None), check_address(" 10.0.0.5:6379 "), check_address("ray://head:10001")
    ('local', '10.0.0.5:6379', 'ray://head:10001')
    >>> check_address("head")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: --ray: expected HOST:PORT (the address `ray start --head` prints),
        ray://HOST:PORT, auto, or no address for a Ray on this machine; got 'head'
    """
    address = (address or "").strip()
    if address in LOCAL:
        return "local"
    if address == "auto":
        return address
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise InputError("--ray", "expected HOST:PORT (the address `ray start --head` prints), ray://HOST:PORT, "
                                  f"auto, or no address for a Ray on this machine; got {address!r}")
    return address


def _check_reachable(address: str, timeout_s: float) -> None:
    """Refuse at once an address nothing answers at (``ray.init`` would retry for a minute or more)."""
    if address == "auto":
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s):
            pass
    except OSError as exc:
        raise InputError("--ray", f"no Ray cluster answers at {address} ({exc.strerror or exc}); start one there "
                                  f"with `ray start --head --port={port}`, or give --ray without an address for a "
                                  "Ray on this machine") from None


@dataclass(frozen=True)
class WorkerInfo:
    """What one Ray worker did: where it ran, the documents it built, and how often it loaded models."""

    node: str
    pid: int
    documents: int
    #: Seconds spent building documents (the rest of its life it waited or loaded models).
    busy_s: float
    #: Seconds it took to load the models when it started.
    load_s: float
    #: spaCy pipelines and embedders its process had loaded when it started, and has loaded now (the same:
    #: building documents loaded nothing again).
    model_loads_at_start: int
    model_loads: int


class ShardBuilder:
    """The state of one Ray actor: the models, loaded once when it starts, and the documents built with them."""

    def __init__(self, options: IndexOptions, settings: Settings) -> None:
        started = time.perf_counter()
        for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):  # its share of the node
            os.environ[name] = str(settings.ray_worker_cpus)
        self.options, self.settings = options, settings
        self.documents, self.busy_s = 0, 0.0
        #: Why this worker cannot build anything (a model missing on its node): each document fails with it,
        #: as in the local path, instead of the actor dying without the reason.
        self.unusable = ""
        try:
            load_spacy(settings.spacy_model)
            embedder_for(settings)
            self.parser = get_parser(options.parser, settings)
            self.resolver = get_resolver(options.coref, settings)
        except KgcoreError as exc:
            self.unusable = f"{exc} (on Ray node {socket.gethostname()})"
        self.load_s, self.loads_at_start = time.perf_counter() - started, _model_loads()

    def build(self, job: Job) -> tuple[DocumentShard | None, str]:
        """The job's shard, or None and the reason it failed (a bad file is the document's failure)."""
        if self.unusable:
            return None, self.unusable
        started = time.perf_counter()
        try:
            timer = StageTimer(None, deadline=Deadline(job.filename, self.settings.max_document_seconds))
            return build_job(job, self.options, self.settings, timer, self.parser, self.resolver), ""
        except (KgcoreError, OSError) as exc:
            return None, str(exc)
        finally:
            self.documents += 1
            self.busy_s += time.perf_counter() - started

    def info(self) -> WorkerInfo:
        return WorkerInfo(socket.gethostname(), os.getpid(), self.documents, round(self.busy_s, 3),
                          round(self.load_s, 3), self.loads_at_start, _model_loads())


def _model_loads() -> int:
    """spaCy pipelines and embedders this process has loaded (each is kept for the process)."""
    return spacy_loads() + embedder_loads()


def worker_settings(settings: Settings) -> Settings:
    """What the workers get: one process per document (the documents are the parallel part); the answer
    endpoint's key only when indexing asks that endpoint (``KGCORE_QA_LLM``)."""
    return settings.with_(parse_processes=1, openai_api_key=settings.openai_api_key if settings.qa_llm else "")


class RayRunner:
    """Builds shards on Ray actors (a :class:`kgcore.index.workers.Runner`); use it as a context manager.

    Ray is joined (or started) at the first documents to build, the actors are kept from one call to the next
    (a per-file collection each), and :meth:`close` ends the actors, and Ray if this runner started or joined it.
    """

    def __init__(self, address: str | None = None, workers: int = 0, settings: Settings | None = None) -> None:
        self.address = check_address(address)
        self.workers = max(0, workers)
        self.settings = settings or Settings.from_env()
        self._ray: Any = None
        self._owns_ray = False
        self._actors: list[Any] = []
        self._key: tuple[IndexOptions, Settings] | None = None

    def __enter__(self) -> RayRunner:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def __call__(self, jobs: Sequence[Job], options: IndexOptions, settings: Settings, staging: Path,
                 progress: DocumentProgress | None = None) -> list[Built]:
        """Every job's shard written into ``staging`` as it comes back; the results in the jobs' order, failures
        with their reason."""
        actors = self._actors_for(options, worker_settings(settings), len(jobs))
        return _gather(self._ray, actors, jobs, staging, progress)

    def start(self) -> Any:
        """Join the cluster (or start a Ray on this machine) unless done already; the ``ray`` module."""
        if self._ray is not None:
            return self._ray
        if self.address == "local":
            # Ray's single-machine mode: every Ray process on loopback (set before ray is first imported);
            # token authentication, with the token Ray makes in ~/.ray/auth_token (its default, said quietly).
            os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
            os.environ.setdefault("RAY_AUTH_MODE", "token")
        else:
            _check_reachable(self.address, self.settings.ray_connect_timeout_s)
        ray = import_ray()
        if not ray.is_initialized():
            self._init(ray)
            self._owns_ray = True
        self._ray = ray
        return ray

    def _init(self, ray: Any) -> None:
        common: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": "WARNING",
                                  "job_config": ray.job_config.JobConfig(code_search_path=[str(ROOT)])}
        if self.address == "local":
            cpus = self.workers * self.settings.ray_worker_cpus or os.cpu_count() or 1
            ray.init(address="local", num_cpus=cpus, **common)
            return
        try:
            ray.init(address=self.address, **common)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise InputError("--ray", f"could not join the Ray cluster at {self.address}: {exc}") from None

    def workers_info(self) -> list[WorkerInfo]:
        """What each actor did so far (documents, busy seconds, model loads)."""
        return self._ray.get([a.info.remote() for a in self._actors]) if self._actors else []

    def close(self) -> None:
        """End the actors, and the Ray this runner started or joined (a cluster itself keeps running)."""
        if self._ray is None:
            return
        for actor in self._actors:
            self._ray.kill(actor)
        self._actors, self._key = [], None
        if self._owns_ray:
            self._ray.shutdown()
        self._ray, self._owns_ray = None, False

    def _actors_for(self, options: IndexOptions, settings: Settings, jobs: int) -> list[Any]:
        """Enough actors for ``jobs`` documents (up to the cluster's share), loaded for these options."""
        ray = self.start()
        if self._key != (options, settings):
            for actor in self._actors:
                ray.kill(actor)
            self._actors, self._key = [], (options, settings)
        cpus = self.settings.ray_worker_cpus
        capacity = self.workers or max(1, int(ray.cluster_resources().get("CPU", 1) // cpus))
        remote = ray.remote(num_cpus=cpus, max_restarts=RESTARTS)(ShardBuilder)
        while len(self._actors) < min(capacity, max(jobs, 1)):
            self._actors.append(remote.remote(options, settings))
        return self._actors


def _gather(ray: Any, actors: list[Any], jobs: Sequence[Job], staging: Path,
            progress: DocumentProgress | None) -> list[Built]:
    """Send each job to a free actor and write each shard into ``staging`` as it comes back."""
    results: dict[int, Built] = {}
    waiting, free = list(enumerate(jobs)), list(actors)
    running: dict[Any, tuple[int, Any]] = {}
    while waiting or running:
        while waiting and free:
            i, job = waiting.pop(0)
            try:
                sent = Job(job.filename, data=job.read(), name=job.name)  # the bytes: nodes need not see the file
            except OSError as exc:
                results[i] = Built(job, error=f"{job.filename}: {exc.strerror or exc}")
                continue
            _report(progress, job.filename, "load", 0)
            actor = free.pop()
            running[actor.build.remote(sent)] = (i, actor)
        if running:
            (ref,), _ = ray.wait(list(running), num_returns=1)
            i, actor = running.pop(ref)
            results[i] = _receive(ray, ref, jobs[i], staging, progress)
            free.append(actor)
    return [results[i] for i in range(len(jobs))]


def _receive(ray: Any, ref: Any, job: Job, staging: Path, progress: DocumentProgress | None) -> Built:
    """The shard of ``ref`` written into ``staging``, or why there is none."""
    try:
        shard, error = ray.get(ref)
    except Exception as exc:  # noqa: BLE001 - a worker's failure, whatever it is, belongs to its document
        return Built(job, error=f"internal error on a Ray worker: {_reason(exc)}")
    if shard is None:
        return Built(job, error=error)
    for stage in STAGES:
        if stage in shard.manifest.timings_s:
            _report(progress, job.filename, stage, 1)
    timer = StageTimer(lambda stage, done, total: _report(progress, job.filename, stage, done, total))
    try:
        with timer.stage("store"):
            return Built(job, write_shard(staged_folder(staging, shard.doc_id), shard))
    except (KgcoreError, OSError) as exc:
        return Built(job, error=str(exc))


def _reason(exc: Exception) -> str:
    """The cause of a worker's failure in one line: the original error when Ray passes its traceback on.

    >>> _reason(RuntimeError("ray::ShardBuilder.build()\\nTraceback ...\\n  File x\\nMemoryError: no room"))
    'MemoryError: no room'
    >>> _reason(OSError("disk full"))
    'OSError: disk full'
    """
    cause = getattr(exc, "cause", None)
    if isinstance(cause, Exception) and cause is not exc:
        return _reason(cause)
    lines = [line.strip() for line in f"{type(exc).__name__}: {exc}".splitlines() if line.strip()]
    return [line for line in lines if re.match(r"[\w.]*(Error|Exception|Exit|Interrupt)\b", line)][-1]


def _report(progress: DocumentProgress | None, filename: str, stage: str, done: int, total: int = 1) -> None:
    if progress:
        progress(filename, stage, done, total)
