"""Store round trip with a real Chroma PersistentClient, atomic replacement and recovery; a real index whose
manifest an older kgcore wrote."""

import json
import shutil

import numpy as np
import pytest

import kgcore.index.store as store_mod
from kgcore.core.errors import IndexNotFoundError, InputError
from kgcore.core.settings import RetrievalOptions
from kgcore.core.types import LocalEdge, LocalNode, Sentence, SentenceGraph
from kgcore.index.graph import build_graph
from kgcore.index.manifest import Counts, Manifest
from kgcore.index.store import Store, open_chroma
from kgcore.query.engine import QueryEngine
from paths import DATA, PETER_ID

OLD_MANIFEST = DATA / "manifests" / "peter-rabbit-0.1.0.json"


def _index_parts(word="tea"):
    sentences = [
        Sentence("text_0-0", 0, 0, 0, f"Peter drank {word}.", f"Peter drank {word}.", f"Peter drank {word}."),
        Sentence("text_0-1", 0, 1, 1, "He slept.", "He slept.", "Peter slept."),
    ]
    sgs = [
        SentenceGraph("text_0-0", (LocalNode("p", "Peter", ("Peter",), "entity", "peter", 0),
                                   LocalNode("d", "drink", ("drank",), "action", None, 6),
                                   LocalNode("t", word, (word,), "entity", word, 12)),
                      (LocalEdge("d", "p", "ARG0", "action-entity"), LocalEdge("d", "t", "ARG1", "action-entity")),
                      {"frames": [{"predicate": "drink"}]}),
        SentenceGraph("text_0-1", (LocalNode("p", "Peter", ("Peter",), "entity", "peter", 0),
                                   LocalNode("s", "sleep", ("slept",), "action", None, 6)),
                      (LocalEdge("s", "p", "ARG0", "action-entity"),)),
    ]
    graph = build_graph(sgs)
    ids = list(graph.nodes)
    rng = np.random.default_rng(0)
    node_vectors = rng.normal(size=(len(ids), 8)).astype(np.float32)
    node_vectors /= np.linalg.norm(node_vectors, axis=1, keepdims=True)
    sent_vectors = rng.normal(size=(2, 8)).astype(np.float32)
    manifest = Manifest("book", created_at="2026-01-01T00:00:00", counts=Counts(sentences=2), extra={"word": word})
    return manifest, sentences, graph, ids, node_vectors, sent_vectors, [(sg.sentence_id, sg.analysis) for sg in sgs]


def test_round_trip_with_real_chroma(tmp_path):
    store = Store(tmp_path)
    manifest, sentences, graph, ids, nv, sv, analyses = _index_parts()
    path = store.write(manifest, sentences, graph, ids, nv, sv, analyses)
    assert path == tmp_path / "book" and (path / "chroma").is_dir()
    index = store.load("book")
    assert index.sentences == sentences and index.graph.nodes == graph.nodes and index.graph.edges == graph.edges
    assert index.node_ids == ids and np.allclose(index.node_vectors, nv)
    assert index.analyses()["text_0-0"] == {"frames": [{"predicate": "drink"}]}
    assert [m.doc_id for m in store.list()] == ["book"]
    # Chroma holds the same vectors: querying with a node's own vector returns that node first.
    hits = index.chroma_query_nodes(nv[:2], k=2)
    assert [h[0][0] for h in hits] == ids[:2] and hits[0][0][1] == pytest.approx(1.0, abs=1e-4)
    client = open_chroma(path / "chroma")
    try:
        assert client.get_collection("sentences").count() == 2
        assert client.get_collection("nodes").count() == len(ids)
    finally:
        client.close()


