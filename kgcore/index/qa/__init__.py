"""Question–answer pair generation, an indexing stage (the graph of generated QA pairs, each grounded in its sentence).

Backends, one file each, implementing :class:`kgcore.index.qa.base.QAGenerator`: ``frames`` (offline, wh-
questions from the stored SRL frames, :mod:`kgcore.index.qa.frames`; always on) and ``llm`` (an
OpenAI-compatible endpoint per chunk, :mod:`kgcore.index.qa.llm`; added when ``KGCORE_QA_LLM=1`` and an
endpoint is configured).  :mod:`kgcore.index.store.qa_table` stores the pairs and their vectors in the document's
shard.
"""

from __future__ import annotations

from collections.abc import Sequence

from kgcore.core.qa_pair import QAPair
from kgcore.core.settings import Settings
from kgcore.core.types import Sentence
from kgcore.index.qa.base import QAGenerator, unique_pairs
from kgcore.index.qa.frames import FrameQAGenerator
from kgcore.index.qa.llm import LLMQAGenerator

__all__ = ["FrameQAGenerator", "LLMQAGenerator", "QAGenerator", "QAPair", "generate_pairs", "qa_generators"]


def qa_generators(settings: Settings) -> list[QAGenerator]:
    """The backends an index runs: ``frames``, and ``llm`` when ``settings.qa_llm`` (fails when unconfigured)."""
    generators: list[QAGenerator] = [FrameQAGenerator()]
    if settings.qa_llm:
        generators.append(LLMQAGenerator(settings))
    return generators


def generate_pairs(sentences: Sequence[Sentence], analyses: dict[str, dict],
                   generators: Sequence[QAGenerator]) -> list[QAPair]:
    """Every backend's pairs, in sentence order, without duplicates (the first backend's copy kept)."""
    pairs = [p for g in generators for p in g.generate(sentences, analyses)]
    order = {s.id: i for i, s in enumerate(sentences)}
    return unique_pairs(sorted(pairs, key=lambda p: order.get(p.sentence_id, len(order))))
