"""The Evaluate page's LLM-judge section through AppTest, on a copy of the real Peter Rabbit index, with the judge
at a real OpenAI-compatible HTTP server on 127.0.0.1 started by the test."""

from __future__ import annotations

import contextlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from apptest import store_copy
from streamlit.testing.v1 import AppTest

from paths import APP

TIMEOUT = 240
ENDPOINT_VARS = ("KGCORE_OPENAI_BASE_URL", "OPENAI_BASE_URL", "KGCORE_OPENAI_MODEL", "OPENAI_API_KEY",
                 "KGCORE_OPENAI_API_KEY", "KGCORE_JUDGE_MODEL", "KGCORE_JUDGE_BASE_URL")


class Judge:
    """A judge endpoint replying ``status`` with the scores; counts the prompts it was sent."""

    def __init__(self, status: int, scores: dict):
        self.prompts: list[str] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                endpoint.prompts.append(body["messages"][0]["content"])
                payload = {"id": "c", "object": "chat.completion", "created": 1, "model": body["model"],
                           "choices": [{"index": 0, "finish_reason": "stop",
                                        "message": {"role": "assistant", "content": json.dumps(scores)}}]}
                data = json.dumps(payload if status == 200 else {"error": {"message": "judge is down"}}).encode()
                with contextlib.suppress(OSError):
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def private_store(peter_store, tmp_path, monkeypatch):
    for name in ENDPOINT_VARS:
        monkeypatch.delenv(name, raising=False)
    with store_copy(peter_store.root, tmp_path) as root:
        yield root


def judged_page(monkeypatch, judge: Judge) -> AppTest:
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
