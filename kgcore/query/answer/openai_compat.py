"""Answers from any OpenAI-compatible chat endpoint (OpenAI, Ollama, vLLM, llama.cpp server).

Configuration comes from :class:`~kgcore.core.settings.Settings`:
``KGCORE_OPENAI_BASE_URL`` (e.g. ``http://localhost:11434/v1`` for Ollama),
``KGCORE_OPENAI_MODEL`` and ``OPENAI_API_KEY``.  Local servers ignore the
key, so a base URL without a key sends the placeholder ``not-needed``.

The ``openai`` client's own retries are switched off: this module retries
connection errors, timeouts, HTTP 429 and 5xx with exponential backoff
(0.5 s, 1 s, 2 s, ...) for ``settings.openai_retries`` attempts in all (at
least one), and fails at once on authentication and other client errors.
Every failure is a :class:`~kgcore.core.errors.GenerationError` naming the
endpoint and the reason; the API key never appears in a message or log.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Sequence

from kgcore.core.errors import GenerationError, ModelUnavailableError
from kgcore.core.settings import Settings
from kgcore.core.types import Answer, SelectedSentence
from kgcore.index.embed import Embedder
from kgcore.query.answer.citations import cite
from kgcore.query.answer.prompts import build_prompt

log = logging.getLogger(__name__)

DEFAULT_ENDPOINT = "https://api.openai.com/v1"
PLACEHOLDER_KEY = "not-needed"
BACKOFF_S = 0.5
#: Reasoning models served by Ollama/vLLM may put their scratchpad in the answer.
_THINKING = re.compile(r"<think>.*?</think>", re.DOTALL)
_MAX_DETAIL_CHARS = 300


class OpenAIGenerator:
    """Answers with one chat completion (temperature 0) per question.

    ``embedder`` (optional) sharpens citation alignment; ``backoff_s`` is the
    first retry delay, doubled on every further retry; ``sleep`` is the
    function that waits (tests pass a shorter backoff, never a fake clock).
    """

    name = "openai"

    def __init__(self, settings: Settings, embedder: Embedder | None = None, backoff_s: float = BACKOFF_S,
                 sleep: Callable[[float], None] = time.sleep):
        self.check_configured(settings)
        try:
            import openai
        except ImportError as exc:
            raise ModelUnavailableError("The openai package is missing: pip install 'openai>=1'") from exc
        self._openai = openai
        self.endpoint = settings.openai_base_url or DEFAULT_ENDPOINT
        self.model = settings.openai_model
        self.timeout_s = settings.openai_timeout_s
        self.attempts = max(1, settings.openai_retries)
        self.embedder = embedder
        self.backoff_s = backoff_s
        self._sleep = sleep
        self._secret = settings.openai_api_key
        self._client = openai.OpenAI(
            base_url=settings.openai_base_url or None,
            api_key=settings.openai_api_key or PLACEHOLDER_KEY,
            timeout=settings.openai_timeout_s,
            max_retries=0,
        )

    @staticmethod
    def check_configured(settings: Settings) -> None:
        """Raise :class:`ModelUnavailableError` saying what to set when no endpoint or model is configured."""
        if not settings.openai_base_url and not settings.openai_api_key:
            raise ModelUnavailableError(
                "No OpenAI-compatible endpoint is configured: set KGCORE_OPENAI_BASE_URL (e.g. "
                "http://localhost:11434/v1 for Ollama) and KGCORE_OPENAI_MODEL, or OPENAI_API_KEY and "
                "KGCORE_OPENAI_MODEL for api.openai.com. Without them use the extractive answerer."
            )
        if not settings.openai_model:
            raise ModelUnavailableError(
                "No chat model is configured: set KGCORE_OPENAI_MODEL (e.g. gpt-4o-mini or llama3.1).")

    def __repr__(self) -> str:
        return f"OpenAIGenerator(endpoint={self.endpoint!r}, model={self.model!r})"

    def generate(self, question: str, context: Sequence[SelectedSentence], book_name: str = "") -> Answer:
        prompt = build_prompt(question, context, book_name)
        response, attempts = self._complete(prompt)
        text, finish_reason = self._answer_text(response)
        served_model = getattr(response, "model", None) or self.model
        notes = [f"Answered by {served_model} at {self.endpoint}"
                 + (f" after {attempts} attempts." if attempts > 1 else ".")]
        if not context:
            notes.append("No context was retrieved: the model answered from its memory of the book "
                         "(the paper's no-content setting).")
        if finish_reason == "length":
            notes.append("The answer was cut off at the endpoint's token limit.")
        return Answer(
            text=text,
            generator=self.name,
            model=served_model,
            citations=cite(text, context, self.embedder),
            usage=_usage(response),
            prompt=prompt,
            notes=notes,
        )

    def _complete(self, prompt: str):
        """(chat completion, attempts used); retries only what a retry can fix."""
        for attempt in range(1, self.attempts + 1):
            try:
                response = self._client.chat.completions.create(
                    model=self.model, messages=[{"role": "user", "content": prompt}], temperature=0,
                )
                return response, attempt
            except self._openai.OpenAIError as exc:
                reason, retryable = self._classify(exc)
                if not retryable or attempt == self.attempts:
                    tries = f" (after {attempt} attempts)" if attempt > 1 else ""
                    message = f"Answer generation failed at {self.endpoint}: {reason}{tries}"
                    raise GenerationError(self._scrub(message)) from None
                delay = self.backoff_s * 2 ** (attempt - 1)
                log.warning("%s: %s; retrying in %.1f s", self.endpoint, self._scrub(reason), delay)
                self._sleep(delay)
        raise AssertionError("unreachable: the loop returns or raises")

    def _classify(self, exc: Exception) -> tuple[str, bool]:
        """(human reason, whether retrying may help) for one failed request."""
        openai = self._openai
        if isinstance(exc, openai.APITimeoutError):
            return f"the request timed out (timeout {self.timeout_s:g} s)", True
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc
            return f"cannot connect to the endpoint ({cause})", True
        if isinstance(exc, openai.APIStatusError):
            code = exc.status_code
            if code in (401, 403):
                return (f"authentication failed (HTTP {code}); check OPENAI_API_KEY / KGCORE_OPENAI_API_KEY", False)
            if code == 429:
                return f"rate limited (HTTP 429): {_detail(exc)}", True
            if code >= 500:
                return f"server error (HTTP {code}): {_detail(exc)}", True
            hint = (f"; check that model {self.model!r} exists (KGCORE_OPENAI_MODEL) and that the base URL "
                    "ends with /v1" if code == 404 else "")
            return f"request rejected (HTTP {code}): {_detail(exc)}{hint}", False
        return f"{type(exc).__name__}: {exc}", False

    def _answer_text(self, response) -> tuple[str, str | None]:
        choices = getattr(response, "choices", None) or []
        if not choices:
            raise GenerationError(f"Answer generation failed at {self.endpoint}: the response has no choices")
        message = choices[0].message
        text = _THINKING.sub("", (message.content if message else None) or "").strip()
        if not text:
            raise GenerationError(f"Answer generation failed at {self.endpoint}: the model returned an empty answer")
        return text, choices[0].finish_reason

    def _scrub(self, message: str) -> str:
        return message.replace(self._secret, "***") if self._secret else message


def _detail(exc) -> str:
    """The endpoint's own error message, shortened."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        detail = error.get("message", error) if isinstance(error, dict) else error
    else:
        detail = body or getattr(exc, "message", "") or ""
    detail = " ".join(str(detail).split())
    return detail[:_MAX_DETAIL_CHARS] + ("…" if len(detail) > _MAX_DETAIL_CHARS else "")


def _usage(response) -> dict:
    """Token counts the endpoint reported (local servers may report none)."""
    usage = getattr(response, "usage", None)
    if usage is None:
        return {}
    keys = ("prompt_tokens", "completion_tokens", "total_tokens")
    return {k: int(getattr(usage, k)) for k in keys if getattr(usage, k, None) is not None}
