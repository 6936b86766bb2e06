"""Where the real Claude Code binary lives, and how the project installs the pinned one.

Rules of this module:

- ``PIN`` is the one Claude Code version every verdict of the workbench is checked against.
- The binary is found in this order: ``MCPMINI_CLAUDE_CODE`` (a path to the executable) in the
  given environment, then the project's own install (``.claude-code/`` at the repository root,
  written by ``make claude-code`` and by the differential tests), then ``claude`` on ``PATH``.
- The npm package ``@anthropic-ai/claude-code`` ships its native binary in the optional
  dependency for the platform (``@anthropic-ai/claude-code-linux-x64/claude``); it runs directly,
  so the package's postinstall script is not needed and npm runs with ``--ignore-scripts``.
"""

from __future__ import annotations

import fcntl
import json
import os
import platform
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from ..errors import McpminiError

__all__ = [
    "INSTALL_DIR",
    "PIN",
    "ClaudeCodeMissing",
    "binary_version",
    "find_claude",
    "install_claude",
]

PIN = "2.1.332"
ENV_VAR = "MCPMINI_CLAUDE_CODE"
INSTALL_DIR = Path(__file__).resolve().parents[2] / ".claude-code"
INSTALL_TIMEOUT = 600.0


class ClaudeCodeMissing(McpminiError):
    """No Claude Code binary could be found or installed; the message says how to get one."""

    exit_code = 2


def _platform_package() -> str:
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(
        platform.machine().lower(), platform.machine().lower()
    )
    return f"claude-code-linux-{arch}"


def _binary_in(root: Path) -> Path | None:
    """The native binary npm put under ``root``: hoisted next to the wrapper package, or
    nested inside it (npm does either, depending on its version and the tree)."""
    scope = root / "node_modules" / "@anthropic-ai"
    for folder in (scope, scope / "claude-code" / "node_modules" / "@anthropic-ai"):
        binary = folder / _platform_package() / "claude"
        if binary.is_file():
            return binary
    return None


def _installed_binary(root: Path, version: str) -> Path | None:
    stamp = root / "installed.json"
    binary = _binary_in(root)
    if not (stamp.exists() and binary is not None):
        return None
    try:
        recorded = json.loads(stamp.read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError, AttributeError):
        return None
    return binary if recorded == version else None


def find_claude(environ: Mapping[str, str], root: Path = INSTALL_DIR) -> Path | None:
    """The Claude Code executable to use, or ``None`` when there is none.

    ``environ`` is the caller's environment (``MCPMINI_CLAUDE_CODE`` and ``PATH`` are read from
    it); ``root`` is the project's install folder.
    """
    named = environ.get(ENV_VAR)
    if named:
        path = Path(named)
        return path if path.is_file() and os.access(path, os.X_OK) else None
    own = _installed_binary(root, PIN)
    if own is not None:
        return own
    found = shutil.which("claude", path=environ.get("PATH"))
    return Path(found) if found else None


def install_claude(version: str = PIN, root: Path = INSTALL_DIR) -> Path:
    """Install ``@anthropic-ai/claude-code@version`` into ``root`` with npm (cached) and return
    the native binary. Raises :class:`ClaudeCodeMissing` when npm is absent or the install fails.
    """
    root.mkdir(parents=True, exist_ok=True)
    # one install at a time (pytest-xdist workers ask together): the others wait, then reuse it
    with open(root / ".install.lock", "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _install_locked(version, root)


def _install_locked(version: str, root: Path) -> Path:
    cached = _installed_binary(root, version)
    if cached is not None:
        return cached
    npm = shutil.which("npm")
    if npm is None:
        raise ClaudeCodeMissing(
            "npm is not installed: install Node.js and npm (apt-get install npm), then run "
            "`make claude-code`"
        )
    root.mkdir(parents=True, exist_ok=True)
    package = {
        "name": "mcpmini-claude-code",
        "private": True,
        "dependencies": {"@anthropic-ai/claude-code": version},
    }
    (root / "package.json").write_text(json.dumps(package, indent=2), encoding="utf-8")
    try:
        proc = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise ClaudeCodeMissing(f"npm install of Claude Code {version} timed out") from exc
    binary = _binary_in(root)
    if proc.returncode != 0 or binary is None:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        raise ClaudeCodeMissing(f"npm install of Claude Code {version} failed: {tail[0]}")
    binary.chmod(0o755)
    (root / "installed.json").write_text(json.dumps({"version": version}), encoding="utf-8")
    return binary


def binary_version(binary: Path) -> str:
    """The version a Claude Code binary reports (the first word of ``claude --version``).
    Raises :class:`ClaudeCodeMissing` when it does not run or prints something unexpected."""
    try:
        proc = subprocess.run(
            [str(binary), "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ClaudeCodeMissing(f"{binary} --version did not run: {exc}") from exc
    words = proc.stdout.split()
    if proc.returncode != 0 or not words:
        raise ClaudeCodeMissing(f"{binary} --version exited {proc.returncode}")
    return words[0]
