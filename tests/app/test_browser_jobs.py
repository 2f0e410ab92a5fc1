"""Indexing through the Library page in a real browser, as background jobs: an upload long enough for the parsers'
worker processes (``KGCORE_PARALLEL_MIN_TEXTS`` lowered under its paragraphs) runs to the end although the page is
reloaded in the middle, and a second upload is cancelled from the page; nothing of it stays in the store.

A fresh ``streamlit run app.py`` per module, driven by Debian's Chromium (see ``test_browser``).
"""

from __future__ import annotations

import fcntl
import re
import subprocess
import time

import psutil
import pytest
from test_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, running_app, submit_upload, sync_api, wait_idle

from kgcore.core.settings import Settings
from kgcore.index.jobs import JobQueue
from kgcore.index.store.disk import Store
from kgcore.index.store.locks import LOCKS_DIR, STAGING_DIR
from samples import long_tale

#: Paragraphs and sentences from which a document's parsing goes to worker processes (the tale has about 100
#: prose paragraphs and 300 sentences).
MIN_TEXTS = 50


@pytest.fixture(scope="module")
def jobs_server(tmp_path_factory):
    store = tmp_path_factory.mktemp("jobs_store")
    env = {"KGCORE_PARALLEL_MIN_TEXTS": str(MIN_TEXTS), "KGCORE_PARSE_PROCESSES": "2"}
    with running_app(store, "streamlit_jobs.log", env) as (url, proc):
        yield url, store, proc


def upload(page, name: str, data: bytes, collection: str) -> None:
    expect = sync_api.expect
    page.get_by_label("New collection name").fill(collection)
    page.get_by_label("New collection name").press("Enter")
    wait_idle(page)
    submit_upload(page, name, data)
    expect(page.get_by_text(f"Queued {name} for indexing")).to_be_visible(timeout=30_000)


def spawned_workers(server: subprocess.Popen) -> int:
    """How many processes under the app are multiprocessing workers started by spawn (never by fork)."""
    return sum(1 for p in psutil.Process(server.pid).children(recursive=True)
               if "multiprocessing.spawn" in " ".join(_cmdline(p)))


def _cmdline(process: psutil.Process) -> list[str]:
    try:
        return process.cmdline()
    except psutil.Error:
        return []


def test_a_long_upload_survives_a_reload_and_another_is_cancelled(jobs_server):
    url, root, server = jobs_server
    expect = sync_api.expect
    queue = JobQueue(root, Settings())
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 1200})
        page.goto(url)
        expect(page.get_by_role("heading", name="Collections")).to_be_visible(timeout=90_000)
        wait_idle(page)
        started = time.perf_counter()
        upload(page, "long_tale.txt", long_tale(3), "tales")
        expect(page.get_by_role("heading", name="Indexing")).to_be_visible(timeout=30_000)
        stage = page.get_by_text(re.compile(r"^(load|coref|parse)\b.* of long_tale\.txt · \d+ s$")).first
        expect(stage).to_be_visible(timeout=120_000)
        workers = 0
        while queue.active() and workers < 2:  # the parsers' workers: spawned processes under the app
            workers = max(workers, spawned_workers(server))
            time.sleep(0.1)
        page.reload()  # mid-job: the job belongs to the store, not to the page
        expect(page.get_by_text(re.compile(r"long_tale\.txt.*→ collection.*tales"))).to_be_visible(timeout=60_000)
        expect(page.get_by_text(re.compile(r"long_tale\.txt.* — added 1"))).to_be_visible(timeout=400_000)
        seconds = time.perf_counter() - started
        (job,) = queue.jobs()
        assert job.state == "done" and Store(root).manifest("tales").doc_ids == ("long_tale",)
        assert workers >= 2, "the parsers did not take their worker processes"
        page.screenshot(path=str(ARTIFACTS / "library_jobs.png"), full_page=True)

        upload(page, "second.txt", long_tale(2), "second")
        cancel = page.get_by_role("button", name="Cancel")
        expect(cancel).to_be_visible(timeout=30_000)
        wait_idle(page)
        cancel.click()
        expect(page.get_by_text(re.compile(r"second\.txt.* — cancelled: cancelled on the Library page"))
               ).to_be_visible(timeout=60_000)
        browser.close()
    second = next(job for job in queue.jobs() if job.filenames == ["second.txt"])
    assert second.state == "cancelled"
    assert not Store(root).exists("second")
    assert not list((root / STAGING_DIR).iterdir())
    assert _lock_free(root / LOCKS_DIR / "second.lock")
    print(f"long_tale.txt ({len(long_tale(3).split())} words) indexed through the page in {seconds:.1f} s")


def _lock_free(path) -> bool:
    """Whether nobody holds the collection lock at ``path`` (a missing lock file is free)."""
    if not path.exists():
        return True
    with path.open("a") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(fh, fcntl.LOCK_UN)
    return True
