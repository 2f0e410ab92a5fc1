"""On-disk index store: one folder per document under a store root.

Layout of ``<root>/<doc_id>/``::

    manifest.json          settings, counts, timings, source hash, model names
    sentences.jsonl        one Sentence per line (id, original, normalized, resolved)
    graph.json             the GroundedKG as networkx node-link data
    parses.jsonl           per sentence what the parser saw (SRL frames / PENMAN)
    node_ids.json, node_vectors.npy, sentence_vectors.npy   exact-search copies
    chroma/                Chroma PersistentClient: collections ``nodes`` and ``sentences``

An index is written to a hidden temporary folder and swapped in with
renames only when complete, so a crash leaves the previous index intact and
no half index is ever listed.
"""

from __future__ import annotations

import builtins
import functools
import json
import os
import shutil
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np

from kgcore.core.errors import IndexNotFoundError, InputError, KgcoreError
from kgcore.core.types import ENTITY, NodeType, Sentence
from kgcore.index.graph import GroundedGraph
from kgcore.index.manifest import Manifest

MANIFEST = "manifest.json"
CHROMA_DIR = "chroma"
NODE_COLLECTION = "nodes"
SENTENCE_COLLECTION = "sentences"
_CHROMA_BATCH = 4000


T = TypeVar("T")


@dataclass(frozen=True)
class CacheKey(Generic[T]):
    """A typed slot in :class:`IndexCache`, declared by the module that fills it.

    >>> WORDS: CacheKey[list[str]] = CacheKey("words")
    >>> cache = IndexCache()
    >>> cache.get(WORDS, lambda: ["a"]), cache.get(WORDS, lambda: ["never built"])
    (['a'], ['a'])
    """

    name: str


class IndexCache:
    """Structures derived from an index by higher layers (a BM25 model, an incidence matrix), built once."""

    def __init__(self) -> None:
        self._values: dict[CacheKey[Any], Any] = {}

    def get(self, key: CacheKey[T], build: Callable[[], T]) -> T:
        """The value under ``key``, built by ``build()`` on first use."""
        if key not in self._values:
            self._values[key] = build()
        value: T = self._values[key]
        return value


@dataclass
class Index:
    """A loaded index: everything retrieval and the app need, in memory."""

    doc_id: str
    path: Path
    manifest: Manifest
    sentences: list[Sentence]
    graph: GroundedGraph
    node_ids: list[str]
    node_vectors: np.ndarray
    sentence_vectors: np.ndarray
    _by_id: dict[str, int] = field(default_factory=dict, repr=False)
    #: Structures higher layers derive from the index (BM25 model, incidence ...), built on first use.
    cache: IndexCache = field(default_factory=IndexCache, repr=False)

    def __post_init__(self) -> None:
        self._by_id = {s.id: i for i, s in enumerate(self.sentences)}

    def sentence(self, sentence_id: str) -> Sentence:
        try:
            return self.sentences[self._by_id[sentence_id]]
        except KeyError:
            raise InputError("sentence_id", f"{sentence_id!r} is not a sentence of {self.doc_id!r}") from None

    def sentence_row(self, sentence_id: str) -> int:
        return self._by_id[sentence_id]

    def has_sentence(self, sentence_id: str) -> bool:
        return sentence_id in self._by_id

    @property
    def total_words(self) -> int:
        return self.manifest.counts.words or sum(len(s.original.split()) for s in self.sentences)

    @functools.cached_property
    def node_row(self) -> dict[str, int]:
        """Row of each node id in :attr:`node_vectors`."""
        return {node_id: row for row, node_id in enumerate(self.node_ids)}

    @functools.cached_property
    def type_rows(self) -> dict[NodeType, np.ndarray]:
        """Per node type, a boolean mask over the rows of :attr:`node_vectors`."""
        types = np.array([self.graph.nodes[i].node_type for i in self.node_ids])
        return {t: types == t for t in (ENTITY, "action")}

    @functools.cached_property
    def neighbour_rows(self) -> list[np.ndarray]:
        """Per node row, the rows of its graph neighbours."""
        row = self.node_row
        return [np.fromiter((row[n] for n in self.graph.neighbors(i)), dtype=np.int64) for i in self.node_ids]

    def analyses(self) -> dict[str, dict]:
        """Per-sentence parser output (frames or PENMAN), read on demand."""
        path = self.path / "parses.jsonl"
        if not path.exists():
            return {}
        with path.open(encoding="utf-8") as fh:
            return {row["sentence_id"]: row["analysis"] for row in map(json.loads, fh)}

    def chroma_query_nodes(self, vectors: np.ndarray, k: int) -> list[list[tuple[str, float]]]:
        """Top-``k`` (node id, cosine) per query vector from the Chroma node collection."""
        client = open_chroma(self.path / CHROMA_DIR)
        try:
            result = client.get_collection(NODE_COLLECTION).query(
                query_embeddings=np.asarray(vectors, dtype=np.float32), n_results=min(k, len(self.node_ids))
            )
        finally:
            client.close()
        return [[(i, 1.0 - d) for i, d in zip(ids, dists)] for ids, dists in zip(result["ids"], result["distances"])]


