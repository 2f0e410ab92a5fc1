"""The word budget's greedy fill: the vectorised search for the next sentence that fits keeps exactly what a
plain walk over the ranking keeps."""

from __future__ import annotations

import random

from kgcore.query.context import budget_positions


def _plain(words: list[int], budget_sentences: int, budget_words: int) -> list[int]:
    kept: list[int] = []
    total = 0
    for i, n in enumerate(words):
        if budget_sentences and len(kept) >= budget_sentences:
            break
        if budget_words and total + n > budget_words:
            continue
        kept.append(i)
        total += n
    return kept


def test_budget_positions_equal_the_plain_greedy_walk():
    rng = random.Random(7)
    for _ in range(500):
        words = [rng.choice((0, 1, 2, 3, 5, 8, 13, 21, 40, 90)) for _ in range(rng.randint(0, 60))]
        budget_sentences, budget_words = rng.choice((0, 0, 3, 10)), rng.choice((0, 1, 7, 30, 100, 400))
        assert budget_positions(words, budget_sentences, budget_words) == _plain(words, budget_sentences, budget_words)


def test_a_sentence_longer_than_the_budget_is_skipped_and_shorter_ones_later_still_fill_it():
    assert budget_positions([50, 120, 3, 40, 9], budget_words=60) == [0, 2]
    assert budget_positions([], budget_words=10) == [] and budget_positions([5, 5], budget_sentences=1) == [0]
