"""Answer generation: prompts, citation alignment, the extractive answerer and the OpenAI client.

The OpenAI-compatible path talks to a real HTTP server on 127.0.0.1 started
by the test, so the request really goes through the ``openai`` package.
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from kgcore.answer import build_prompt, cite, default_answerer, get_generator, split_sentences
from kgcore.backends.answer_extractive import EMPTY_CONTEXT_TEXT, ExtractiveGenerator
from kgcore.backends.answer_openai import OpenAIGenerator
from kgcore.errors import GenerationError, InputError, ModelUnavailableError
from kgcore.settings import Settings
from kgcore.types import SelectedSentence

# Sentences of assets/peter_rabbit.txt with their ids and coref-resolved text as the
# heuristic resolver writes them.
PETER = [
    SelectedSentence("text_0-19", 19, 'Your father had an accident there; he was put in a pie by Mrs. McGregor."',
                     'Your father had an accident there; your father was put in a pie by Mrs. McGregor."'),
    SelectedSentence("text_0-22", 22, "Then old Mrs. Rabbit took a basket and her umbrella and went through the wood to the baker's.",
                     "Then old Mrs. Rabbit took a basket and old Mrs. Rabbit's umbrella and went through the wood to the baker's."),
    SelectedSentence("text_0-23", 23, "She bought a loaf of brown bread and five currant buns.",
                     "Old Mrs. Rabbit bought a loaf of brown bread and five currant buns."),
    SelectedSentence("text_0-30", 30, 'Mr. McGregor was on his hands and knees planting out young cabbages, but he jumped up and '
                     'ran after Peter, waving a rake and calling out "Stop thief!"',
                     "Mr. McGregor was on Mr. McGregor's hands and knees planting out young cabbages, but Mr. McGregor "
                     'jumped up and ran after Peter, waving a rake and calling out "Stop thief!"'),
    SelectedSentence("text_0-32", 32, "He lost one shoe among the cabbages, and the other amongst the potatoes.",
                     "Peter lost one shoe among the cabbages, and the other amongst the potatoes."),
    SelectedSentence("text_0-45", 45, "Peter sat down to rest; he was out of breath and trembling with fright, and he had not "
                     "the least idea which way to go.",
                     "Peter sat down to rest; Peter was out of breath and trembling with fright, and Peter had not the "
                     "least idea which way to go."),
    SelectedSentence("text_0-65", 65, "Mr. McGregor hung up the little jacket and the shoes for a scare-crow to frighten the blackbirds.",
                     "Mr. McGregor hung up the little jacket and the shoes for a scare-crow to frighten the blackbirds."),
    SelectedSentence("text_0-69", 69, "It was the second little jacket and pair of shoes that Peter had lost in a fortnight!",
                     "It was the second little jacket and pair of shoes that Peter had lost in a fortnight!"),
]
BY_ID = {s.id: s for s in PETER}
KEY = "sk-test-SECRET-0123456789"


# -- prompts --------------------------------------------------------------------
def test_prompt_with_content_is_the_papers_with_ids_in_document_order():
    context = [BY_ID["text_0-23"], BY_ID["text_0-22"]]
    assert build_prompt("What did Mrs. Rabbit buy?", context, "peter_rabbit") == (
        "Please answer the question based on the following content:\n\n"
        "Content: [text_0-22] Then old Mrs. Rabbit took a basket and her umbrella and went through the wood to the baker's.\n"
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
    assert split_sentences("Mrs. Rabbit bought bread. [text_0-23] Mr. McGregor ran after Peter!") == [
        "Mrs. Rabbit bought bread. [text_0-23]", "Mr. McGregor ran after Peter!"]


def test_cite_explicit_ids_win_and_unknown_ids_are_ignored():
    answer = "Peter lost his shoes among the cabbages [text_0-32, text_0-69]. Mrs. Rabbit went to the baker's. [text_9-99]"
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
    supported, unsupported = cite("Mr. McGregor hung up the jacket and the shoes. The moon is made of green cheese.", PETER)
    assert supported.sentence_ids[0] == "text_0-65"
    assert unsupported.answer_sentence == "The moon is made of green cheese."
    assert unsupported.sentence_ids == [] and unsupported.scores == []


def test_cite_with_embedder_aligns_a_paraphrase(embedder):
    [citation] = cite("Peter lost a shoe in the cabbage patch.", PETER, embedder=embedder)
    assert citation.sentence_ids[0] == "text_0-32"
    assert len(citation.sentence_ids) <= 3
    assert citation.scores == sorted(citation.scores, reverse=True)


# -- extractive -----------------------------------------------------------------
@pytest.fixture(scope="module")
def embedder():
    from kgcore.embed import get_embedder

    return get_embedder()


@pytest.fixture(scope="module")
def extractive(embedder):
    from kgcore.nlp import load_spacy

    return ExtractiveGenerator(embedder=embedder, nlp=load_spacy())


def test_extractive_where_question(extractive):
    answer = extractive.generate("Where did Peter lose his shoes?", PETER)
    assert "cabbages" in answer.text
    assert [(c.sentence_ids, c.scores) for c in answer.citations] == [(["text_0-32"], [1.0])]
    assert (answer.generator, answer.model) == ("extractive", "all-MiniLM-L6-v2")
    assert "Extractive" in answer.notes[0] and "text_0-32" in answer.notes[0]


def test_extractive_object_question(extractive):
    answer = extractive.generate("What did Mrs. Rabbit buy at the baker's?", PETER)
    assert "brown bread" in answer.text
    assert answer.citations[0].sentence_ids == ["text_0-23"]


def test_extractive_trims_to_the_clause_that_answers(extractive):
    answer = extractive.generate("Why did Peter sit down?", PETER)
    # text_0-45 goes on about his breath and fright; the first clause holds the reason.
    assert answer.text == "Peter sat down to rest."
    assert answer.citations[0].sentence_ids == ["text_0-45"]
    assert "clause" in answer.notes[0]


def test_extractive_reuses_retrieval_similarity(extractive):
    class NoEncoding:
        name, dim = "fake", 2

        def encode(self, texts):
            raise AssertionError("the retrieval's cosines should have been reused")

    context = [SelectedSentence(s.id, s.position, s.text, s.resolved, similarity=0.3) for s in PETER]
    answer = ExtractiveGenerator(embedder=NoEncoding(), nlp=extractive.nlp).generate("Where did Peter lose his shoes?", context)
    assert answer.citations[0].sentence_ids == ["text_0-32"]


def test_extractive_empty_context(extractive):
    answer = extractive.generate("Where did Peter lose his shoes?", [])
    assert answer.text == "No context was retrieved, so the extractive answerer cannot answer." == EMPTY_CONTEXT_TEXT
    assert answer.generator == "extractive" and answer.citations == []


# -- OpenAI-compatible endpoint -------------------------------------------------
def completion(content: str, model: str = "served-model-v1") -> dict:
    return {
        "id": "chatcmpl-test", "object": "chat.completion", "created": 1_700_000_000, "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 57, "completion_tokens": 21, "total_tokens": 78},
    }


class Endpoint:
    """A real HTTP server answering POST /v1/chat/completions from a script of (status, body, delay)."""

    def __init__(self, script):
        self.script = list(script)
        self.requests: list[dict] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                endpoint.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "json": body})
                status, payload, delay = endpoint.script[min(len(endpoint.requests), len(endpoint.script)) - 1]
                time.sleep(delay)
                data = json.dumps(payload).encode()
                with contextlib.suppress(OSError):  # the client may have given up (timeout test)
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def settings_for(url: str, **changes) -> Settings:
    base = Settings(openai_base_url=url, openai_model="test-model", openai_api_key=KEY, openai_timeout_s=5.0, openai_retries=3)
    return base.with_(**changes)


def test_openai_sends_the_prompt_and_records_usage_and_citations():
    reply = ("Peter lost one shoe among the cabbages and the other amongst the potatoes [text_0-32]. "
             "Mrs. Rabbit bought a loaf of brown bread. The moon is made of green cheese.")
    context = [BY_ID["text_0-23"], BY_ID["text_0-32"], BY_ID["text_0-22"]]
    with Endpoint([(200, completion(reply), 0)]) as server:
        answer = OpenAIGenerator(settings_for(server.url)).generate("Where did Peter lose his shoes?", context, "peter_rabbit")
    [request] = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["authorization"] == f"Bearer {KEY}"
    assert request["json"]["model"] == "test-model"
    assert request["json"]["temperature"] == 0
    [message] = request["json"]["messages"]
    assert message["role"] == "user"
    assert message["content"].startswith("Please answer the question based on the following content:\n\nContent: [text_0-22] Then")
    assert message["content"].endswith("\n\nQuestion: Where did Peter lose his shoes?\n\nAnswer:")
    assert answer.prompt == message["content"]
    assert answer.text == reply
    assert (answer.generator, answer.model) == ("openai", "served-model-v1")
    assert answer.usage == {"prompt_tokens": 57, "completion_tokens": 21, "total_tokens": 78}
    assert [c.sentence_ids for c in answer.citations] == [["text_0-32"], ["text_0-23"], []]


def test_openai_without_key_sends_placeholder_and_no_content_prompt():
    with Endpoint([(200, completion("Peter is a rabbit."), 0)]) as server:
        settings = settings_for(server.url, openai_api_key="")
        answer = OpenAIGenerator(settings).generate("Who is Peter?", [], "The Tale of Peter Rabbit")
    [request] = server.requests
    assert request["headers"]["authorization"] == "Bearer not-needed"
    assert request["json"]["messages"][0]["content"].startswith("Please answer the question based on your memory of the book The Tale of Peter Rabbit:")
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
        answer = OpenAIGenerator(settings_for(server.url), backoff_s=0.01).generate("Where did Peter lose his shoes?", PETER)
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
