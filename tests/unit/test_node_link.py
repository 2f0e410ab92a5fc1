"""Node-link JSON read one node and edge at a time gives the graph ``json.loads`` and ``from_node_link`` give, and
names what is wrong with a damaged file."""

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
                                  '{"nodes" [] }', '{"nodes": [{"node_id": "a"}]}', '{"nodes": []} {}', '{} x'])
def test_what_is_not_node_link_json_is_an_error_saying_so(text):
    with pytest.raises((ValueError, KeyError, TypeError)):
        GroundedGraph.from_json(text)
