"""Helpers of the fault tier (importable as ``faultkit``): tiny texts, real CLI processes, and the checks every
probe makes — a clear message naming the file, no traceback, the store consistent, nothing committed lost."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from kgcore.index.store.disk import Store
from kgcore.index.store.shard import staged_folder
from paths import ROOT

# Tiny documents written for these tests (a few sentences each: indexing one costs the models' start only).
TEXTS = {
    "rabbit.txt": "Peter was a young rabbit who lived under a fir tree. His father had been put in a pie by Mrs. "
                  "McGregor. Peter squeezed under the gate of the garden and ate some radishes.",
    "ship.txt": "The ship left the harbour at dawn with twelve sailors on board. A storm broke the mast on the third "
                "day. The captain ordered the crew to throw the cargo into the sea.",
    "garden.txt": "The old gardener planted cabbages along the wall. A robin watched him from the spade. In the "
                  "evening he locked the green door of the garden.",
    "kettle.txt": "Mrs. Tiggy-winkle washed the handkerchiefs in a small tub. She ironed them with a hot iron. The "
                  "kettle sang on the stove while Lucie waited.",
}
#: Every process of the tier runs its models on one thread: several run at once on a few shared cores.
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False",
       "PYTHONPATH": str(ROOT), "KGCORE_WORKERS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
       "KGCORE_CHROMA_SYNC": "commit"}  # the probed transaction writes Chroma too (see conftest.CHROMA_SYNC)


def write_texts(folder: Path, names=tuple(TEXTS)) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name in names:
        paths[name] = folder / name
        paths[name].write_text(TEXTS[name], encoding="utf-8")
    return paths


def kgcore_args(*args: str | Path, store: Path) -> list[str]:
    return [sys.executable, "-m", "kgcore", *map(str, args), "--store", str(store)]


def start(*args: str | Path, store: Path, env: dict | None = None) -> subprocess.Popen:
    """A real ``python -m kgcore`` process (stdout and stderr piped, text)."""
    return subprocess.Popen(kgcore_args(*args, store=store), cwd=ROOT, env=env or ENV, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def assert_no_traceback(stderr: str) -> None:
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr[-2000:]


@dataclass
class Killed:
    """A process killed with SIGKILL when ``marker`` appeared on its stderr (plus ``delay`` seconds)."""

    returncode: int
    stderr: str
    seen: bool
    waited: float = 0.0


def kill_when(proc: subprocess.Popen, marker: str, delay: float = 0.0, timeout: float = 240) -> Killed:
    """Read ``proc``'s stderr until ``marker`` shows (progress bars end lines with ``\\r``), wait ``delay``,
    then ``kill -9`` it."""
    assert proc.stderr is not None
    seen = threading.Event()
    buffer: list[str] = []

    def read() -> None:
        assert proc.stderr is not None
        text = ""
        while chunk := proc.stderr.read(1):
            text += chunk
            if marker in text and not seen.is_set():
                seen.set()
        buffer.append(text)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    started = time.monotonic()
    found = seen.wait(timeout)
    time.sleep(delay)
    proc.kill()
    proc.wait(30)
    reader.join(10)
    return Killed(proc.returncode, "".join(buffer), found, time.monotonic() - started)


def consistent(store: Store, name: str) -> dict[str, int]:
    """Check collection ``name`` loads, every stored file verifies and the graph is grounded in its sentences;
    returns its documents with their sentence counts."""
    index = store.load(name)
    assert store.verify(name) == []
    assert index.graph.invariant_problems(s.id for s in index.sentences) == []
    counts: dict[str, int] = {}
    for s in index.sentences:
        counts[s.doc_id] = counts.get(s.doc_id, 0) + 1
    assert counts == {d.doc_id: d.manifest.counts.sentences for d in index.manifest.documents}
    return counts


# -- worker processes that die or hang (module level: spawned workers import them from here) ---------------------
def build_or_fail(job, options, settings, staging: Path, report) -> Path:
    """A document builder for :func:`kgcore.index.document_pool.build_in_pool` whose worker dies on a file named
    ``die*`` (after a second on ``late-die*``), hangs on ``hang*``, takes three seconds after writing its folder on
    ``slow*``, and builds an empty shard folder otherwise, in the folder the real builder stages a shard in
    (:func:`kgcore.index.store.shard.staged_folder`: emptied of what an earlier, lost attempt left)."""
    report("load", 0, 1)
    if job.filename.startswith("late-die"):
        time.sleep(1)
    if job.filename.startswith(("die", "late-die")):
        os._exit(9)
    if job.filename.startswith("hang"):
        time.sleep(3600)
    folder = staged_folder(staging, job.filename)
    folder.mkdir()
    if job.filename.startswith("slow"):
        time.sleep(3)
    report("store", 1, 1)
    return folder


def read_or_fail(doc) -> int:
    """A ``pipe_mapped`` reader whose worker dies on a text with DIE and hangs on one with HANG."""
    if "HANG" in doc.text:
        time.sleep(3600)
    if "DIE" in doc.text:
        os._exit(9)
    return len(doc)
