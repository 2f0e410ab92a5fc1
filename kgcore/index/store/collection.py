"""The typed manifest of a collection: its documents, the options they share, and the linked graph's size.

Every index is a collection of one or more documents (a single book is a
collection of one).  ``collection.json`` in the collection's folder is
:meth:`CollectionManifest.to_dict`; each document keeps its own
:class:`~kgcore.index.store.manifest.Manifest` (what was indexed, how, how long)
and the folder its shard lives in.

>>> m = CollectionManifest("shelf", documents=(DocumentEntry(Manifest("peter", source_file="peter.txt"), "peter.1"),))
>>> m.doc_ids, m.source_file
(('peter',), 'peter.txt')
>>> CollectionManifest.from_dict(m.to_dict()) == m
True
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from kgcore.core.errors import DamagedIndexError, InputError, KgcoreError
from kgcore.core.settings import IndexOptions
from kgcore.core.streamed_json import members
from kgcore.index.store.integrity import Digest, PackedDigests, as_digests
from kgcore.index.store.manifest import Manifest, Models, manifest_hash

#: Version of the on-disk collection layout (kgcore 0.1 wrote one folder per document, without a version).
FORMAT = 2


#: What to run when a collection's linked files (its graph, vectors, sentence table) are damaged.
LINKED_REMEDY = "index any document into the collection again (the linked graph is rebuilt), or re-index with --force"


def damaged_manifest_remedy(name: str) -> str:
    """What to do about collection ``name`` whose manifest cannot be read."""
    return (f"re-index a document into it with --force (its other readable documents are kept), or delete it "
            f"(python -m kgcore delete --collection {name})")


def name_a_few(ids: Sequence[str], count: int = 10) -> str:
    """The first ``count`` of ``ids`` and how many more, for a message about a collection of any size.

    >>> name_a_few(["a", "b", "c"], 2), name_a_few([])
    ('a, b and 1 more', 'none')
    """
    more = f" and {len(ids) - count} more" if len(ids) > count else ""
    return ", ".join(ids[:count]) + more if ids else "none"


@dataclass(frozen=True)
class DocumentEntry:
    """One document of a collection: its manifest, the folder (under ``documents/``) of its shard, and the
    digests of the shard's files recorded when it joined (none for collections written before kgcore 0.3)."""

    manifest: Manifest
    folder: str
    files: Mapping[str, Digest] = field(default_factory=dict, compare=False)

    @property
    def doc_id(self) -> str:
        return self.manifest.doc_id

    def remedy(self, collection: str) -> str:
        """What to run when this document's shard in ``collection`` is damaged: index its source again."""
        source = self.manifest.source_file or self.doc_id
        return f"re-index {source} with --force (python -m kgcore index {source} --collection {collection} --force)"

    def to_dict(self) -> dict[str, Any]:
        files = {"files": {k: list(v) for k, v in self.files.items()}} if self.files else {}
        return {"folder": self.folder, "manifest": self.manifest.to_dict(), **files}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str) -> DocumentEntry:
        files = PackedDigests.of(as_digests(data.get("files")))
        return cls(Manifest.from_dict(data["manifest"], where), str(data["folder"]), files)


@dataclass(frozen=True)
class CollectionCounts:
    """Sizes of a collection's linked graph; ``shared_entities`` are nodes grounded in more than one document."""

    documents: int = 0
    sentences: int = 0
    words: int = 0
    nodes: int = 0
    entities: int = 0
    actions: int = 0
    edges: int = 0
    shared_entities: int = 0


#: Linked files that are the documents' own files put together (the collection's sentence-vector matrix,
#: :mod:`~kgcore.index.store.sentence_matrix`, and its sentence table, :mod:`~kgcore.index.store.sentence_table`):
#: they change nothing an answer reads.
SENTENCE_VECTORS = "sentence_vectors.npy"
SENTENCE_TABLE = ("sentences.jsonl", "sentence_offsets.npy")
DERIVED_FILES = frozenset({SENTENCE_VECTORS, *SENTENCE_TABLE})


