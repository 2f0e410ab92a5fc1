"""Pure builders for the Sentence page: the parser's frames and the nodes and edges grounded in one sentence.

>>> frames_table([{"predicate": "lose", "text": "lost",
...                "arguments": [{"role": "ARG1", "text": "his shoes", "label": "shoe"}]}]).values.tolist()
[['lose', 'lost', False, 'ARG1: his shoes → shoe']]
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from kgcore.api import Edge, Node

FRAME_COLUMNS = ["predicate", "as written", "negated", "arguments"]


def frames_table(frames: Sequence[dict]) -> pd.DataFrame:
    """SRL frames as stored in an index (``analysis["frames"]``), one row per predicate."""
    rows = []
    for f in frames:
        args = "; ".join(f"{a.get('role')}: {a.get('text')}" + (f" → {a.get('label')}" if a.get("label") else "")
                         for a in f.get("arguments", []))
        rows.append({"predicate": f.get("predicate", ""), "as written": f.get("text", ""),
                     "negated": bool(f.get("negated")), "arguments": args})
    return pd.DataFrame(rows, columns=FRAME_COLUMNS)


def nodes_table(nodes: Sequence[Node]) -> pd.DataFrame:
    """Graph nodes with their type, how many sentences ground them and their first texts.

    >>> nodes_table([Node("tea", "tea", ["tea", "camomile tea"], "entity", ["text_0-1"])]).values.tolist()
    [['tea', 'entity', 1, 'tea; camomile tea', 'tea']]
    """
    return pd.DataFrame([{"node": n.label, "type": n.node_type, "sentences": len(n.grounded_texts),
                          "texts": "; ".join(n.texts[:4]), "node id": n.node_id} for n in nodes])


def edges_table(edges: Sequence[Edge]) -> pd.DataFrame:
    """Graph edges: source, role, target and edge type."""
    return pd.DataFrame([{"source": e.source, "role": e.edge_role, "target": e.target, "type": e.edge_type}
                         for e in edges])
