"""The diff of two methods or settings (no models): one question, and a question set with paired tests."""

from __future__ import annotations

import doctest

import pytest
from scipy.stats import binomtest

from kgcore.core.errors import InputError
from kgcore.core.types import Answer, Match, QueryResult, SelectedSentence
from kgcore.evaluate import diff
from kgcore.evaluate.diff import compare_settings, question_diff
from kgcore.evaluate.records import EvalRecord


def test_doctests():
    result = doctest.testmod(diff)
    assert result.attempted > 0 and result.failed == 0


def run(ids: list[str], nodes: list[str], answer: str) -> tuple[QueryResult, Answer]:
    sentences = [SelectedSentence(i, int(i[-1]), f"Sentence {i}.", "") for i in ids]
    matches = [Match("q0", n, n.title(), [], "entity", 1.0 - k / 10, k) for k, n in enumerate(nodes)]
    return QueryResult("Who ran?", "m", "book", None, matches, sentences, {}, {}), Answer(answer, "x", "", [])


def test_one_question_diff():
    a = run(["b/t-3", "b/t-1", "b/t-2"], ["peter", "gate"], "Peter ran.")
    b = run(["b/t-2", "b/t-4"], ["peter", "mcgregor"], "Peter  ran.")
    d = question_diff(*a, *b, evidence="Sentence b/t-4.", label_a="GroundedKG", label_b="BM25")
    assert d.only_a == [("b/t-3", 1, "Sentence b/t-3."), ("b/t-1", 2, "Sentence b/t-1.")]
    assert d.only_b == [("b/t-4", 2, "Sentence b/t-4.")]
    assert d.both == [("b/t-2", 3, 1, "Sentence b/t-2.")]
    assert d.nodes_only_a == [("gate", "Gate")] and d.nodes_only_b == [("mcgregor", "Mcgregor")]
    assert d.nodes_both == [("peter", "Peter")]
    assert d.same_answer and (d.evidence_a, d.evidence_b) == (False, True)
    assert (d.words_a, d.words_b) == (a[0].context_words, b[0].context_words) and d.words_a > d.words_b
    assert question_diff(*a, *b).evidence_a is None  # no gold evidence: no hit either way


def record(label: str, qid: int, sm: float, rouge: float, hit: bool | None, words: int = 100,
           error: str = "") -> EvalRecord:
    return EvalRecord("book", label, label, {}, qid, f"Q{qid}?", ["gold"], "ev", "answer", exact_match=sm,
                      sequence_match=sm, rouge_l=rouge, evidence_hit=hit, context_words=words, error=error)


def test_question_set_win_loss_tie_paired_tests_and_flips():
    a_sm = [1, 1, 0, 0, 0, 0, 0, 1]
    b_sm = [1, 0, 1, 1, 1, 1, 1, 1]
    records = [record("A", q, a_sm[q], 0.2 + q / 100, q % 2 == 0) for q in range(8)]
    records += [record("B", q, b_sm[q], 0.5 + q / 100, True, words=50) for q in range(8)]
    records.append(record("B", 99, 1, 1, True, error="refused"))  # failed with an error: not compared
    result = compare_settings(records, "A", "B", samples=500)
    assert result.questions == 8
    sm = next(m for m in result.metrics if m.metric == "sequence_match")
    assert (sm.wins, sm.losses, sm.ties, sm.test) == (5, 1, 2, "McNemar exact")
    assert sm.p_value == pytest.approx(binomtest(1, 6, 0.5).pvalue)
    assert (sm.mean_a, sm.mean_b) == (3 / 8, 7 / 8)
    rouge = next(m for m in result.metrics if m.metric == "rouge_l")
    assert (rouge.wins, rouge.test) == (8, "paired bootstrap") and rouge.p_value < 0.01
    assert rouge.ci == (pytest.approx(0.3), pytest.approx(0.3))
    words = next(m for m in result.metrics if m.metric == "context_words")
    assert words.wins == 8  # fewer words is better
    answer_flips = [(f.question_id, f.better) for f in result.flipped if f.what == "answer"]
    assert answer_flips == [(1, "A"), (2, "B"), (3, "B"), (4, "B"), (5, "B"), (6, "B")]
    assert [f.question_id for f in result.flipped if f.what == "evidence"] == [1, 3, 5, 7]


def test_unknown_or_equal_settings_are_refused():
    records = [record("A", 0, 1, 1, True), record("B", 0, 1, 1, True)]
    with pytest.raises(InputError, match="label_b: no answered question has the setting 'C'"):
        compare_settings(records, "A", "C")
    with pytest.raises(InputError, match="label_b: choose two different settings"):
        compare_settings(records, "A", "A")
