"""The asked kind's place in the fused ranking, with a hand-set kind (no parser): it reorders each stage after the
repeated texts are left out, as a sharded driver sees the ranking, and a sentence says it was raised only when the
stage that placed it raised it."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
from story_index import plain_match, story_index

from kgcore.core.settings import RetrievalOptions
from kgcore.query import fused
from kgcore.query.asked_kind import AskedKind

QUESTION = "Whom did Louisa marry?"


def kind(candidates: int, *names: str) -> AskedKind:
    """A person question whose candidates hold a person when they name one of ``names``."""
    found = AskedKind(SimpleNamespace(kind="person"), None, parse=lambda texts: texts, candidates=candidates)
    found.holds = lambda texts: np.array([any(n in written for n in names) for written, _ in texts])  # type: ignore
    return found


def test_repeated_texts_are_left_out_before_the_first_candidates_are_read():
    story = [("Louisa was much the same.", None, 0.9), ("Louisa was much the same.", None, 0.85),
             ("Louisa walked by the sea.", None, 0.8), ("Captain Benwick stood there.", None, 0.6),
             ("The carriage waited.", None, 0.1)]
    index = story_index(story)
    kept = fused.rank_fused(index, QUESTION, plain_match(index), RetrievalOptions(budget_words=200),  # no names
                            asked=kind(3, "Benwick"))[0]
    ranked = [s.text for s in sorted(kept, key=lambda s: s.rank)]
    # the repeat takes no candidate's place: Benwick is the third candidate, raised to the first
    assert ranked[0] == "Captain Benwick stood there." and ranked.count("Louisa was much the same.") == 1


def test_a_sentence_is_marked_raised_only_by_the_stage_that_placed_it(monkeypatch):
    monkeypatch.setattr(fused, "GRAPH_HEAD_WORDS", 10)  # two stages over these short sentences
    story = [("Louisa saw Benwick.", None, 0.5), ("Louisa saw Harville.", None, 0.45),
             ("Louisa walked by the sea.", None, 0.9), ("The carriage waited.", None, 0.1)]
    index = story_index(story)
    match = plain_match(index)
    match.alignment = replace(match.alignment, graph=np.array([1.0, 1.0, 0.0, 0.0]))
    asked = kind(2, "Benwick", "Harville")  # the graph stage's two candidates both hold one: it raises nothing
    kept = fused.rank_fused(index, QUESTION, match, RetrievalOptions(budget_words=1500), asked=asked)[0]
    assert asked.rows.get(1) and not asked.rows.get(0)  # the text stage raised Harville
    assert {s.text: (s.signals.get("stage"), s.signals.get("asked")) for s in kept}["Louisa saw Harville."] == (
        "graph", None)  # placed by the graph stage, which did not raise it
