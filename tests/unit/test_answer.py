"""Answer generation without models: prompts, lexical citation alignment, the factory and the OpenAI client.

The OpenAI-compatible path talks to a real HTTP server on 127.0.0.1 started
by the test, so the request really goes through the ``openai`` package.
"""

from __future__ import annotations

import logging
import socket
import time

import pytest
from chatkit import ChatServer, scripted

from kgcore.core.errors import GenerationError, InputError, ModelUnavailableError
from kgcore.core.settings import Settings
from kgcore.query.answer import (
    AnswerSource,
    build_prompt,
    cite,
    default_answerer,
    get_generator,
    split_answer_sentences,
)
from kgcore.query.answer.openai_compat import OpenAIGenerator
from samples import BY_ID
from samples import PETER_CONTEXT as PETER

KEY = "sk-test-SECRET-0123456789"


# -- prompts --------------------------------------------------------------------
def test_prompt_with_content_is_the_papers_with_ids_in_document_order():
    context = [BY_ID["text_0-23"], BY_ID["text_0-22"]]
    assert build_prompt("What did Mrs. Rabbit buy?", context, "peter_rabbit") == (
        "Please answer the question based on the following content:\n\n"
        "Content: [text_0-22] Then old Mrs. Rabbit took a basket and her umbrella and went through the wood "
        "to the baker's.\n"
        "[text_0-23] She bought a loaf of brown bread and five currant buns.\n\n"
        "Question: What did Mrs. Rabbit buy?\n\nAnswer:"
    )
    assert build_prompt("What did Mrs. Rabbit buy?", context, with_ids=False) == (
        "Please answer the question based on the following content:\n\n"
        "Content: Then old Mrs. Rabbit took a basket and her umbrella and went through the wood to the baker's. "
        "She bought a loaf of brown bread and five currant buns.\n\n"
        "Question: What did Mrs. Rabbit buy?\n\nAnswer:"
    )


def test_prompt_without_content_names_the_book():
    assert build_prompt("Who is Peter?", [], "The Tale of Peter Rabbit") == (
        "Please answer the question based on your memory of the book The Tale of Peter Rabbit:\n\n"
        "Question: Who is Peter?\n\nAnswer:"
    )


def test_factory_and_default():
    assert default_answerer(Settings()) == "extractive"
    assert default_answerer(Settings(openai_base_url="http://127.0.0.1:1/v1", openai_model="m")) == "openai"
    with pytest.raises(InputError, match="answerer: unknown value 'gpt'"):
        get_generator("gpt", Settings())


# -- citations ------------------------------------------------------------------
def test_split_sentences_keeps_titles_and_trailing_markers():
    assert split_answer_sentences("Mrs. Rabbit bought bread. [text_0-23] Mr. McGregor ran after Peter!") == [
        "Mrs. Rabbit bought bread. [text_0-23]", "Mr. McGregor ran after Peter!"]


def test_cite_explicit_ids_win_and_unknown_ids_are_ignored():
    answer = (
        "Peter lost his shoes among the cabbages [text_0-32, text_0-69]. Mrs. Rabbit went to the baker's. [text_9-99]"
    )
    first, second = cite(answer, PETER)
    assert (first.sentence_ids, first.scores) == (["text_0-32", "text_0-69"], [1.0, 1.0])
    # text_9-99 is not in the context, so the sentence is aligned by its words instead.
    assert second.sentence_ids[0] == "text_0-22"


def test_cite_lexical_alignment_picks_the_supporting_sentence():
    [citation] = cite("Mrs. Rabbit bought a loaf of brown bread.", PETER)
    # All six content words are in text_0-23; text_0-22 shares only "mrs" and "rabbit" (2/6 < 0.35).
    assert citation.sentence_ids == ["text_0-23"]
    assert citation.scores == [1.0]