def open_chroma(path: Path):
    """A Chroma PersistentClient with telemetry off (no embedding function is ever used)."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    return chromadb.PersistentClient(path=str(path), settings=ChromaSettings(anonymized_telemetry=False))


class Store:
    """The index store rooted at ``root`` (``data/`` or ``$KGCORE_STORE``)."""

    def __init__(self, root: str | Path):
        self.root = Path(root)

    # -- reading -------------------------------------------------------------
    def doc_path(self, doc_id: str) -> Path:
        if not doc_id or "/" in doc_id or "\\" in doc_id or doc_id.startswith("."):
            raise InputError("doc_id", f"{doc_id!r} is not a valid document id")
        return self.root / doc_id

    def list(self) -> list[Manifest]:
        """Manifests of all complete indexes, newest first."""
        if not self.root.is_dir():
            return []
        manifests = []
        for child in sorted(self.root.iterdir()):
            if child.name.startswith(".") or not (child / MANIFEST).is_file():
                continue
            try:
                manifests.append(_read_manifest(child / MANIFEST))
            except KgcoreError:
                continue  # a damaged manifest is not listed; `manifest()` reports it
        return sorted(manifests, key=lambda m: m.created_at, reverse=True)

    def exists(self, doc_id: str) -> bool:
        self._recover(doc_id)
        return (self.doc_path(doc_id) / MANIFEST).is_file()

    def manifest(self, doc_id: str) -> Manifest:
        if not self.exists(doc_id):
            known = ", ".join(m.doc_id for m in self.list()) or "none"
            raise IndexNotFoundError(f"No index for document {doc_id!r} in {self.root} (indexed: {known}).")
        return _read_manifest(self.doc_path(doc_id) / MANIFEST)

    def load(self, doc_id: str) -> Index:
        manifest = self.manifest(doc_id)
        path = self.doc_path(doc_id)
        with (path / "sentences.jsonl").open(encoding="utf-8") as fh:
            sentences = [Sentence.from_dict(json.loads(line)) for line in fh]
        graph = GroundedGraph.from_node_link(json.loads((path / "graph.json").read_text(encoding="utf-8")))
        node_ids = json.loads((path / "node_ids.json").read_text(encoding="utf-8"))
        return Index(
            doc_id, path, manifest, sentences, graph, node_ids,
            np.load(path / "node_vectors.npy"), np.load(path / "sentence_vectors.npy"),
        )

    def delete(self, doc_id: str) -> None:
        path = self.doc_path(doc_id)
        if not path.exists():
            raise IndexNotFoundError(f"No index for document {doc_id!r} in {self.root}.")
        trash = self.root / f".trash-{doc_id}-{uuid.uuid4().hex[:8]}"
        os.rename(path, trash)  # the index disappears atomically, then is removed
        shutil.rmtree(trash, ignore_errors=True)

    def _recover(self, doc_id: str) -> None:
        """Finish a swap interrupted between its two renames (restore the old index)."""
        path = self.doc_path(doc_id)
        if path.exists() or not self.root.is_dir():
            return
        for old in sorted(self.root.glob(f".old-{doc_id}-*")):
            if (old / MANIFEST).is_file():
                os.rename(old, path)
                return

    # -- writing -------------------------------------------------------------
    def write(
        self,
        manifest: Manifest,
        sentences: builtins.list[Sentence],
        graph: GroundedGraph,
        node_ids: builtins.list[str],
        node_vectors: np.ndarray,
        sentence_vectors: np.ndarray,
        analyses: Iterable[tuple[str, dict]] = (),
    ) -> Path:
        """Write a complete index to a temporary folder, then swap it in."""
        doc_id = manifest.doc_id
        final = self.doc_path(doc_id)
        self.root.mkdir(parents=True, exist_ok=True)
        self._remove_stale(doc_id)
        tmp = self.root / f".tmp-{doc_id}-{uuid.uuid4().hex[:8]}"
        tmp.mkdir()
        try:
            _write_files(tmp, sentences, graph, node_ids, node_vectors, sentence_vectors, analyses)
            _write_chroma(tmp / CHROMA_DIR, graph, node_ids, node_vectors, sentences, sentence_vectors)
            # The manifest goes last: a folder without one is never treated as an index.
            _write_json(tmp / MANIFEST, manifest.to_dict())
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        self._swap(tmp, final)
        return final

    def _swap(self, tmp: Path, final: Path) -> None:
        old = self.root / f".old-{final.name}-{uuid.uuid4().hex[:8]}"
        if final.exists():
            os.rename(final, old)
        os.rename(tmp, final)
        shutil.rmtree(old, ignore_errors=True)

    def _remove_stale(self, doc_id: str) -> None:
        self._recover(doc_id)
        for stale in list(self.root.glob(f".tmp-{doc_id}-*")) + list(self.root.glob(f".old-{doc_id}-*")):
            shutil.rmtree(stale, ignore_errors=True)


def _read_manifest(path: Path) -> Manifest:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise KgcoreError(f"{path}: damaged manifest ({exc}); re-index the document") from exc
    return Manifest.from_dict(data, str(path))


def _write_json(path: Path, data) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")


def _write_files(tmp, sentences, graph, node_ids, node_vectors, sentence_vectors, analyses) -> None:
    with (tmp / "sentences.jsonl").open("w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(s.to_dict(), ensure_ascii=False) + "\n" for s in sentences)
    with (tmp / "parses.jsonl").open("w", encoding="utf-8") as fh:
        for sentence_id, analysis in analyses:
            fh.write(json.dumps({"sentence_id": sentence_id, "analysis": analysis}, ensure_ascii=False) + "\n")
    (tmp / "graph.json").write_text(json.dumps(graph.to_node_link(), ensure_ascii=False), encoding="utf-8")
    _write_json(tmp / "node_ids.json", node_ids)
    np.save(tmp / "node_vectors.npy", np.asarray(node_vectors, dtype=np.float32))
    np.save(tmp / "sentence_vectors.npy", np.asarray(sentence_vectors, dtype=np.float32))


def _write_chroma(path, graph, node_ids, node_vectors, sentences, sentence_vectors) -> None:
    client = open_chroma(path)
    try:
        nodes = client.create_collection(NODE_COLLECTION, embedding_function=None, metadata={"hnsw:space": "cosine"})
        node_meta = [{"label": graph.nodes[i].label, "node_type": graph.nodes[i].node_type} for i in node_ids]
        _add_batched(nodes, node_ids, node_vectors, node_meta, [graph.nodes[i].label for i in node_ids])
        sents = client.create_collection(SENTENCE_COLLECTION, embedding_function=None,
                                         metadata={"hnsw:space": "cosine"})
        sent_meta = [{"position": s.position} for s in sentences]
        _add_batched(sents, [s.id for s in sentences], sentence_vectors, sent_meta, [s.original for s in sentences])
    finally:
        client.close()


def _add_batched(collection, ids, vectors, metadatas, documents) -> None:
    for start in range(0, len(ids), _CHROMA_BATCH):
        end = start + _CHROMA_BATCH
        collection.add(
            ids=list(ids[start:end]),
            embeddings=np.asarray(vectors[start:end], dtype=np.float32),
            metadatas=metadatas[start:end],
            documents=documents[start:end],
        )
