"""Fixtures of the fault tier: a small committed store (built once) that each probe copies and damages."""

from __future__ import annotations

import shutil

import pytest
from faultkit import TEXTS, consistent

from kgcore.index.pipeline import Job, index_files
from kgcore.index.store.disk import Store


@pytest.fixture(scope="session", autouse=True)
def one_torch_thread():
    """This process's models on one thread while the tier runs (its probes also start model processes)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


#: The tier probes the transaction with the Chroma copy written inside it (``KGCORE_CHROMA_SYNC=commit``, as on a
#: Chroma server): a kill or damage then also meets Chroma.  In-process stores get it here, the probed processes
#: from ``faultkit.ENV``; the lazy default is tested in tests/models.
CHROMA_SYNC = "commit"


@pytest.fixture(scope="session")
def committed(tmp_path_factory):
    """A store with collection ``c`` (rabbit, ship) and collection ``other`` (garden), and their sentence counts."""
    root = tmp_path_factory.mktemp("committed")
    store = Store(root, chroma_sync=CHROMA_SYNC)
    jobs = [Job(name, data=TEXTS[name].encode()) for name in ("rabbit.txt", "ship.txt")]
    (c,) = index_files(jobs, store, "c", workers=1)
    (other,) = index_files([Job("garden.txt", data=TEXTS["garden.txt"].encode())], store, "other", workers=1)
    assert not c.failed and not other.failed
    return root, {"c": consistent(store, "c"), "other": consistent(store, "other")}


@pytest.fixture
def store_copy(committed, tmp_path):
    """A private copy of the committed store: (its Store, the expected documents per collection)."""
    root, expected = committed
    shutil.copytree(root, tmp_path / "store")
    return Store(tmp_path / "store", chroma_sync=CHROMA_SYNC), expected
