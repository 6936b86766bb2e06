"""Issue 29's HTTP and OAuth cases, measured on two checkouts side by side.

Each case runs against a live server on loopback, once with the code of ``--before`` (a git
revision, checked out into a temporary worktree) and once with this tree, each in a process
of its own (``PYTHONPATH=<tree>``); the table gives both and their ratio (after / before):

* ``plain call idle``: seconds another session's plain ``tools/call`` takes, nothing else
  running;
* ``plain call, hog``: the same while one session holds 40 long calls (each waits up to
  ``--hold`` seconds; the client's wait is capped at ``--cap``);
* ``hog calls running``: how many of the hog's calls still run 2 s after it hung up;
* ``victim after flood``: the HTTP status of a session's next request after 1,100
  anonymous ``initialize`` from one address (``200`` kept, ``404`` evicted);
* ``streams of one call``: how many connections still carry one call's event stream after
  its ``POST`` and three ``Last-Event-ID`` resumptions of it;
* ``call --timeout 3``: seconds ``mcpmini call --timeout 3`` takes (its second run in the
  measuring process, so neither Python's start nor the first imports are counted) when the
  protected resource metadata trickles in one byte every half second, whether it raised (a
  traceback) and its stderr's lines.

Usage: ``python bench/http_fairness.py [--before REV] [--hold 20] [--cap 20]``; the default
``--before`` is the main branch before issue 29's runtime work (``d37d107``).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: the rows that are seconds (the others are statuses and counts: no ratio)
SECONDS = ("plain call idle", "plain call, hog", "call --timeout 3")
BOTH = "application/json, text/event-stream"
LEGACY = "2025-11-25"


# --- the cases (run in the measured tree's process) ------------------------------------------


def _init(client: Any, url: str) -> str:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "b", "version": "1"},
        },
    }
    reply = client.post(url, json=body, headers={"accept": BOTH})
    return str(reply.headers.get("mcp-session-id", ""))


def _hdr(sid: str) -> dict[str, str]:
    return {"accept": BOTH, "mcp-session-id": sid, "mcp-protocol-version": LEGACY}


def _call(name: str, id: int, **extra: Any) -> dict[str, Any]:
    params = {"name": name, "arguments": {}, **extra}
    return {"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}


def _holding_server(hold: float) -> tuple[Any, dict[str, int]]:
    from mcpmini.mcp import Server
    from mcpmini.mcp.context import current_call

    server = Server("holding")
    counts = {"running": 0}
    lock = threading.Lock()

    @server.tool()
    def hold_on() -> str:
        """Run until cancelled (or ``hold`` seconds)."""
        call = current_call()
        stop = getattr(call, "cancelled", None) or threading.Event()
        with lock:
            counts["running"] += 1
        try:
            call.progress(1)
            stop.wait(hold)
        finally:
            with lock:
                counts["running"] -= 1
        return "held"

    @server.tool()
    def echo() -> str:
        """Answer at once."""
        return "hi"

    return server, counts


def _raw_post(url: str, body: dict[str, Any], headers: dict[str, str]) -> socket.socket:
    import httpx
    import orjson

    parts = httpx.URL(url)
    sock = socket.create_connection((parts.host, parts.port), timeout=30)
    data = orjson.dumps(body)
    head = [f"POST {parts.path} HTTP/1.1", f"host: {parts.host}:{parts.port}"]
    head += [f"{k}: {v}" for k, v in headers.items()]
    head += ["content-type: application/json", f"content-length: {len(data)}", "", ""]
    sock.sendall("\r\n".join(head).encode() + data)
    return sock


def _timed_echo(client: Any, url: str, cap: float) -> float:
    sid = _init(client, url)
    start = time.monotonic()
    try:
        client.post(url, json=_call("echo", 2), headers=_hdr(sid), timeout=cap)
    except Exception:  # the cap passed
        return cap
    return time.monotonic() - start


def hog(hold: float, cap: float) -> dict[str, float]:
    import httpx

    from mcpmini.mcp import asgi_app, serve_http

    server, counts = _holding_server(hold)
    with serve_http(asgi_app(server)) as url, httpx.Client(timeout=30) as client:
        idle = min(_timed_echo(client, url, cap) for _ in range(3))
        sid = _init(client, url)
        socks = [_raw_post(url, _call("hold_on", i), _hdr(sid)) for i in range(40)]
        limit = time.monotonic() + 10
        while counts["running"] < 8 and time.monotonic() < limit:
            time.sleep(0.05)
        time.sleep(0.5)  # the rest of the 40 reach the server
        busy = _timed_echo(client, url, cap)
        for sock in socks:
            sock.close()
        time.sleep(2.0)
        left = counts["running"]
    return {"plain call idle": idle, "plain call, hog": busy, "hog calls running": left}


def flood() -> dict[str, float]:
    import httpx

    from mcpmini.mcp import add_server, asgi_app, serve_http

    with serve_http(asgi_app(add_server())) as url, httpx.Client(timeout=30) as client:
        victim = _init(client, url)
        for _ in range(1100):
            _init(client, url)
        body = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        status = client.post(url, json=body, headers=_hdr(victim)).status_code
    return {"victim after flood": status}


def streams(hold: float) -> dict[str, float]:
    import httpx

    from mcpmini.mcp import asgi_app, serve_http

    server, _ = _holding_server(hold)
    open_ = 0
    with serve_http(asgi_app(server)) as url, httpx.Client(timeout=3) as client:
        sid = _init(client, url)
        body = _call("hold_on", 5, _meta={"progressToken": "p"})
        carriers = []
        post = client.stream("POST", url, json=body, headers=_hdr(sid))
        response = post.__enter__()
        lines = response.iter_lines()
        first = next(line for line in lines if line.startswith("id:"))
        carriers.append((post, lines))
        get = {"accept": "text/event-stream", "mcp-session-id": sid}
        get["last-event-id"] = first[3:].strip()
        for _ in range(3):
            stream = client.stream("GET", url, headers=get)
            carriers.append((stream, stream.__enter__().iter_lines()))
        time.sleep(1.0)
        for _stream, lines in carriers:
            try:
                for _ in lines:  # a carrier that let go ends; one that carries times out
                    pass
            except httpx.ReadTimeout:
                open_ += 1
            except httpx.HTTPError:
                pass
        for stream, _ in carriers:
            try:
                stream.__exit__(None, None, None)
            except httpx.HTTPError:
                pass
    return {"streams of one call": open_}


class _Trickling(BaseHTTPRequestHandler):
    """``POST /mcp``: 401 naming ``/prm``; ``GET /prm``: one byte every half second."""

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length", "0"))
        self.rfile.read(length)
        port = self.server.server_address[1]
        challenge = f'Bearer resource_metadata="http://127.0.0.1:{port}/prm"'
        self.send_response(401)
        self.send_header("www-authenticate", challenge)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", "120")
        self.end_headers()
        try:
            for _ in range(120):
                time.sleep(0.5)
                self.wfile.write(b" ")
                self.wfile.flush()
        except OSError:
            return


def trickle() -> dict[str, float]:
    import contextlib
    import io

    from mcpmini.cli import main

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Trickling)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}/mcp"
    with tempfile.TemporaryDirectory() as home:
        os.environ["XDG_CONFIG_HOME"] = home
        # in this process, twice: the second call's imports are done, so its seconds are the
        # call's own, not Python's start (on a loaded machine that alone takes seconds)
        for _ in range(2):
            err = io.StringIO()
            start = time.monotonic()
            raised = 0.0
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                try:
                    main(["call", "tools/list", "--timeout", "3", "--url", url])
                except BaseException:  # before: a traceback, not one line
                    raised = 1.0
            took = time.monotonic() - start
    httpd.shutdown()
    return {
        "call --timeout 3": took,
        "call --timeout 3 raised": raised,
        "call --timeout 3 stderr lines": len(err.getvalue().splitlines()),
    }


def measure(hold: float, cap: float) -> dict[str, float]:
    found: dict[str, float] = {}
    found.update(hog(hold, cap))
    found.update(flood())
    found.update(streams(hold))
    found.update(trickle())
    return found


# --- the driver ------------------------------------------------------------------------------


def _run(tree: Path, hold: float, cap: float) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    argv = [sys.executable, str(Path(__file__).resolve()), "--measure"]
    argv += ["--hold", str(hold), "--cap", str(cap)]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tree, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"measuring {tree} failed:\n{done.stderr[-3000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", default="d37d107")
    parser.add_argument("--hold", type=float, default=20.0)
    parser.add_argument("--cap", type=float, default=20.0)
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.hold, args.cap)))
        return
    with tempfile.TemporaryDirectory(prefix="bench-http-fairness-") as tmp:
        old = Path(tmp) / "before"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(old), args.before],
            check=True,
            capture_output=True,
        )
        try:
            before = _run(old, args.hold, args.cap)
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)],
                capture_output=True,
            )
    after = _run(ROOT, args.hold, args.cap)
    print(f"{'case':32} {'before ' + args.before:>16} {'after':>10} {'after/before':>13}")
    for key, was in before.items():
        now = after[key]
        ratio = f"{now / was:.3f}" if was and key in SECONDS else "-"
        print(f"{key:32} {was:16.2f} {now:10.2f} {ratio:>13}")


if __name__ == "__main__":
    main()
