"""A linked graph's folder, ``linked-<generation>/``, written whole: its graph, node ids and node vectors, the
proper part of its graph (:mod:`~kgcore.index.store.generations`) and the cache of shared nodes' vectors.

The files are written into a temporary folder that is then renamed (and the collection folder synced), so a
reader never sees a half-written linked graph and a power loss never loses one a manifest names.  The
collection's sentence-vector matrix joins the folder afterwards (:mod:`~kgcore.index.store.sentence_matrix`).
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path

import numpy as np

from kgcore.index.store import generations
from kgcore.index.store.integrity import Digest, digest_of, npy_bytes
from kgcore.index.store.link import Linked
from kgcore.index.store.recovery import sync_folder

#: The shared nodes' basic vectors of the last link, reused by the next (kgcore.index.store.link).
SHARED_CACHE = "shared_vectors.npz"


def write_linked(folder: Path, linked: Linked) -> dict[str, Digest]:
    """Write the linked graph into ``folder`` (replacing it whole); the digests of its files."""
    tmp = folder.with_name(f"{folder.name}.{uuid.uuid4().hex[:8]}.tmp")
    tmp.mkdir(parents=True)
    contents = {
        "graph.json": json.dumps(linked.graph.to_node_link(), ensure_ascii=False).encode("utf-8"),
        "node_ids.json": json.dumps(linked.node_ids, ensure_ascii=False).encode("utf-8"),
        "node_vectors.npy": npy_bytes(linked.node_vectors),
        generations.PROPER: generations.proper_part(linked.graph, linked.shared_ids).to_json(),
    }
    for name, data in contents.items():
        (tmp / name).write_bytes(data)
    write_shared_cache(tmp, linked.shared_vectors)
    shutil.rmtree(folder, ignore_errors=True)
    os.rename(tmp, folder)
    sync_folder(folder.parent)  # the rename on disk before the manifest names the folder
    return {name: digest_of(data) for name, data in contents.items()}


def write_shared_cache(folder: Path, vectors: dict[str, np.ndarray]) -> None:
    """The shared nodes' basic vectors by key: a cache, not digested, rebuilt when unreadable."""
    keys = list(vectors)
    matrix = np.stack([vectors[k] for k in keys]) if keys else np.zeros((0, 0), dtype=np.float32)
    np.savez(folder / SHARED_CACHE, keys=np.array(keys), vectors=matrix)


def shared_cache(folder: Path) -> dict[str, np.ndarray]:
    """The shared nodes' basic vectors of the previous link by key (:func:`kgcore.index.store.link.shared_key`);
    empty when missing or unreadable (they are then embedded again)."""
    try:
        with np.load(folder / SHARED_CACHE, allow_pickle=False) as data:
            return dict(zip(data["keys"].tolist(), data["vectors"]))
    except (OSError, ValueError, KeyError):
        return {}
