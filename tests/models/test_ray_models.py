"""Indexing on a real local Ray (2 CPUs) builds the collection the local path builds: the same files, graph JSON
byte for byte, and the same vectors.

Vectors are compared with ``np.array_equal`` (exact): a Ray worker runs the same code on the same ONNX model,
and MiniLM's vectors here do not depend on the number of threads ONNX Runtime uses (one per Ray worker, two in
the local process), so any difference at all would be a bug in how shards travel back, not rounding.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from kgcore.cli import main
from kgcore.index.pipeline import Job, index_files
from kgcore.index.ray_runner import RayRunner
from kgcore.index.store.disk import Store, linked_folder

# Written for these tests: a name shared by two documents (one linked node), a common noun in two (two nodes).
TEXTS = {
    "lighthouse.txt": "Mara kept the lighthouse on the northern cape. Every night she climbed the stairs and lit the "
                      "lamp. Her brother brought bread from the village when the sea was calm.",
    "orchard.md": "# The orchard\n\nMara planted apple trees behind the old mill. Her brother pruned them in "
                  "winter. The miller sold the apples at the market in autumn.",
    "harbour.txt": "The ferry left the harbour before dawn. A gull followed it past the breakwater. The captain "
                   "counted the passengers twice because the fog was thick.",
}
#: A file that fails (binary content): reported with its reason by both paths, the others indexed.
BROKEN = ("broken.txt", b"\x00\x01\x02 not text \x00" * 20)
#: Document files whose content depends on when and how fast it was built.
VOLATILE = ("created_at", "timings_s", "seconds")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> list[Path]:
    folder = tmp_path_factory.mktemp("inputs")
    for name, text in TEXTS.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / BROKEN[0]).write_bytes(BROKEN[1])
    return [folder / name for name in [*TEXTS, BROKEN[0]]]


@pytest.fixture(scope="module")
def built(inputs, tmp_path_factory):
    """One store, the same files indexed into ``local`` (this process) and ``ray`` (a local Ray, 2 workers)."""
    store = Store(tmp_path_factory.mktemp("store"))
    jobs = [Job(p.name, p) for p in inputs]
    (local,) = index_files(jobs, store, "local", workers=1)
    with RayRunner(workers=2) as runner:
        (remote,) = index_files(jobs, store, "ray", workers=1, runner=runner)
        info = runner.workers_info()
        import ray

        nodes = [n["NodeManagerAddress"] for n in ray.nodes()]
    return store, local, remote, info, nodes


def _files(folder: Path) -> dict[str, Path]:
    return {str(p.relative_to(folder)): p for p in sorted(folder.rglob("*")) if p.is_file()}


def _assert_same_files(a: Path, b: Path) -> None:
    """Every file of ``a`` and ``b`` the same: arrays equal, manifests but for timings, the rest byte for byte."""
    files_a, files_b = _files(a), _files(b)
    assert files_a.keys() == files_b.keys()
    for name, path in files_a.items():
        other = files_b[name]
        if name.endswith(".npy"):
            x, y = np.load(path), np.load(other)
            assert x.dtype == y.dtype and x.dtype in (np.float32, np.int64), name  # vectors; the table's offsets
            assert x.shape == y.shape and np.array_equal(x, y), name
        elif name.endswith(".npz"):
            with np.load(path) as x, np.load(other) as y:
                assert all(np.array_equal(x[k], y[k]) for k in x.files), name
        elif name == "manifest.json":
            x, y = (json.loads(p.read_text(encoding="utf-8")) for p in (path, other))
            assert {k: v for k, v in x.items() if k not in VOLATILE} == \
                   {k: v for k, v in y.items() if k not in VOLATILE}, name
        else:
            assert path.read_bytes() == other.read_bytes(), name


def _assert_same_collection(store: Store, first: str, second: str) -> None:
    a, b = store.manifest(first), store.manifest(second)
    assert a.doc_ids == b.doc_ids and a.counts == b.counts and a.generation == b.generation
    for x, y in zip(a.documents, b.documents):
        _assert_same_files(store.doc_path(first) / "documents" / x.folder,
                           store.doc_path(second) / "documents" / y.folder)
    _assert_same_files(store.doc_path(first) / linked_folder(a.generation),
                       store.doc_path(second) / linked_folder(b.generation))
    index_a, index_b = store.load(first), store.load(second)
    assert json.dumps(index_a.graph.to_node_link()) == json.dumps(index_b.graph.to_node_link())
    assert np.array_equal(index_a.node_vectors, index_b.node_vectors)
    assert np.array_equal(index_a.sentence_vectors, index_b.sentence_vectors)


def test_ray_builds_the_collection_the_local_path_builds(built):
    store, local, remote, _, _ = built
    assert [m.doc_id for m in remote.added] == [m.doc_id for m in local.added] == ["lighthouse", "orchard", "harbour"]
    assert remote.failed == local.failed and [f for f, _ in remote.failed] == ["broken.txt"]
    assert "binary" in remote.failed[0][1] or "text" in remote.failed[0][1]
    assert "mara" in store.load("ray").graph.nodes  # a name in two documents: one linked node
    _assert_same_collection(store, "local", "ray")


def test_each_ray_worker_loads_its_models_once_on_loopback(built):
    _, _, _, info, nodes = built
    # the three text files: the binary one is refused while the batch is planned, before any worker sees it
    assert len(info) == 2 and sum(w.documents for w in info) == 3
    # each worker loaded spaCy and the embedder when it started, and nothing more while building its documents
    assert all(w.model_loads_at_start >= 2 and w.model_loads == w.model_loads_at_start for w in info)
    assert len({w.pid for w in info}) == 2 and os.getpid() not in {w.pid for w in info}
    assert nodes == ["127.0.0.1"]


def test_cli_index_with_ray(built, inputs, capsys):
    store = built[0]
    args = ["index", *map(str, inputs), "--collection", "cli", "--workers", "2", "--store", str(store.root), "--ray"]
    assert main(args) == 2  # the broken file fails, the others are indexed
    out, err = capsys.readouterr()
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[-1]["collection"] == "cli" and "broken.txt" in err
    _assert_same_collection(store, "local", "cli")
