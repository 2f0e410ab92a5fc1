"""One long document parsed in spawned worker processes: spaCy batches parsed and read in parallel, in bounded time.

Sentence splitting, coreference and SRL parsing each run spaCy over a
document's texts.  For a long document (at least ``parallel_min_texts``
texts, see :func:`kgcore.index.bounds.parse_processes`) :func:`pipe_mapped`
sends :func:`~kgcore.index.bounds.word_batches` to worker processes, each of
which parses a batch and turns every doc into plain data with ``read`` (a
module-level function), so parsing and reading both run in parallel:

    texts -> batches -> [worker: nlp.pipe(batch) -> read(doc) ...] -> results, in order

The workers are **spawned**, never forked.  Forking a process that runs
threads (the app's server, ONNX Runtime, torch) may hand the child a lock
that a thread of the parent held and that no thread of the child will ever
release, and the child inherits the parent's signal handlers (a forked
child of the app printed "Stopping..." on SIGTERM instead of exiting).  A
spawned worker is a fresh interpreter: it loads the pipeline by the name
:func:`kgcore.core.nlp.load_spacy` loaded it under, restores the default
signal handling, and leaves Ctrl-C to its parent, which stops it.

Every wait is bounded: a batch that is not back within ``timeout_s`` seconds
(``KGCORE_WORKER_TIMEOUT_S``), or a worker that dies, stops the workers and
fails the document with a :class:`~kgcore.core.errors.KgcoreError` that says
which.  Starting workers costs seconds (each loads spaCy), so pools are
kept for the length of a :func:`shared_pools` block (one indexing call:
every stage of every document) and closed at its end; outside one, each call
starts and stops its own.

>>> from kgcore.index.bounds import pipe_bounded  # doctest: +SKIP
>>> nlp = load_spacy()                                                               # doctest: +SKIP
>>> list(pipe_mapped(nlp, ["Peter ran.", "He hid."] * 300, [], len, processes=2))[:2]  # doctest: +SKIP
[3, 3]
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any, TypeVar

from kgcore.core.errors import KgcoreError
from kgcore.core.nlp import load_spacy, pipeline_name
from kgcore.core.orphans import exit_with_parent
from kgcore.index.bounds import PIPE_BATCH_TEXTS, PIPE_BATCH_WORDS, pipe_bounded, word_batches

T = TypeVar("T")
#: Seconds a batch may take before its worker is judged hung (``Settings.worker_timeout_s`` overrides it).
DEFAULT_TIMEOUT_S = 600.0
#: Batches sent ahead of the one being read, per worker (keeps every worker busy, memory bounded).
AHEAD_PER_WORKER = 2
#: Pools kept by the innermost :func:`shared_pools` block, by (pipeline name, processes); None outside one.
_SHARED: dict[tuple[str, int], ProcessPoolExecutor] | None = None


def pipe_mapped(nlp, texts: Sequence[str], disable: list[str], read: Callable[[Any], T], processes: int = 1,
                max_texts: int = PIPE_BATCH_TEXTS, timeout_s: float = DEFAULT_TIMEOUT_S) -> Iterator[T]:
    """``read(doc)`` for the doc of each text, in order; with ``processes > 1`` in spawned worker processes.

    A pipeline not loaded by :func:`~kgcore.core.nlp.load_spacy` (no name a worker could load it by) is
    parsed in this process.  On 2 cores the 2,362 sentences of Robinson Crusoe: coreference 17.6 s -> 10.5 s.
    """
    name = pipeline_name(nlp) if processes > 1 else None
    if name is None:
        yield from (read(doc) for doc in pipe_bounded(nlp, texts, disable, max_texts))
        return
    batches = iter(word_batches(texts, PIPE_BATCH_WORDS, min(max_texts, PIPE_BATCH_TEXTS)))
    with _pool(name, processes) as pool:
        window: deque[Future] = deque()
        try:
            _fill(window, pool, batches, (name, disable, read), processes * AHEAD_PER_WORKER)
            while window:
                results = _result(window.popleft(), timeout_s)
                _fill(window, pool, batches, (name, disable, read), processes * AHEAD_PER_WORKER)
                yield from results
        except BaseException:
            _stop(pool)  # a hung or dead worker, a cancel, or a consumer that stopped reading
            raise


def _fill(window: deque[Future], pool: ProcessPoolExecutor, batches: Iterator[list[str]],
          task: tuple[str, list[str], Callable[[Any], Any]], ahead: int) -> None:
    """Submit batches until ``ahead`` are on their way; ``task`` is (pipeline name, disabled pipes, read)."""
    while len(window) < ahead:
        batch = next(batches, None)
        if batch is None:
            return
        window.append(pool.submit(_read_batch, batch, *task))


def _result(future: Future, timeout_s: float) -> list[Any]:
    try:
        return future.result(timeout=timeout_s)
    except FutureTimeout:
        raise KgcoreError(f"a parser process gave no answer for {timeout_s:g} s and was stopped (raise the limit "
                          "with the environment variable KGCORE_WORKER_TIMEOUT_S)") from None
    except BrokenProcessPool:
        raise KgcoreError("a parser process died while parsing (killed, or out of memory); the document was not "
                          "indexed") from None


@contextmanager
def shared_pools() -> Iterator[None]:
    """Keep the worker pools :func:`pipe_mapped` starts until the block ends (one indexing call's documents and
    stages share them), then stop them.  Blocks nest: the outermost one keeps the pools."""
    global _SHARED
    if _SHARED is not None:
        yield
        return
    _SHARED = {}
    try:
        yield
    finally:
        pools, _SHARED = _SHARED, None
        for pool in pools.values():
            _stop(pool)


@contextmanager
def _pool(name: str, processes: int) -> Iterator[ProcessPoolExecutor]:
    """A pool of ``processes`` spawned workers holding pipeline ``name``: the shared one, else a new one stopped
    when the block ends."""
    key = (name, processes)
    if _SHARED is not None and key in _SHARED and not _broken(_SHARED[key]):
        yield _SHARED[key]
        return
    threads = max(1, (os.cpu_count() or 1) // processes)
    pool = ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn"), initializer=_init_worker,
                               initargs=(name, threads))
    if _SHARED is not None:
        _SHARED[key] = pool
        yield pool
        return
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _broken(pool: ProcessPoolExecutor) -> bool:
    return bool(getattr(pool, "_broken", False)) or bool(getattr(pool, "_shutdown_thread", False))


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop ``pool`` now: its workers killed (a hung one never finishes its batch), pending batches dropped."""
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        if process.is_alive():
            process.kill()
    pool.shutdown(wait=True, cancel_futures=True)
    if _SHARED is not None:
        for key in [k for k, v in _SHARED.items() if v is pool]:
            del _SHARED[key]


def _init_worker(name: str, threads: int) -> None:
    """A worker: default SIGTERM, Ctrl-C left to the parent (which stops it), its share of the cores, the
    pipeline loaded once."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent()  # killed outright (SIGKILL), the parent cannot stop it
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[variable] = str(threads)
    load_spacy(name)


def _read_batch(texts: list[str], name: str, disable: list[str], read: Callable[[Any], Any]) -> list[Any]:
    nlp = load_spacy(name)  # loaded by _init_worker: returned at once
    return [read(doc) for doc in nlp.pipe(texts, batch_size=len(texts), disable=disable)]
