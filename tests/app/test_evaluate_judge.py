"""The Evaluate page's LLM-judge section through AppTest, on a copy of the real Peter Rabbit index, with the judge
at a real OpenAI-compatible HTTP server on 127.0.0.1 started by the test."""

from __future__ import annotations

import json

import pytest
from apptest import store_copy
from chatkit import ChatServer, completion
from streamlit.testing.v1 import AppTest

from paths import APP

TIMEOUT = 240
ENDPOINT_VARS = ("KGCORE_OPENAI_BASE_URL", "OPENAI_BASE_URL", "KGCORE_OPENAI_MODEL", "OPENAI_API_KEY",
                 "KGCORE_OPENAI_API_KEY", "KGCORE_JUDGE_MODEL", "KGCORE_JUDGE_BASE_URL")


def Judge(status: int, scores: dict) -> ChatServer:  # noqa: N802 - reads as the server it returns
    """A judge endpoint (serving) replying ``status`` with the scores; counts the prompts it was sent."""
    def respond(body: dict, n: int) -> tuple[int, dict, float]:
        ok = completion(json.dumps(scores), body["model"])
        return status, ok if status == 200 else {"error": {"message": "judge is down"}}, 0.0

    return ChatServer(respond).start()


@pytest.fixture
def private_store(peter_store, tmp_path, monkeypatch):
    for name in ENDPOINT_VARS:
        monkeypatch.delenv(name, raising=False)
    with store_copy(peter_store.root, tmp_path) as root:
        yield root


def judged_page(monkeypatch, judge: ChatServer) -> AppTest:
    """Evaluate two dev questions with GroundedKG and no context, extractive answers, the judge switched on."""
    monkeypatch.setenv("KGCORE_OPENAI_BASE_URL", judge.url)
    monkeypatch.setenv("KGCORE_JUDGE_MODEL", "judge-model")
    monkeypatch.setenv("KGCORE_OPENAI_RETRIES", "1")
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page("pages/evaluate.py").run()
    assert not at.exception, [e.value for e in at.exception]
    at.multiselect(key="eval.methods").set_value(["groundedkg", "none"])
    at.selectbox(key="eval.answerer").set_value("extractive")
    at.number_input(key="eval.limit").set_value(2)
    at.checkbox(key="eval.judge").check()
    at.button(key="eval.run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_without_an_endpoint_the_page_says_the_judge_is_unavailable(private_store):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page("pages/evaluate.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("LLM judge unavailable: no OpenAI-compatible endpoint is configured" in i.value for i in at.info)
    assert "eval.judge" not in [c.key for c in at.checkbox]


def test_judge_scores_and_success_rate_per_setting(private_store, monkeypatch):
    judge = Judge(200, {"relevance": 5, "correctness": 4, "completeness": 2, "rationale": "partial"})
    try:
        at = judged_page(monkeypatch, judge)
    finally:
        judge.close()
    assert not at.error, [e.value for e in at.error]
    table = next(d.value for d in at.dataframe if "success %" in d.value.columns).set_index("setting")
    assert list(table.index) == ["groundedkg k=10", "none"]
    assert (table["relevance"] == 5).all() and (table["completeness"] == 2).all()
    assert (table["success %"] == 0).all()  # completeness 2 < 3 fails every answer
    assert (table["failed calls"] == 0).all()
    # Equal (question, answer) pairs are judged once; at least one call per question went out.
    assert 2 <= len(judge.prompts) <= 4
    assert any("judge-model" in c.value and "correctness ≥ 4" in c.value for c in at.caption)
    assert (private_store / "judge_cache.sqlite").exists()


def test_failed_judge_calls_are_reported_not_scored(private_store, monkeypatch):
    judge = Judge(500, {})
    try:
        at = judged_page(monkeypatch, judge)
    finally:
        judge.close()
    table = next(d.value for d in at.dataframe if "success %" in d.value.columns).set_index("setting")
    assert table["success %"].isna().all() and table["relevance"].isna().all()  # no zeros
    assert (table["failed calls"] == 2).all()
    assert any("judge calls failed (0 scored)" in e.value and "HTTP 500" in e.value for e in at.error)
