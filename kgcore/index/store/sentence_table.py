"""The collection's sentences in one file, memory-mapped and decoded a row at a time when asked for.

Each document's shard keeps its own ``sentences.jsonl``; a loaded collection needs them as one sequence whose
row is a sentence's position.  Reading every shard's file and keeping every :class:`~kgcore.core.types.Sentence`
object in the heap cost 34 of the 91 seconds of loading 100,000 short documents (500,340 sentences: 100,000
files opened, sized, hashed and parsed) and about 230 MB of each process's own memory, though a question reads
the text of a few dozen sentences.  So every commit also writes, beside the linked graph (``linked-<generation>/``):

* ``sentences.jsonl``: every sentence in collection order, one JSON object a line, ``position`` its row;
* ``sentence_offsets.npy``: where each line starts (``rows + 1`` int64 offsets, the last the file's size).

Both sizes and SHA-256 digests are recorded in ``collection.json`` with the other linked files
(:mod:`~kgcore.index.store.integrity`, checked on every load).  A loaded collection maps both read-only
(:func:`map_table`) and hands out a :class:`SentenceTable`: a read-only sequence that decodes a row when it is
read (msgspec, about a microsecond a row, straight into the dataclass).  The pages are the file's, shared by
every process serving the collection and dropped by the kernel under pressure.

Writing follows :mod:`~kgcore.index.store.sentence_matrix`: under a temporary name, renamed into a generation no
manifest names yet; a commit that appends documents copies the previous generation's table (checked) and adds
the new documents' rows; any other commit writes it from the shards, one document at a time.  A collection
committed before these files existed gains them on its first load (:func:`~kgcore.index.store.sentence_matrix.upgrade`)
and, where that cannot be done (a read-only store, a writer holding it), loads its sentences as before.

>>> import tempfile
>>> from kgcore.core.types import Sentence
>>> folder = Path(tempfile.mkdtemp())
>>> rows = [Sentence(f"d/text_0-{i}", 0, i, i, t, t, t, "d") for i, t in enumerate(["A cat sat.", "It slept."])]
>>> files = write_rows(folder, [rows])
>>> table = SentenceTable(*_mapped(folder, files))
>>> len(table), table[1].original, [s.position for s in table], table[-1] == rows[-1]
(2, 'It slept.', [0, 1], True)
>>> [(s.id, s.position) for s in table.subset(np.array([1]))]
[('d/text_0-1', 0)]
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Sized
from pathlib import Path
from typing import Any, TypeVar, cast, overload

import msgspec
import numpy as np

from kgcore.core.errors import DamagedIndexError
from kgcore.core.types import Sentence
from kgcore.index.store import shard
from kgcore.index.store.collection import LINKED_REMEDY, SENTENCE_TABLE, CollectionManifest, DocumentEntry
from kgcore.index.store.in_memory import DOCUMENTS_DIR
from kgcore.index.store.integrity import Digest, digest_of, map_bytes, map_npy, npy_bytes
from kgcore.index.store.recovery import linked_folder, sync_folder

__all__ = ["OFFSETS", "TABLE", "SentenceTable", "document_rows", "document_sentences", "map_table", "reusable",
           "write_table"]

R = TypeVar("R")
M = TypeVar("M")

#: The sentences, a JSON object a line, in ``linked-<generation>/`` (and their keys in ``linked_files``), and where
#: each line starts.
TABLE, OFFSETS = SENTENCE_TABLE

_DECODER = msgspec.json.Decoder(Sentence)
_ENCODER = msgspec.json.Encoder()


class SentenceTable(Sequence[Sentence]):
    """A collection's sentences over the mapped table (see the module docstring): ``table[row]`` decodes that
    row, a slice or iteration decodes each row in turn.  Nothing is kept: two reads of a row are two equal
    objects, so callers that read every row more than once keep what they need (as the views do).

    ``rows``: only these rows of the table, in this order, each numbered by its place among them (``position``):
    part of a collection (:meth:`subset`)."""

    def __init__(self, lines: np.ndarray, offsets: np.ndarray, rows: np.ndarray | None = None,
                 path: Path = Path(TABLE)):
        self._lines, self._offsets, self._rows, self._path = lines, offsets, rows, path
        self._view = memoryview(cast(Any, lines))  # sliced without a copy, read by msgspec as bytes

    def subset(self, rows: np.ndarray) -> SentenceTable:
        """The sentences at collection rows ``rows`` (of this whole table), renumbered from 0."""
        if self._rows is not None:
            raise ValueError("a subset of a subset: take the rows of the whole table")
        return SentenceTable(self._lines, self._offsets, np.asarray(rows, dtype=np.int64), self._path)

    def __len__(self) -> int:
        return len(self._offsets) - 1 if self._rows is None else len(self._rows)

    @overload
    def __getitem__(self, row: int) -> Sentence: ...

    @overload
    def __getitem__(self, row: slice) -> list[Sentence]: ...

    def __getitem__(self, row: int | slice) -> Sentence | list[Sentence]:
        if isinstance(row, slice):
            return [self._decode(r) for r in range(*row.indices(len(self)))]
        n = len(self)
        row = int(row)
        if not -n <= row < n:
            raise IndexError(f"sentence row {row} out of range for {n:,} sentences")
        return self._decode(row % n)

    def __iter__(self) -> Iterator[Sentence]:
        return (self._decode(r) for r in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # a sequence compared by its rows

    def touch(self) -> None:
        """Read every page of the mapped table once (the whole table's, a subset's too), as building the first
        question's views does."""
        for _ in _blocks(self._lines):
            pass

    def __repr__(self) -> str:
        return f"SentenceTable({len(self):,} sentences)"

    def _decode(self, row: int) -> Sentence:
        stored = row if self._rows is None else int(self._rows[row])
        start, end = int(self._offsets[stored]), int(self._offsets[stored + 1])
        try:
            sentence = _DECODER.decode(self._view[start:end])
        except msgspec.DecodeError:  # a value of another type than declared (a page of 1.0): read as before
            sentence = self._lenient(stored, self._view[start:end])
        if self._rows is not None:
            object.__setattr__(sentence, "position", row)  # a fresh object of this read alone
        return sentence

    def _lenient(self, row: int, line: memoryview) -> Sentence:
        """A row msgspec's typed decoding refuses, read as the documents' own files are (``json`` and
        :meth:`Sentence.from_dict`, which take any JSON value); not JSON at all: a damaged table."""
        try:
            return Sentence.from_dict(json.loads(bytes(line)))
        except (ValueError, TypeError, KeyError) as exc:
            raise DamagedIndexError(self._path, f"row {row:,} unreadable ({exc})", LINKED_REMEDY) from None


