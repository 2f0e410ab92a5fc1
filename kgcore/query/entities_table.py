"""The collection's entities as the matrices the ``entities`` method reads (:mod:`kgcore.query.methods.entities`).

Per entity (rows in :func:`kgcore.index.views.entities.entity_groups` order): its grounding (entities x sentence rows),
its vector (the description's, :mod:`kgcore.index.views.entities.describe`, else the normalised mean of its nodes'
vectors), the names it is found by, its links to other entities through shared actions
(:func:`kgcore.index.views.entities.overview.entity_links`) and its typed relations
(:func:`kgcore.index.views.entities.relations.entity_relations`: methodology, tool/resource, result, citation,
co-author, affiliation) with their grounding sentences.  Built once per loaded index.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from kgcore.core.embed import Embedder
from kgcore.core.settings import Settings
from kgcore.index.store.disk import CacheKey, Index
from kgcore.index.store.in_memory import ENTITIES
from kgcore.index.views.entities import EntityGroup, entity_groups
from kgcore.index.views.entities.describe import entity_descriptions
from kgcore.index.views.entities.overview import entity_links
from kgcore.index.views.entities.relations import SRL, entity_relations
from kgcore.query.qakg.question import plain

#: A keyword matching one word of a proper name ("Vell" -> Marta Vell) scores this much of a whole-name match.
PART_WEIGHT = 0.8


@dataclass(frozen=True)
class Typed:
    """A typed relation seen from one end: the other entity's row (-1: not an entity, e.g. a cited work), the
    relation type and the sentence rows grounding it."""

    other: int
    relation_type: str
    rows: tuple[int, ...]


@dataclass(frozen=True)
class EntityTable:
    """The collection's entities as matrices retrieval needs (see the module docstring)."""

    ids: list[str]
    names: list[str]
    #: entities x sentence rows, 1 where the entity is grounded.
    grounding: sparse.csr_matrix
    #: entities x entities: how many actions the two fill roles of (depth 2 of the grounded graph).
    neighbours: sparse.csr_matrix
    vectors: np.ndarray
    described: np.ndarray
    #: Every name an entity is known by (its aliases), lower-cased and plain, with the entity row of each.
    name_keys: list[str]
    name_rows: np.ndarray
    #: 1 for a whole name, :data:`PART_WEIGHT` for one word of a proper name.
    name_weights: np.ndarray
    #: Entity row -> its typed relations (not the plain SRL ones, which ``neighbours`` already holds).
    typed: dict[int, tuple[Typed, ...]]


TABLE: CacheKey[EntityTable] = CacheKey("entity-table", group=ENTITIES)


def entity_table(index: Index, embedder: Embedder, settings: Settings | None = None) -> EntityTable:
    """The :class:`EntityTable` of ``index`` (cached on it; builds the descriptions on first use)."""
    return index.cache.get(TABLE, lambda: _build(index, embedder, settings or Settings.from_env()))


def _build(index: Index, embedder: Embedder, settings: Settings) -> EntityTable:
    groups = entity_groups(index)
    found = entity_descriptions(index, embedder, settings)
    rows: list[int] = []
    cols: list[int] = []
    keys: list[tuple[str, float, int]] = []
    vectors = np.zeros((len(groups), index.node_vectors.shape[1]), dtype=np.float32)
    described = np.zeros(len(groups), dtype=bool)
    node_row = index.node_row
    for i, g in enumerate(groups):
        cols += [index.sentence_row(s) for s in g.grounded_texts if index.has_sentence(s)]
        rows += [i] * (len(cols) - len(rows))
        d = found.row(g.entity_id)
        if d is not None:
            vectors[i], described[i] = found.vectors[d], True
        else:
            members = [node_row[n] for n in g.node_ids if n in node_row]
            mean = index.node_vectors[members].mean(axis=0) if members else np.zeros(vectors.shape[1])
            vectors[i] = mean / (np.linalg.norm(mean) or 1.0)
        keys += [(name, weight, i) for name, weight in name_keys([a.name for a in g.aliases] or [g.name])]
    grounding = sparse.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)),
                                  shape=(len(groups), len(index.sentences)))
    return EntityTable([g.entity_id for g in groups], [g.name for g in groups], grounding,
                       entity_links(index).matrix, vectors, described, [k for k, _, _ in keys],
                       np.array([r for _, _, r in keys], dtype=np.int64),
                       np.array([w for _, w, _ in keys], dtype=np.float32), typed_relations(index, groups))


def name_keys(names: list[str]) -> list[tuple[str, float]]:
    """The strings an entity is found by, with their weight: each name plain, and the words of four letters or
    more of a proper name (at :data:`PART_WEIGHT`).

    >>> name_keys(["Marta Vell", "fishing boat"])
    [('marta vell', 1.0), ('fishing boat', 1.0), ('marta', 0.8), ('vell', 0.8)]
    """
    whole = {plain(n): 1.0 for n in names if plain(n)}
    parts = {w: PART_WEIGHT for n in names if n[:1].isupper() and len(plain(n).split()) > 1
             for w in plain(n).split() if len(w) >= 4 and w not in whole}
    return list(whole.items()) + list(parts.items())


def typed_relations(index: Index, groups: tuple[EntityGroup, ...]) -> dict[int, tuple[Typed, ...]]:
    """Entity row -> its typed (non-SRL) relations, from both ends."""
    row_of = {g.entity_id: i for i, g in enumerate(groups)}
    out: dict[int, list[Typed]] = {}
    for r in entity_relations(index):
        if r.relation_type == SRL:
            continue
        rows = tuple(index.sentence_row(s) for s in r.grounded_texts if index.has_sentence(s))
        a, b = row_of.get(r.source, -1), row_of.get(r.target, -1)
        if a >= 0:
            out.setdefault(a, []).append(Typed(b, r.relation_type, rows))
        if b >= 0:
            out.setdefault(b, []).append(Typed(a, r.relation_type, rows))
    return {k: tuple(v) for k, v in out.items()}
