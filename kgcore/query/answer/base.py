"""What an answerer is: the :class:`AnswerGenerator` protocol with its one ``generate`` signature, the
:class:`AnswerSource` it may read, the :class:`Answerer` entry that names and builds it, and the lazy models the
offline answerers share.

Every answerer answers with::

    generate(question, context, source) -> Answer

``context`` is the retrieval's selected sentences in document order; ``source`` (:class:`AnswerSource`) is what it
may read of the collection besides them: the book's name, the support check's calibration and the QA pairs, each
computed the first time an answerer reads it.

>>> source = AnswerSource("Peter Rabbit", calibration=lambda: "computed")
>>> source.book_name, source.qa, source.calibration
('Peter Rabbit', None, 'computed')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Protocol

from kgcore.core.embed import Embedder, get_embedder
from kgcore.core.nlp import load_spacy
from kgcore.core.settings import Settings
from kgcore.core.types import Answer, SelectedSentence
from kgcore.query.answer.support import UNCALIBRATED, Calibration
from kgcore.query.qakg.graph import QAGraph


class AnswerSource:
    """What an answerer may read of the collection besides the context: ``book_name`` (what the collection is
    called, for an answer from memory), ``calibration`` (the support check's threshold for this collection,
    :mod:`~kgcore.query.answer.calibration`) and ``qa`` (the collection's QA graph, :mod:`kgcore.query.qakg`).
    ``calibration`` and ``qa`` may be given as values or as functions that compute them on first read."""

    def __init__(self, book_name: str = "", calibration: Calibration | Callable[[], Calibration] = UNCALIBRATED,
                 qa: QAGraph | Callable[[], QAGraph | None] | None = None):
        self.book_name = book_name
        self._calibration = calibration
        self._qa = qa

    @cached_property
    def calibration(self) -> Calibration:
        return self._calibration() if callable(self._calibration) else self._calibration

    @cached_property
    def qa(self) -> QAGraph | None:
        return self._qa() if callable(self._qa) else self._qa


class AnswerGenerator(Protocol):
    """What every answer backend provides.

    ``generate`` answers ``question`` from ``context`` (selected sentences in
    document order); an empty context is the paper's "without content"
    setting, where the model answers from its memory of ``source.book_name``.
    """

    name: str

    @property
    def model(self) -> str:
        """The model that answers (an LLM's name, or the extractive answerer's embedder)."""
        ...

    def generate(self, question: str, context: Sequence[SelectedSentence],
                 source: AnswerSource | None = None) -> Answer:
        ...


@dataclass(frozen=True)
class Answerer:
    """One answerer in the registry (:data:`kgcore.query.answer.ANSWERERS`): ``name`` (``--answerer NAME``),
    ``label`` and ``help`` for people, and ``make``, which builds its generator from the settings (an answerer
    that needs configuration fails here, before any model loads)."""

    name: str
    label: str
    help: str
    make: Callable[[Settings], Any]


class ParseMemo:
    """A spaCy pipeline that parses each text once: one answer's sentence scorer, QA pairs and clause trimming
    parse the same few sentences.

    >>> import spacy
    >>> memo = ParseMemo(spacy.blank("en"))
    >>> memo("A hat.") is memo("A hat."), [d.text for d in memo.pipe(["A hat.", "A cap."])], len(memo.docs)
    (True, ['A hat.', 'A cap.'], 2)
    """

    def __init__(self, nlp):
        self.nlp = nlp
        self.docs: dict[str, object] = {}

    def __call__(self, text: str):
        return self.pipe([text])[0]

    def pipe(self, texts):
        texts = list(texts)
        todo = [t for t in dict.fromkeys(texts) if t not in self.docs]
        self.docs.update(zip(todo, self.nlp.pipe(todo)))
        return [self.docs[t] for t in texts]


class LazyModels:
    """The embedder and spaCy pipeline of an offline answerer, loaded on first use when not given."""

    def __init__(self, embedder: Embedder | None = None, nlp=None):
        self._embedder = embedder
        self._nlp = nlp

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = get_embedder()
        return self._embedder

    @property
    def nlp(self):
        if self._nlp is None:
            self._nlp = load_spacy()
        return self._nlp
