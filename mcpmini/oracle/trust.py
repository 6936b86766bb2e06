"""The project-trust suite: ``claude mcp get`` / ``claude mcp list`` against mcpmini's verdict.

Rules of this module:

- A :class:`TrustCase` is data (``data/trust/*.yaml``): settings files per scope, whether the
  workspace is trusted, extra keys of its ``~/.claude.json`` project entry (legacy approval
  keys, ``disabledMcpServers``), user-scope servers, a git repository or not, the project's
  ``.mcp.json`` servers, and ``trust_project`` (mcpmini's ``--trust-project`` approves before
  Claude Code looks). The default servers are harmless: commands that do not exist.
- mcpmini judges first, on the laid-out tree (:func:`mcpmini_states`); then the pinned binary
  runs ``claude mcp get NAME`` for every server and ``claude mcp list`` once, in the same
  sandbox (:func:`claude_states`). Claude Code rewrites ``~/.claude.json`` when it starts (it
  moves legacy approval keys into ``.claude/settings.local.json``), so the order matters.
- Claude Code's status texts map to :class:`~mcpmini.config.TrustState` in :data:`STATUS`; any
  other status (connected, failed to connect, needs authentication) means it was approved and
  health-checked. ``claude mcp list`` leaves rejected servers out (``absent``).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..config import (
    TrustState,
    load_held_sources,
    read_record,
    record_approval,
)
from ..config.trust import pending_names, resolve_trusted
from ..errors import ConfigError
from .case import Case, Scope
from .run import Tree, lay_out, run_command

__all__ = [
    "DEFAULT_SERVERS",
    "STATUS",
    "TRUST_CASES_DIR",
    "TrustCase",
    "TrustPair",
    "claude_states",
    "load_trust_cases",
    "mcpmini_states",
    "run_trust_case",
    "run_trust_suite",
]

TRUST_CASES_DIR = Path(__file__).parent / "data" / "trust"
ABSENT = "absent"  # not in `claude mcp list` (rejected servers are left out)
DEFAULT_SERVERS: dict[str, dict[str, Any]] = {
    "s": {"command": "/nonexistent/mcp-server", "args": ["${SECRET}"]},
    "t": {"command": "/nonexistent/other-server"},
}
#: Claude Code 2.1.332's status texts (``mcp get`` / ``mcp list``) and what they mean.
STATUS: tuple[tuple[str, TrustState], ...] = (
    ("Pending approval", TrustState.PENDING),
    ("Rejected", TrustState.REJECTED),
    ("Disabled for this project", TrustState.DISABLED),
)


@dataclass(frozen=True)
class TrustCase:
    """One project as data (see the module rules); ``known`` names a known disagreement."""

    name: str
    settings: Mapping[Scope, Mapping[str, Any]] = field(default_factory=dict)
    trusted: bool = False
    record: Mapping[str, Any] = field(default_factory=dict)
    user_servers: Mapping[str, Any] = field(default_factory=dict)
    servers: Mapping[str, Any] = field(default_factory=lambda: dict(DEFAULT_SERVERS))
    git: bool = False
    trust_project: bool = False
    known: str | None = None

    @classmethod
    def from_dict(cls, data: Any, source: str) -> TrustCase:
        """Read one case; raises ``ConfigError`` naming ``source`` for a bad field."""
        if not isinstance(data, Mapping) or not isinstance(data.get("name"), str):
            raise ConfigError("a trust case is an object with a name", source)
        unknown = set(data) - {f for f in cls.__dataclass_fields__}
        if unknown:
            raise ConfigError(f"unknown fields {sorted(unknown)}", source)
        try:
            settings = {Scope(k): dict(v) for k, v in (data.get("settings") or {}).items()}
        except (ValueError, TypeError) as exc:
            raise ConfigError(f"bad settings: {exc}", source) from None
        return cls(
            data["name"],
            settings,
            bool(data.get("trusted", False)),
            dict(data.get("record") or {}),
            dict(data.get("user_servers") or {}),
            dict(data.get("servers") or DEFAULT_SERVERS),
            bool(data.get("git", False)),
            bool(data.get("trust_project", False)),
            data.get("known"),
        )


@dataclass(frozen=True)
class TrustPair:
    """One server of one case as each tool saw it (``via`` is ``get`` or ``list``)."""

    case: TrustCase
    server: str
    via: str
    claude: str
    mcpmini: str

    @property
    def agree(self) -> bool:
        """Whether both tools gave the same state."""
        return self.claude == self.mcpmini


def load_trust_cases(folder: Path = TRUST_CASES_DIR) -> tuple[TrustCase, ...]:
    """Every case of every ``*.yaml`` in ``folder``; raises ``ConfigError`` for a bad one."""
    found: list[TrustCase] = []
    for path in sorted(folder.glob("*.yaml")):
        items = yaml.safe_load(path.read_text(encoding="utf-8")) or []
        if not isinstance(items, list):
            raise ConfigError("a case file holds a list of cases", str(path))
        found += [TrustCase.from_dict(item, f"{path}[{i}]") for i, item in enumerate(items)]
    names = [c.name for c in found]
    if len(set(names)) != len(names):
        raise ConfigError("duplicate trust case names", str(folder))
    return tuple(found)


def _prepare(case: TrustCase, tree: Tree) -> None:
    """Write the case's ``~/.claude.json`` extras and make the workspace a git repository."""
    path = tree.home / ".claude.json"
    state = json.loads(path.read_text(encoding="utf-8"))
    entry = state["projects"].setdefault(str(tree.ws), {})
    entry.update(case.record)
    if case.user_servers:
        state["mcpServers"] = dict(case.user_servers)
    path.write_text(json.dumps(state, indent=2), encoding="utf-8")
    if case.git:
        subprocess.run(
            ["git", "-c", "safe.directory=*", "init", "-q", str(tree.ws)], check=True, timeout=30
        )


