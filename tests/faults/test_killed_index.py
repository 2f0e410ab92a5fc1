"""``kill -9`` of a real ``python -m kgcore index`` at several points: while parsing, while embedding, and after
its shard was written (during the commit: linking, Chroma, the manifest).  Afterwards the store is consistent,
the documents committed before are intact, what the killed writer left is removed, and indexing again works.
"""

from __future__ import annotations

import os
import time

import pytest
from faultkit import TEXTS, consistent, kill_when, start, write_texts

from kgcore.core.settings import RetrievalOptions
from kgcore.index.pipeline import Job, index_files
from kgcore.index.store.locks import STAGING_DIR
from kgcore.query.engine import QueryEngine

#: (stage line on stderr, seconds to wait after it): parse starts, embed starts, the shard was written (then the
#: commit: measured here, 0.3 s later the shard is moved in and the linked graph written but the manifest not yet
#: replaced; later the manifest is replaced and old files are being removed).  The whole commit now ends about
#: 0.5-0.6 s after the shard line: at 0.6 s the late kill found the process gone in 2 of 3 runs (on d4df1da too,
#: 2026-11-26), so it waits 0.45 s (6 of 6 runs killed it).
POINTS = [("parse  [", 0.0), ("embed  [", 0.5), ("store  [####", 0.3), ("store  [####", 0.45)]


def _age(folder) -> None:
    """Make what the killed writer left older than the freshness guard (as if minutes passed)."""
    old = time.time() - 3600
    for path in folder.rglob("*"):
        os.utime(path, (old, old))


@pytest.mark.parametrize("marker, delay", POINTS, ids=["parse", "embed", "commit", "commit-late"])
def test_a_killed_index_leaves_the_store_consistent(store_copy, tmp_path, marker, delay):
    store, expected = store_copy
    files = write_texts(tmp_path / "in", ["kettle.txt"])
    proc = start("index", files["kettle.txt"], "--collection", "c", "--workers", "1", store=store.root)
    killed = kill_when(proc, marker, delay)
    assert killed.seen, killed.stderr[-1500:]
    assert killed.returncode == -9
    documents = consistent(store, "c")  # before or after the commit point, never in between
    assert documents in (expected["c"], {**expected["c"], "kettle": 3})
    assert consistent(store, "other") == expected["other"]
    _age(store.root)
    store.list()  # listing removes what no live writer holds, and what no manifest names
    assert not list((store.root / STAGING_DIR).iterdir())
    manifest = store.manifest("c")
    assert {p.name for p in (store.doc_path("c") / "documents").iterdir()} == {d.folder for d in manifest.documents}
    assert [p.name for p in store.doc_path("c").glob("linked-*")] == [f"linked-{manifest.generation}"]
    (outcome,) = index_files([Job("kettle.txt", data=TEXTS["kettle.txt"].encode())], store, "c", workers=1)
    assert not outcome.failed and consistent(store, "c") == {**expected["c"], "kettle": 3}
    result = QueryEngine(store).retrieve("c", "Who washed the handkerchiefs?", RetrievalOptions(), use_chroma=True)
    assert result.sentences
