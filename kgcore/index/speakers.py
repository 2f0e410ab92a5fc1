"""Who says a quotation: the first person inside quoted speech resolved to its speaker.

The narrator pass (:mod:`kgcore.index.narrator`) leaves quoted speech alone, and rightly: the "I" of
'"I will go," said Raoul' is Raoul.  Left as it is, every speaker's "I" becomes one node, the most grounded
entity of a dialogue-heavy novel (in *The Phantom of the Opera* it grounds 1,631 of 6,083 sentences), and
the frames of what each character says of himself give no question–answer pair.

This pass reads each paragraph's **attribution** outside its quotation marks: a speech verb next to a name
("said Raoul", "Christine replied", "cried M. Richard"), or "said I" for a first-person book's narrator.  It
reads the text as written, not as coreference resolved it: a pronoun resolved to the wrong character ("she
continued" -> "Raoul continued") would put its error into every line of the speech.  When a paragraph
attributes its speech to exactly one speaker, the first-person singular pronouns inside its quotations
become that name ("my" -> "Raoul's"), as the narrator pass does outside them.  A paragraph naming two
speakers, or none, or with a speech verb that names nobody ("says he", "Xury ... said") -- Defoe gives both
sides of a dialogue in one paragraph -- is left as it is; a paragraph that opens by continuing a quotation
the previous one left open (no attribution of its own) keeps the previous speaker.  Quotation marks are tracked as
:func:`kgcore.index.narrator.outside_quotes` does, sentence to sentence within a paragraph.

>>> from kgcore.core.types import Sentence
>>> texts = ['"I am sure of my way," said Raoul.', 'Christine laughed.', '"Go," says I, "I follow."']
>>> sentences = [Sentence(f"t{i}", 0, i, i, t, t, t, paragraph=i) for i, t in enumerate(texts)]
>>> out, count = resolve_speakers(sentences, narrator="Tom")
>>> [s.resolved for s in out], count
(['"Raoul am sure of Raoul\\'s way," said Raoul.', 'Christine laughed.', '"Go," says I, "Tom follow."'], 3)
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from kgcore.core.types import Sentence
from kgcore.index.narrator import inside_ranges, opens_with_quote, outside_quotes, rewrite_first_person

SPEECH_VERBS = frozenset(
    """say says said cry cries cried reply replies replied ask asks asked answer answers answered exclaim exclaims
    exclaimed whisper whispers whispered continue continues continued murmur murmurs murmured shout shouts shouted
    declare declares declared add adds added repeat repeats repeated resume resumes resumed observe observes observed
    groan groans groaned stammer stammers stammered sob sobs sobbed moan moans moaned mutter mutters muttered
    interrupt interrupts interrupted insist insists insisted explain explains explained demand demands demanded
    retort retorts retorted protest protests protested gasp gasps gasped sigh sighs sighed call calls called""".split()
)
_TITLE = (r"(?:M\.|MM\.|Mme\.|Mlle\.|Mr\.|Mrs\.|Ms\.|Dr\.|Monsieur|Madame|Mademoiselle|Captain|Count|Countess|"
          r"Viscount|Vicomte|Comte|Sir|Lady|Lord|Miss|Master|Mother|Father|Uncle|Aunt)")
_WORD = r"[A-Z][\w'\u2019-]*"
_NAME = rf"(?:(?:the|The)\s+)?(?:{_TITLE}\s+)?{_WORD}(?:\s+(?:de\s+|of\s+)?{_WORD})*"
_VERB_RE = re.compile(r"\b(" + "|".join(sorted(SPEECH_VERBS)) + r")\b")
_NAME_AFTER = re.compile(rf"\s*,?\s*({_NAME})")
_NAME_BEFORE = re.compile(rf"({_NAME})\s*,?\s*$")
#: Capitalised words that open a clause, not a name ("Then Raoul said" -> Raoul; "He said" -> nobody).
NOT_NAMES = frozenset(
    """i he she it they we you the a an and but or so then now there here this that these those when while what who
    why how yes no oh ah well yet still again once after before as if his her their its our my your one""".split()
)


def speaker_in(text: str, ranges: list[tuple[int, int]], narrator: str = "") -> set[str]:
    """The speakers the attributions of ``text`` name, outside quotation marks (``ranges``); "said I" names
    ``narrator`` (when given); ``""`` stands for an attribution that names nobody.

    >>> text = '"Go," said M. Richard, and Moncharmin nodded; "no," Christine replied.'
    >>> sorted(speaker_in(text, outside_quotes(text)[0]))
    ['Christine', 'M. Richard']
    >>> speaker_in('"Go," he said.', [(4, 14)]), speaker_in('"Go," said the old man.', [(5, 23)])
    ({''}, {''})
    """
    found = set()
    for start, end in ranges:
        part = text[start:end]
        for verb in _VERB_RE.finditer(part):
            after = _NAME_AFTER.match(part, verb.end())
            before = _NAME_BEFORE.search(part[: verb.start()])
            name = _clean(after.group(1), narrator) if after else ""
            found.add(name or (_clean(before.group(1), narrator) if before else ""))
    return found


def _clean(name: str, narrator: str = "") -> str:
    """``name`` without the clause-opening words before it ("Then Raoul" -> "Raoul"); "" when nothing is left;
    ``narrator`` for a bare "I"."""
    if name == "I":
        return narrator
    words = name.split()
    while words and words[0].lower() in NOT_NAMES and not (words[0].lower() == "the" and len(words) > 1):
        words = words[1:]
    if not words or words[-1].lower() in NOT_NAMES:
        return ""
    return " ".join(words)


def resolve_speakers(sentences: Sequence[Sentence], narrator: str = "") -> tuple[list[Sentence], int]:
    """Rewrite the first person inside each paragraph's quotations as its one attributed speaker (see the module
    docstring and :func:`paragraph_speakers`; ``narrator``: the first-person narrator's name, for "said I"); the
    sentences and how many pronouns were rewritten.  The rewrite is of ``resolved``."""
    out: list[Sentence] = []
    total = 0
    speakers = paragraph_speakers(sentences, narrator)
    for paragraph in _paragraphs(sentences):
        speaker = speakers[len(out)]
        texts = [s.resolved or s.normalized for s in paragraph]
        for sentence, text, ranges in zip(paragraph, texts, _outside_quotes(texts)[0]):
            inside = inside_ranges(ranges, len(text))
            resolved, count = rewrite_first_person(text, inside, speaker, sentence_case=True) if speaker else (text, 0)
            out.append(dataclasses.replace(sentence, resolved=resolved) if count else sentence)
            total += count
    return out, total


def paragraph_speakers(sentences: Sequence[Sentence], narrator: str = "") -> list[str]:
    """Per sentence, the one speaker its paragraph's attributions name, read from ``normalized`` (the text as
    written, not as coreference resolved it); "" where they name none, several, or only "he"; a paragraph that
    opens by continuing a quotation the previous one left open keeps the previous speaker.

    >>> texts = ['"I am sure of it," said Raoul.', '"Go on," he said.', 'Christine laughed.']
    >>> paragraph_speakers([Sentence(f"t{i}", 0, i, i, t, t, t, paragraph=i) for i, t in enumerate(texts)])
    ['Raoul', '', '']
    """
    out: list[str] = []
    previous = ""
    for paragraph in _paragraphs(sentences):
        written = [s.normalized for s in paragraph]
        outside, ends_inside = _outside_quotes(written)
        speakers = set().union(*(speaker_in(t, r, narrator) for t, r in zip(written, outside)))
        continues = previous and not speakers and opens_with_quote(written[0])
        speaker = next(iter(speakers)) if len(speakers) == 1 else previous if continues else ""  # "": nobody
        out += [speaker] * len(paragraph)
        previous = speaker if ends_inside else ""
    return out


def _paragraphs(sentences: Sequence[Sentence]) -> list[list[Sentence]]:
    groups: list[list[Sentence]] = []
    for s in sentences:
        if groups and (s.chunk, s.paragraph) == (groups[-1][-1].chunk, groups[-1][-1].paragraph) and s.paragraph >= 0:
            groups[-1].append(s)
        else:
            groups.append([s])
    return groups


def _outside_quotes(texts: list[str]) -> tuple[list[list[tuple[int, int]]], bool]:
    """Per text of a paragraph, its ranges outside quotation marks (the quote state carried from text to text);
    and whether the paragraph ends inside a quotation."""
    inside, found = False, []
    for text in texts:
        ranges, inside = outside_quotes(text, inside)
        found.append(ranges)
    return found, inside

