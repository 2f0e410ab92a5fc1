"""Pure builders of the diff of two methods or settings (the Evaluate page's "Compare two settings").

>>> from kgcore.evaluate.diff import QuestionDiff
>>> d = QuestionDiff("Q?", "A", "B", [("s1", 1, "x")], [], [("s2", 2, 1, "y")], [], [("n", "N")], [], "a", "b",
...                  False, True, None, 10, 12)
>>> sentence_rows(d)
[{'sentence': 's2', 'in': 'both', 'rank in A': 2, 'rank in B': 1, 'text': 'y'}, \
{'sentence': 's1', 'in': 'A only', 'rank in A': 1, 'rank in B': None, 'text': 'x'}]
>>> node_rows(d)
[{'node': 'n', 'label': 'N', 'in': 'B only'}]
"""

from __future__ import annotations

import pandas as pd

from kgcore.api import QuestionDiff, SettingsDiff

from .evaluate_view import RECORD_METRICS

METRIC_NAMES = {**RECORD_METRICS, "context_words": "Context words (fewer is better)"}


def sentence_rows(d: QuestionDiff) -> list[dict]:
    """Shared sentences first (by rank in A), then A's own, then B's own, each with both ranks."""
    rows = [{"sentence": i, "in": "both", "rank in A": ra, "rank in B": rb, "text": t} for i, ra, rb, t in d.both]
    rows += [{"sentence": i, "in": "A only", "rank in A": r, "rank in B": None, "text": t} for i, r, t in d.only_a]
    rows += [{"sentence": i, "in": "B only", "rank in A": None, "rank in B": r, "text": t} for i, r, t in d.only_b]
    return rows


def node_rows(d: QuestionDiff) -> list[dict]:
    """Matched nodes: in both, A only, B only."""
    return ([{"node": n, "label": lb, "in": "both"} for n, lb in d.nodes_both]
            + [{"node": n, "label": lb, "in": "A only"} for n, lb in d.nodes_only_a]
            + [{"node": n, "label": lb, "in": "B only"} for n, lb in d.nodes_only_b])


def hit_text(hit: bool | None) -> str:
    """
    >>> hit_text(True), hit_text(None)
    ('yes', 'no gold evidence')
    """
    return "no gold evidence" if hit is None else "yes" if hit else "no"


def comparison_frame(d: SettingsDiff) -> pd.DataFrame:
    """One row per metric: B better / A better / ties, both means, the paired test and its p-value."""
    return pd.DataFrame([{
        "metric": METRIC_NAMES.get(m.metric, m.metric), "questions": m.questions, "B better": m.wins,
        "A better": m.losses, "ties": m.ties, "mean A": round(m.mean_a, 4), "mean B": round(m.mean_b, 4),
        "test": m.test, "p": None if m.p_value is None else round(m.p_value, 4),
        "95 % CI of B − A": f"[{m.ci[0]:.3f}, {m.ci[1]:.3f}]" if m.ci else "",
    } for m in d.metrics])


def flips_frame(d: SettingsDiff) -> pd.DataFrame:
    """The questions that flipped: what flipped and under which setting it succeeded."""
    return pd.DataFrame([{"question id": f.question_id, "question": f.question, "flipped": f.what,
                          "succeeded with": f.better} for f in d.flipped])
