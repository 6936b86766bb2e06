"""Project trust at the command line: ``--trust-project`` and the yes/no prompt.

Rules of this module: ``mcpmini tools`` and ``mcpmini config resolve`` load a project's servers
*held* (:func:`mcpmini.config.load_held_sources`) and pass them through :func:`gate`, the one
place that reads the home folder (``Path.home()``), asks on a terminal and records an approval
(:func:`mcpmini.config.record_approval`). Only what :func:`gate` releases is started or
expanded; the rules themselves are :mod:`mcpmini.config.trust`'s.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config.trust import (
    MANAGED_DIR,
    SessionKind,
    TrustVerdict,
    pending_names,
    read_record,
    record_approval,
    release,
    resolve_trusted,
    session_differences,
    shown_command,
)
from ..errors import Problem
from .output import echo, terminal_safe

__all__ = ["Gate", "add_trust_option", "gate", "project_dir_of"]

TRUST_HELP = (
    "trust this project and approve its pending MCP servers (.mcp.json, plugins inside it), "
    "recorded as Claude Code records it: hasTrustDialogAccepted in ~/.claude.json and the "
    "names in enabledMcpjsonServers of .claude/settings.local.json. Without it a project's "
    "servers are listed as pending, never started, their ${VAR} never expanded (on a terminal "
    "you are asked instead)"
)


@dataclass(frozen=True)
class Gate:
    """What :func:`gate` decided: every server (held ones as written), the servers that may
    start (expanded), every server's verdict, and the problems found on the way."""

    resolved: dict[str, Any]
    released: dict[str, Any]
    judged: dict[str, TrustVerdict]
    problems: tuple[Problem, ...]
    session: SessionKind = SessionKind.INTERACTIVE
    differ: dict[str, dict[SessionKind, str]] | None = None


def add_trust_option(parser: Any) -> None:
    """Add ``--trust-project`` and ``--session`` to a command's parser."""
    parser.add_argument("--trust-project", action="store_true", help=TRUST_HELP)
    parser.add_argument(
        "--session",
        choices=[k.value for k in SessionKind],
        default=SessionKind.INTERACTIVE.value,
        help="the Claude Code session to judge for: interactive (asks about a pending project "
        "server) or print (claude -p starts it; mcpmini still does not). Default: interactive",
    )


def project_dir_of(project_file: str | None) -> Path:
    """The project folder: the one holding the ``--project`` file, else the working folder."""
    return Path(project_file).resolve().parent if project_file else Path.cwd()


def _ask(pending: list[str], held: Mapping[str, Any], reader: Callable[[], str]) -> bool:
    echo("This project's MCP servers are not approved yet:", err=True)
    for name in pending:
        echo(f"  {name}: {shown_command(held.get(name))}", err=True)
    print(
        terminal_safe("Trust this project and start them? [y/N] "),
        end="",
        file=sys.stderr,
        flush=True,
    )
    return reader().strip().lower() in ("y", "yes")


def _entries(sources: list[Any]) -> dict[str, Any]:
    """Every entry of the project's own sources by name (for the prompt)."""
    out: dict[str, Any] = {}
    for src in sources:
        servers = src[1] if isinstance(src, tuple) else src.servers
        source = src[0] if isinstance(src, tuple) else src.source
        if str(source) == "project" or str(source).startswith("plugin:"):
            out.update(servers)
    return out


def gate(
    args: argparse.Namespace,
    sources: list[Any],
    project_plugins: frozenset[str],
    *,
    environ: Mapping[str, str],
    project_dir: Path,
    ask: bool,
    home: Path | None = None,
    reader: Callable[[], str] = sys.stdin.readline,
) -> Gate:
    """Resolve ``sources`` and decide every server (:func:`~mcpmini.config.trust.resolve_trusted`);
    approve the pending ones when ``--trust-project``
    was given (or, with ``ask``, the user says yes), recording it; return the :class:`Gate`.
    Raises :class:`~mcpmini.config.TrustRecordError` when the approval cannot be recorded
    (a ``~/.claude.json`` that is not a JSON object is never rewritten)."""
    home = Path.home() if home is None else home
    managed = Path(environ.get("MCPMINI_MANAGED_DIR", os.fspath(MANAGED_DIR)))
    session = SessionKind(getattr(args, "session", SessionKind.INTERACTIVE.value))
    record = read_record(project_dir, home=home, managed_dir=managed)
    resolved, judged = resolve_trusted(sources, record, project_plugins, session)
    pending = pending_names(sources, record, project_plugins)
    approve = bool(pending) and (
        getattr(args, "trust_project", False) or (ask and _ask(pending, _entries(sources), reader))
    )
    if approve:
        record_approval(project_dir, pending, home=home)
        record = read_record(project_dir, home=home, managed_dir=managed)
        resolved, judged = resolve_trusted(sources, record, project_plugins, session)
    released, found = release(resolved, judged, environ, project_plugins)
    differ, warned = session_differences(sources, record, project_plugins)
    problems = (*record.problems, *found, *warned)
    return Gate(resolved, released, judged, problems, session, differ)
