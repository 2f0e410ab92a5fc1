"""The collection store with the real models: layout, atomic commits, crashes, damage, and stores kgcore 0.1 wrote."""

import json
import shutil

import numpy as np
import pytest

from kgcore.audit import AuditDB
from kgcore.core.errors import IndexNotFoundError, InputError, KgcoreError
from kgcore.core.settings import RetrievalOptions
from kgcore.index.pipeline import Job, index_files
from kgcore.index.store import chroma
from kgcore.index.store.disk import Store
from kgcore.index.store.manifest import Manifest
from kgcore.query.engine import QueryEngine
from paths import DATA

OLD_MANIFEST = DATA / "manifests" / "peter-rabbit-0.1.0.json"
OLD_STORE = DATA / "store-0.1"
TEA = "Peter drank some camomile tea before he went to bed. His mother had made the tea in a small brown pot."
MILK = "Peter drank a glass of warm milk before he went to bed. His mother had poured the milk into a blue cup."


def _add(store, name, filename, text, **kwargs):
    (outcome,) = index_files([Job(filename, data=text.encode())], store, name, workers=1, **kwargs)
    return outcome


def test_a_collection_folder_holds_manifest_shards_linked_graph_and_chroma(tmp_path):
    store = Store(tmp_path, chroma_sync="commit")
    outcome = _add(store, "shelf", "tea.txt", TEA)
    path = tmp_path / "shelf"
    manifest = json.loads((path / "collection.json").read_text())
    (entry,) = manifest["documents"]
    assert manifest["format"] == 2 and manifest["generation"] == 1 and entry["manifest"]["doc_id"] == "tea"
    assert (path / "documents" / entry["folder"] / "source" / "tea.txt").read_text() == TEA
    assert {p.name for p in (path / "linked-1").iterdir()} == {"graph.json", "node_ids.json", "node_vectors.npy",
                                                               "proper.json", "shared_vectors.npz",
                                                               "sentence_vectors.npy", "sentences.jsonl",
                                                               "sentence_offsets.npy"}
    index = store.load("shelf")
    assert outcome.collection == index.manifest and index.manifest.counts.sentences == len(index.sentences) == 2
    assert [s.position for s in index.sentences] == [0, 1] and index.sentence_vectors.shape == (2, 384)
    client = chroma.open_chroma(path / "chroma")
    try:
        assert client.get_collection("sentences").count() == 2
        assert client.get_collection("nodes").count() == len(index.node_ids)
    finally:
        client.close()
    assert chroma.generation(path / "chroma") == 1


def test_a_crash_before_the_commit_keeps_the_previous_collection(tmp_path, monkeypatch):
    store = Store(tmp_path, chroma_sync="commit")
    _add(store, "shelf", "tea.txt", TEA)
    before = store.manifest("shelf")

    def boom(*args, **kwargs):
        raise RuntimeError("simulated crash while writing Chroma")

    monkeypatch.setattr(chroma, "update", boom)
    with pytest.raises(RuntimeError):
        _add(store, "shelf", "milk.txt", MILK)
    assert store.manifest("shelf") == before and [s.doc_id for s in store.load("shelf").sentences] == ["tea", "tea"]
    assert [p.name for p in (tmp_path / "shelf" / "documents").iterdir()] == [before.documents[0].folder]
    assert not list((tmp_path / ".staging").glob("*/*"))  # no half-built shard left behind


def test_chroma_left_behind_by_a_stopped_writer_is_rebuilt_on_use(tmp_path):
    store = Store(tmp_path, chroma_sync="commit")
    _add(store, "shelf", "tea.txt", TEA)
    (tmp_path / "shelf" / "chroma" / "generation").write_text("0")  # as if the writer stopped after Chroma
    result = QueryEngine(store).retrieve("shelf", "What did Peter drink?", RetrievalOptions(), use_chroma=True)
    assert result.sentences and chroma.generation(tmp_path / "shelf" / "chroma") == store.manifest("shelf").generation


def _chroma_counts(folder):
    client = chroma.open_chroma(folder)
    try:
        return client.get_collection("sentences").count(), set(client.get_collection("nodes").get()["ids"])
    finally:
        client.close()


def test_embedded_chroma_is_filled_on_the_first_query_that_reads_it_and_after_each_change(tmp_path, monkeypatch):
    monkeypatch.delenv("KGCORE_CHROMA_SYNC", raising=False)
    store = Store(tmp_path)  # embedded Chroma, KGCORE_CHROMA_SYNC unset: lazy
    assert not store.chroma_at_commit
    _add(store, "shelf", "tea.txt", TEA)
    folder = tmp_path / "shelf" / "chroma"
    assert not folder.exists()  # indexing did not write the copy
    engine = QueryEngine(store)
    exact = engine.retrieve("shelf", "What did Peter drink?", RetrievalOptions())
    assert not folder.exists()  # nor does the default (exact) retrieval need it
    via_chroma = engine.retrieve("shelf", "What did Peter drink?", RetrievalOptions(), use_chroma=True)
    assert [s.id for s in via_chroma.sentences] == [s.id for s in exact.sentences]
    assert chroma.generation(folder) == store.manifest("shelf").generation == 1
    assert _chroma_counts(folder) == (2, set(store.load("shelf").node_ids))
    _add(store, "shelf", "milk.txt", MILK)
    assert chroma.generation(folder) == 1  # behind the new generation until read
    engine.retrieve("shelf", "Who drank milk?", RetrievalOptions(), use_chroma=True)
    index = store.load("shelf")
    assert chroma.generation(folder) == index.manifest.generation == 2
    assert _chroma_counts(folder) == (len(index.sentences), set(index.node_ids))


