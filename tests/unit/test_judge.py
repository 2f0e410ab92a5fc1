"""The LLM judge against a real OpenAI-compatible HTTP server on 127.0.0.1 started by the test.

Good replies, malformed JSON, out-of-range scores, HTTP 500, a timeout, the SQLite cache (the server counts
the calls), aggregation over successful calls only, and ``kgcore eval --judge``'s exit codes (the evaluation
itself is replaced by a function that judges fixed answers, so no index or model is needed).
"""

from __future__ import annotations

import json

import pytest
from chatkit import ChatServer

from kgcore.core.settings import Settings
from kgcore.evaluate import EvalRecord, EvalRun, summarize
from kgcore.evaluate.judge import (
    PROMPT_VERSION,
    Judge,
    JudgeCache,
    aggregate,
    judge_unavailable,
)

KEY = "sk-judge-SECRET-42"
QUESTION = "What did Mrs. Rabbit buy at the baker's?"
ANSWER = "A loaf of brown bread and five currant buns."
GOLD = ["a loaf of brown bread and five currant buns"]


def completion(content: str) -> dict:
    return {"id": "c1", "object": "chat.completion", "created": 1_700_000_000, "model": "judge-served",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}


def scores(relevance=5, correctness=5, completeness=4, rationale="matches the reference") -> str:
    return json.dumps({"relevance": relevance, "correctness": correctness, "completeness": completeness,
                       "rationale": rationale})


def Endpoint(reply) -> ChatServer:  # noqa: N802 - reads as the server it returns
    """POST /v1/chat/completions answered by ``reply(prompt) -> (status, body, delay)``; counts the calls."""
    return ChatServer(lambda body, n: reply(body["messages"][0]["content"]))


def settings_for(url: str, **changes) -> Settings:
    return Settings(openai_base_url=url, openai_model="answer-model", judge_model="judge-model",
                    openai_api_key=KEY, openai_timeout_s=5.0, openai_retries=1).with_(**changes)


def fixed(status: int, body, delay: float = 0.0):
    return lambda prompt: (status, body, delay)


# -- one call -------------------------------------------------------------------------------------------------
def test_good_reply_is_scored_with_the_rubric_and_the_judge_model():
    with Endpoint(fixed(200, completion(scores(5, 4, 3)))) as server:
        score = Judge(settings_for(server.url)).score(QUESTION, ANSWER, GOLD)
    assert (score.ok, score.relevance, score.correctness, score.completeness) == (True, 5, 4, 3)
    assert score.success is True  # 5 >= 4, 4 >= 4, 3 >= 3
    assert (score.model, score.prompt_version, score.rationale) == ("judge-model", PROMPT_VERSION,
                                                                     "matches the reference")
    [prompt] = server.prompts
    assert server.models == ["judge-model"]  # KGCORE_JUDGE_MODEL wins over the answerer's model
    assert QUESTION in prompt and ANSWER in prompt and GOLD[0] in prompt
    assert "relevance" in prompt and "correctness" in prompt and "completeness" in prompt


def test_success_rule_needs_every_threshold():
    with Endpoint(fixed(200, completion(scores(5, 3, 5)))) as server:
        score = Judge(settings_for(server.url)).score(QUESTION, "Bread.", GOLD)
    assert score.ok and score.success is False  # correctness 3 < 4
    assert score.to_dict()["success"] is False


def test_fenced_json_is_accepted():
    reply = "```json\n" + scores(4, 4, 3) + "\n```"
    with Endpoint(fixed(200, completion(reply))) as server:
        score = Judge(settings_for(server.url)).score(QUESTION, ANSWER, GOLD)
    assert score.ok and score.success


@pytest.mark.parametrize(("reply", "reason"), [
    ("Relevance: 5, correctness: 4", "the reply is not a JSON object"),
    ('{"relevance": 5, "correctness": 4', "the reply is not a JSON object"),
    ("Sure! " + scores(), "the reply is not a JSON object"),
    (json.dumps({"relevance": 5, "correctness": 4}), "the reply has no 'completeness' score"),
    (scores(0, 4, 3), "relevance is 0, outside 1-5"),
    (scores(5, 9, 3), "correctness is 9, outside 1-5"),
    (scores(5, 4, "3"), "completeness is '3', not an integer"),
    (scores(5, 4.5, 3), "correctness is 4.5, not an integer"),
    (scores(True, 4, 3), "relevance is True, not an integer"),
])
def test_unusable_replies_are_failures_with_the_reason_never_zero(reply, reason):
    with Endpoint(fixed(200, completion(reply))) as server:
        score = Judge(settings_for(server.url)).score(QUESTION, ANSWER, GOLD)
    assert not score.ok and score.success is None
    assert (score.relevance, score.correctness, score.completeness) == (None, None, None)
    assert "unusable reply" in score.error and reason in score.error and server.url in score.error


