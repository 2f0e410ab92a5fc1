"""The Chroma copy of a collection: collections ``nodes`` and ``sentences`` kept in step incrementally.

Every commit of a collection updates Chroma with what changed: the added
documents' sentences, the removed documents' sentences deleted, nodes whose
vector changed or that appeared upserted, nodes that disappeared deleted.
``generation`` (a file beside Chroma's own) records which collection
generation Chroma holds; it is cleared before Chroma is changed and written
after, so a writer stopped while writing Chroma leaves it marked as behind.
A reader that finds it behind (or Chroma unreadable, :func:`healthy`) asks
the store to rebuild it before using it.
Exact search over the stored matrices stays the default; Chroma answers
the same top-K (tested) and is what a Chroma server would serve.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kgcore.core.types import Sentence
from kgcore.index.graph import GroundedGraph

CHROMA_DIR = "chroma"
NODE_COLLECTION = "nodes"
SENTENCE_COLLECTION = "sentences"
GENERATION_FILE = "generation"
_BATCH = 4000
_SPACE = {"hnsw:space": "cosine"}


def open_chroma(path: Path):
    """A Chroma PersistentClient with telemetry off (no embedding function is ever used)."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    try:
        return chromadb.PersistentClient(path=str(path), settings=ChromaSettings(anonymized_telemetry=False))
    except Exception:
        _forget(path)
        raise


def _forget(path: Path) -> None:
    """Drop Chroma's cached client of ``path``: one that failed to start (a damaged file) stays cached and
    broken otherwise, and the copy rebuilt at the same path could not be opened in this process."""
    from chromadb.api.shared_system_client import SharedSystemClient

    cache = getattr(SharedSystemClient, "_identifier_to_system", {})
    cache.pop(str(path), None)


def generation(path: Path) -> int:
    """The collection generation the Chroma copy at ``path`` holds (-1: none)."""
    try:
        return int((path / GENERATION_FILE).read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return -1


def mark_behind(path: Path) -> None:
    """Record that the Chroma copy at ``path`` holds no complete generation (it is being written, or damaged)."""
    path.mkdir(parents=True, exist_ok=True)
    (path / GENERATION_FILE).write_text("-1", encoding="utf-8")


def healthy(path: Path, sentences: int, nodes: int) -> bool:
    """Whether the Chroma copy at ``path`` opens and holds ``sentences`` sentences and ``nodes`` nodes."""
    try:
        client = open_chroma(path)
        try:
            counts = tuple(client.get_collection(c).count() for c in (SENTENCE_COLLECTION, NODE_COLLECTION))
        finally:
            client.close()
    except Exception:  # noqa: BLE001 - a damaged database fails in many ways; all mean "rebuild it"
        return False
    return counts == (sentences, nodes)


def update(path: Path, graph: GroundedGraph, node_ids: Sequence[str], node_vectors: np.ndarray,
           previous: dict[str, np.ndarray], documents: dict[str, tuple[list[Sentence], np.ndarray]],
           dropped: Sequence[str], generation_no: int) -> None:
    """Bring the Chroma copy to a new generation.

    ``previous`` maps node ids to the vectors Chroma holds; ``documents`` are
    the (re)added documents' sentences and vectors; ``dropped`` the ids of
    documents removed or replaced.
    """
    mark_behind(path)
    client = open_chroma(path)
    try:
        sentences = client.get_or_create_collection(SENTENCE_COLLECTION, embedding_function=None, metadata=_SPACE)
        for doc_id in dropped:
            sentences.delete(where={"document": doc_id})
        for doc_id, (rows, vectors) in documents.items():
            meta = [{"document": doc_id, "position": s.position} for s in rows]
            _batched(sentences.add, [s.id for s in rows], vectors, meta, [s.original for s in rows])
        nodes = client.get_or_create_collection(NODE_COLLECTION, embedding_function=None, metadata=_SPACE)
        _update_nodes(nodes, graph, node_ids, node_vectors, previous)
    finally:
        client.close()
    (path / GENERATION_FILE).write_text(str(generation_no), encoding="utf-8")


def _update_nodes(collection, graph: GroundedGraph, node_ids: Sequence[str], vectors: np.ndarray,
                  previous: dict[str, np.ndarray]) -> None:
    keep = set(node_ids)
    gone = [i for i in previous if i not in keep]
    for start in range(0, len(gone), _BATCH):
        collection.delete(ids=gone[start:start + _BATCH])
    changed = [r for r, i in enumerate(node_ids) if i not in previous or not np.allclose(previous[i], vectors[r])]
    ids = [node_ids[r] for r in changed]
    meta = [{"label": graph.nodes[i].label, "node_type": graph.nodes[i].node_type} for i in ids]
    _batched(collection.upsert, ids, vectors[changed], meta, [graph.nodes[i].label for i in ids])


def _batched(write, ids: list[str], vectors: np.ndarray, metadatas: list[dict], documents: list[str]) -> None:
    for start in range(0, len(ids), _BATCH):
        end = start + _BATCH
        write(ids=ids[start:end], embeddings=np.asarray(vectors[start:end], dtype=np.float32),
              metadatas=metadatas[start:end], documents=documents[start:end])


def query_nodes(path: Path, vectors: np.ndarray, k: int, total: int) -> list[list[tuple[str, float]]]:
    """Top-``k`` (node id, cosine) per query vector from the ``nodes`` collection."""
    client = open_chroma(path)
    try:
        result = client.get_collection(NODE_COLLECTION).query(
            query_embeddings=np.asarray(vectors, dtype=np.float32), n_results=min(k, total))
    finally:
        client.close()
    return [[(i, 1.0 - d) for i, d in zip(ids, dists)] for ids, dists in zip(result["ids"], result["distances"])]
