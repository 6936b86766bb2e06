"""A small OAuth-protected MCP server for the tests: PRM, AS metadata, registration,
authorization (redirects at once, as the conformance suite's does), tokens, and an MCP
endpoint that answers ``initialize``, ``tools/list`` and ``tools/call`` only with a token it
issued. Knobs make it misbehave the ways the issue lists (malformed metadata, a wrong ``iss``,
an endless redirect, a token that never works). Stdlib only; one daemon thread; ``with``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit


@dataclass
class Knobs:
    iss: str = "correct"  # correct | wrong | omit
    metadata: str = "ok"  # ok | not-json | bad-field | wrong-issuer
    hops: int = 0  # extra redirects before the callback; -1: endless
    refuse_tokens: bool = False  # the MCP endpoint answers 401 to every token
    expires_in: int = 3600
    scopes_supported: list[str] | None = None
    prm_path: str = "/.well-known/oauth-protected-resource/mcp"  # named in the 401's challenge
    trickle: bool = False  # the PRM is sent one byte every half second (a minute's worth)


@dataclass
class Log:
    requests: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)

    def paths(self, method: str | None = None) -> list[str]:
        return [p for m, p, _ in self.requests if method is None or m == method]


class FakeServer:
    """``with FakeServer(Knobs(...)) as s: s.mcp_url``."""

    def __init__(self, knobs: Knobs | None = None) -> None:
        self.knobs = knobs or Knobs()
        self.log = Log()
        self.issued: set[str] = set()
        self.refresh: dict[str, str] = {}
        self._challenge: str | None = None
        self._last_authorization: str | None = None
        self._count = 0
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.base = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self.mcp_url = self.base + "/mcp"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self.stopping = threading.Event()  # a trickling answer ends when the server does

    def __enter__(self) -> FakeServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(10)

    # --- the routes ------------------------------------------------------------------------

    def metadata(self) -> tuple[int, Any]:
        doc: dict[str, Any] = {
            "issuer": self.base,
            "authorization_endpoint": self.base + "/authorize",
            "token_endpoint": self.base + "/token",
            "registration_endpoint": self.base + "/register",
            "response_types_supported": ["code"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic"],
            "authorization_response_iss_parameter_supported": True,
        }
        if self.knobs.scopes_supported is not None:
            doc["scopes_supported"] = self.knobs.scopes_supported
        if self.knobs.metadata == "not-json":
            return 200, b"{ this is not json"
        if self.knobs.metadata == "bad-field":
            doc["token_endpoint"] = 42
        if self.knobs.metadata == "wrong-issuer":
            doc["issuer"] = "https://attacker.example"
        return 200, doc

    def authorize(self, query: dict[str, str]) -> tuple[int, dict[str, str]]:
        self._challenge = query.get("code_challenge")
        back = {"code": "the-code", "state": query.get("state", "")}
        if self.knobs.iss == "correct":
            back["iss"] = self.base
        elif self.knobs.iss == "wrong":
            back["iss"] = "https://evil.example"
        callback = query["redirect_uri"] + "?" + urlencode(back)
        if self.knobs.hops:
            return 302, {"location": self.base + "/hop/1?" + urlencode({"to": callback})}
        return 302, {"location": callback}

    def hop(self, n: int, query: dict[str, str]) -> tuple[int, dict[str, str]]:
        if self.knobs.hops < 0 or n < self.knobs.hops:
            return 302, {"location": f"/hop/{n + 1}?" + urlencode({"to": query["to"]})}
        return 302, {"location": query["to"]}

    def token(self, form: dict[str, str]) -> tuple[int, Any]:
        grant = form.get("grant_type")
        if grant == "authorization_code":
            digest = hashlib.sha256(form.get("code_verifier", "").encode()).digest()
            ok = base64.urlsafe_b64encode(digest).rstrip(b"=").decode() == self._challenge
            if form.get("code") != "the-code" or not ok:
                return 400, {"error": "invalid_grant"}
        elif grant == "client_credentials":
            pair = base64.b64encode(b"machine:machine-secret").decode()
            if self._last_authorization != f"Basic {pair}":
                return 401, {"error": "invalid_client"}
        elif grant == "refresh_token":
            if form.get("refresh_token") not in self.refresh.values():
                return 400, {"error": "invalid_grant"}
        else:
            return 400, {"error": "unsupported_grant_type"}
        self._count += 1
        token, refresh = f"tok-{self._count}-secret", f"ref-{self._count}-secret"
        self.issued.add(token)
        self.refresh[token] = refresh
        return 200, {
            "access_token": token,
            "token_type": "Bearer",
            "expires_in": self.knobs.expires_in,
            "refresh_token": refresh,
        }

    def mcp(self, headers: dict[str, str], body: Any) -> tuple[int, Any, dict[str, str]]:
        bearer = headers.get("authorization", "")
        token = bearer.removeprefix("Bearer ")
        if token not in self.issued or self.knobs.refuse_tokens:
            prm = self.base + self.knobs.prm_path
            return (
                401,
                {"error": "invalid_token"},
                {"www-authenticate": f'Bearer resource_metadata="{prm}"'},
            )
        if "id" not in body:
            return 202, None, {}
        method = body.get("method")
        if method == "initialize":
            result: Any = {
                "protocolVersion": body["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "fake", "version": "1"},
            }
        elif method == "tools/list":
            result = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}
        elif method == "tools/call":
            result = {"content": [{"type": "text", "text": "hello"}]}
        else:
            return (
                200,
                {"jsonrpc": "2.0", "id": body["id"], "error": {"code": -32601, "message": "no"}},
                {},
            )
        return 200, {"jsonrpc": "2.0", "id": body["id"], "result": result}, {}

    def get(self, path: str, query: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        if path == self.knobs.prm_path:
            return 200, {"resource": self.mcp_url, "authorization_servers": [self.base]}, {}
        if path == "/.well-known/oauth-authorization-server":
            return (*self.metadata(), {})
        if path == "/authorize":
            status, headers = self.authorize(query)
            return status, None, headers
        if path.startswith("/hop/"):
            status, headers = self.hop(int(path.rsplit("/", 1)[1]), query)
            return status, None, headers
        if path == "/mcp":
            return 405, None, {}
        return 404, {"error": "not_found"}, {}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(
                self, status: int, body: Any = None, headers: dict[str, str] | None = None
            ) -> None:
                data = (
                    body
                    if isinstance(body, bytes)
                    else (b"" if body is None else json.dumps(body).encode())
                )
                self.send_response(status)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                if data:
                    self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                query = {k: v[0] for k, v in parse_qs(parts.query).items()}
                fake.log.requests.append(("GET", parts.path, dict(self.headers)))
                if fake.knobs.trickle and parts.path == fake.knobs.prm_path:
                    _trickle(self, fake.stopping)
                    return
                self._send(*fake.get(parts.path, query))

            def do_DELETE(self) -> None:
                fake.log.requests.append(("DELETE", self.path, dict(self.headers)))
                self._send(405)

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                path = urlsplit(self.path).path
                headers = {k.lower(): v for k, v in self.headers.items()}
                fake.log.requests.append(("POST", path, headers))
                if path == "/register":
                    body = json.loads(raw)
                    self._send(
                        201,
                        {
                            "client_id": "client-1",
                            "redirect_uris": body["redirect_uris"],
                            "token_endpoint_auth_method": "none",
                        },
                    )
                elif path == "/token":
                    fake._last_authorization = headers.get("authorization")
                    form = {k: v[0] for k, v in parse_qs(raw.decode()).items()}
                    self._send(*fake.token(form))
                elif path == "/mcp":
                    status, body, extra = fake.mcp(headers, json.loads(raw))
                    self._send(status, body, extra)
                else:
                    self._send(404)

        return Handler


def _trickle(handler: BaseHTTPRequestHandler, stopping: threading.Event) -> None:
    """A 200 whose body comes one byte every half second: never a whole document in time."""
    handler.send_response(200)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", "120")
    handler.end_headers()
    try:
        for _ in range(120):
            if stopping.wait(0.5):
                return
            handler.wfile.write(b" ")
            handler.wfile.flush()
    except OSError:
        return