def test_crash_mid_write_keeps_previous_index_and_hides_half_index(tmp_path, monkeypatch):
    store = Store(tmp_path)
    store.write(*_index_parts("tea"))

    def boom(*args, **kwargs):
        raise RuntimeError("simulated crash while writing Chroma")

    monkeypatch.setattr(store_mod, "_write_chroma", boom)
    with pytest.raises(RuntimeError):
        store.write(*_index_parts("milk"))
    assert store.load("book").manifest.extra["word"] == "tea"
    assert [p.name for p in tmp_path.iterdir()] == ["book"]  # no temporary folder left behind
    assert [m.doc_id for m in store.list()] == ["book"]


def test_interrupted_swap_is_recovered(tmp_path):
    store = Store(tmp_path)
    store.write(*_index_parts("tea"))
    # Simulate a kill between the two renames of a swap: only the old copy exists.
    (tmp_path / "book").rename(tmp_path / ".old-book-deadbeef")
    (tmp_path / ".tmp-book-cafe").mkdir()  # an unfinished new index: no manifest
    assert store.exists("book") and store.load("book").manifest.extra["word"] == "tea"
    store.write(*_index_parts("milk"))
    assert store.load("book").manifest.extra["word"] == "milk"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["book"]


def test_errors_name_the_document(tmp_path):
    store = Store(tmp_path)
    with pytest.raises(IndexNotFoundError, match="nope"):
        store.load("nope")
    with pytest.raises(InputError, match="doc_id"):
        store.load("../etc")
    store.write(*_index_parts())
    store.delete("book")
    assert store.list() == [] and not (tmp_path / "book").exists()


def test_damaged_manifest_is_not_listed(tmp_path):
    store = Store(tmp_path)
    store.write(*_index_parts())
    (tmp_path / "book" / "manifest.json").write_text("{broken")
    assert store.list() == []
    with pytest.raises(Exception, match="damaged manifest"):
        store.manifest("book")
    json.loads((tmp_path / "book" / "node_ids.json").read_text())  # the rest is untouched


# -- a real index whose manifest kgcore 0.1.0 wrote ---------------------------------------------


def _old_manifest(without_narrator: bool) -> dict:
    """tests/data/manifests/peter-rabbit-0.1.0.json; without the narrator keys it is what kgcore wrote before
    narrator resolution existed."""
    data = json.loads(OLD_MANIFEST.read_text(encoding="utf-8"))
    if without_narrator:
        del data["narrator"]
        del data["options"]["narrator"]
    return data


def test_the_peter_index_is_what_kgcore_0_1_0_built(peter_index):
    """The restructured pipeline builds the same index from the same book with the same options."""
    old = Manifest.from_dict(_old_manifest(without_narrator=False))
    manifest = peter_index.manifest
    assert (manifest.doc_id, manifest.source_sha256, manifest.options) == (old.doc_id, old.source_sha256, old.options)
    assert manifest.models == old.models and manifest.counts == old.counts and manifest.narrator == old.narrator
    assert list(manifest.to_dict()) == list(old.to_dict())


@pytest.mark.parametrize("without_narrator", [False, True])
def test_an_index_with_an_old_manifest_opens_and_answers(peter_store, tmp_path, without_narrator):
    shutil.copytree(peter_store.root / PETER_ID, tmp_path / PETER_ID)
    old = _old_manifest(without_narrator)
    (tmp_path / PETER_ID / "manifest.json").write_text(json.dumps(old, ensure_ascii=False, indent=1), encoding="utf-8")
    store = Store(tmp_path)
    index = store.load(PETER_ID)
    assert index.manifest == Manifest.from_dict(old) and index.manifest.narrator is None
    assert index.manifest.options.narrator == ("none" if without_narrator else "auto")
    assert [m.doc_id for m in store.list()] == [PETER_ID]
    assert (
        len(index.sentences) == index.manifest.counts.sentences and len(index.node_ids) == index.manifest.counts.nodes
    )
    result, answer = QueryEngine(store).ask(PETER_ID, "Where did Peter lose his shoes?",
                                            RetrievalOptions(budget_words=300), "extractive")
    assert result.sentences and "cabbages" in answer.text
    assert {i for c in answer.citations for i in c.sentence_ids} <= set(result.sentence_ids)
