"""One chat completion at any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, llama.cpp server), with retries.

Shared by the ``openai`` answerer (:mod:`kgcore.query.answer.openai_compat`) and the LLM generation of
question–answer pairs at indexing time (:mod:`kgcore.index.qa.llm`).  Configuration comes from
:class:`~kgcore.core.settings.Settings`: ``KGCORE_OPENAI_BASE_URL`` (e.g. ``http://localhost:11434/v1`` for
Ollama), ``KGCORE_OPENAI_MODEL`` and ``OPENAI_API_KEY``.  Local servers ignore the key, so a base URL without
a key sends the placeholder ``not-needed``.

The ``openai`` client's own retries are switched off: :class:`ChatClient` retries connection errors, timeouts,
HTTP 429 and 5xx with exponential backoff (0.5 s, 1 s, 2 s, ...) for ``settings.openai_retries`` attempts in
all (at least one), and fails at once on authentication and other client errors.  Every failure is a
:class:`~kgcore.core.errors.GenerationError` naming the task, the endpoint and the reason; the API key never
appears in a message or log.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable

from kgcore.core.errors import GenerationError, ModelUnavailableError
from kgcore.core.settings import Settings

log = logging.getLogger(__name__)

DEFAULT_ENDPOINT = "https://api.openai.com/v1"
PLACEHOLDER_KEY = "not-needed"
BACKOFF_S = 0.5
#: Reasoning models served by Ollama/vLLM may put their scratchpad in the answer.
THINKING = re.compile(r"<think>.*?</think>", re.DOTALL)
_MAX_DETAIL_CHARS = 300


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


class ChatClient:
    """Sends one user message per call (temperature 0) and returns the completion.

    ``task`` starts every error message ("Answer generation failed at ..."); ``backoff_s`` is the first retry
    delay, doubled on every further retry; ``sleep`` is the function that waits.
    """

    def __init__(self, settings: Settings, task: str = "Answer generation", backoff_s: float = BACKOFF_S,
                 sleep: Callable[[float], None] = time.sleep):
        check_configured(settings)
        try:
            import openai
        except ImportError as exc:
            raise ModelUnavailableError("The openai package is missing: pip install 'openai>=1'") from exc
        self._openai = openai
        self.task = task
        self.endpoint = settings.openai_base_url or DEFAULT_ENDPOINT
        self.model = settings.openai_model
        self.timeout_s = settings.openai_timeout_s
        self.attempts = max(1, settings.openai_retries)
        self.backoff_s = backoff_s
        self._sleep = sleep
        self._secret = settings.openai_api_key
        self._client = openai.OpenAI(
            base_url=settings.openai_base_url or None,
            api_key=settings.openai_api_key or PLACEHOLDER_KEY,
            timeout=settings.openai_timeout_s,
            max_retries=0,
        )

    def __repr__(self) -> str:
        return f"ChatClient(endpoint={self.endpoint!r}, model={self.model!r})"

    def complete(self, prompt: str):
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
                    raise GenerationError(self.scrub(f"{self.task} failed at {self.endpoint}: {reason}{tries}")) \
                        from None
                delay = self.backoff_s * 2 ** (attempt - 1)
                log.warning("%s: %s; retrying in %.1f s", self.endpoint, self.scrub(reason), delay)
                self._sleep(delay)
        raise AssertionError("unreachable: the loop returns or raises")

    def text_of(self, response) -> tuple[str, str | None]:
        """(the completion's text without a ``<think>`` scratchpad, finish reason); empty replies fail."""
        choices = getattr(response, "choices", None) or []
        if not choices:
            raise GenerationError(f"{self.task} failed at {self.endpoint}: the response has no choices")
        message = choices[0].message
        text = THINKING.sub("", (message.content if message else None) or "").strip()
        if not text:
            raise GenerationError(f"{self.task} failed at {self.endpoint}: the model returned an empty answer")
        return text, choices[0].finish_reason

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

    def scrub(self, message: str) -> str:
        """``message`` with the API key masked."""
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


def usage_of(response) -> dict:
    """Token counts the endpoint reported (local servers may report none)."""
    usage = getattr(response, "usage", None)
    if usage is None:
        return {}
    keys = ("prompt_tokens", "completion_tokens", "total_tokens")
    return {k: int(getattr(usage, k)) for k in keys if getattr(usage, k, None) is not None}
