"""Answer generation: the generator protocol, the paper's prompts and citation alignment.

Two generators exist (see :func:`get_generator`): ``openai`` sends the
paper's Appendix A prompt to any OpenAI-compatible chat endpoint, and
``extractive`` (the offline default) returns the best supporting span of
the retrieved context.  Every answer is split into sentences and each is
linked to the context sentences that support it by :func:`cite`.

>>> from kgcore.types import SelectedSentence
>>> ctx = [SelectedSentence("text_0-32", 32, "He lost one shoe among the cabbages.", "Peter lost one shoe among the cabbages."),
...        SelectedSentence("text_0-23", 23, "She bought a loaf of brown bread.", "Old Mrs. Rabbit bought a loaf of brown bread.")]
>>> print(build_prompt("Where did Peter lose his shoes?", ctx[:1]))
Please answer the question based on the following content:
<BLANKLINE>
Content: [text_0-32] He lost one shoe among the cabbages.
<BLANKLINE>
Question: Where did Peter lose his shoes?
<BLANKLINE>
Answer:
>>> [(c.sentence_ids, c.scores) for c in cite("Peter lost his shoes in the garden. I am not sure.", ctx)]
[(['text_0-32'], [0.75]), ([], [])]
"""

from __future__ import annotations

import re
from typing import Protocol, Sequence

import numpy as np

from .errors import InputError
from .settings import ANSWERERS, Settings
from .types import Answer, Citation, SelectedSentence

WITH_CONTENT_PROMPT = (
    "Please answer the question based on the following content:\n\n"
    "Content: {content}\n\nQuestion: {question}\n\nAnswer:"
)
WITHOUT_CONTENT_PROMPT = (
    "Please answer the question based on your memory of the book {book_name}:\n\n"
    "Question: {question}\n\nAnswer:"
)