class DocumentTable:
    """A collection's documents while a transaction changes them: in the collection's order, found by id and by
    the hash of the bytes each was indexed from, so that deciding a batch of 100,000 files (reused, clashing,
    new) looks each one up instead of scanning the collection per file."""

    def __init__(self, entries: Iterable[DocumentEntry] = ()) -> None:
        self._by_id: dict[str, DocumentEntry] = {}
        self._by_hash: dict[str, dict[str, None]] = {}  # source hash -> the ids holding it, in order
        for entry in entries:
            self.put(entry)

    def __len__(self) -> int:
        return len(self._by_id)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._by_id

    def entries(self) -> list[DocumentEntry]:
        """Every entry, in order."""
        return list(self._by_id.values())

    def get(self, doc_id: str) -> DocumentEntry:
        return self._by_id[doc_id]

    def holding(self, source_sha256: str) -> Manifest | None:
        """The first document indexed from bytes of this hash, if any."""
        ids = self._by_hash.get(source_sha256)
        return self._by_id[next(iter(ids))].manifest if ids else None

    def put(self, entry: DocumentEntry, in_place: bool = False) -> None:
        """Add ``entry`` last, replacing the document with its id (``in_place``: where that one stood)."""
        old = self._by_id.get(entry.doc_id)
        if old is not None and not in_place:
            self.drop(entry.doc_id)
        elif old is not None and old.manifest.source_sha256 != entry.manifest.source_sha256:
            self._by_hash[old.manifest.source_sha256].pop(entry.doc_id, None)
        self._by_id[entry.doc_id] = entry
        self._by_hash.setdefault(entry.manifest.source_sha256, {})[entry.doc_id] = None

    def drop(self, doc_id: str) -> None:
        entry = self._by_id.pop(doc_id, None)
        if entry is not None:
            self._by_hash[entry.manifest.source_sha256].pop(doc_id, None)


