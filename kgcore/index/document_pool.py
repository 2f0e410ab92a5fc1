"""Many documents built at once in spawned worker processes, each watched: a worker that dies or hangs fails only
its own document.

:func:`build_in_pool` hands each job to a pool of spawned processes (each
loads its own models once and builds document after document).  Every
worker reports when it starts a document and as the document's stages
advance; the parent forwards those reports as ``progress(file, stage, done,
total)`` and watches them:

* a document whose worker sends nothing for ``worker_timeout_s`` seconds
  (``KGCORE_WORKER_TIMEOUT_S``) is failed with that reason and its worker
  killed;
* a worker that dies (``kill -9``, out of memory, a crash in a native
  library) breaks the whole pool: the documents that were being built are
  built again one at a time, so the one that kills its worker again is
  failed with the reason and the others are built; documents not yet
  started are built in a new pool.  A worker can die before its "started"
  report leaves it (the queue's feeder thread dies with it), so a pool that
  breaks with no document reported started sends every unfinished one to be
  built alone: a document is failed only for breaking a pool it had to
  itself, never for sharing one with a document that kills its worker;
* a cancel (:class:`~kgcore.core.errors.Cancelled`, SIGTERM, Ctrl-C) kills
  every worker at once and unwinds: no worker outlives the call.

Nothing in a collection changes here: shards go to the staging folder and
the pipeline commits them.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import signal
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from kgcore.core.errors import KgcoreError
from kgcore.core.orphans import exit_with_parent
from kgcore.core.settings import IndexOptions, Settings

#: Seconds between two looks at the workers.
POLL_S = 0.25
#: Jobs handed to a pool per worker at a time: enough that no worker waits for its next document, few enough that
#: watching the jobs in flight costs nothing.
AHEAD = 4
#: Seconds a broken pool is given to settle its futures before the ones left are given up (and built again).
BROKEN_GRACE_S = 10.0
#: (document, stage, done, total) progress of many documents.
DocumentProgress = Callable[[str, str, int, int], None]
#: What a worker process runs for one job: (job, options, settings, staging, report) -> staged shard folder.
BuildStaged = Callable[..., Path]


@dataclass
class _Round:
    """One pool's run over some jobs: which job each worker started, and when each was last heard of."""

    started: dict[int, int] = field(default_factory=dict)  # job index -> worker pid
    heard: dict[int, float] = field(default_factory=dict)  # job index -> time of its last report
    stalled: dict[int, str] = field(default_factory=dict)  # job index -> why its worker was killed


def build_in_pool(jobs: Sequence, options: IndexOptions, settings: Settings, staging: Path, workers: int,
                  progress: DocumentProgress | None, build: BuildStaged) -> list[Path | BaseException]:
    """Every job's staged shard folder, or the exception that failed it, in the jobs' order (see the module
    docstring); ``build`` runs in the workers and must be a module-level function."""
    outcomes: dict[int, Path | BaseException] = {}
    together, alone = list(range(len(jobs))), list[int]()
    while together or alone:
        batch, width = ([alone.pop(0)], 1) if alone else (together, workers)
        together = [] if batch is together else together
        suspects, unstarted = _run_round(jobs, batch, width, options, settings, staging, progress, build, outcomes)
        if width == 1:  # a pool of its own: whatever broke it, it was this document
            for index in suspects + unstarted:
                outcomes[index] = KgcoreError("the worker process building it died (killed, or out of memory); "
                                              "the document was not indexed")
        elif suspects:  # each broken round sends at least one document to be built alone: the loop ends
            alone, together = alone + suspects, together + unstarted
        else:
            alone += unstarted
    return [outcomes[i] for i in range(len(jobs))]


