"""Why a sentence ranked, for the rankings over the contextual graph (``lesegr``, fused GroundedKG): its lexical,
dense and graph relevance, its own score, what its neighbours added, and the neighbours that sent it the most
(pure: no streamlit; every piece of document text escaped).

A sentence's ``signals`` (:attr:`kgcore.core.types.SelectedSentence.signals`) become one compact line in its card
and one row of the signals table.

>>> sig = {"lexical": 0.8, "dense": 0.61, "graph": 0.4, "own": 1.81, "propagated": 0.2,
...        "neighbours": [{"node": "d/text_0-4", "kinds": ["adjacent", "chunk"], "message": 0.12},
...                       {"node": "chunk:d/text_0-1", "kinds": ["chunk"], "message": 0.05}]}
>>> html = signals_html(sig, "shelf")
>>> print(html.split('">from</span>')[0])  # doctest: +NORMALIZE_WHITESPACE +ELLIPSIS
<div class="kg-signals"><span class="kg-stat" title="lexical: BM25 ...">lexical 0.80 · dense 0.61 · graph 0.40 ·
 own 1.81 · propagated +0.20</span> <span class="kg-stat
>>> 'href="sentence?doc=shelf&amp;sid=d%2Ftext_0-4"' in html, "(adjacent, chunk) 0.12" in html
(True, True)
>>> signal_rows([SelectedSentence("d/text_0-3", 3, "A <pie>.", "", rank=1, score=2.01, signals=sig)])[0]["from"]
'd/text_0-4 (adjacent, chunk) 0.12; chunk:d/text_0-1 (chunk) 0.05'
>>> "text stage" in signals_html({**sig, "stage": "text"}), "text stage" in html
(True, False)
>>> "names ×1.50" in signals_html({**sig, "names": 1.5}), "names ×" in html
(True, False)
>>> "asked person ×4" in signals_html({**sig, "asked": "person"}), "asked" in html
(True, False)
>>> walked = signals_html({**sig, "path": "CrissCross —directed-by→ <Chris> Menges"}, "shelf")
>>> "walk: CrissCross —directed-by→ &lt;Chris&gt; Menges" in walked, "walk:" in html
(True, False)
>>> signals_html({}, "shelf")
''
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kgcore.api import ASKED_CANDIDATES, ASKED_WEIGHT, GRAPH_GATE, GRAPH_HEAD_WORDS, SIGNAL_SCALE, SelectedSentence

from .ask_view import sentence_link
from .markup_html import esc


def scale_help(scale: str) -> tuple[str, str]:
    """How the lexical and dense signals are scaled, in words, for :data:`kgcore.query.propagation.SCALE`.

    >>> scale_help("max")[1]
    'divided by the best in scope as lexical: 1 for the sentence in scope closest to the question'
    """
    if scale == "rank":
        return ("by rank: 1 for the best sentence in scope, less for each one below it (reciprocal rank)",
                "by rank as lexical: 1 for the sentence in scope closest to the question")
    return ("divided by the best in scope: 1 for the best sentence in scope",
            "divided by the best in scope as lexical: 1 for the sentence in scope closest to the question")


_LEXICAL, _DENSE = scale_help(SIGNAL_SCALE)
#: The signals shown, in order, with what each means (the tooltip of the line and the table's column help).
SIGNALS = {
    "lexical": f"BM25 relevance to the question (of the sentence's words and those coreference adds), {_LEXICAL}, "
               "0 without a question word",
    "dense": f"cosine to the question, {_DENSE}",
    "graph": "GroundedKG alignment evidence (the question's graph among the sentence's nodes), normalised"
             + (" and times the dense signal (structure counts as far as the meaning agrees)"
                if GRAPH_GATE == "dense" else "") + "; 0 for LeSeGR",
    "own": "lexical + dense + graph (times names, when shown): the sentence's score before propagation",
    "propagated": "what its contextual-graph neighbours added over the propagation layers",
}
#: What a sentence's ``names`` factor means (the fused ranking past small budgets, kgcore.query.names).
NAMES_HELP = ("1 + the share of the question's names (its characters and places) the sentence holds, written or "
              "added by coreference: its own score is multiplied by it")
#: What a sentence's ``asked`` kind means (the fused ranking's asked kind, kgcore.query.asked_kind).
ASKED_HELP = (f"the sentence holds an answer of the kind the question asks for (a person for 'who', a place for "
              f"'where', a figure or a date ...) that the question does not name, and was among the first "
              f"{ASKED_CANDIDATES} candidates: its score counted {1 + ASKED_WEIGHT:g} times for the order (the score "
              f"shown is without it)")
#: What a sentence's ``stage`` says when a large budget was filled in two parts (kgcore.query.fused).
STAGES = {"graph": f"ranked by the fused score (graph alignment counted) among the first {GRAPH_HEAD_WORDS:,} words",
          "text": f"ranked past the first {GRAPH_HEAD_WORDS:,} words by lexical + dense relevance alone (its graph "
                  "score did not count)"}
#: The name prefix kgcore gives a chunk node (``chunk:<its first sentence id>``).
CHUNK_PREFIX = "chunk:"


#: What a sentence's ``path`` says (the multi-hop walk, kgcore.query.multihop).
PATH_HELP = ("the multi-hop walk reached this sentence: from the page the question names or a best-ranked "
             "sentence, along the relation its sentence states (—directed-by→), to the linked page's sentence "
             "stating what the question asks [the relation]")


def has_signals(sentences: Iterable[SelectedSentence]) -> bool:
    """True when any sentence carries a signal breakdown.

    >>> has_signals([SelectedSentence("a", 0, "", "")])
    False
    """
    return any(s.signals for s in sentences)


def _link(collection: str, sentence_id: str) -> str:
    """A sentence id linking to its source view (the Sentence page)."""
    href = sentence_link(collection, sentence_id)
    return f'<a class="kg-sid" href="{esc(href)}" target="_blank" title="Open its source">{esc(sentence_id)}</a>'


def node_html(name: str, collection: str) -> str:
    """A contextual-graph node by name: a sentence id links to its source view; a chunk names its first sentence.

    >>> node_html("chunk:d/text_0-1", "shelf")  # doctest: +NORMALIZE_WHITESPACE
    'chunk of <a class="kg-sid" href="sentence?doc=shelf&amp;sid=d%2Ftext_0-1" target="_blank"
     title="Open its source">d/text_0-1</a>'
    >>> node_html("<x>", "")
    '<span class="kg-sid">&lt;x&gt;</span>'
    """
    chunk = name.startswith(CHUNK_PREFIX)
    sentence_id = name[len(CHUNK_PREFIX):] if chunk else name
    shown = _link(collection, sentence_id) if collection else f'<span class="kg-sid">{esc(sentence_id)}</span>'
    return f"chunk of {shown}" if chunk else shown


def _numbers(signals: Mapping) -> str:
    parts = [f"{key} {float(signals.get(key, 0.0)):.2f}" for key in SIGNALS if key != "propagated"]
    parts.append(f"propagated {float(signals.get('propagated', 0.0)):+.2f}")
    if "names" in signals:
        parts.append(f"names ×{float(signals['names']):.2f}")
    if signals.get("asked"):
        parts.append(f"asked {signals['asked']} ×{1 + ASKED_WEIGHT:g}")
    if signals.get("stage") == "text":
        parts.append("text stage")
    return " · ".join(parts)


def signals_html(signals: Mapping, collection: str = "") -> str:
    """One line: the sentence's signals, then "from" its strongest senders (node, edge kinds, message)."""
    if not signals:
        return ""
    tip = "; ".join(f"{key}: {meaning}" for key, meaning in SIGNALS.items())
    if "names" in signals:
        tip += f"; names: {NAMES_HELP}"
    if signals.get("asked"):
        tip += f"; asked: {ASKED_HELP}"
    if signals.get("stage") in STAGES:
        tip += f"; stage: {STAGES[signals['stage']]}"
    line = f'<span class="kg-stat" title="{esc(tip)}">{esc(_numbers(signals))}</span>'
    senders = [f'{node_html(str(n.get("node", "")), collection)} '
               f'<span class="kg-stat">({esc(", ".join(n.get("kinds", [])))}) {float(n.get("message", 0.0)):.2f}'
               f"</span>" for n in signals.get("neighbours", [])]
    if senders:
        line += ' <span class="kg-stat">from</span> ' + " · ".join(senders)
    if signals.get("path"):
        line += f' <span class="kg-stat" title="{esc(PATH_HELP)}">walk: {esc(str(signals["path"]))}</span>'
    return f'<div class="kg-signals">{line}</div>'


