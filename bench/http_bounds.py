"""Issue 22's HTTP cases, measured: run against any checkout (``PYTHONPATH=<tree>``).

Prints, for a live server on loopback:
* whether an active session survives a client that opens many sessions;
* the status of a second standalone GET stream of one session;
* how long another session's plain ``tools/call`` waits while one session holds 40 sampling
  requests the client never answers (capped at ``--cap`` seconds);
* how long ``mcpmini call --timeout 5`` takes against a stdio server that stops reading.

Usage: ``python bench/http_bounds.py [--cap 20]``.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import httpx
import orjson

from mcpmini.mcp import Server, add_server, asgi_app, serve_http
from mcpmini.mcp.context import current_call

BOTH = "application/json, text/event-stream"
LEGACY = "2025-11-25"


def _init(client: httpx.Client, url: str, caps: dict | None = None) -> str:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY,
            "capabilities": caps or {},
            "clientInfo": {"name": "b", "version": "1"},
        },
    }
    return client.post(url, json=body, headers={"accept": BOTH}).headers["mcp-session-id"]


def _hdr(sid: str) -> dict[str, str]:
    return {"accept": BOTH, "mcp-session-id": sid, "mcp-protocol-version": LEGACY}


def sessions() -> str:
    try:
        app = asgi_app(add_server())
        app.endpoint.max_sessions = 3
        if hasattr(app.endpoint, "limits"):
            from mcpmini.mcp.http import HttpLimits

            app = asgi_app(add_server(), limits=HttpLimits(max_sessions=3))
    except TypeError:
        app = asgi_app(add_server())
    with serve_http(app) as url, httpx.Client(timeout=10) as client:
        active = _init(client, url)
        statuses = []
        for _ in range(6):
            _init(client, url)
            body = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
            statuses.append(client.post(url, json=body, headers=_hdr(active)).status_code)
    return f"active session's tools/list while 6 more sessions open (max 3): {statuses}"


def get_streams() -> str:
    with serve_http(add_server()) as url, httpx.Client(timeout=10) as client:
        sid = _init(client, url)
        get = {"accept": "text/event-stream", "mcp-session-id": sid}
        with (
            client.stream("GET", url, headers=get) as first,
            client.stream("GET", url, headers=get) as second,
        ):
            return f"first GET {first.status_code}, second GET {second.status_code}"


def starved(cap: float) -> str:
    server = Server("asking")

    @server.tool()
    def ask() -> str:
        """Ask the client to sample."""
        return str(current_call().request("sampling/createMessage", {"messages": []}, 30.0))

    @server.tool()
    def echo() -> str:
        """Echo."""
        return "hi"

    with serve_http(server) as url, httpx.Client(timeout=cap) as client:
        sid = _init(client, url, {"sampling": {}})
        parts = httpx.URL(url)
        socks = []
        for i in range(40):
            sock = socket.create_connection((parts.host, parts.port), timeout=10)
            body = {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "ask"}}
            data = orjson.dumps(body)
            head = [f"POST {parts.path} HTTP/1.1", f"host: {parts.host}:{parts.port}"]
            head += [f"{k}: {v}" for k, v in _hdr(sid).items()]
            head += ["content-type: application/json", f"content-length: {len(data)}", "", ""]
            sock.sendall("\r\n".join(head).encode() + data)
            socks.append(sock)
        time.sleep(1.0)  # let the asks reach the server
        other = _init(client, url)
        body = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo"}}
        start = time.monotonic()
        try:
            status = client.post(url, json=body, headers=_hdr(other)).status_code
        except httpx.TimeoutException:
            status = "timeout"
        waited = time.monotonic() - start
        for sock in socks:
            sock.close()
    return f"another session's plain tools/call: {status} after {waited:.2f} s (cap {cap} s)"


NEVER_READS = textwrap.dedent(
    """
    import sys, time
    from mcpmini.mcp import add_server
    server = add_server()
    for _ in range(2):  # answer the negotiation, then stop reading stdin
        line = sys.stdin.buffer.readline()
        reply = server.handle_line(line)
        if reply:
            sys.stdout.buffer.write(reply); sys.stdout.buffer.flush()
        if b"initialize" in line or b"server/discover" in line:
            break
    time.sleep(120)
    """
)


def call_timeout() -> str:
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "never_reads.py"
        script.write_text(NEVER_READS)
        args = orjson.dumps({"a": 1, "b": 2, "pad": "x" * 100_000}).decode()
        argv = [sys.executable, "-m", "mcpmini", "call", "tools/call", "--tool", "add"]
        argv += ["--args", args, "--timeout", "5", "--", sys.executable, str(script)]
        start = time.monotonic()
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        took = time.monotonic() - start
    last = (done.stdout.strip().splitlines() or [""])[-1][:80]
    return f"mcpmini call --timeout 5: returned after {took:.1f} s (exit {done.returncode}: {last})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cap", type=float, default=20.0)
    args = parser.parse_args()
    print(sessions())
    print(get_streams())
    print(starved(args.cap))
    print(call_timeout())


if __name__ == "__main__":
    main()
