"""The NarrativeQA bench (bench/narrativeqa.py) without models: the committed split, reading a book's questions,
the shared store's readiness check, and the per-split summary with paired intervals against the best text method."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from paths import ROOT


@pytest.fixture(scope="module")
def nqa():
    sys.path.insert(0, str(ROOT / "bench"))  # the bench imports its siblings (common, fused_quality)
    spec = importlib.util.spec_from_file_location("bench_narrativeqa", ROOT / "bench" / "narrativeqa.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_split_holds_whole_books_five_for_design_three_held_out_none_in_both(nqa):
    parts = nqa.split()
    assert len(parts["design"]) == 5 and len(parts["held_out"]) == 3
    assert not set(parts["design"]) & set(parts["held_out"])
    assert nqa.books()[:5] == parts["design"]  # design books are indexed first


def test_a_books_questions_carry_both_reference_answers(nqa, tmp_path, monkeypatch):
    monkeypatch.setattr(nqa, "DATA", tmp_path)
    (tmp_path / "tale_qa.csv").write_text('question,answer1,answer2\n"Who sold the cow?",Anne,Anne Shirley\n'
                                          "How old was she?,19,\n", encoding="utf-8")
    questions = nqa.questions("tale")
    assert [q.text for q in questions] == ["Who sold the cow?", "How old was she?"]
    assert questions[0].answers == ("Anne", "Anne Shirley") and questions[1].answers == ("19",)
    assert all(q.evidence == () for q in questions)  # written from summaries: no evidence span to check


def test_the_store_check_names_the_books_not_yet_indexed(nqa, tmp_path):
    with pytest.raises(SystemExit, match=r"lacks \['persuasion'\].*narrativeqa.py index"):
        nqa.book_store(["persuasion"], tmp_path)


def _rows(book: str, values: dict[str, list[float]], budget: int = 200) -> list[dict]:
    return [{"book": book, "variant": v, "budget_words": budget, "per_question": q} for v, q in values.items()]


def test_the_summary_pools_a_splits_books_and_compares_each_method_with_the_best_text_method(nqa):
    rows = _rows("a", {"groundedkg": [1.0, 1.0], "dense": [1.0, 0.0], "bm25": [0.0, 0.0], "hybrid": [0.0, 0.5]})
    rows += _rows("b", {"groundedkg": [0.0, 0.0], "dense": [0.0, 0.0], "bm25": [1.0, 1.0], "hybrid": [0.0, 0.0]})
    rows += _rows("c", {"groundedkg": [0.0], "dense": [1.0], "bm25": [1.0], "hybrid": [1.0]})  # another split
    out = nqa.summary(rows, {"design": ["a", "b"], "held_out": ["c", "d"]})
    pooled = out["design"]["pooled"]["200"]
    # pooled over a and b: dense 0.25, bm25 0.5, hybrid 0.125 -> bm25 is the best text method
    assert pooled["questions"] == 4 and pooled["best_text"] == "bm25"
    assert pooled["methods"]["groundedkg"]["recall"] == 0.5 and pooled["methods"]["groundedkg"]["margin"] == 0.0
    lo, hi = pooled["methods"]["groundedkg"]["ci95"]
    assert lo < 0 < hi  # it wins book a and loses book b: a tie
    assert "ci95" not in pooled["methods"]["bm25"]
    # each book has its own best text method
    assert out["design"]["per_book"]["a"]["200"]["best_text"] == "dense"
    assert out["design"]["per_book"]["a"]["200"]["methods"]["groundedkg"]["margin"] == 0.5
    # the held-out split reports only the book measured, and never mixes in the design books
    assert out["held_out"]["books"] == ["c"] and out["held_out"]["pooled"]["200"]["questions"] == 1
    assert out["held_out"]["pooled"]["200"]["methods"]["groundedkg"]["margin"] == -1.0
    table = nqa.table(out["design"])
    assert "| bm25 | **0.500** |" in table and "| groundedkg | 0.500 (+0.000 [" in table


def test_a_variant_missing_on_one_book_is_left_out_of_the_pooled_comparison(nqa):
    rows = _rows("a", {"groundedkg": [1.0], "lesegr": [0.0], "dense": [0.5], "bm25": [0.0], "hybrid": [0.0]})
    rows += _rows("b", {"groundedkg": [1.0], "dense": [0.5], "bm25": [0.0], "hybrid": [0.0]})
    pooled = nqa.summary(rows, {"design": ["a", "b"]})["design"]["pooled"]["200"]
    assert "lesegr" not in pooled["methods"] and pooled["methods"]["groundedkg"]["margin"] == 0.5
