"""Surface alignments of an AMR graph: which sentence tokens each variable came from.

Two encodings are read, both with 0-based token indices: ``~e.N`` markers
in the PENMAN text (``give-01~e.3``) and, when there are none, the
ISI-style ``# ::alignments 3-1.2`` metadata line of the LDC AMR releases
and amrlib's FAA aligner, whose addresses count branches from the root
(``1``) in written order.  :mod:`kgcore.index.parse.amr.graph` orders nodes by them.

>>> import penman
>>> g = penman.decode('(c / chase-01~e.1 :ARG0 (d / dog~e.0) :ARG1 d~e.3)')
>>> alignments(g, None, {"c": 0, "d": 0}, "dogs chase their tails".split())
({'c': [1], 'd': [0, 3]}, {'c': ('chase',), 'd': ('dogs',)})
"""

from __future__ import annotations

from collections import defaultdict

import penman
from penman import surface
from penman.models.amr import model as AMR_MODEL


def alignments(graph: penman.Graph, tree: penman.Tree | None, concepts: dict, tokens: list[str]):
    """(var -> aligned token indices, var -> surface words of its concept).

    ``~e.N`` markers on a concept or a constant anchor its variable, on a
    re-entrant variable anchor that variable.  Without markers an
    ISI-style ``# ::alignments`` line (``3-1.2.1``) is read instead.
    """
    anchors: dict[str, list[int]] = defaultdict(list)
    own: dict[str, list[int]] = defaultdict(list)
    for (source, role, target), alignment in surface.alignments(graph).items():
        var = target if role != ":instance" and target in concepts else source
        anchors[var] += alignment.indices
        if role == ":instance":
            own[source] += alignment.indices
    if not anchors and graph.metadata.get("alignments"):
        tree = tree or penman.configure(graph, model=AMR_MODEL)
        _isi_alignments(tree, graph.metadata["alignments"], concepts, anchors, own)
    words = {
        var: (" ".join(tokens[i] for i in sorted(set(ix))),)
        for var, ix in own.items()
        if all(0 <= i < len(tokens) for i in ix)
    }
    return dict(anchors), words


def _isi_alignments(tree: penman.Tree, spec: str, concepts: dict, anchors: dict, own: dict) -> None:
    """Read ``token-address`` pairs where ``1`` is the root and ``1.2`` its second branch.

    >>> tree = penman.parse('(r / run-02 :ARG0 (c / cat :ARG1-of (s / see-01)))')
    >>> anchors, own = defaultdict(list), defaultdict(list)
    >>> _isi_alignments(tree, "1-1.1 3-1.1.1.r 4-1.1.1 5-1", {"r": 0, "c": 0, "s": 0}, anchors, own)
    >>> dict(own)
    {'c': [1], 's': [4], 'r': [5]}
    """
    nodes: dict[str, str] = {}
    constants: dict[str, str] = {}

    def walk(node, address: str) -> None:
        var, branches = node
        nodes[address] = var
        children = [b for b in branches if b[0] != "/"]
        for number, (_, target) in enumerate(children, start=1):
            child = f"{address}.{number}"
            if isinstance(target, tuple):
                walk(target, child)
            elif target.split("~")[0] in concepts:
                nodes[child] = target.split("~")[0]
            else:
                constants[child] = var

    walk(tree.node, "1")
    for item in spec.split():
        token, _, address = item.partition("-")
        if not token.isdigit() or address.endswith(".r"):
            continue
        if address in nodes:
            anchors[nodes[address]].append(int(token))
            own[nodes[address]].append(int(token))
        elif address in constants:
            anchors[constants[address]].append(int(token))
