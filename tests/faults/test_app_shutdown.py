"""Stopping the app while it indexes: SIGTERM to ``streamlit run app.py``, Ctrl-C (SIGINT to its whole process
group, as a terminal sends it to ``make run``) or even ``kill -9`` of the server ends the server and its indexing job
within seconds, and leaves no staging folder, no held lock, no worker process and nothing half-committed; the job's
record says it was cancelled and why.

A real server on loopback; Chromium opens its page once (a session's first run starts the job supervisor), then
the job is queued in the store directly and the signal sent while its document is being parsed.
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from netkit import free_port

from kgcore.core.settings import IndexOptions, Settings
from kgcore.index.jobs import JobQueue
from kgcore.index.store.disk import Store
from kgcore.index.store.locks import LOCKS_DIR, STAGING_DIR
from paths import ROOT
from samples import long_tale

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
#: Seconds the app and its job may take to stop.
STOP_S = 20


def serve(store: Path, log: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {**os.environ, "KGCORE_STORE": str(store), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "ANONYMIZED_TELEMETRY": "False", "KGCORE_PARALLEL_MIN_TEXTS": "50", "KGCORE_PARSE_PROCESSES": "2"}
    server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                               "--server.port", str(port), "--server.address", "127.0.0.1"], cwd=ROOT, env=env,
                              stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True)
    return server, f"http://127.0.0.1:{port}"


def open_once(url: str) -> None:
    """One browser session's first run: ``app.py`` starts the server's job supervisor."""
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM),
                                     args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        page = browser.new_page()
        deadline = time.monotonic() + 90
        while True:
            try:
                page.goto(url)
                break
            except sync_api.Error:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        sync_api.expect(page.get_by_role("heading", name="Collections")).to_be_visible(timeout=90_000)
        browser.close()


def wait_for_parse(queue: JobQueue, job_id: str, timeout_s: float = 180) -> int:
    """The job's process id, once its document is being split, resolved or parsed."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job = queue.get(job_id)
        step = job.steps.get("tale.txt")
        if job.state == "running" and step and step.stage in ("coref", "parse"):
            return job.pid
        assert job.state in ("queued", "running"), (job.state, job.error)
        time.sleep(0.2)
    raise TimeoutError(f"job {job_id} never reached its parse stage")


@pytest.mark.parametrize("how", ["SIGTERM to the server", "Ctrl-C to its process group", "kill -9 of the server"])
def test_stopping_the_app_while_it_indexes_leaves_nothing_behind(tmp_path, how):
    store = tmp_path / "store"
    server, url = serve(store, tmp_path / "streamlit.log")
    try:
        open_once(url)
        queue = JobQueue(store, Settings())
        job, _ = queue.submit([("tale.txt", long_tale(3))], "tales", IndexOptions())
        runner = psutil.Process(wait_for_parse(queue, job.id))
        family = [runner, *runner.children(recursive=True)]
        stopped = time.monotonic()
        if how.startswith("SIGTERM"):
            server.send_signal(signal.SIGTERM)
        elif how.startswith("Ctrl-C"):
            os.killpg(server.pid, signal.SIGINT)
        else:  # no clean-up runs in the server: the job sees its parent gone and stops itself
            server.kill()
        server.wait(timeout=STOP_S)
        gone, alive = psutil.wait_procs(family, timeout=max(1.0, STOP_S - (time.monotonic() - stopped)))
        assert not alive, f"still running after the app stopped: {alive}"
        seconds = time.monotonic() - stopped
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
    record = queue.get(job.id)
    assert record.state == "cancelled", (record.state, record.error)
    assert record.error in ("stopped by SIGTERM", "stopped by SIGINT", "the app that started it stopped")
    assert not Store(store).exists("tales")  # nothing committed
    assert not list((store / STAGING_DIR).iterdir())
    lock = store / LOCKS_DIR / "tales.lock"
    if lock.exists():
        with lock.open("a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)  # raises when someone still holds it
    print(f"{how}: the app and its job stopped in {seconds:.1f} s ({record.error})")
