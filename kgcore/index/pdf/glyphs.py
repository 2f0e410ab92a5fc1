"""A line's text read from its glyphs: word gaps restored from glyph positions, lost ligatures restored.

Some text layers have no space glyphs: PDFium (and so pdftext) then adds a
space only where the gap between two glyphs passes its own threshold, and
words set closer than that are glued ("chunkreplicas", "havea").  Older TeX
PDFs also set ligatures in fonts without a text mapping: the glyph comes out
as its raw code (OT1 puts "ff" at 0x0B, so "di\\x0berent") or, where the
code is a line break, as nothing but a gap ("re ect").

:func:`line_text` reads a line from its characters and marks, instead of
deciding, every gap without a space that is wide for its line: wider than
:data:`MIN_GAP_EM` of the font size above the line's typical gap between
glyphs, and than :data:`WORD_GAP_SHARE` of the line's own word gaps (a
tightly set line has narrow word gaps, a letter-spaced title wide gaps
everywhere).  Unmapped ligature codes are kept as marks too.  Once every page
is read, :func:`kgcore.index.pdf.vocab.restore_lines` decides each mark with
the document's own vocabulary (:func:`restore_text`): a gap becomes a space
unless the document prints the glued form whole elsewhere, and a weak gap
needs both halves to be words of the document; a code becomes the one
ligature its font encoding or the vocabulary allows.

>>> def char(c, x0, x1, size=10.0):
...     return {"char": c, "bbox": [x0, 100, x1, 110], "font": {"size": size, "name": "Times"}}
>>> def word(text, x0):
...     return [char(c, x0 + 5 * i, x0 + 5 * i + 5) for i, c in enumerate(text)]
>>> line = word("have", 0) + [char(" ", 20, 23)] + word("a", 23) + word("very", 31)  # "a" to "very": 3 pt
>>> restore_text([line_text([{"chars": line}])], lambda word: word in {"have", "a", "very"})
['have a very']
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Sequence

#: Least gap (above the line's typical gap between glyphs) that may be a word gap, in font sizes.
MIN_GAP_EM = 0.08
#: ... and its least share of the line's median word gap (the gaps where a space is).
WORD_GAP_SHARE = 0.25
#: A line without any space: its word gaps are unknown, so a gap must pass this many font sizes.
NO_SPACE_GAP_EM = 0.15
#: A gap this many times the threshold is a word gap whatever the vocabulary says (it is no kerning).
STRONG = 2.0
#: A gap at least this many font sizes wide inside a word may hold a glyph PDFium dropped (a ligature).
GLYPH_GAP_EM = 0.35
#: A font size below this is a font matrix's scale, not a size (Type 3 fonts): the glyphs' height is used.
MIN_FONT_SIZE = 3.0
WEAK, STRONG_MARK, GLYPH_MARK, JOIN = "\ufdd0", "\ufdd1", "\ufdd2", "\ufdd3"
#: A space PDFium generated where the glyphs on either side touch (a kerned "ob jectively"): kept only when both
#: halves are words of the document and the joined form is not.
GAP_MARKS = WEAK + STRONG_MARK + GLYPH_MARK + JOIN
#: Ligature codes of the TeX text encodings a font without a text mapping leaves raw (OT1: 0x0B-0x0F;
#: T1/Cork: 0x1B-0x1F, where OT1 has oe, o-slash, AE, OE, O-slash), each kept as a mark U+FDE0 + code - 0x0B
#: until the document's vocabulary picks one.
ENCODED = {0x0B: ("ff",), 0x0C: ("fi",), 0x0D: ("fl",), 0x0E: ("ffi",), 0x0F: ("ffl",),
           0x1B: ("ff", "oe"), 0x1C: ("fi", "o"), 0x1D: ("fl", "ae"), 0x1E: ("ffi", "oe"), 0x1F: ("ffl", "o")}
CODE_BASE = 0xFDE0
CODE_MARKS = "".join(chr(CODE_BASE + code - 0x0B) for code in ENCODED)
MARKS = GAP_MARKS + CODE_MARKS
LIGATURES = ("ff", "fi", "fl", "ffi", "ffl")
_SPACES = frozenset(" \t\n\r\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u200b\u202f")
#: No word gap before closing punctuation or after an opening bracket.
_NO_GAP_AFTER, _NO_GAP_BEFORE = "([{\"'“‘/-–", ".,;:!?)]}\"'”’/-–%"


_CODE_IN_WORD = re.compile("|".join(rf"(?<=[A-Za-z]){chr(c)}|{chr(c)}(?=[A-Za-z])" for c in ENCODED))


def ligature_codes(text: str) -> int:
    """How many raw ligature codes (:data:`ENCODED`) stand inside or against a word in ``text`` (a symbol font's
    glyph at the same code stands apart: "= k \x1c |C|").

    >>> ligature_codes("di\x0berent \x0cnd = k \x1c |C|")
    2
    """
    return len(_CODE_IN_WORD.findall(text))


def line_text(spans: Sequence[dict]) -> str:
    """The line's text from its spans' characters (pdftext ``keep_chars``), with wide gaps and unmapped ligature
    codes marked (module docstring); a span without characters gives its text."""
    chars = [c for span in spans for c in span.get("chars", ())]
    if not chars:
        return "".join(span.get("text", "") for span in spans)
    glyphs = [c for c in chars if c["char"] not in _SPACES and c["char"] != "\x02"]
    height = _height(glyphs)
    gaps, word_gaps = _gaps(chars, height)
    typical = statistics.median(g for g, _ in gaps) if gaps else 0.0
    known = [g - typical for g, _ in word_gaps]
    out: list[str] = []
    previous: dict | None = None
    last: dict | None = None  # the last glyph, across spaces
    generated = False  # the spaces since it are only PDFium's zero-width ones
    for c in chars:
        ch = c["char"]
        if ch == "\x02":
            out.append("-")
        elif ch in _SPACES:
            generated = (previous is not None or generated) and c["bbox"][2] - c["bbox"][0] < 0.05
            out.append(" ")
        elif _placeholder(c):
            out.append(chr(CODE_BASE + ord(ch) - 0x0B))
        else:
            if previous is not None and out and out[-1] != " ":
                out.append(_mark(previous, c, typical, known, height))
            elif generated and last is not None and out[-1:] == [" "] and _touching(last, c, typical, height):
                out[-1] = JOIN
            out.append(ch)
            last, generated = c, False
        previous = c if ch not in _SPACES else None
    return "".join(out)


def _touching(a: dict, b: dict, typical: float, height: float) -> bool:
    """Whether letters ``a`` and ``b`` stand no wider apart than letters inside a word do."""
    em = max(_em(a, height), _em(b, height))
    gap = (b["bbox"][0] - a["bbox"][2]) / em - typical
    return a["char"].isalpha() and b["char"].isalpha() and gap < MIN_GAP_EM / 2


def _height(glyphs: Sequence[dict]) -> float:
    boxes = [c["bbox"] for c in glyphs]
    return max(b[3] for b in boxes) - min(b[1] for b in boxes) if boxes else 0.0


def _em(c: dict, height: float) -> float:
    size = float((c.get("font") or {}).get("size") or 0.0)
    return size if size >= MIN_FONT_SIZE else max(height, 1.0)


def _gaps(chars: Sequence[dict], height: float) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """(gap, em) between adjacent glyphs with nothing between, and across one space, in font sizes."""
    within: list[tuple[float, float]] = []
    across: list[tuple[float, float]] = []
    previous, spaced = None, False
    for c in chars:
        if c["char"] in _SPACES or c["char"] == "\x02":
            spaced = True
            continue
        if previous is not None:
            em = max(_em(previous, height), _em(c, height))
            (across if spaced else within).append(((c["bbox"][0] - previous["bbox"][2]) / em, em))
        previous, spaced = c, False
    return within, across


def _mark(a: dict, b: dict, typical: float, known: list[float], height: float) -> str:
    """The mark for the gap between glyphs ``a`` and ``b`` ("" when it is no word gap)."""
    if a["char"] in _NO_GAP_AFTER or b["char"] in _NO_GAP_BEFORE:
        return ""
    em = max(_em(a, height), _em(b, height))
    gap = (b["bbox"][0] - a["bbox"][2]) / em - typical
    threshold = max(MIN_GAP_EM, WORD_GAP_SHARE * statistics.median(known)) if known else NO_SPACE_GAP_EM
    if gap < threshold:
        return ""
    if gap >= GLYPH_GAP_EM and a["char"].isalpha() and b["char"].isalpha():
        return GLYPH_MARK if gap >= STRONG * threshold else STRONG_MARK
    return STRONG_MARK if gap >= STRONG * threshold else WEAK


def _placeholder(c: dict) -> bool:
    """A glyph whose font gives no text but its raw code, at a ligature's place in a TeX encoding."""
    box = c["bbox"]
    return ord(c["char"]) in ENCODED and box[2] - box[0] > 0.5


