"""A real OpenAI-compatible chat endpoint on loopback for the tests of every LLM feature (answers, the judge,
community reports, entity descriptions).

Importable as ``chatkit`` (``tests/`` is on ``sys.path`` via its conftest).  Each test says how the endpoint
answers with ``respond(body, n) -> (status, payload, delay)``: ``body`` is the request's JSON, ``n`` its number
(1 for the first); :func:`completion` builds a successful payload.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Respond = Callable[[dict, int], tuple[int, dict, float]]


def completion(content: str, model: str = "served-model-v1") -> dict:
    """A chat-completion payload whose one choice says ``content``."""
    return {"id": "c1", "object": "chat.completion", "created": 1_700_000_000, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}


class ChatServer:
    """POST ``/v1/chat/completions`` answered by ``respond``; every request is kept (path, headers, JSON).

    A context manager (serving inside the ``with``), or ``start()`` / ``close()``.
    """

    def __init__(self, respond: Respond):
        self.requests: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the http.server name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(
                    {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "json": body})
                status, payload, delay = respond(body, len(server.requests))
                time.sleep(delay)
                data = json.dumps(payload).encode()
                with contextlib.suppress(OSError):  # the client may have given up (timeout tests)
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

    @property
    def prompts(self) -> list[str]:
        """The first message of every request, in order."""
        return [r["json"]["messages"][0]["content"] for r in self.requests]

    @property
    def models(self) -> list[str]:
        return [r["json"]["model"] for r in self.requests]

    def start(self) -> ChatServer:
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> ChatServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()


def scripted(script) -> Respond:
    """Answer request n with ``script[n - 1]`` (the last entry for every later request)."""
    script = list(script)
    return lambda body, n: script[min(n, len(script)) - 1]
