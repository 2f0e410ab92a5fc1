"""The process that runs one background job: ``python -m kgcore.index.jobs.runner <store>/.jobs/<id>``.

It indexes the job's files with :func:`kgcore.index.pipeline.index_files`
(the same code as ``python -m kgcore index``, so the same time) and keeps
the job's record up to date from a watchdog thread:

* progress reports are recorded in memory and written at most every second,
  and at least every :data:`~kgcore.index.jobs.record.HEARTBEAT_S` seconds;
* a ``cancel`` file in the job's folder (written by any server sharing the
  store), SIGTERM or Ctrl-C, or the death of the process that started it
  (the app stopped) raise :class:`~kgcore.core.errors.Cancelled` in the
  indexing thread: staging is removed, the collection's lock released,
  worker processes killed, and nothing is committed;
* however it ends, the record says so (``done``, ``failed`` with the reason,
  ``cancelled`` with who or what stopped it) and the uploaded copies go.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import socket
import sys
import threading
import time
import traceback
from pathlib import Path

from kgcore.core.errors import Cancelled, KgcoreError
from kgcore.core.settings import IndexOptions, Settings
from kgcore.index.jobs.record import CANCEL, FILES, HEARTBEAT_S, JobFile, JobRecord, read_record, write_record
from kgcore.index.load import doc_id_for
from kgcore.index.pipeline import index_files
from kgcore.index.store.disk import Store
from kgcore.index.workers import Job, worker_count

log = logging.getLogger("kgcore.jobs")
#: Seconds between two looks of the watchdog (cancel file, parent, record).
WATCH_S = 0.5
#: The fewest seconds between two writes of the record.
WRITE_EVERY_S = 1.0


class JobRun:
    """One job's run in this process (see the module docstring)."""

    def __init__(self, folder: Path, settings: Settings):
        self.folder, self.settings = folder, settings
        self.record = read_record(folder)
        self.lock = threading.Lock()
        self.parent = os.getppid()
        self.reason = ""
        self.stopping = threading.Event()
        self.written = 0.0

    def progress(self, name: str, stage: str, done: int, total: int) -> None:
        with self.lock:
            self.record.step(name, stage, done, total)

    def run(self) -> int:
        """Index the job's files; the exit status: 0 done, 1 failed, 2 cancelled."""
        watchdog = threading.Thread(target=self._watch, name="job-watchdog", daemon=True)
        try:
            self._handle_signals()
            with self.lock:
                self.record.state, self.record.started = "running", time.time()
                self.record.pid, self.record.host = os.getpid(), socket.gethostname()
            self._write(force=True)
            watchdog.start()
            return self._index()
        except Cancelled as exc:  # before indexing began
            self._end("cancelled", error=exc.reason)
            return 2
        finally:
            self.stopping.set()
            if watchdog.is_alive():
                watchdog.join(timeout=2 * WATCH_S)
            self._write(force=True)
            shutil.rmtree(self.folder / FILES, ignore_errors=True)

    def _index(self) -> int:
        record = self.record
        try:
            jobs = [Job(f.filename, data=(self.folder / FILES / f.stored).read_bytes(), name=f.name)
                    for f in record.files]
            workers = worker_count([f.size for f in record.files], self.settings.workers, os.cpu_count() or 1)
            outcomes = index_files(jobs, Store(self.settings.store_root), record.collection,
                                   IndexOptions(**record.options), self.settings, workers, record.force,
                                   self.progress)
            self.stopping.set()  # done: a cancel arriving now changes nothing
            self._end("done", outcomes=[o.to_dict() for o in outcomes])
            return 0
        except Cancelled as exc:
            self._end("cancelled", error=exc.reason + self._kept())
            return 2
        except (KgcoreError, OSError) as exc:
            self._end("failed", error=str(exc))
            return 1
        except Exception as exc:  # noqa: BLE001 - the job fails with the reason; the traceback goes to its log
            traceback.print_exc()
            self._end("failed", error=f"internal error: {type(exc).__name__}: {exc}")
            return 1

    def _kept(self) -> str:
        """What a cancel came too late to stop: documents of the job already committed (they stay)."""
        try:
            store = Store(self.settings.store_root)
            kept = [f.filename for f in self.record.files if _committed(store, self.record.collection, f)]
        except (KgcoreError, OSError):
            return ""
        return f"; already committed before the cancel, and kept: {', '.join(kept)}" if kept else ""

    def _end(self, state: str, error: str = "", outcomes: list | None = None) -> None:
        with self.lock:
            self.record.state, self.record.error, self.record.finished = state, error, time.time()
            self.record.outcomes = outcomes or []

    def _handle_signals(self) -> None:
        for number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(number, self._on_signal)

    def _on_signal(self, number: int, _frame) -> None:
        if self.stopping.is_set():
            return  # already unwinding: let the clean-up finish
        self.stopping.set()
        asked = self.folder / CANCEL  # a cancel on this machine comes as SIGTERM after its reason is written
        reason = self.reason or (_read_reason(asked) if asked.exists() else f"stopped by {signal.Signals(number).name}")
        raise Cancelled(reason)

    def cancel(self, reason: str) -> None:
        """Stop the indexing thread (this process's main thread) with ``reason``."""
        if not self.reason:
            self.reason = reason
            os.kill(os.getpid(), signal.SIGTERM)

    def _watch(self) -> None:
        while not self.stopping.wait(WATCH_S):
            if os.getppid() != self.parent:
                self.cancel("the app that started it stopped")
            elif (self.folder / CANCEL).exists():
                self.cancel(_read_reason(self.folder / CANCEL))
            self._write()

    def _write(self, force: bool = False) -> None:
        now = time.time()
        with self.lock:
            moved = self.record.moved > self.written
            if not force and not (moved and now - self.written >= WRITE_EVERY_S) and now - self.written < HEARTBEAT_S:
                return
            self.record.heartbeat = self.written = now
            snapshot = JobRecord.from_dict(self.record.to_dict())
        write_record(self.folder, snapshot)


def _committed(store: Store, collection: str | None, file: JobFile) -> bool:
    """Whether ``file``'s bytes are a document of the collection the job indexes it into."""
    name = collection or doc_id_for(file.name or file.filename)
    if not store.exists(name):
        return False
    return any(d.manifest.source_sha256 == file.sha256 for d in store.manifest(name).documents)


def _read_reason(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8").strip() or "cancelled"
    except OSError:
        return "cancelled"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m kgcore.index.jobs.runner <store>/.jobs/<job id>", file=sys.stderr)
        return 64
    folder = Path(args[0]).resolve()
    settings = Settings.from_env().with_(store_root=folder.parent.parent)
    return JobRun(folder, settings).run()


if __name__ == "__main__":
    sys.exit(main())
