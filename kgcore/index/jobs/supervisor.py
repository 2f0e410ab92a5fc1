"""The server's job supervisor: starts queued jobs in processes of their own and watches them end.

One :class:`JobSupervisor` per server process (the app starts it once) runs
a thread that, every :data:`TICK_S` seconds:

* starts the oldest queued jobs while fewer than ``max_jobs``
  (``KGCORE_MAX_JOBS``) of its own run, each in a fresh process
  (:mod:`kgcore.index.jobs.runner`) -- never a fork of the server, whose
  threads and signal handlers a fork would inherit;
* records a job whose process ended without saying how (killed, out of
  memory) as failed with its exit code, and removes what it left in the
  store's staging folder;
* records a job of another server sharing the store whose heartbeat stopped
  (:data:`~kgcore.index.jobs.record.LOST_S`) as failed.

:meth:`JobSupervisor.stop` (the server stopping) asks its jobs to cancel and
kills those still running after a grace period; a job whose server dies
without stopping it cancels itself (its runner watches its parent).
"""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from kgcore.core.errors import KgcoreError
from kgcore.core.settings import Settings
from kgcore.index.jobs.queue import JobQueue
from kgcore.index.jobs.record import LOG, LOST_S, JobRecord
from kgcore.index.store.locks import remove_stale

log = logging.getLogger("kgcore.jobs")
#: Seconds between two looks at the queue and the job processes.
TICK_S = 0.5
#: Seconds a stopping job is given to clean up before it is killed.
GRACE_S = 10.0


class JobSupervisor:
    """Runs the store's queued jobs on this server (see the module docstring)."""

    def __init__(self, queue: JobQueue, settings: Settings, env: dict[str, str] | None = None):
        self.queue, self.settings = queue, settings
        #: The job processes' environment (None: this process's own, as it is when each job starts).
        self.env = None if env is None else dict(env)
        self.processes: dict[str, subprocess.Popen] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> JobSupervisor:
        """Start the supervising thread (once)."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="kgcore-job-supervisor", daemon=True)
                self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.wait(TICK_S):
            try:
                self.tick()
            except Exception:  # noqa: BLE001 - one bad look must not end supervision
                log.exception("job supervision failed once")

    def tick(self) -> None:
        """One look: reap ended processes, mark lost jobs, start queued ones."""
        with self._lock:
            self._reap()
            active = self.queue.active()
            self._mark_lost(active)
            for job in active:
                if len(self.processes) >= self.settings.max_jobs:
                    break
                if job.state == "queued" and self.queue.claim(job.id):
                    self._spawn(job)

    def _spawn(self, job: JobRecord) -> None:
        folder = self.queue.folder / job.id
        with (folder / LOG).open("ab") as out:
            try:
                self.processes[job.id] = subprocess.Popen(
                    [sys.executable, "-m", "kgcore.index.jobs.runner", str(folder)], stdout=out,
                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=self.env, cwd=str(Path.cwd()))
            except OSError as exc:
                self.queue.finish(job.id, "failed", f"its process could not start ({exc})")

    def _reap(self) -> None:
        for job_id, process in list(self.processes.items()):
            code = process.poll()
            if code is None:
                continue
            del self.processes[job_id]
            try:
                if self.queue.get(job_id).state in ("queued", "running"):
                    self.queue.finish(job_id, "failed", _died(code))
            except KgcoreError:
                pass  # its folder went (deleted by hand): nothing to record
            remove_stale(self.queue.root)

    def _mark_lost(self, active: list[JobRecord]) -> None:
        """Jobs whose runner died with its server (no process of ours, no heartbeat): failed; jobs claimed by a
        server that stopped before starting them: queued again."""
        now = time.time()
        for job in active:
            if job.id in self.processes:
                continue
            if job.state == "running" and now - job.heartbeat > LOST_S:
                self.queue.finish(job.id, "failed", f"its process on {job.host or 'another server'} stopped sending "
                                                    f"progress {now - job.heartbeat:.0f} s ago")
            elif job.state == "queued" and self.queue.claimed_for(job.id) > LOST_S:
                self.queue.release(job.id)

    def stop(self, grace_s: float = GRACE_S) -> None:
        """Stop supervising; cancel this server's running jobs, killing any still running after ``grace_s``."""
        self._stop.set()
        with self._lock:
            for process in self.processes.values():
                _signal(process, signal.SIGTERM)
            deadline = time.monotonic() + grace_s
            for process in self.processes.values():
                try:
                    process.wait(timeout=max(0.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    _signal(process, signal.SIGKILL)
            self._reap()


def _signal(process: subprocess.Popen, number: int) -> None:
    try:
        process.send_signal(number)
    except ProcessLookupError:
        pass


def _died(code: int) -> str:
    """Why a job's process ended without recording it.

    >>> _died(-9)
    'its process was killed (SIGKILL: out of memory, or killed by hand)'
    >>> _died(1)
    'its process ended with exit code 1 before recording how it ended (see the log in its job folder)'
    """
    if code < 0:
        name = signal.Signals(-code).name
        hint = ": out of memory, or killed by hand" if -code == signal.SIGKILL else ""
        return f"its process was killed ({name}{hint})"
    return f"its process ended with exit code {code} before recording how it ended (see the log in its job folder)"