@dataclass(frozen=True)
class CollectionManifest:
    """One collection's manifest (``collection.json``)."""

    name: str
    documents: tuple[DocumentEntry, ...] = ()
    options: IndexOptions = field(default_factory=IndexOptions)
    models: Models = field(default_factory=Models)
    counts: CollectionCounts = field(default_factory=CollectionCounts)
    kgcore_version: str = ""
    created_at: str = ""
    updated_at: str = ""
    #: Increases with every change; names the folder of the linked graph (``linked-{generation}``).
    generation: int = 0
    link_seconds: float = field(default=0.0, compare=False)
    format: int = FORMAT
    #: Digests of the files of ``linked-<generation>/`` (none for collections written before kgcore 0.3).
    linked_files: Mapping[str, Digest] = field(default_factory=dict, compare=False)
    #: Keys a newer kgcore wrote that this one does not know; written back unchanged.
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
    #: Why the collection cannot be read (only on the entries :meth:`Store.list` gives for damaged ones).
    damaged: str = field(default="", compare=False)

    @classmethod
    def from_json(cls, text: str, where: str = "collection.json") -> CollectionManifest:
        """:meth:`from_dict` of the manifest's JSON ``text``, each document's entry built as soon as it is read
        (:mod:`~kgcore.core.streamed_json`: no parse tree of every entry left as holes between them; 100,000
        documents' manifest: 481 MB held instead of 852 MB).  A damaged one is a
        :class:`DamagedIndexError` naming ``where``, a newer kgcore's says so first.

        >>> m = CollectionManifest.from_json('{"name": "c", "documents": [{"folder": "d.1", "manifest": '
        ...                                  '{"doc_id": "d"}, "files": {}}], "format": 2}')
        >>> m.name, m.doc_ids, m.format
        ('c', ('d',), 2)
        """
        data: dict[str, Any] = {}
        entries: list[DocumentEntry] = []
        failed: Exception | None = None
        try:
            for key, value in members(text, ("documents",)):
                if key != "documents":
                    data[key] = value
                elif failed is None:
                    try:
                        entries.append(DocumentEntry.from_dict(value, where))
                    except (KeyError, TypeError, ValueError, AttributeError, InputError, KgcoreError) as exc:
                        failed = exc  # reported after the format: a newer kgcore's manifest says so first
        except ValueError as exc:
            raise DamagedIndexError(where, f"not valid JSON: {exc}",
                                    damaged_manifest_remedy(str(data.get("name") or "NAME"))) from None
        manifest = cls.from_dict({**data, "documents": []}, where)  # the format checked, the rest read
        if failed is not None:
            raise DamagedIndexError(where, f"unreadable collection manifest: {type(failed).__name__}: {failed}",
                                    damaged_manifest_remedy(manifest.name)) from failed
        return dataclasses.replace(manifest, documents=tuple(entries))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "collection.json") -> CollectionManifest:
        """Read a collection manifest; a malformed one is a :class:`KgcoreError` naming ``where``."""
        known = {f.name for f in fields(cls)} - {"extra", "damaged"}
        if isinstance(data, Mapping) and isinstance(data.get("format"), int) and data["format"] > FORMAT:
            raise KgcoreError(f"{where}: written by a newer kgcore (format {data['format']}); upgrade kgcore")
        try:
            return cls(
                name=str(data["name"]),
                documents=tuple(DocumentEntry.from_dict(d, where) for d in data.get("documents", [])),
                options=IndexOptions(**data.get("options", {})),
                models=Models(**data.get("models", {})),
                counts=CollectionCounts(**data.get("counts", {})),
                kgcore_version=str(data.get("kgcore_version", "")),
                created_at=str(data.get("created_at", "")), updated_at=str(data.get("updated_at", "")),
                generation=int(data.get("generation", 0)), link_seconds=float(data.get("link_seconds", 0.0)),
                format=int(data.get("format", FORMAT)), linked_files=as_digests(data.get("linked_files")),
                extra={k: v for k, v in data.items() if k not in known},
            )
        except (KeyError, TypeError, ValueError, AttributeError, InputError, KgcoreError) as exc:
            name = data.get("name") if isinstance(data, Mapping) else None
            raise DamagedIndexError(where, f"unreadable collection manifest: {type(exc).__name__}: {exc}",
                                    damaged_manifest_remedy(str(name or "NAME"))) from exc

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.format, "name": self.name, "kgcore_version": self.kgcore_version,
            "created_at": self.created_at, "updated_at": self.updated_at, "generation": self.generation,
            "options": self.options.to_dict(), "models": _plain(self.models), "counts": _plain(self.counts),
            "link_seconds": self.link_seconds, "documents": [d.to_dict() for d in self.documents],
            **({"linked_files": {k: list(v) for k, v in self.linked_files.items()}} if self.linked_files else {}),
            **self.extra,
        }

    # -- what callers ask of an index ---------------------------------------------------
    @property
    def doc_ids(self) -> tuple[str, ...]:
        return tuple(d.doc_id for d in self.documents)

    def document(self, doc_id: str) -> DocumentEntry:
        """The entry of ``doc_id`` (looked up by id: every selected sentence asks for its document, and a scan of
        30,000 entries each took 0.7 s a question); an unknown id is an :class:`InputError` naming the
        collection's first documents.

        >>> CollectionManifest("c").document("x")
        Traceback (most recent call last):
        ...
        kgcore.core.errors.InputError: document: 'x' is not a document of collection 'c' (documents: none)
        """
        entry = self._by_id.get(doc_id)
        if entry is not None:
            return entry
        raise InputError("document", f"{doc_id!r} is not a document of collection {self.name!r} "
                                     f"(documents: {name_a_few(self.doc_ids)})")

    @functools.cached_property
    def _by_id(self) -> dict[str, DocumentEntry]:
        """Each document's entry by its id (the first, were one repeated), built once: the manifest is frozen."""
        return {entry.doc_id: entry for entry in reversed(self.documents)}

    @property
    def source_file(self) -> str:
        """The file name of a collection of one; otherwise the collection's name (what an LLM is told it reads)."""
        return self.documents[0].manifest.source_file if len(self.documents) == 1 else self.name

    @property
    def source_sha256(self) -> str:
        """One hash over the documents' source hashes, in order."""
        joined = "\n".join(d.manifest.source_sha256 for d in self.documents)
        return hashlib.sha256(joined.encode()).hexdigest()

    @property
    def stamp(self) -> str:
        """Changes whenever the collection does (caches key on it)."""
        return f"{self.created_at}/{self.generation}"

    @functools.cached_property
    def content_hash(self) -> str:
        """:func:`manifest_hash` of this manifest: which index, exactly, answered (the manifest is frozen, so
        it is hashed once: each audit record names it).  Files derived from the documents' own files alone
        (:data:`DERIVED_FILES`) are left out: an older collection gains them on its first load, and its
        reviewers' records must not read as answered by another index."""
        manifest = self.to_dict()
        linked = {k: v for k, v in manifest.get("linked_files", {}).items() if k not in DERIVED_FILES}
        manifest.pop("linked_files", None)
        return manifest_hash({**manifest, **({"linked_files": linked} if linked else {})})

    @property
    def variant(self) -> str:
        """``parser/coref/embedding`` of the collection, e.g. ``srl/heuristic/basic``."""
        return f"{self.options.parser}/{self.options.coref}/{self.options.embedding}"


