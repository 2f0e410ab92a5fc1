"""Deprecated: which entities are worth listing as an entity's neighbours now lives in kgcore
(:func:`kgcore.api.is_junk_neighbour`, :func:`kgcore.api.entity_neighbours`); this name is kept for old imports.

>>> is_junk_neighbour("we", 1, 6), is_junk_neighbour("Paxos", 1, 6)
(True, False)
"""

from __future__ import annotations

from kgcore.api import is_junk_neighbour

__all__ = ["is_junk_neighbour"]
