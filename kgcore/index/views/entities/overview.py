"""A structured overview of a collection (the cross-document entity graph's hierarchical summarisation), every statement
cited.

* **Links**: two entities are linked when they fill roles of one action (the grounded graph's
  entity - action - entity paths); the weight is how many actions they share (:func:`entity_links`).
* **Central entities**: ranked by PageRank over the weighted links (networkx), with their degree.
* **Depth-limited subgraphs**: around each central entity, its neighbours up to ``depth`` links away; each
  depth-1 neighbour is cited by a sentence of an action the two share.
* **Subtopics**: central entities grouped by their neighbourhoods: an entity joins the first subtopic whose
  lead shares at least :data:`SUBTOPIC_OVERLAP` of their neighbours (Jaccard), else starts its own.

:func:`overview_markdown` writes it as markdown in which every statement ends with the sentence ids it rests
on (``[doc/text_0-3]``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from kgcore.core.embed import Embedder
from kgcore.core.settings import Settings
from kgcore.core.types import ACTION
from kgcore.index.store.in_memory import ENTITIES, CacheKey, Index
from kgcore.index.views.entities.describe import entity_descriptions
from kgcore.index.views.entities.model import EntityGroup, entity_groups

#: Least Jaccard overlap of two central entities' neighbourhoods for them to share a subtopic.
SUBTOPIC_OVERLAP = 0.2
#: Neighbours listed (and cited) per central entity.
MAX_LISTED = 5
PAGERANK_ALPHA = 0.85


@dataclass(frozen=True)
class EntityLinks:
    """Entities (rows, in :func:`entity_groups` order) linked by the actions they share."""

    groups: tuple[EntityGroup, ...]
    #: entities x entities, symmetric: how many actions the two fill roles of.
    matrix: sparse.csr_matrix
    #: Per entity row, the ids of the actions it fills a role of.
    actions: tuple[frozenset[str], ...]

    def shared(self, row: int) -> dict[int, float]:
        """The rows linked to entity ``row``, in row order, each with the actions the two share."""
        lo, hi = self.matrix.indptr[row], self.matrix.indptr[row + 1]
        return dict(zip(self.matrix.indices[lo:hi].tolist(), self.matrix.data[lo:hi].tolist()))


LINKS: CacheKey[EntityLinks] = CacheKey("entity-links", group=ENTITIES)


def entity_links(index: Index) -> EntityLinks:
    """The :class:`EntityLinks` of ``index`` (built once per loaded index)."""
    return index.cache.get(LINKS, lambda: _links(index))


def _links(index: Index) -> EntityLinks:
    groups = entity_groups(index)
    row_of = {n: i for i, g in enumerate(groups) for n in g.node_ids}
    members: dict[str, set[int]] = {}
    nodes = index.graph.nodes
    for e in index.graph.edges:
        for action, other in ((e.source, e.target), (e.target, e.source)):
            if other in row_of and action in nodes and nodes[action].node_type == ACTION:
                members.setdefault(action, set()).add(row_of[other])
    actions: list[set[str]] = [set() for _ in groups]
    rows, cols = [], []
    for action, found in members.items():
        ordered = sorted(found)
        for a in ordered:
            actions[a].add(action)
            rows += [a] * (len(ordered) - 1)
            cols += [b for b in ordered if b != a]
    n = len(groups)
    matrix = sparse.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(n, n))
    matrix.sum_duplicates()
    return EntityLinks(groups, matrix, tuple(frozenset(a) for a in actions))


def joining_sentence(index: Index, links: EntityLinks, a: int, b: int) -> str | None:
    """A sentence id grounding an action both entities fill a role of (the earliest), or None."""
    shared = links.actions[a] & links.actions[b]
    found = [s for action in shared for s in index.graph.nodes[action].grounded_texts if index.has_sentence(s)]
    return min(found, key=index.sentence_row) if found else None


def centrality(matrix: sparse.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """(degree, PageRank) of every row of a symmetric weighted adjacency matrix (networkx's PageRank).

    >>> m = sparse.csr_matrix(np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]], dtype=float))
    >>> degree, rank = centrality(m)
    >>> degree.tolist(), int(np.argmax(rank))
    ([2, 1, 1], 0)
    """
    import networkx as nx

    degree = np.diff(matrix.indptr).astype(np.int64)
    if matrix.shape[0] == 0 or matrix.nnz == 0:
        return degree, np.full(matrix.shape[0], 1.0 / max(1, matrix.shape[0]))
    graph = nx.from_scipy_sparse_array(matrix)
    ranks = nx.pagerank(graph, alpha=PAGERANK_ALPHA, weight="weight")
    return degree, np.array([ranks[i] for i in range(matrix.shape[0])])


def neighbourhood(matrix: sparse.csr_matrix, row: int, depth: int) -> dict[int, int]:
    """Rows within ``depth`` links of ``row`` -> their distance (``row`` itself left out).

    >>> m = sparse.csr_matrix(np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=float))
    >>> neighbourhood(m, 0, 1), neighbourhood(m, 0, 2)
    ({1: 1}, {1: 1, 2: 2})
    """
    seen = {row: 0}
    frontier = [row]
    for d in range(1, depth + 1):
        nxt = []
        for r in frontier:
            for n in matrix.indices[matrix.indptr[r]:matrix.indptr[r + 1]].tolist():
                if n not in seen:
                    seen[n] = d
                    nxt.append(n)
        frontier = nxt
    seen.pop(row)
    return seen


@dataclass(frozen=True)
class Statement:
    """One cited statement of the overview."""

    text: str
    cites: tuple[str, ...]


@dataclass(frozen=True)
class CentralEntity:
    """A central entity: its rank, scores, description and its depth-limited subgraph."""

    entity_id: str
    name: str
    entity_type: str
    degree: int
    pagerank: float
    documents: tuple[str, ...]
    description: tuple[Statement, ...]
    #: Neighbours at depth 1 (entity id, name) with the sentence joining them (the strongest links first).
    neighbours: tuple[tuple[str, str, Statement], ...]
    #: How many entities lie within depth 1, 2, ... links.
    within: tuple[int, ...]


@dataclass(frozen=True)
class Overview:
    """The collection's overview: central entities grouped in subtopics (each a list of entity ids)."""

    collection: str
    documents: int
    sentences: int
    entities: int
    depth: int
    central: tuple[CentralEntity, ...]
    subtopics: tuple[tuple[str, ...], ...]

    def entity(self, entity_id: str) -> CentralEntity:
        return next(c for c in self.central if c.entity_id == entity_id)


