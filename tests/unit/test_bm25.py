"""The vectorised BM25 gives rank_bm25's BM25Okapi scores (the reference implementation) on any corpus."""

import random

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from kgcore.query.sparse_bm25 import SparseBM25


@pytest.mark.parametrize("seed", range(5))
def test_scores_equal_rank_bm25_including_common_words_repeats_and_unknown_words(seed):
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(40)] + ["common"] * 30  # "common" is in most documents: idf floor
    corpus = [[rng.choice(words) for _ in range(rng.randint(1, 25))] for _ in range(200)]
    reference, mine = BM25Okapi(corpus), SparseBM25(corpus)
    for _ in range(20):
        query = [rng.choice(words + ["never-seen"]) for _ in range(rng.randint(1, 6))]
        assert np.allclose(mine.get_scores(query), reference.get_scores(query), rtol=1e-10, atol=1e-12)


def test_an_empty_query_or_corpus():
    assert SparseBM25([["a"]]).get_scores([]).tolist() == [0.0]
    with pytest.raises(ValueError):
        SparseBM25([])
