"""One document's part of a collection (a *shard*): built once when the document is added, never modified.

Layout of ``<collection>/documents/<folder>/``::

    manifest.json          the document's Manifest (source, options, models, counts, timings)
    paragraphs.jsonl       the cleaned document, one Paragraph per line (text, kind, section, page, offset)
    sentences.jsonl        one Sentence per line, with global ids and provenance
    graph.json             the document's own GroundedKG (node ids scoped to the document, see kgcore.index.graph)
    parses.jsonl           per sentence what the parser saw (SRL frames / PENMAN)
    node_ids.json, base_vectors.npy    basic node embeddings from this document's texts alone
    sentence_vectors.npy   one vector per sentence
    source/<file name>     the file as given (re-indexing, the source view, PDF page images)

Adding a document costs this document's parsing and embedding only; the
collection's linked graph is then computed from the shards
(:mod:`kgcore.index.link`) without any model work but for nodes shared by
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
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kgcore.core.document import Paragraph, Reference
from kgcore.core.errors import KgcoreError
from kgcore.core.types import Sentence
from kgcore.index.graph import GroundedGraph
from kgcore.index.manifest import Manifest

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
    if shard.source is not None:
        (folder / SOURCE_DIR).mkdir()
        (folder / SOURCE_DIR / (Path(shard.source_name).name or "source")).write_bytes(shard.source)
    (folder / MANIFEST).write_text(json.dumps(shard.manifest.to_dict(), ensure_ascii=False, indent=1),
                                   encoding="utf-8")
    return folder


def missing_files(folder: Path) -> list[str]:
    """The files of a complete shard that ``folder`` lacks (empty when the shard is whole)."""
    return [name for name in SHARD_FILES if not (folder / name).is_file()]


def read_manifest(folder: Path) -> Manifest:
    try:
        return Manifest.from_dict(json.loads((folder / MANIFEST).read_text(encoding="utf-8")), str(folder / MANIFEST))
    except (OSError, json.JSONDecodeError) as exc:
        raise KgcoreError(f"{folder / MANIFEST}: unreadable document manifest ({exc})") from exc


def read_sentences(folder: Path) -> list[Sentence]:
    return [Sentence.from_dict(row) for row in _read_jsonl(folder / "sentences.jsonl")]


def read_paragraphs(folder: Path) -> list[Paragraph]:
    return [Paragraph.from_dict(row) for row in _read_jsonl(folder / "paragraphs.jsonl")]


def read_references(folder: Path) -> list[Reference]:
    """The document's parsed reference list (empty for documents without one or indexed before kgcore 0.3)."""
    path = folder / REFERENCES
    return [Reference(**row) for row in _read_jsonl(path)] if path.exists() else []


def read_graph(folder: Path) -> GroundedGraph:
    return GroundedGraph.from_node_link(json.loads((folder / "graph.json").read_text(encoding="utf-8")))


def read_base_vectors(folder: Path) -> tuple[list[str], np.ndarray]:
    """(node ids, their basic embeddings from this document alone)."""
    node_ids = json.loads((folder / "node_ids.json").read_text(encoding="utf-8"))
    return node_ids, np.load(folder / "base_vectors.npy")


def read_sentence_vectors(folder: Path) -> np.ndarray:
    return np.load(folder / "sentence_vectors.npy")


def read_analyses(folder: Path) -> dict[str, dict]:
    """Per-sentence parser output (frames or PENMAN)."""
    path = folder / "parses.jsonl"
    return {row["sentence_id"]: row["analysis"] for row in _read_jsonl(path)} if path.exists() else {}


def source_file(folder: Path) -> Path | None:
    """The kept source file of the shard, if any."""
    files = sorted(p for p in (folder / SOURCE_DIR).glob("*") if p.is_file()) if (folder / SOURCE_DIR).is_dir() else []
    return files[0] if files else None


def _write_jsonl(path: Path, rows: Iterable[dict]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def _read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]