def collection_overview(index: Index, embedder: Embedder, settings: Settings | None = None, top: int = 10,
                        depth: int = 2) -> Overview:
    """The :class:`Overview` of ``index``: its ``top`` central entities by PageRank, subgraphs to ``depth``."""
    links = entity_links(index)
    descriptions = entity_descriptions(index, embedder, settings)
    degree, rank = centrality(links.matrix)
    order = [int(r) for r in np.argsort(-rank, kind="stable") if degree[r] > 0][:top]
    central = tuple(_central(index, links, descriptions, degree, rank, r, depth) for r in order)
    return Overview(index.collection, len(index.manifest.documents), len(index.sentences), len(links.groups), depth,
                    central, subtopics(links.matrix, order, depth=1, ids=[c.entity_id for c in central]))


def _central(index, links, descriptions, degree, rank, row, depth) -> CentralEntity:
    g = links.groups[row]
    found = descriptions.of(g.entity_id)
    if found is not None:
        description = tuple(Statement(s.text, s.cites) for s in found.sentences)
    else:
        first = g.grounded_texts[0]
        description = (Statement(index.sentence(first).original, (first,)),)
    near = neighbourhood(links.matrix, row, depth)
    weights = links.shared(row)
    listed = []
    for n in sorted(weights, key=lambda n: (-weights[n], -rank[n]))[:MAX_LISTED]:
        sid = joining_sentence(index, links, row, n)
        if sid is not None:
            other = links.groups[n]
            listed.append((other.entity_id, other.name, Statement(index.sentence(sid).original, (sid,))))
    within = tuple(sum(1 for d in near.values() if d <= k) for k in range(1, depth + 1))
    return CentralEntity(g.entity_id, g.name, g.entity_type, int(degree[row]), round(float(rank[row]), 6),
                         g.documents, description, tuple(listed), within)


