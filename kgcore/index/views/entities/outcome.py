"""What resolution produces: its two thresholds and the scored candidate pairs with every entity node's type.

>>> Thresholds().merge_at == MERGE_AT, Resolution((), {}, "research").seconds
(True, 0.0)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kgcore.index.views.entities.decisions import Merge

#: Least name + context cosine for a weak rule to merge (measured on the labelled set's dev half).
MERGE_AT = 0.6
#: Below this grounded-context cosine, two nodes with the same name are kept apart and flagged.
APART_BELOW = 0.2


@dataclass(frozen=True)
class Thresholds:
    """The resolver's two thresholds (see :mod:`kgcore.index.views.entities.resolve`)."""

    merge_at: float = MERGE_AT
    apart_below: float = APART_BELOW


@dataclass(frozen=True)
class SharedName:
    """A name the linked graph made one node across documents whose two documents use it in disjoint contexts
    (the cosine of their grounded-context vectors below the same-name threshold): maybe two entities; flagged."""

    node_id: str
    name: str
    documents: tuple[str, str]
    cosine: float


@dataclass(frozen=True)
class Resolution:
    """What :func:`resolve` found: every scored candidate pair and every entity node's type."""

    candidates: tuple[Merge, ...]
    node_types: Mapping[str, tuple[str, float]]
    type_set: str
    seconds: float = 0.0
    thresholds: Thresholds = field(default_factory=Thresholds)
    #: The common-noun nodes (no name, no defined term) and their document: an entity never holds two of
    #: different documents, even through a name both merged with.
    common: Mapping[str, str] = field(default_factory=dict)
    #: Shared names used differently in two documents (flagged, never split: the base graph is not rewritten).
    shared_names: tuple[SharedName, ...] = ()


#: The shipped thresholds.
DEFAULT = Thresholds()
