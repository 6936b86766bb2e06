"""A fake Anthropic Messages API: a scripted model for the real Claude Code, on loopback.

Rules of this module:

- The model is a :class:`Script`: one ``tool_use`` per turn, in order, then one final text.
  The step of a request is the number of ``tool_result`` blocks already in its ``messages``,
  so a retried or repeated request gets the same answer (the reply is a pure function of the
  request body: :func:`reply`).
- A request without ``tools`` (titles, summaries, classifiers) gets a short text and never
  advances the script.
- Every request body is recorded, in arrival order, before it is answered: it is the ground
  truth of what the model was shown (:attr:`FakeApi.requests`).
- Only ``127.0.0.1`` is ever bound. ``POST /v1/messages`` answers Server-Sent Events when the
  body says ``"stream": true``, one JSON message otherwise; ``POST /v1/messages/count_tokens``
  answers ``{"input_tokens": N}``; anything else is a 404 in the API's error shape.

The core (:func:`reply`, :func:`sse_events`, :func:`count_tokens`) is sans-I/O; :class:`FakeApi`
serves it with the standard library's threading HTTP server.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "FINAL_TEXT",
    "SIDE_TEXT",
    "FakeApi",
    "Script",
    "ScriptedCall",
    "count_tokens",
    "reply",
    "sse_events",
    "step_of",
    "tool_use_id",
]

FINAL_TEXT = "Done."
SIDE_TEXT = "Oracle session"
MODEL = "claude-oracle-fake"
MAX_BODY = 64 * 1024 * 1024


def tool_use_id(step: int) -> str:
    """The ``tool_use`` id of the script's call number ``step`` (0-based)."""
    return f"toolu_oracle_{step:04d}"


@dataclass(frozen=True)
class ScriptedCall:
    """One tool call the scripted model makes: a tool name and its input."""

    name: str
    input: Mapping[str, Any]


@dataclass(frozen=True)
class Script:
    """The scripted model: ``calls`` one per turn, then ``final`` as the last text."""

    calls: tuple[ScriptedCall, ...] = ()
    final: str = FINAL_TEXT

    @classmethod
    def of(cls, calls: Sequence[tuple[str, Mapping[str, Any]]], final: str = FINAL_TEXT) -> Script:
        """A script from ``(name, input)`` pairs."""
        return cls(tuple(ScriptedCall(n, dict(i)) for n, i in calls), final)


def step_of(body: Mapping[str, Any]) -> int:
    """The number of ``tool_result`` blocks in the request's ``messages``."""
    count = 0
    for message in body.get("messages") or ():
        content = message.get("content") if isinstance(message, Mapping) else None
        if isinstance(content, list):
            count += sum(
                1 for b in content if isinstance(b, Mapping) and b.get("type") == "tool_result"
            )
    return count


def count_tokens(body: Mapping[str, Any]) -> int:
    """A rough token count of what a request shows the model: its ``system``, ``messages``
    and ``tools`` as JSON, four characters a token, at least 1."""
    shown = {k: body.get(k) for k in ("system", "messages", "tools")}
    return max(1, len(json.dumps(shown, ensure_ascii=False)) // 4)


def reply(body: Mapping[str, Any], script: Script) -> dict[str, Any]:
    """The assistant message answering ``body`` (a Messages API request) under ``script``."""
    if not body.get("tools"):
        content: list[dict[str, Any]] = [{"type": "text", "text": SIDE_TEXT}]
        stop = "end_turn"
    else:
        step = step_of(body)
        if step < len(script.calls):
            call = script.calls[step]
            content = [
                {
                    "type": "tool_use",
                    "id": tool_use_id(step),
                    "name": call.name,
                    "input": dict(call.input),
                }
            ]
            stop = "tool_use"
        else:
            content = [{"type": "text", "text": script.final}]
            stop = "end_turn"
    return {
        "id": f"msg_oracle_{step_of(body):04d}",
        "type": "message",
        "role": "assistant",
        "model": str(body.get("model") or MODEL),
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": count_tokens(body), "output_tokens": 8},
    }


def sse_events(message: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The streaming events of ``message``: ``(event name, data)`` pairs in wire order."""
    start = {**message, "content": [], "stop_reason": None, "stop_sequence": None}
    start["usage"] = {"input_tokens": message["usage"]["input_tokens"], "output_tokens": 1}
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(message["content"]):
        if block["type"] == "tool_use":
            head = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            head = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        yield (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": head,
            },
        )
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": message["usage"]["output_tokens"]},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def _sse_bytes(message: Mapping[str, Any]) -> bytes:
    return b"".join(
        f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
        for name, data in sse_events(message)
    )


def _error(kind: str, text: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": text}}


@dataclass
class FakeApi:
    """The scripted model served on ``127.0.0.1`` (port 0: any free port).

    Use as a context manager, or :meth:`start` / :meth:`close`. ``url`` is the base URL for
    ``ANTHROPIC_BASE_URL``; ``requests`` lists every recorded request as
    ``{"path": ..., "body": ...}`` (``body`` is the parsed JSON, or ``None``).
    """

    script: Script = field(default_factory=Script)
    port: int = 0
    requests: list[dict[str, Any]] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = field(default=None, repr=False)
    _thread: threading.Thread | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` of the running server. Raises ``RuntimeError`` if stopped."""
        if self._server is None:
            raise RuntimeError("the fake API is not running")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def messages(self) -> list[dict[str, Any]]:
        """The recorded ``/v1/messages`` request bodies, in arrival order."""
        with self._lock:
            return [
                r["body"]
                for r in self.requests
                if r["path"] == "/v1/messages" and isinstance(r["body"], dict)
            ]

    def record(self, path: str, body: Any) -> None:
        """Append one request to :attr:`requests` (thread-safe)."""
        with self._lock:
            self.requests.append({"path": path, "body": body})

    def start(self) -> FakeApi:
        """Bind ``127.0.0.1:port`` and serve in a daemon thread; returns ``self``."""
        api = self

        class Handler(_Handler):
            owner = api

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="oracle-fakeapi",
            daemon=True,
        )
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and release the port (idempotent)."""
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeApi:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Handler(BaseHTTPRequestHandler):
    owner: FakeApi
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def _send(self, status: int, payload: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("request-id", "req_oracle")
        self.end_headers()
        self.wfile.write(payload)

    def _json(self, status: int, data: Any) -> None:
        self._send(status, json.dumps(data).encode(), "application/json")

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(min(length, MAX_BODY)) if length > 0 else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return None

    def do_GET(self) -> None:
        self.owner.record(self.path, None)
        self._json(404, _error("not_found_error", f"no route {self.path}"))

    def do_HEAD(self) -> None:
        self.owner.record(self.path, None)
        self._send(200, b"", "text/plain")

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        body = self._body()
        self.owner.record(path, body)
        if not isinstance(body, dict):
            self._json(400, _error("invalid_request_error", "the body is not a JSON object"))
        elif path == "/v1/messages/count_tokens":
            self._json(200, {"input_tokens": count_tokens(body)})
        elif path == "/v1/messages":
            message = reply(body, self.owner.script)
            if body.get("stream"):
                self._send(200, _sse_bytes(message), "text/event-stream")
            else:
                self._json(200, message)
        else:
            self._json(404, _error("not_found_error", f"no route {path}"))
