"""HTML fragments built from user-document text, always escaped.

Every string that comes from a document (sentences, node labels, answers)
passes through :func:`esc` before it is placed in HTML; markup is only ever
added around already-escaped pieces.  This module is pure (no streamlit).

>>> esc('<img src=x onerror="alert(1)">')
'&lt;img src=x onerror=&quot;alert(1)&quot;&gt;'
>>> highlight("Peter ate a <b>radish</b>.", ["radish"])
'Peter ate a &lt;b&gt;<mark class="kg-m">radish</mark>&lt;/b&gt;.'
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Iterable, Iterator, Sequence

#: Node texts that would mark almost every sentence and tell the reader nothing.
UNMARKABLE = frozenset(
    "a an the he she it they him her them his its their i me my we us our you your this that these those "
    "who whom which what there here one ones".split()
)
_LEADING_DETERMINER = re.compile(r"^(?:a|an|the|his|her|their|its|my|our|your|some)\s+", re.IGNORECASE)
MIN_TERM_CHARS = 2


def esc(text: object) -> str:
    """HTML-escape any value (quotes included) for element content and attributes.

    Line breaks become ``&#10;``: a blank line would end the HTML block that
    ``st.markdown`` passes through untouched, and Markdown after it would be
    interpreted (``![x](http://...)`` would load an image).  A colon before a
    name gets a word joiner (``&#8288;``, invisible): Streamlit rewrites
    ``:material/`` in the whole source, HTML included, and finds icons and
    emoji in any text outside HTML blocks.

    >>> esc("a\\n\\n![x](y)")
    'a&#10;&#10;![x](y)'
    >>> esc(":material/home: at 10:30")
    ':&#8288;material/home: at 10:30'
    """
    text = html.escape(str(text), quote=True).replace("\r", "&#13;").replace("\n", "&#10;")
    return _DIRECTIVE.sub(":&#8288;", text)


def term_variants(terms: Iterable[str]) -> list[str]:
    """Distinct, markable forms of node texts, longest first.

    A leading determiner is also stripped so ``the pie`` marks ``a pie``.

    >>> term_variants(["the pie", "he", "Mr. McGregor", "pie"])
    ['Mr. McGregor', 'the pie', 'pie']
    """
    seen: dict[str, str] = {}
    for term in terms:
        for form in (term.strip(), _LEADING_DETERMINER.sub("", term.strip())):
            key = form.lower()
            if len(form) >= MIN_TERM_CHARS and key not in UNMARKABLE and key not in seen:
                seen[key] = form
    return sorted(seen.values(), key=lambda t: (-len(t), t.lower()))


@functools.lru_cache(maxsize=8192)
def term_pattern(term: str) -> re.Pattern:
    """The whole-word, case-insensitive pattern of ``term``, compiled once per process (what
    :func:`find_spans` falls back on where lower-casing changes a text's length).

    >>> term_pattern("pie").findall("A pie, pies, PIE.")
    ['pie', 'PIE']
    """
    return re.compile(r"(?<!\w)" + re.escape(term) + r"(?!\w)", re.IGNORECASE)


def _word(char: str) -> bool:
    """Whether ``char`` is what ``\\w`` matches (a letter, a digit or ``_``)."""
    return char.isalnum() or char == "_"


def _occurrences(lowered: str, needle: str) -> Iterator[tuple[int, int]]:
    """Whole-word occurrences of ``needle`` in ``lowered`` (both lower-cased), left to right, not overlapping:
    what ``term_pattern(needle).finditer`` finds, without compiling a pattern for every term (a context of 200
    sentences marks some 25 terms in each, and compiling them took most of the Ask page's sentence list)."""
    start = lowered.find(needle)
    while start >= 0:
        end = start + len(needle)
        if (start == 0 or not _word(lowered[start - 1])) and (end == len(lowered) or not _word(lowered[end])):
            yield start, end
            start = lowered.find(needle, end)
        else:
            start = lowered.find(needle, start + 1)


def find_spans(text: str, terms: Sequence[str]) -> list[tuple[int, int]]:
    """Non-overlapping (start, end) spans of whole-word, case-insensitive term matches.

    Longer terms win over shorter ones that overlap them.

    >>> find_spans("Mrs. McGregor baked a pie; pies!", ["McGregor", "pie"])
    [(5, 13), (22, 25)]
    >>> find_spans("İstanbul's pie", ["pie"])  # lower-casing "İ" adds a character: the pattern finds it
    [(11, 14)]
    >>> find_spans("a pie", ["", "pie"])  # an empty term marks nothing
    [(2, 5)]
    """
    lowered = text.lower()
    taken: list[tuple[int, int]] = []
    for term in sorted(set(terms), key=len, reverse=True):
        needle = term.lower()
        if not needle:
            continue
        if len(lowered) == len(text) and len(needle) == len(term):
            found: Iterable[tuple[int, int]] = _occurrences(lowered, needle)
        else:
            found = ((m.start(), m.end()) for m in term_pattern(term).finditer(text))
        for start, end in found:
            if not any(start < t_end and t_start < end for t_start, t_end in taken):
                taken.append((start, end))
    return sorted(taken)


def highlight(text: str, terms: Iterable[str], selected: Iterable[str] = ()) -> str:
    """``text`` escaped, with every occurrence of ``terms`` wrapped in ``<mark>``.

    Occurrences of ``selected`` terms get the ``kg-sel`` class (the match the
    user picked in a table).  Spans are found on the raw text and every
    piece is escaped separately, so markup can never come from the text.

    >>> highlight("He put it in a pie.", ["pie"], selected=["put"])
    'He <mark class="kg-sel">put</mark> it in a <mark class="kg-m">pie</mark>.'
    >>> highlight("<script>alert(1)</script>", ["script"])
    '&lt;<mark class="kg-m">script</mark>&gt;alert(1)&lt;/<mark class="kg-m">script</mark>&gt;'
    """
    chosen = term_variants(selected)
    plain = [t for t in term_variants(terms) if t.lower() not in {c.lower() for c in chosen}]
    spans = find_spans(text, chosen + plain)
    chosen_lower = {c.lower() for c in chosen}
    out, pos = [], 0
    for start, end in spans:
        css = "kg-sel" if text[start:end].lower() in chosen_lower else "kg-m"
        out.append(esc(text[pos:start]))
        out.append(f'<mark class="{css}">{esc(text[start:end])}</mark>')
        pos = end
    out.append(esc(text[pos:]))
    return "".join(out)


def anchor_id(sentence_id: str, prefix: str = "s") -> str:
    """A safe HTML id for a sentence id (sentence ids are ``text_{c}-{i}``).

    >>> anchor_id("text_0-12")
    's-text_0-12'
    >>> anchor_id('x"><script>')
    's-x---script-'
    """
    return f"{prefix}-" + re.sub(r"[^A-Za-z0-9_-]", "-", sentence_id)


def badge(text: str, css: str = "kg-badge", title: str = "") -> str:
    """A small inline label.

    >>> badge("<b>", title="t")
    '<span class="kg-badge" title="t">&lt;b&gt;</span>'
    """
    tip = f' title="{esc(title)}"' if title else ""
    return f'<span class="{esc(css)}"{tip}>{esc(text)}</span>'


def counted(n: int, noun: str, plural: str = "") -> str:
    """``n`` and the noun, singular for one.

    >>> counted(1, "sentence"), counted(1498, "sentence"), counted(0, "entity", "entities")
    ('1 sentence', '1,498 sentences', '0 entities')
    """
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


# Characters that start inline markup (emphasis, links, images, code, HTML, maths, tables).
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|<>~$])")
#: Invisible and zero-width: put after a colon, no Streamlit pattern can start there.
WORD_JOINER = "\u2060"
# A colon that starts a Streamlit directive, icon or emoji: ``:red[``, ``:material/home:``, ``:smile:``, ``:+1:``,
# ``:100:``.  Streamlit finds icons and emoji in the text *after* Markdown escapes are read, so a backslash
# cannot hide them; a word joiner after the colon does (times like 10:30 are left alone).
_DIRECTIVE = re.compile(r":(?=[A-Za-z_+\-]|[0-9][\w+\-]*:)")
# Words Streamlit turns into symbols in text (-> becomes an arrow, -- a dash, >= a sign).
_TYPOGRAPHIC = re.compile(r"(?<!\S)(<->|->|<-|--|>=|<=|~=)(?!\S)")


def md_escape(text: object) -> str:
    r"""Escape user text for ``st.markdown``/``st.error``/``st.caption`` so that it is shown as written.

    Without this a file called ``![x](http://host/a.png).txt`` would make the
    browser fetch an image when its error message is shown.  Markdown is
    backslash-escaped; Streamlit's own syntax (``:red[text]`` colours,
    ``:material/icon:`` icons, ``:smile:`` emoji, ``->`` arrows) gets an
    invisible word joiner (:data:`WORD_JOINER`) after its colon or inside
    its arrow, so nothing of it can form.

    >>> print(md_escape("![x](http://h/a.png) <b>"))
    \!\[x\]\(http://h/a.png\) \<b\>
    >>> md_escape(":red[alarm] :material/home: :smile: at 10:30, note: fine").replace(WORD_JOINER, "+")
    ':+red\\[alarm\\] :+material/home: :+smile: at 10:30, note: fine'
    >>> md_escape("a -> b").replace(WORD_JOINER, "+")
    'a -+\\> b'
    """
    text = _TYPOGRAPHIC.sub(lambda m: WORD_JOINER.join(m.group()), str(text))
    return _MD_SPECIAL.sub(r"\\\1", _DIRECTIVE.sub(":" + WORD_JOINER, text))


def changed_words(before: str, after: str) -> str:
    """``after`` escaped, with the words that differ from ``before`` marked (coref replacements).

    >>> changed_words("He ran.", "Peter ran.")
    '<mark class="kg-m">Peter</mark> ran.'
    """
    import difflib

    old, new = re.findall(r"\S+|\s+", before), re.findall(r"\S+|\s+", after)
    out = []
    for op, _, _, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        piece = esc("".join(new[j1:j2]))
        out.append(piece if op == "equal" or not piece.strip() else f'<mark class="kg-m">{piece}</mark>')
    return "".join(out)
