"""The measuring protocol the quality benches share: the methods compared, the budgets, a question with its
references, one context's scores, a method's row at one budget, and the paired bootstrap interval.

    from protocol import BUDGETS, VARIANTS, Question, measure, paired_interval

A row is what :func:`measure` returns for one method (a :data:`VARIANTS` key) at one word budget over a list of
:class:`Question`: the mean answer-token recall (where answers exist) or evidence/passage recall, the context's mean
words, the median latency, and the per-question figures :func:`paired_interval` compares between two methods.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass

import numpy as np
from collections_bench import inside
from scipy.stats import bootstrap

from kgcore.api import QueryEngine, RetrievalOptions, answer_token_recall, evidence_hit

BUDGETS = (200, 500, 1000, 2000)
VARIANTS = {
    "groundedkg-old": {"method": "groundedkg", "ranking": "graph-score"},
    "groundedkg": {"method": "groundedkg", "ranking": "fused"},
    "lesegr": {"method": "lesegr"},
    "dense": {"method": "dense"}, "bm25": {"method": "bm25"}, "hybrid": {"method": "hybrid"},
}
TEXT_BASELINES = ("dense", "bm25", "hybrid")


@dataclass(frozen=True)
class Question:
    text: str
    answers: tuple[str, ...]
    evidence: tuple[str, ...]
    documents: tuple[str, ...] = ()
    #: (doc_id, passage) pairs for ObliQA's passage recall.
    passages: tuple[tuple[str, str], ...] = ()
    #: Whether ``evidence`` holds paragraphs (QASPER: hit when a selected sentence lies inside one), not sentences.
    paragraphs: bool = False


def score(result, q: Question) -> dict:
    """Answer-token recall and evidence hit of one context (passage recall for ObliQA)."""
    texts = [s.text for s in result.sentences]
    if q.passages:
        found = [any(s.document == doc and inside(s.text, passage) for s in result.sentences)
                 for doc, passage in q.passages]
        return {"evidence": sum(found) / len(found), "words": result.context_words}
    if q.paragraphs:  # QASPER
        hit = float(any(inside(t, e) for t in texts for e in q.evidence))
    else:
        hit = float(any(evidence_hit(e, texts) for e in q.evidence))
    return {"recall": answer_token_recall(list(q.answers), texts), "evidence": hit, "words": result.context_words}


def measure(engine: QueryEngine, name: str, questions: list[Question], variant: str, budget: int) -> dict:
    scores, times = [], []
    for q in questions:
        options = RetrievalOptions(budget_words=budget, documents=q.documents, **VARIANTS.get(variant, {}))
        start = time.perf_counter()
        scores.append(score(engine.retrieve(name, q.text, options), q))
        times.append(1000 * (time.perf_counter() - start))
    row = {"variant": variant, "budget_words": budget, "questions": len(questions),
           "mean_words": round(statistics.mean(s["words"] for s in scores), 1),
           "evidence": round(statistics.mean(s["evidence"] for s in scores), 3),
           "p50_ms": round(statistics.median(times), 1)}
    key = "recall" if "recall" in scores[0] else "evidence"
    if key == "recall":
        row["recall"] = round(statistics.mean(s["recall"] for s in scores), 3)
    row["per_question"] = [round(s[key], 4) for s in scores]  # the primary figure, for paired intervals
    return row


def paired_interval(ours: list[float], theirs: list[float], level: float = 0.95) -> tuple[float, float]:
    """Percentile-bootstrap interval of the mean paired difference ``ours - theirs`` over the same questions
    (scipy.stats.bootstrap, 2,000 resamples, fixed seed).

    >>> lo, hi = paired_interval([1.0, 1.0, 0.0, 1.0] * 10, [0.0, 1.0, 0.0, 0.0] * 10)
    >>> lo > 0 and hi <= 0.75
    True
    """
    diff = np.asarray(ours, dtype=float) - np.asarray(theirs, dtype=float)
    if np.all(diff == diff[0]):
        return float(diff[0]), float(diff[0])
    res = bootstrap((diff,), np.mean, confidence_level=level, n_resamples=2000, method="percentile",
                    random_state=np.random.default_rng(0))
    return round(float(res.confidence_interval.low), 3), round(float(res.confidence_interval.high), 3)


def margin_cell(entry: dict | None, field: str, documents: bool = False) -> str:
    """A table cell for a method at one budget: the best text method's figure in bold, any other with its margin
    over it and the paired interval; ``documents`` adds how many documents the context spans.

    >>> margin_cell({"recall": 0.5, "margin": 0.0}, "recall")
    '**0.500**'
    >>> margin_cell({"both": 0.6, "margin": 0.1, "ci95": [0.0, 0.2], "documents": 3.5}, "both", documents=True)
    '0.600 (+0.100 [+0.000, +0.200]; 3.5 docs)'
    """
    if entry is None:
        return ""
    docs = f"{entry['documents']} docs" if documents else ""
    if "ci95" not in entry:
        return f"**{entry[field]:.3f}**" + (f" ({docs})" if docs else "")
    lo, hi = entry["ci95"]
    return f"{entry[field]:.3f} ({entry['margin']:+.3f} [{lo:+.3f}, {hi:+.3f}]" + (f"; {docs}" if docs else "") + ")"


@contextmanager
def setting(module, name: str, value) -> Iterator[None]:
    old = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, old)


def paired_sweep(engine: QueryEngine, books: list[str], questions: Callable[[str], list[Question]],
                 patches: dict[float, Callable[[], AbstractContextManager]], key: str) -> list[dict]:
    """A setting swept on ``books``' questions (``questions(slug)``) with the default method at every budget: per
    value (``patches[value]()`` holds it), the pooled recall and its paired difference to value 0 (which
    ``patches`` must hold: the setting off) with the 95% interval; each row printed as it is made, ``key`` naming
    the value."""
    per: dict[tuple[float, int], list[float]] = {}
    for value, patch in sorted(patches.items()):
        with patch():
            for budget in BUDGETS:
                per[(value, budget)] = [v for slug in books for v in measure(
                    engine, slug, questions(slug), "groundedkg", budget)["per_question"]]
    rows = []
    for (value, budget), values in sorted(per.items()):
        base = per[(0.0, budget)]
        rows.append({key: value, "budget_words": budget, "recall": round(float(np.mean(values)), 3),
                     "difference": round(float(np.mean(values) - np.mean(base)), 3),
                     "ci95": list(paired_interval(values, base)) if value else None})
        print(rows[-1], flush=True)
    return rows
