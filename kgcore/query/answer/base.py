"""The AnswerGenerator protocol every answer backend implements."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

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
