"""One document's part of a collection (a *shard*): built once when the document is added, never modified.

Layout of ``<collection>/documents/<folder>/``::

    manifest.json          the document's Manifest (source, options, models, counts, timings)
    paragraphs.jsonl       the cleaned document, one Paragraph per line (text, kind, section, page, offset)
    sentences.jsonl        one Sentence per line, with global ids and provenance
    graph.json             the document's own GroundedKG (node ids scoped to the document, see kgcore.core.graph)
    parses.jsonl           per sentence what the parser saw (SRL frames / PENMAN)
    qa_pairs.jsonl, qa_vectors.npy     generated question–answer pairs and their vectors (optional,
                           kgcore.index.store.qa_table)
    node_ids.json, base_vectors.npy    basic node embeddings from this document's texts alone
    sentence_vectors.npy   one vector per sentence
    source/<file name>     the file as given (re-indexing, the source view, PDF page images)

Adding a document costs this document's parsing and embedding only; the
collection's linked graph is then computed from the shards
(:mod:`kgcore.index.store.link`) without any model work but for nodes shared by
several documents.

>>> import tempfile
>>> from kgcore.core.types import Node, Sentence
>>> from kgcore.core.document import Paragraph
>>> g = GroundedGraph({"d/tea": Node("d/tea", "tea", ["tea"], "entity", ["d/text_0-0"])}, [])
>>> s = [Sentence("d/text_0-0", 0, 0, 0, "Tea.", "Tea.", "Tea.", "d")]
>>> shard = DocumentShard(Manifest("d"), (Paragraph("Tea.", start=0),), s, g, ["d/tea"],
...                       np.ones((1, 2), np.float32), np.ones((1, 2), np.float32), [("d/text_0-0", {})])
>>> folder = write_shard(Path(tempfile.mkdtemp()) / "d.1", shard)
>>> read_sentences(folder)[0].id, read_graph(folder).nodes["d/tea"].label, read_base_vectors(folder)[1].shape
('d/text_0-0', 'tea', (1, 2))
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from kgcore.core.document import Paragraph, Reference
from kgcore.core.errors import DamagedIndexError, KgcoreError
from kgcore.core.graph import GroundedGraph
from kgcore.core.types import Sentence
from kgcore.index.store.integrity import (
    READ_ERRORS,
    Digest,
    map_npy,
    parse_json,
    parse_jsonl,
    parse_npy,
    read_verified,
)
from kgcore.index.store.manifest import Manifest
from kgcore.index.store.qa_table import QATable, write_qa

T = TypeVar("T")
#: Digests of a shard's files (from its collection's manifest) to check what is read; None checks nothing.
Files = Mapping[str, Digest] | None

MANIFEST = "manifest.json"
SOURCE_DIR = "source"
REFERENCES = "references.jsonl"
#: Every file a complete shard has (checked before a shard is linked into a collection).
SHARD_FILES = (MANIFEST, "paragraphs.jsonl", "sentences.jsonl", "graph.json", "parses.jsonl", "node_ids.json",
               "base_vectors.npy", "sentence_vectors.npy")


@dataclass
class DocumentShard:
    """A document indexed on its own, in memory, before (or instead of) being written."""

    manifest: Manifest
    paragraphs: tuple[Paragraph, ...]
    sentences: list[Sentence]
    graph: GroundedGraph
    node_ids: list[str]
    base_vectors: np.ndarray
    sentence_vectors: np.ndarray
    analyses: list[tuple[str, dict]]
    source_name: str = ""
    source: bytes | None = None
    #: The document's reference list (papers); written to ``references.jsonl``.
    references: tuple[Reference, ...] = ()
    #: Generated question–answer pairs and their vectors (``qa_pairs.jsonl``, ``qa_vectors.npy``; optional).
    qa: QATable | None = None

    @property
    def doc_id(self) -> str:
        return self.manifest.doc_id


def write_shard(folder: Path, shard: DocumentShard) -> Path:
    """Write ``shard`` into the new folder ``folder`` (the manifest last); returns ``folder``."""
    folder.mkdir(parents=True)
    _write_jsonl(folder / "paragraphs.jsonl", (p.to_dict() for p in shard.paragraphs))
    _write_jsonl(folder / "sentences.jsonl", (s.to_dict() for s in shard.sentences))
    _write_jsonl(folder / REFERENCES, (r.to_dict() for r in shard.references))
    _write_jsonl(folder / "parses.jsonl", ({"sentence_id": sid, "analysis": a} for sid, a in shard.analyses))
    (folder / "graph.json").write_text(json.dumps(shard.graph.to_node_link(), ensure_ascii=False), encoding="utf-8")
    (folder / "node_ids.json").write_text(json.dumps(shard.node_ids, ensure_ascii=False), encoding="utf-8")
    np.save(folder / "base_vectors.npy", np.asarray(shard.base_vectors, dtype=np.float32))
    np.save(folder / "sentence_vectors.npy", np.asarray(shard.sentence_vectors, dtype=np.float32))
    if shard.qa is not None:
        write_qa(folder, shard.qa)
    if shard.source is not None:
        (folder / SOURCE_DIR).mkdir()
        (folder / SOURCE_DIR / (Path(shard.source_name).name or "source")).write_bytes(shard.source)
    (folder / MANIFEST).write_text(json.dumps(shard.manifest.to_dict(), ensure_ascii=False, indent=1),
                                   encoding="utf-8")
    return folder


def staged_folder(staging: Path, doc_id: str) -> Path:
    """The folder in ``staging`` where document ``doc_id``'s shard is written, refused when the id would lead out
    of ``staging`` ("..", "a/../..") and emptied of what an earlier attempt at the same document left there: a
    worker stopped with the pool it shared with a document that killed its own has written the shard, its result
    is lost, and the document is built again.  A batch never holds two documents with one id (the plan refuses
    them), and ``staging`` is the batch's own.
    """
    folder = staging / doc_id
    if folder.resolve().parent != staging.resolve():
        raise KgcoreError(f"document id {doc_id!r} names no folder inside the staging folder; give the document a "
                          "plain name")
    if folder.is_dir():
        shutil.rmtree(folder)
    return folder


def missing_files(folder: Path) -> list[str]:
    """The files of a complete shard that ``folder`` lacks (empty when the shard is whole)."""
    return [name for name in SHARD_FILES if not (folder / name).is_file()]


def file_names(folder: Path) -> list[str]:
    """Every file of the shard at ``folder`` a collection records a digest of (its source file included)."""
    source = source_file(folder)
    extra = [REFERENCES] if (folder / REFERENCES).is_file() else []
    return list(SHARD_FILES) + extra + ([f"{SOURCE_DIR}/{source.name}"] if source else [])


def verify(folder: Path) -> Manifest:
    """Read every file of the shard at ``folder`` and check they agree; its manifest, or a
    :class:`DamagedIndexError` naming the first bad file (a shard is verified before it joins a collection)."""
    missing = missing_files(folder)
    if missing:
        raise DamagedIndexError(folder / missing[0], "missing from the document's shard")
    manifest = read_manifest(folder)
    sentences = read_sentences(folder)
    agree(folder / "sentences.jsonl", len(sentences), manifest.counts.sentences, "sentences")
    agree(folder / "sentence_vectors.npy", len(read_sentence_vectors(folder)), len(sentences), "vectors")
    node_ids, vectors = read_base_vectors(folder)
    agree(folder / "base_vectors.npy", len(vectors), len(node_ids), "vectors")
    agree(folder / "graph.json", len(read_graph(folder).nodes), len(node_ids), "nodes")
    read_paragraphs(folder)
    read_analyses(folder)
    read_references(folder)
    return manifest


def agree(path: Path, found: int, expected: int, what: str) -> None:
    """A :class:`DamagedIndexError` naming ``path`` unless it holds as many ``what`` as expected."""
    if found != expected:
        raise DamagedIndexError(path, f"holds {found:,} {what}, expected {expected:,}")


def read_manifest(folder: Path, files: Files = None) -> Manifest:
    path = folder / MANIFEST
    data = parse_json(path, _data(folder, MANIFEST, files))
    try:
        return Manifest.from_dict(data, str(path))
    except KgcoreError as exc:
        raise DamagedIndexError(path, f"unreadable document manifest: {exc}") from None


def read_sentences(folder: Path, files: Files = None) -> list[Sentence]:
    return _rows(folder, "sentences.jsonl", files, Sentence.from_dict)


def read_paragraphs(folder: Path, files: Files = None) -> list[Paragraph]:
    return _rows(folder, "paragraphs.jsonl", files, Paragraph.from_dict)


def read_references(folder: Path, files: Files = None) -> list[Reference]:
    """The document's parsed reference list (empty for documents without one or indexed before kgcore 0.3)."""
    return _rows(folder, REFERENCES, files, lambda row: Reference(**row)) if (folder / REFERENCES).exists() else []


