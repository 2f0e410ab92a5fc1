"""Append generations with the real spaCy and MiniLM: adding a small document to a collection writes a layer
instead of the whole linked graph, and reading it gives exactly what a full link of the same documents gives."""

import json
import os

import numpy as np
import pytest

from kgcore.core.errors import DamagedIndexError
from kgcore.index.pipeline import index_files, remove_documents
from kgcore.index.store import chroma, generations
from kgcore.index.store.disk import Store, linked_folder
from samples import indexed_store, text_jobs

# Four base documents and three small ones written for these tests; the small ones name people of the base
# (Peter, Wendy, Hook, London), so appending them changes shared nodes.
BASE = {
    "rabbit.txt": "Peter was a young rabbit who lived under a fir tree. His father had been put in a pie by "
                  "Mrs. McGregor. Peter squeezed under the gate of the garden and ate some radishes.",
    "pan.txt": "Peter Pan flew over the roofs of London with Wendy and her brothers. Wendy's father was a clerk in "
               "the city. Captain Hook hated Peter because he had lost his hand to a crocodile.",
    "ship.txt": "The ship left the harbour at dawn with twelve sailors on board. A storm broke the mast on the "
                "third day. The captain ordered the crew to throw the cargo into the sea.",
    "mill.txt": "The miller ground the wheat every morning. His daughter carried the flour to the market in "
                "Dover. Merchants from London paid her in silver coins.",
}
SMALL = [
    ("visit.txt", "Wendy visited Peter in London. Hook followed them to the river. Mrs. McGregor baked a pie."),
    ("letter.txt", "Wendy wrote a letter to her father. Peter read it aloud to the sailors in Dover."),
    ("storm.txt", "A storm reached London at night. Hook lost his ship. The miller sheltered Wendy and Peter."),
]


def _linked(store, name):
    index = store.load(name)
    return index.manifest, index.graph.to_node_link(), list(index.node_ids), np.asarray(index.node_vectors)


def _assert_same(store, appended, full):
    a_manifest, a_graph, a_ids, a_vectors = _linked(store, appended)
    f_manifest, f_graph, f_ids, f_vectors = _linked(store, full)
    assert a_manifest.counts == f_manifest.counts
    assert a_graph == f_graph and a_ids == f_ids
    np.testing.assert_allclose(a_vectors, f_vectors, atol=1e-5)


@pytest.fixture()
def store(tmp_path):
    return indexed_store(tmp_path, BASE, "grown")


def test_a_small_addition_is_a_layer_equal_to_a_full_link(store):
    before = store.manifest("grown")
    index_files(text_jobs(SMALL[:1]), store, "grown", workers=1)
    after = store.manifest("grown")
    folder = store.doc_path("grown") / linked_folder(after.generation)
    assert json.loads((folder / generations.LAYERS).read_text())["appended"] == ["visit"]
    old = store.doc_path("grown") / linked_folder(before.generation)
    assert os.path.samefile(folder / "graph.json", old / "graph.json")  # the base was not written again
    assert after.counts.shared_entities > before.counts.shared_entities  # Wendy, Hook, London now shared
    index_files(text_jobs([*BASE.items(), *SMALL[:1]]), store, "full", workers=1)
    assert generations.LAYERS not in store.manifest("full").linked_files
    _assert_same(store, "grown", "full")
    index = store.load("grown")
    assert index.graph.invariant_problems(s.id for s in index.sentences) == []
    assert {s.split("/")[0] for s in index.graph.nodes["wendy"].grounded_texts} == {"pan", "visit"}


