"""Pure builders of the merge review page: the queue table, one pair side by side with a grounded sentence of
each, and the decision line.  Document text is escaped (:mod:`ui.markup_html`); nothing here imports streamlit.

>>> from kgcore.index.views.entities.decisions import Merge
>>> from kgcore.index.views.entities.review import ReviewItem, Side
>>> m = Merge("rag", "p/rag", "fuzzy-name", (("fuzzy-name", 0.9), ("cosine", 0.62), ("context", 0.5)),
...           merged=True, flag="near-threshold")
>>> a = Side("rag", "RAG", "method", ("p",), "p/text_0-1", "RAG <b>works</b>.")
>>> b = Side("p/rag", "R.A.G.", "method", ("p",), "p/text_0-2", "R.A.G. too.")
>>> item = ReviewItem(m, a, b, None)
>>> queue_frame([item])[["a", "b", "rule", "cosine", "resolver", "decision"]].values.tolist()
[['RAG', 'R.A.G.', 'fuzzy-name', 0.62, 'merged', 'not reviewed']]
>>> "RAG &lt;b&gt;works&lt;/b&gt;." in pair_html(item, "shelf")
True
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from kgcore.api import AMBIGUOUS_PART, CONFIRMED, SAME_NAME_APART, Merge, ReviewItem, SharedName, Side

from .ask_view import sentence_link
from .markup_html import badge, esc

#: Show only the pairs nobody has decided yet, or every pair of the queue.
UNDECIDED, EVERY = "Not reviewed yet", "All"
FLAG_LABELS = {"near-threshold": "near a threshold", SAME_NAME_APART: "same name, different context",
               AMBIGUOUS_PART: "a part of several names", "": ""}


def decision_text(decision: Merge | None) -> str:
    """What people decided on a pair.

    >>> decision_text(None)
    'not reviewed'
    >>> decision_text(Merge("a", "b", "x", (), "split", False, reviewer="Ada", at="2026-01-02T10:00:00+00:00"))
    'split by Ada on 2026-01-02 10:00'
    """
    if decision is None:
        return "not reviewed"
    when = decision.at.replace("T", " ")[:16]
    return f"{decision.status} by {decision.reviewer} on {when}"


def resolver_text(m: Merge) -> str:
    """The resolver's call on a pair.

    >>> resolver_text(Merge("a", "b", "x", (), merged=False, flag=SAME_NAME_APART))
    'kept apart (same name, different context)'
    """
    flag = FLAG_LABELS.get(m.flag, m.flag)
    return ("merged" if m.merged else "kept apart") + (f" ({flag})" if flag and not m.merged else "")


def queue_frame(items: Sequence[ReviewItem]) -> pd.DataFrame:
    """One row per candidate pair: both names, the rule and scores, the resolver's call, people's decision."""
    rows = [{"a": i.a.name, "b": i.b.name, "rule": i.merge.rule, "cosine": i.merge.score("cosine"),
             "context": i.merge.score("context"), "resolver": resolver_text(i.merge),
             "flag": FLAG_LABELS.get(i.merge.flag, i.merge.flag), "decision": decision_text(i.decision)}
            for i in items]
    columns = ["a", "b", "rule", "cosine", "context", "resolver", "flag", "decision"]
    return pd.DataFrame(rows, columns=columns)


def shown(items: Sequence[ReviewItem], which: str) -> list[ReviewItem]:
    """The items a filter keeps.

    >>> shown([], UNDECIDED)
    []
    """
    return [i for i in items if which == EVERY or i.decision is None]


def _side_html(side: Side, collection: str) -> str:
    docs = ", ".join(side.documents)
    link = esc(sentence_link(collection, side.sentence_id))
    return (f'<div class="kg-entity-side"><p><b>{esc(side.name)}</b> {badge(side.entity_type)} '
            f'<code>{esc(side.node_id)}</code></p><p class="kg-muted">{esc(docs)}</p>'
            f'<blockquote>{esc(side.sentence)} <a class="kg-sid" href="{link}" target="_self">'
            f'{esc(side.sentence_id)}</a></blockquote></div>')


def pair_html(item: ReviewItem, collection: str) -> str:
    """Both sides of a pair with a grounded sentence each (linking to its source view), and why they met."""
    scores = " · ".join(f"{esc(name)} {value:.2f}" for name, value in item.merge.scores)
    return (f'<div class="kg-entity-pair"><p>{badge(item.merge.rule)} {scores} — {esc(resolver_text(item.merge))}'
            f' — <i>{esc(decision_text(item.decision))}</i></p>'
            f"{_side_html(item.a, collection)}{_side_html(item.b, collection)}</div>")


def flash_text(decision: Merge, a: str, b: str) -> str:
    """The message after a click.

    >>> flash_text(Merge("x", "y", "r", (), CONFIRMED, True, reviewer="Ada"), "RAG", "R.A.G.")
    'Merged RAG and R.A.G. (confirmed by Ada).'
    """
    verb = "Merged" if decision.status == CONFIRMED else "Split"
    return f"{verb} {a} and {b} ({decision.status} by {decision.reviewer})."


def entity_type_column(table: pd.DataFrame, type_of: dict[str, str]) -> pd.DataFrame:
    """The explorer's node table with each entity node's entity type ("" for actions).

    >>> t = pd.DataFrame({"node": ["Peter", "ran"], "node id": ["peter", "p/run_0"]})
    >>> entity_type_column(t, {"peter": "person"})["entity type"].tolist()
    ['person', '']
    """
    return table.assign(**{"entity type": [type_of.get(n, "") for n in table["node id"]]})


def keep_entity_type(table: pd.DataFrame, type_of: dict[str, str], wanted: str, limit: int) -> pd.DataFrame:
    """The rows whose node is an entity of type ``wanted`` (every row when ``wanted`` is empty), at most ``limit``.

    >>> t = pd.DataFrame({"node": ["Peter", "pie", "ran"], "node id": ["peter", "p/pie", "p/run_0"]})
    >>> keep_entity_type(t, {"peter": "person", "p/pie": "object"}, "person", 10)["node"].tolist()
    ['Peter']
    """
    if not wanted:
        return table.head(limit)
    keep = [type_of.get(n) == wanted for n in table["node id"]]
    return table[keep].head(limit).reset_index(drop=True)


def shared_names_frame(shared: Sequence[SharedName]) -> pd.DataFrame:
    """The names one node holds across documents that use it in disjoint contexts (maybe two entities).

    >>> shared_names_frame([SharedName("liu", "Liu", ("a", "b"), 0.08)]).values.tolist()
    [['Liu', 'a', 'b', 0.08, 'liu']]
    """
    return pd.DataFrame([{"name": s.name, "document": s.documents[0], "other document": s.documents[1],
                          "context cosine": s.cosine, "node id": s.node_id} for s in shared],
                        columns=["name", "document", "other document", "context cosine", "node id"])