def _run_round(jobs: Sequence, batch: list[int], width: int, options: IndexOptions, settings: Settings,
               staging: Path, progress: DocumentProgress | None, build: BuildStaged,
               outcomes: dict[int, Path | BaseException]) -> tuple[list[int], list[int]]:
    """Run ``batch`` in a pool of ``width`` workers, filling ``outcomes``; returns the jobs whose worker died
    (suspects) and those never started, both left out of ``outcomes``."""
    context = multiprocessing.get_context("spawn")  # never fork a process that runs threads
    events = context.Queue()
    threads = max(1, (os.cpu_count() or 1) // width)
    each = settings.with_(parse_processes=1)  # the documents are the parallel part
    pool = ProcessPoolExecutor(min(width, len(batch)), mp_context=context, initializer=_init_worker,
                               initargs=(threads, events))
    state, futures = _Round(), dict[Future, int]()
    submit = _submitter(pool, batch, futures, lambda i: (_worker, build, i, jobs[i], options, each, staging),
                        AHEAD * width)
    try:
        _watch(futures, submit, lambda: bool(getattr(pool, "_broken", False)), events, state, jobs,
               settings.worker_timeout_s, progress, outcomes)
    except BaseException:
        _kill(pool)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        events.close()
    lost = [i for i in batch if i not in outcomes]
    return [i for i in lost if i in state.started], [i for i in lost if i not in state.started]


def _submitter(pool: ProcessPoolExecutor, batch: list[int], futures: dict[Future, int],
               call: Callable[[int], tuple], limit: int) -> Callable[[int], set[Future]]:
    """``submit(in_flight)``: hands the pool the next jobs of ``batch`` until ``limit`` are in flight, recording
    each future's job in ``futures``; the new futures.  A pool that broke takes no more: its jobs not handed out
    stay unstarted, for the next round."""
    waiting = list(reversed(batch))

    def submit(in_flight: int) -> set[Future]:
        added: set[Future] = set()
        while waiting and in_flight + len(added) < limit:
            try:
                future = pool.submit(*call(waiting[-1]))
            except (BrokenProcessPool, RuntimeError):  # broken, or shut down: nothing more goes to it
                waiting.clear()
                break
            futures[future] = waiting.pop()
            added.add(future)
        return added

    return submit


def _watch(futures: dict[Future, int], submit: Callable[[int], set[Future]], broken: Callable[[], bool], events,
           state: _Round, jobs: Sequence, timeout_s: float, progress: DocumentProgress | None,
           outcomes: dict[int, Path | BaseException]) -> None:
    """Hand out jobs (a few ahead of the workers), settle each as it finishes and stop stalled workers.  Only the
    jobs in flight are watched: with every job of a 100,000-document batch handed out at once, each look at the
    workers went over all of them (the parent took half a core).  Nothing is handed out after a worker was
    stopped or once the pool is ``broken()``; what a broken pool has not settled after :data:`BROKEN_GRACE_S`
    is left out (unstarted or suspect, for the next round), so a hand-out that raced the pool's breaking
    cannot wait forever."""
    pending, broken_since = submit(0), None
    while pending:
        done, pending = wait(pending, timeout=POLL_S, return_when=FIRST_COMPLETED)
        _drain(events, state, jobs, progress)
        for future in done:
            _settle(futures[future], future, state, outcomes)
        stopped = _stop_stalled(pending, futures, state, timeout_s)
        if broken_since is None and broken():
            broken_since = time.monotonic()
        if broken_since is None and not stopped:
            pending |= submit(len(pending))
        elif broken_since is not None and time.monotonic() - broken_since > BROKEN_GRACE_S:
            outcomes.update((futures[f], KgcoreError(state.stalled[futures[f]])) for f in pending
                            if futures[f] in state.stalled)
            break
    _drain(events, state, jobs, progress)


def _settle(index: int, future: Future, state: _Round, outcomes: dict[int, Path | BaseException]) -> None:
    try:
        outcomes[index] = future.result()
    except BrokenProcessPool:
        if index in state.stalled:
            outcomes[index] = KgcoreError(state.stalled[index])
        # else: left out, a suspect or never started (see _run_round)
    except Exception as exc:  # noqa: BLE001 - a worker's failure, whatever it is, belongs to its document
        outcomes[index] = exc


def _stop_stalled(pending: set[Future], futures: dict[Future, int], state: _Round, timeout_s: float) -> bool:
    """Kill the worker of every started document not heard of for ``timeout_s`` seconds; whether any was."""
    now, stopped = time.monotonic(), False
    for future in pending:
        index = futures[future]
        if index in state.started and index not in state.stalled and now - state.heard[index] > timeout_s:
            state.stalled[index] = (f"its worker process sent no progress for {timeout_s:g} s and was stopped "
                                    "(raise the limit with the environment variable KGCORE_WORKER_TIMEOUT_S)")
            _signal(state.started[index], signal.SIGKILL)
            stopped = True
    return stopped


def _drain(events, state: _Round, jobs: Sequence, progress: DocumentProgress | None) -> None:
    while True:
        try:
            index, pid, report = events.get_nowait()
        except (queue.Empty, OSError, ValueError):
            return
        state.started[index] = pid
        state.heard[index] = time.monotonic()
        if progress and report:
            progress(jobs[index].filename, *report)


def _kill(pool: ProcessPoolExecutor) -> None:
    """Kill every worker of ``pool`` now (a cancel must not wait for a document to finish)."""
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        if process.is_alive():
            process.kill()


def _signal(pid: int, number: int) -> None:
    try:
        os.kill(pid, number)
    except ProcessLookupError:
        pass


_EVENTS = None


def _init_worker(threads: int, events) -> None:
    """A worker: default SIGTERM, Ctrl-C left to the parent (which kills it), its share of the cores (set before
    torch is imported), and the queue it reports on."""
    global _EVENTS
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent()  # killed outright (SIGKILL), the parent cannot stop it
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[name] = str(threads)
    _EVENTS = events


def _worker(build: BuildStaged, index: int, job, options: IndexOptions, settings: Settings, staging: Path) -> Path:
    events, pid = _EVENTS, os.getpid()
    assert events is not None, "the worker's initializer sets its event queue"
    events.put((index, pid, None))
    return build(job, options, settings, staging, lambda stage, done, total: events.put((index, pid,
                                                                                          (stage, done, total))))
