"""The collection's sentence vectors in one memory-mapped file, with the real spaCy and MiniLM: a loaded collection
maps it read-only, appending a document writes it again in the new generation, damage is named, collections
committed before it get it on first load, and the answers are the ones the copied vectors gave."""

import dataclasses
import errno
import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from kgcore.core.errors import DamagedIndexError
from kgcore.core.settings import RetrievalOptions
from kgcore.index.pipeline import index_files, remove_documents
from kgcore.index.store import chroma, generations, recovery, sentence_matrix, sentence_table, shard
from kgcore.index.store.disk import Store, linked_folder, read_sentences_of
from kgcore.index.store.footprint import measure_load
from kgcore.index.store.integrity import mapped_file
from kgcore.index.store.locks import collection_lock
from kgcore.index.store.recovery import write_manifest
from kgcore.query.engine import QueryEngine
from samples import THREE_DOCS, THREE_DOCS_QUESTIONS, THREE_DOCS_VISIT, indexed_store, text_jobs

DOCS, VISIT, QUESTIONS = THREE_DOCS, THREE_DOCS_VISIT, THREE_DOCS_QUESTIONS


def _matrix_file(store: Store) -> Path:
    return store.doc_path("c") / linked_folder(store.manifest("c").generation) / sentence_matrix.SENTENCE_VECTORS


def _shards_vectors(store: Store) -> np.ndarray:
    """Every document's own sentence vectors in collection order: what loading concatenated before."""
    path, manifest = store.doc_path("c"), store.manifest("c")
    return np.concatenate([shard.read_sentence_vectors(path / "documents" / d.folder, d.files)
                           for d in manifest.documents])


def _as_before(store: Store) -> None:
    """Make collection ``c`` look committed before the file existed: no file, no digest in collection.json."""
    manifest = store.manifest("c")
    files = {k: v for k, v in manifest.linked_files.items() if k != sentence_matrix.SENTENCE_VECTORS}
    _matrix_file(store).unlink()
    write_manifest(store.doc_path("c"), dataclasses.replace(manifest, linked_files=files))


@pytest.fixture()
def store(tmp_path):
    return indexed_store(tmp_path, DOCS, "c")


def test_a_loaded_collection_maps_its_sentence_vectors_read_only(store):
    index = store.load("c")
    vectors = index.sentence_vectors
    assert mapped_file(vectors) == str(_matrix_file(store)) and not vectors.flags.writeable
    assert vectors.shape == (index.manifest.counts.sentences, 384) == (len(index.sentences), 384)
    np.testing.assert_array_equal(vectors, _shards_vectors(store))
    with pytest.raises(ValueError, match="read-only"):
        vectors[0, 0] = 1.0


def test_an_appended_document_writes_the_file_again_in_the_new_generation(store):
    before = np.array(store.load("c").sentence_vectors)
    old_file = _matrix_file(store)
    index_files(text_jobs([VISIT]), store, "c", workers=1)
    manifest = store.manifest("c")
    assert generations.LAYERS in manifest.linked_files  # appended as a layer, not linked in full
    index = store.load("c")
    assert mapped_file(index.sentence_vectors) == str(_matrix_file(store)) != str(old_file)
    assert len(index.sentence_vectors) == manifest.counts.sentences == len(before) + 2
    np.testing.assert_array_equal(index.sentence_vectors[:len(before)], before)
    np.testing.assert_array_equal(index.sentence_vectors, _shards_vectors(store))
    assert store.verify("c") == []
    remove_documents(store, "c", ["rabbit"])  # a full link: written from the shards
    index = store.load("c")
    assert [d.doc_id for d in index.manifest.documents] == ["ship", "mill", "visit"]
    np.testing.assert_array_equal(index.sentence_vectors, _shards_vectors(store))