def test_cite_unsupported_sentence_gets_nothing():
    supported, unsupported = cite(
        "Mr. McGregor hung up the jacket and the shoes. The moon is made of green cheese.", PETER
    )
    assert supported.sentence_ids[0] == "text_0-65"
    assert unsupported.answer_sentence == "The moon is made of green cheese."
    assert unsupported.sentence_ids == [] and unsupported.scores == []


# -- OpenAI-compatible endpoint -------------------------------------------------
def completion(content: str, model: str = "served-model-v1") -> dict:
    return {
        "id": "chatcmpl-test", "object": "chat.completion", "created": 1_700_000_000, "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 57, "completion_tokens": 21, "total_tokens": 78},
    }


def Endpoint(script) -> ChatServer:  # noqa: N802 - reads as the server it returns
    """A real HTTP server answering POST /v1/chat/completions from a script of (status, body, delay)."""
    return ChatServer(scripted(script))


def settings_for(url: str, **changes) -> Settings:
    base = Settings(
        openai_base_url=url, openai_model="test-model", openai_api_key=KEY, openai_timeout_s=5.0, openai_retries=3
    )
    return base.with_(**changes)


def test_openai_sends_the_prompt_and_records_usage_and_citations():
    reply = ("Peter lost one shoe among the cabbages and the other amongst the potatoes [text_0-32]. "
             "Mrs. Rabbit bought a loaf of brown bread. The moon is made of green cheese.")
    context = [BY_ID["text_0-23"], BY_ID["text_0-32"], BY_ID["text_0-22"]]
    with Endpoint([(200, completion(reply), 0)]) as server:
        answer = OpenAIGenerator(settings_for(server.url)).generate(
            "Where did Peter lose his shoes?", context, AnswerSource("peter_rabbit")
        )
    [request] = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["authorization"] == f"Bearer {KEY}"
    assert request["json"]["model"] == "test-model"
    assert request["json"]["temperature"] == 0
    [message] = request["json"]["messages"]
    assert message["role"] == "user"
    assert message["content"].startswith(
        "Please answer the question based on the following content:\n\nContent: [text_0-22] Then"
    )
    assert message["content"].endswith("\n\nQuestion: Where did Peter lose his shoes?\n\nAnswer:")
    assert answer.prompt == message["content"]
    assert answer.text == reply
    assert (answer.generator, answer.model) == ("openai", "served-model-v1")
    assert answer.usage == {"prompt_tokens": 57, "completion_tokens": 21, "total_tokens": 78}
    assert [c.sentence_ids for c in answer.citations] == [["text_0-32"], ["text_0-23"], []]


def test_openai_without_key_sends_placeholder_and_no_content_prompt():
    with Endpoint([(200, completion("Peter is a rabbit."), 0)]) as server:
        settings = settings_for(server.url, openai_api_key="")
        answer = OpenAIGenerator(settings).generate("Who is Peter?", [], AnswerSource("The Tale of Peter Rabbit"))
    [request] = server.requests
    assert request["headers"]["authorization"] == "Bearer not-needed"
    assert request["json"]["messages"][0]["content"].startswith(
        "Please answer the question based on your memory of the book The Tale of Peter Rabbit:"
    )
    assert [c.sentence_ids for c in answer.citations] == [[]]


def test_openai_not_configured_says_what_to_set():
    with pytest.raises(ModelUnavailableError) as info:
        OpenAIGenerator(Settings(openai_model="test-model"))
    assert all(name in str(info.value) for name in ("KGCORE_OPENAI_BASE_URL", "KGCORE_OPENAI_MODEL", "OPENAI_API_KEY"))


def test_openai_authentication_failure_is_immediate_and_hides_the_key(caplog):
    denied = {"error": {"message": f"Incorrect API key provided: {KEY}", "type": "invalid_request_error"}}
    with Endpoint([(401, denied, 0)]) as server, caplog.at_level(logging.DEBUG):
        with pytest.raises(GenerationError) as info:
            OpenAIGenerator(settings_for(server.url), backoff_s=0.01).generate("Where?", PETER)
    assert len(server.requests) == 1
    assert server.url in str(info.value) and "401" in str(info.value)
    assert KEY not in str(info.value) and KEY not in caplog.text


