"""The contextual graph on screen (pure: no streamlit): a sentence's neighbourhood, edges coloured by kind, and the
collection's citation graph between its documents, with the sentences that cite.

The contextual graph (:mod:`kgcore.index.views.contextual`) has sentence nodes (rows of the index) and chunk nodes (runs
of a paragraph's sentences); a chunk is drawn as a box named by its first sentence id.

>>> sents = [CtxNode(0, "d/text_0-0", "sentence", "Peter ran <fast>.", ("d/text_0-0",)),
...          CtxNode(1, "d/text_0-1", "sentence", "He hid.", ("d/text_0-1",)),
...          CtxNode(2, "chunk:d/text_0-0", "chunk", "Peter ran <fast>.", ("d/text_0-0", "d/text_0-1"))]
>>> hood = Hood(0, sents, [CtxEdge(0, 2, 1.0, ("chunk",)), CtxEdge(0, 1, 1.0, ("adjacent",)),
...                        CtxEdge(1, 2, 1.0, ("chunk",))], total=2)
>>> nodes, edges = context_vis(hood)
>>> [(n.id, n.label, n.kind, n.emphasis) for n in nodes]  # doctest: +NORMALIZE_WHITESPACE
[('d/text_0-0', 'd/text_0-0', 'sentence', 'matched'), ('d/text_0-1', 'd/text_0-1', 'sentence', ''),
 ('chunk:d/text_0-0', 'd/text_0-0', 'chunk', '')]
>>> [(e.source, e.target, e.label, e.color, e.directed) for e in edges][:2]  # doctest: +NORMALIZE_WHITESPACE
[('d/text_0-0', 'chunk:d/text_0-0', 'chunk', '#72B7B2', False),
 ('d/text_0-0', 'd/text_0-1', 'adjacent', '#9AA5B1', False)]
>>> [name for name, _ in context_legend(hood)]
['sentence', 'chunk', 'edge: adjacent', 'edge: chunk']
>>> [(r["neighbour"], r["kind"], r["edge kinds"]) for r in neighbour_rows(hood)]
[('chunk:d/text_0-0', 'chunk', 'chunk'), ('d/text_0-1', 'sentence', 'adjacent')]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kgcore.api import KINDS, ContextGraph, DocumentCitation, neighbours, node_name

from .cites_view import citing_sentence_html
from .graph_html import KIND_COLORS, VisEdge, VisNode
from .markup_html import counted

#: The most neighbours drawn around a sentence (the heaviest edges first).
MAX_NEIGHBOURS = 30
#: Line colour of each edge kind (colour-blind safe; a link of several kinds takes its first kind's colour).
EDGE_COLORS = {"adjacent": "#9AA5B1", "chunk": "#72B7B2", "shared-node": "#F58518", "graph-edge": "#B279A2",
               "cross-reference": "#54A24B", "citation": "#D62728", "related": "#EECA3B"}
#: Sentences listed by the sentence finder.
FIND_LIMIT = 200


@dataclass(frozen=True)
class CtxNode:
    """One contextual-graph node as drawn: its number, name (sentence id or ``chunk:<first id>``), kind, its
    (first) sentence's text and its sentences' ids."""

    node: int
    name: str
    kind: str
    text: str
    sentences: tuple[str, ...]

    @property
    def label(self) -> str:
        """What the drawing shows: the sentence id (a chunk: its first sentence id)."""
        return self.sentences[0] if self.sentences else self.name


@dataclass(frozen=True)
class CtxEdge:
    """An undirected contextual-graph edge: its ends, weight and kinds."""

    a: int
    b: int
    weight: float
    kinds: tuple[str, ...]


@dataclass
class Hood:
    """A node's neighbourhood: the node (first of ``nodes``), its heaviest neighbours, the edges among them, and how
    many neighbours it has in all."""

    centre: int
    nodes: list[CtxNode]
    edges: list[CtxEdge]
    total: int

    def notice(self) -> str:
        """A line saying the drawing is capped, or nothing.

        >>> Hood(0, [CtxNode(0, "a", "sentence", "", ("a",))], [], total=45).notice()
        'Showing the 0 heaviest of 45 neighbours'
        """
        shown = len(self.nodes) - 1
        return f"Showing the {shown} heaviest of {self.total} neighbours" if self.total > shown else ""


def ctx_node(index, cg: ContextGraph, node: int) -> CtxNode:
    """The node ``node`` of the contextual graph ``cg`` of ``index`` (a sentence row, or a chunk)."""
    if node < cg.n_sentences:
        s = index.sentences[node]
        return CtxNode(node, s.id, "sentence", s.original, (s.id,))
    lo, hi = (int(x) for x in cg.chunk_spans[node - cg.n_sentences])
    ids = tuple(index.sentences[r].id for r in range(lo, hi))
    return CtxNode(node, node_name(index, cg, node), "chunk", index.sentences[lo].original, ids)


def context_neighbourhood(index, cg: ContextGraph, node: int, limit: int = MAX_NEIGHBOURS) -> Hood:
    """``node`` and its ``limit`` heaviest neighbours, with the edges from it and the edges among them."""
    around = neighbours(cg, node)
    kept = around[:limit]
    drawn = {node} | {nb.node for nb in kept}
    edges = [CtxEdge(node, nb.node, nb.weight, nb.kinds) for nb in kept]
    for nb in kept:
        edges += [CtxEdge(nb.node, far.node, far.weight, far.kinds) for far in neighbours(cg, nb.node)
                  if far.node in drawn and far.node != node and nb.node < far.node]
    return Hood(node, [ctx_node(index, cg, n) for n in [node, *(nb.node for nb in kept)]], edges, len(around))


def _short(text: str, chars: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= chars else text[:chars - 1] + "…"


def _kinds_label(kinds: Sequence[str]) -> str:
    return "+".join(kinds) or "link"


def context_vis(hood: Hood) -> tuple[list[VisNode], list[VisEdge]]:
    """VisNodes (the centre emphasised) and undirected VisEdges coloured by their first kind."""
    weights = {e.b: e for e in hood.edges if e.a == hood.centre}
    nodes = []
    for n in hood.nodes:
        edge = weights.get(n.node)
        lines = [f"weight {edge.weight:.2f} · {', '.join(edge.kinds)}"] if edge else []
        lines.append(_short(n.text))
        nodes.append(VisNode(n.name, n.label, n.kind, (), n.sentences, "matched" if n.node == hood.centre else "",
                             "\n".join(lines)))
    names = {n.node: n.name for n in hood.nodes}
    edges = [VisEdge(names[e.a], names[e.b], _kinds_label(e.kinds), kind=e.kinds[0] if e.kinds else "",
                     color=EDGE_COLORS.get(e.kinds[0], "") if e.kinds else "", directed=False,
                     extra=f"weight {e.weight:.2f}") for e in hood.edges if e.a in names and e.b in names]
    return nodes, edges


def context_legend(hood: Hood) -> tuple[tuple[str, str], ...]:
    """Legend entries: the node kinds drawn, then the edge kinds drawn (in :data:`KINDS` order)."""
    node_kinds = [k for k in ("sentence", "chunk") if any(n.kind == k for n in hood.nodes)]
    edge_kinds = {e.kinds[0] for e in hood.edges if e.kinds}
    return tuple((k, KIND_COLORS[k]) for k in node_kinds) + tuple(
        (f"edge: {k}", EDGE_COLORS[k]) for k in KINDS if k in edge_kinds)


def neighbour_rows(hood: Hood) -> list[dict]:
    """The centre's neighbours, heaviest first: name, kind, weight, edge kinds and (first) sentence text."""
    by_node = {n.node: n for n in hood.nodes}
    rows = []
    for e in (e for e in hood.edges if e.a == hood.centre):
        n = by_node[e.b]
        rows.append({"neighbour": n.name, "kind": n.kind, "weight": round(e.weight, 3),
                     "edge kinds": ", ".join(e.kinds), "text": n.text})
    return rows


