"""Pure builders for background indexing jobs on the Library and Status pages: a job's line in words, how far it
is, and what it did.

>>> from kgcore.api import JobFile, JobRecord, Step
>>> job = JobRecord("j1", [JobFile("tarzan.txt", "", 500_000, "0")], "novels", {}, owner="Ann", state="running",
...                 created=0.0, started=10.0, moved=300.0, last="tarzan.txt",
...                 steps={"tarzan.txt": Step("parse", 2133, 4266, ["load", "coref"])})
>>> line = job_line(job, now=310.0, stuck_s=300)
>>> line.title, line.text, round(line.fraction, 2), line.stuck
('**tarzan.txt** → collection **novels** · by Ann', 'parse 2,133/4,266 of tarzan.txt · 5 min', 0.32, '')
>>> job_line(job, now=900.0, stuck_s=300).stuck
'no progress for 10 min (last: parse 2,133/4,266 of tarzan.txt)'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kgcore.api import COLLECTION_STAGES, CollectionOutcome, JobRecord, Step, duration, is_collection_step, stuck
from kgcore.api import INDEX_STAGES as STAGES

from .markup_html import md_escape

#: The share of a job's bar its documents take; the collection's link and write take the rest.
DOCUMENTS_SHARE = 0.9
STATE_WORDS = {"queued": "waiting", "running": "indexing", "done": "done", "failed": "failed",
               "cancelled": "cancelled"}


@dataclass(frozen=True)
class JobLine:
    """One job as the Library page draws it (markdown, document text escaped)."""

    id: str
    state: str
    title: str
    text: str
    fraction: float
    #: Why it looks stuck ("" when it does not).
    stuck: str
    error: str


def job_line(job: JobRecord, now: float, stuck_s: float) -> JobLine:
    """``job`` in words (see the module docstring)."""
    files = ", ".join(f"**{md_escape(name)}**" for name in job.filenames[:3])
    more = f" and {len(job.filenames) - 3} more" if len(job.filenames) > 3 else ""
    target = f"collection **{md_escape(job.collection)}**" if job.collection else "one collection per file"
    owner = f" · by {md_escape(job.owner)}" if job.owner else ""
    where = job.where() if job.state == "running" else STATE_WORDS.get(job.state, job.state)
    return JobLine(job.id, job.state, f"{files}{more} → {target}{owner}",
                   f"{md_escape(where)} · {duration(job.elapsed(now))}", job_fraction(job),
                   stuck(job, now, stuck_s) or "", job.error)


def job_fraction(job: JobRecord) -> float:
    """How far ``job`` is, from 0 to 1: its files' stages, then the collection's link and write.

    >>> from kgcore.api import JobFile
    >>> job = JobRecord("j", [JobFile("a.txt", "", 1, "0")], None, {}, steps={"a.txt": Step("store", 1, 1)})
    >>> job_fraction(job), job_fraction(JobRecord("j", [], None, {}, state="done"))
    (0.9, 1.0)
    """
    if job.state == "done":
        return 1.0
    files = [step_fraction(job.steps.get(name), STAGES) for name in job.filenames]
    own = [step_fraction(step, COLLECTION_STAGES) for name, step in job.steps.items() if is_collection_step(name)]
    documents = sum(files) / len(files) if files else 0.0
    collection = max(own, default=0.0)
    return min(1.0, DOCUMENTS_SHARE * documents + (1 - DOCUMENTS_SHARE) * collection)


def step_fraction(step: Step | None, stages: Sequence[str]) -> float:
    """How far one file (or the collection) is through ``stages``.

    >>> step_fraction(Step("parse", 50, 100), ("load", "parse", "store")), step_fraction(None, ("load",))
    (0.5, 0.0)
    """
    if step is None or not step.stage:
        return 0.0
    if step.stage not in stages:
        return len([s for s in step.finished if s in stages]) / len(stages)
    share = min(max(step.done / step.total, 0.0), 1.0) if step.total > 0 else 0.0
    return (stages.index(step.stage) + share) / len(stages)


def recent_line(job: JobRecord, now: float) -> str:
    """A finished job in one line (markdown): how it ended, what it did, how long it took, when.

    >>> from kgcore.api import JobFile
    >>> from kgcore.api import Manifest
    >>> done = CollectionOutcome("novels", None, added=(Manifest("tarzan"),), failed=(("x.pdf", "no text"),))
    >>> job = JobRecord("j", [JobFile("tarzan.txt", "", 1, "0")], "novels", {}, state="done", started=0.0,
    ...                 finished=412.0, outcomes=[done.to_dict()])
    >>> recent_line(job, now=1000.0)
    ':material/check_circle: **tarzan.txt** → collection **novels** — added 1, failed 1 · 6 min · 9 min ago'
    >>> job.state, job.error = "cancelled", "cancelled on the Library page by Ann"
    >>> recent_line(job, now=1000.0).split(" — ")[1]
    'cancelled: cancelled on the Library page by Ann · 6 min · 9 min ago'
    """
    title = job_line(job, now, float("inf")).title.split(" · by ")[0]
    if job.state == "done":
        outcomes = outcomes_of(job)
        counts = {"added": sum(len(o.added) for o in outcomes), "reused": sum(len(o.reused) for o in outcomes),
                  "failed": sum(len(o.failed) for o in outcomes)}
        what = ", ".join(f"{word} {n}" for word, n in counts.items() if n) or "nothing to do"
    else:
        what = f"{job.state}: {md_escape(job.error)}" if job.error else job.state
    icon = {"done": ":material/check_circle:", "cancelled": ":material/cancel:"}.get(job.state, ":material/error:")
    ago = duration(now - (job.finished or now))
    return f"{icon} {title} — {what} · {duration(job.elapsed(now))} · {ago} ago"


def outcomes_of(job: JobRecord) -> list[CollectionOutcome]:
    """What a finished job did, collection by collection (as an indexing run in this process would say)."""
    return [CollectionOutcome.from_dict(o) for o in job.outcomes]