def test_http_500_is_a_failure_after_the_retries():
    body = {"error": {"message": "judge overloaded"}}
    with Endpoint(fixed(500, body)) as server:
        score = Judge(settings_for(server.url, openai_retries=2)).score(QUESTION, ANSWER, GOLD)
    assert len(server.prompts) == 2  # retried once
    assert not score.ok and "server error (HTTP 500): judge overloaded" in score.error
    assert KEY not in score.error


def test_timeout_is_a_failure():
    with Endpoint(fixed(200, completion(scores()), delay=1.5)) as server:
        score = Judge(settings_for(server.url, openai_timeout_s=0.3)).score(QUESTION, ANSWER, GOLD)
    assert not score.ok and "timed out (timeout 0.3 s)" in score.error


# -- cache ----------------------------------------------------------------------------------------------------
def test_cache_hit_skips_the_call_and_depends_on_answer_reference_and_model(tmp_path):
    cache = JudgeCache(tmp_path / "judge_cache.sqlite")
    with Endpoint(fixed(200, completion(scores(4, 5, 3)))) as server:
        first = Judge(settings_for(server.url), cache).score(QUESTION, ANSWER, GOLD)
        again = Judge(settings_for(server.url), JudgeCache(cache.path)).score(QUESTION, ANSWER, GOLD)
        assert len(server.prompts) == 1  # the second judge (a new process, say) read the file
        assert (again.cached, again.relevance, again.correctness, again.completeness) == (True, 4, 5, 3)
        assert not first.cached and again.success == first.success
        Judge(settings_for(server.url), cache).score(QUESTION, "Carrots.", GOLD)  # another answer
        Judge(settings_for(server.url), cache).score(QUESTION, ANSWER, ["bread"])  # another reference
        Judge(settings_for(server.url, judge_model="other-judge"), cache).score(QUESTION, ANSWER, GOLD)
        assert len(server.prompts) == 4
    assert len(cache) == 4


def test_failures_are_not_cached(tmp_path):
    cache = JudgeCache(tmp_path / "judge_cache.sqlite")
    replies = iter([(500, {"error": "down"}, 0.0), (200, completion(scores()), 0.0)])
    with Endpoint(lambda prompt: next(replies)) as server:
        judge = Judge(settings_for(server.url), cache)
        assert not judge.score(QUESTION, ANSWER, GOLD).ok
        assert len(cache) == 0
        assert judge.score(QUESTION, ANSWER, GOLD).ok  # asked again, and now it works
    assert len(server.prompts) == 2 and len(cache) == 1


# -- aggregation and availability ---------------------------------------------------------------------------------
def test_aggregate_counts_failures_and_averages_only_successes():
    replies = iter([scores(5, 5, 5), "not json", scores(3, 2, 1)])
    with Endpoint(lambda prompt: (200, completion(next(replies)), 0.0)) as server:
        judge = Judge(settings_for(server.url))
        results = [judge.score(QUESTION, f"answer {i}", GOLD) for i in range(3)]
    stats = aggregate(results)
    assert stats == {"judged": 2, "judge_failures": 1, "relevance": 4.0, "correctness": 3.5,
                     "completeness": 3.0, "success_rate": 50.0}


def test_summary_rows_carry_judge_columns():
    def record(label, judge):
        return EvalRecord("d", label, "dense", {}, 1, "q", ["a"], "", "a", judge=judge)

    ok = {"ok": True, "relevance": 5, "correctness": 4, "completeness": 3, "success": True}
    bad = {"ok": False, "relevance": None, "correctness": None, "completeness": None, "success": None,
           "error": "HTTP 500"}
    rows = summarize([record("dense", ok), record("dense", bad), record("bm25", bad)])
    assert rows[0]["judge_success_rate"] == 100.0 and rows[0]["judge_failures"] == 1
    assert rows[1]["judge_success_rate"] is None and rows[1]["judge_failures"] == 1  # never a zero
    assert "judge_failures" not in summarize([record("dense", None)])[0]


