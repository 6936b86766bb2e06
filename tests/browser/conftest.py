"""A JupyterLab server and a headless Chromium for the browser tests.

The server runs on a free 127.0.0.1 port with a random token, serves a scratch copy of the
repository (so running notebooks can never rewrite the committed ones), and reads its
settings from a folder of its own: news and update checks off, autosave off, every cell kept
in the page (no windowing, so the test sees all outputs). Chromium is Debian's
``/usr/bin/chromium`` driven by Playwright through ``executable_path``; nothing is downloaded.

A missing browser or Playwright skips these tests, except under ``CI=true`` where it fails.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
SHOTS = Path(__file__).resolve().parent / "screenshots"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {
        "windowingMode": "none",
        "autoStartDefaultKernel": True,
    },
}
STARTUP_SECONDS = 90


def _missing(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true and {reason}")
    pytest.skip(reason)


def chromium_path() -> str:
    """The system Chromium, or skip (fail under CI=true) when there is none."""
    path = (
        os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    )
    if not path:
        _missing("no chromium on PATH (apt-get install chromium)")
    return str(path)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _scratch_copy(dest: Path) -> Path:
    ignore = shutil.ignore_patterns(
        ".git",
        ".venv",
        # installed tools the notebooks do not read (hundreds of MB): the pinned Claude Code,
        # the conformance suite's Node, the hub's homes and proxy
        ".claude-code*",
        ".conformance",
        ".hub",
        "__pycache__",
        "*.egg-info",
        ".*_cache",
        "screenshots",
        "build",
        "dist",
        ".ipynb_checkpoints",
    )
    shutil.copytree(REPO, dest, ignore=ignore, symlinks=True)
    return dest


@dataclass(frozen=True)
class Lab:
    """A running JupyterLab: its base URL, token and the folder it serves."""

    url: str
    token: str
    root: Path

    def notebook_url(self, relative: str) -> str:
        return f"{self.url}/lab/tree/{relative}?token={self.token}&reset"


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """Start JupyterLab on a free local port; stop it (and its kernels) at the end."""
    chromium_path()
    pytest.importorskip("jupyterlab")
    base = tmp_path_factory.mktemp("lab")
    root = _scratch_copy(base / "repo")
    settings = base / "settings"
    for name, value in SETTINGS.items():
        (settings / name).parent.mkdir(parents=True, exist_ok=True)
        (settings / name).write_text(json.dumps(value), encoding="utf-8")
    port, token = _free_port(), secrets.token_hex(16)
    bindir = str(Path(sys.executable).parent)
    env = {
        **os.environ,
        "JUPYTERLAB_SETTINGS_DIR": str(settings),
        "JUPYTERLAB_WORKSPACES_DIR": str(base / "workspaces"),
        "JUPYTER_CONFIG_DIR": str(base / "config"),
        "JUPYTER_RUNTIME_DIR": str(base / "runtime"),
        "MCPMINI_PROGRESS": "off",
        "PATH": bindir + os.pathsep + os.environ.get("PATH", ""),
    }
    argv = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        f"--port={port}",
        "--ip=127.0.0.1",
        f"--ServerApp.root_dir={root}",
        f"--IdentityProvider.token={token}",
        "--LabApp.news_url=None",
        "--LabApp.expose_app_in_browser=True",  # the runner watches the kernel's messages
        "--ServerApp.port_retries=0",
        "--LabApp.check_for_updates_class=jupyterlab.handlers.announcements.NeverCheckForUpdate",
    ]
    if os.geteuid() == 0:
        argv.append("--allow-root")
    log = open(base / "server.log", "wb")  # noqa: SIM115  (closed below)
    proc = subprocess.Popen(
        argv, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + STARTUP_SECONDS
    try:
        while True:
            if proc.poll() is not None:
                pytest.fail(
                    f"JupyterLab exited with {proc.returncode}:\n"
                    + (base / "server.log").read_text(errors="replace")[-3000:]
                )
            try:
                with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not answer within {STARTUP_SECONDS} s")
                try:  # wait a moment for the server, or notice at once that it died
                    proc.wait(timeout=0.25)
                except subprocess.TimeoutExpired:
                    pass
        yield Lab(url, token, root)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait(timeout=10)
        log.close()


@pytest.fixture(scope="module")
def browser(lab: Lab, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A headless Chromium (the system one) with a fresh profile.

    Module-scoped, not session-scoped: Playwright's sync API keeps its asyncio loop marked
    as running on this thread while it is open, so every later test on the same xdist worker
    that calls ``asyncio.run`` (the hub, the SDK interop, nbval's kernels) would fail with
    "cannot be called from a running event loop". With ``--dist loadscope`` a module's tests
    run together, so the loop ends with the module.
    """
    try:
        from playwright import sync_api
    except ImportError:
        _missing("the playwright package is not installed (pip install playwright)")
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile),
            executable_path=chromium_path(),
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1400, "height": 1000},
        )
        try:
            yield context
        finally:
            context.close()
