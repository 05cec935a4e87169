"""An in-process, scripted OpenAI-compatible server for offline tests.

`FakeOpenAIServer(script)` serves POST /v1/chat/completions and /v1/embeddings on 127.0.0.1.
`script` is either one behaviour used for every chat request, or a list consumed one per chat
request (a 500 "script exhausted" reply once it runs out, so a test never passes by accident).
A behaviour is a callable `(request_body) -> Reply`; the helpers below build the usual ones.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAKE_USAGE = {"prompt_tokens": 11, "completion_tokens": 7}


@dataclass
class Reply:
    status: int = 200
    content: str | None = ""
    """Message content for a 200 reply; the error message otherwise."""
    delay: float = 0.0
    usage: dict[str, int] | None = field(default_factory=lambda: dict(FAKE_USAGE))
    finish_reason: str = "stop"


Behaviour = Callable[[dict[str, Any]], Reply]


def ok(content: str, *, delay: float = 0.0, usage: dict[str, int] | None = None) -> Behaviour:
    reply = Reply(content=content, delay=delay)
    if usage is not None:
        reply.usage = usage
    return lambda _req: reply


def ok_no_usage(content: str) -> Behaviour:
    return lambda _req: Reply(content=content, usage=None)


def http_error(status: int = 500, message: str = "internal error") -> Behaviour:
    return lambda _req: Reply(status=status, content=message)


def slow(seconds: float, content: str = '{"ok": true}') -> Behaviour:
    """Sleeps past a short client timeout (the sleep is cut short when the server stops)."""
    return lambda _req: Reply(content=content, delay=seconds)


def truncated_json() -> Behaviour:
    return lambda _req: Reply(content='{"facts": [{"subject": "Ann", "object": "Pa', finish_reason="length")


def prose_around(payload: Any) -> Behaviour:
    text = f"Sure! Here is the JSON you asked for:\n```json\n{json.dumps(payload)}\n```\nAnything else?"
    return lambda _req: Reply(content=text)


def wrong_schema() -> Behaviour:
    return lambda _req: Reply(content='{"unexpected": "shape"}')


def empty() -> Behaviour:
    return lambda _req: Reply(content="")


def response_format_type(request: dict[str, Any]) -> str | None:
    fmt = request.get("response_format")
    return fmt.get("type") if isinstance(fmt, dict) else None


def reject_json_schema(content: str) -> Behaviour:
    """What llama.cpp's server does: HTTP 500 for `json_schema`, fine with `json_object`."""

    def behave(request: dict[str, Any]) -> Reply:
        if response_format_type(request) == "json_schema":
            return Reply(status=500, content="Unsupported response_format type: json_schema")
        return Reply(content=content)

    return behave


def reject_response_format(content: str, status: int = 400) -> Behaviour:
    """A server that rejects any `response_format` but answers plain requests."""

    def behave(request: dict[str, Any]) -> Reply:
        if "response_format" in request:
            return Reply(status=status, content="response_format is not supported")
        return Reply(content=content)

    return behave


def fake_embedding(text: str, dim: int = 8) -> list[float]:
    """Deterministic unit-length vector derived from the text's sha256."""
    digest = hashlib.sha256(text.encode()).digest()
    raw = [(digest[i % len(digest)] - 127.5) / 127.5 for i in range(dim)]
    norm = sum(x * x for x in raw) ** 0.5 or 1.0
    return [x / norm for x in raw]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: FakeOpenAIServer


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep test output quiet
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            body = {}
        owner = self.server.owner
        owner._record(self.path, body)
        if self.path.endswith("/chat/completions"):
            self._chat(owner, body)
        elif self.path.endswith("/embeddings"):
            self._embeddings(body)
        else:
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def _chat(self, owner: FakeOpenAIServer, body: dict[str, Any]) -> None:
        # In flight while the request is worked on, not while its reply is written: the client
        # frees its slot as soon as it has read the reply, and on a loaded machine this handler
        # may run its next line only after the next request has arrived.
        owner._enter()
        try:
            reply = owner._next(body)
            stopped = bool(reply.delay) and owner._stopping.wait(reply.delay)
        finally:
            owner._leave()
        if stopped:
            return
        if reply.status != 200:
            self._send(reply.status, {"error": {"message": reply.content, "type": "server_error"}})
            return
        payload: dict[str, Any] = {
            "id": f"chatcmpl-fake-{len(owner.requests)}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "fake"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.content},
                    "finish_reason": reply.finish_reason,
                }
            ],
        }
        if reply.usage is not None:
            payload["usage"] = {**reply.usage, "total_tokens": sum(reply.usage.values())}
        self._send(200, payload)

    def _embeddings(self, body: dict[str, Any]) -> None:
        inputs = body.get("input", [])
        inputs = [inputs] if isinstance(inputs, str) else list(inputs)
        dim = int(body.get("dimensions") or 8)
        data = [
            {"object": "embedding", "index": i, "embedding": fake_embedding(str(t), dim)}
            for i, t in enumerate(inputs)
        ]
        tokens = sum(len(str(t).split()) for t in inputs)
        self._send(
            200,
            {
                "object": "list",
                "data": data,
                "model": body.get("model", "fake-embed"),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout); nothing to tell it


class FakeOpenAIServer:
    """Context manager running the fake server in a daemon thread; `.base_url` ends in /v1."""

    def __init__(self, script: Behaviour | Sequence[Behaviour]) -> None:
        self._script = script
        self._queue = list(script) if isinstance(script, Sequence) else None
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.requests: list[dict[str, Any]] = []
        """Every request received: {"path": ..., "body": ...}, in arrival order."""
        self.in_flight = 0
        self.max_in_flight = 0
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        return [r["body"] for r in self.requests if r["path"].endswith("/chat/completions")]

    def __enter__(self) -> FakeOpenAIServer:
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05})
        self._thread.daemon = True
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        assert self._httpd is not None and self._thread is not None
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=2)

    def _record(self, path: str, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append({"path": path, "body": body})

    def _next(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self._queue is None:
                behaviour = self._script
            elif self._queue:
                behaviour = self._queue.pop(0)
            else:
                return Reply(status=500, content="fake server script exhausted")
        assert callable(behaviour)
        return behaviour(body)

    def _enter(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1
