"""Entities of a collection: groups of ENTITY nodes that name the same thing, with their type.

**These signatures are stable** (other modules build on them): :class:`Alias`, :class:`EntityGroup`,
:func:`entity_groups` and :func:`entity_of`.  Resolution is an *overlay* on the linked graph: the base
graph is never rewritten; an entity is a set of node ids plus the rule that merged each member
(:mod:`kgcore.index.views.entities.resolve`), and its type comes from :mod:`kgcore.index.views.entities.types`.

>>> a = Alias("RAG", "rag", "canonical", 1.0)
>>> g = EntityGroup("rag", "RAG", ("rag",), (a,), "method", 0.8, ("p1",), ("p1/text_0-1",))
>>> g.size, g.alias_of("rag").rule
(1, 'canonical')
"""

from __future__ import annotations

from kgcore.index.store.in_memory import ENTITIES, CacheKey, Index
from kgcore.index.views.entities.entity import UNKNOWN, Alias, EntityGroup
from kgcore.index.views.entities.resolve import resolved_groups

__all__ = ["UNKNOWN", "Alias", "EntityGroup", "entity_groups", "entity_of", "forget"]

ENTITY_GROUPS: CacheKey[tuple[EntityGroup, ...]] = CacheKey("entity-groups", group=ENTITIES)
ENTITY_OF: CacheKey[dict[str, str]] = CacheKey("entity-of", group=ENTITIES)


def entity_groups(index: Index) -> tuple[EntityGroup, ...]:
    """The collection's entities (resolved and typed), in reading order of their first mention; the first member
    of each (its canonical node, whose id is the entity id) is the one grounded in most sentences.

    Built once per loaded index (cached on ``index.cache``); the resolution overlay is read from, or written
    to, the collection folder.
    """
    return index.cache.get(ENTITY_GROUPS, lambda: resolved_groups(index))


def entity_of(index: Index) -> dict[str, str]:
    """Node id -> entity id, for every ENTITY node of the index."""

    def build() -> dict[str, str]:
        return {node_id: g.entity_id for g in entity_groups(index) for node_id in g.node_ids}

    return index.cache.get(ENTITY_OF, build)


def forget(index: Index) -> None:
    """Drop the cached entities of ``index`` (after a review decision), so the next call rebuilds them."""
    index.cache.drop_group(ENTITIES)
