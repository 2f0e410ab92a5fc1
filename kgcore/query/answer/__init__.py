"""Answer generation: the answerers, registered by name, their one ``generate`` signature, the paper's prompts,
citations.

Three answerers are registered (:data:`ANSWERERS`; :func:`get_generator` builds one): ``extractive`` (the
offline default, :mod:`~kgcore.query.answer.extractive`) returns the context sentence that best answers the
question, the span of the kind asked marked; ``qa-kg`` (:mod:`~kgcore.query.answer.short`) ranks the
question–answer pairs generated from the context's frames and returns short answers; ``openai`` sends the paper's
Appendix A prompt (:mod:`~kgcore.query.answer.prompts`) to any OpenAI-compatible chat endpoint
(:mod:`~kgcore.query.answer.openai_compat`).  Every answer is split into sentences and each is linked to the
context sentences that support it by :func:`~kgcore.query.answer.citations.cite`, and every answer carries its
verdict (supported / not supported / unsure, checked claim by claim: :func:`~kgcore.query.answer.verdict.judge`).
"""

from __future__ import annotations

from kgcore.core.registry import Registry
from kgcore.core.settings import Settings
from kgcore.query.answer import extractive, openai_compat, short
from kgcore.query.answer.base import Answerer, AnswerGenerator, AnswerSource
from kgcore.query.answer.citations import cite, cited_ids, split_answer_sentences, strip_markers
from kgcore.query.answer.extractive import ExtractiveGenerator
from kgcore.query.answer.openai_compat import OpenAIGenerator
from kgcore.query.answer.prompts import build_prompt, format_content
from kgcore.query.answer.short import QAKGGenerator
from kgcore.query.answer.verdict import judge
from kgcore.query.answer.words import content_words

__all__ = [
    "ANSWERERS", "AnswerGenerator", "AnswerSource", "Answerer", "ExtractiveGenerator", "OpenAIGenerator",
    "QAKGGenerator", "build_prompt", "check_answerer", "cite", "cited_ids", "content_words", "default_answerer",
    "format_content", "get_generator", "judge", "split_answer_sentences", "strip_markers",
]


#: Every answerer, in menu order: ``--answerer``'s choices and the app's menu.  Adding one is a module here that
#: defines a generator with the ``generate`` signature of :class:`AnswerGenerator` and an ``ANSWERER`` entry, and
#: one line below.
ANSWERERS: Registry[Answerer] = Registry("answerer", [
    extractive.ANSWERER,
    short.ANSWERER,
    openai_compat.ANSWERER,
])


def get_generator(name: str, settings: Settings) -> AnswerGenerator:
    """The answer generator called ``name`` (:data:`ANSWERERS`), configured from ``settings``.

    An unconfigured ``openai`` fails before any model loads.
    """
    return ANSWERERS.get(name).make(settings)


def check_answerer(name: str, settings: Settings) -> None:
    """Fail at once, naming what to set, when answerer ``name`` is unknown or ``settings`` lack what it needs (an
    endpoint for ``openai``): before seconds of loading, not after.

    >>> check_answerer("extractive", Settings())
    >>> check_answerer("openai", Settings())
    Traceback (most recent call last):
    ...
    kgcore.core.errors.ModelUnavailableError: No OpenAI-compatible endpoint is configured: ...
    """
    ANSWERERS.get(name).check(settings)


def default_answerer(settings: Settings) -> str:
    """``openai`` when an endpoint is configured, else the offline ``extractive`` answerer.

    >>> default_answerer(Settings())
    'extractive'
    >>> default_answerer(Settings(openai_base_url="http://localhost:11434/v1", openai_model="llama3"))
    'openai'
    """
    return "openai" if settings.openai_configured else "extractive"