def test_unavailable_says_what_to_set():
    assert "KGCORE_OPENAI_BASE_URL" in judge_unavailable(Settings())
    assert "KGCORE_JUDGE_MODEL" in judge_unavailable(Settings(openai_base_url="http://127.0.0.1:9/v1"))
    assert judge_unavailable(Settings(openai_base_url="http://127.0.0.1:9/v1", judge_model="j")) == ""
    env = Settings.from_env({"KGCORE_JUDGE_MODEL": "qwen3", "KGCORE_JUDGE_BASE_URL": "http://127.0.0.1:9/v1"})
    assert (env.judge_model, env.judge_base_url) == ("qwen3", "http://127.0.0.1:9/v1")


# -- kgcore eval --judge ----------------------------------------------------------------------------------------
class _Engine:
    """Only what ``cmd_eval`` touches before and after the (replaced) evaluation."""

    def __init__(self, store, settings=None):
        self.store, self.settings = store, Settings.from_env()

    def index(self, doc_id):
        return doc_id


def _eval_cli(monkeypatch, tmp_path, env: dict[str, str]):
    """Run ``kgcore eval --judge`` where the evaluation answers two questions with fixed answers."""
    import kgcore.cli.evaluation as cli
    from kgcore.cli import main

    for name in ("KGCORE_OPENAI_BASE_URL", "OPENAI_BASE_URL", "KGCORE_OPENAI_MODEL", "OPENAI_API_KEY",
                 "KGCORE_OPENAI_API_KEY", "KGCORE_JUDGE_MODEL", "KGCORE_JUDGE_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)

    def fake_evaluate(engine, doc_id, items, grid, answerer, progress, scorer, keep_failures, judge):
        records = [EvalRecord(doc_id, "dense", "dense", {}, i, it.question, list(it.answers), "", it.answers[0])
                   for i, it in enumerate(items)]
        for r in records:
            r.judge = judge.score(r.question, r.prediction, r.answers).to_dict()
        return EvalRun([{"doc_id": doc_id, "answerer": "extractive"}], records, summarize(records))

    monkeypatch.setattr(cli, "QueryEngine", _Engine)
    monkeypatch.setattr(cli, "evaluate", fake_evaluate)
    monkeypatch.setattr(cli, "BertScorer", lambda encoder=None: type("S", (), {"model_name": "none"})())
    qa = tmp_path / "qa.csv"
    qa.write_text("question,answer1\nWho ran?,Peter\nWhat did he lose?,his shoes\n", encoding="utf-8")
    return main(["eval", "--store", str(tmp_path / "store"), "--collection", "peter", "--qa", str(qa),
                 "--out", str(tmp_path / "out"), "--judge", "--quiet"])


def test_cli_eval_exits_1_when_every_judge_call_failed(monkeypatch, tmp_path, capsys):
    with Endpoint(fixed(500, {"error": "down"})) as server:
        code = _eval_cli(monkeypatch, tmp_path, {"KGCORE_OPENAI_BASE_URL": server.url,
                                                 "KGCORE_JUDGE_MODEL": "j", "KGCORE_OPENAI_RETRIES": "1"})
    err = capsys.readouterr().err
    assert code == 1 and "error: every judge call failed (2 of 2)" in err and "HTTP 500" in err


def test_cli_eval_judges_writes_columns_and_reuses_the_cache(monkeypatch, tmp_path, capsys):
    with Endpoint(fixed(200, completion(scores(5, 4, 3)))) as server:
        env = {"KGCORE_OPENAI_BASE_URL": server.url, "KGCORE_JUDGE_MODEL": "j"}
        assert _eval_cli(monkeypatch, tmp_path, env) == 0
        assert _eval_cli(monkeypatch, tmp_path, env) == 0
    assert len(server.prompts) == 2  # the second run came from <store>/judge_cache.sqlite
    out = capsys.readouterr()
    assert "J.Succ" in out.out and "2 from the cache" in out.err
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["rows"][0]["judge_success_rate"] == 100.0 and "judge_failures" in summary["columns"]
    assert (tmp_path / "store" / "judge_cache.sqlite").exists()


def test_cli_eval_judge_without_endpoint_exits_2(monkeypatch, tmp_path, capsys):
    assert _eval_cli(monkeypatch, tmp_path, {}) == 2
    assert "--judge: no OpenAI-compatible endpoint is configured" in capsys.readouterr().err


def test_a_damaged_cache_file_is_refused_naming_it(tmp_path):
    from kgcore.core.errors import InputError

    path = tmp_path / "judge_cache.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(InputError, match="judge_cache.sqlite: is not a judge cache"):
        JudgeCache(path)
