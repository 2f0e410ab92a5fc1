"""Entities of a collection: resolution of ENTITY nodes into entities, their types and typed relations.

The stable interface is :mod:`kgcore.index.views.entities.model`.
"""

from kgcore.index.views.entities.model import UNKNOWN, Alias, EntityGroup, entity_groups, entity_of

__all__ = ["UNKNOWN", "Alias", "EntityGroup", "entity_groups", "entity_of"]
