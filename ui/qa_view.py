"""Question–answer pairs in the app (issue #15; pure: no streamlit, every piece of document text escaped).

The Ask page's **short answers** (the ``qa-kg`` answerer's ranked answers, or the best distinct answers of the
``qa-kg`` retrieval's ranked pairs) and its ranked pairs: each with the sentences supporting it (linked to the
Sentence page and, when in the context, to the numbered context sentence) and why it ranked — the generated
question it answers and the reranker's features (:mod:`kgcore.query.rerank.base`) with what the fuzzy and
type-level matches rest on.  The Sentence page's pairs under the SRL frame each was asked from; the Entity page's
pairs whose question or answer mentions the entity.

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

from kgcore.core.graph import is_proper_name, scoped_id
from kgcore.core.qa_pair import QAPair
from kgcore.core.types import RETRIEVABLE, Answer, Frame, split_sentence_id
from kgcore.index.qa.base import normalized
from kgcore.query.answer.short import MAX_ANSWERS, MIN_CONFIDENCE, NO_ANSWER, confidence, grouped
from kgcore.query.qakg.graph import QAGraph

from .ask_view import citation_markers, sentence_link
from .markup import badge, counted, esc, highlight

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
#: Pairs listed on the Entity page (reading order).
MAX_ENTITY_PAIRS = 60


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
def frame_of(pair: QAPair, frames: Sequence[Frame]) -> int | None:
    """Index of the frame a pair was asked from: the frame of its predicate; of several, the one whose argument of
    the answer's role holds the answer (for a "What did X do" pair, whose verb starts it); None for none (LLM pairs).

    >>> from kgcore.core.types import Argument
    >>> shoe = Frame("lose", "lost", (Argument("ARG1", "one shoe", "shoe", "shoe"),))
    >>> other = Frame("lose", "lost", (Argument("ARG1", "the other", "other", "other"),))
    >>> pair = QAPair("s#q1", "What did Peter lose amongst the potatoes?", "the other", "s", "what", "thing", "ARG1",
    ...               "lose")
    >>> frame_of(pair, [shoe, other]), frame_of(QAPair("s#q2", "Who ran?", "Peter", "s", "who", "person"), [shoe])
    (1, None)
    """
    same = [i for i, f in enumerate(frames) if pair.predicate and f.predicate == pair.predicate]
    answer = normalized(pair.answer)
    for i in same:
        args = [t for a in frames[i].arguments if pair.role in (a.role, "V") and (t := normalized(a.text))]
        if pair.role == "V" and answer.startswith(normalized(frames[i].text)) and any(a in answer for a in args):
            return i
        if pair.role != "V" and any(answer in a or a in answer for a in args):
            return i
    return same[0] if same else None


def frame_groups(pairs: Sequence[QAPair], frames: Sequence[Frame]) -> list[tuple[Frame | None, list[QAPair]]]:
    """The pairs under the frame each was asked from, in frame order; pairs of no frame (LLM pairs) last, under None.

    >>> from kgcore.core.types import Argument
    >>> run = Frame("run", "ran", (Argument("ARG0", "Peter", "Peter", "peter"),))
    >>> pairs = [QAPair("s#q0", "Who ran?", "Peter", "s", "who", "person", "ARG0", "run"),
    ...          QAPair("s#q1", "Who is he?", "Peter", "s", "who", "person", "llm", source="llm")]
    >>> [(f.predicate if f else None, [p.id for p in ps]) for f, ps in frame_groups(pairs, [run])]
    [('run', ['s#q0']), (None, ['s#q1'])]
    """
    grouped: dict[int | None, list[QAPair]] = {}
    for pair in pairs:
        grouped.setdefault(frame_of(pair, frames), []).append(pair)
    order = sorted(k for k in grouped if k is not None) + ([None] if None in grouped else [])
    return [(frames[k] if k is not None else None, grouped[k]) for k in order]


def sentence_pairs_caption(pairs: int, frames: int, role: str) -> str:
    """How the Sentence page's pairs were made, or why there are none (plain text: escape it to show).

    >>> sentence_pairs_caption(0, 2, "front_matter")[:62]
    'This sentence’s role is front matter: qa-kg asks nothing of he'
    >>> sentence_pairs_caption(3, 2, "body")[:44]
    '3 pair(s) from 2 SRL frame(s), as qa-kg uses'
    """
    if role not in RETRIEVABLE:
        return (f"This sentence’s role is {role.replace('_', ' ')}: qa-kg asks nothing of headings, title pages "
                "and other sentences kept out of retrieval.")
    if not frames and not pairs:
        return ("No SRL frames are stored for this sentence (an AMR index, or the parser found no predicate), so "
                "the frames backend has nothing to ask.")
    return (f"{pairs} pair(s) from {frames} SRL frame(s), as qa-kg uses them: every frame's core arguments and its "
            "place, time, manner and reason adjuncts are asked with a wh-question whose answer is the argument's "
            "span; pairs with a pronoun subject, a pronoun or vague answer, or an answer the question already says "
            "are left out (kgcore/index/qa/base.py).")


def frame_html(frame: Frame) -> str:
    """A frame on one line: its predicate, the verb as written and every argument by role.

    >>> from kgcore.core.types import Argument
    >>> frame_html(Frame("put", "was put", (Argument("ARG1", "your <father>", "father", "father"),)))
    '<b>put</b> <span class="kg-stat">“was put”</span> · <span class="kg-where">ARG1</span> your &lt;father&gt;'
    """
    args = "".join(f" · {badge(a.role, 'kg-where')} {esc(a.text)}"
                   for a in sorted(frame.arguments, key=lambda a: a.start))
    negated = " " + badge("negated", "kg-role") if frame.negated else ""
    return f'<b>{esc(frame.predicate)}</b> <span class="kg-stat">“{esc(frame.text)}”</span>{negated}{args}'


def pairs_table_html(pairs: Sequence[QAPair]) -> str:
    """Pairs as a table: question, answer, the answer's role, its type and the backend that made it.

    >>> html = pairs_table_html([QAPair("s#q0", "Who ran <fast>?", "Peter", "s", "who", "person", "ARG0", "run")])
    >>> html.split("</tr>")[1]
    '<tr><td>Who ran &lt;fast&gt;?</td><td>Peter</td><td>ARG0</td><td>person</td><td>frames</td>'
    """
    head = "".join(f"<td>{h}</td>" for h in ("question", "answer", "answer role", "answer type", "from"))
    rows = "".join(f"<tr><td>{esc(p.question)}</td><td>{esc(p.answer)}</td><td>{esc(p.role or p.wh)}</td>"
                   f"<td>{esc(p.answer_type)}</td><td>{esc(p.source)}</td></tr>" for p in pairs)
    return f'<table class="kg-table kg-qa-table"><tr>{head}</tr>{rows}</table>'


def sentence_pairs_html(groups: Sequence[tuple[Frame | None, Sequence[QAPair]]]) -> str:
    """Per frame: the frame, its realised statement (the answer sentence ``qa-kg`` shows) and its pairs.

    >>> from kgcore.core.types import Argument
    >>> run = Frame("run", "ran", (Argument("ARG0", "Peter", "Peter", "peter"),))
    >>> html = sentence_pairs_html([(run, [QAPair("s#q0", "Who ran?", "Peter", "s", "who", "person", "ARG0", "run",
    ...                                           "Peter ran.")])])
    >>> html.startswith('<div class="kg-qa-frame">Frame <b>run</b>'), "realised: Peter ran." in html
    (True, True)
    >>> sentence_pairs_html([])
    '<div class="kg-empty">No QA pairs were generated from this sentence.</div>'
    """
    out = []
    for frame, pairs in groups:
        title = f"Frame {frame_html(frame)}" if frame is not None else "Pairs of no frame (LLM-generated)"
        statement = next((p.statement for p in pairs if p.statement), "")
        realised = f'<div class="kg-qa-why">realised: {esc(statement)}</div>' if frame is not None and statement else ""
        out.append(f'<div class="kg-qa-frame">{title}</div>{realised}{pairs_table_html(pairs)}')
    return "".join(out) or '<div class="kg-empty">No QA pairs were generated from this sentence.</div>'


# -- the Entity page -----------------------------------------------------------------------------------------------
def entity_pairs(graph: QAGraph, node_ids: Iterable[str]) -> list[tuple[int, str]]:
    """(pair index, "question" / "answer" / "question and answer") of the QA graph's pairs that mention the entity
    whose graph nodes are ``node_ids``, in reading order.  A pair's entity key in document ``d`` is the graph node
    :func:`kgcore.core.graph.scoped_id` names, so one novel's "father" is not another's.

    >>> g = QAGraph([QAPair("a/t_0-1#q0", "Who saw the father?", "Peter", "a/t_0-1", "who", "person",
    ...                     entities=[("father", "father")], answer_entities=[("peter", "Peter")]),
    ...              QAPair("b/t_0-2#q0", "What did the father eat?", "a pie", "b/t_0-2", "what", "thing",
    ...                     entities=[("father", "father")])], None, None, None,
    ...             entity_pairs={"father": [0, 1], "peter": [0]})
    >>> entity_pairs(g, ["a/father"]), entity_pairs(g, ["peter"]), entity_pairs(g, ["b/father", "peter"])
    ([(0, 'question')], [(0, 'answer')], [(0, 'answer'), (1, 'question')])
    """
    nodes = {n.removesuffix(" (entity)") for n in node_ids}
    keys = {"/".join(parts[i:]) for n in nodes for parts in [n.split("/")] for i in range(len(parts))}
    found: dict[int, list[str]] = {}
    for key in keys & graph.entity_pairs.keys():
        for i in graph.entity_pairs[key]:
            pair = graph.pairs[i]
            doc = split_sentence_id(pair.sentence_id)[0]
            for side, mentioned in (("question", pair.entities), ("answer", pair.answer_entities)):
                if any(k == key and (scoped_id(doc, k, is_proper_name(label)) in nodes or k in nodes)
                       for k, label in mentioned) and side not in found.setdefault(i, []):
                    found[i].append(side)
    return [(i, " and ".join(sorted(sides, key=("question", "answer").index))) for i, sides in sorted(found.items())
            if sides]


def entity_pairs_caption(found: int, limit: int = MAX_ENTITY_PAIRS) -> str:
    """How many pairs mention the entity, and how many are listed (plain text: escape it to show).

    >>> entity_pairs_caption(75, 60)
    '75 pair(s) mention it; the first 60 in reading order are listed. Its names are marked.'
    >>> entity_pairs_caption(2, 60)
    '2 pair(s) mention it, in reading order. Its names are marked.'
    """
    shown = f"; the first {limit} in reading order are listed" if found > limit else ", in reading order"
    return f"{found} pair(s) mention it{shown}. Its names are marked."


def entity_pairs_html(pairs: Sequence[tuple[QAPair, str]], collection: str, terms: Sequence[str],
                      limit: int = MAX_ENTITY_PAIRS) -> str:
    """The pairs about an entity (``terms``, its names, marked), where each mentions it and its sentence, linked.

    >>> p = QAPair("d/t_0-1#q0", "Who ate the <pie>?", "Peter", "d/t_0-1", "who", "person", "ARG0", "eat")
    >>> html = entity_pairs_html([(p, "answer")], "shelf", ["Peter"])
    >>> '<mark class="kg-m">Peter</mark>' in html and "the &lt;pie&gt;?" in html and 'sid=d%2Ft_0-1"' in html
    True
    >>> entity_pairs_html([], "shelf", ["Peter"])
    '<div class="kg-empty">No QA pair mentions this entity.</div>'
    """
    if not pairs:
        return '<div class="kg-empty">No QA pair mentions this entity.</div>'
    head = "".join(f"<td>{h}</td>" for h in ("question", "answer", "mentioned in", "frame", "sentence"))
    rows = "".join(f"<tr><td>{highlight(p.question, terms)}</td><td>{highlight(p.answer, terms)}</td>"
                   f"<td>{esc(side)}</td><td>{esc(p.role or p.wh)} of {esc(p.predicate or p.source)}</td>"
                   f"<td>{sentence_refs([p.sentence_id], collection, {})}</td></tr>" for p, side in pairs[:limit])
    return f'<table class="kg-table kg-qa-table"><tr>{head}</tr>{rows}</table>'