def write_table(path: Path, documents: Sequence[DocumentEntry], folder: Path,
                previous: CollectionManifest | None = None) -> dict[str, Digest]:
    """Write ``folder``'s table of the sentences of ``documents`` (of the collection at ``path``), reusing
    ``previous``'s when ``documents`` begin with its documents; the two files' digests."""
    reused = reusable(path, documents, previous, map_table)
    start = len(previous.documents) if previous is not None and reused is not None else 0
    rest = (document_sentences(path, entry) for entry in documents[start:])
    return write_rows(folder, rest, reused)


def write_rows(folder: Path, documents: Iterable[Sequence[Sentence]],
               reused: SentenceTable | None = None) -> dict[str, Digest]:
    """Write ``folder``'s two files: ``reused``'s rows as they are, then each document's rows renumbered to
    follow; their digests.  Written under temporary names, then renamed (the table last)."""
    tmp = folder / f"{TABLE}.{uuid.uuid4().hex[:8]}.tmp"
    tmp_offsets = folder / f"{OFFSETS}.{uuid.uuid4().hex[:8]}.tmp"
    parts = [np.zeros(1, np.int64) if reused is None else np.asarray(reused._offsets, dtype=np.int64)]
    sha, row, size = hashlib.sha256(), len(parts[0]) - 1, int(parts[0][-1])
    try:
        with tmp.open("wb") as fh:
            for block in ([] if reused is None else _blocks(reused._lines)):
                fh.write(block)
                sha.update(block)
            for rows in documents:
                lines = [_ENCODER.encode(_placed(s, row + i)) + b"\n" for i, s in enumerate(rows)]
                parts.append(np.cumsum([len(line) for line in lines], dtype=np.int64) + size)
                row, size = row + len(lines), size + sum(len(line) for line in lines)
                data = b"".join(lines)
                fh.write(data)
                sha.update(data)
            fh.flush()
            os.fsync(fh.fileno())
        index = npy_bytes(np.concatenate(parts))
        with tmp_offsets.open("wb") as fh:
            fh.write(index)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp_offsets, folder / OFFSETS)
        os.replace(tmp, folder / TABLE)
        sync_folder(folder)  # both renames on disk before any manifest names the files
    finally:
        tmp.unlink(missing_ok=True)
        tmp_offsets.unlink(missing_ok=True)
    return {TABLE: (size, sha.hexdigest()), OFFSETS: digest_of(index)}


