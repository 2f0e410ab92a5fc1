"""Agreement between reviewers: per error stage on the raw labels, and on the verdict, for any number of reviewers.

A reviewer's **ratings** of a record are the stage types of their human
*review* labels on it (automatic suggestions and adjudications never
count).  Agreement is measured for each *target*:

* each error stage (:data:`STAGES`: gold not in document, I graph, II
  retrieval, III answer, correct) on the raw labels: did the reviewer use
  that stage on the record (1) or not (0);
* the **verdict**, one category per reviewer and record (:func:`verdict`:
  the earliest failing stage, else ``correct``).

A record a reviewer did not label is a missing value, not a "no".  For
every target there is Krippendorff's alpha (nominal) over all reviewers
(:func:`alpha`, the ``krippendorff`` package), Cohen's kappa for every pair
of reviewers (:func:`cohen`, scikit-learn) with the confusion matrix of the
pair, percentile bootstrap confidence intervals (records resampled), and
the number of records behind each figure.  A figure is ``None`` when it is
undefined: fewer than two records rated by two reviewers, or one single
value throughout (a stage nobody used).

>>> r = Ratings.of({"ada": {1: {"II"}, 2: {"correct"}}, "bob": {1: {"II", "III"}, 2: {"III"}}})
>>> r.matrix("II").tolist(), r.matrix("verdict").tolist()
([[1.0, 0.0], [1.0, 0.0]], [[2.0, 4.0], [2.0, 3.0]])
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from itertools import combinations

import krippendorff
import numpy as np

from kgcore.audit.db import AuditDB
from kgcore.audit.model import Label

#: The error stages in pipeline order; the first present among a reviewer's labels is the verdict.
STAGES = VERDICT_ORDER = ("gold-not-in-document", "I", "II", "III", "correct")
#: What agreement is measured on: each stage, then the verdict.
TARGETS = (*STAGES, "verdict")
DEFAULT_SAMPLES = 1000


def verdict(label_types) -> str | None:
    """One reviewer's verdict on a record: the earliest failing stage among their label types.

    >>> verdict(["III", "II"]), verdict(["correct"]), verdict([])
    ('II', 'correct', None)
    """
    present = set(label_types)
    return next((t for t in VERDICT_ORDER if t in present), None)


def categories(target: str) -> tuple[str, ...]:
    """The category names of a target's values (index = value).

    >>> categories("II"), categories("verdict")[:2]
    (('no', 'yes'), ('gold-not-in-document', 'I'))
    """
    return STAGES if target == "verdict" else ("no", "yes")


@dataclass(frozen=True)
class Ratings:
    """Who rated what: reviewer -> record id -> the stage types of their review labels on it."""

    by_reviewer: Mapping[str, Mapping[int, frozenset[str]]]

    @classmethod
    def of(cls, data: Mapping[str, Mapping[int, Iterable[str]]]) -> Ratings:
        return cls({r: {rec: frozenset(t) for rec, t in recs.items()} for r, recs in data.items()})

    @classmethod
    def from_labels(cls, labels: Iterable[Label]) -> Ratings:
        """Ratings from labels; only human review labels count."""
        data: dict[str, dict[int, set[str]]] = {}
        for lb in labels:
            if lb.source == "human" and lb.role == "review":
                data.setdefault(lb.author, {}).setdefault(lb.record_id, set()).add(lb.label_type)
        return cls.of(data)

    @property
    def reviewers(self) -> list[str]:
        return sorted(self.by_reviewer)

    @property
    def records(self) -> list[int]:
        return sorted({rec for recs in self.by_reviewer.values() for rec in recs})

    def matrix(self, target: str, reviewers: list[str] | None = None) -> np.ndarray:
        """Reviewers x records values of ``target`` (the index in :func:`categories`), NaN where not rated."""
        records = self.records
        out = np.full((len(reviewers or self.reviewers), len(records)), np.nan)
        for i, reviewer in enumerate(reviewers or self.reviewers):
            for j, record in enumerate(records):
                types = self.by_reviewer.get(reviewer, {}).get(record)
                if types:
                    out[i, j] = STAGES.index(verdict(types) or "correct") if target == "verdict" else float(
                        target in types)
        return out


def pairable(matrix: np.ndarray) -> np.ndarray:
    """The columns (records) of ``matrix`` rated by at least two reviewers."""
    return matrix[:, (~np.isnan(matrix)).sum(axis=0) >= 2]


def alpha(matrix: np.ndarray) -> float | None:
    """Krippendorff's alpha (nominal) of a reviewers x records matrix with NaN for missing; None when undefined.

    By hand: coincidences o11 = 4, o10 = o01 = 1, o00 = 5 (n = 11, n1 = 5, n0 = 6), so
    D_o = 2/11, D_e = 2·5·6 / (11·10) = 6/11 and alpha = 1 - 1/3:

    >>> round(alpha(np.array([[1, 1, 0, 0], [1, 1, 0, np.nan], [1, 0, 0, 0]])), 6)
    0.666667
    >>> alpha(np.array([[0, 0], [0, 0.0]])) is None  # one value throughout: undefined
    True
    """
    data = pairable(np.asarray(matrix, dtype=float))
    values = np.unique(data[~np.isnan(data)])
    if data.shape[1] < 2 or len(values) < 2:
        return None
    value = float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
    return value if np.isfinite(value) else None


def cohen(a, b) -> float | None:
    """Cohen's kappa of two reviewers' values on the same records (scikit-learn); None when undefined.

    >>> round(cohen([0, 1, 0, 2], [0, 1, 1, 2]), 3), cohen([1, 1], [1, 1])
    (0.636, None)
    """
    from sklearn.metrics import cohen_kappa_score  # type: ignore[import-untyped]

    if len(a) < 2 or len(set(a) | set(b)) < 2:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = float(cohen_kappa_score(a, b))
    return value if np.isfinite(value) else None


def kappa_samples(a: np.ndarray, b: np.ndarray, k: int, samples: int, seed: int) -> np.ndarray:
    """Cohen's kappa of ``samples`` bootstrap resamples of paired codes ``a``, ``b`` in ``0..k-1`` (NaN: undefined).

    >>> kappa_samples(np.array([0, 1, 0, 2]), np.array([0, 1, 1, 2]), 3, 1, 0).shape
    (1,)
    """
    n = len(a)
    idx = np.random.default_rng(seed).integers(0, n, size=(samples, n))
    codes = (a[idx] * k + b[idx]) + (np.arange(samples)[:, None] * k * k)
    counts = np.bincount(codes.ravel(), minlength=samples * k * k).reshape(samples, k, k) / n
    observed = np.trace(counts, axis1=1, axis2=2)
    expected = (counts.sum(axis=2) * counts.sum(axis=1)).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(expected < 1.0, (observed - expected) / (1.0 - expected), np.nan)


def interval(values: np.ndarray | list[float]) -> tuple[float, float] | None:
    """The 95 % percentile interval of the defined (finite) values; None when fewer than 10 are defined.

    >>> interval(list(range(101)))
    (2.5, 97.5)
    """
    finite = np.asarray(values, dtype=float)
    finite = finite[np.isfinite(finite)]
    if len(finite) < 10:
        return None
    low, high = np.percentile(finite, [2.5, 97.5])
    return float(low), float(high)


def alpha_interval(matrix: np.ndarray, samples: int, seed: int) -> tuple[float, float] | None:
    """Bootstrap interval of :func:`alpha`: the records rated by two or more reviewers, resampled."""
    data = pairable(np.asarray(matrix, dtype=float))
    if data.shape[1] < 2 or samples <= 0:
        return None
    idx = np.random.default_rng(seed).integers(0, data.shape[1], size=(samples, data.shape[1]))
    values = [alpha(data[:, row]) for row in idx]
    return interval([np.nan if v is None else v for v in values])


@dataclass(frozen=True)
class TargetAgreement:
    """Krippendorff's alpha of one target over every reviewer, with what it rests on."""

    target: str
    alpha: float | None
    ci: tuple[float, float] | None
    #: Records rated by at least two reviewers (the ones alpha compares).
    items: int
    #: Ratings on those records (one per reviewer and record).
    ratings: int
    reviewers: int
    #: How often the stage was used (records x reviewers); for the verdict, the ratings.
    used: int


