"""Rerankers of ``qa-kg`` candidates: the factory for the backends (:class:`kgcore.query.rerank.base.Reranker`).

``offline`` (:mod:`~kgcore.query.rerank.offline`, the default) weighs question–pair similarity, answer-type
agreement, lexical overlap, fuzzy and type-level entity matches; ``cross-encoder``
(:mod:`~kgcore.query.rerank.cross_encoder`) adds a local CrossEncoder when ``KGCORE_RERANKER_MODEL`` is set.
"""

from __future__ import annotations

from kgcore.core.settings import Settings
from kgcore.query.rerank.base import WEIGHTS, Candidate, Reranker, offline_score, type_agreement
from kgcore.query.rerank.cross_encoder import CrossEncoderReranker
from kgcore.query.rerank.offline import OfflineReranker

__all__ = ["WEIGHTS", "Candidate", "CrossEncoderReranker", "OfflineReranker", "Reranker", "get_reranker",
           "offline_score", "type_agreement"]


def get_reranker(settings: Settings) -> Reranker:
    """The cross-encoder when ``settings.reranker_model`` names one (a missing folder fails), else offline."""
    if settings.reranker_model:
        return CrossEncoderReranker(settings.reranker_model, settings.device)
    return OfflineReranker()
