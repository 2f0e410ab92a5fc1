"""Joining a block's lines into text: line-end hyphenation undone only where the joined form is a word.

A word broken at a line end ("lan-" / "guage") is joined when the
document itself uses the joined word elsewhere, and kept hyphenated when
it uses the hyphenated form inside a line ("multi-hop", "state-of-the-art",
"GPT-4") or the second part cannot be a word's tail (a digit, a capital).
When the document shows neither, a lower-case tail after a prefix that is
not itself a word of the document is joined ("gen-" / "eration"); a known
word before the hyphen keeps it ("long-" / "range").  The evidence is the
document's own vocabulary, so the rule carries over to papers it has never
seen.

>>> vocab = Vocabulary.of(["language models use language", "a multi-hop retriever", "the long range", "Large lan-"])
>>> join_lines(["Large lan-", "guage models are multi-", "hop reasoners over long-", "range text"], vocab)
'Large language models are multi-hop reasoners over long-range text'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")
_HYPHENATED = re.compile(r"\b[A-Za-z]+(?:-[A-Za-z0-9]+)+\b")
_BROKEN = re.compile(r"([A-Za-z]+(?:-[A-Za-z0-9]+)*)-$")


@dataclass
class Vocabulary:
    """The words of a document, and the hyphenated words it writes inside a line."""

    words: set[str] = field(default_factory=set)
    hyphenated: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, lines: Iterable[str]) -> Vocabulary:
        vocab = cls()
        for line in lines:
            body = line.rstrip()
            if body.endswith("-"):  # the fragment before a line-end hyphen is no evidence of a word
                body = _BROKEN.sub("", body)
            vocab.words.update(w.lower() for w in _WORD.findall(body))
            vocab.hyphenated.update(h.lower() for h in _HYPHENATED.findall(body))
        return vocab


def join_lines(lines: Sequence[str], vocab: Vocabulary, starts: list[int] | None = None) -> str:
    """The lines of one block as one text (see the module docstring for hyphens).

    ``starts``, when given, receives the offset in the text where each line begins.
    """
    text = ""
    for line in (line.strip() for line in lines):
        if not text:
            text = line
        else:
            broken = _BROKEN.search(text)
            if broken and line[:1].isalpha():
                text = text[:-1] + ("" if _join(broken.group(1), _first_word(line), vocab) else "-")
            elif line:
                text += " "
            text += line
        if starts is not None:
            starts.append(len(text) - len(line))
    return text


def _first_word(line: str) -> str:
    found = _WORD.match(line)
    return found.group() if found else ""


def _join(prefix: str, tail: str, vocab: Vocabulary) -> bool:
    """Whether "prefix-" at a line end and "tail" at the next line's start are one word broken in two."""
    if not tail or not tail[0].islower():
        return False
    last = prefix.split("-")[-1]
    joined, hyphenated = (last + tail).lower(), f"{prefix}-{tail}".lower()
    if hyphenated in vocab.hyphenated or f"{last}-{tail}".lower() in vocab.hyphenated:
        return False
    if joined in vocab.words:
        return True
    return "-" not in prefix and last.lower() not in vocab.words
