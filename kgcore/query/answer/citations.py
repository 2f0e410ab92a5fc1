"""Citations: split an answer into sentences and link each to the context sentences that support it.

>>> from kgcore.core.types import SelectedSentence
>>> ctx = [SelectedSentence("text_0-32", 32, "He lost one shoe among the cabbages.",
...                         "Peter lost one shoe among the cabbages."),
...        SelectedSentence("text_0-23", 23, "She bought a loaf of brown bread.",
...                         "Old Mrs. Rabbit bought a loaf of brown bread.")]
>>> [(c.sentence_ids, c.scores) for c in cite("Peter lost his shoes in the garden. I am not sure.", ctx)]
[(['text_0-32'], [0.75]), ([], [])]
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from kgcore.core.embed import Embedder
from kgcore.core.types import SENTENCE_ID_PATTERN, Citation, SelectedSentence
from kgcore.query.answer.words import content_words

#: A context sentence supports an answer sentence when its score reaches this.
MIN_SUPPORT = 0.35
#: Weight of lexical recall against embedding cosine when an embedder is given.
LEXICAL_WEIGHT = 0.5
#: At most this many supporting sentences per answer sentence.
MAX_CITATIONS = 3

_ID = re.compile(SENTENCE_ID_PATTERN)
#: One citation marker: ``[text_0-3]``, ``[text_0-3, text_0-4]`` or ``(text_0-3)``.
_MARKER = re.compile(rf"[\[(]\s*{SENTENCE_ID_PATTERN}(?:\s*[,;]\s*{SENTENCE_ID_PATTERN})*\s*[\])]")
_LEADING_MARKERS = re.compile(r"^(?:\s*" + _MARKER.pattern + r")+")
_BOUNDARY = re.compile(r"[.!?]+[\"'”’)\]]*\s+|\s*\n\s*")
_ABBREVIATIONS = frozenset("mr mrs ms dr st jr sr prof mt vs etc no fig cf".split())


def split_answer_sentences(text: str) -> list[str]:
    """Split an answer into sentences (line breaks also end a sentence).

    Titles such as ``Mrs.`` do not end a sentence, and citation markers
    written after a full stop stay with the sentence they follow.

    >>> split_answer_sentences("Mrs. Rabbit went out. [text_0-22] She bought bread!  Then\\nshe left.")
    ['Mrs. Rabbit went out. [text_0-22]', 'She bought bread!', 'Then', 'she left.']
    """
    pieces, start = [], 0
    for boundary in _BOUNDARY.finditer(text):
        before = text[start:boundary.start()]
        if "\n" not in boundary.group() and boundary.group().startswith(".") and _ends_with_abbreviation(before):
            continue
        pieces.append(text[start:boundary.end()].strip())
        start = boundary.end()
    pieces.append(text[start:].strip())
    return _attach_leading_markers([p for p in pieces if p])


def _ends_with_abbreviation(text: str) -> bool:
    words = text.split()
    if not words:
        return False
    last = words[-1].lower().strip("\"'(")
    return last in _ABBREVIATIONS or last.isdigit() or (len(last) == 1 and last.isalpha())


def _attach_leading_markers(pieces: list[str]) -> list[str]:
    out: list[str] = []
    for piece in pieces:
        lead = _LEADING_MARKERS.match(piece)
        if lead and out:
            out[-1] = f"{out[-1]} {lead.group().strip()}"
            piece = piece[lead.end():].strip()
        if piece:
            out.append(piece)
    return out


def cited_ids(sentence: str) -> list[str]:
    """Sentence ids written in citation markers, in order, without repeats.

    >>> cited_ids("He ran [text_0-3, text_0-4] and hid (text_0-9) [text_0-3].")
    ['text_0-3', 'text_0-4', 'text_0-9']
    """
    ids = [i for marker in _MARKER.findall(sentence) for i in _ID.findall(marker)]
    return list(dict.fromkeys(ids))


def strip_markers(sentence: str) -> str:
    """``sentence`` without citation markers.

    >>> strip_markers("He ran [text_0-3].")
    'He ran.'
    """
    return re.sub(r"\s+([.,;:!?])", r"\1", _MARKER.sub("", sentence)).strip()


def cite(answer_text: str, context: Sequence[SelectedSentence], embedder: Embedder | None = None) -> list[Citation]:
    """Link every sentence of ``answer_text`` to the context sentences that support it.

    Ids written in the answer (``[text_0-3]``) that name a context sentence
    win, each with score 1.0.  Otherwise each context sentence is scored by

    * lexical recall: the share of the answer sentence's content words
      (:func:`content_words`) found in the context sentence's original or
      coref-resolved text; and, when ``embedder`` is given,
    * the cosine between the two sentences' embeddings (negative counts 0),

    combined as ``LEXICAL_WEIGHT * recall + (1 - LEXICAL_WEIGHT) * cosine``
    (recall alone without an embedder).  Sentences scoring at least
    :data:`MIN_SUPPORT` are kept, at most :data:`MAX_CITATIONS`, best first.
    An answer sentence without support gets an empty list.  Only context
    sentences sharing a word with the answer are embedded (at most
    :data:`MAX_ENCODED`), so a whole-book context stays cheap.
    """
    sentences = split_answer_sentences(answer_text)
    plain = [strip_markers(s) for s in sentences]
    known = {s.id for s in context}
    scores = support_scores(plain, context, embedder)
    citations = []
    for row, sentence in enumerate(sentences):
        explicit = [i for i in cited_ids(sentence) if i in known]
        if explicit:
            citations.append(Citation(sentence, explicit, [1.0] * len(explicit)))
            continue
        supported = ((float(v), s.id) for v, s in zip(scores[row], context) if v >= MIN_SUPPORT)
        ranked = sorted(supported, key=lambda p: -p[0])
        best = ranked[:MAX_CITATIONS]
        citations.append(Citation(sentence, [i for _, i in best], [round(v, 4) for v, _ in best]))
    return citations


#: At most this many context sentences are embedded by :func:`cite`.
MAX_ENCODED = 256


def support_scores(sentences: list[str], context: Sequence[SelectedSentence],
                   embedder: Embedder | None = None) -> np.ndarray:
    """(answer sentences × context sentences) support scores, as documented in :func:`cite`.

    >>> ctx = [SelectedSentence("a", 0, "Peter ate radishes.", ""), SelectedSentence("b", 1, "Peter slept.", "")]
    >>> support_scores(["Peter ate lettuces."], ctx).round(3).tolist()
    [[0.667, 0.333]]
    """
    answer_words = [content_words(s) for s in sentences]
    context_words = [content_words(f"{s.text} {s.resolved}") for s in context]
    recall = np.array(
        [[len(a & c) / len(a) if a else 0.0 for c in context_words] for a in answer_words], dtype=np.float64,
    ).reshape(len(sentences), len(context))
    if embedder is None or recall.size == 0:
        return recall
    shared = recall.max(axis=0)
    columns = [j for j in np.argsort(-shared, kind="stable")[:MAX_ENCODED] if shared[j] > 0]
    scores = LEXICAL_WEIGHT * recall
    if columns:
        texts = [context[j].resolved or context[j].text for j in columns]
        vectors = embedder.encode(list(sentences) + texts)
        cosines = vectors[: len(sentences)] @ vectors[len(sentences):].T
        scores[:, columns] += (1 - LEXICAL_WEIGHT) * np.clip(cosines, 0.0, None)
    return scores