def test_chroma_sync_is_checked_and_a_server_store_writes_at_commit(tmp_path, monkeypatch):
    monkeypatch.setenv("KGCORE_CHROMA_SYNC", "sometimes")
    with pytest.raises(InputError, match="KGCORE_CHROMA_SYNC"):
        Store(tmp_path)
    monkeypatch.setenv("KGCORE_CHROMA_SYNC", "commit")
    assert Store(tmp_path).chroma_at_commit and not Store(tmp_path, chroma_sync="lazy").chroma_at_commit
    server = chroma.ChromaServer("http://127.0.0.1:9")
    assert Store(tmp_path, chroma=server, chroma_sync="auto").chroma_at_commit


def test_errors_name_the_collection(tmp_path):
    store = Store(tmp_path)
    with pytest.raises(IndexNotFoundError, match="nope"):
        store.load("nope")
    with pytest.raises(InputError, match="collection"):
        store.load("../etc")
    _add(store, "shelf", "tea.txt", TEA)
    store.delete("shelf")
    assert store.list() == [] and not (tmp_path / "shelf").exists()


def test_a_damaged_collection_manifest_is_listed_as_damaged_and_says_so(tmp_path):
    store = Store(tmp_path)
    _add(store, "shelf", "tea.txt", TEA)
    (tmp_path / "shelf" / "collection.json").write_text("{broken")
    (listed,) = store.list()
    assert listed.name == "shelf" and "collection.json: damaged index file (not valid JSON" in listed.damaged
    with pytest.raises(KgcoreError, match="collection.json: damaged index file .* delete --collection shelf"):
        store.manifest("shelf")


# -- stores kgcore 0.1 wrote ------------------------------------------------------------------


def _old_store(tmp_path):
    shutil.copytree(OLD_STORE / "garden_story", tmp_path / "garden_story")
    return Store(tmp_path)


def test_a_0_1_store_opens_as_a_collection_of_one_without_writing(tmp_path):
    store = _old_store(tmp_path)
    before = sorted(p.name for p in (tmp_path / "garden_story").iterdir())
    (listed,) = store.list()
    assert listed.name == "garden_story" and listed.format == 1 and listed.doc_ids == ("garden_story",)
    index = store.load("garden_story")
    assert index.sentences[0].id == "garden_story/text_0-0" and index.sentences[0].doc_id == "garden_story"
    assert index.graph.invariant_problems(s.id for s in index.sentences) == []
    assert "peter" in index.graph.nodes and "garden_story/tea" in index.graph.nodes  # names shared, nouns scoped
    assert index.analyses()["garden_story/text_0-2"]["frames"]
    result, answer = QueryEngine(store).ask("garden_story", "What did his mother give him?",
                                            RetrievalOptions(budget_words=200), "extractive")
    assert result.sentences and "camomile tea" in answer.text
    assert sorted(p.name for p in (tmp_path / "garden_story").iterdir()) == before  # reading wrote nothing


def test_adding_to_a_0_1_store_migrates_it(tmp_path):
    store = _old_store(tmp_path)
    (tmp_path / "garden_story" / "chroma").mkdir()  # stands in for the 0.1 Chroma copy
    old = store.load("garden_story")
    outcome = _add(store, "garden_story", "tea.txt", TEA)
    assert [a.doc_id for a in outcome.added] == ["tea"]
    manifest = store.manifest("garden_story")
    assert manifest.format == 2 and manifest.doc_ids == ("garden_story", "tea")
    assert not (tmp_path / "garden_story" / "graph.json").exists()
    assert not (tmp_path / "garden_story" / "chroma-0.1").exists()
    index = store.load("garden_story")
    assert [s.id for s in index.sentences[:len(old.sentences)]] == [s.id for s in old.sentences]
    assert index.graph.invariant_problems(s.id for s in index.sentences) == []
    shared = index.graph.nodes["peter"].grounded_texts
    assert {s.split("/")[0] for s in shared} == {"garden_story", "tea"}  # Peter of both documents is one node


def test_an_old_manifest_in_an_old_store_opens_with_narrator_migrated(tmp_path):
    store = _old_store(tmp_path)
    data = json.loads((tmp_path / "garden_story" / "manifest.json").read_text())
    del data["narrator"], data["options"]["narrator"]  # what kgcore wrote before narrator resolution
    (tmp_path / "garden_story" / "manifest.json").write_text(json.dumps(data))
    entry = store.manifest("garden_story").documents[0]
    assert entry.manifest == Manifest.from_dict(data) and entry.manifest.options.narrator == "none"
    assert store.load("garden_story").sentences


def test_audit_records_of_a_0_1_index_keep_resolving_after_migration(tmp_path):
    store = _old_store(tmp_path)
    db = AuditDB.for_store(tmp_path)
    engine = QueryEngine(store)
    result, answer = engine.ask("garden_story", "Where did Peter hide?", RetrievalOptions(budget_words=200),
                                "extractive")
    payload_ids = [s.id for s in result.sentences]
    record_id = db.save_record(result, answer, engine.index("garden_story").manifest)
    # What kgcore 0.1 stored: the paper's bare ids.
    row = json.loads(db.query("SELECT result_json FROM records WHERE id = ?", (record_id,))[0][0])
    for s in row["sentences"]:
        s["id"] = s["id"].split("/")[-1]
    db.write(lambda conn: conn.execute("UPDATE records SET result_json = ? WHERE id = ?", (json.dumps(row), record_id)))
    _add(store, "garden_story", "tea.txt", TEA)
    record = db.get_record(record_id)
    assert [s["id"] for s in record.payload["sentences"]] == payload_ids
    index = engine.index("garden_story")
    assert all(index.has_sentence(i) for i in payload_ids)
    assert np.isfinite(index.node_vectors).all()
