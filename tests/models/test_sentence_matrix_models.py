"""The collection's sentence vectors in one memory-mapped file, with the real spaCy and MiniLM: a loaded collection
maps it read-only, appending a document writes it again in the new generation, damage is named, collections
committed before it get it on first load, and the answers are the ones the copied vectors gave."""

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from kgcore.core.errors import DamagedIndexError
from kgcore.core.settings import RetrievalOptions
from kgcore.index.pipeline import Job, index_files, remove_documents
from kgcore.index.store import generations, sentence_matrix, shard
from kgcore.index.store.disk import Store, linked_folder
from kgcore.index.store.integrity import mapped_file
from kgcore.index.store.locks import collection_lock
from kgcore.index.store.recovery import write_manifest
from kgcore.query.engine import QueryEngine

DOCS = {
    "rabbit.txt": "Peter was a young rabbit who lived under a fir tree. His father had been put in a pie by "
                  "Mrs. McGregor. Peter squeezed under the gate of the garden and ate some radishes.",
    "ship.txt": "The ship left the harbour at dawn with twelve sailors on board. A storm broke the mast on the "
                "third day. The captain ordered the crew to throw the cargo into the sea.",
    "mill.txt": "The miller ground the wheat every morning. His daughter carried the flour to the market in "
                "Dover. Merchants from London paid her in silver coins.",
}
VISIT = ("visit.txt", "Peter visited the miller in Dover. The captain of the ship followed them to the river.")
QUESTIONS = ("What did Peter eat in the garden?", "Who paid the miller's daughter?")


def _jobs(items):
    return [Job(name, data=text.encode("utf-8")) for name, text in items]


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
    store = Store(tmp_path)
    index_files(_jobs(DOCS.items()), store, "c", workers=1)
    return store


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
    index_files(_jobs([VISIT]), store, "c", workers=1)
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
def test_a_damaged_file_is_named_and_the_next_commit_writes_it_from_the_shards(store, how):
    file = _matrix_file(store)
    data = file.read_bytes()
    file.write_bytes(data[: len(data) // 2] if how == "truncate" else data[:200] + b"#" * 16 + data[216:])
    with pytest.raises(DamagedIndexError) as info:
        store.load("c")
    assert str(file) in str(info.value) and "index any document into the collection again" in str(info.value)
    assert [p.path for p in store.verify("c")] == [str(file)]
    index_files(_jobs([VISIT]), store, "c", workers=1)
    np.testing.assert_array_equal(store.load("c").sentence_vectors, _shards_vectors(store))
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
    monkeypatch.setattr(sentence_matrix, "upgrade", lambda *args: None)
    copied_engine = QueryEngine(store)
    assert mapped_file(copied_engine.index("c").sentence_vectors) is None
    copied = [copied_engine.retrieve("c", q, options) for q in QUESTIONS]
    for a, b in zip(mapped, copied, strict=True):
        assert a.sentences and [(s.id, s.score) for s in a.sentences] == [(s.id, s.score) for s in b.sentences]
