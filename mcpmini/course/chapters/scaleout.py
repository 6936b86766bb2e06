"""Scale-out on one machine: real ``mcpmini serve add --http`` backends behind Debian's nginx.

Chapter 02b and ``tests/test_scaleout.py`` use it. :func:`backends` starts N server processes
on pre-bound loopback sockets, :func:`balancer` starts nginx in front of them (round robin, or
``ip_hash`` affinity), :func:`post_calls` sends requests through it and records which backend
answered (nginx's ``X-Upstream`` header), and :func:`wrk` measures a URL with the C load
generator. Every process goes through :mod:`mcpmini.process` (one kill policy), everything
listens on 127.0.0.1, and every wait is bounded.

nginx and wrk are Debian packages (``apt-get install nginx wrk``); :func:`missing` names those
not installed, so a notebook can show recorded figures instead (:data:`RECORDED_STATELESS`,
:data:`RECORDED_SESSIONS`, :data:`RECORDED_LOAD`, measured on the machine that built the
course). The chapter's three experiments are read into labelled tables by :func:`phase_row` /
:func:`phase_table`, :func:`balancing_table` and :func:`load_lines`, every word a row of
:data:`WORDS` in the learner's language.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson

from ... import process
from ...mcp.asgi import listening_socket
from ..language import Text

__all__ = [
    "RECORDED_LOAD",
    "RECORDED_SESSIONS",
    "RECORDED_STATELESS",
    "WORDS",
    "Backend",
    "LoadResult",
    "backends",
    "balancer",
    "balancing_table",
    "load_lines",
    "missing",
    "nginx_conf",
    "phase_row",
    "phase_table",
    "post_calls",
    "tools_line",
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


# --- notebook 02b: the experiments' tables --------------------------------------------------

#: Every word of notebook 02b's section 5 (``{name}`` fields are formatted in).
WORDS: dict[str, Text] = {
    "tools_ready": Text("nginx と wrk: そろっています", "nginx and wrk: installed"),
    "tools_missing": Text(
        "nginx と wrk: {lacking} がありません。記録した結果を表示します",
        "nginx and wrk: {lacking} missing, showing the recorded results",
    ),
    "phase": Text("段階", "phase"),
    "both": Text("2 台とも動作", "both backends running"),
    "one_stopped": Text("台 0 を停止したあと", "after backend 0 was stopped"),
    "calls": Text("呼び出し", "calls"),
    "ok": Text("HTTP 200", "HTTP 200"),
    "correct": Text("正しい答え", "correct answers"),
    "answered_by": Text("答えた台", "answered by"),
    "backend": Text("台 {n}", "backend {n}"),
    "balancing": Text("振り分け", "balancing"),
    "round_robin": Text("ラウンドロビン", "round robin"),
    "ip_hash": Text("ip_hash（台を固定）", "ip_hash (one backend per client)"),
    "statuses": Text("tools/call の HTTP 状態", "HTTP status of each tools/call"),
    "rate": Text(
        "nginx の後ろに {n} 台: {rate:8.0f} 要求/秒",
        "{n} backend(s) behind nginx: {rate:8.0f} requests/s",
    ),
    "ratio": Text("2 台 / 1 台 = {ratio:.2f}", "2 backends / 1 backend = {ratio:.2f}"),
}

#: Section 5's first experiment as recorded on the machine that built the course (2 cores,
#: nginx 1.22, wrk 4.1): 6 stateless calls with both backends, 6 after stopping backend 0.
RECORDED_STATELESS: tuple[dict[str, Any], ...] = (
    {"phase": "both", "calls": 6, "ok": 6, "correct": 6, "answered_by": (0, 1)},
    {"phase": "one_stopped", "calls": 6, "ok": 6, "correct": 6, "answered_by": (1,)},
)
#: The HTTP status of 4 ``tools/call`` requests after one ``initialize``, per balancing.
RECORDED_SESSIONS: dict[str, tuple[int, ...]] = {
    "round_robin": (404, 200, 404, 200),
    "ip_hash": (200, 200, 200, 200),
}
#: Requests per second behind nginx by number of backends (2 cores, load average 1).
RECORDED_LOAD: dict[int, float] = {1: 12597.0, 2: 11479.0}


def _w(row: str, /, **fields: Any) -> str:
    return WORDS[row].lang().format(**fields)


def tools_line(lacking: Sequence[str]) -> str:
    """Whether nginx and wrk are here (:func:`missing`), in the learner's language."""
    return _w("tools_ready") if not lacking else _w("tools_missing", lacking=", ".join(lacking))


def phase_row(
    phase: str, replies: Sequence[tuple[int, str, Any]], first: int, ports: Sequence[int]
) -> dict[str, Any]:
    """One phase of the stateless experiment from :func:`post_calls`'s replies: how many
    calls, how many ``200``, how many correct sums (call ``i`` adds ``first + i`` and 1), and
    which backends answered (their indices in ``ports``, read from ``X-Upstream``)."""
    index = {str(port): i for i, port in enumerate(ports)}
    answered = {index.get(up.rsplit(":", 1)[-1], -1) for _, up, _ in replies}
    return {
        "phase": phase,
        "calls": len(replies),
        "ok": sum(status == 200 for status, _, _ in replies),
        "correct": sum(
            isinstance(r, dict) and r.get("content", [{}])[0].get("text") == str(first + i + 1)
            for i, (_, _, r) in enumerate(replies)
        ),
        "answered_by": tuple(sorted(answered)),
    }


def phase_table(rows: Sequence[Mapping[str, Any]]) -> Any:
    """The stateless experiment's rows (:func:`phase_row` or :data:`RECORDED_STATELESS`) as
    a ``pandas.DataFrame`` in the learner's language."""
    import pandas as pd

    def who(indices: Sequence[int]) -> str:
        return ", ".join(_w("backend", n=i) if i >= 0 else "?" for i in indices)

    return pd.DataFrame(
        [
            {
                _w("phase"): _w(row["phase"]),
                _w("calls"): row["calls"],
                _w("ok"): row["ok"],
                _w("correct"): row["correct"],
                _w("answered_by"): who(row["answered_by"]),
            }
            for row in rows
        ]
    )


def balancing_table(statuses: Mapping[str, Sequence[int]]) -> Any:
    """The handshake experiment (balancing key → the HTTP status of each ``tools/call``) as
    a ``pandas.DataFrame`` in the learner's language."""
    import pandas as pd

    return pd.DataFrame(
        [{_w("balancing"): _w(key), _w("statuses"): list(codes)} for key, codes in statuses.items()]
    )


def load_lines(load: Mapping[int, float]) -> list[str]:
    """The wrk figures (backends → requests per second) and the 2-to-1 ratio, as lines."""
    lines = [_w("rate", n=n, rate=rate) for n, rate in load.items()]
    if 1 in load and 2 in load:
        lines.append(_w("ratio", ratio=load[2] / load[1]))
    return lines
