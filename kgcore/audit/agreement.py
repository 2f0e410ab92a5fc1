"""Agreement between two analysts who labelled the same audit records (Cohen's kappa).

Each analyst gets one verdict per record, :func:`verdict` of their human
labels on it: the earliest failing stage in pipeline order (gold not in
document, I graph, II retrieval, III answer), else ``correct``; an error
found earlier in the pipeline explains the later ones.  Kappa compares the
verdicts of the records both analysts labelled; automatic suggestions never
count.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgcore.audit.db import AuditDB

#: Verdict order: the first stage present among an analyst's labels on a record wins.
VERDICT_ORDER = ("gold-not-in-document", "I", "II", "III", "correct")


def verdict(label_types) -> str | None:
    """One analyst's verdict on a record: the earliest failing stage among their label types.

    >>> verdict(["III", "II"]), verdict(["correct"]), verdict([])
    ('II', 'correct', None)
    """
    present = set(label_types)
    return next((t for t in VERDICT_ORDER if t in present), None)


def kappa(pairs: list[tuple[str, str]]) -> tuple[float | None, float, float]:
    """Cohen's kappa, observed and chance agreement of paired categorical verdicts.

    Kappa is None without pairs, and 1.0 when both analysts used one
    single, identical category throughout (chance agreement 1).

    >>> k, po, pe = kappa([("I", "I"), ("II", "II"), ("I", "II"), ("III", "III")])
    >>> round(k, 3), po, round(pe, 4)
    (0.636, 0.75, 0.3125)
    """
    if not pairs:
        return None, 0.0, 0.0
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    categories = {c for pair in pairs for c in pair}
    expected = sum((sum(a == c for a, _ in pairs) / n) * (sum(b == c for _, b in pairs) / n) for c in categories)
    if expected >= 1.0:
        return (1.0 if observed >= 1.0 else 0.0), observed, expected
    return (observed - expected) / (1 - expected), observed, expected


@dataclass(frozen=True)
class Agreement:
    """Cohen's kappa between two analysts over the records both labelled.

    ``pairs`` holds (record id, verdict of a, verdict of b); a verdict is
    :func:`verdict` of the analyst's human labels.
    """

    author_a: str
    author_b: str
    kappa: float | None
    observed: float
    expected: float
    pairs: list[tuple[int, str, str]]

    @property
    def records(self) -> int:
        return len(self.pairs)


def cohen_kappa(db: AuditDB, author_a: str, author_b: str, **filters) -> Agreement:
    """Agreement of two authors' human labels (one verdict per record), optionally on filtered records."""
    verdicts: dict[str, dict[int, list[str]]] = {author_a: {}, author_b: {}}
    for label in db.list_labels(authors=[author_a, author_b], sources="human", **filters):
        verdicts[label.author].setdefault(label.record_id, []).append(label.label_type)
    shared = sorted(set(verdicts[author_a]) & set(verdicts[author_b]))
    pairs = [(r, a, b) for r in shared
             if (a := verdict(verdicts[author_a][r])) is not None and (b := verdict(verdicts[author_b][r])) is not None]
    k, observed, expected = kappa([(a, b) for _, a, b in pairs])
    return Agreement(author_a, author_b, k, observed, expected, pairs)
