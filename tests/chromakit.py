"""A real Chroma server for the tests: ``chroma run`` (shipped with the chromadb package) on loopback.

Importable as ``chromakit`` (``tests/`` is on ``sys.path`` via its conftest).  The server is started with
``chroma run --path DIR --host 127.0.0.1 --port N`` on a free port and stopped by its PID.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from netkit import free_port

#: The ``chroma`` command of the interpreter running the tests (the project's virtualenv).
CHROMA = Path(sys.executable).with_name("chroma")
START_TIMEOUT_S = 60.0


@dataclass
class ChromaProcess:
    """A running ``chroma run``: its URL, PID and data folder."""

    url: str
    process: subprocess.Popen
    path: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def stop(self) -> None:
        """Stop the server by its PID (SIGTERM, then SIGKILL after 10 s)."""
        if self.process.poll() is not None:
            return
        os.kill(self.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.kill(self.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


def start_chroma(path: Path, log: Path | None = None) -> ChromaProcess:
    """Start ``chroma run`` on a free loopback port with its data in ``path``; returns once it answers."""
    port = free_port()
    out = (log or path.with_suffix(".log")).open("wb")
    process = subprocess.Popen([str(CHROMA), "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
                               stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    server = ChromaProcess(f"http://127.0.0.1:{port}", process, path)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"chroma run exited with {process.returncode}; see {out.name}")
        try:
            with urllib.request.urlopen(f"{server.url}/api/v2/heartbeat", timeout=1):
                return server
        except OSError:
            time.sleep(0.1)
    server.stop()
    raise RuntimeError(f"chroma run did not answer within {START_TIMEOUT_S:.0f} s; see {out.name}")
