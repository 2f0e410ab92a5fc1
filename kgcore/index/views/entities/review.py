"""The merge review queue: candidates close to a threshold or kept apart by a guard, and people's decisions on them.

A reviewer confirms a pair (the two nodes become one entity) or splits it (they never do, not even through
other merges); the decision is stored with the reviewer and the time in the collection folder
(:mod:`kgcore.index.views.entities.decisions`) and the index's cached entities are dropped so the next
:func:`~kgcore.index.views.entities.model.entity_groups` applies it.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgcore.core.errors import InputError
from kgcore.core.types import ENTITY
from kgcore.index.store.in_memory import Index
from kgcore.index.views.entities.decisions import (
    AMBIGUOUS_PART,
    NEAR_THRESHOLD,
    SAME_NAME_APART,
    Merge,
    applicable,
    decide,
    pair_key,
    read_human,
    record_human,
)
from kgcore.index.views.entities.model import forget
from kgcore.index.views.entities.resolve import resolution

#: The rule of a pair a person merged although the resolver never proposed it.
MANUAL = "manual"


@dataclass(frozen=True)
class Side:
    """One node of a candidate pair: its name, type, documents and one grounded sentence (id and text)."""

    node_id: str
    name: str
    entity_type: str
    documents: tuple[str, ...]
    sentence_id: str
    sentence: str


@dataclass(frozen=True)
class ReviewItem:
    """A candidate pair to review: the resolver's record (rule, scores, merged?, flag), both sides, and the
    latest decision a person took on it (None: not reviewed)."""

    merge: Merge
    a: Side
    b: Side
    decision: Merge | None

    @property
    def key(self) -> str:
        """A stable key for the pair (widget keys, URLs)."""
        return f"{self.merge.pair[0]}|{self.merge.pair[1]}"


def review_queue(index: Index, include_reviewed: bool = True, limit: int = 200,
                 everything: bool = False) -> list[ReviewItem]:
    """Candidates near a threshold or flagged "same name, different context" (``everything``: every candidate),
    closest to the threshold first, then the pairs people merged by hand."""
    found = resolution(index)
    decided = applicable(read_human(index.path), set(index.graph.nodes))
    flagged = [m for m in found.candidates if everything or m.flag in (NEAR_THRESHOLD, SAME_NAME_APART,
                                                                        AMBIGUOUS_PART)]
    manual = [d for p, d in decided.items() if d.rule == MANUAL]
    items = [ReviewItem(m, side(index, m.a, found.node_types), side(index, m.b, found.node_types), decided.get(m.pair))
             for m in sorted(flagged, key=lambda m: (_distance(m, found.thresholds), m.pair)) + manual]
    if not include_reviewed:
        items = [i for i in items if i.decision is None]
    return items[:limit]


def _distance(m: Merge, thresholds) -> float:
    """How far a candidate is from the threshold that decided it."""
    if m.flag == SAME_NAME_APART or m.rule in ("exact-name", "plural-case", "honorific"):
        return abs(m.score("context") - thresholds.apart_below)
    return abs(m.score("cosine") - thresholds.merge_at)


def side(index: Index, node_id: str, node_types) -> Side:
    """The review view of one node."""
    node = index.graph.nodes[node_id]
    first = node.grounded_texts[0]
    kind = node_types.get(node_id, ("unknown", 0.0))[0]
    return Side(node_id, node.label, kind, tuple(index.node_documents.get(node_id, ())), first,
                index.sentence(first).original)


def record(index: Index, a: str, b: str, status: str, reviewer: str) -> Merge:
    """Store a person's decision (``confirmed`` or ``split``) on the pair (a, b) and drop the cached entities."""
    for node_id in (a, b):
        node = index.graph.nodes.get(node_id)
        if node is None or node.node_type != ENTITY:
            raise InputError("node", f"{node_id!r} is no entity node of {index.collection!r}")
    if a == b:
        raise InputError("node", "a node cannot be merged with itself")
    found = {m.pair: m for m in resolution(index).candidates}
    candidate = found.get(pair_key(a, b), Merge(a, b, MANUAL, (), merged=False))
    decision = decide(candidate, status, reviewer)
    record_human(index.path, decision)
    forget(index)
    return decision

