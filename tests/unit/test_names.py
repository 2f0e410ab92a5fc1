"""The question's names in the fused ranking: who the question is about, found with coreference, lifts the sentences
about them above equally relevant sentences about someone else -- under budgets past the small ones."""

from __future__ import annotations

import pytest
from story_index import plain_match, story_index

from kgcore.core.settings import RetrievalOptions
from kgcore.index.store.disk import Index
from kgcore.index.views.contextual import context_graph
from kgcore.query import fused, names

QUESTION = "What did Anne pour into the bucket?"
#: (written, coref-resolved, cosine to the question): Anne is named in most sentences, so BM25 gives her little
#: weight; the sentence about her says "she", and dense retrieval prefers Diana's and the farmer's.
STORY = [
    ("Anne walked to the farm at dawn.", None, 0.1),
    ("Anne met Gilbert by the gate.", None, 0.1),
    ("Anne laughed at the old cow.", None, 0.1),
    ("She poured fresh milk into the bucket.", "Anne poured fresh milk into the bucket.", 0.5),
    ("Diana poured cold water into the bucket.", None, 0.9),
    ("The farmer carried a bucket of oats.", None, 0.7),
]


def story() -> Index:
    """The story as a collection (:func:`story_index.story_index`)."""
    return story_index(STORY)


def ranked(index: Index, budget_words: int) -> list:
    """The fused ranking's selected sentences under ``budget_words``, no graph evidence."""
    return fused.rank_fused(index, QUESTION, plain_match(index), RetrievalOptions(budget_words=budget_words))[0]


def ranks(index: Index, budget_words: int) -> dict[str, int]:
    """Each sentence's place in the fused order (1 = first) under ``budget_words``, by its first word."""
    return {s.text.split()[0]: s.rank for s in ranked(index, budget_words)}


def test_the_question_names_its_characters_and_coreference_finds_them():
    assert names.question_names(QUESTION) == ["ann"]
    index = story()
    share = names.name_share(index, context_graph(index), QUESTION)
    assert share is not None and share[:6].tolist() == [1, 1, 1, 1, 0, 0]  # "She" is Anne through coreference
    assert names.name_share(index, context_graph(index), "What is in the bucket?") is None


@pytest.mark.parametrize("weight", [0.5, 1.0, 2.0])
def test_a_sentence_about_the_character_asked_outranks_one_about_someone_else(monkeypatch, weight):
    index = story()
    monkeypatch.setattr(fused, "NAME_WEIGHT", 0.0)
    before = ranks(index, 1000)
    assert before["Diana"] < before["She"]  # without the names, dense relevance decides
    monkeypatch.setattr(fused, "NAME_WEIGHT", weight)
    after = ranks(index, 1000)
    assert after["She"] < after["Diana"]


def test_the_default_weighs_names_past_small_budgets_only():
    assert fused.NAME_WEIGHT > 0
    index = story()
    assert ranks(index, 1000)["She"] < ranks(index, 1000)["Diana"]
    assert ranks(index, 200)["Diana"] < ranks(index, 200)["She"]  # two layers, no names, as before
    assert fused.name_weight_for(0) == fused.NAME_WEIGHT  # a sentence budget (no word budget) is not small


def test_a_sentence_reports_the_factor_its_names_gave_it():
    index = story()
    factors = {s.text.split()[0]: s.signals.get("names") for s in ranked(index, 1000)}
    assert factors["She"] == 1 + fused.NAME_WEIGHT and factors["Diana"] == 1.0
    assert all("names" not in s.signals for s in ranked(index, 200))


def test_the_multi_hop_walk_weighs_no_names():
    """A chained question's second page is the one it does not name: the walk ranks without the names' weight."""
    from kgcore.query import multihop

    index = story()
    match = plain_match(index)
    kept, _ = multihop.rank_multihop(index, QUESTION, match, RetrievalOptions(budget_words=1000),
                                     multihop.Walk((), [], False))
    order = {s.text.split()[0]: s.rank for s in kept}
    assert order["Diana"] < order["She"] and all("names" not in s.signals for s in kept)
    weighed, _ = fused.rank_fused(index, QUESTION, match, RetrievalOptions(budget_words=1000), names_weight=0.0)
    assert [s.rank for s in weighed] == [s.rank for s in kept]
