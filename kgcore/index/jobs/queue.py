"""The store's job queue: submit uploads, list jobs, cancel one, claim one to run.

Every check of the whole upload that needs no reading runs at
:meth:`JobQueue.submit`, before the job is queued: the collection name, the
number of files, and whether any file can be indexed by its name, extension
and size.  A refused upload is an :class:`~kgcore.core.errors.InputError` on
the page at once, naming every file and its reason, not a failed job minutes
later.  What concerns one file among others (an empty file, an unsupported
extension, two files that map to one document id, a file that is not text)
is decided by the job before it parses anything, and only that file fails:
the others are indexed.

A job that indexes the same bytes into the same collection with the same
options as one still queued or running is not queued again: :meth:`submit`
returns the running one (a double click, a reload that posts again, a
colleague uploading the same file).

>>> import tempfile
>>> from kgcore.core.settings import IndexOptions, Settings
>>> queue = JobQueue(Path(tempfile.mkdtemp()), Settings())
>>> job, new = queue.submit([("peter.txt", b"Peter ran.")], "shelf", IndexOptions())
>>> again, new_again = queue.submit([("peter.txt", b"Peter ran.")], "shelf", IndexOptions())
>>> new, new_again, again.id == job.id, queue.get(job.id).state
(True, False, True, 'queued')
>>> queue.cancel(job.id, "changed my mind").state, queue.get(job.id).error
('cancelled', 'changed my mind')
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import socket
import time
from collections.abc import Sequence
from pathlib import Path

from kgcore.core.errors import InputError, KgcoreError
from kgcore.core.settings import IndexOptions, Settings
from kgcore.index.jobs.record import (
    CANCEL,
    CLAIM,
    FILES,
    FINISHED,
    JOBS_DIR,
    JobFile,
    JobRecord,
    new_job_id,
    pid_alive,
    read_record,
    write_record,
)
from kgcore.index.load import check_name, doc_id_for
from kgcore.index.store.disk import check_collection_name

#: One uploaded file: (file name, bytes) or (file name, bytes, the name its document id comes from).
Upload = tuple[str, bytes] | tuple[str, bytes, str]
#: Finished jobs older than this are removed from the queue (their documents stay in their collections).
KEEP_FINISHED_S = 7 * 24 * 3600.0
#: ... and at most this many finished jobs are kept.
KEEP_FINISHED = 50


class JobQueue:
    """The jobs of the store at ``root`` (``<root>/.jobs``); see the module docstring."""

    def __init__(self, root: Path, settings: Settings):
        self.root = Path(root)
        self.folder = self.root / JOBS_DIR
        self.settings = settings

    def submit(self, files: Sequence[Upload], collection: str | None, options: IndexOptions,
               force: bool = False, owner: str = "") -> tuple[JobRecord, bool]:
        """Queue indexing ``files`` -- (file name, bytes), or (file name, bytes, the name its document id comes
        from) -- into ``collection`` (None: each into its own); returns the job and whether it is new (False: the
        same job was already queued or running)."""
        self._check(files, collection)
        key = job_key(files, collection, options, force)
        running = next((job for job in self.active() if job.key == key), None)
        if running is not None:
            return running, False
        job_id = new_job_id()
        folder = self.folder / job_id
        (folder / FILES).mkdir(parents=True)
        stored = []
        for n, (filename, data, *name) in enumerate(files):
            (folder / FILES / f"{n}").write_bytes(data)
            stored.append(JobFile(filename, hashlib.sha256(data).hexdigest(), len(data), f"{n}", *name))
        record = JobRecord(job_id, stored, collection, options.to_dict(), force, owner, key, created=time.time())
        write_record(folder, record)
        self.prune()
        return record, True

    def _check(self, files: Sequence[Upload], collection: str | None) -> None:
        """Every check that needs no model (see the module docstring)."""
        if collection is not None:
            check_collection_name(collection)
        if not files:
            raise InputError("files", "no files to index")
        self.settings.check_limit("files", "max_batch", len(files))
        refused = [e for filename, data, *name in files if (e := _refusal(filename, data, *name,
                                                                            settings=self.settings)) is not None]
        if len(refused) == len(files):  # nothing to index: say so now, every file with its reason
            if len(refused) == 1:
                raise refused[0]
            raise InputError("files", "none of them can be indexed: " + "; ".join(map(str, refused)))

    def jobs(self) -> list[JobRecord]:
        """Every job, newest first (a job whose record cannot be read is left out)."""
        if not self.folder.is_dir():
            return []
        jobs = []
        for folder in sorted(self.folder.iterdir(), reverse=True):
            try:
                jobs.append(read_record(folder))
            except KgcoreError:
                continue
        return jobs

    def active(self) -> list[JobRecord]:
        """The jobs queued or running, oldest first."""
        return sorted((job for job in self.jobs() if job.state not in FINISHED), key=lambda job: job.created)

    def get(self, job_id: str) -> JobRecord:
        folder = self._folder(job_id)
        return read_record(folder)

    def _folder(self, job_id: str) -> Path:
        folder = self.folder / job_id
        if "/" in job_id or job_id.startswith(".") or not (folder / "job.json").is_file():
            raise InputError("job", f"no job {job_id!r} in {self.folder}")
        return folder

    def claim(self, job_id: str) -> bool:
        """Take a queued job to run (or to cancel before it runs); False when another server or request did."""
        try:
            os.close(os.open(self._folder(job_id) / CLAIM, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
        except FileExistsError:
            return False
        return True

    def claimed_for(self, job_id: str) -> float:
        """Seconds since a job was claimed (0 when it is not)."""
        try:
            return time.time() - (self.folder / job_id / CLAIM).stat().st_mtime
        except OSError:
            return 0.0

    def release(self, job_id: str) -> None:
        """Give a claimed job that never started back to the queue (its server stopped before starting it)."""
        (self.folder / job_id / CLAIM).unlink(missing_ok=True)

    def cancel(self, job_id: str, reason: str = "cancelled") -> JobRecord:
        """Cancel a job: a queued one at once; a running one is asked to stop (its runner cleans up: nothing is
        half-written and its lock is released) and the returned record still says ``running``."""
        folder = self._folder(job_id)
        record = read_record(folder)
        if record.state in FINISHED:
            return record
        (folder / CANCEL).write_text(reason, encoding="utf-8")
        if self.claim(job_id):  # never started: nobody else will
            return self.finish(job_id, "cancelled", reason)
        if record.host == socket.gethostname() and pid_alive(record.pid):
            os.kill(record.pid, signal.SIGTERM)
        return record

    def finish(self, job_id: str, state: str, error: str = "") -> JobRecord:
        """Mark a job ended without its runner (cancelled before it ran, or its process died)."""
        folder = self._folder(job_id)
        record = read_record(folder)
        record.state, record.error, record.finished = state, error, time.time()
        write_record(folder, record)
        shutil.rmtree(folder / FILES, ignore_errors=True)
        return record

    def prune(self, now: float | None = None) -> int:
        """Remove finished jobs older than :data:`KEEP_FINISHED_S` or beyond the newest :data:`KEEP_FINISHED`."""
        now = time.time() if now is None else now
        finished = [job for job in self.jobs() if job.state in FINISHED]
        doomed = [job for n, job in enumerate(finished)
                  if n >= KEEP_FINISHED or now - (job.finished or job.created) > KEEP_FINISHED_S]
        for job in doomed:
            shutil.rmtree(self.folder / job.id, ignore_errors=True)
        return len(doomed)


def job_key(files: Sequence[Upload], collection: str | None, options: IndexOptions, force: bool) -> str:
    """What makes two jobs the same: the files' names and bytes, the collection, the options, ``force``.

    >>> job_key([("a.txt", b"x")], "c", IndexOptions(), False) == job_key([("a.txt", b"x")], "c", IndexOptions(), False)
    True
    >>> job_key([("a.txt", b"x")], "c", IndexOptions(), False) == job_key([("a.txt", b"y")], "c", IndexOptions(), False)
    False
    """
    parts = sorted((filename, hashlib.sha256(data).hexdigest(), *name) for filename, data, *name in files)
    payload = json.dumps([parts, collection, options.to_dict(), force], sort_keys=True)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def _refusal(filename: str, data: bytes, name: str = "", *, settings: Settings) -> InputError | None:
    """Why one uploaded file cannot be indexed by its name, extension and size alone, or None.  The job's plan
    refuses such a file again when it runs (:func:`~kgcore.index.plan.place`), and only that file fails.

    >>> print(_refusal("empty.txt", b"", settings=Settings()))
    empty.txt: empty file (0 bytes)
    >>> _refusal("tale.txt", b"Peter ran.", settings=Settings()) is None
    True
    """
    try:
        check_name(filename, len(data), settings)
        doc_id_for(name or filename)  # a name with nothing usable as an id
    except InputError as exc:
        return exc
    return None

