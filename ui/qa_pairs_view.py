"""The Sentence and Entity pages' question–answer pairs (pure: no streamlit, document text escaped).

The Sentence page lists a sentence's pairs under the SRL frame each was asked from; the Entity page the pairs whose
question or answer mentions the entity.  The Ask page's short answers and ranked pairs: :mod:`ui.qa_view`.

>>> from kgcore.api import QAPair
>>> pair = QAPair("p1", "Who lost a <shoe>?", "Peter", "d/text_0-3", "who", "person", predicate="lose")
>>> "&lt;shoe&gt;" in pairs_table_html([pair]) and "<shoe>" not in pairs_table_html([pair])
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kgcore.api import (
    RETRIEVABLE,
    Frame,
    QAGraph,
    QAPair,
    is_proper_name,
    normalized,
    scoped_id,
    split_sentence_id,
)

from .markup_html import badge, esc, highlight
from .qa_view import sentence_refs

#: Pairs listed on the Entity page (reading order).
MAX_ENTITY_PAIRS = 60


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
