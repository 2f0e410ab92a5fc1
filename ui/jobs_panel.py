"""The Library's indexing jobs: every queued or running job of the store (anyone's), with its bar, stage, time and
a Cancel button, redrawn every :data:`REFRESH_S` seconds while any runs; then the jobs that ended lately, each in a
line.

Jobs run in processes of their own (:mod:`kgcore.index.jobs`), so this panel only reads their records: a reload,
a closed tab or another user's session neither stops nor repeats a job.  The panel is a fragment: its refreshes
redraw only itself; when a job ends it reruns the whole page, so the collections, documents and the job's outcome
appear.
"""

from __future__ import annotations

import time

import streamlit as st

from kgcore.api import JOB_FINISHED, JobQueue, JobRecord, KgcoreError, Settings
from ui import auth_panel as auth
from ui.jobs_view import JobLine, job_line, recent_line
from ui.markup_html import md_escape

#: Seconds between two redraws of the jobs while one is queued or running.
REFRESH_S = 2.0
#: Finished jobs listed: those of the last day, at most this many.
RECENT_S = 24 * 3600.0
RECENT = 5
#: Where the page remembers which jobs it saw queued or running at its last look.
SEEN_KEY = "library.jobs_seen"


def jobs_panel(queue: JobQueue, settings: Settings, who: str) -> None:
    """The jobs section: live (refreshing) while a job is queued or running, still otherwise."""
    active = queue.active()
    st.session_state.setdefault(SEEN_KEY, [job.id for job in active])
    (_live if active else _still)(queue, settings, who)


def _draw(queue: JobQueue, settings: Settings, who: str) -> None:
    active = queue.active()
    seen = set(st.session_state.get(SEEN_KEY, ()))
    st.session_state[SEEN_KEY] = [job.id for job in active]
    if seen - {job.id for job in active}:
        st.rerun(scope="app")  # a job ended: its collection, documents and outcome are drawn by the page
    now = time.time()
    if active:
        st.subheader("Indexing")
    for job in active:
        _job_box(queue, job, job_line(job, now, settings.job_stuck_s), who)
    recent = [job for job in queue.jobs() if job.state in JOB_FINISHED and now - job.finished < RECENT_S][:RECENT]
    if recent:
        st.markdown("**Recent indexing jobs**")
        for job in recent:
            st.caption(recent_line(job, now))


_live = st.fragment(_draw, run_every=REFRESH_S)
_still = st.fragment(_draw)


def _job_box(queue: JobQueue, job: JobRecord, line: JobLine, who: str) -> None:
    with st.container(border=True):
        st.markdown(line.title)
        col_bar, col_cancel = st.columns([6, 1], vertical_alignment="center")
        col_bar.progress(line.fraction if line.state == "running" else 0.0, text=line.text)
        if col_cancel.button("Cancel", key=f"library.cancel.{job.id}", icon=":material/cancel:",
                             help="Stop this job: nothing it has not committed is kept"):
            _cancel(queue, job, who)
        if line.stuck:
            st.warning(f"This job looks stuck — {md_escape(line.stuck)}. Cancel it, or see its log in the store's "
                       f"`.jobs/{job.id}/` folder.", icon=":material/hourglass_disabled:")


def _cancel(queue: JobQueue, job: JobRecord, who: str) -> None:
    if job.owner and job.owner != who and not auth.permitted("cancel other people's jobs"):
        return
    try:
        queue.cancel(job.id, f"cancelled on the Library page by {who or 'a user'}")
    except KgcoreError as exc:
        st.error(md_escape(str(exc)), icon=":material/error:")
        return
    st.toast(f"Cancelling {', '.join(job.filenames)}…", icon=":material/cancel:")
    st.rerun(scope="app")  # the job's box goes (a running job within a second or two, once it has cleaned up)