def test_openai_other_client_error_is_not_retried():
    with Endpoint([(404, {"error": {"message": "model 'test-model' not found"}}, 0)]) as server:
        with pytest.raises(GenerationError, match="HTTP 404.*model 'test-model' not found") as info:
            OpenAIGenerator(settings_for(server.url), backoff_s=0.01).generate("Where?", PETER)
    assert len(server.requests) == 1 and KEY not in str(info.value)


def test_openai_retries_server_errors_then_succeeds(caplog):
    failure = {"error": {"message": "overloaded"}}
    script = [(500, failure, 0), (500, failure, 0), (200, completion("Among the cabbages."), 0)]
    with Endpoint(script) as server, caplog.at_level(logging.DEBUG):
        answer = OpenAIGenerator(settings_for(server.url), backoff_s=0.01).generate(
            "Where did Peter lose his shoes?", PETER
        )
    assert len(server.requests) == 3
    assert answer.text == "Among the cabbages."
    assert "after 3 attempts" in answer.notes[0]
    assert KEY not in caplog.text


def test_openai_gives_up_after_the_configured_attempts():
    with Endpoint([(503, {"error": {"message": "unavailable"}}, 0)]) as server:
        with pytest.raises(GenerationError, match="HTTP 503") as info:
            OpenAIGenerator(settings_for(server.url, openai_retries=2), backoff_s=0.01).generate("Where?", PETER)
    assert len(server.requests) == 2
    assert server.url in str(info.value) and KEY not in str(info.value)


def test_openai_rate_limit_is_retried():
    script = [(429, {"error": {"message": "slow down"}}, 0), (200, completion("Among the cabbages."), 0)]
    with Endpoint(script) as server:
        answer = OpenAIGenerator(settings_for(server.url), backoff_s=0.01).generate("Where?", PETER)
    assert len(server.requests) == 2 and answer.text == "Among the cabbages."


def test_openai_timeout():
    with Endpoint([(200, completion("too late"), 3.0)]) as server:
        settings = settings_for(server.url, openai_timeout_s=0.5, openai_retries=1)
        start = time.perf_counter()
        with pytest.raises(GenerationError, match="timed out") as info:
            OpenAIGenerator(settings, backoff_s=0.01).generate("Where?", PETER)
        elapsed = time.perf_counter() - start
    assert elapsed < 2.5 and len(server.requests) == 1
    assert "timeout 0.5 s" in str(info.value) and server.url in str(info.value) and KEY not in str(info.value)


def test_openai_connection_refused_names_the_url():
    with socket.socket() as probe:  # a port that was free a moment ago and now has no listener
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    with pytest.raises(GenerationError) as info:
        OpenAIGenerator(settings_for(url, openai_retries=2), backoff_s=0.01).generate("Where?", PETER)
    message = str(info.value)
    assert url in message and "cannot connect" in message and "after 2 attempts" in message
    assert KEY not in message


def test_openai_empty_answer_is_an_error():
    with Endpoint([(200, completion(""), 0)]) as server:
        with pytest.raises(GenerationError, match="empty answer"):
            OpenAIGenerator(settings_for(server.url)).generate("Where?", PETER)


def test_ask_with_an_unconfigured_answerer_fails_before_loading_anything(tmp_path, monkeypatch, capsys):
    from kgcore.cli import main

    for name in ("KGCORE_OPENAI_BASE_URL", "KGCORE_OPENAI_MODEL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    missing = tmp_path / "no-store"  # never opened: the answerer's check comes first
    code = main(["ask", "--store", str(missing), "--doc", "book", "--answerer", "openai", "Who is Peter?"])
    assert code == 2 and "KGCORE_OPENAI_BASE_URL" in capsys.readouterr().err
    assert not missing.exists()
    from kgcore.query.answer import check_answerer
    with pytest.raises(InputError, match="answerer"):
        check_answerer("no-such-answerer", Settings())
