"""How a sentence writes the question's words it was found to hold: in another form ("reside" as "resident"), only
through coreference ("Anne" where it says "she"), or as written -- what a verdict's reason lists and the Ask page
marks, so that a reader finds each word in the sentence.

>>> from kgcore.core.nlp import load_spacy
>>> written, resolved, spans = how_written(["reside", "hall", "anne"], "He was a resident of the halls.", load_spacy())
>>> found_words(ClaimCheck("", matched=["reside", "hall", "anne"], written_as=written, through_coreference=resolved))
'reside as “resident”, hall; through coreference: anne'
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kgcore.core.verdicts import ClaimCheck
from kgcore.query.answer.words import stem, stem_tokens


def how_written(matched: Sequence[str], text: str, nlp) -> tuple[dict[str, str], list[str], list[list[int]]]:
    """Of the question's ``matched`` words (lemmas, matched by stem in the sentence's written or coref-resolved
    text): those the sentence ``text`` writes in another form, with the form; those only its coref-resolved text
    holds; and the character spans of ``text`` holding the others -- so that a reason lists, and the Ask page marks,
    what a reader finds in the sentence.

    >>> from kgcore.core.nlp import load_spacy
    >>> how_written(["reside", "hall", "anne"], "He was a resident of the halls.", load_spacy())
    ({'reside': 'resident'}, ['anne'], [[9, 17], [25, 30]])
    >>> how_written(["amory"], "ROSALIND: Oh--what--oh--Amory--", load_spacy())
    ({}, [], [[24, 29]])
    """
    found = stem_tokens(nlp(text))
    written: dict[str, str] = {}
    resolved: list[str] = []
    spans: list[list[int]] = []
    for word in matched:
        tokens = found.get(stem(word), [])
        spans += [[t.idx, t.idx + len(t.text)] for t in tokens]
        if tokens and not any(word in (t.lemma_.lower(), t.lower_) for t in tokens):
            written[word] = tokens[0].lower_
        elif not tokens:
            inside = re.search(rf"\b{re.escape(word)}\b", text, re.IGNORECASE)
            if inside is None:
                resolved.append(word)
            else:  # "oh--Amory--" is one token, but the name is written there
                spans.append([inside.start(), inside.end()])
    return written, resolved, sorted(spans)



def found_words(check: ClaimCheck) -> str:
    """The question's words a check found, as the sentence holds them: a word written in another form with that
    form, the words only coreference supplies last.

    >>> found_words(ClaimCheck("", matched=["reside", "hall", "anne"], written_as={"reside": "resident"},
    ...                        through_coreference=["anne"]))
    'reside as “resident”, hall; through coreference: anne'
    """
    later = set(check.through_coreference)
    shown = [f"{w} as “{check.written_as[w]}”" if w in check.written_as else w for w in check.matched
             if w not in later]
    resolved = [w for w in check.matched if w in later]
    return ", ".join(shown) + (f"{'; ' if shown else ''}through coreference: {', '.join(resolved)}" if resolved
                               else "")
