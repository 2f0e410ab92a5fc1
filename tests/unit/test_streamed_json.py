"""Node-link JSON read one node and edge at a time gives the graph ``json.loads`` and ``from_node_link`` give, a
collection manifest read one document at a time the one ``json.loads`` gives, and both name what is wrong with a
damaged file."""

import json
import random

import pytest

from kgcore.core.graph import GroundedGraph
from kgcore.core.types import Edge, Node
from kgcore.index.store import shard
from kgcore.index.store.integrity import DamagedIndexError, digest_of


def _graph(seed: int) -> GroundedGraph:
    rng = random.Random(seed)
    words = ["Peter", "the gate", "radish", "Mr. \"Mac\" Gregor", "café", "a\nb", "{[", "]}", ",", ":"]
    nodes = {}
    for i in range(rng.randint(0, 30)):
        node_id = f"n{i}/{rng.choice(words)}"
        nodes[node_id] = Node(node_id, rng.choice(words), rng.sample(words, rng.randint(0, 3)),
                              rng.choice(["entity", "action"]), [f"d/text_0-{rng.randint(0, 9)}"])
    ids = list(nodes)
    edges = [Edge(rng.choice(ids), rng.choice(ids), rng.choice(["ARG0", "next", "ARGM-LOC"]), "action-entity",
                  [f"d/text_1-{k}"]) for k in range(rng.randint(0, 40))] if ids else []
    return GroundedGraph(nodes, edges)


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize("indent", [None, 2])
def test_read_as_written_it_is_the_graph_json_loads_gives(seed, indent):
    data = json.dumps(_graph(seed).to_node_link(), ensure_ascii=seed % 2 == 0, indent=indent)
    streamed, loaded = GroundedGraph.from_json(data), GroundedGraph.from_node_link(json.loads(data))
    assert streamed.nodes == loaded.nodes and streamed.edges == loaded.edges
    assert list(streamed.nodes) == list(loaded.nodes)


def test_edges_under_edges_are_read_when_there_are_no_links():
    data = json.dumps({"nodes": [], "edges": [{"source": "a", "target": "b", "edge_role": "ARG0",
                                               "edge_type": "action-entity", "grounded_texts": ["d/s"]}]})
    assert [e.source for e in GroundedGraph.from_json(data).edges] == ["a"]


@pytest.mark.parametrize("cut", [1, 10, 60, -3, -1])
def test_a_damaged_linked_graph_is_named_not_half_read(tmp_path, cut):
    data = json.dumps(_graph(3).to_node_link()).encode()
    assert len(data) > 200
    damaged = data[:cut] if cut > 0 else data[:cut]
    (tmp_path / "graph.json").write_bytes(damaged)
    with pytest.raises(DamagedIndexError, match="graph.json"):
        shard.read_graph(tmp_path, {"graph.json": digest_of(damaged)})  # the digest matches: the parse finds it


@pytest.mark.parametrize("text", ["", "[]", '{"nodes": {}}', '{"nodes": [1 2]}', '{"nodes": [], "links": [] x',
                                  '{"nodes" [] }', '{"nodes": [{"node_id": "a"}]}', '{"nodes": []} {}', '{} x',
                                  '{1: 2}', '{[1]: 2}'])
def test_what_is_not_node_link_json_is_an_error_saying_so(text):
    with pytest.raises((ValueError, KeyError, TypeError)):
        GroundedGraph.from_json(text)


def _collection(n: int) -> dict:
    sha = "ab" * 32
    return {"format": 2, "name": "shelf", "generation": 3, "options": {"parser": "srl"},
            "documents": [{"folder": f"d{i}.x", "manifest": {"doc_id": f"d{i}", "counts": {"sentences": i}},
                           "files": {"graph.json": [i, sha], "sentences.jsonl": [2 * i, sha]}} for i in range(n)],
            "linked_files": {"graph.json": [5, sha]}, "a_newer_key": [1, 2]}


@pytest.mark.parametrize("n", [0, 1, 7])
def test_a_collection_manifest_read_one_document_at_a_time_is_the_one_json_loads_gives(n):
    from kgcore.index.store.collection import CollectionManifest

    text = json.dumps(_collection(n), indent=1 if n == 7 else None)
    streamed, loaded = CollectionManifest.from_json(text), CollectionManifest.from_dict(json.loads(text))
    assert streamed == loaded and streamed.to_dict() == loaded.to_dict()
    assert streamed.extra == {"a_newer_key": [1, 2]} and len(streamed.documents) == n
    assert [dict(d.files) for d in streamed.documents] == [dict(d.files) for d in loaded.documents]


def test_a_damaged_collection_manifest_is_named_and_a_newer_one_says_so_first():
    from kgcore.index.store.collection import CollectionManifest

    data = _collection(3)
    text = json.dumps(data)
    for cut in (5, len(text) // 2, len(text) - 1):
        with pytest.raises(DamagedIndexError, match=r"where.json: damaged index file \(not valid JSON"):
            CollectionManifest.from_json(text[:cut], "where.json")
    data["documents"][1] = {"folder": "x"}  # no manifest
    damaged = r"where.json: damaged index file \(unreadable collection manifest: KeyError"
    with pytest.raises(DamagedIndexError, match=damaged):
        CollectionManifest.from_json(json.dumps(data), "where.json")
    data["format"] = 99
    with pytest.raises(Exception, match="written by a newer kgcore"):
        CollectionManifest.from_json(json.dumps(data), "where.json")