@pytest.mark.parametrize("how", ["truncate", "corrupt"])
@pytest.mark.parametrize("name", [sentence_matrix.SENTENCE_VECTORS, sentence_table.TABLE, sentence_table.OFFSETS])
def test_a_damaged_file_is_named_and_the_next_commit_writes_it_from_the_shards(store, how, name):
    file = _matrix_file(store).parent / name
    data = file.read_bytes()
    file.write_bytes(data[: len(data) // 2] if how == "truncate" else data[:200] + b"#" * 16 + data[216:])
    with pytest.raises(DamagedIndexError) as info:
        store.load("c")
    assert str(file) in str(info.value) and "index any document into the collection again" in str(info.value)
    assert [p.path for p in store.verify("c")] == [str(file)]
    index_files(text_jobs([VISIT]), store, "c", workers=1)
    index = store.load("c")
    np.testing.assert_array_equal(index.sentence_vectors, _shards_vectors(store))
    assert list(index.sentences) == read_sentences_of(store.doc_path("c"), store.manifest("c"), vectors=False)[0]
    assert store.verify("c") == []


def test_a_collection_committed_before_the_file_gets_it_on_first_load(store):
    _as_before(store)
    before = store.manifest("c")
    index = store.load("c")
    assert mapped_file(index.sentence_vectors) is not None
    manifest = store.manifest("c")
    assert sentence_matrix.SENTENCE_VECTORS in manifest.linked_files and manifest.stamp == before.stamp
    # the index that answered is the same one: reviewers' records of it do not read as answered by another
    assert manifest.content_hash == before.content_hash == index.manifest.content_hash
    np.testing.assert_array_equal(index.sentence_vectors, _shards_vectors(store))
    assert store.verify("c") == []


def test_while_a_writer_holds_it_an_old_collection_loads_its_vectors_copied(store):
    _as_before(store)
    with collection_lock(store.root, "c"):
        index = store.load("c")
    assert mapped_file(index.sentence_vectors) is None
    assert sentence_matrix.SENTENCE_VECTORS not in store.manifest("c").linked_files
    np.testing.assert_array_equal(index.sentence_vectors, _shards_vectors(store))


@pytest.mark.parametrize("method", ["groundedkg", "dense"])
def test_the_answers_are_the_ones_the_copied_vectors_gave(store, monkeypatch, method):
    options = RetrievalOptions(method=method, budget_words=40)
    mapped_engine = QueryEngine(store)
    assert mapped_file(mapped_engine.index("c").sentence_vectors) is not None
    mapped = [mapped_engine.retrieve("c", q, options) for q in QUESTIONS]
    _as_before(store)
    monkeypatch.setattr(sentence_matrix, "upgrade", lambda *args: sentence_matrix.Upgrade(None, "off"))
    copied_engine = QueryEngine(store)
    assert mapped_file(copied_engine.index("c").sentence_vectors) is None
    copied = [copied_engine.retrieve("c", q, options) for q in QUESTIONS]
    for a, b in zip(mapped, copied, strict=True):
        assert a.sentences and [(s.id, s.score) for s in a.sentences] == [(s.id, s.score) for s in b.sentences]


def _files(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``root`` with its size and modification time: what "nothing changed on disk" compares."""
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_stopped_upgrade_leaves_no_temporary_copy_behind(store):
    _as_before(store)
    folder = store.doc_path("c") / linked_folder(store.manifest("c").generation)
    stale = folder / f"{sentence_matrix.SENTENCE_VECTORS}.0badf00d.tmp"  # what a killed first load leaves
    stale.write_bytes(b"\x93NUMPY" + b"\0" * 4096)
    with collection_lock(store.root, "c"):  # a writer holds it: nothing is removed, nothing written
        store.load("c")
    assert stale.exists()
    index = store.load("c")  # the upgrade removes it under the lock before writing its own
    assert not stale.exists() and mapped_file(index.sentence_vectors) is not None
    assert [p.name for p in folder.glob("*.tmp")] == []
    stale.write_bytes(b"\x93NUMPY")  # a commit killed while writing the file into a generation a manifest names
    old = time.time() - 2 * recovery.GRACE_S
    os.utime(store.doc_path("c") / recovery.COLLECTION_FILE, (old, old))
    with collection_lock(store.root, "c"):
        assert recovery.recover(store.root, store.manifest("c")) == 0 and stale.exists()
    store.list()  # listing the store removes what stopped writers left once no writer holds the collection
    assert not stale.exists() and store.verify("c") == []
    np.testing.assert_array_equal(store.load("c").sentence_vectors, _shards_vectors(store))


def test_a_store_that_cannot_be_written_loads_an_old_collection_copied_and_changes_nothing(store):
    _as_before(store)
    locks = store.root / ".locks"
    shutil.rmtree(locks, ignore_errors=True)
    locks.write_text("not a folder")  # taking the writer lock fails, as in a read-only store
    before = _files(store.root)
    index = store.load("c")
    assert mapped_file(index.sentence_vectors) is None
    np.testing.assert_array_equal(index.sentence_vectors, _shards_vectors(store))
    _, footprint = measure_load(store, "c")
    assert not footprint.sentence_vectors_mapped and footprint.upgrade_seconds == 0
    assert "copied into this process: the store cannot be written" in footprint.line()
    assert _files(store.root) == before


def test_doctor_times_the_load_after_writing_an_old_collections_file(store):
    _as_before(store)
    index, footprint = measure_load(store, "c")
    assert footprint.upgrade_seconds > 0 and footprint.sentence_vectors_mapped
    assert mapped_file(index.sentence_vectors) == str(_matrix_file(store))
    assert "first written to their mapped files in" in footprint.line()
    _, again = measure_load(store, "c")  # the next one has nothing to write
    assert again.upgrade_seconds == 0 and again.sentence_vectors_mapped and "first written" not in again.line()


def _disk_events(monkeypatch) -> list[tuple[str, str]]:
    """Every ``fsync`` (of the file or folder it names) and ``os.replace`` (of its target), in order."""
    events: list[tuple[str, str]] = []
    fsync, replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}"))),
                                                 fsync(fd))[1])
    monkeypatch.setattr(os, "replace", lambda a, b: (events.append(("replace", str(b))), replace(a, b))[1])
    return events


def test_renames_reach_the_disk_before_the_manifest_names_them(store, monkeypatch):
    _as_before(store)
    events = _disk_events(monkeypatch)
    store.load("c")
    path = store.doc_path("c")
    folder, manifest = str(_matrix_file(store).parent), str(path / recovery.COLLECTION_FILE)
    order = [events.index(e) for e in [("replace", str(_matrix_file(store))), ("fsync", folder),
                                        ("replace", manifest)]]
    assert order == sorted(order)
    assert ("fsync", str(path)) in events[order[-1]:]  # the collection folder, after the manifest's rename


def test_an_appended_generation_reaches_the_disk_before_the_manifest_names_it(store, monkeypatch):
    events = _disk_events(monkeypatch)
    index_files(text_jobs([VISIT]), store, "c", workers=1)  # an append generation: its folder made, not renamed
    path = store.doc_path("c")
    committed = events.index(("replace", str(path / recovery.COLLECTION_FILE)))
    assert ("fsync", str(_matrix_file(store).parent)) in events[:committed]
    assert ("fsync", str(path)) in events[:committed]  # the new linked-<generation>/ entry itself


def test_every_file_of_a_commit_reaches_the_disk_before_the_manifest_names_it(store, monkeypatch):
    events = _disk_events(monkeypatch)
    sync = os.sync
    monkeypatch.setattr(os, "sync", lambda: (events.append(("sync", "")), sync())[1])
    index_files(text_jobs([VISIT]), store, "c", workers=1)  # a new shard, appended layers, the matrix
    committed = events.index(("replace", str(store.doc_path("c") / recovery.COLLECTION_FILE)))
    assert ("sync", "") in events[:committed]
    assert store.verify("c") == []


def test_a_shard_that_cannot_be_read_is_named_with_its_remedy(store):
    entry = next(d for d in store.manifest("c").documents if d.doc_id == "mill")
    vectors = store.doc_path("c") / "documents" / entry.folder / "sentence_vectors.npy"
    vectors.write_bytes(vectors.read_bytes()[:-64])
    with pytest.raises(DamagedIndexError) as info:
        remove_documents(store, "c", ["rabbit"])  # a full link writes the matrix from the shards
    assert str(vectors) in str(info.value) and "re-index mill" in str(info.value)
    assert "--collection c --force" in str(info.value)
    assert [d.doc_id for d in store.manifest("c").documents] == ["rabbit", "ship", "mill"]


def test_a_matrix_that_cannot_be_written_leaves_chroma_where_the_manifest_is(tmp_path, monkeypatch):
    store = Store(tmp_path, chroma_sync="commit")
    index_files(text_jobs(DOCS.items()), store, "c", workers=1)
    generation = store.manifest("c").generation
    assert chroma.generation(store.chroma_copy("c")) == generation

    def full_disk(self, matrix):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(sentence_matrix.NpyWriter, "write", full_disk)
    with pytest.raises(OSError, match="No space left"):
        remove_documents(store, "c", ["rabbit"])
    assert store.manifest("c").generation == generation == chroma.generation(store.chroma_copy("c"))


def test_a_part_of_the_collection_names_no_sentence_vector_file_of_its_own(store):
    from kgcore.index.store.partial import load_part

    whole = store.load("c")
    part = load_part(store, "c", ["mill"])
    assert sentence_matrix.SENTENCE_VECTORS not in part.index.manifest.linked_files  # the file holds every row
    assert sentence_matrix.map_matrix(store.doc_path("c"), part.index.manifest) is None
    np.testing.assert_array_equal(part.index.sentence_vectors, whole.sentence_vectors[part.rows])
