"""Pure builders for a sentence's source view: where it comes from, its paragraph with the sentence marked,
and what its role means for retrieval (all document text escaped).

>>> from kgcore.index.source import Passage
>>> p = Passage("d/text_0-2", "d", "d.txt", "He ran. He hid <here>.", 8, 22, "CHAPTER I", 0, "body")
>>> passage_html(p)
'<div class="kg-passage">He ran. <mark class="kg-here">He hid &lt;here&gt;.</mark></div>'
"""

from __future__ import annotations

from typing import Literal

from kgcore.index.source import Passage

from .labels import ROLE_LABELS, label
from .markup import esc, md_escape


def passage_html(p: Passage) -> str:
    """The paragraph around a sentence, the sentence marked (``start`` -1: not located, shown unmarked)."""
    text = p.paragraph
    if p.start < 0 or p.end <= p.start:
        return f'<div class="kg-passage">{esc(text)}</div>'
    return (f'<div class="kg-passage">{esc(text[:p.start])}<mark class="kg-here">{esc(text[p.start:p.end])}</mark>'
            f'{esc(text[p.end:])}</div>')


def context_html(text: str) -> str:
    """A neighbouring paragraph, dimmed.

    >>> context_html("<b>Before.</b>")
    '<div class="kg-passage kg-context">&lt;b&gt;Before.&lt;/b&gt;</div>'
    """
    return f'<div class="kg-passage kg-context">{esc(text)}</div>'


def source_caption(p: Passage, collection: str) -> str:
    """Where the sentence is (markdown, text escaped): document, file, page, section.

    >>> from kgcore.index.source import Passage
    >>> print(source_caption(Passage("d/text_0-2", "d", "d*.pdf", "", 0, 0, "[I]", 4, "body"), "shelf"))
    Document **d** of collection **shelf** · file *d\\*.pdf* · page 4 · section “\\[I\\]”
    """
    parts = [f"Document **{md_escape(p.doc_id or '?')}** of collection **{md_escape(collection)}**"]
    if p.source_file:
        parts.append(f"file *{md_escape(p.source_file)}*")
    if p.page:
        parts.append(f"page {p.page}")
    if p.section:
        parts.append(f"section “{md_escape(p.section)}”")
    return " · ".join(parts)


def role_note(role: str) -> tuple[Literal["info"], str] | None:
    """What to say about a sentence that is not body text (it is kept out of retrieval by default).

    >>> role_note("body") is None, role_note("heading")[1][:42]
    (True, 'This sentence is a **heading**: it is kept')
    """
    if role in ("", "body"):
        return None
    return "info", (f"This sentence is a **{label(ROLE_LABELS, role)}**: it is kept out of retrieval by default "
                    "(turn on *Include front matter* on the Ask page to let it into the context).")


def paragraph_counts(paragraphs, doc_id: str, number: int) -> str:
    """Which paragraph of the document this is.

    >>> paragraph_counts([1, 2, 3], "d", 1)
    'Paragraph 2 of 3 of d'
    """
    return f"Paragraph {number + 1} of {len(paragraphs)} of {doc_id}" if 0 <= number < len(paragraphs) else ""
