"""A document's own vocabulary deciding the gaps and ligature codes :mod:`kgcore.index.pdf.glyphs` marked.

Once every page is read, the words the document prints whole (tokens with
no mark in them) are counted; :func:`restore_lines` then decides every
mark with them (:func:`kgcore.index.pdf.glyphs.restore_text`) and counts
what it restored, for the ingestion report.  A ligature code of an
encoding with two readings (T1 0x1B is "ff" or "oe") takes the reading
that makes more of the document's marked words known words.

>>> from kgcore.index.pdf.glyphs import STRONG_MARK, WEAK, CODE_BASE
>>> fi = chr(CODE_BASE + 0x0C - 0x0B)
>>> texts = [f"the chunk{STRONG_MARK}replicas", f"a chunk{WEAK}is small", "each chunk is a file",
...          f"the modi{fi}ed weights"]
>>> restored = restore_lines(texts)
>>> restored.texts
['the chunk replicas', 'a chunk is small', 'each chunk is a file', 'the modified weights']
>>> restored.gaps, restored.ligatures
(2, 1)
>>> restore_lines([f"{chr(CODE_BASE + 4)} The first point", f"e{chr(CODE_BASE + 4)}uent"]).texts
['• The first point', 'effluent']
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from kgcore.index.pdf.glyphs import CODE_BASE, CODE_MARKS, ENCODED, GAP_MARKS, MARKS, restore_text

_WORD = re.compile(r"[A-Za-z]+")
_BULLET, _BULLET_MARK = "•", chr(CODE_BASE + 0x0F - 0x0B)
_MARKED = re.compile(rf"[A-Za-z{MARKS}]*[{MARKS}][A-Za-z{MARKS}]*")


@dataclass(frozen=True)
class Restored:
    """The texts with every mark decided, and how many word gaps and ligatures were restored."""

    texts: list[str]
    gaps: int
    ligatures: int


#: A page is read again from its glyphs when it holds this many tokens that look like two words run together:
GLUED_TOKENS = 3
#: ... each half at least :data:`_HALF` letters and printed on its own at least :data:`_SEEN` times in the
#: document, and :data:`_RARER` times more often than the token itself ("chunkreplicas" 7 times, "chunk" and
#: "replicas" hundreds; "furthermore" 3 times, "further" 5).
_HALF, _SEEN, _RARER = 4, 3, 5


def glued_pages(texts: Sequence[str]) -> list[int]:
    """The indices of the texts (pages as their text layer spaces them) that look glued: that hold
    :data:`GLUED_TOKENS` tokens made of two words the document prints far more often on their own.

    Reading a page from its glyphs (:mod:`kgcore.index.pdf.glyphs`) costs twice reading its text, so only such
    pages are read so.

    >>> words = "the chunk holds replicas, the master keeps leases and a lease holds the chunk replicas. " * 5
    >>> glued_pages([words, "the chunkreplicas and masterkeeps holdsleases", "we outperform the chunk, however"])
    [1]
    """
    counts = Counter(w.lower() for text in texts for w in _WORD.findall(text))
    return [k for k, text in enumerate(texts)
            if sum(_glued(w, counts) for w in {w.lower() for w in _WORD.findall(text)}) >= GLUED_TOKENS]


#: Letters in the longest run tested for glue: two words of a real text (a hostile run of 400,000 letters would cost
#: minutes, each cut hashing both halves).
_LONGEST_GLUED = 40


def _glued(word: str, counts: Counter[str]) -> bool:
    if len(word) > _LONGEST_GLUED:
        return False
    return any(min(counts[word[:i]], counts[word[i:]]) >= max(_SEEN, _RARER * counts[word])
               for i in range(_HALF, len(word) - _HALF + 1))


def words_of(texts: Sequence[str]) -> Counter[str]:
    """The words (lower case) the texts print whole: tokens without a mark."""
    counts: Counter[str] = Counter()
    for text in texts:
        for token in text.split():
            if not any(m in token for m in MARKS):
                counts.update(w.lower() for w in _WORD.findall(token))
    return counts


def restore_lines(texts: Sequence[str]) -> Restored:
    """``texts`` (lines of one document) with gaps and codes decided by the document's own words."""
    if not any(m in text for text in texts for m in MARKS):
        return Restored(list(texts), 0, 0)
    plain = words_of(texts)
    codes = _readings(texts, lambda word: plain[word] > 0)
    ligatures = sum(t.count(m) for t in texts for m in CODE_MARKS)
    texts = [_apply(t, codes) for t in texts]
    vocab = words_of(texts)  # now with the words a ligature code was in

    def known(word: str) -> bool:
        return vocab[word] > 0

    out = restore_text(texts, known)
    gaps = sum(len(t.split()) for t in out) - sum(len(t.split()) for t in texts)
    ligatures += sum(_glyphs_restored(a, b) for a, b in zip(texts, out) if any(m in a for m in GAP_MARKS))
    return Restored(out, max(gaps, 0), ligatures)


def _apply(text: str, codes: dict[str, str]) -> str:
    """Each ligature code inside a word replaced by its letters; one standing alone is no ligature but a symbol
    font's glyph at the same code (TeX's math symbols put the bullet at 0x0F): a bullet, or nothing."""
    for mark, letters in codes.items():
        text = re.sub(rf"(?<![A-Za-z]){mark}(?![A-Za-z])", _BULLET if mark == _BULLET_MARK else "", text)
        text = text.replace(mark, letters)
    return text


def _readings(texts: Sequence[str], known) -> dict[str, str]:
    """Each ligature-code mark's letters: of its encoding's readings, the one that makes most marked words known."""
    marked = [m.group() for text in texts for m in _MARKED.finditer(text) if any(c in m.group() for c in CODE_MARKS)]
    codes: dict[str, str] = {}
    for code, readings in ENCODED.items():
        mark = chr(CODE_BASE + code - 0x0B)
        words = [w for w in marked if mark in w]
        if not words:
            continue
        score = {r: sum(known(_plain(w.replace(mark, r)).lower()) for w in words) for r in readings}
        codes[mark] = max(readings, key=lambda r: (score[r], -readings.index(r)))
    return codes


def _plain(word: str) -> str:
    return "".join(ch for ch in word if ch not in MARKS)


def _glyphs_restored(marked: str, restored: str) -> int:
    """Letters a restored line gained besides spaces (a dropped ligature put back), in ligatures (~2 letters)."""
    gained = len(restored.replace(" ", "")) - len(_plain(marked).replace(" ", ""))
    return max(gained, 0) // 2
