"""A background indexing job as it is stored: what it indexes, how far it got, how it ended.

Each job lives in ``<store>/.jobs/<id>/``: ``job.json`` (a :class:`JobRecord`,
replaced atomically), ``files/`` (the uploaded bytes, removed when the job
ends), ``log.txt`` (its process's output), ``claimed`` (created by the one
server that runs it) and ``cancel`` (a cancel request, with its reason).

The record is written by whoever holds the job: the queue while it waits,
its runner process while it runs (every second at most, and every
:data:`HEARTBEAT_S` seconds at least, so a reader can tell a live job from a
dead one), the server that started it when its process died.

>>> r = JobRecord("j1", [JobFile("tarzan.txt", "ab", 10, "0-tarzan.txt")], "novels", {}, created=100.0)
>>> r.step("tarzan.txt", "parse", 1200, 4266, now=160.0)
>>> r.state, r.where(), r.elapsed(now=400.0)
('queued', 'parse 1,200/4,266 of tarzan.txt', 300.0)
>>> JobRecord.from_dict(r.to_dict()) == r
True
"""

from __future__ import annotations

import json
import os
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kgcore.core.atomic import replace_text
from kgcore.core.errors import DamagedIndexError

JOBS_DIR = ".jobs"
RECORD = "job.json"
FILES = "files"
LOG = "log.txt"
CLAIM = "claimed"
CANCEL = "cancel"
#: ``queued`` -> ``running`` -> ``done`` | ``failed`` | ``cancelled`` (a queued job may be cancelled at once).
STATES = ("queued", "running", "done", "failed", "cancelled")
FINISHED = frozenset({"done", "failed", "cancelled"})
#: Seconds between two writes of a running job's record, at most (its heartbeat).
HEARTBEAT_S = 2.0
#: A running job whose record was not written for this long has lost its process.
LOST_S = 30.0


@dataclass
class JobFile:
    """One uploaded file of a job: its name, content hash, size, and its copy under ``files/``."""

    filename: str
    sha256: str
    size: int
    stored: str
    #: The document id comes from this name when given (default: the file name).
    name: str | None = None


@dataclass
class Step:
    """How far one file (or the collection's link and write) got: its current stage and count."""

    stage: str = ""
    done: int = 0
    total: int = 0
    finished: list[str] = field(default_factory=list)


@dataclass
class JobRecord:
    """One job (see the module docstring); times are seconds since the epoch (0: not yet)."""

    id: str
    files: list[JobFile]
    #: The collection the files go to; None: each file to its own collection, named after it.
    collection: str | None
    #: :class:`~kgcore.core.settings.IndexOptions` as a dict.
    options: dict[str, Any]
    force: bool = False
    #: Who asked (the reviewer or signed-in user shown on the Library page).
    owner: str = ""
    #: Jobs with the same key index the same bytes the same way: a second one is not started.
    key: str = ""
    state: str = "queued"
    created: float = 0.0
    started: float = 0.0
    finished: float = 0.0
    #: When the record was last written by the job's runner (its heartbeat).
    heartbeat: float = 0.0
    #: When its progress last moved.
    moved: float = 0.0
    pid: int = 0
    host: str = ""
    steps: dict[str, Step] = field(default_factory=dict)
    #: The file (or collection step) heard of last.
    last: str = ""
    #: What the job did, collection by collection (:meth:`kgcore.index.store.collection.CollectionOutcome.to_dict`).
    outcomes: list[dict[str, Any]] = field(default_factory=list)
    #: Why it failed or was cancelled.
    error: str = ""

    @property
    def filenames(self) -> list[str]:
        return [f.filename for f in self.files]

    def step(self, name: str, stage: str, done: int, total: int, now: float | None = None) -> None:
        """Record a progress report of file (or collection step) ``name``."""
        step = self.steps.setdefault(name, Step())
        if step.stage and step.stage != stage and step.stage not in step.finished:
            step.finished.append(step.stage)
        if done >= total > 0 and stage not in step.finished:
            step.finished.append(stage)
        step.stage, step.done, step.total = stage, done, total
        self.last = name
        self.moved = time.time() if now is None else now

    def where(self) -> str:
        """The stage the job was last heard in, in words ("parse 1,200/4,266 of tarzan.txt")."""
        step = self.steps.get(self.last)
        if step is None:
            return "starting" if self.state == "running" else self.state
        count = f" {step.done:,}/{step.total:,}" if step.total > 1 else ""
        what = f"collection {self.last.removeprefix('collection:')}" if self.last.startswith("collection:") \
            else self.last
        return f"{step.stage}{count} of {what}"

    def elapsed(self, now: float | None = None) -> float:
        """Seconds since it started (or was created), up to its end."""
        end = self.finished or (time.time() if now is None else now)
        return max(0.0, end - (self.started or self.created))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> JobRecord:
        values = dict(data)
        values["files"] = [JobFile(**f) for f in data.get("files", ())]
        values["steps"] = {k: Step(**v) for k, v in (data.get("steps") or {}).items()}
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in values.items() if k in known})


def new_job_id(now: float | None = None) -> str:
    """A job id that sorts by creation time: ``20261129-082001-3fa2c1``."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(time.time() if now is None else now))
    return f"{stamp}-{uuid.uuid4().hex[:6]}"


def read_record(folder: Path) -> JobRecord:
    """The record in job folder ``folder``; a damaged one is a :class:`DamagedIndexError` naming it."""
    path = folder / RECORD
    try:
        return JobRecord.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError, KeyError) as exc:
        raise DamagedIndexError(path, f"unreadable job record ({type(exc).__name__}: {exc})",
                                "delete the job's folder") from None


def write_record(folder: Path, record: JobRecord) -> None:
    """Replace ``folder``'s record atomically (a reader sees the old one or the new one, never half)."""
    replace_text(folder / RECORD, json.dumps(record.to_dict(), ensure_ascii=False))


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` runs on this machine (a zombie counts as gone)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True
