"""Answer generation: the generator protocol, the paper's prompts, citations and the backends.

Three generators exist (see :func:`get_generator`): ``qa-kg`` (:mod:`~kgcore.query.answer.short`)
ranks the question–answer pairs generated from the context's frames and returns short answers; ``openai`` sends the
paper's Appendix A prompt (:mod:`~kgcore.query.answer.prompts`) to any
OpenAI-compatible chat endpoint (:mod:`~kgcore.query.answer.openai_compat`),
and ``extractive`` (the offline default, :mod:`~kgcore.query.answer.extractive`)
returns the best supporting span of the retrieved context.  Every answer is
split into sentences and each is linked to the context sentences that
support it by :func:`~kgcore.query.answer.citations.cite`, and every answer
carries its verdict (supported / not supported / unsure, checked claim by
claim: :func:`~kgcore.query.answer.verdict.judge`).
"""

from __future__ import annotations

from kgcore.core.errors import InputError
from kgcore.core.nlp import load_spacy
from kgcore.core.settings import ANSWERERS, Settings
from kgcore.index.embed import query_embedder
from kgcore.query.answer.base import AnswerGenerator
from kgcore.query.answer.citations import cite, cited_ids, split_answer_sentences, strip_markers
from kgcore.query.answer.extractive import ExtractiveGenerator
from kgcore.query.answer.openai_compat import OpenAIGenerator
from kgcore.query.answer.prompts import build_prompt, format_content
from kgcore.query.answer.short import QAKGGenerator
from kgcore.query.answer.verdict import judge
from kgcore.query.answer.words import content_words
from kgcore.query.rerank import get_reranker

__all__ = [
    "AnswerGenerator", "ExtractiveGenerator", "OpenAIGenerator", "QAKGGenerator", "build_prompt", "cite", "cited_ids",
    "content_words", "default_answerer", "format_content", "get_generator", "judge", "split_answer_sentences",
    "strip_markers",
]


def get_generator(name: str, settings: Settings) -> AnswerGenerator:
    """The answer generator called ``name`` (``extractive`` or ``openai``), configured from ``settings``.

    An unconfigured ``openai`` fails before any model loads.
    """
    if name == "extractive":
        return ExtractiveGenerator(embedder=query_embedder(settings), nlp=load_spacy(settings.spacy_model))
    if name == "qa-kg":
        return QAKGGenerator(embedder=query_embedder(settings), nlp=load_spacy(settings.spacy_model),
                             reranker=get_reranker(settings))
    if name == "openai":
        OpenAIGenerator.check_configured(settings)
        return OpenAIGenerator(settings, embedder=query_embedder(settings))
    raise InputError("answerer", f"unknown value {name!r} (choose one of {', '.join(ANSWERERS)})")


def default_answerer(settings: Settings) -> str:
    """``openai`` when an endpoint is configured, else the offline ``extractive`` answerer.

    >>> default_answerer(Settings())
    'extractive'
    >>> default_answerer(Settings(openai_base_url="http://localhost:11434/v1", openai_model="llama3"))
    'openai'
    """
    return "openai" if settings.openai_configured else "extractive"