def test_layers_accumulate_then_a_full_link_folds_them(store):
    for item in SMALL[:2]:
        index_files(text_jobs([item]), store, "grown", workers=1)
    manifest = store.manifest("grown")
    folder = store.doc_path("grown") / linked_folder(manifest.generation)
    assert json.loads((folder / generations.LAYERS).read_text())["appended"] == ["visit", "letter"]
    index = store.load("grown")  # the vectors a Chroma copy is compared with, read without the graph
    by_id = generations.vector_map(store.doc_path("grown"), manifest)
    assert list(by_id) == index.node_ids[:len(by_id)] and len(by_id) == len(index.node_ids)
    assert all(np.array_equal(by_id[i], index.node_vectors[r]) for r, i in enumerate(index.node_ids))
    some = list(dict.fromkeys([*index.node_ids[-4:], *index.node_ids[::3]]))  # appended, base; not in order
    picked = generations.vectors_for(store.doc_path("grown"), manifest, some)  # what a shard of it takes
    assert picked.shape == (len(some), index.node_vectors.shape[1])
    assert all(np.array_equal(picked[r], by_id[i]) for r, i in enumerate(some))
    with pytest.raises(DamagedIndexError, match="no vector for node 'no-such-node'"):
        generations.vectors_for(store.doc_path("grown"), manifest, [*some, "no-such-node"])
    index_files(text_jobs([*BASE.items(), *SMALL[:2]]), store, "full", workers=1)
    _assert_same(store, "grown", "full")
    index_files(text_jobs(SMALL[2:]), store, "grown", workers=1)  # past half the base's sentences: linked in full
    assert generations.LAYERS not in store.manifest("grown").linked_files
    index_files(text_jobs(SMALL[2:]), store, "full", workers=1)
    _assert_same(store, "grown", "full")


def test_removing_a_layered_document_links_in_full(store):
    index_files(text_jobs(SMALL[:2]), store, "grown", workers=1)
    remove_documents(store, "grown", ["visit"])
    manifest = store.manifest("grown")
    assert generations.LAYERS not in manifest.linked_files and "visit" not in manifest.doc_ids
    index_files(text_jobs([*BASE.items(), SMALL[1]]), store, "full", workers=1)
    _assert_same(store, "grown", "full")


def test_chroma_at_commit_follows_an_appended_document(tmp_path, monkeypatch):
    import kgcore.index.store.writer as writer_mod

    store = Store(tmp_path, chroma_sync="commit")
    index_files(text_jobs(BASE.items()), store, "c", workers=1)
    monkeypatch.setattr(writer_mod, "read_linked", lambda *a: pytest.fail("an append must not read the whole graph"))
    index_files(text_jobs(SMALL[:1]), store, "c", workers=1)  # upserts the new sentences and changed nodes only
    monkeypatch.undo()
    assert generations.LAYERS in store.manifest("c").linked_files
    index = store.load("c")
    client = chroma.open_chroma(index.path / "chroma")
    try:
        nodes = client.get_collection("nodes").get(include=["embeddings", "metadatas"])
        sentences = client.get_collection("sentences").get()
    finally:
        client.close()
    assert sorted(sentences["ids"]) == sorted(s.id for s in index.sentences)
    assert set(nodes["ids"]) == set(index.node_ids)
    stored = dict(zip(nodes["ids"], nodes["embeddings"]))
    for row, node_id in enumerate(index.node_ids):  # every vector, the changed shared ones (Wendy) included
        np.testing.assert_allclose(stored[node_id], index.node_vectors[row], atol=1e-5)
    labels = {i: m["label"] for i, m in zip(nodes["ids"], nodes["metadatas"])}
    assert labels["wendy"] == index.graph.nodes["wendy"].label


def test_a_damaged_layer_names_its_file_and_the_next_addition_links_in_full(store):
    index_files(text_jobs(SMALL[:1]), store, "grown", workers=1)
    folder = store.doc_path("grown") / linked_folder(store.manifest("grown").generation)
    (folder / generations.LAYERS).write_text('{"appended": ["nobody"], "override_ids": []}')
    with pytest.raises(DamagedIndexError, match="layers.json"):
        store.load("grown")
    index_files(text_jobs(SMALL[1:2]), store, "grown", workers=1)  # the remedy the error names
    assert generations.LAYERS not in store.manifest("grown").linked_files
    index_files(text_jobs([*BASE.items(), *SMALL[:2]]), store, "full", workers=1)
    _assert_same(store, "grown", "full")


def test_a_damaged_proper_part_means_a_full_link(store):
    folder = store.doc_path("grown") / linked_folder(store.manifest("grown").generation)
    (folder / generations.PROPER).write_text("{}")
    index_files(text_jobs(SMALL[:1]), store, "grown", workers=1)
    assert generations.LAYERS not in store.manifest("grown").linked_files
    index_files(text_jobs([*BASE.items(), SMALL[0]]), store, "full", workers=1)
    _assert_same(store, "grown", "full")