def read_graph(folder: Path, files: Files = None) -> GroundedGraph:
    path = folder / "graph.json"
    return _built(path, lambda data: GroundedGraph.from_json(data.decode("utf-8")), _data(folder, "graph.json", files))


def read_base_vectors(folder: Path, files: Files = None) -> tuple[list[str], np.ndarray]:
    """(node ids, their basic embeddings from this document alone)."""
    node_ids = parse_json(folder / "node_ids.json", _data(folder, "node_ids.json", files))
    return node_ids, read_array(folder, "base_vectors.npy", files)


def read_sentence_vectors(folder: Path, files: Files = None) -> np.ndarray:
    return read_array(folder, "sentence_vectors.npy", files)


def read_array(folder: Path, name: str, files: Files = None) -> np.ndarray:
    """A 2-d ``.npy`` array of the shard (a damaged or other-shaped one is a :class:`DamagedIndexError`)."""
    array = parse_npy(folder / name, _data(folder, name, files))
    if array.ndim != 2:
        raise DamagedIndexError(folder / name, f"holds a {array.ndim}-d array, expected 2-d")
    return array


def map_array(folder: Path, name: str, files: Files = None) -> np.ndarray:
    """:func:`read_array`, memory-mapped read-only (:func:`~kgcore.index.store.integrity.map_npy`)."""
    array = map_npy(folder / name, files.get(name) if files else None)
    if array.ndim != 2:
        raise DamagedIndexError(folder / name, f"holds a {array.ndim}-d array, expected 2-d")
    return array


def read_analyses(folder: Path, files: Files = None) -> dict[str, dict]:
    """Per-sentence parser output (frames or PENMAN)."""
    if not (folder / "parses.jsonl").exists():
        return {}
    rows = _rows(folder, "parses.jsonl", files, lambda row: (row["sentence_id"], row["analysis"]))
    return dict(rows)


def source_file(folder: Path) -> Path | None:
    """The kept source file of the shard, if any."""
    files = sorted(p for p in (folder / SOURCE_DIR).glob("*") if p.is_file()) if (folder / SOURCE_DIR).is_dir() else []
    return files[0] if files else None


def _data(folder: Path, name: str, files: Files) -> bytes:
    return read_verified(folder / name, files.get(name) if files else None)


def _rows(folder: Path, name: str, files: Files, build: Callable[[dict], T]) -> list[T]:
    path = folder / name
    return [_built(path, build, row) for row in parse_jsonl(path, _data(folder, name, files))]


def _built(path: Path, build: Callable[[Any], T], data: Any) -> T:
    try:
        return build(data)
    except READ_ERRORS as exc:
        raise DamagedIndexError(path, f"unexpected content ({type(exc).__name__}: {exc})") from None


def _write_jsonl(path: Path, rows: Iterable[dict]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
