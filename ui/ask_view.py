"""HTML and tables for one answered question (pure: no streamlit).

Context sentences are numbered in reading order; the answer's citation
markers ``[n]`` use the same numbers and link to the sentence's anchor.
Every sentence names its document (and page and section when known); the
list is drawn in reading order, one document after another under a heading
line, or in the method's rank order.

>>> from kgcore.core.types import SelectedSentence
>>> sents = [SelectedSentence("text_0-3", 3, "He was put in a <pie>.", "He was put in a <pie>.", ["pie"])]
>>> html = sentences_html(sents, {"text_0-3": ["pie"]})
>>> 'id="s-text_0-3"' in html and '&lt;<mark class="kg-m">pie</mark>&gt;' in html
True
>>> view = SentenceView(roles={"text_0-3": ("caption", ("Lewis 2020 — RAG",))})
>>> 'class="kg-role"' in sentences_html(sents, view=view) and '>cites 1</span>' in sentences_html(sents, view=view)
True
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlencode

from kgcore.api import Answer, Match, QueryResult, SelectedSentence, strip_markers

from .markup_html import UNMARKABLE, anchor_id, badge, esc, highlight
from .roles_view import role_badges

#: Extra words never marked when marking the question's own words (baselines).
QUESTION_STOPWORDS = UNMARKABLE | frozenset(
    "what when where why how did does do was were is are be been had has have of to in on at by for with from "
    "and or but not no so if into onto about after before did".split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]+")
#: Longest section heading shown in a badge (the full heading is its tooltip).
SECTION_CHARS = 40


@dataclass
class SentenceView:
    """How to draw the sentence list: marks, the picked match, the other method's ids."""

    marks: Mapping[str, list[str]] = field(default_factory=dict)
    selected_terms: list[str] = field(default_factory=list)
    focus_ids: set[str] = field(default_factory=set)
    other_ids: set[str] | None = None
    doc_id: str = ""
    anchor_prefix: str = "s"
    #: Query node key -> its label, for the "aligned" line of GroundedKG sentences.
    query_labels: Mapping[str, str] = field(default_factory=dict)
    #: "rank" (by the method's rank: the cited sentences are near the top) or "reading" (by position, documents
    #: kept together).
    order: str = "rank"
    #: A heading line before each document's sentences (reading order, collections of several documents).
    headings: bool = False
    #: Sentences the answer cites (marked "cited").
    cited: set[str] = field(default_factory=set)
    #: Sentence id -> (its role, the works it cites in short): a role badge unless body text, a "cites N" badge.
    roles: Mapping[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    #: Sentence id -> extra HTML (already escaped) drawn under its text: the signal breakdown of the rankings over
    #: the contextual graph (:func:`ui.signals_view.signals_html`).
    extras: Mapping[str, str] = field(default_factory=dict)


def numbering(sentences: Iterable[SelectedSentence]) -> dict[str, int]:
    """Citation number of each context sentence (1-based, reading order, whatever order they are listed in)."""
    return {s.id: i for i, s in enumerate(sorted(sentences, key=lambda s: s.position), start=1)}


def order_sentences(sentences: Iterable[SelectedSentence], order: str = "reading") -> list[SelectedSentence]:
    """The sentences by ``position`` (reading order) or by ``rank`` (1 = best; unranked last, in reading order).

    >>> S = lambda i, pos, rank: SelectedSentence(i, pos, "", "", rank=rank)
    >>> sents = [S("a", 1, 3), S("b", 5, 1), S("c", 9, 0)]
    >>> [s.id for s in order_sentences(sents, "rank")], [s.id for s in order_sentences(sents[::-1])]
    (['b', 'a', 'c'], ['a', 'b', 'c'])
    """
    if order == "rank":
        return sorted(sentences, key=lambda s: (s.rank <= 0, s.rank, s.position))
    return sorted(sentences, key=lambda s: s.position)


def cited_ids(answer: Answer | None) -> set[str]:
    """Ids of the sentences the answer cites."""
    return {sid for c in (answer.citations if answer else []) for sid in c.sentence_ids}


def question_terms(question: str) -> list[str]:
    """Content words of the question (what baselines' sentences are marked with).

    >>> question_terms("What happened to the young rabbits' father?")
    ['happened', 'young', "rabbits'", 'father']
    """
    return [w for w in _WORD.findall(question) if w.lower() not in QUESTION_STOPWORDS and len(w) > 2]


def node_terms(graph, node_ids: Iterable[str]) -> list[str]:
    """Labels and surface texts of graph nodes (what gets marked in a sentence)."""
    terms: list[str] = []
    for node_id in node_ids:
        node = graph.nodes.get(node_id)
        if node is not None:
            terms.append(node.label)
            terms.extend(node.texts)
    return terms


def sentence_marks(graph, result: QueryResult) -> dict[str, list[str]]:
    """Terms to mark per context sentence: its matched and aligned nodes' words, or the question's words."""
    if any(s.selected_by or s.aligned for s in result.sentences):
        return {s.id: node_terms(graph, [*s.selected_by, *(a["node_id"] for a in s.aligned)]) for s in result.sentences}
    words = question_terms(result.question)
    return {s.id: words for s in result.sentences}


def sentence_link(doc_id: str, sentence_id: str) -> str:
    """Relative URL of the sentence page for one sentence."""
    return "sentence?" + urlencode({"doc": doc_id, "sid": sentence_id})


def _stats(s: SelectedSentence) -> str:
    parts = [f"rank {s.rank}"] if s.rank else []
    if s.retrieval_count:
        parts.append(f"count {s.retrieval_count}")
    parts.append(f"sim {s.similarity:.2f}")
    parts.append(f"score {s.score:.3f}")
    return " · ".join(parts)


def sentence_html(s: SelectedSentence, number: int, view: SentenceView) -> str:
    classes = ["kg-sent"]
    if s.id in view.focus_ids:
        classes.append("kg-focus")
    if s.id in view.cited:
        classes.append("kg-cited-sent")  # the list opens scrolled to the first of these (ui.ask_script_html)
    head = [badge(f"[{number}]", "kg-num")]
    sid = esc(s.id)
    if view.doc_id:
        href = esc(sentence_link(view.doc_id, s.id))
        head.append(f'<a class="kg-sid" href="{href}" target="_blank" title="Open its source and parse">{sid}</a>')
    else:
        head.append(f'<span class="kg-sid">{sid}</span>')
    head.append(provenance_html(s))
    if s.id in view.roles:
        head.append(role_badges(*view.roles[s.id]))
    if s.id in view.cited:
        head.append(badge("cited", "kg-cited", "The answer cites this sentence"))
    head.append(badge(_stats(s), "kg-stat",
                      "rank · retrieval count (matched nodes grounded here) · cosine to the question · rank score"))
    if view.other_ids is not None:
        head.append(badge("in both", "kg-both") if s.id in view.other_ids else badge("only here", "kg-only"))
    terms = view.marks.get(s.id, [])
    body = f'<div class="kg-text">{highlight(s.text, terms, view.selected_terms)}</div>'
    if s.resolved and " ".join(s.resolved.split()) != " ".join(s.text.split()):
        body += f'<div class="kg-resolved">resolved: {highlight(s.resolved, terms, view.selected_terms)}</div>'
    if s.aligned:
        body += alignment_html(s.aligned, view.query_labels)
    body += view.extras.get(s.id, "")
    anchor = anchor_id(s.id, view.anchor_prefix)
    return f'<div class="{" ".join(classes)}" id="{anchor}"><div class="kg-head">{" ".join(head)}</div>{body}</div>'


def alignment_html(aligned: list[dict], query_labels: Mapping[str, str]) -> str:
    """Why a GroundedKG sentence ranked: each query node, the node it aligned to here, and its evidence.

    "⇄" names the query nodes whose aligned nodes share an edge of this
    sentence (the question's structure recurs).

    >>> alignment_html([{"query_node": "q1", "node_id": "father", "label": "<father>", "evidence": 0.8,
    ...                  "linked": ["q2"]}],
    ...                {"q1": "father", "q2": "happen"})
    '<div class="kg-aligned">aligned: <b>father</b> → &lt;father&gt; 0.80 ⇄ happen</div>'
    """
    parts = []
    for a in aligned:
        linked = "".join(f" ⇄ {esc(query_labels.get(q, q))}" for q in a.get("linked", []))
        parts.append(f'<b>{esc(query_labels.get(a["query_node"], a["query_node"]))}</b> → {esc(a["label"])} '
                     f'{a["evidence"]:.2f}{linked}')
    return f'<div class="kg-aligned">aligned: {" · ".join(parts)}</div>'


def sentences_html(sentences: list[SelectedSentence], marks: Mapping[str, list[str]] | None = None,
                   view: SentenceView | None = None) -> str:
    """The context sentences in reading order with ids, stats and marked node words."""
    view = view or SentenceView()
    if marks is not None:
        view.marks = marks
    if not sentences:
        return '<div class="kg-empty">No context sentences.</div>'
    numbers = numbering(sentences)
    out, current = [], None
    for s in order_sentences(sentences, view.order):
        if view.headings and view.order == "reading" and s.document != current:
            out.append(document_heading(s))
            current = s.document
        out.append(sentence_html(s, numbers[s.id], view))
    return "".join(out)


def provenance_html(s: SelectedSentence) -> str:
    """Badges naming a context sentence's document, and its page and section when known.

    >>> html = provenance_html(SelectedSentence("d/text_0-1", 1, "", "", document="d", source_file="d.pdf",
    ...                                         page=3, section="<CHAPTER I>"))
    >>> for part in html.split("> <"): print(part)
    <span class="kg-doc" title="d.pdf">d</span
    span class="kg-where">p. 3</span
    span class="kg-where" title="&lt;CHAPTER I&gt;">§ &lt;CHAPTER I&gt;</span>
    """
    parts = [badge(s.document, "kg-doc", s.source_file)] if s.document else []
    if s.page:
        parts.append(badge(f"p. {s.page}", "kg-where"))
    if s.section:
        short = s.section if len(s.section) <= SECTION_CHARS else s.section[: SECTION_CHARS - 1] + "…"
        parts.append(badge(f"§ {short}", "kg-where", s.section))
    return " ".join(parts)


def document_heading(s: SelectedSentence) -> str:
    """The line above a document's sentences in reading order.

    >>> document_heading(SelectedSentence("d/text_0-1", 1, "", "", document="d", source_file="<d>.txt"))
    '<div class="kg-dochead">d <span class="kg-stat">&lt;d&gt;.txt</span></div>'
    """
    file = f' <span class="kg-stat">{esc(s.source_file)}</span>' if s.source_file else ""
    return f'<div class="kg-dochead">{esc(s.document or "(no document)")}{file}</div>'


def citation_markers(sentence_ids: Iterable[str], numbers: Mapping[str, int], anchor_prefix: str = "s") -> str:
    """``[n]`` links to the cited sentences.

    >>> citation_markers(["text_0-3"], {"text_0-3": 2})
    '<a class="kg-cite" href="#s-text_0-3" title="text_0-3">[2]</a>'
    """
    out = []
    for sid in dict.fromkeys(sentence_ids):
        label = f"[{numbers[sid]}]" if sid in numbers else f"[{sid}]"
        out.append(f'<a class="kg-cite" href="#{anchor_id(sid, anchor_prefix)}" title="{esc(sid)}">{esc(label)}</a>')
    return "".join(out)


def answer_html(answer: Answer, numbers: Mapping[str, int], anchor_prefix: str = "s") -> str:
    """The answer, each cited sentence followed by its markers.

    >>> from kgcore.core.types import Citation
    >>> c = Citation("He was put in a pie [text_0-3].", ["text_0-3"])
    >>> a = Answer("He was put in a pie [text_0-3].", "openai", "", [c])
    >>> answer_html(a, {"text_0-3": 1})  # doctest: +NORMALIZE_WHITESPACE
    '<div class="kg-answer"><p>He was put in a pie.
     <a class="kg-cite" href="#s-text_0-3" title="text_0-3">[1]</a></p></div>'
    """
    parts = []
    cited = [c for c in answer.citations if strip_markers(c.answer_sentence)]
    spans = {check.claim: check.span for check in (answer.verdict.evidence if answer.verdict else []) if check.span}
    for c in cited:
        # The generator's own "[text_0-3]" markers are replaced by numbered links.
        markers = citation_markers(c.sentence_ids, numbers, anchor_prefix)
        claim = strip_markers(c.answer_sentence)
        parts.append(f"{span_marked(claim, spans.get(claim, ''))} {markers}".rstrip())
    text = strip_markers(answer.text)
    if not cited or not _covers(text, [strip_markers(c.answer_sentence) for c in cited]):
        parts = [esc(text) or "<em>(empty answer)</em>"] + ([" ".join(parts)] if parts else [])
    body = "".join(f"<p>{p}</p>" for p in parts)
    return f'<div class="kg-answer">{body}</div>'


def span_marked(text: str, span: str) -> str:
    """``text`` escaped, with the first occurrence of ``span`` (the answer the verdict found) marked.

    >>> span_marked("Each tablet is 100-200 MB <big>.", "100-200 MB")
    'Each tablet is <mark class="kg-span">100-200 MB</mark> &lt;big&gt;.'
    """
    at = text.find(span) if span else -1
    if at < 0:
        return esc(text)
    return f'{esc(text[:at])}<mark class="kg-span">{esc(span)}</mark>{esc(text[at + len(span):])}'


def _covers(text: str, pieces: list[str]) -> bool:
    """True when the cited answer sentences make up the whole answer text."""
    squash = lambda t: re.sub(r"\W+", "", t.lower())  # noqa: E731
    return squash(text) == squash("".join(pieces))


def matches_rows(result: QueryResult, graph, matches: Sequence[Match] | None = None) -> list[dict]:
    """One row per (query node, matched node) of ``matches`` (default: all the result's), best first within each
    query node."""
    labels = {n.key: n.label for n in result.query_graph.nodes} if result.query_graph else {}
    rows = []
    for m in result.matches if matches is None else matches:
        node = graph.nodes.get(m.node_id)
        rows.append({
            "query node": labels.get(m.query_node, m.query_node),
            "rank": m.rank + 1,
            "matched node": m.label,
            "type": m.node_type,
            "score": m.score,
            "sentences": len(node.grounded_texts) if node else 0,
            "texts": "; ".join(m.texts[:4]),
            "node id": m.node_id,
        })
    return rows


def query_node_rows(result: QueryResult) -> list[dict]:
    graph = result.query_graph
    if graph is None:
        return []
    return [{"node": n.label, "type": n.node_type, "texts": "; ".join(n.texts), "matched": not n.is_unknown}
            for n in graph.nodes]


def share_scope(documents: Mapping[str, int], asked: Iterable[str], total_words: int) -> tuple[str, int]:
    """(what the context's share is of, its words): the documents a question was asked of, out of a collection's
    ``documents`` (id -> words); ``asked`` empty means all of them.

    >>> docs = {"a": 100, "b": 300}
    >>> share_scope(docs, [], 400), share_scope(docs, ["b"], 400), share_scope({"a": 100}, [], 100)
    (('collection', 400), ('documents asked', 300), ('document', 100))
    """
    chosen = [d for d in asked if d in documents]
    if chosen and len(chosen) < len(documents):
        return "documents asked", sum(documents[d] for d in chosen)
    return ("document" if len(documents) <= 1 else "collection"), total_words


def whole_text_note(budget_words: int | None, total_words: int, scope: str) -> str:
    """What to say when the word budget holds the whole text asked: every method then returns all of it, so
    nothing about retrieval can be seen ("" when the budget is smaller, or there is none).

    >>> whole_text_note(1000, 964, "document")[:70]
    'The word budget (1,000) holds all 964 words of the document: every met'
    >>> whole_text_note(1000, 964, "document").endswith("(e.g. to 192) to see what each method selects.")
    True
    >>> whole_text_note(1000, 86_000, "document"), whole_text_note(0, 964, "document")
    ('', '')
    """
    if not budget_words or not total_words or budget_words < total_words:
        return ""
    said = f"The word budget ({budget_words:,}) holds all {total_words:,} words of the {scope}: every method returns "
    if total_words < 100:  # too short for a smaller budget to show anything either
        return said + "the whole text."
    return (said + "the whole text, so this shows nothing about retrieval. Lower the budget (e.g. to "
            f"{min(200, total_words // 5):,}) to see what each method selects.")


def context_stats(result: QueryResult, total_words: int) -> dict:
    """Context size: sentences, words and share of ``total_words`` (those of the text asked)."""
    words = result.context_words
    return {"sentences": len(result.sentences), "words": words,
            "share": (100.0 * words / total_words) if total_words else 0.0, "candidates": result.candidates}


def overlap(a: QueryResult, b: QueryResult) -> tuple[int, float]:
    """Shared context sentences of two results and their Jaccard index.

    >>> from kgcore.core.types import QueryResult as Q, SelectedSentence as S
    >>> q = lambda ids: Q("q", "m", "d", None, [], [S(i, 0, "", "") for i in ids], {}, {})
    >>> overlap(q(["a", "b"]), q(["b", "c"]))
    (1, 0.333)
    """
    sa, sb = set(a.sentence_ids), set(b.sentence_ids)
    union = sa | sb
    return len(sa & sb), round(len(sa & sb) / len(union), 3) if union else 0.0


def grounded_html(sentences, terms: list[str], doc_id: str = "", limit: int = 200) -> str:
    """Sentences (objects with ``id`` and ``original``) with ``terms`` marked, for node views.

    >>> from kgcore.core.types import Sentence
    >>> s = Sentence("text_0-1", 0, 1, 1, "A <pie>.", "A <pie>.", "A <pie>.")
    >>> grounded_html([s], ["pie"])  # doctest: +NORMALIZE_WHITESPACE
    '<div class="kg-sent"
     id="g-text_0-1"><div class="kg-head"><span class="kg-sid">text_0-1</span></div><div class="kg-text">A
     &lt;<mark class="kg-m">pie</mark>&gt;.</div></div>'
    """
    sentences, out = list(sentences), []
    for s in sentences[:limit]:
        sid = esc(s.id)
        link = (f'<a class="kg-sid" href="{esc(sentence_link(doc_id, s.id))}" target="_blank">{sid}</a>'
                if doc_id else f'<span class="kg-sid">{sid}</span>')
        out.append(f'<div class="kg-sent" id="{anchor_id(s.id, "g")}"><div class="kg-head">{link}</div>'
                   f'<div class="kg-text">{highlight(s.original, terms)}</div></div>')
    more = len(sentences) - limit
    if more > 0:
        out.append(f'<div class="kg-empty">… and {more} more sentence(s).</div>')
    return "".join(out) or '<div class="kg-empty">No sentences.</div>'
