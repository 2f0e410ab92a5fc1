"""Pure builders for a sentence's source view: where it comes from, its paragraph with the sentence marked, its
role and section path and what the role means for retrieval, tables as tables (all document text escaped).

>>> from kgcore.index.views.source import Passage
>>> p = Passage("d/text_0-2", "d", "d.txt", "He ran. He hid <here>.", 8, 22, "CHAPTER I", 0, "body")
>>> passage_html(p)
'<div class="kg-passage">He ran. <mark class="kg-here">He hid &lt;here&gt;.</mark></div>'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from kgcore.api import BODY, CAPTION, OPT_IN, RETRIEVABLE, TABLE, Paragraph, Passage

from .labels import ROLE_LABELS, label
from .markup_html import esc, md_escape
from .roles_view import retrieval_of


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

    >>> from kgcore.index.views.source import Passage
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
    """What to say about a sentence that retrieval treats differently from body text (None: it is retrieved).

    >>> role_note("body") is None, role_note("caption") is None, role_note("heading")[1][:42]
    (True, True, 'This sentence is a **heading**: it is kept')
    >>> role_note("table")[1][:60]
    'This sentence is a **table**: it is kept and shown here, but'
    """
    if role in ("", BODY) or role in RETRIEVABLE:
        return None
    name = label(ROLE_LABELS, role)
    if role in OPT_IN:
        return "info", (f"This sentence is a **{name}**: it is kept out of retrieval by default "
                        "(turn on *Include front matter* on the Ask page to let it into the context).")
    return "info", (f"This sentence is a **{name}**: it is kept and shown here, but never retrieved (tables, "
                    "equations, figure text, running headers and reference entries stay out of every context).")


def role_line(role: str) -> str:
    """The sentence's role and what retrieval does with it (markdown).

    >>> role_line("caption"), role_line("")
    ('Role: **caption** (retrieved)', 'Role: **body text** (retrieved)')
    """
    return f"Role: **{label(ROLE_LABELS, role or BODY)}** ({retrieval_of(role or BODY)})"


def table_html(rows: Sequence[Sequence[str]], mark: str = "") -> str:
    """A table paragraph's rows × cells as an HTML table (cells escaped); the row that reads ``mark`` is marked.

    >>> print(table_html([["Method", "F1"], ["<Graph>", "55.0"]], mark="<Graph> 55.0").replace("<tr", "\\n<tr"))
    <table class="kg-table"><tbody>
    <tr><td>Method</td><td>F1</td></tr>
    <tr class="kg-here"><td>&lt;Graph&gt;</td><td>55.0</td></tr></tbody></table>
    """
    wanted = " ".join(mark.split())
    body = []
    for row in rows:
        here = ' class="kg-here"' if wanted and " ".join(" ".join(row).split()) == wanted else ""
        body.append(f"<tr{here}>" + "".join(f"<td>{esc(cell)}</td>" for cell in row) + "</tr>")
    return f'<table class="kg-table"><tbody>{"".join(body)}</tbody></table>'


def caption_table(paragraphs: Sequence[Paragraph], number: int) -> int | None:
    """The table paragraph a caption introduces: the one after it (or before it, for a caption printed under its
    table); None for other paragraphs, figure captions and captions with no table beside them.

    >>> T = Paragraph("a b", "table", table=(("a", "b"),))
    >>> ps = [Paragraph("Table 1: Scores.", "caption"), T, Paragraph("Figure 2: A graph.", "caption"), T]
    >>> caption_table(ps, 0), caption_table(ps, 1), caption_table(ps, 2)
    (1, None, None)
    """
    if not 0 <= number < len(paragraphs) or paragraphs[number].kind != CAPTION:
        return None
    if paragraphs[number].text.lstrip().lower().startswith("fig"):
        return None
    for other in (number + 1, number - 1):
        if 0 <= other < len(paragraphs) and paragraphs[other].kind == TABLE and paragraphs[other].table:
            return other
    return None


def paragraph_counts(paragraphs, doc_id: str, number: int) -> str:
    """Which paragraph of the document this is.

    >>> paragraph_counts([1, 2, 3], "d", 1)
    'Paragraph 2 of 3 of d'
    """
    return f"Paragraph {number + 1} of {len(paragraphs)} of {doc_id}" if 0 <= number < len(paragraphs) else ""
