"""The Ask page's question–answer pairs (pure: no streamlit, every piece of document text escaped).

The **short answers** (the ``qa-kg`` answerer's ranked answers, or the best distinct answers of the
``qa-kg`` retrieval's ranked pairs) and its ranked pairs: each with the sentences supporting it (linked to the
Sentence page and, when in the context, to the numbered context sentence) and why it ranked — the generated
question it answers and the reranker's features (:mod:`kgcore.query.rerank.base`) with what the fuzzy and
type-level matches rest on.  The Sentence and Entity pages' pairs: :mod:`ui.qa_pairs_view`.

>>> item = {"answer": "<Marta>", "question": "Who rescued the <fishermen>?", "sentence_ids": ["d/text_0-3"],
...         "wh": "who", "answer_type": "person", "role": "ARG0", "predicate": "rescue", "score": 1.8,
...         "features": {"similarity": 0.83, "type": 1.0, "fuzzy": 0.75},
...         "why": {"fuzzy": {"mention": "Marta Vel", "label": "Marta Vell", "distance": 1}}}
>>> html = short_answers_html([item], "harbour", {"d/text_0-3": 2})
>>> "&lt;Marta&gt;" in html and "<Marta>" not in html and "the &lt;fishermen&gt;?" in html
True
>>> 'href="sentence?doc=harbour&amp;sid=d%2Ftext_0-3"' in html, 'title="d/text_0-3">[2]</a>' in html
(True, True)
>>> print(html.split('class="kg-stat">')[1].split("<")[0])
score 1.80 · confidence 1.00
>>> "similarity 0.83" in html and "type agreement 1.00" in html
True
>>> "fuzzy match 0.75 (“Marta Vel” → Marta Vell, 1 edit)" in html
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from kgcore.api import (
    MAX_ANSWERS,
    MIN_CONFIDENCE,
    NO_ANSWER,
    Answer,
    confidence,
    grouped,
)

from .ask_view import citation_markers, sentence_link
from .markup_html import counted, esc

#: The reranker's features (:mod:`kgcore.query.rerank.base`) in the order shown: the name and what it means.
FEATURES = {
    "similarity": ("similarity", "cosine of the question to the pair's generated question"),
    "answer_sim": ("answer similarity", "cosine of the question to the pair's answer"),
    "type": ("type agreement", "1: the pair answers what the question asks for (a who-question wants a person, "
                               "where a place ...); 0: it answers something else; 0.5: the question does not say"),
    "lexical": ("lexical", "share of the question's content words found in the pair's question and answer"),
    "fuzzy": ("fuzzy match", "1 - edits/(allowed+1) when the pair mentions an entity the question names"),
    "type_level": ("type-level", "cosine of a question noun to a type of an entity the pair mentions"),
    "repeat": ("repeat", "1 when the answer adds nothing: its content words are all in the question, or it only "
                         "names entities the question names, by name or by type (counts against it); the type a "
                         "'which X' question asks for is not a repeat"),
    "sentence": ("sentence", "how much worse the pair's sentence answers the question than the best sentence "
                             "(cosine + question-word overlap + answer-type match, the extractive answerer's "
                             "sentence score); 0 for the best sentence"),
    "cross_encoder": ("cross-encoder", "the local CrossEncoder's probability that the pair answers the question"),
}


def score_confidence(score: float) -> float:
    """A ranked answer's confidence as the ``qa-kg`` answerer gives it (:func:`kgcore.query.answer.short.confidence`),
    rounded to three decimals as the answer stores it (so the first answer's shows exactly as ``Answer.confidence``).

    >>> [round(score_confidence(s), 2) for s in (0.1, 1.2, 9.0)]
    [0.0, 0.5, 1.0]
    """
    return round(confidence(score), 3)


def is_no_answer(answer: Answer) -> bool:
    """Whether the ``qa-kg`` answerer found no answer (its best pair below the confidence threshold, or none).

    >>> is_no_answer(Answer(NO_ANSWER, "qa-kg", "")), is_no_answer(Answer("a pie", "qa-kg", ""))
    (True, False)
    """
    return answer.generator == "qa-kg" and answer.text.strip() == NO_ANSWER


def short_answers_caption(answer: Answer) -> str:
    """What the ``qa-kg`` answerer's confidence is and when it gives no answer (plain text: escape it to show).

    >>> print(short_answers_caption(Answer("a pie", "qa-kg", "", short_answers=[{}, {}], confidence=0.72)))
    ... # doctest: +NORMALIZE_WHITESPACE
    Confidence 0.72 (the best answer’s score mapped to 0..1; below 0.1 the answer is “No answer found.”) ·
    2 ranked short answer(s), each with the sentences that support it and why it ranked.
    """
    confidence = "not given" if answer.confidence is None else f"{answer.confidence:.2f}"
    return (f"Confidence {confidence} (the best answer’s score mapped to 0..1; below {MIN_CONFIDENCE} the answer is "
            f"“{NO_ANSWER}”) · {len(answer.short_answers)} ranked short answer(s), each with the sentences that "
            "support it and why it ranked.")


def no_answer_text(answer: Answer) -> str:
    """Why the ``qa-kg`` answerer gave no answer, from its own values (plain text: escape it to show).

    >>> print(no_answer_text(Answer(NO_ANSWER, "qa-kg", "", short_answers=[{"score": 0.68}], confidence=0.069)))
    ... # doctest: +NORMALIZE_WHITESPACE
    No answer found: the best of 1 ranked candidate(s) has confidence 0.07, below the threshold 0.1.
    The candidates are listed below.
    >>> no_answer_text(Answer(NO_ANSWER, "qa-kg", ""))
    'No answer found: no question–answer pair was found in the context.'
    """
    if not answer.short_answers:
        return "No answer found: no question–answer pair was found in the context."
    return (f"No answer found: the best of {len(answer.short_answers)} ranked candidate(s) has confidence "
            f"{answer.confidence or 0.0:.2f}, below the threshold {MIN_CONFIDENCE}. The candidates are listed below.")


def retrieval_answers_caption(answer: Answer) -> str:
    """The caption of the short answers read off the ``qa-kg`` retrieval when another answerer answered.

    >>> retrieval_answers_caption(Answer("x", "extractive", ""))[:60]
    'The best distinct answers of the qa-kg retrieval’s ranked pa'
    """
    return (f"The best distinct answers of the qa-kg retrieval’s ranked pairs, with their reranking scores (the answer "
            f"above comes from the {answer.generator} answerer; choose the qa-kg answerer for a confidence).")


def distinct_answers(pairs: Sequence[Mapping], limit: int = MAX_ANSWERS) -> list[dict]:
    """The best ``limit`` distinct answers of ranked pairs (the ``qa-kg`` retrieval's ``qa_pairs``), each with the
    sentences supporting it: the answerer's grouping (:func:`kgcore.query.answer.short.grouped`) applied to the
    retrieval's ranking.

    >>> ps = [{"answer": "Marta Vell", "sentence_id": "d/text_0-3", "score": 1.7},
    ...       {"answer": "a boat", "sentence_id": "d/text_0-3", "score": 1.2},
    ...       {"answer": "marta  vell", "sentence_id": "d/text_0-4", "score": 1.1},
    ...       {"answer": "Marta Vell", "sentence_id": "d/text_0-9", "score": 0.65}]
    >>> [(a["answer"], a["sentence_ids"]) for a in distinct_answers(ps)]
    [('Marta Vell', ['d/text_0-3', 'd/text_0-4']), ('a boat', ['d/text_0-3'])]
    >>> len(distinct_answers(ps, limit=1))
    1
    """
    return grouped(((float(p.get("score", 0.0)), p) for p in pairs), limit)


def sentence_refs(sentence_ids: Iterable[str], collection: str, numbers: Mapping[str, int], prefix: str = "s") -> str:
    """Each sentence id linking to its source view (the Sentence page), then its context number ``[n]`` linking to
    the context sentence when it is in the context.

    >>> print(sentence_refs(["d/text_0-3", "d/text_0-9"], "shelf", {"d/text_0-3": 1}))  # doctest: +NORMALIZE_WHITESPACE
    <a class="kg-sid" href="sentence?doc=shelf&amp;sid=d%2Ftext_0-3" target="_blank" title="Open its source and
    parse">d/text_0-3</a><a class="kg-cite" href="#s-d-text_0-3" title="d/text_0-3">[1]</a> <a class="kg-sid"
    href="sentence?doc=shelf&amp;sid=d%2Ftext_0-9" target="_blank" title="Open its source and parse">d/text_0-9</a>
    """
    out = []
    for sid in dict.fromkeys(s for s in sentence_ids if s):
        href = esc(sentence_link(collection, sid))
        link = f'<a class="kg-sid" href="{href}" target="_blank" title="Open its source and parse">{esc(sid)}</a>'
        out.append(link + (citation_markers([sid], numbers, prefix) if sid in numbers else ""))
    return " ".join(out)


def _feature(key: str, value: float, why: Mapping) -> str:
    label, meaning = FEATURES.get(key, (key, key))
    detail = ""
    if key == "fuzzy" and why.get("fuzzy"):
        match = why["fuzzy"]
        edits = int(match.get("distance", 0))
        detail = f' (“{esc(match.get("mention", ""))}” → {esc(match.get("label", ""))}, {counted(edits, "edit")})'
    elif key == "type_level" and why.get("type"):
        kind = why["type"]
        detail = f' (type “{esc(kind.get("type", ""))}” of {esc(kind.get("entity", ""))})'
    return f'<span title="{esc(meaning)}">{esc(label)} {float(value):.2f}{detail}</span>'


def why_html(item: Mapping) -> str:
    """Why a ranked pair ranked: the generated question it answers (wh-word, answer type, the answer's role in its
    frame), then every feature the reranker weighed with its value (a tooltip says what each means).

    >>> print(why_html({"question": "Where did Peter lose one shoe?", "wh": "where", "answer_type": "place",
    ...                 "role": "ARGM-LOC", "predicate": "lose", "features": {"type_level": 0.8, "x": 1},
    ...                 "why": {"type": {"type": "rabbit", "entity": "Peter"}}}))  # doctest: +NORMALIZE_WHITESPACE
    <div class="kg-qa-why">answers “Where did Peter lose one shoe?” <span class="kg-stat">where → place · ARGM-LOC of
    lose</span></div><div class="kg-qa-why"><span title="cosine of a question noun to a type of an entity the pair
    mentions">type-level 0.80 (type “rabbit” of Peter)</span> · <span title="x">x 1.00</span></div>
    """
    features = item.get("features") or {}
    why = item.get("why") or {}
    ordered = [k for k in FEATURES if k in features] + [k for k in features if k not in FEATURES]
    values = " · ".join(_feature(k, features[k], why) for k in ordered)
    role = f" · {esc(item['role'])} of {esc(item['predicate'])}" if item.get("role") and item.get("predicate") else ""
    asked = (f'<div class="kg-qa-why">answers “{esc(item.get("question", ""))}” <span class="kg-stat">'
             f'{esc(item.get("wh", ""))} → {esc(item.get("answer_type", ""))}{role}</span></div>')
    return asked + (f'<div class="kg-qa-why">{values}</div>' if values else "")


def answer_item_html(item: Mapping, collection: str, numbers: Mapping[str, int], prefix: str = "s",
                     confidence: bool = True) -> str:
    """One ranked answer or pair as a list item: the answer, its score (and confidence), its sentences, the
    realised statement of its pair when that says more than the answer, why.

    >>> html = answer_item_html({"answer": "a pie", "statement": "Your father was put in a pie.", "score": 1.2,
    ...                          "sentence_id": "d/text_0-1"}, "c", {})
    >>> "realised: Your father was put in a pie." in html
    True
    """
    ids = item.get("sentence_ids") or [item.get("sentence_id", "")]
    score = float(item.get("score", 0.0))
    stats = f"score {score:.2f}" + (f" · confidence {score_confidence(score):.2f}" if confidence else "")
    statement = str(item.get("statement") or "")
    said = (f'<div class="kg-qa-said">realised: {esc(statement)}</div>'
            if statement and statement.rstrip(".") != str(item.get("answer", "")).rstrip(".") else "")
    return (f'<li><span class="kg-qa-answer">{esc(item.get("answer", ""))}</span> <span class="kg-stat">{stats}</span> '
            f'{sentence_refs(ids, collection, numbers, prefix)}{said}{why_html(item)}</li>')


def short_answers_html(items: Sequence[Mapping], collection: str, numbers: Mapping[str, int], prefix: str = "s",
                       confidence: bool = True) -> str:
    """The ranked short answers (at most :data:`~kgcore.query.answer.short.MAX_ANSWERS`), best first.

    >>> short_answers_html([], "shelf", {})
    '<div class="kg-empty">No question–answer pair was found in the context.</div>'
    """
    if not items:
        return '<div class="kg-empty">No question–answer pair was found in the context.</div>'
    rows = "".join(answer_item_html(i, collection, numbers, prefix, confidence) for i in items[:MAX_ANSWERS])
    return f'<ol class="kg-qa">{rows}</ol>'


def ranked_pairs_html(pairs: Sequence[Mapping], collection: str, numbers: Mapping[str, int], prefix: str = "s") -> str:
    """The ``qa-kg`` retrieval's ranked pairs, best first: each answer with its score, sentence and why it ranked.

    >>> ranked_pairs_html([{"answer": "a pie", "sentence_id": "d/text_0-1", "score": 1.0}], "s", {}).count("<li>")
    1
    """
    rows = "".join(answer_item_html(p, collection, numbers, prefix, confidence=False) for p in pairs)
    return f'<ol class="kg-qa">{rows}</ol>' if rows else '<div class="kg-empty">No ranked pairs.</div>'


# -- the Sentence page ---------------------------------------------------------------------------------------------
