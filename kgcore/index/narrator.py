"""The narrator of a first-person book: detection and resolution of "I".

Questions about a first-person book name its narrator ("Who captured
Crusoe's ship?") while the text says "I", "me" and "my".  Coreference
backends resolve third-person pronouns only, so without this step the
narrator is a node "I" that no question ever matches, and "Crusoe's father"
cannot meet "my father".  This module

* measures how first-person the narration is: the share of sentences with
  "I/me/my/myself/mine" *outside* quotation marks (dialogue "I" belongs to
  whoever speaks);
* finds the narrator's name where the text names itself: an apposition to
  "I" ("I, poor miserable Robinson Crusoe, being shipwrecked"), "my name
  is/was X", "call/called me X";
* rewrites first-person singular pronouns outside quotes into that name in
  each sentence's ``resolved`` text ("my father" -> "Robinson Crusoe's
  father"), like any other coreference link, so the parse and the graph
  carry the name;
* rewrites the narration's first-person plural the same way: "we"/"us" are
  the narrator and whoever is with them ("Robinson Crusoe and companions",
  plural, so the verb still agrees), "our"/"ours" the narrator's, and
  "ourselves" "themselves".  Left alone, "we" was one node grounding 415 of
  Crusoe's sentences that no question names, and its frames gave no
  question-answer pair ("We stayed no less than twenty days at Pampeluna").

Nothing is guessed: without self-naming the book is reported as
first-person with no name, and the analyst can give the name
(``--narrator NAME``).

>>> share = first_person_share(["I went home.", '"I am here," said Peter.', "Peter ran."])
>>> round(share, 2)
0.33
>>> find_narrator_name(["September 30, 1659.--I, poor miserable Robinson Crusoe, being shipwrecked"])
('Robinson Crusoe', 'I, poor miserable Robinson Crusoe,')
>>> resolve_first_person('My father said, "I will go," and I stayed.', "Robinson Crusoe")
('Robinson Crusoe\\'s father said, "I will go," and Robinson Crusoe stayed.', 2)
>>> resolve_first_person('We lost our boat; "we swim," said he.', "Tom")
('Tom and companions lost Tom\\'s boat; "we swim," said he.', 2)
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Iterable, Sequence

from kgcore.core.document import Narrator
from kgcore.core.types import Sentence

#: Share of sentences with first-person singular pronouns outside quotes above which a book is first-person.
FIRST_PERSON_THRESHOLD = 0.3
QUOTE_MARKS = ('"', "\u201c", "\u201d")

_PRONOUN_RE = re.compile(r"\b(I|me|Me|my|My|myself|Myself|mine|Mine)\b(?!['\u2019])")
#: Singular and plural ("we'll" and "US" left alone, as "I'm" is).
_ANY_PERSON_RE = re.compile(
    r"\b(I|me|Me|my|My|myself|Myself|mine|Mine|we|We|us|Us|our|Our|ours|Ours|ourselves|Ourselves)\b(?!['\u2019])")
#: What a first-person pronoun becomes ({} is the name); "I", "me" and "myself" become the name itself.  The plural
#: ones are rewritten only in the narration (``plural``).
COMPANIONS = "companions"
PRONOUN_FORMS = {"my": "{}'s", "mine": "{}'s", "we": "{} and " + COMPANIONS, "us": "{} and " + COMPANIONS,
                 "our": "{}'s", "ours": "{}'s", "ourselves": "themselves"}
_NAME = r"((?:[A-Z][a-z]+)(?:\s+[A-Z][a-z]+){0,2})"
_SELF_NAMING = (
    re.compile(r"\b(?:I|me),\s+(?:[a-z]+\s+){0,3}" + _NAME + r"\s*,"),
    re.compile(r"\b[Mm]y name (?:is|was|being) " + _NAME),
    re.compile(r"\b(?:[Cc]all|called|calls|named) me,? " + _NAME),
)
#: Capitalised words that are not names even where a pattern expects one.
_NOT_NAMES = frozenset(
    "sir madam madame lord lady god his her the a an my our your their mr mrs miss ms master mistress "
    "captain father mother brother sister friend king queen doctor reader".split()
)
#: Words before a capital "I" that make it a roman numeral ("CHAPTER I", "King Charles I").
_NUMERAL_CONTEXT = frozenset("chapter book part volume section letter act scene king queen charles henry james".split())
_NUMERAL_RE = re.compile(r"[IVXLCDM]+\.?")
#: What follows a sentence-opening quote mark that re-opens a continued quotation: a word, maybe after a space.
_REOPENS = re.compile(r"\s?[\w'\u2018]")


def outside_quotes(text: str, inside: bool = False) -> tuple[list[tuple[int, int]], bool]:
    """Character ranges of ``text`` outside double quotation marks, and whether it ends inside one.

    ``inside`` says the text starts within a quotation (a quote carried on
    from the previous sentence).  A quote mark that opens a sentence while
    a quotation is already open re-opens it, as when a quoted speech runs
    over several paragraphs and each paragraph starts with a quote mark;
    one followed by a space and no word closes it (the sentence splitter
    cut after the speech's last word: ``" -- "No," says he``).

    >>> outside_quotes('He said, "Go," and went.')
    ([(0, 9), (14, 24)], False)
    >>> outside_quotes('"I go.', inside=False)
    ([], True)
    >>> outside_quotes('And you." He left.', inside=True)
    ([(9, 18)], False)
    >>> outside_quotes('" -- "No," says he, "no gun."', inside=True)
    ([(1, 5), (10, 20)], False)
    """
    ranges, start = [], None if inside else 0
    for i, ch in enumerate(text):
        if ch not in '"\u201c\u201d':
            continue
        opening = ch == "\u201c" or (ch == '"' and not inside)
        if ch == '"' and inside and not text[:i].strip() and _REOPENS.match(text, i + 1):
            continue  # a continued quotation re-opened at the sentence start
        if opening and not inside:
            if start is not None and i > start:
                ranges.append((start, i))
            inside, start = True, None
        elif inside:
            inside, start = False, i + 1
    if start is not None and start < len(text):
        ranges.append((start, len(text)))
    return ranges, inside


def inside_ranges(outside: list[tuple[int, int]], length: int) -> list[tuple[int, int]]:
    """The complement of ``outside`` (from :func:`outside_quotes`) in ``[0, length)``: the ranges inside quotes.

    >>> inside_ranges([(0, 4), (9, 12)], 15)
    [(4, 9), (12, 15)]
    """
    spans, last = [], 0
    for start, end in outside:
        if start > last:
            spans.append((last, start))
        last = end
    return spans + ([(last, length)] if last < length else [])


def quotation_starts(sentences: Sequence[Sentence]) -> list[bool]:
    """Per sentence, whether it starts inside a quotation: the quote state is carried from sentence to sentence and
    reset at chunk boundaries and at a paragraph that does not open with a quote mark (a speech running over
    paragraphs re-opens each with one), so one unbalanced quote mark cannot hide the rest of a chapter.

    >>> from kgcore.core.types import Sentence
    >>> texts = ['"I came,', 'and I stayed," he said.', '"Stray quote.', "Plain narration."]
    >>> rows = zip(range(4), texts, [0, 0, 1, 2])
    >>> quotation_starts([Sentence(f"t{i}", 0, i, i, t, t, t, paragraph=p) for i, t, p in rows])
    [False, True, False, False]
    """
    return [inside for inside, _ranges in _quote_walk(sentences)]


def quoted_ranges(sentences: Sequence[Sentence]) -> list[list[tuple[int, int]]]:
    """Per sentence, the character ranges of its ``normalized`` text inside quotation marks, the quote state
    carried as :func:`quotation_starts` carries it.

    >>> from kgcore.core.types import Sentence
    >>> texts = ['He said, "Go on.', 'Now," and ran.']
    >>> quoted_ranges([Sentence(f"t{i}", 0, i, i, t, t, t) for i, t in enumerate(texts)])
    [[(9, 16)], [(0, 5)]]
    """
    return [inside_ranges(ranges, len(s.normalized)) for s, (_inside, ranges) in zip(sentences, _quote_walk(sentences))]


def _quote_walk(sentences: Sequence[Sentence]):
    """(starts inside a quotation, ranges outside quotation marks) per sentence, in one pass."""
    inside, chunk, paragraph = False, None, None
    for s in sentences:
        if s.chunk != chunk or (s.paragraph != paragraph and not opens_with_quote(s.normalized)):
            inside = False
        chunk, paragraph = s.chunk, s.paragraph
        ranges, after = outside_quotes(s.normalized, inside)
        yield inside, ranges
        inside = after


def first_person_share(texts: Iterable[str]) -> float:
    """Share of texts with a first-person singular pronoun outside quotation marks (quote state carried on)."""
    total = hits = 0
    inside = False
    for text in texts:
        total += 1
        ranges, inside = outside_quotes(text, inside)
        if any(first_person_pronouns(text, ranges)):
            hits += 1
    return hits / total if total else 0.0


def find_narrator_name(texts: Iterable[str]) -> tuple[str, str]:
    """(name, evidence phrase) of the most frequent self-naming in ``texts``, or ("", "")."""
    found: Counter[str] = Counter()
    evidence: dict[str, str] = {}
    for text in texts:
        for pattern in _SELF_NAMING:
            for m in pattern.finditer(text):
                name = _clean_name(m.group(1))
                if name:
                    found[name] += 1
                    evidence.setdefault(name, m.group(0))
    if not found:
        return "", ""
    name = max(found, key=lambda n: (found[n], len(n)))
    return name, evidence[name]


def _clean_name(candidate: str) -> str:
    words = candidate.split()
    while words and words[0].lower() in _NOT_NAMES:
        words = words[1:]
    return " ".join(words) if words and all(w.lower() not in _NOT_NAMES for w in words) else ""


def resolve_first_person(text: str, name: str, inside: bool = False) -> tuple[str, int]:
    """``text`` with the first-person pronouns outside quotes (singular and plural) replaced by ``name``; and the
    count; ``inside``: whether ``text`` starts inside a quotation."""
    return rewrite_first_person(text, outside_quotes(text, inside)[0], name, plural=True)


def rewrite_first_person(text: str, ranges: list[tuple[int, int]], name: str,
                         sentence_case: bool = False, plural: bool = False) -> tuple[str, int]:
    """``text`` with the first-person singular pronouns inside ``ranges`` replaced by ``name`` ("my"/"mine" ->
    possessive; with ``sentence_case``, a name such as "the Persian" capitalised where it opens the sentence;
    with ``plural``, "we"/"us"/"our" too; :data:`PRONOUN_FORMS`); and how many.

    >>> rewrite_first_person('"I lost my hat," I said.', [(0, 15)], "the Persian", sentence_case=True)
    ('"The Persian lost the Persian\\'s hat," I said.', 2)
    >>> rewrite_first_person("Our boat took us and me ashore.", [(0, 31)], "Tom", plural=True)
    ("Tom's boat took Tom and companions and Tom ashore.", 3)
    """
    pieces, last, count = [], 0, 0
    for m in first_person_pronouns(text, ranges, plural):
        new = PRONOUN_FORMS.get(m.group(1).lower(), "{}").format(name)
        if sentence_case and new[:4] == "the " and not text[: m.start()].strip(" \"'\u201c\u2018"):
            new = new[:1].upper() + new[1:]
        pieces += [text[last:m.start()], new]
        last, count = m.end(), count + 1
    return "".join(pieces) + text[last:], count


def opens_with_quote(text: str) -> bool:
    """Whether ``text`` opens with a quotation mark: a paragraph that does may continue an open quotation."""
    return text.lstrip().startswith(QUOTE_MARKS)


def first_person_pronouns(text: str, ranges: list[tuple[int, int]], plural: bool = False):
    """The first-person singular pronouns of ``text`` inside ``ranges`` (regex matches; with ``plural`` the plural
    ones too), roman numerals left out."""
    pattern = _ANY_PERSON_RE if plural else _PRONOUN_RE
    for start, end in ranges:
        for m in pattern.finditer(text, start, end):
            if m.group(1) == "I" and _roman_numeral(text, m.start(), m.end()):
                continue
            yield m


def _roman_numeral(text: str, start: int, end: int) -> bool:
    before = text[:start].split()
    previous = before[-1].strip(".,;:") if before else ""
    # "CHAPTER I", "King Charles I", a heading "I." alone; a sentence-final "... as well as I." is a pronoun
    return (previous.lower() in _NUMERAL_CONTEXT or (previous.isupper() and len(previous) > 1)
            or bool(_NUMERAL_RE.fullmatch(text.strip())))


def narrator_for(sentences: Sequence[Sentence], option: str = "auto") -> Narrator | None:
    """The narrator under the ``narrator`` index option (``auto``, ``none`` or a name), or None.

    ``auto`` needs a first-person share of at least :data:`FIRST_PERSON_THRESHOLD`
    and a self-naming in the text; a given name is used as it is.
    """
    if option == "none":
        return None
    share = round(first_person_share(s.normalized for s in sentences), 3)
    if option != "auto":
        return Narrator(option, share, "user")
    if share < FIRST_PERSON_THRESHOLD:
        return None
    name, evidence = find_narrator_name(s.normalized for s in sentences)
    return Narrator(name, share, "text" if name else "none", evidence)


def resolve_narrator(sentences: Sequence[Sentence], narrator: Narrator) -> tuple[list[Sentence], Narrator]:
    """Rewrite the narrator's pronouns in every sentence's ``resolved`` text.

    Quote state is carried from sentence to sentence (:func:`quotation_starts`),
    so a long quoted speech keeps its own "I", and one unbalanced quote mark
    cannot hide the narrator for the rest of a chapter.
    """
    if not narrator.name:
        return list(sentences), narrator
    out, total = [], 0
    for s, inside in zip(sentences, quotation_starts(sentences)):
        resolved, count = resolve_first_person(s.resolved or s.normalized, narrator.name, inside)
        out.append(dataclasses.replace(s, resolved=resolved) if count else s)
        total += count
    return out, dataclasses.replace(narrator, resolved=total)
