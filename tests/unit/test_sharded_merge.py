"""Merging the shards' own selections (:func:`kgcore.query.sharded_fusion.merge_runs`): by score, each shard's
order kept, ranks never going back although a shard's own ranks skip what its budget left out."""

from __future__ import annotations

from kgcore.core.settings import RetrievalOptions
from kgcore.core.types import SelectedSentence
from kgcore.query.sharded_fusion import merge_runs


def _s(sid: str, position: int, score: float, rank: int) -> SelectedSentence:
    return SelectedSentence(sid, position, f"Sentence {sid} here.", f"Sentence {sid} here.", score=score, rank=rank)


def test_merged_ranks_rise_although_a_shard_skipped_ranks():
    a = [_s("a1", 0, 0.9, 1), _s("a5", 1, 0.8, 5)]  # shard A's ranks 2-4 did not fit its budget
    b = [_s("b1", 10, 0.7, 1)]
    merged, candidates = merge_runs([(a, 7), (b, 3)], RetrievalOptions(budget_words=0, k=10))
    assert [s.id for s in merged] == ["a1", "a5", "b1"] and candidates == 10
    ranks = [s.rank for s in merged]
    assert ranks == sorted(ranks) and len(set(ranks)) == 3, ranks
