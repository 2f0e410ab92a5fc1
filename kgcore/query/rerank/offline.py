"""The ``offline`` reranker: the weighted features of :mod:`kgcore.query.rerank.base`, no model."""

from __future__ import annotations

from collections.abc import Sequence

from kgcore.query.rerank.base import Candidate, by_score, offline_score


class OfflineReranker:
    """Scores every candidate by :func:`~kgcore.query.rerank.base.offline_score`."""

    name = "offline"

    def rerank(self, question: str, candidates: Sequence[Candidate]) -> list[Candidate]:
        for c in candidates:
            c.score = offline_score(c.features)
        return by_score(candidates)
