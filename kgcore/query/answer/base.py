"""The AnswerGenerator protocol every answer backend implements, and the lazy models the offline ones share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from kgcore.core.embed import Embedder, get_embedder
from kgcore.core.nlp import load_spacy
from kgcore.core.types import Answer, SelectedSentence


class AnswerGenerator(Protocol):
    """What every answer backend provides.

    ``generate`` answers ``question`` from ``context`` (selected sentences in
    document order); an empty context is the paper's "without content"
    setting, where the model answers from its memory of ``book_name``.
    """

    name: str

    @property
    def model(self) -> str:
        """The model that answers (an LLM's name, or the extractive answerer's embedder)."""
        ...

    def generate(self, question: str, context: Sequence[SelectedSentence], book_name: str = "") -> Answer:
        ...


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