def subtopics(matrix: sparse.csr_matrix, rows: list[int], depth: int = 1,
              ids: list[str] | None = None) -> tuple[tuple[str, ...], ...]:
    """Group ``rows`` (most central first): a row joins the first group whose lead shares at least
    :data:`SUBTOPIC_OVERLAP` of their neighbourhoods (Jaccard, each row counted in its own), else leads a new one.

    >>> m = sparse.csr_matrix(np.array([[0, 1, 1, 0, 0], [1, 0, 1, 0, 0], [1, 1, 0, 0, 0], [0, 0, 0, 0, 1],
    ...                                 [0, 0, 0, 1, 0]], dtype=float))
    >>> subtopics(m, [0, 3, 1], ids=["a", "d", "b"])
    (('a', 'b'), ('d',))
    """
    names = ids or [str(r) for r in rows]
    name_of = dict(zip(rows, names))
    near = {r: set(neighbourhood(matrix, r, depth)) | {r} for r in rows}
    groups: list[list[int]] = []
    for r in rows:
        for group in groups:
            lead = group[0]
            union = near[lead] | near[r]
            if len(near[lead] & near[r]) / len(union) >= SUBTOPIC_OVERLAP:
                group.append(r)
                break
        else:
            groups.append([r])
    return tuple(tuple(name_of[r] for r in g) for g in groups)


def cite(ids: tuple[str, ...]) -> str:
    """Sentence ids as a citation.

    >>> cite(("a/text_0-1", "b/text_0-2"))
    '[a/text_0-1, b/text_0-2]'
    """
    return f"[{', '.join(ids)}]"


def _oneline(text: str) -> str:
    """Text on one line with markdown's table and heading characters made harmless.

    >>> _oneline("a | b\\n# c")
    'a \\\\| b \\\\# c'
    """
    return " ".join(text.split()).replace("|", "\\|").replace("#", "\\#")


def overview_markdown(ov: Overview) -> str:
    """The overview as markdown; every statement about the collection's content ends with its sentence ids."""
    lines = [f"# Overview of {_oneline(ov.collection)}", "",
             f"{ov.documents} documents, {ov.sentences:,} sentences, {ov.entities:,} entities; the {len(ov.central)} "
             f"most central entities by PageRank over shared actions, their neighbours to depth {ov.depth}, "
             f"grouped in {len(ov.subtopics)} subtopics.", "", "## Central entities", "",
             "| rank | entity | type | degree | PageRank | documents | grounded in |", "|---|---|---|---|---|---|---|"]
    for n, c in enumerate(ov.central, start=1):
        first = c.description[0].cites if c.description else ()
        lines.append(f"| {n} | {_oneline(c.name)} | {c.entity_type} | {c.degree} | {c.pagerank:.4f} | "
                     f"{len(c.documents)} | {cite(first)} |")
    for t, members in enumerate(ov.subtopics, start=1):
        lead = ov.entity(members[0])
        lines += ["", f"## Subtopic {t}: {_oneline(lead.name)}", ""]
        for entity_id in members:
            c = ov.entity(entity_id)
            within = ", ".join(f"{k} within {d}" for d, k in enumerate(c.within, start=1))
            lines += [f"### {_oneline(c.name)} ({c.entity_type}; {within} links)", ""]
            lines += [f"{_oneline(s.text)} {cite(s.cites)}" for s in c.description]
            if c.neighbours:
                lines += ["", "Linked to:"]
                lines += [f"- **{_oneline(name)}**: {_oneline(s.text)} {cite(s.cites)}"
                          for _, name, s in c.neighbours]
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"
