"""The collection's sentences in one memory-mapped table, with the real spaCy and MiniLM: a loaded collection
reads them from it and not from the documents' files, appending and removing documents write it again, damage is
named, collections committed before it get it on first load, and the answers are the ones the copied sentences
gave."""

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from kgcore.core.errors import DamagedIndexError
from kgcore.core.settings import RetrievalOptions
from kgcore.index.pipeline import index_files, remove_documents
from kgcore.index.store import generations, sentence_matrix, sentence_table, shard
from kgcore.index.store.disk import Store, linked_folder, read_sentences_of
from kgcore.index.store.footprint import measure_load
from kgcore.index.store.integrity import digest_of, mapped_file, npy_bytes
from kgcore.index.store.locks import collection_lock
from kgcore.index.store.recovery import write_manifest
from kgcore.index.store.sentence_table import SentenceTable
from kgcore.query.engine import QueryEngine
from samples import THREE_DOCS, THREE_DOCS_QUESTIONS, THREE_DOCS_VISIT, indexed_store, text_jobs

DOCS, VISIT, QUESTIONS = THREE_DOCS, THREE_DOCS_VISIT, THREE_DOCS_QUESTIONS


def _table_file(store: Store) -> Path:
    return store.doc_path("c") / linked_folder(store.manifest("c").generation) / sentence_table.TABLE


def _shards_sentences(store: Store) -> list:
    """Every document's own sentences in collection order, positions renumbered: what loading read before."""
    return read_sentences_of(store.doc_path("c"), store.manifest("c"), vectors=False)[0]


def _as_before(store: Store) -> None:
    """Make collection ``c`` look committed before the table existed: no files, no digests in collection.json."""
    manifest = store.manifest("c")
    names = (sentence_table.TABLE, sentence_table.OFFSETS)
    for name in names:
        (_table_file(store).parent / name).unlink()
    files = {k: v for k, v in manifest.linked_files.items() if k not in names}
    write_manifest(store.doc_path("c"), dataclasses.replace(manifest, linked_files=files))


@pytest.fixture()
def store(tmp_path):
    return indexed_store(tmp_path, DOCS, "c")


def test_a_loaded_collection_reads_its_sentences_from_the_mapped_table_not_the_documents(store, monkeypatch):
    expected = _shards_sentences(store)

    def no_shard_reads(*args, **kwargs):
        raise AssertionError("a document's sentences.jsonl was read")
    monkeypatch.setattr(shard, "read_sentences", no_shard_reads)
    index = store.load("c")
    assert isinstance(index.sentences, SentenceTable)
    assert mapped_file(index.sentences._lines) == str(_table_file(store))
    assert len(index.sentences) == index.manifest.counts.sentences == len(expected) == 9
    assert list(index.sentences) == expected and index.sentences == expected
    assert [s.position for s in index.sentences] == list(range(9))
    assert index.sentences[-1] == expected[-1] and index.sentences[2:4] == expected[2:4]
    assert index.sentence("mill/text_0-1").original.startswith("His daughter carried the flour")
    assert index.sentence_row("ship/text_0-0") == 3 and not index.has_sentence("ship/text_9-9")
    with pytest.raises(IndexError):
        index.sentences[9]


def test_appending_and_removing_documents_write_the_table_again(store):
    before = list(store.load("c").sentences)
    old_file = _table_file(store)
    index_files(text_jobs([VISIT]), store, "c", workers=1)
    manifest = store.manifest("c")
    assert generations.LAYERS in manifest.linked_files  # appended as a layer: the table copied, then extended
    index = store.load("c")
    assert _table_file(store) != old_file
    assert list(index.sentences[:len(before)]) == before and len(index.sentences) == len(before) + 2
    assert index.sentences == _shards_sentences(store) and index.sentences[-1].doc_id == "visit"
    assert store.verify("c") == []
    remove_documents(store, "c", ["rabbit"])  # a full link: written from the shards, rows renumbered
    index = store.load("c")
    assert [s.doc_id for s in index.sentences][:1] == ["ship"]
    assert index.sentences == _shards_sentences(store)
    assert [s.position for s in index.sentences] == list(range(len(index.sentences)))