_RUN = re.compile(rf"[A-Za-z{MARKS}]+")


def restore_text(texts: Sequence[str], known: Callable[[str], bool],
                 codes: dict[str, str] | None = None) -> list[str]:
    """``texts`` with every mark decided: ``known(word)`` says whether the document prints ``word`` whole
    (lower case); ``codes`` maps a ligature-code mark to its letters (absent: dropped)."""
    codes = codes or {}

    def run(match: re.Match) -> str:
        return _decide(match.group(), known, codes)

    return [_RUN.sub(run, text).translate(_DROP) for text in texts]


_DROP = str.maketrans(dict.fromkeys(MARKS))


def _decide(run: str, known: Callable[[str], bool], codes: dict[str, str]) -> str:
    """One run of letters and marks with its gaps decided (see the module docstring)."""
    run = "".join(codes.get(ch, ch) if ch in CODE_MARKS else ch for ch in run)
    if not any(m in run for m in GAP_MARKS):
        return run
    joined = re.sub(f"[{GAP_MARKS}]", "", run)
    if known(joined.lower()):
        return joined
    pieces = re.split(f"([{GAP_MARKS}])", run)
    out = pieces[0]
    for mark, piece in zip(pieces[1::2], pieces[2::2]):
        left = re.split(f"[ {GAP_MARKS}]", out)[-1]
        out += _join(left, mark, piece, known) + piece
    return out


def _join(left: str, mark: str, right: str, known: Callable[[str], bool]) -> str:
    """What goes between ``left`` and ``right`` at a marked gap: a space, nothing, or a dropped ligature."""
    if mark == GLYPH_MARK or mark == STRONG_MARK:
        found = [lig for lig in LIGATURES if known((left + lig + right).lower())]
        if len(found) == 1 and left and right:
            return found[0]
    if mark == JOIN:
        return " " if not left or not right or known(left.lower()) and known(right.lower()) else ""
    if mark != WEAK or not left or not right:
        return " "
    if right[0].isupper() and (left[-1].islower() or right[1:2].islower()):
        return " "  # "Retrieved|Docs", "K|Retrieved": a capital opening a word (the glued form is no word)
    return " " if known(left.lower()) and known(right.lower()) else ""