@dataclass(frozen=True)
class CollectionOutcome:
    """What one ``index`` call did to one collection: documents added, reused and failed, and the collection after.

    ``collection`` is None when nothing could be indexed into a collection that did not exist.
    """

    name: str
    collection: CollectionManifest | None
    added: tuple[Manifest, ...] = ()
    reused: tuple[Manifest, ...] = ()
    failed: tuple[tuple[str, str], ...] = ()
    seconds: float = 0.0
    #: What went wrong after the documents were committed (the communities could not be built): they are indexed.
    notes: tuple[str, ...] = ()

    def document_lines(self) -> list[dict[str, Any]]:
        """One JSON line per document, as ``python -m kgcore index`` prints them."""
        lines = [{**_document_line(m), "collection": self.name, "status": status, "reused": status == "reused"}
                 for status, group in (("added", self.added), ("reused", self.reused)) for m in group]
        return lines + [{"file": f, "collection": self.name, "status": "failed", "reason": r} for f, r in self.failed]

    def to_dict(self) -> dict[str, Any]:
        """Everything, as JSON (a background job hands its outcome to the app this way)."""
        return {"name": self.name, "collection": self.collection.to_dict() if self.collection else None,
                "added": [m.to_dict() for m in self.added], "reused": [m.to_dict() for m in self.reused],
                "failed": [list(f) for f in self.failed], "seconds": self.seconds, "notes": list(self.notes)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CollectionOutcome:
        """The outcome :meth:`to_dict` wrote.

        >>> o = CollectionOutcome("shelf", None, added=(Manifest("a", source_file="a.txt"),), failed=(("b", "x"),))
        >>> CollectionOutcome.from_dict(o.to_dict()) == o
        True
        """
        where = f"outcome of {data.get('name')!r}"
        collection = data.get("collection")
        return cls(str(data["name"]), CollectionManifest.from_dict(collection, where) if collection else None,
                   tuple(Manifest.from_dict(m, where) for m in data.get("added", ())),
                   tuple(Manifest.from_dict(m, where) for m in data.get("reused", ())),
                   tuple((str(f), str(r)) for f, r in data.get("failed", ())), float(data.get("seconds", 0.0)),
                   tuple(str(n) for n in data.get("notes", ())))

    def summary(self) -> dict[str, Any]:
        """The collection's JSON line, printed after its documents'."""
        c = self.collection.counts if self.collection else CollectionCounts()
        return {"collection": self.name, "documents": c.documents, "sentences": c.sentences, "nodes": c.nodes,
                "edges": c.edges, "shared_entities": c.shared_entities, "added": len(self.added),
                "reused": len(self.reused), "failed": len(self.failed), "seconds": round(self.seconds, 3),
                **({"notes": list(self.notes)} if self.notes else {})}


def _document_line(m: Manifest) -> dict[str, Any]:
    return {"document": m.doc_id, "doc_id": m.doc_id, "file": m.source_file, "sentences": m.counts.sentences,
            "nodes": m.counts.nodes, "edges": m.counts.edges,
            "narrator": (m.narrator.name if m.narrator else None) or None, "seconds": m.seconds,
            **({"ingest": m.ingest.to_dict()} if m.ingest else {})}


def _plain(value: Models | CollectionCounts) -> dict[str, Any]:
    return {f.name: getattr(value, f.name) for f in fields(value)}
