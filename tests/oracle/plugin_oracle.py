"""Run ``claude plugin validate --json``; read both validators' answers as one verdict.

Normalisation (what "agree" means in ``test_plugins_oracle.py``):

- ``success``: Claude Code's ``success`` (exit 0) against mcpmini's "no error problem".
- ``problems``: a set of ``(severity, file, path head)``. ``file`` is relative to the folder
  validated (``.`` for the folder itself); ``path head`` is the problem's JSON path with
  ``.N`` written ``[N]`` and cut after the top-level key and its first index
  (``hooks.PreToolUse.0.hooks.0.type`` -> ``hooks``, ``skills.0`` -> ``skills[0]``,
  ``plugins[2] plugin.json → version`` -> ``plugins[2] → version``). Messages are Claude
  Code's wording and deeper paths are its schema library's layout: neither is a verdict.
- ``provides``: the names of the skills, commands and agents the plugin provides (how plugin
  skills are named), when Claude Code reports them.

Claude Code's ``directory`` block (the plugin directory's submission profile: icon, README
lines) and ``notes`` are advice outside the verdict and are not compared.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcpmini.errors import Problem, Severity

OFFLINE_ENV = {
    "DISABLE_TELEMETRY": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "ANTHROPIC_API_KEY": "offline-oracle",
    "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
}
TIMEOUT = 60.0


@dataclass(frozen=True)
class Verdict:
    """One validator's answer, normalised (see the module docstring)."""

    success: bool
    problems: frozenset[tuple[str, str, str]]
    provides: tuple[tuple[str, tuple[str, ...]], ...] = field(default=())

    def show(self) -> str:
        lines = [f"success={self.success}"]
        lines += [f"  {s} {f} {p}" for s, f, p in sorted(self.problems)]
        lines += [f"  provides {k}: {', '.join(v)}" for k, v in self.provides]
        return "\n".join(lines)


def path_head(path: str) -> str:
    """``hooks.PreToolUse.0`` -> ``hooks``; ``skills.0`` -> ``skills[0]``; see the docstring."""
    parts = []
    for part in path.split(" → "):
        part = re.sub(r"\.(\d+)(?=\.|$|\[)", r"[\1]", part.strip())
        found = re.match(r"[^.\[ ]*(\[\d+\])?", part)
        parts.append(found.group(0) if found else part)
    return " → ".join(parts)


def _rel(file: str | None, root: Path) -> str:
    if not file:
        return "."
    rel = os.path.relpath(os.path.abspath(file), os.path.abspath(root))
    return file if rel.startswith("..") else rel


PROVIDED = ("skills", "commands", "agents")


def claude_verdict(report: dict[str, Any], root: Path) -> Verdict:
    """The normalised verdict of one ``claude plugin validate --json`` report on ``root``."""
    found: set[tuple[str, str, str]] = set()
    blocks = [report.get("manifest") or {}, *(report.get("contents") or [])]
    for block in blocks:
        for key, severity in (("errors", "error"), ("warnings", "warning")):
            for item in block.get(key) or []:
                found.add((severity, _rel(block.get("file"), root), path_head(item["path"])))
    provides = report.get("provides") or {}
    return Verdict(
        bool(report["success"]),
        frozenset(found),
        tuple((k, tuple(sorted(provides[k]))) for k in PROVIDED if provides.get(k)),
    )


def mcpmini_verdict(
    problems: list[Problem], root: Path, provides: dict[str, list[str]] | None = None
) -> Verdict:
    """The normalised verdict of mcpmini's problems (``source`` the file, ``path`` the key)."""
    found = {(p.severity.value, _rel(p.source, root), path_head(p.path or "")) for p in problems}
    provides = provides or {}
    return Verdict(
        not any(p.severity is Severity.ERROR for p in problems),
        frozenset(found),
        tuple((k, tuple(sorted(provides[k]))) for k in PROVIDED if provides.get(k)),
    )


def run_validate(binary: Path, target: Path, *, strict: bool = False) -> dict[str, Any]:
    """``claude plugin validate --json [--strict] target``, offline with a fresh HOME.

    Returns the JSON report. Raises ``RuntimeError`` when the binary prints no JSON.
    """
    with tempfile.TemporaryDirectory(prefix="cc-home-") as home:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, **OFFLINE_ENV}
        argv = [str(binary), "plugin", "validate", "--json", *(["--strict"] if strict else [])]
        proc = subprocess.run(
            [*argv, str(target.resolve())],
            capture_output=True,
            text=True,
            env=env,
            cwd=home,
            timeout=TIMEOUT,
            check=False,
        )
    try:
        report: dict[str, Any] = json.loads(proc.stdout)
    except ValueError as exc:
        tail = (proc.stderr or proc.stdout).strip()[-300:]
        raise RuntimeError(
            f"claude plugin validate printed no JSON (exit {proc.returncode}): {tail}"
        ) from exc
    if bool(report.get("success")) != (proc.returncode == 0):
        raise RuntimeError(f"exit {proc.returncode} disagrees with success={report.get('success')}")
    return report
