"""A worker that watches its parent (:func:`kgcore.core.orphans.exit_with_parent`) ends when the parent is killed
outright (SIGKILL), which no handler of the parent's can see; one that does not watch outlives it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

from paths import ROOT

#: A parent that starts one spawned worker (watching it or not) and waits; it prints the worker's pid.
PARENT = """
import multiprocessing, sys, time
from kgcore.core.orphans import exit_with_parent

def work(watch):
    if watch:
        exit_with_parent(poll_s=0.1)
    time.sleep(60)

if __name__ == "__main__":
    child = multiprocessing.get_context("spawn").Process(target=work, args=(sys.argv[1] == "watch",))
    child.start()
    print(child.pid, flush=True)
    time.sleep(60)
"""


@pytest.mark.parametrize("watch", [True, False])
def test_a_worker_watching_its_parent_ends_when_the_parent_is_killed(tmp_path, watch):
    script = tmp_path / "parent.py"
    script.write_text(PARENT, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    parent = subprocess.Popen([sys.executable, str(script), "watch" if watch else "stay"], stdout=subprocess.PIPE,
                              text=True, env=env)
    worker = psutil.Process(int(parent.stdout.readline()))
    try:
        time.sleep(0.5)  # the worker is running its task
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=10)
        _, alive = psutil.wait_procs([worker], timeout=5 if watch else 2)
        assert (alive == []) is watch
    finally:
        for process in [worker] if worker.is_running() else []:
            process.kill()
