"""Paragraphs in reading order, joined again where a column, page, figure or display-math break cut them.

A paper's sentence often runs on past a break: to the next column or page,
around a figure or a display equation.  No sentence starts in lower case, so
a prose fragment that does (or that opens with ",", ")" or a bracket)
continues the last unfinished prose paragraph -- when it is set in the same
size.  Text inside a figure is set in its own size (a plot's labels, a
diagram's boxes scaled with the image): it never continues the prose around
it, and a fragment of it that starts in lower case and continues nothing is
the text of a figure, not a sentence.  Footnotes and captions cut by a break
are joined the same way; prose that a role rule took for a short figure
label ("Answer verification. We trained" over one line), or for an equation
for its math, takes the role of the prose that continues it.

>>> from kgcore.core.document import Paragraph
>>> from kgcore.index.pdf.words import Vocabulary
>>> flow = Flow(Vocabulary.of([]), body_size=10.0)
>>> flow.add(BODY, Paragraph("When working with models that", BODY), 10.0)
>>> flow.add(BODY, Paragraph("the University, where he earned", BODY), 1.0)   # a figure's text, scaled
>>> flow.add(FIGURE, Paragraph("Figure 2: An illustration.", FIGURE), 10.0)
>>> flow.add(BODY, Paragraph("offer only API access, we prompt them.", BODY), 10.0)
>>> [(p.kind, p.text) for p in flow.out]  # doctest: +NORMALIZE_WHITESPACE
[('body', 'When working with models that offer only API access, we prompt them.'),
 ('figure', 'the University, where he earned'), ('figure', 'Figure 2: An illustration.')]
"""

from __future__ import annotations

import re
from dataclasses import replace

from kgcore.core.document import Paragraph
from kgcore.core.types import (
    ABSTRACT,
    APPENDIX,
    BODY,
    CAPTION,
    EQUATION,
    FIGURE,
    FOOTNOTE,
    HEADING,
    LIST_ITEM,
    TITLE,
)
from kgcore.index.pdf.words import Vocabulary, join_lines

#: Roles of prose that may run on across a column, page or figure break.
PROSE = frozenset({BODY, ABSTRACT, APPENDIX, LIST_ITEM})
#: Points two paragraphs' sizes may differ by and still be one paragraph (the footnote rule's margin) ...
SAME_SIZE = 0.75
#: ... or this share of the larger size (an address set a point smaller in a typewriter font).
SAME_SIZE_SHARE = 0.12
#: Words (of three letters or more) that make a paragraph read as an equation for its math prose.
PROSE_WORDS = 6
#: Prose set this many times the body's size is the text of a figure (a plot's labels scaled with it).
FIGURE_SCALE = 1.5
_SENTENCE_END = (".", "?", "!", ":", '."', ".”", ".)")
_NON_FINAL = re.compile(r"\b(?:et al|e\.g|i\.e|cf|vs|Figs?|Eqs?|Secs?|Tab)\.$")
#: A prose fragment starting with one of these runs on from before (text after inline math, a footnote mark).
_RUNS_ON = ",;:)]"
#: ... and so does one whose first word, inside opening quotes, is in lower case ('“of”)). The model ...').
_QUOTED_LOWER = re.compile(r"^[\"'“‘]+[a-z]")


def finished(text: str) -> bool:
    """Whether ``text`` ends a sentence ("... et al." and "... Fig." do not).

    >>> finished("It works."), finished("as shown by Lewis et al."), finished("It works")
    (True, False, False)
    """
    return text.endswith(_SENTENCE_END) and not _NON_FINAL.search(text)


def _wordy(text: str) -> bool:
    """Whether ``text`` holds :data:`PROSE_WORDS` words of three letters or more (prose, not a formula)."""
    return len(re.findall(r"\b[A-Za-z]{3,}\b", text)) >= PROSE_WORDS


def alike(a: float, b: float) -> bool:
    """Whether font sizes ``a`` and ``b`` are one size (:data:`SAME_SIZE`, :data:`SAME_SIZE_SHARE`).

    >>> alike(10.9, 10.5), alike(10.0, 9.0), alike(10.9, 9.0), alike(10.9, 1.0)
    (True, True, False, False)
    """
    return abs(a - b) <= max(SAME_SIZE, SAME_SIZE_SHARE * max(a, b))