def map_table(path: Path, manifest: CollectionManifest) -> SentenceTable | None:
    """The sentences of the collection at ``path``, mapped after checking both files against the manifest and
    the collection's sentence count (a damaged one is a :class:`DamagedIndexError` naming it); None when the
    manifest names no table."""
    files = manifest.linked_files
    if TABLE not in files or OFFSETS not in files:
        return None
    folder = path / linked_folder(manifest.generation)
    table = SentenceTable(*_mapped(folder, files), path=folder / TABLE)
    shard.agree(folder / OFFSETS, len(table), manifest.counts.sentences, "sentences")
    return table


def _mapped(folder: Path, files: Mapping[str, Digest]) -> tuple[np.ndarray, np.ndarray]:
    """(the table's bytes, its offsets), mapped and checked against ``files``' digests."""
    lines, offsets = map_bytes(folder / TABLE, files[TABLE]), map_npy(folder / OFFSETS, files[OFFSETS])
    fits = (offsets.ndim == 1 and offsets.dtype.kind == "i" and len(offsets) >= 1 and int(offsets[0]) == 0
            and int(offsets[-1]) == len(lines) and bool(np.all(np.diff(offsets) > 0)))
    if not fits:
        raise DamagedIndexError(folder / OFFSETS, f"does not describe the {len(lines):,} bytes of {TABLE}")
    return lines, offsets


def _placed(sentence: Sentence, row: int) -> Sentence:
    return sentence if sentence.position == row else dataclasses.replace(sentence, position=row)


def _blocks(lines: np.ndarray, size: int = 1 << 22) -> Iterator[bytes]:
    """A mapped table's bytes, 4 MiB at a time (never read whole)."""
    for start in range(0, len(lines), size):
        yield lines[start:start + size].tobytes()


def document_rows(path: Path, entry: DocumentEntry, name: str, read: Callable[[Path, Any], R], what: str) -> R:
    """A document's rows of one of its shard's files (``name``, read by ``read(folder, files)``: its sentences,
    its sentence vectors), checked against its digest and its sentence count; a damaged one is a
    :class:`DamagedIndexError` naming the file and how to index the document again."""
    folder = path / DOCUMENTS_DIR / entry.folder
    try:
        rows = read(folder, entry.files)
        shard.agree(folder / name, len(cast(Sized, rows)), entry.manifest.counts.sentences, what)
    except DamagedIndexError as exc:
        raise DamagedIndexError(exc.path, exc.reason, entry.remedy(path.name)) from None
    return rows


def reusable(path: Path, documents: Sequence[DocumentEntry], previous: CollectionManifest | None,
             mapped: Callable[[Path, CollectionManifest], M | None]) -> M | None:
    """``previous``'s file, mapped and checked by ``mapped``, when ``documents`` begin with its documents; else None
    (also when it has none or it is damaged: the file is then written from the shards)."""
    if previous is None or tuple(documents[:len(previous.documents)]) != previous.documents:
        return None
    try:
        return mapped(path, previous)
    except DamagedIndexError:
        return None


def document_sentences(path: Path, entry: DocumentEntry) -> list[Sentence]:
    """A document's sentences from its shard, checked (:func:`document_rows`), numbered within the document."""
    return document_rows(path, entry, "sentences.jsonl", shard.read_sentences, "sentences")