def find_sentences(sentences: Sequence, query: str, limit: int = FIND_LIMIT) -> list[int]:
    """Rows of the sentences whose id is ``query``, then those whose id or text contains it (case-insensitive);
    every sentence (up to ``limit``) when the query is empty.

    >>> from types import SimpleNamespace as S
    >>> sents = [S(id="d/text_0-1", original="Peter ran."), S(id="d/text_0-10", original="A pie.")]
    >>> find_sentences(sents, "d/text_0-1"), find_sentences(sents, "PIE"), find_sentences(sents, "")
    ([0, 1], [1], [0, 1])
    """
    needle = " ".join(query.lower().split())
    if not needle:
        return list(range(min(limit, len(sentences))))
    exact: list[int] = []
    rest: list[int] = []
    for r, s in enumerate(sentences):  # one pass: a mapped collection decodes each row it reads
        sid = s.id.lower()
        if sid == needle:
            exact.append(r)
        elif len(rest) < limit and (needle in sid or needle in s.original.lower()):
            rest.append(r)
    return (exact + rest)[:limit]


def sentence_choice(sentence, chars: int = 90) -> str:
    """A sentence as a choice in a list: its id and the start of its text.

    >>> from types import SimpleNamespace as S
    >>> sentence_choice(S(id="d/text_0-1", original="Peter ran home as fast as he could."), chars=12)
    'd/text_0-1 — Peter ran h…'
    """
    text = " ".join(sentence.original.split())
    return f"{sentence.id} — {text if len(text) <= chars else text[:chars - 1] + '…'}"