@dataclass(frozen=True)
class PairAgreement:
    """Cohen's kappa of two reviewers on one target, over the records both rated, and their confusion matrix."""

    a: str
    b: str
    target: str
    kappa: float | None
    ci: tuple[float, float] | None
    items: int
    observed: float
    #: Rows: ``a``'s category, columns: ``b``'s (:func:`categories` of the target).
    confusion: tuple[tuple[int, ...], ...]


def target_agreement(ratings: Ratings, target: str, samples: int = DEFAULT_SAMPLES, seed: int = 0) -> TargetAgreement:
    matrix = ratings.matrix(target)
    data = pairable(matrix)
    used = int(np.nansum(matrix)) if target != "verdict" else int((~np.isnan(matrix)).sum())
    return TargetAgreement(target, alpha(matrix), alpha_interval(matrix, samples, seed), data.shape[1],
                           int((~np.isnan(data)).sum()), len(ratings.reviewers), used)


def pair_agreement(ratings: Ratings, a: str, b: str, target: str, samples: int = DEFAULT_SAMPLES,
                   seed: int = 0) -> PairAgreement:
    matrix = ratings.matrix(target, [a, b])
    both = matrix[:, ~np.isnan(matrix).any(axis=0)].astype(int)
    k = len(categories(target))
    confusion = np.zeros((k, k), dtype=int)
    np.add.at(confusion, (both[0], both[1]), 1)
    n = both.shape[1]
    value = cohen(both[0].tolist(), both[1].tolist())
    ci = interval(kappa_samples(both[0], both[1], k, samples, seed)) if n >= 2 and value is not None else None
    return PairAgreement(a, b, target, value, ci, n, float(np.trace(confusion) / n) if n else 0.0,
                         tuple(tuple(int(c) for c in row) for row in confusion))


