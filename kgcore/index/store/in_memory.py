"""A loaded collection: everything retrieval and the app need, in memory.

Sentences of all documents are in reading order (document by document, in
the order they were added); ``position`` is the row of a sentence.  The
graph is the collection's linked graph and ``node_vectors`` its final node
vectors.  Scopes (some documents, front matter in or out) are row masks.
Both vector matrices are usually read-only memory maps of the stored files
(shared by every process serving the collection): code that changes vectors
works on a copy.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np
from scipy import sparse

from kgcore.core.deprecation import renamed_attribute
from kgcore.core.document import Paragraph, Reference
from kgcore.core.errors import InputError
from kgcore.core.graph import GroundedGraph
from kgcore.core.once import KeyedLocks, once
from kgcore.core.types import ENTITY, OPT_IN, RETRIEVABLE, NodeType, Sentence, split_sentence_id
from kgcore.index.store import legacy, shard
from kgcore.index.store.chroma import CHROMA_DIR, ChromaCopy
from kgcore.index.store.collection import CollectionManifest, DocumentEntry

T = TypeVar("T")
DOCUMENTS_DIR = "documents"


#: The :class:`CacheKey` group of what people's entity merge and split decisions change.
ENTITIES = "entities"


@dataclass(frozen=True)
class CacheKey(Generic[T]):
    """A typed slot in :class:`IndexCache`, declared by the module that fills it.

    >>> WORDS: CacheKey[list[str]] = CacheKey("words")
    >>> cache = IndexCache()
    >>> cache.get(WORDS, lambda: ["a"]), cache.get(WORDS, lambda: ["never built"])
    (['a'], ['a'])
    """

    name: str
    #: Keys of one group are dropped together (:meth:`IndexCache.drop_group`): ``entities`` for whatever depends on
    #: the entities people's merge and split decisions change.
    group: str = ""


class IndexCache:
    """Structures derived from an index by higher layers (a BM25 model, an incidence matrix), built once, also
    when several threads ask at the same time (the others wait for the one building it)."""

    def __init__(self) -> None:
        self._values: dict[CacheKey[Any], Any] = {}
        self._building = KeyedLocks()

    def get(self, key: CacheKey[T], build: Callable[[], T]) -> T:
        """The value under ``key``, built by ``build()`` on first use."""
        return once(self._values, key, build, self._building(key))

    def peek(self, key: CacheKey[T]) -> T | None:
        """The value under ``key`` when built, else None (nothing is built)."""
        return self._values.get(key)

    def keys(self) -> list[CacheKey[Any]]:
        """The keys built so far."""
        return list(self._values)

    def drop(self, key: CacheKey[Any]) -> None:
        """Forget the value under ``key`` (built again on next use)."""
        self._values.pop(key, None)

    def drop_group(self, group: str) -> None:
        """Forget every value whose key is in ``group``.

        >>> A, B = CacheKey("a", group="entities"), CacheKey("b")
        >>> cache = IndexCache(); _ = cache.get(A, lambda: 1), cache.get(B, lambda: 2)
        >>> cache.drop_group("entities"); cache.get(A, lambda: 3), cache.get(B, lambda: 4)
        (3, 2)
        """
        for key in [k for k in list(self._values) if k.group == group]:  # a copy: other threads may add keys
            self._values.pop(key, None)


@dataclass
class Index:
    """A loaded collection (see the module docstring); ``collection`` is its name."""

    collection: str
    path: Path
    manifest: CollectionManifest
    #: In collection order (row = ``position``): a list, or a loaded collection's mapped
    #: :class:`~kgcore.index.store.sentence_table.SentenceTable` (each row decoded when read).
    sentences: Sequence[Sentence]
    graph: GroundedGraph
    node_ids: list[str]
    node_vectors: np.ndarray
    sentence_vectors: np.ndarray
    #: Structures higher layers derive from the index (BM25 model, incidence ...), built on first use.
    cache: IndexCache = field(default_factory=IndexCache, repr=False)
    #: Where the collection's Chroma copy lives (None: embedded, in ``path/chroma``).
    chroma: ChromaCopy | None = field(default=None, repr=False)

    @functools.cached_property
    def _by_id(self) -> dict[str, int]:
        """Each sentence id's row (read from every row once, when first asked; the ids interned, so a mapped table's
        ids are the graph's grounding strings, not another copy)."""
        return {sys.intern(s.id): i for i, s in enumerate(self.sentences)}

    @property
    def chroma_copy(self) -> ChromaCopy:
        """The collection's Chroma copy: :attr:`chroma`, or the embedded one in ``path/chroma``."""
        return self.chroma or ChromaCopy(self.path / CHROMA_DIR)

    @property
    def name(self) -> str:
        return self.collection

    doc_id = renamed_attribute("doc_id", "collection")

    # -- sentences -----------------------------------------------------------------
    def sentence(self, sentence_id: str) -> Sentence:
        try:
            return self.sentences[self._by_id[sentence_id]]
        except KeyError:
            raise InputError("sentence_id", f"{sentence_id!r} is not a sentence of {self.collection!r}") from None

    def sentence_row(self, sentence_id: str) -> int:
        return self._by_id[sentence_id]

    def has_sentence(self, sentence_id: str) -> bool:
        return sentence_id in self._by_id

    @property
    def total_words(self) -> int:
        return self.manifest.counts.words or sum(len(s.original.split()) for s in self.sentences)

    # -- documents -----------------------------------------------------------------
    def document(self, doc_id: str) -> DocumentEntry:
        return self.manifest.document(doc_id)

    def shard_path(self, doc_id: str) -> Path:
        """The folder of a document's shard (a kgcore 0.1 collection of one: the collection folder itself)."""
        folder = self.document(doc_id).folder
        return self.path / DOCUMENTS_DIR / folder if folder != legacy.IN_PLACE else self.path

    def paragraphs(self, doc_id: str) -> list[Paragraph]:
        """The cleaned document's paragraphs (empty for a document indexed by kgcore 0.1)."""
        path = self.shard_path(doc_id) / "paragraphs.jsonl"
        return shard.read_paragraphs(self.shard_path(doc_id), self.document(doc_id).files) if path.exists() else []

    def references(self, doc_id: str) -> list[Reference]:
        """A document's parsed reference list (empty for books and documents indexed before kgcore 0.3), read
        from its shard once (every answer that cites a work names it)."""
        key: CacheKey[list[Reference]] = CacheKey(f"references/{doc_id}")
        files = self.document(doc_id).files
        kept = self.cache.get(key, lambda: list(shard.read_references(self.shard_path(doc_id), files)))
        return list(kept)  # a copy: the kept list is shared

    def source_path(self, doc_id: str) -> Path | None:
        """The kept source file of a document, when the store has it."""
        return shard.source_file(self.shard_path(doc_id))

    def analyses(self) -> dict[str, dict]:
        """Per-sentence parser output (frames or PENMAN) of every document, read on demand."""
        out: dict[str, dict] = {}
        for entry in self.manifest.documents:
            if entry.folder == legacy.IN_PLACE:
                out.update(legacy.read_analyses(self.path, entry.doc_id))
            else:
                out.update(shard.read_analyses(self.shard_path(entry.doc_id), entry.files))
        return out

    # -- scopes --------------------------------------------------------------------
    @functools.cached_property
    def sentence_documents(self) -> np.ndarray:
        """The document id of every sentence row."""
        return np.array([s.doc_id for s in self.sentences], dtype=object)

    def sentence_scope(self, documents: Iterable[str] = (), front_matter: bool = False) -> np.ndarray | None:
        """Rows retrieval may use: the given documents' (all when empty), of a retrievable role (title pages,
        contents and headings too with ``front_matter``; tables, equations, running headers and reference
        entries never).

        None means every row.  An unknown document is an :class:`InputError` naming the collection's documents.
        """
        wanted = tuple(documents)
        for doc_id in wanted:
            self.document(doc_id)
        mask = self.role_rows(RETRIEVABLE | OPT_IN if front_matter else RETRIEVABLE)
        if wanted:
            mask = mask & np.isin(self.sentence_documents, list(wanted))
        return None if mask.all() else mask

    def role_rows(self, roles: frozenset[str]) -> np.ndarray:
        """Rows of a role in ``roles``, as a mask (computed once per role set; read-only)."""
        key = CacheKey[np.ndarray](f"role-rows:{','.join(sorted(roles))}")

        def build() -> np.ndarray:
            mask = np.array([s.role in roles for s in self.sentences], dtype=bool)
            mask.flags.writeable = False
            return mask

        return self.cache.get(key, build)

    def node_scope(self, sentence_rows: np.ndarray | None) -> np.ndarray | None:
        """Node rows grounded in at least one of the allowed sentence rows (None: every node)."""
        if sentence_rows is None:
            return None
        return (self.grounding @ np.asarray(sentence_rows, dtype=np.float32)) > 0

    @functools.cached_property
    def grounding(self) -> sparse.csr_matrix:
        """Node rows x sentence rows: 1 where the node is grounded in the sentence."""
        rows, cols = [], []
        for i, node_id in enumerate(self.node_ids):
            for sid in self.graph.nodes[node_id].grounded_texts:
                rows.append(i)
                cols.append(self._by_id[sid])
        data = np.ones(len(rows), dtype=np.float32)
        return sparse.csr_matrix((data, (rows, cols)), shape=(len(self.node_ids), len(self.sentences)))

    # -- nodes ---------------------------------------------------------------------
    @functools.cached_property
    def node_row(self) -> dict[str, int]:
        """Row of each node id in :attr:`node_vectors`."""
        return {node_id: row for row, node_id in enumerate(self.node_ids)}

    @functools.cached_property
    def type_rows(self) -> dict[NodeType, np.ndarray]:
        """Per node type, a boolean mask over the rows of :attr:`node_vectors`."""
        types = np.array([self.graph.nodes[i].node_type for i in self.node_ids])
        rows = {t: types == t for t in (ENTITY, "action")}
        for mask in rows.values():
            mask.flags.writeable = False  # shared by every question (and its penalty row is kept: match.py)
        return rows

    @functools.cached_property
    def neighbour_runs(self) -> tuple[np.ndarray, np.ndarray]:
        """Every node row's neighbour rows (linked by an edge either way; each once, ascending), concatenated, and
        where each row's run starts, the end appended: row ``r``'s are ``flat[starts[r]:starts[r + 1]]``.  Built
        from the edge list in one sparse sum (a loop over 124,000 ObliQA nodes' neighbour sets took 1-2 s)."""
        row, edges, n = self.node_row, self.graph.edges, len(self.node_ids)
        ends = np.fromiter((row[x] for e in edges for x in (e.source, e.target)), dtype=np.int64, count=2 * len(edges))
        pairs = (np.r_[ends[0::2], ends[1::2]], np.r_[ends[1::2], ends[0::2]])
        adjacency = sparse.csr_matrix((np.ones(len(ends), dtype=np.int32), pairs), shape=(n, n))
        adjacency.sum_duplicates()  # sorts each row's columns too
        return adjacency.indptr.astype(np.int64), adjacency.indices.astype(np.int64)

    @functools.cached_property
    def node_documents(self) -> dict[str, list[str]]:
        """The documents each node is grounded in, in collection order."""
        order = {d: i for i, d in enumerate(self.manifest.doc_ids)}
        out = {}
        for node_id, node in self.graph.nodes.items():
            docs = {split_sentence_id(s)[0] for s in node.grounded_texts}
            out[node_id] = sorted(docs, key=lambda d: order.get(d, len(order)))
        return out
