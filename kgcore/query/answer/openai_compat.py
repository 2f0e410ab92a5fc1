"""Answers from any OpenAI-compatible chat endpoint (OpenAI, Ollama, vLLM, llama.cpp server).

Configuration comes from :class:`~kgcore.core.settings.Settings`:
``KGCORE_OPENAI_BASE_URL`` (e.g. ``http://localhost:11434/v1`` for Ollama),
``KGCORE_OPENAI_MODEL`` and ``OPENAI_API_KEY``.  Local servers ignore the
key, so a base URL without a key sends the placeholder ``not-needed``.

The request goes through :class:`kgcore.core.chat.ChatClient`, which retries
connection errors, timeouts, HTTP 429 and 5xx with exponential backoff
(0.5 s, 1 s, 2 s, ...) for ``settings.openai_retries`` attempts in all (at
least one), and fails at once on authentication and other client errors.
Every failure is a :class:`~kgcore.core.errors.GenerationError` naming the
endpoint and the reason; the API key never appears in a message or log.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from kgcore.core.chat import BACKOFF_S, ChatClient, check_configured, usage_of
from kgcore.core.embed import Embedder, query_embedder
from kgcore.core.nlp import load_spacy
from kgcore.core.settings import Settings
from kgcore.core.types import Answer, SelectedSentence
from kgcore.query.answer.base import Answerer, AnswerSource, ParseMemo, shared_cache
from kgcore.query.answer.citations import cite
from kgcore.query.answer.prompts import build_prompt
from kgcore.query.answer.verdict import judge, with_verdict


class OpenAIGenerator:
    """Answers with one chat completion (temperature 0) per question.

    ``embedder`` (optional) sharpens citation alignment; ``backoff_s`` is the
    first retry delay, doubled on every further retry; ``sleep`` is the
    function that waits (tests pass a shorter backoff, never a fake clock).
    The request, its retries and error messages are :class:`kgcore.core.chat.ChatClient`'s.
    """

    name = "openai"

    def __init__(self, settings: Settings, embedder: Embedder | None = None, backoff_s: float = BACKOFF_S,
                 sleep: Callable[[float], None] = time.sleep, nlp=None):
        self.chat = ChatClient(settings, "Answer generation", backoff_s, sleep)
        self.endpoint = self.chat.endpoint
        self.model = settings.openai_model
        self.embedder = embedder
        self.spacy_model = settings.spacy_model
        self._nlp = nlp

    @property
    def nlp(self):
        """The spaCy pipeline the verdict parses the question and the cited sentences with (loaded on first use)."""
        if self._nlp is None:
            self._nlp = load_spacy(self.spacy_model)
        return self._nlp

    @staticmethod
    def check_configured(settings: Settings) -> None:
        """Raise :class:`ModelUnavailableError` saying what to set when no endpoint or model is configured."""
        check_configured(settings)

    def __repr__(self) -> str:
        return f"OpenAIGenerator(endpoint={self.endpoint!r}, model={self.model!r})"

    def generate(self, question: str, context: Sequence[SelectedSentence],
                 source: AnswerSource | None = None) -> Answer:
        """The endpoint's answer, each sentence linked to what it cites, with the verdict checked claim by claim
        (:mod:`~kgcore.query.answer.verdict`; with the ``embedder`` only, which the registry always gives: the
        verdict compares questions with it)."""
        prompt = build_prompt(question, context, (source or AnswerSource()).book_name)
        response, attempts = self.chat.complete(prompt)
        text, finish_reason = self.chat.text_of(response)
        served_model = getattr(response, "model", None) or self.model
        notes = [f"Answered by {served_model} at {self.endpoint}"
                 + (f" after {attempts} attempts." if attempts > 1 else ".")]
        if not context:
            notes.append("No context was retrieved: the model answered from its memory of the book "
                         "(the paper's no-content setting).")
        if finish_reason == "length":
            notes.append("The answer was cut off at the endpoint's token limit.")
        answer = Answer(
            text=text,
            generator=self.name,
            model=served_model,
            citations=cite(text, context, self.embedder),
            usage=usage_of(response),
            prompt=prompt,
            notes=notes,
        )
        if not context or self.embedder is None:  # nothing to check against; a bare client is not judged
            return answer
        return with_verdict(answer, judge(question, answer, context, ParseMemo(self.nlp, shared_cache(self.nlp)),
                                                   self.embedder))


def _make(settings: Settings) -> OpenAIGenerator:
    OpenAIGenerator.check_configured(settings)
    return OpenAIGenerator(settings, embedder=query_embedder(settings))


ANSWERER = Answerer("openai", "LLM (OpenAI-compatible endpoint)",
                    "the paper's prompt sent to the configured chat endpoint (KGCORE_OPENAI_BASE_URL)", _make,
                    check=check_configured, offline=False)
