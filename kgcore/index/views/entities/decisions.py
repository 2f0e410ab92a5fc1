"""Merge decisions: what the resolver proposed and what people confirmed or split, stored apart.

The resolver's candidates are derived data, stored with the linked graph (rebuilt when the collection
changes).  People's decisions live in a small JSON file of their own in the collection folder,
:data:`HUMAN_FILE`, keyed by the two node ids, so they survive re-linking and adding or removing documents;
a decision whose nodes are gone is kept in the file but not applied.  The latest decision on a pair wins.

>>> m = Merge("rag", "p1/retrieval augmented generation", "acronym", (("acronym", 1.0), ("cosine", 0.71)))
>>> m.pair, m.status, m.score("cosine")
(('p1/retrieval augmented generation', 'rag'), 'proposed', 0.71)
>>> Merge.from_dict(m.to_dict()) == m
True
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from kgcore.core.atomic import replace_text
from kgcore.core.errors import InputError

PROPOSED, CONFIRMED, SPLIT = "proposed", "confirmed", "split"
STATUSES = (PROPOSED, CONFIRMED, SPLIT)
#: Flags a candidate can carry: kept apart although the names agree, and close to a threshold.
SAME_NAME_APART, NEAR_THRESHOLD = "same-name-different-context", "near-threshold"
#: A one-word name that is part of several longer names ("Box" of "Box Five" and "Box Seven"): merged with none.
AMBIGUOUS_PART = "ambiguous-name-part"
#: People's decisions, in the collection folder (never in a linked folder, which re-linking replaces).
HUMAN_FILE = "entity_decisions.json"


@dataclass(frozen=True)
class Merge:
    """One candidate pair: the rule that (would) merge it, its scores and its status.

    ``merged`` says whether the pair joins one entity (the resolver's call for ``proposed``, yes for
    ``confirmed``, no for ``split``); ``flag`` marks pairs for review; ``reviewer``/``at`` record a person.
    """

    a: str
    b: str
    rule: str
    scores: tuple[tuple[str, float], ...]
    status: str = PROPOSED
    merged: bool = True
    flag: str = ""
    reviewer: str = ""
    at: str = ""

    @property
    def pair(self) -> tuple[str, str]:
        """The two node ids, sorted: the key of the pair."""
        return pair_key(self.a, self.b)

    def score(self, name: str, default: float = 0.0) -> float:
        """One of the scores by name."""
        return dict(self.scores).get(name, default)

    def to_dict(self) -> dict:
        return {**asdict(self), "scores": [list(s) for s in self.scores]}

    @classmethod
    def from_dict(cls, data: dict) -> Merge:
        values = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        values["scores"] = tuple((str(n), float(v)) for n, v in data.get("scores", ()))
        return cls(**values)


def pair_key(a: str, b: str) -> tuple[str, str]:
    """The order-free key of a pair of node ids.

    >>> pair_key("b", "a")
    ('a', 'b')
    """
    return (a, b) if a <= b else (b, a)


def decide(candidate: Merge, status: str, reviewer: str, now: datetime | None = None) -> Merge:
    """``candidate`` with a person's decision (confirmed or split) recorded with who and when.

    >>> d = decide(Merge("a", "b", "fuzzy-name", ()), "split", "ann", datetime(2026, 1, 2, tzinfo=UTC))
    >>> d.status, d.merged, d.reviewer, d.at
    ('split', False, 'ann', '2026-01-02T00:00:00+00:00')
    """
    if status not in (CONFIRMED, SPLIT):
        raise InputError("status", f"{status!r} is not a decision; use {CONFIRMED!r} or {SPLIT!r}")
    if not reviewer.strip():
        raise InputError("reviewer", "is empty: sign in to record a decision")
    at = (now or datetime.now(UTC)).isoformat(timespec="seconds")
    return replace(candidate, status=status, merged=status == CONFIRMED, reviewer=reviewer.strip(), at=at)


def read_human(folder: Path) -> list[Merge]:
    """People's decisions stored in ``folder`` (the collection folder); none when the file is missing."""
    file = folder / HUMAN_FILE
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:
        raise InputError(str(file), f"cannot read the entity decisions: {exc}") from None
    return [Merge.from_dict(d) for d in data.get("decisions", [])]


def record_human(folder: Path, decision: Merge) -> list[Merge]:
    """Add (or replace: latest wins) a person's decision on its pair and write the file atomically."""
    if decision.status not in (CONFIRMED, SPLIT):
        raise InputError("status", f"only confirmed or split decisions are stored, not {decision.status!r}")
    kept = [d for d in read_human(folder) if d.pair != decision.pair] + [decision]
    write_json(folder / HUMAN_FILE, {"version": 1, "decisions": [d.to_dict() for d in kept]})
    return kept


def applicable(decisions: Iterable[Merge], node_ids: Iterable[str] | set[str]) -> dict[tuple[str, str], Merge]:
    """The latest decision per pair whose two nodes still exist.

    >>> d = [Merge("a", "b", "x", (), CONFIRMED), Merge("b", "a", "x", (), SPLIT), Merge("a", "gone", "x", ())]
    >>> {k: v.status for k, v in applicable(d, {"a", "b"}).items()}
    {('a', 'b'): 'split'}
    """
    known = node_ids if isinstance(node_ids, set) else set(node_ids)
    return {d.pair: d for d in decisions if d.a in known and d.b in known}


def write_json(file: Path, data: dict) -> None:
    """Write ``data`` to ``file`` atomically (a temporary file renamed over it)."""
    replace_text(file, json.dumps(data, indent=1, ensure_ascii=False))