def mcpmini_states(tree: Tree, *, trust_project: bool = False) -> dict[str, str]:
    """mcpmini's state of every server of the tree; with ``trust_project`` the pending ones are
    approved first, as ``--trust-project`` does (:func:`~mcpmini.config.record_approval`)."""
    scopes = {"project": str(tree.ws / ".mcp.json"), "user": str(tree.home / ".claude.json")}
    sources, _, held = load_held_sources(scopes, environ={}, project_dir=tree.ws)
    managed = tree.root / "managed"
    record = read_record(tree.ws, home=tree.home, managed_dir=managed)
    if trust_project:
        record_approval(tree.ws, pending_names(sources, record, held), home=tree.home)
        record = read_record(tree.ws, home=tree.home, managed_dir=managed)
    return {n: v.state.value for n, v in resolve_trusted(sources, record, held)[1].items()}


def _state_of(status: str) -> str:
    return next((s.value for text, s in STATUS if text in status), TrustState.APPROVED.value)


def claude_states(tree: Tree, binary: Path, names: list[str]) -> dict[str, dict[str, str]]:
    """Claude Code's state of each server: ``{"get": {name: state}, "list": {name: state}}``
    (``missing`` when ``mcp get`` does not know it, ``absent`` when ``mcp list`` leaves it
    out)."""
    got: dict[str, str] = {}
    for name in names:
        done = run_command(tree, binary, ["mcp", "get", name], timeout=60)
        lines = [line for line in done.stdout.splitlines() if line.strip().startswith("Status:")]
        got[name] = _state_of(lines[0]) if done.exit_code == 0 and lines else "missing"
    listed = run_command(tree, binary, ["mcp", "list"], timeout=90)
    shown: dict[str, str] = {}
    for line in listed.stdout.splitlines():
        name, sep, rest = line.partition(": ")
        if sep and name in names and " - " in rest:
            shown[name] = _state_of(rest.rsplit(" - ", 1)[1])
    return {"get": got, "list": {n: shown.get(n, ABSENT) for n in names}}


def run_trust_case(case: TrustCase, binary: Path) -> tuple[TrustPair, ...]:
    """Lay the case out, judge it with mcpmini, then ask Claude Code; one pair per server and
    command. Raises :class:`~.run.OracleFailure` when Claude Code does not run."""
    layout = Case(
        case.name,
        settings=case.settings,
        trusted=case.trusted,
        files={".mcp.json": json.dumps({"mcpServers": dict(case.servers)})},
    )
    with lay_out(layout) as tree:
        _prepare(case, tree)
        mine = mcpmini_states(tree, trust_project=case.trust_project)
        names = list(mine)
        theirs = claude_states(tree, binary, names)
    listed = {n: (ABSENT if s == TrustState.REJECTED else s) for n, s in mine.items()}
    return tuple(
        TrustPair(case, n, via, theirs[via][n], (mine if via == "get" else listed)[n])
        for via in ("get", "list")
        for n in names
    )


def run_trust_suite(
    cases: tuple[TrustCase, ...], binary: Path, workers: int = 2
) -> tuple[TrustPair, ...]:
    """Every case, ``workers`` at a time; the pairs in case order."""
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return tuple(
            p for pairs in pool.map(lambda c: run_trust_case(c, binary), cases) for p in pairs
        )
