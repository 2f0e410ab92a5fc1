"""The value types of entities: an entity (a group of ENTITY nodes naming one thing) and its aliases.

**These signatures are stable**; :mod:`kgcore.index.views.entities.model` re-exports them with ``entity_groups``.

>>> a = Alias("RAG", "rag", "canonical", 1.0)
>>> g = EntityGroup("rag", "RAG", ("rag",), (a,), "method", 0.8, ("p1",), ("p1/text_0-1",))
>>> g.size, g.alias_of("rag").rule
(1, 'canonical')
"""

from __future__ import annotations

from dataclasses import dataclass

#: The type of an entity no typer has looked at.
UNKNOWN = "unknown"


@dataclass(frozen=True)
class Alias:
    """One member node of an entity, with the rule that merged it (``"canonical"`` for the first member)."""

    name: str
    node_id: str
    rule: str
    score: float


@dataclass(frozen=True)
class EntityGroup:
    """One entity: its member nodes, aliases, type and the union of its members' grounding in reading order."""

    entity_id: str
    name: str
    node_ids: tuple[str, ...]
    aliases: tuple[Alias, ...]
    entity_type: str
    type_confidence: float
    documents: tuple[str, ...]
    grounded_texts: tuple[str, ...]

    @property
    def size(self) -> int:
        """How many nodes the entity joins."""
        return len(self.node_ids)

    def alias_of(self, node_id: str) -> Alias:
        """The alias record of a member node."""
        return next(a for a in self.aliases if a.node_id == node_id)