def senders_text(signals: Mapping) -> str:
    """The strongest senders as plain text (a table cell).

    >>> senders_text({"neighbours": [{"node": "a", "kinds": ["citation"], "message": 0.5}]})
    'a (citation) 0.50'
    """
    return "; ".join(f'{n.get("node", "")} ({", ".join(n.get("kinds", []))}) {float(n.get("message", 0.0)):.2f}'
                     for n in signals.get("neighbours", []))


def signal_rows(sentences: Iterable[SelectedSentence]) -> list[dict]:
    """One row per sentence with signals, best rank first: rank, id, the signals, the final score, the stage
    that ranked it (only when a large budget was filled in two stages), the multi-hop walk's path (only when the
    walk ran), the asked kind it holds (only when the asked kind raised a sentence) and senders."""
    rows = []
    ranked = sorted((s for s in sentences if s.signals), key=lambda s: (s.rank <= 0, s.rank, s.position))
    staged = any("stage" in s.signals for s in ranked)
    walked = any("path" in s.signals for s in ranked)
    asked = any("asked" in s.signals for s in ranked)
    for s in ranked:
        row: dict = {"rank": s.rank or None, "sentence": s.id}
        row.update({key: float(s.signals.get(key, 0.0)) for key in SIGNALS})
        row["score"] = s.score
        if staged:
            row["stage"] = s.signals.get("stage", "")
        if walked:
            row["path"] = s.signals.get("path", "")
        if asked:
            row["asked"] = s.signals.get("asked", "")
        row["from"] = senders_text(s.signals)
        row["text"] = s.text
        rows.append(row)
    return rows
