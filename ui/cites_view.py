"""Reference entries and citations on screen: a sentence's resolved citations, the short form of a cited work for a
tooltip, and the "who cites…" hits of a collection with their citing sentences (pure: no streamlit; every piece of
document text escaped).

>>> from kgcore.core.document import Reference
>>> ref = Reference("ref-1", "1", "[1] P. Lewis. RAG. 2020.", authors="Patrick Lewis and <Ethan Perez>",
...                 first_author="Lewis", year="2020", title="Retrieval-augmented generation", arxiv="2005.11401")
>>> reference_short(ref)
'[1] Lewis 2020 — Retrieval-augmented generation'
>>> print(reference_html(ref))  # doctest: +NORMALIZE_WHITESPACE
<span class="kg-reflabel">[1]</span> <b>Retrieval-augmented generation</b> — Patrick Lewis and &lt;Ethan Perez&gt;
 · 2020 · <a href="https://arxiv.org/abs/2005.11401" target="_blank">arXiv:2005.11401</a>
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from urllib.parse import quote

from kgcore.api import Citation, Reference

from .ask_view import sentence_link
from .markup_html import esc

#: Longest title in a short reference (tooltips).
SHORT_TITLE_CHARS = 60


def reference_short(ref: Reference) -> str:
    """``[label] First-author year — title`` (plain text, for tooltips; the title cut at :data:`SHORT_TITLE_CHARS`).

    >>> reference_short(Reference("ref-x", "", "Some entry without parsed fields that goes on"))
    'Some entry without parsed fields that goes on'
    """
    title = ref.title or ref.text
    title = title if len(title) <= SHORT_TITLE_CHARS else title[:SHORT_TITLE_CHARS - 1].rstrip() + "…"
    who = " ".join(p for p in (ref.first_author, ref.year) if p)
    head = " ".join(p for p in (f"[{ref.label}]" if ref.label else "", who) if p)
    return f"{head} — {title}" if head else title


def reference_html(ref: Reference) -> str:
    """One reference entry: label, title (bold), authors, year, venue and its arXiv id / DOI as links.

    Without a parsed title the entry's whole text is shown.

    >>> print(reference_html(Reference("ref-2", "", "Karpukhin 2020. DPR.", doi='10.1/x"y')))  # doctest: +ELLIPSIS
    <b>Karpukhin 2020. DPR.</b> · <a href="https://doi.org/10.1/x%22y" target="_blank">doi:10.1/x&quot;y</a>
    """
    head = (f'<span class="kg-reflabel">[{esc(ref.label)}]</span> ' if ref.label else "") + \
        f"<b>{esc(ref.title or ref.text)}</b>"
    if ref.title and ref.authors:
        head += f" — {esc(ref.authors)}"
    details = [esc(x) for x in (ref.year, ref.venue) if x and ref.title]
    if ref.arxiv:
        details.append(f'<a href="https://arxiv.org/abs/{quote(ref.arxiv)}" target="_blank">arXiv:{esc(ref.arxiv)}</a>')
    if ref.doi:
        details.append(f'<a href="https://doi.org/{quote(ref.doi)}" target="_blank">doi:{esc(ref.doi)}</a>')
    return head + "".join(f" · {d}" for d in details)


def citations_html(keys: Sequence[str], references: Iterable[Reference]) -> str:
    """The reference entries a sentence's citation markers resolved to, in the sentence's order.

    >>> html = citations_html(["ref-1", "ref-9"], [Reference("ref-1", "1", "[1] A. 2020. <T>.", title="<T>")])
    >>> print(html.replace("<li>", "\\n<li>"))
    <ul class="kg-refs">
    <li><span class="kg-reflabel">[1]</span> <b>&lt;T&gt;</b></li>
    <li><span class="kg-stat">ref-9</span> (not in the parsed reference list)</li></ul>
    """
    by_key = {r.key: r for r in references}
    items = []
    for key in dict.fromkeys(keys):
        ref = by_key.get(key)
        items.append(reference_html(ref) if ref else
                     f'<span class="kg-stat">{esc(key)}</span> (not in the parsed reference list)')
    return '<ul class="kg-refs">' + "".join(f"<li>{item}</li>" for item in items) + "</ul>"


def citing_html(hits: Sequence[Citation], collection: str, text_of: Callable[[str], str]) -> str:
    """The documents citing a work: each hit's document, the matched entry (title, year, score) and the citing
    sentences (ids linking to their source view, and their text from ``text_of``).

    >>> hit = Citation("pap", Reference("ref-1", "1", "...", year="2020", title="<RAG>"), 100.0, ("pap/text_0-7",))
    >>> html = citing_html([hit], "shelf", lambda sid: "RAG [1] conditions the model.")
    >>> 'href="sentence?doc=shelf&amp;sid=pap%2Ftext_0-7"' in html, "<b>&lt;RAG&gt;</b>" in html, "score 100" in html
    (True, True, True)
    >>> citing_html([], "shelf", str)
    '<div class="kg-empty">No document of this collection cites it.</div>'
    """
    out = []
    for hit in hits:
        ref = hit.reference
        year = f" ({esc(ref.year)})" if ref.year else ""
        out.append(f'<div class="kg-dochead">{esc(hit.document)} <span class="kg-stat">cites</span> '
                   f'<b>{esc(ref.title or ref.text)}</b>{year} <span class="kg-stat">score {hit.score:.0f} · '
                   f'{esc(ref.key)}</span></div>')
        out.extend(citing_sentence_html(collection, sid, text_of(sid)) for sid in hit.sentences)
        if not hit.sentences:
            out.append('<div class="kg-empty">Listed in its references, but no sentence marker resolved to it.</div>')
    return "".join(out) or '<div class="kg-empty">No document of this collection cites it.</div>'


def citing_sentence_html(collection: str, sid: str, text: str) -> str:
    """One citing sentence: its id linking to its source view, and its text (escaped)."""
    link = f'<a class="kg-sid" href="{esc(sentence_link(collection, sid))}" target="_blank">{esc(sid)}</a>'
    return f'<div class="kg-sent"><div class="kg-head">{link}</div><div class="kg-text">{esc(text)}</div></div>'


def context_roles(index, sentence_ids: Iterable[str]) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Each sentence's role and the works it cites (:func:`reference_short`), read from ``index`` (a loaded
    :class:`~kgcore.index.store.in_memory.Index`); what :attr:`ui.ask_view.SentenceView.roles` takes."""
    out: dict[str, tuple[str, tuple[str, ...]]] = {}
    entries: dict[str, dict[str, Reference]] = {}
    for sid in sentence_ids:
        if not index.has_sentence(sid):
            continue
        sentence = index.sentence(sid)
        if sentence.citations and sentence.doc_id not in entries:
            entries[sentence.doc_id] = {r.key: r for r in index.references(sentence.doc_id)}
        known = entries.get(sentence.doc_id, {})
        out[sid] = (sentence.role, tuple(reference_short(known[k]) if k in known else k for k in sentence.citations))
    return out
