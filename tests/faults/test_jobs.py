"""Background indexing jobs as the app runs them (a real supervisor, real runner processes, real models): a job
cancelled while it parses ends within seconds with nothing committed or left behind; a job whose process is killed
is recorded as failed with the reason and its staging removed; the next job runs."""

from __future__ import annotations

import os
import signal
import time

import psutil
import pytest

from kgcore.core.settings import IndexOptions, Settings
from kgcore.index.jobs import JobQueue, JobSupervisor
from kgcore.index.store.disk import Store
from kgcore.index.store.locks import STAGING_DIR, collection_lock
from samples import long_tale


@pytest.fixture
def jobs(tmp_path, monkeypatch):
    monkeypatch.setenv("KGCORE_PARALLEL_MIN_TEXTS", "50")  # the runner's parsers take their worker processes
    monkeypatch.setenv("KGCORE_PARSE_PROCESSES", "2")
    settings = Settings.from_env().with_(store_root=tmp_path / "store")
    supervisor = JobSupervisor(JobQueue(tmp_path / "store", settings), settings).start()
    yield supervisor.queue
    supervisor.stop()


def wait(queue: JobQueue, job_id: str, until, timeout_s: float = 240):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job = queue.get(job_id)
        if until(job):
            return job
        time.sleep(0.2)
    raise TimeoutError(f"{job_id}: {queue.get(job_id)}")


def parsing(job) -> bool:
    step = job.steps.get("tale.txt")
    return job.state == "running" and step is not None and step.stage in ("coref", "parse")


def nothing_left(root) -> None:
    assert not list((root / STAGING_DIR).iterdir())
    with collection_lock(root, "tales", wait=False) as free:
        assert free
    assert not Store(root).exists("tales")


def test_a_job_cancelled_while_parsing_stops_within_seconds(jobs):
    job, _ = jobs.submit([("tale.txt", long_tale(3))], "tales", IndexOptions(), owner="Ann")
    runner = psutil.Process(wait(jobs, job.id, parsing).pid)
    family = [runner, *runner.children(recursive=True)]
    asked = time.monotonic()
    jobs.cancel(job.id, "cancelled by Ann")
    ended = wait(jobs, job.id, lambda j: j.state != "running", timeout_s=30)
    _, alive = psutil.wait_procs(family, timeout=10)
    assert time.monotonic() - asked < 20 and not alive
    assert ended.state == "cancelled" and ended.error == "cancelled by Ann"
    nothing_left(jobs.root)
    assert not (jobs.folder / job.id / "files").exists()  # the uploaded copy goes with the job


def test_a_killed_job_is_recorded_as_failed_and_the_next_one_runs(jobs):
    job, _ = jobs.submit([("tale.txt", long_tale(3))], "tales", IndexOptions())
    pid = wait(jobs, job.id, parsing).pid
    workers = psutil.Process(pid).children(recursive=True)
    os.kill(pid, signal.SIGKILL)
    _, alive = psutil.wait_procs(workers, timeout=15)
    assert not alive, f"the killed job's workers outlived it: {alive}"
    failed = wait(jobs, job.id, lambda j: j.state == "failed", timeout_s=30)
    assert failed.error == "its process was killed (SIGKILL: out of memory, or killed by hand)"
    time.sleep(11)  # the staging folder of a dead writer is judged stale after 10 s (locks.FRESH_S)
    Store(jobs.root).list()  # listing removes what dead writers left
    nothing_left(jobs.root)
    again, new = jobs.submit([("kettle.txt", b"The kettle sang on the stove while Lucie waited.")], "tales",
                             IndexOptions())
    assert new and wait(jobs, again.id, lambda j: j.state == "done").outcomes[0]["added"]


def test_sigterm_to_an_index_command_stops_its_workers_and_keeps_nothing_half_done(tmp_path):
    """``python -m kgcore index`` of several files in worker processes, stopped with SIGTERM while they build: the
    command exits with the reason, no worker outlives it, and neither staging nor a collection is left."""
    import subprocess

    from faultkit import ENV, assert_no_traceback, kgcore_args

    from paths import ROOT

    books = []
    for n in range(3):
        books.append(tmp_path / f"tale-{n}.txt")
        books[-1].write_bytes(long_tale(2))
    root = tmp_path / "store"
    proc = subprocess.Popen(kgcore_args("index", *books, "--collection", "tales", "--workers", "2", store=root),
                            cwd=ROOT, env=ENV, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    command = psutil.Process(proc.pid)
    deadline = time.monotonic() + 180
    while len([p for p in command.children(recursive=True) if "spawn_main" in " ".join(p.cmdline())]) < 2:
        assert time.monotonic() < deadline and proc.poll() is None, "the workers never started"
        time.sleep(0.2)
    time.sleep(3)  # the workers are loading their models or building
    family = command.children(recursive=True)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=30)
    _, alive = psutil.wait_procs(family, timeout=10)
    assert not alive, f"orphans: {alive}"
    assert proc.returncode == 1 and "error: stopped (stopped by SIGTERM)" in stderr, stderr[-800:]
    assert_no_traceback(stderr)
    nothing_left(root)