@dataclass(frozen=True)
class AgreementReport:
    """Agreement of every reviewer on every target, and of every pair."""

    reviewers: list[str]
    records: int
    targets: list[TargetAgreement]
    pairs: list[PairAgreement]
    samples: int

    def target(self, name: str) -> TargetAgreement:
        return next(t for t in self.targets if t.target == name)

    def pair(self, a: str, b: str, target: str = "verdict") -> PairAgreement:
        return next(p for p in self.pairs if {p.a, p.b} == {a, b} and p.target == target)

    def to_dict(self) -> dict:
        return {"reviewers": self.reviewers, "records": self.records, "bootstrap_samples": self.samples,
                "targets": [asdict(t) for t in self.targets],
                "pairs": [{**asdict(p), "categories": list(categories(p.target))} for p in self.pairs]}


def report(ratings: Ratings, samples: int = DEFAULT_SAMPLES, seed: int = 0) -> AgreementReport:
    """Alpha for every target and kappa for every pair of reviewers and target (bootstrap: ``samples`` resamples)."""
    targets = [target_agreement(ratings, t, samples, seed) for t in TARGETS]
    pairs = [pair_agreement(ratings, a, b, t, samples, seed)
             for a, b in combinations(ratings.reviewers, 2) for t in TARGETS]
    return AgreementReport(ratings.reviewers, len(ratings.records), targets, pairs, samples)


def agreement_report(db: AuditDB, record_ids: Iterable[int] | None = None, samples: int = DEFAULT_SAMPLES,
                     seed: int = 0, **filters) -> AgreementReport:
    """:func:`report` over the human review labels of ``db`` (record filters as in ``list_labels``;
    ``record_ids``, e.g. a queue's records, narrows them further)."""
    labels = db.list_labels(sources="human", roles="review", **filters)
    if record_ids is not None:
        keep = set(record_ids)
        labels = [lb for lb in labels if lb.record_id in keep]
    return report(Ratings.from_labels(labels), samples, seed)