class Flow:
    """Paragraphs in reading order (``out``), each added with its role and font size (see the module docstring)."""

    def __init__(self, vocab: Vocabulary, body_size: float) -> None:
        self.vocab = vocab
        self.body_size = body_size
        self.out: list[Paragraph] = []
        self.sizes: list[float] = []
        self.open_prose: int | None = None  # a prose paragraph whose sentence runs on past a break
        self.last: dict[str, int] = {}  # the last paragraph of each role (prose under PROSE), even across a heading

    def add(self, role: str, paragraph: Paragraph, size: float) -> None:
        first = paragraph.text[:1]
        runs_on = (first.islower() or first in _RUNS_ON or (first in "([" and role != LIST_ITEM)
                   or _QUOTED_LOWER.match(paragraph.text) is not None)
        key = "prose" if role in PROSE else role
        last = self.last.get(key)
        text = self.out[last].text if last is not None else ""
        unfinished = last is not None and (not finished(text) or key == "prose" and text.endswith(":"))
        if role in PROSE and self.open_prose is None and runs_on and unfinished and self._alike(last, size):
            self.open_prose = last  # no sentence starts in lower case: a figure label or display math came between
        if (role in PROSE and self.open_prose is not None and (first.isalnum() or runs_on)
                and self._alike(self.open_prose, size)):
            self.join(self.open_prose, paragraph)
        elif role in (FOOTNOTE, CAPTION) and runs_on and unfinished and last is not None:
            self.join(last, paragraph)  # a footnote or caption cut by a column or page break
        elif role in PROSE and first.islower() and self._cut_aside():
            self._prose_after_aside(role, paragraph, size)
        elif role == TITLE and self.out and self.out[-1].kind == TITLE:
            self.join(len(self.out) - 1, paragraph)  # a title set over several lines
        elif role in (BODY, APPENDIX) and (first.islower() and not alike(size, self.body_size)
                                           or size >= FIGURE_SCALE * self.body_size):
            self.append(replace(paragraph, kind=FIGURE), size)  # a figure's text: it continues nothing
        else:
            self.append(paragraph, size)
            body = alike(size, self.body_size)  # prose in another size leaves the body's sentence open
            if key != "prose" or body or key not in self.last:
                self.last[key] = len(self.out) - 1
            if role in PROSE and (self.open_prose is None or body):
                self.open_prose = len(self.out) - 1
            elif role == HEADING:
                self.open_prose = None
        if self.open_prose is not None and finished(self.out[self.open_prose].text):
            self.open_prose = None

    def _alike(self, at: int | None, size: float) -> bool:
        """Whether paragraph ``at`` is set in ``size`` (:func:`alike`)."""
        return at is not None and alike(self.sizes[at], size)

    def _cut_aside(self) -> bool:
        """Whether the paragraph just before is a footnote, caption or figure text whose sentence is unfinished
        (an abstract set small, "... without redoing" / "the proof-of-work."), or a line of prose read as an
        equation for its math ("Multiple-choice QA can be formulated as {(q′, a)i}, ... c denotes")."""
        if not self.out or finished(self.out[-1].text) or not self.out[-1].text[-1:].isalpha():
            return False
        kind = self.out[-1].kind
        return kind in (FOOTNOTE, CAPTION, FIGURE) or kind == EQUATION and _wordy(self.out[-1].text)

    def _prose_after_aside(self, role: str, paragraph: Paragraph, size: float) -> None:
        """Prose set smaller (read as a footnote) runs on in body size; prose in the body's size read as a short
        figure label ("Answer verification. We trained" over one line) is prose again, open for what runs on."""
        at = len(self.out) - 1
        self.join(at, paragraph)
        if self.out[at].kind in (FIGURE, EQUATION) and self._alike(at, size) and alike(size, self.body_size):
            self.out[at] = replace(self.out[at], kind=role)
            self.last["prose"] = self.open_prose = at

    def append(self, paragraph: Paragraph, size: float) -> None:
        self.out.append(paragraph)
        self.sizes.append(size)

    def join(self, at: int, rest: Paragraph) -> None:
        self.out[at] = continued(self.out[at], rest, self.vocab)


def continued(first: Paragraph, rest: Paragraph, vocab: Vocabulary) -> Paragraph:
    """``first`` with ``rest`` (its continuation after a break) appended, a word hyphenated across the break
    joined like one across a line end, line boxes shifted."""
    text = join_lines([first.text, rest.text], vocab)
    shift = len(text) - len(rest.text)
    lines = first.lines + tuple(replace(line, start=line.start + shift) for line in rest.lines)
    return replace(first, text=text, lines=lines)
