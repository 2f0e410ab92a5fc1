"""Background indexing jobs: uploads indexed in a process of their own that outlives the page that asked.

    JobQueue.submit (checks, files saved, record queued)
        -> JobSupervisor (one per server: claims, starts a runner process, watches it)
        -> runner (python -m kgcore.index.jobs.runner: index_files, progress into the record)
        -> done | failed (with the reason) | cancelled (by whom or what)

A reload, a closed tab or a second user neither stops nor repeats a job:
the job belongs to the store (``<store>/.jobs/``), not to a browser session,
and the same upload submitted again returns the job already queued or
running.  Any page reads the records (:meth:`JobQueue.jobs`) to show each
job's stage, counts and elapsed time; a job whose progress has not moved for
``job_stuck_s`` seconds is reported as stuck with what it was doing
(:func:`stuck`).

>>> r = JobRecord("j", [], "c", {}, state="running", started=0.0, heartbeat=600.0, moved=100.0, last="a.txt",
...               steps={"a.txt": Step("parse", 4266, 4266)})
>>> stuck(r, now=601.0, stuck_s=300)
'no progress for 8 min (last: parse 4,266/4,266 of a.txt)'
>>> stuck(r, now=200.0, stuck_s=300) is None
True
"""

from __future__ import annotations

from kgcore.index.jobs.queue import JobQueue, job_key
from kgcore.index.jobs.record import FINISHED, JOBS_DIR, STATES, JobFile, JobRecord, Step
from kgcore.index.jobs.supervisor import JobSupervisor

__all__ = ["FINISHED", "JOBS_DIR", "STATES", "JobFile", "JobQueue", "JobRecord", "JobSupervisor", "Step", "duration",
           "job_key", "stuck"]


def stuck(job: JobRecord, now: float, stuck_s: float) -> str | None:
    """Why a running job looks stuck (its progress has not moved for ``stuck_s`` seconds), or None."""
    if job.state != "running":
        return None
    idle = now - (job.moved or job.started or job.created)
    if idle < stuck_s:
        return None
    return f"no progress for {duration(idle)} (last: {job.where()})"


def duration(seconds: float) -> str:
    """Seconds in words: ``45 s``, ``8 min``, ``2 h 5 min``.

    >>> duration(45), duration(500), duration(7500)
    ('45 s', '8 min', '2 h 5 min')
    """
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds // 60:.0f} min"
    return f"{seconds // 3600:.0f} h {(seconds % 3600) // 60:.0f} min"
