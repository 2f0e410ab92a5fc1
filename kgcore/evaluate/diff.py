"""A real diff of two methods or settings: on one question, and over a question set.

* :func:`question_diff`: sentences only in A, only in B and in both (with
  their ranks: the place in each method's list, from 1), matched nodes only
  in A / B / both, the two answers, the gold-evidence hit and the words of
  each side;
* :func:`compare_settings`: over the questions an evaluation run answered
  with both settings, a win/loss/tie count per metric, the mean of each side,
  a paired test (McNemar's exact test for the yes/no metrics, a paired
  bootstrap of the mean difference for the graded ones) and the questions
  that **flipped** (answered under one setting and failed under the other,
  or the evidence found by one only).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kgcore.core.errors import InputError
from kgcore.core.types import Answer, QueryResult
from kgcore.evaluate.metrics import evidence_hit
from kgcore.evaluate.records import EvalRecord, is_failure

#: Metric -> (kind, higher is better): "binary" metrics get McNemar's test, "graded" ones a paired bootstrap.
METRICS = {
    "exact_match": ("binary", True), "sequence_match": ("binary", True), "rouge_l": ("graded", True),
    "bertscore": ("graded", True), "answer_token_recall": ("graded", True), "evidence_hit": ("binary", True),
    "context_words": ("graded", False),
}
DEFAULT_SAMPLES = 2000


@dataclass(frozen=True)
class QuestionDiff:
    """Two runs of one question side by side (``a``, ``b``: the settings' labels)."""

    question: str
    a: str
    b: str
    #: (sentence id, rank in A, text) / (id, rank in B, text) / (id, rank in A, rank in B, text)
    only_a: list[tuple[str, int, str]]
    only_b: list[tuple[str, int, str]]
    both: list[tuple[str, int, int, str]]
    #: Matched graph nodes as (node id, label).
    nodes_only_a: list[tuple[str, str]]
    nodes_only_b: list[tuple[str, str]]
    nodes_both: list[tuple[str, str]]
    answer_a: str
    answer_b: str
    same_answer: bool
    evidence_a: bool | None
    evidence_b: bool | None
    words_a: int
    words_b: int


def _hit(result: QueryResult, evidence: str) -> bool | None:
    """Whether the gold evidence is in the context (sentences in document order); None without evidence."""
    return evidence_hit(evidence, [s.text for s in sorted(result.sentences, key=lambda s: s.position)]) \
        if evidence else None


def _nodes(result: QueryResult) -> dict[str, str]:
    return {m.node_id: m.label for m in sorted(result.matches, key=lambda m: -m.score)}


def question_diff(a: QueryResult, answer_a: Answer | None, b: QueryResult, answer_b: Answer | None,
                  evidence: str = "", label_a: str = "A", label_b: str = "B") -> QuestionDiff:
    """The diff of two runs of one question; ``evidence`` is the gold evidence (no hit without one).

    >>> from kgcore.core.types import SelectedSentence as S
    >>> r = lambda ids: QueryResult("q", "m", "d", None, [], [S(i, 0, f"text {i}", "") for i in ids], {}, {})
    >>> d = question_diff(r(["x", "y"]), None, r(["y", "z"]), None, evidence="text z")
    >>> d.only_a, d.only_b, d.both, (d.evidence_a, d.evidence_b)
    ([('x', 1, 'text x')], [('z', 2, 'text z')], [('y', 2, 1, 'text y')], (False, True))
    """
    rank_a = {s.id: i for i, s in enumerate(a.sentences, start=1)}
    rank_b = {s.id: i for i, s in enumerate(b.sentences, start=1)}
    nodes_a, nodes_b = _nodes(a), _nodes(b)
    text_a = answer_a.text if answer_a else ""
    text_b = answer_b.text if answer_b else ""
    return QuestionDiff(
        a.question, label_a, label_b,
        [(s.id, rank_a[s.id], s.text) for s in a.sentences if s.id not in rank_b],
        [(s.id, rank_b[s.id], s.text) for s in b.sentences if s.id not in rank_a],
        [(s.id, rank_a[s.id], rank_b[s.id], s.text) for s in a.sentences if s.id in rank_b],
        [(n, label) for n, label in nodes_a.items() if n not in nodes_b],
        [(n, label) for n, label in nodes_b.items() if n not in nodes_a],
        [(n, label) for n, label in nodes_a.items() if n in nodes_b],
        text_a, text_b, " ".join(text_a.split()) == " ".join(text_b.split()), _hit(a, evidence), _hit(b, evidence),
        a.context_words, b.context_words,
    )


@dataclass(frozen=True)
class MetricComparison:
    """One metric over the paired questions: B against A."""

    metric: str
    questions: int
    #: Questions where B is better / worse / equal (for ``context_words``: fewer words is better).
    wins: int
    losses: int
    ties: int
    mean_a: float
    mean_b: float
    test: str
    p_value: float | None
    #: 95 % bootstrap interval of the mean difference B - A (graded metrics).
    ci: tuple[float, float] | None


@dataclass(frozen=True)
class Flip:
    """A question answered (or its evidence found) under one setting and not the other."""

    question_id: int
    question: str
    what: str
    #: The setting under which it succeeded.
    better: str


@dataclass(frozen=True)
class SettingsDiff:
    a: str
    b: str
    questions: int
    metrics: list[MetricComparison]
    flipped: list[Flip]


def metric_value(record: EvalRecord, metric: str) -> float | None:
    value = getattr(record, metric)
    return None if value is None else float(value)


def mcnemar(a: Sequence[float], b: Sequence[float]) -> float:
    """McNemar's exact test of paired yes/no outcomes (two-sided; 1.0 without discordant pairs).

    >>> round(mcnemar([1, 1, 1, 1, 1, 0], [0, 0, 0, 0, 0, 0]), 4)
    0.0625
    """
    only_a = sum(1 for x, y in zip(a, b) if x and not y)
    only_b = sum(1 for x, y in zip(a, b) if y and not x)
    if only_a + only_b == 0:
        return 1.0
    from scipy.stats import binomtest  # scipy.stats takes a second to import: only when a test is run

    return float(binomtest(min(only_a, only_b), only_a + only_b, 0.5).pvalue)


def paired_bootstrap(a: Sequence[float], b: Sequence[float], samples: int = DEFAULT_SAMPLES,
                     seed: int = 0) -> tuple[float, tuple[float, float]]:
    """Two-sided bootstrap p-value that the mean of B - A is 0, and its 95 % interval.

    >>> p, (low, high) = paired_bootstrap([0.1, 0.2, 0.3, 0.2], [0.5, 0.6, 0.7, 0.6], 500)
    >>> p < 0.01, low > 0
    (True, True)
    """
    diffs = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    idx = np.random.default_rng(seed).integers(0, len(diffs), size=(samples, len(diffs)))
    means = diffs[idx].mean(axis=1)
    p = 2 * min(float((means <= 0).mean()), float((means >= 0).mean()))
    low, high = np.percentile(means, [2.5, 97.5])
    return min(p, 1.0), (float(low), float(high))


def _paired(records: Sequence[EvalRecord], a: str, b: str) -> list[tuple[EvalRecord, EvalRecord]]:
    by: dict[str, dict[tuple[str, int], EvalRecord]] = {}
    for r in records:
        if not r.error:
            by.setdefault(r.label, {})[(r.doc_id, r.question_id)] = r
    for field, label in (("label_a", a), ("label_b", b)):
        if label not in by:
            raise InputError(field, f"no answered question has the setting {label!r} "
                                    f"(the run has: {', '.join(sorted(by)) or 'none'})")
    return [(by[a][key], by[b][key]) for key in sorted(by[a]) if key in by[b]]


def _compare(pairs: list[tuple[EvalRecord, EvalRecord]], metric: str, samples: int, seed: int) -> MetricComparison:
    kind, higher = METRICS[metric]
    both = [(metric_value(x, metric), metric_value(y, metric)) for x, y in pairs]
    values = [(x, y) for x, y in both if x is not None and y is not None]
    xs, ys = [x for x, _ in values], [y for _, y in values]
    sign = 1 if higher else -1
    wins = sum(sign * (y - x) > 0 for x, y in values)
    losses = sum(sign * (y - x) < 0 for x, y in values)
    if not values:
        return MetricComparison(metric, 0, 0, 0, 0, 0.0, 0.0, "none", None, None)
    if kind == "binary":
        test, p, ci = "McNemar exact", mcnemar(xs, ys), None
    else:
        test, (p, ci) = "paired bootstrap", paired_bootstrap(xs, ys, samples, seed)
    return MetricComparison(metric, len(values), wins, losses, len(values) - wins - losses, float(np.mean(xs)),
                            float(np.mean(ys)), test, p, ci)


def _flips(pairs: list[tuple[EvalRecord, EvalRecord]], a: str, b: str) -> list[Flip]:
    flips = []
    for x, y in pairs:
        if is_failure(x) != is_failure(y):
            flips.append(Flip(x.question_id, x.question, "answer", b if is_failure(x) else a))
        if x.evidence_hit is not None and y.evidence_hit is not None and x.evidence_hit != y.evidence_hit:
            flips.append(Flip(x.question_id, x.question, "evidence", a if x.evidence_hit else b))
    return flips


def compare_settings(records: Sequence[EvalRecord], a: str, b: str, samples: int = DEFAULT_SAMPLES,
                     seed: int = 0) -> SettingsDiff:
    """Setting ``b`` against setting ``a`` (labels of an evaluation run) over the questions both answered."""
    if a == b:
        raise InputError("label_b", "choose two different settings")
    pairs = _paired(records, a, b)
    return SettingsDiff(a, b, len(pairs), [_compare(pairs, m, samples, seed) for m in METRICS], _flips(pairs, a, b))