# -- the citation graph between documents ------------------------------------------------------------------------
def citation_vis(documents: Sequence[tuple[str, str]],
                 citations: Sequence[DocumentCitation]) -> tuple[list[VisNode], list[VisEdge]]:
    """Documents ((doc id, source file)) as nodes, each citing pair as an arrow citing → cited labelled with the
    number of citing sentences.

    >>> nodes, edges = citation_vis([("a", "a.pdf"), ("b", "b.pdf")], [DocumentCitation("a", "b", (3, 7))])
    >>> [(n.id, n.kind, n.extra) for n in nodes], [(e.source, e.target, e.label) for e in edges]
    ([('a', 'document', 'cites 1 · cited by 0'), ('b', 'document', 'cites 0 · cited by 1')], [('a', 'b', '2')])
    """
    cites = {d: sum(c.citing == d for c in citations) for d, _ in documents}
    cited = {d: sum(c.cited == d for c in citations) for d, _ in documents}
    nodes = [VisNode(d, d, "document", (source,) if source else (), (), "", f"cites {cites[d]} · cited by {cited[d]}")
             for d, source in documents]
    edges = [VisEdge(c.citing, c.cited, str(len(c.rows)), kind="citation", color=EDGE_COLORS["citation"],
                     extra=f"{len(c.rows)} citing sentence(s)") for c in citations]
    return nodes, edges


def citation_choice(citation: DocumentCitation) -> str:
    """A citing pair as a choice in a list.

    >>> citation_choice(DocumentCitation("a", "b", (3,)))
    'a → b (1 citing sentence)'
    """
    return f"{citation.citing} → {citation.cited} ({counted(len(citation.rows), 'citing sentence')})"


def citation_rows(citations: Sequence[DocumentCitation]) -> list[dict]:
    """One row per citing pair: citing document, cited document, citing sentences.

    >>> citation_rows([DocumentCitation("a", "b", (3, 7))])
    [{'citing': 'a', 'cited': 'b', 'citing sentences': 2}]
    """
    return [{"citing": c.citing, "cited": c.cited, "citing sentences": len(c.rows)} for c in citations]


def citing_sentences_html(collection: str, sentences: Sequence[tuple[str, str]]) -> str:
    """The citing sentences ((id, text)), each id linking to its source view; every text escaped.

    >>> html = citing_sentences_html("shelf", [("a/text_0-3", "As <b>[2]</b> shows.")])
    >>> 'href="sentence?doc=shelf&amp;sid=a%2Ftext_0-3"' in html, "As &lt;b&gt;[2]&lt;/b&gt; shows." in html
    (True, True)
    >>> citing_sentences_html("shelf", [])
    '<div class="kg-empty">No citing sentences.</div>'
    """
    return "".join(citing_sentence_html(collection, sid, text) for sid, text in sentences) or \
        '<div class="kg-empty">No citing sentences.</div>'
