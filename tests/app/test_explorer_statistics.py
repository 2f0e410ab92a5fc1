"""The Graph explorer's Statistics tab through ``streamlit.testing.v1.AppTest``, on a copy of the real Peter Rabbit
index: its four Vega-Lite charts draw the collection's own counts."""

from __future__ import annotations

from collections import Counter

from apptest import app, charts, errors, store_copy

from kgcore.index.store.disk import Store
from paths import PETER_ID


def test_statistics_charts_count_the_graph(peter_store, tmp_path):
    with store_copy(peter_store.root, tmp_path) as root:
        at = app("pages/explorer.py", doc=PETER_ID, tab="Statistics")
        assert not at.exception and not errors(at), errors(at)
        graph = Store(root).load(PETER_ID).graph
        drawn = {spec["title"]: (spec, rows) for spec, rows in charts(at)}  # two columns: read by title
    assert set(drawn) == {"Nodes by type", "Edges by role", "Degree distribution (log count)", "Most connected nodes"}
    types, roles, top = (drawn[t][1] for t in ("Nodes by type", "Edges by role", "Most connected nodes"))
    histogram, degrees = drawn["Degree distribution (log count)"]
    assert dict(zip(types["type"], types["count"])) == Counter(n.node_type for n in graph.nodes.values())
    assert roles["count"].sum() <= len(graph.edges) and roles["count"].is_monotonic_decreasing
    assert degrees["nodes"].sum() == len(graph.nodes) and histogram["encoding"]["y"]["scale"]["type"] == "log"
    assert len(top) == 20 and top["degree"].is_monotonic_decreasing
    assert set(top["type"]) <= set(types["type"])