#: A context sentence supports an answer sentence when its score reaches this.
MIN_SUPPORT = 0.35
#: Weight of lexical recall against embedding cosine when an embedder is given.
LEXICAL_WEIGHT = 0.5
#: At most this many supporting sentences per answer sentence.
MAX_CITATIONS = 3

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before being below
    between both but by can could did do does doing done don didn doesn down during each either else ever few for
    from further get got had has have having he her here hers herself him himself his how however i if in into is
    isn it its itself just ll me might more most much must my myself neither no nor not now of off on once only or
    other our ours ourselves out over own re said same says she should so some such than that the their theirs
    them themselves then there these they this those through to too under until up upon us ve very was wasn we
    were what when where which while who whom whose why will with won would wouldn yes yet you your yours
    yourself yourselves among amongst around behind beside between beyond inside near onto outside round toward
    towards underneath within without across along according answer content context question text""".split()
)

_WORD = re.compile(r"[a-z0-9]+")
_POSSESSIVE = re.compile(r"['’]s\b")
_ID = re.compile(r"text_\d+-\d+")
#: One citation marker: ``[text_0-3]``, ``[text_0-3, text_0-4]`` or ``(text_0-3)``.
_MARKER = re.compile(r"[\[(]\s*text_\d+-\d+(?:\s*[,;]\s*text_\d+-\d+)*\s*[\])]")
_LEADING_MARKERS = re.compile(r"^(?:\s*" + _MARKER.pattern + r")+")
_BOUNDARY = re.compile(r"[.!?]+[\"'”’)\]]*\s+|\s*\n\s*")
_ABBREVIATIONS = frozenset("mr mrs ms dr st jr sr prof mt vs etc no fig cf".split())


class AnswerGenerator(Protocol):
    """What every answer backend provides.

    ``generate`` answers ``question`` from ``context`` (selected sentences in
    document order); an empty context is the paper's "without content"
    setting, where the model answers from its memory of ``book_name``.
    """

    name: str
    model: str

    def generate(self, question: str, context: Sequence[SelectedSentence], book_name: str = "") -> Answer:
        ...


def format_content(context: Sequence[SelectedSentence], with_ids: bool = True) -> str:
    """The prompt's content: context sentences in document order.

    With ids each sentence is on its own line behind its id in brackets so
    that an LLM can cite it (and :func:`cite` can read the citation back);
    without ids the sentences are joined by spaces, as in the paper.

    >>> ctx = [SelectedSentence("text_0-5", 5, "B.", "B."), SelectedSentence("text_0-1", 1, "A.", "A.")]
    >>> format_content(ctx)
    '[text_0-1] A.\\n[text_0-5] B.'
    >>> format_content(ctx, with_ids=False)
    'A. B.'
    """
    ordered = sorted(context, key=lambda s: s.position)
    if with_ids:
        return "\n".join(f"[{s.id}] {s.text}" for s in ordered)
    return " ".join(s.text for s in ordered)


def build_prompt(question: str, context: Sequence[SelectedSentence], book_name: str = "", with_ids: bool = True) -> str:
    """The paper's Appendix A prompt, with content when ``context`` is non-empty.

    ``with_ids=False`` gives the paper-exact content (no sentence ids).

    >>> print(build_prompt("Who is Peter?", [], book_name="The Tale of Peter Rabbit"))
    Please answer the question based on your memory of the book The Tale of Peter Rabbit:
    <BLANKLINE>
    Question: Who is Peter?
    <BLANKLINE>
    Answer:
    """
    if not context:
        return WITHOUT_CONTENT_PROMPT.format(book_name=book_name, question=question)
    return WITH_CONTENT_PROMPT.format(content=format_content(context, with_ids), question=question)


def get_generator(name: str, settings: Settings) -> AnswerGenerator:
    """The answer generator called ``name`` (``extractive`` or ``openai``), configured from ``settings``."""
    from .embed import embedder_for

    if name == "extractive":
        from .backends.answer_extractive import ExtractiveGenerator
        from .nlp import load_spacy

        return ExtractiveGenerator(embedder=embedder_for(settings), nlp=load_spacy(settings.spacy_model))
    if name == "openai":
        from .backends.answer_openai import OpenAIGenerator

        generator = OpenAIGenerator(settings)  # fails fast, before any model loads, when unconfigured
        generator.embedder = embedder_for(settings)
        return generator
    raise InputError("answerer", f"unknown value {name!r} (choose one of {', '.join(ANSWERERS)})")


def default_answerer(settings: Settings) -> str:
    """``openai`` when an endpoint is configured, else the offline ``extractive`` answerer.

    >>> default_answerer(Settings()), default_answerer(Settings(openai_base_url="http://localhost:11434/v1", openai_model="llama3"))
    ('extractive', 'openai')
    """
    return "openai" if settings.openai_configured else "extractive"


# -- sentences and words --------------------------------------------------------
def split_sentences(text: str) -> list[str]:
    """Split an answer into sentences (line breaks also end a sentence).

    Titles such as ``Mrs.`` do not end a sentence, and citation markers
    written after a full stop stay with the sentence they follow.

    >>> split_sentences("Mrs. Rabbit went out. [text_0-22] She bought bread!  Then\\nshe left.")
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


def content_words(text: str) -> set[str]:
    """Lower-cased words without stopwords, possessives and plural ``s`` (no lemmatiser needed).

    >>> sorted(content_words("Peter's shoes were lost among the cabbages!"))
    ['cabbage', 'lost', 'peter', 'shoe']
    """
    words = _WORD.findall(_POSSESSIVE.sub("", text.lower()))
    return {_singular(w) for w in words if len(w) > 1 and w not in STOPWORDS}


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


# -- citation alignment ---------------------------------------------------------
def cite(answer_text: str, context: Sequence[SelectedSentence], embedder=None) -> list[Citation]:
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
    sentences = split_sentences(answer_text)
    plain = [strip_markers(s) for s in sentences]
    known = {s.id for s in context}
    scores = support_scores(plain, context, embedder)
    citations = []
    for row, sentence in enumerate(sentences):
        explicit = [i for i in cited_ids(sentence) if i in known]
        if explicit:
            citations.append(Citation(sentence, explicit, [1.0] * len(explicit)))
            continue
        ranked = sorted(((float(v), s.id) for v, s in zip(scores[row], context) if v >= MIN_SUPPORT), key=lambda p: -p[0])
        best = ranked[:MAX_CITATIONS]
        citations.append(Citation(sentence, [i for _, i in best], [round(v, 4) for v, _ in best]))
    return citations


#: At most this many context sentences are embedded by :func:`cite`.
MAX_ENCODED = 256


def support_scores(sentences: list[str], context: Sequence[SelectedSentence], embedder=None) -> np.ndarray:
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