def test_offsets_that_do_not_describe_the_table_are_named(store):
    folder = _table_file(store).parent
    manifest = store.manifest("c")
    offsets = folder / sentence_table.OFFSETS
    data = npy_bytes(np.arange(10, dtype=np.int64))  # ten rows that start one byte apart: not this table
    offsets.write_bytes(data)
    write_manifest(store.doc_path("c"), dataclasses.replace(
        manifest, linked_files={**manifest.linked_files, sentence_table.OFFSETS: digest_of(data)}))
    with pytest.raises(DamagedIndexError) as info:
        store.load("c")
    assert str(offsets) in str(info.value) and "does not describe" in str(info.value)


def test_a_collection_committed_before_the_table_gets_it_on_first_load(store):
    _as_before(store)
    before = store.manifest("c")
    assert sentence_matrix.missing(before) == [sentence_table.OFFSETS, sentence_table.TABLE]
    index = store.load("c")
    assert isinstance(index.sentences, SentenceTable)
    manifest = store.manifest("c")
    assert sentence_matrix.missing(manifest) == [] and manifest.stamp == before.stamp
    # the index that answered is the same one: reviewers' records of it do not read as answered by another
    assert manifest.content_hash == before.content_hash == index.manifest.content_hash
    assert index.sentences == _shards_sentences(store)
    assert store.verify("c") == []


def test_while_a_writer_holds_it_an_old_collection_loads_its_sentences_copied(store):
    _as_before(store)
    with collection_lock(store.root, "c"):
        index = store.load("c")
        _, footprint = measure_load(store, "c")
    assert isinstance(index.sentences, list) and index.sentences == _shards_sentences(store)
    assert sentence_table.TABLE not in store.manifest("c").linked_files
    assert not footprint.sentence_vectors_mapped
    assert "sentences and their vectors copied into this process: a writer holds" in footprint.line()


@pytest.mark.parametrize("method", ["groundedkg", "dense", "bm25"])
def test_the_answers_are_the_ones_the_copied_sentences_gave(store, monkeypatch, method):
    options = RetrievalOptions(method=method, budget_words=40)
    mapped_engine = QueryEngine(store)
    assert isinstance(mapped_engine.index("c").sentences, SentenceTable)
    mapped = [mapped_engine.retrieve("c", q, options) for q in QUESTIONS]
    _as_before(store)
    monkeypatch.setattr(sentence_matrix, "upgrade", lambda *args: sentence_matrix.Upgrade(None, "off"))
    copied_engine = QueryEngine(store)
    assert isinstance(copied_engine.index("c").sentences, list)
    copied = [copied_engine.retrieve("c", q, options) for q in QUESTIONS]
    for a, b in zip(mapped, copied, strict=True):
        assert a.sentences and [(s.id, s.score, s.text) for s in a.sentences] == \
            [(s.id, s.score, s.text) for s in b.sentences]
        assert mapped_engine.answer(a).text == copied_engine.answer(b).text


def test_doctor_counts_the_table_among_the_mapped_files(store):
    index, footprint = measure_load(store, "c")
    assert footprint.sentence_vectors_mapped and isinstance(index.sentences, SentenceTable)
    assert footprint.line().startswith("c: 3 documents, 9 sentences")


def test_a_part_of_the_collection_takes_its_rows_of_the_table_without_opening_a_document(store, monkeypatch):
    from kgcore.index.store.partial import load_part

    whole = store.load("c")
    expected = [whole.sentences[r] for r in range(len(whole.sentences)) if whole.sentences[r].doc_id != "ship"]

    def no_shard_reads(*args, **kwargs):
        raise AssertionError("a document's sentences.jsonl was read")
    monkeypatch.setattr(shard, "read_sentences", no_shard_reads)
    part = load_part(store, "c", ["mill", "rabbit"])
    assert part.rows.tolist() == [0, 1, 2, 6, 7, 8]  # collection order: rabbit, then mill
    assert [(s.id, s.original) for s in part.index.sentences] == [(s.id, s.original) for s in expected]
    assert [s.position for s in part.index.sentences] == list(range(6))
    np.testing.assert_array_equal(part.index.sentence_vectors, whole.sentence_vectors[part.rows])
    assert part.index.sentence("mill/text_0-0").position == 3
