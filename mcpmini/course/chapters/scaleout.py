"""Scale-out on one machine: real ``mcpmini serve add --http`` backends behind Debian's nginx.

Chapter 02b and ``tests/test_scaleout.py`` use it. :func:`backends` starts N server processes
on pre-bound loopback sockets, :func:`balancer` starts nginx in front of them (round robin, or
``ip_hash`` affinity), :func:`post_calls` sends requests through it and records which backend
answered (nginx's ``X-Upstream`` header), and :func:`wrk` measures a URL with the C load
generator. Every process goes through :mod:`mcpmini.process` (one kill policy), everything
listens on 127.0.0.1, and every wait is bounded.

nginx and wrk are Debian packages (``apt-get install nginx wrk``); :func:`missing` names those
not installed, so a notebook can show recorded figures instead.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import orjson

from ... import process
from ...mcp.asgi import listening_socket

__all__ = [
    "Backend",
    "LoadResult",
    "backends",
    "balancer",
    "missing",
    "nginx_conf",
    "post_calls",
    "wrk",
]

ROOT = Path(__file__).resolve().parents[3]
ACCEPT = "application/json, text/event-stream"
START_TIMEOUT = 20.0


def _nginx() -> str | None:
    found = shutil.which("nginx")
    return found or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)


def missing() -> list[str]:
    """The Debian packages this module needs that are not installed (``nginx``, ``wrk``)."""
    return [name for name, path in (("nginx", _nginx()), ("wrk", shutil.which("wrk"))) if not path]


@dataclass
class Backend:
    """One running ``mcpmini serve add --http`` process."""

    port: int
    proc: process.Process

    def kill(self) -> None:
        """End it now (and everything it started)."""
        self.proc.close(grace=0.0)


def _wait_until_answering(url: str, proc: process.Process, what: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.TransportError:
            if proc.popen.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{what} did not start on {url}") from None
            time.sleep(0.05)


@contextmanager
def backends(count: int, *, stateless: bool) -> Iterator[list[Backend]]:
    """Start ``count`` ``mcpmini serve add --http`` processes (``--stateless`` when asked);
    yield them once each answers; end them all on exit."""
    with ExitStack() as stack:
        started = []
        for _ in range(count):
            sock = listening_socket()
            argv = [sys.executable, "-m", "mcpmini", "serve", "add", "--http"]
            argv += ["--fd", str(sock.fileno()), *(["--stateless"] if stateless else [])]
            proc = process.Process(
                argv, cwd=ROOT, stdin=False, stdout=False, stderr=False, pass_fds=[sock.fileno()]
            )
            stack.callback(proc.close)
            started.append(Backend(sock.getsockname()[1], proc))
            sock.close()
        for b in started:
            _wait_until_answering(f"http://127.0.0.1:{b.port}/mcp", b.proc, "mcpmini serve")
        yield started


_CONF = """
worker_processes 1;
daemon off;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    upstream mcp {{
        {affinity}
{servers}
        keepalive 16;
    }}
    server {{
        listen 127.0.0.1:{port};
        location /mcp {{
            proxy_pass http://mcp;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host 127.0.0.1;
            proxy_buffering off;
            proxy_next_upstream error timeout;
            proxy_connect_timeout 2s;
            add_header X-Upstream $upstream_addr always;
        }}
    }}
}}
"""


def nginx_conf(ports: list[int], listen: int, tmp: str, affinity: bool = False) -> str:
    """The nginx configuration :func:`balancer` runs: one upstream of ``ports`` on loopback.

    ``affinity`` adds ``ip_hash`` (every request of one client address to one backend: the
    session affinity the stateful generation needs). A refused connection is retried on the
    next backend (``proxy_next_upstream error``) — safe for a POST, which was not sent.
    """
    servers = "\n".join(
        f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=30s;" for p in ports
    )
    return _CONF.format(
        tmp=tmp, servers=servers, port=listen, affinity="ip_hash;" if affinity else ""
    )


@contextmanager
def balancer(ports: list[int], *, affinity: bool = False) -> Iterator[str]:
    """nginx in front of the backends on ``ports``; yields the balanced MCP URL.

    Raises ``RuntimeError`` when nginx is not installed or does not start.
    """
    exe = _nginx()
    if exe is None:
        raise RuntimeError("nginx is not installed (apt-get install nginx)")
    with tempfile.TemporaryDirectory(prefix="mcpmini-nginx-") as tmp:
        sock = listening_socket()
        listen = sock.getsockname()[1]
        sock.close()  # nginx binds it itself a moment later (loopback, a free port)
        conf = Path(tmp) / "nginx.conf"
        conf.write_text(nginx_conf(ports, listen, tmp, affinity), encoding="utf-8")
        proc = process.Process([exe, "-c", str(conf), "-p", tmp], stdin=False, stdout=False)
        with proc:
            url = f"http://127.0.0.1:{listen}/mcp"
            _wait_until_answering(url, proc, "nginx")
            yield url


def post_calls(
    url: str, bodies: list[Mapping[str, object]], headers: Mapping[str, str]
) -> list[tuple[int, str, object]]:
    """POST each body to ``url`` on one connection; per reply: the HTTP status, the backend
    that answered (``X-Upstream``, ``""`` without a balancer) and the JSON-RPC result or
    error (``None`` when the body is not JSON)."""
    out = []
    with httpx.Client(timeout=10) as http:
        for body in bodies:
            reply = http.post(url, content=orjson.dumps(body), headers=dict(headers))
            try:
                data = orjson.loads(reply.content)
                answer = data.get("result", data.get("error"))
            except orjson.JSONDecodeError:
                answer = None
            out.append((reply.status_code, reply.headers.get("x-upstream", ""), answer))
    return out


@dataclass(frozen=True)
class LoadResult:
    """What one wrk run measured."""

    requests_per_second: float
    p50_ms: float
    p99_ms: float
    requests: int
    non_2xx: int
    socket_errors: int


_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def _ms(text: str) -> float:
    m = re.fullmatch(r"([\d.]+)(us|ms|s)", text)
    if m is None:
        raise ValueError(f"wrk latency not understood: {text!r}")
    return float(m.group(1)) * _UNITS[m.group(2)]


def _lua(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def wrk(
    url: str,
    body: Mapping[str, object],
    headers: Mapping[str, str],
    *,
    seconds: int = 3,
    connections: int = 8,
) -> LoadResult:
    """Measure ``url`` with ``wrk -t1 -c{connections} -d{seconds}s`` posting ``body``.

    Raises ``RuntimeError`` when wrk is missing or its output cannot be read.
    """
    exe = shutil.which("wrk")
    if exe is None:
        raise RuntimeError("wrk is not installed (apt-get install wrk)")
    lines = ['wrk.method = "POST"', f"wrk.body = {_lua(orjson.dumps(body).decode())}"]
    lines += [f"wrk.headers[{_lua(k)}] = {_lua(v)}" for k, v in headers.items()]
    with tempfile.NamedTemporaryFile("w", suffix=".lua", encoding="utf-8") as script:
        script.write("\n".join(lines) + "\n")
        script.flush()
        argv = [exe, "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", "-s", script.name]
        done = process.run([*argv, url], timeout=seconds + 30)
    out = done.stdout.decode("utf-8", "replace")
    rate = re.search(r"Requests/sec:\s+([\d.]+)", out)
    count = re.search(r"(\d+) requests in", out)
    p50 = re.search(r"^\s*50(?:\.0+)?%[ \t]+(\S+)$", out, re.MULTILINE)
    p99 = re.search(r"^\s*99(?:\.0+)?%[ \t]+(\S+)$", out, re.MULTILINE)
    if done.exit_code != 0 or not (rate and count and p50 and p99):
        raise RuntimeError(f"wrk failed ({done.ending}, exit {done.exit_code}): {out[-200:]}")
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    return LoadResult(
        requests_per_second=float(rate.group(1)),
        p50_ms=_ms(p50.group(1)),
        p99_ms=_ms(p99.group(1)),
        requests=int(count.group(1)),
        non_2xx=int(bad.group(1)) if bad else 0,
        socket_errors=sum(int(g) for g in errors.groups()) if errors else 0,
    )
