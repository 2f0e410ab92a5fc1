"""End-to-end indexing with the real spaCy, MiniLM and Chroma: invariants, reuse, CLI."""

import json

import pytest

from kgcore.cli import main
from kgcore.core.embed import get_embedder
from kgcore.index.coref import get_resolver
from kgcore.index.graph import build_graph
from kgcore.index.load import load_document
from kgcore.index.parse.srl import SrlParser
from kgcore.index.pipeline import index_file
from kgcore.index.sentences import split_sentences
from kgcore.index.store.chroma import open_chroma
from kgcore.index.store.disk import Store
from kgcore.index.store.writer import ensure_chroma
from paths import PETER, PETER_ID, ROOT


def test_whole_peter_rabbit_index_is_grounded(peter_index):
    ids = [s.id for s in peter_index.sentences]
    assert peter_index.graph.invariant_problems(ids) == []
    assert all(n.grounded_texts for n in peter_index.graph.nodes.values())
    assert all(e.grounded_texts for e in peter_index.graph.edges)
    counts = peter_index.manifest.counts
    assert counts.nodes == len(peter_index.graph.nodes) > 150
    assert counts.edges == len(peter_index.graph.edges) > 250
    assert peter_index.node_vectors.shape == (counts.nodes, 384)
    assert peter_index.sentence_vectors.shape == (counts.sentences, 384)
    # every node and edge attribute of section 3.1 is present
    node = next(iter(peter_index.graph.nodes.values()))
    assert set(node.to_dict()) == {"node_id", "label", "texts", "node_type", "grounded_texts"}
    assert set(peter_index.graph.edges[0].to_dict()) == {"source", "target", "edge_role", "edge_type", "grounded_texts"}


def test_paper_example_sentence_in_the_book(peter_index):
    camomile = next(s for s in peter_index.sentences if "camomile tea" in s.original)
    assert "Peter's mother" in camomile.resolved and " she " not in f" {camomile.resolved} "
    nodes = {n.label: n for n in peter_index.graph.nodes_in_sentence(camomile.id)}
    assert {"put", "make", "give"} <= set(nodes)
    assert "tea" in nodes and nodes["tea"].node_type == "entity"
    roles = {(peter_index.graph.nodes[e.source].label, e.edge_role, peter_index.graph.nodes[e.target].label)
             for e in peter_index.graph.edges_in_sentence(camomile.id)}
    assert ("make", "ARG1", "tea") in roles and ("put", "next", "make") in roles


def test_chroma_collections_hold_every_node_and_sentence(peter_store, peter_index):
    ensure_chroma(peter_store, peter_index.collection, get_embedder())
    client = open_chroma(peter_index.path / "chroma")
    try:
        assert client.get_collection("nodes").count() == len(peter_index.node_ids)
        assert client.get_collection("sentences").count() == len(peter_index.sentences)
    finally:
        client.close()


def test_reindexing_same_file_and_settings_is_detected(peter_store):
    again = index_file(PETER, peter_store, name=PETER_ID)
    assert again.reused is True and again.doc_id == PETER_ID


def test_cli_index_list_show_and_exit_codes(tmp_path, capsys):
    book = tmp_path / "Tiny Book.md"
    book.write_text("# Chapter\n\nPeter's mother made some camomile tea. She gave a dose of it to Peter.\n")
    assert main(["index", str(book), "--store", str(tmp_path / "s"), "--quiet"]) == 0
    document, summary = (json.loads(line) for line in capsys.readouterr().out.strip().splitlines())
    assert document["doc_id"] == document["document"] == "tiny-book" and document["status"] == "added"
    assert document["sentences"] >= 2 and document["nodes"] > 0 and document["file"] == "Tiny Book.md"
    assert set(summary) >= {"collection", "documents", "sentences", "nodes", "edges", "seconds"}
    assert summary["collection"] == "tiny-book" and summary["documents"] == 1
    assert main(["list", "--store", str(tmp_path / "s")]) == 0
    assert json.loads(capsys.readouterr().out)[0]["collection"] == "tiny-book"
    assert main(["show", "tiny-book", "--store", str(tmp_path / "s")]) == 0
    assert json.loads(capsys.readouterr().out)["options"]["parser"] == "srl"
    assert main(["show", "--collection", "tiny-book", "--store", str(tmp_path / "s")]) == 0
    assert json.loads(capsys.readouterr().out)["documents"][0]["manifest"]["doc_id"] == "tiny-book"
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    assert main(["index", str(empty), "--store", str(tmp_path / "s"), "--quiet"]) == 2
    assert "empty.txt" in capsys.readouterr().err
    assert main(["index", str(tmp_path / "book.exe"), "--store", str(tmp_path / "s"), "--quiet"]) == 2
    assert main(["show", "missing", "--store", str(tmp_path / "s")]) == 2
    assert "missing" in capsys.readouterr().err


def test_failed_index_keeps_previous_one(tmp_path, monkeypatch):
    store = Store(tmp_path, chroma_sync="commit")  # Chroma written inside the transaction fails it
    book = tmp_path / "book.txt"
    book.write_text("Peter ate some lettuces. Then he ate some radishes.")
    index_file(book, store)
    book.write_text("Peter lost his shoes among the cabbages.")
    import kgcore.index.store.chroma as chroma_mod

    monkeypatch.setattr(chroma_mod, "update", lambda *a, **k: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError):
        index_file(book, store, force=True)
    assert "lettuces" in store.load("book").sentences[0].original
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == ["book", "book.txt"]


def test_whole_novel_graph_is_grounded():
    """Robinson Crusoe (~120k words) through ingest, coref and SRL: the grounding invariant holds."""
    document = load_document(ROOT / "assets" / "robinson_crusoe.txt")
    sentences = get_resolver("heuristic").resolve(split_sentences(document))
    graph = build_graph(SrlParser().parse(sentences), document.name)
    assert len(sentences) > 2000 and len(graph.nodes) > 10000
    assert graph.invariant_problems(s.id for s in sentences) == []
