"""Pure builders for reviewing as a team: agreement tables, queue progress, disagreements, the stage matrix.

>>> from kgcore.audit.agreement import Ratings, report
>>> r = report(Ratings.of({"ada": {1: {"II"}, 2: {"correct"}}, "bob": {1: {"II"}, 2: {"III"}}}), samples=0)
>>> agreement_frame(r)[["target", "records compared"]].values.tolist()[2]
['II · retrieval', 2]
>>> int(confusion_frame(r.pair("ada", "bob")).loc["correct", "III · answer generation"])
1
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from kgcore.api import ERROR_STAGES as STAGES
from kgcore.api import AgreementReport, Disagreement, PairAgreement, QueueProgress, SpellingGroup, categories

from .labels import STAGE_SHORT_LABELS, TYPE_LABELS
from .markup_html import esc

VERDICT_LABEL = "verdict (earliest failing stage)"


def target_label(target: str) -> str:
    """The display name of an agreement target.

    >>> target_label("II"), target_label("verdict")
    ('II · retrieval', 'verdict (earliest failing stage)')
    """
    return VERDICT_LABEL if target == "verdict" else TYPE_LABELS.get(target, target)


def ci_text(ci: tuple[float, float] | None) -> str:
    """A confidence interval as text ("" when there is none).

    >>> ci_text((0.1234, 0.5)), ci_text(None)
    ('[0.12, 0.50]', '')
    """
    return f"[{ci[0]:.2f}, {ci[1]:.2f}]" if ci else ""


def agreement_frame(report: AgreementReport) -> pd.DataFrame:
    """One row per target: Krippendorff's alpha over every reviewer, its interval and what it rests on."""
    return pd.DataFrame([{
        "target": target_label(t.target), "Krippendorff's alpha": t.alpha, "95 % CI": ci_text(t.ci),
        "records compared": t.items, "ratings": t.ratings, "reviewers": t.reviewers, "times used": t.used,
    } for t in report.targets])


def pairs_frame(report: AgreementReport, target: str = "verdict") -> pd.DataFrame:
    """One row per pair of reviewers: Cohen's kappa on ``target`` over the records both rated."""
    return pd.DataFrame([{
        "reviewer A": p.a, "reviewer B": p.b, "Cohen's kappa": p.kappa, "95 % CI": ci_text(p.ci),
        "records both rated": p.items, "observed agreement": round(p.observed, 3),
    } for p in report.pairs if p.target == target])


def confusion_frame(pair: PairAgreement) -> pd.DataFrame:
    """The pair's confusion matrix (rows: reviewer A's category, columns: B's), with display names."""
    names = [TYPE_LABELS.get(c, c) for c in categories(pair.target)]
    return pd.DataFrame(pair.confusion, index=pd.Index(names, name=f"{pair.a} ↓ / {pair.b} →"), columns=names)


def progress_frame(state: QueueProgress) -> pd.DataFrame:
    """One row per reviewer of a queue: assigned, done, skipped, pending and the share done.

    >>> from kgcore.audit.queues import Progress, Queue, QueueProgress
    >>> q = Queue(1, "q", "", "", 0.25, 2, 0, {}, 4)
    >>> progress_frame(QueueProgress(q, [Progress("ada", 3, 1, 1)], 1, 1)).values.tolist()
    [['ada', 3, 1, 1, 1, 33]]
    """
    return pd.DataFrame([{"reviewer": p.reviewer, "assigned": p.assigned, "done": p.done, "skipped": p.skipped,
                          "pending": p.pending, "% done": round(100 * p.done / p.assigned) if p.assigned else 0}
                         for p in state.reviewers])


def disagreements_frame(found: Sequence[Disagreement]) -> pd.DataFrame:
    """One row per disputed record with each reviewer's stages in a column of its own."""
    reviewers = sorted({r for d in found for r in d.stages})
    return pd.DataFrame([{
        "record": d.record_id, "collection": d.doc_id, "method": d.method, "question": d.question,
        "differs on": ", ".join(d.differing),
        **{r: ", ".join(d.stages.get(r, ())) for r in reviewers}, "adjudicated": d.adjudicated,
    } for d in found])


def stage_matrix_html(stages: Mapping[str, Sequence[str]], final: Sequence[str] | None = None) -> str:
    """A reviewer x stage table (✓ where the reviewer used the stage); a last row for the final labels.

    >>> html = stage_matrix_html({"<b>Ada</b>": ["II"], "Bob": ["III"]}, final=["II"])
    >>> "&lt;b&gt;Ada&lt;/b&gt;" in html, html.count("✓"), "kg-disputed" in html
    (True, 3, True)
    """
    rows = list(stages.items()) + ([("final (adjudicated)", list(final))] if final is not None else [])
    used = [set(s) for s in stages.values()]
    disputed = set().union(*used) - set.intersection(*used) if used else set()
    head = "".join(f'<th class="{"kg-disputed" if s in disputed else ""}" title="{esc(TYPE_LABELS.get(s, s))}">'
                   f"{esc(STAGE_SHORT_LABELS.get(s, s))}</th>" for s in STAGES)
    body = "".join(f"<tr><th>{esc(who)}</th>" + "".join(f"<td>{'✓' if s in chosen else ''}</td>" for s in STAGES)
                   + "</tr>" for who, chosen in rows)
    return (f'<table class="kg-stage-matrix"><thead><tr><th>reviewer</th>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def merge_frame(groups: Sequence[SpellingGroup]) -> pd.DataFrame:
    """One row per proposed merge: the name kept, the spellings merged into it and the labels that change.

    >>> from kgcore.audit.names import spelling_groups
    >>> merge_frame(spelling_groups({"Ada": 3, "ada.": 1})).values.tolist()
    [['Ada', 'ada.', 1]]
    """
    return pd.DataFrame([{"keep": g.into, "merge": ", ".join(g.spellings), "labels that change": g.labels_changed}
                         for g in groups])
