"""Project trust: which MCP servers a project brought along may start, as Claude Code decides.

A freshly cloned repository's ``.mcp.json`` (and a plugin folder inside the project) names
commands to run and URLs to send headers to. Claude Code 2.1.332 starts none of them until they
are approved, and mcpmini follows it (checked by ``tests/oracle/test_trust_oracle.py`` with
``claude mcp get`` of the pinned binary on the cases of ``mcpmini/oracle/data/trust/``).

Rules of this module:

- The decision is pure: :func:`decide` reads one server's :class:`Facts` and returns the state
  of the first matching row of :data:`RULES`; :func:`facts_of` derives the facts from a
  :class:`ProjectRecord` (what the settings files and ``~/.claude.json`` say), also pure.
- Which settings file counts for what is one table, :data:`COUNTS`. Observed in 2.1.332:
  ``disabledMcpjsonServers`` rejects from any settings file, trusted workspace or not;
  ``enableAllProjectMcpServers`` / ``enabledMcpjsonServers`` approve from the user and managed
  settings always, from the project's ``.claude/settings.json`` and ``.claude/settings.local.json``
  only once the workspace is trusted (``projects[<key>].hasTrustDialogAccepted: true`` in
  ``~/.claude.json``, ``<key>`` the git root or the folder). In a trusted workspace the settings
  are merged first, so the highest file that sets ``enableAllProjectMcpServers`` decides it
  (managed > local > project > user). Names match exactly; a value of the wrong type is ignored.
- The same keys left in ``~/.claude.json``'s project entry (where older versions kept them) count
  as local settings: 2.1.332 moves them into ``.claude/settings.local.json`` when it starts.
- A server switched off for the project (``projects[<key>].disabledMcpServers``, ``/mcp``) is
  ``disabled`` — after the approval check: a pending server stays ``pending``.
- The I/O is at the edge and takes the home folder as an argument (never ``$HOME`` read here):
  :func:`read_record` reads the files, :func:`record_approval` writes what Claude Code's two
  dialogs write — the workspace trust into ``~/.claude.json`` (every other key kept, written
  atomically; a ``~/.claude.json`` that is not a JSON object is refused and never rewritten) and
  each approved name appended to ``enabledMcpjsonServers`` in ``.claude/settings.local.json``.

Documented: "project: needs interactive approval, while ``-p``/SDK sessions load it without
asking". Observed in 2.1.332: ``claude mcp list`` / ``get`` show such a server as "⏸ Pending
approval" and do not connect to it; the non-interactive auto-approval is not modelled here.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from .. import jsonfile
from ..errors import ConfigError, Problem, Severity
from .mcp_json import McpConfig, expand_entry

__all__ = [
    "APPROVAL_KEYS",
    "COUNTS",
    "MANAGED_DIR",
    "PENDING_STARTS",
    "RULES",
    "Approvals",
    "Facts",
    "ProjectRecord",
    "SessionKind",
    "SettingsScope",
    "TrustRecordError",
    "TrustRow",
    "TrustState",
    "TrustVerdict",
    "decide",
    "facts_of",
    "gated_names",
    "pending_names",
    "project_key",
    "read_record",
    "record_approval",
    "release",
    "resolve_trusted",
    "session_differences",
    "settings_files",
    "shown_command",
    "verdicts",
]

APPROVAL_KEYS = ("enableAllProjectMcpServers", "enabledMcpjsonServers", "disabledMcpjsonServers")
MANAGED_DIR = Path("/etc/claude-code")


class SessionKind(StrEnum):
    """The kind of Claude Code session a project's servers are judged for
    (:data:`PENDING_STARTS`)."""

    INTERACTIVE = "interactive"  # `claude`: asks about a pending project server
    PRINT = "print"  # `claude -p`: starts it


#: Whether a *pending* project server starts, per session kind. Documented: a project's
#: servers need approval. Observed in 2.1.332: an interactive session asks, but ``claude -p``
#: starts a pending server — even in an untrusted folder, its ``${VAR}`` expanded from the
#: environment; only ``disabledMcpjsonServers`` or a server switched off in ``~/.claude.json``
#: (rejected, disabled) stops it, and it then wins a name shared with a user server.
#: mcpmini itself never starts a pending server in either kind; it warns what ``-p`` would do.
PENDING_STARTS: dict[SessionKind, bool] = {SessionKind.INTERACTIVE: False, SessionKind.PRINT: True}


class TrustState(StrEnum):
    """Where one MCP server stands (the words of ``claude mcp get``'s status line)."""

    APPROVED = "approved"  # may start (Claude Code health-checks it)
    PENDING = "pending"  # "⏸ Pending approval": never started, never expanded
    REJECTED = "rejected"  # named in disabledMcpjsonServers: "Rejected"
    DISABLED = "disabled"  # switched off for this project: "⊘ Disabled for this project"


class SettingsScope(StrEnum):
    """A settings file that can carry the approval keys, highest precedence first."""

    MANAGED = "managed"  # /etc/claude-code/managed-settings.json
    LOCAL = "local"  # <project>/.claude/settings.local.json (and legacy ~/.claude.json keys)
    PROJECT = "project"  # <project>/.claude/settings.json
    USER = "user"  # ~/.claude/settings.json


#: Which files count: for a rejection, and for an approval before / after the workspace trust.
COUNTS: dict[str, frozenset[SettingsScope]] = {
    "reject": frozenset(SettingsScope),
    "approve_untrusted": frozenset({SettingsScope.USER, SettingsScope.MANAGED}),
    "approve_trusted": frozenset(SettingsScope),
}


@dataclass(frozen=True)
class Approvals:
    """The three approval keys of one settings file (wrong types read as unset)."""

    enable_all: bool | None = None
    enabled: tuple[str, ...] = ()
    disabled: tuple[str, ...] = ()

    @classmethod
    def of(cls, settings: Any) -> Approvals:
        """The keys of a parsed settings object (anything else: none set)."""
        if not isinstance(settings, Mapping):
            return cls()
        every = settings.get("enableAllProjectMcpServers")

        def names(key: str) -> tuple[str, ...]:
            value = settings.get(key)
            if not isinstance(value, list):
                return ()
            return tuple(v for v in value if isinstance(v, str))

        return cls(
            every if isinstance(every, bool) else None,
            names("enabledMcpjsonServers"),
            names("disabledMcpjsonServers"),
        )

    def merged(self, other: Approvals) -> Approvals:
        """Both sets of names; ``enable_all`` from ``self`` unless it is unset."""
        return Approvals(
            self.enable_all if self.enable_all is not None else other.enable_all,
            (*self.enabled, *other.enabled),
            (*self.disabled, *other.disabled),
        )


@dataclass(frozen=True)
class ProjectRecord:
    """What Claude Code knows about one project: its trust, each settings file's approval keys
    and the servers switched off for it."""

    key: str
    trusted: bool = False
    settings: Mapping[SettingsScope, Approvals] = field(default_factory=dict)
    switched_off: frozenset[str] = frozenset()
    problems: tuple[Problem, ...] = ()


@dataclass(frozen=True)
class Facts:
    """What the rules read about one server."""

    gated: bool  # a project server (.mcp.json) or a server of a plugin the project brought
    rejected_in: SettingsScope | None = None
    approved_by: SettingsScope | None = None
    switched_off: bool = False


@dataclass(frozen=True)
class TrustRow:
    """One row of :data:`RULES`: when it matches, the state and why."""

    reason: str
    when: Callable[[Facts], bool]
    state: TrustState


@dataclass(frozen=True)
class TrustVerdict:
    """One server's state, the row that gave it, and the settings file that decided."""

    state: TrustState
    reason: str
    scope: SettingsScope | None = None

    @property
    def may_start(self) -> bool:
        """Whether the server may be started (and its ``${VAR}`` expanded)."""
        return self.state is TrustState.APPROVED


#: First match wins (the order of Claude Code 2.1.332's checks).
RULES: tuple[TrustRow, ...] = (
    TrustRow(
        "switched off for this project",
        lambda f: not f.gated and f.switched_off,
        TrustState.DISABLED,
    ),
    TrustRow("not a project server", lambda f: not f.gated, TrustState.APPROVED),
    TrustRow(
        "named in disabledMcpjsonServers", lambda f: f.rejected_in is not None, TrustState.REJECTED
    ),
    TrustRow("not approved yet", lambda f: f.approved_by is None, TrustState.PENDING),
    TrustRow("switched off for this project", lambda f: f.switched_off, TrustState.DISABLED),
    TrustRow("approved", lambda f: True, TrustState.APPROVED),
)


def decide(facts: Facts) -> TrustVerdict:
    """The state of the first row of :data:`RULES` that matches ``facts``."""
    row = next(r for r in RULES if r.when(facts))
    scope = facts.rejected_in if row.state is TrustState.REJECTED else facts.approved_by
    return TrustVerdict(TrustState(row.state), row.reason, scope if facts.gated else None)


def _approver(name: str, record: ProjectRecord) -> SettingsScope | None:
    """The settings file that approves ``name``, or ``None`` (see the module rules)."""
    counted = COUNTS["approve_trusted" if record.trusted else "approve_untrusted"]
    own = {s: record.settings.get(s, Approvals()) for s in SettingsScope if s in counted}
    if record.trusted:  # merged first: the highest file that sets enableAll decides it
        setter = next((s for s, a in own.items() if a.enable_all is not None), None)
        if setter is not None and own[setter].enable_all:
            return setter
        return next((s for s, a in own.items() if name in a.enabled), None)
    return next((s for s, a in own.items() if a.enable_all is True or name in a.enabled), None)


def facts_of(name: str, record: ProjectRecord, *, gated: bool) -> Facts:
    """The :class:`Facts` of server ``name`` (its key: ``s`` or ``plugin:p:s``) in ``record``."""
    rejected = next(
        (
            s
            for s in SettingsScope
            if s in COUNTS["reject"] and name in record.settings.get(s, Approvals()).disabled
        ),
        None,
    )
    return Facts(gated, rejected, _approver(name, record), name in record.switched_off)


# ---- the edge: files ---------------------------------------------------------------------------


class TrustRecordError(ConfigError):
    """``~/.claude.json`` cannot be read or written as Claude Code's record; nothing was written.
    Exit code 2."""

    exit_code = 2


def project_key(project_dir: str | os.PathLike[str]) -> str:
    """The key of the project in ``~/.claude.json``'s ``projects``: the nearest folder holding
    ``.git`` at or above ``project_dir``, else ``project_dir`` itself (resolved)."""
    here = Path(project_dir).resolve()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return str(folder)
    return str(here)


def settings_files(
    project_dir: str | os.PathLike[str], *, home: str | os.PathLike[str], managed_dir: Path
) -> dict[SettingsScope, Path]:
    """Where each settings file of :class:`SettingsScope` lives for this project."""
    project = Path(project_dir)
    return {
        SettingsScope.MANAGED: Path(managed_dir) / "managed-settings.json",
        SettingsScope.LOCAL: project / ".claude" / "settings.local.json",
        SettingsScope.PROJECT: project / ".claude" / "settings.json",
        SettingsScope.USER: Path(home) / ".claude" / "settings.json",
    }


def _read_object(path: Path, problems: list[Problem]) -> Mapping[str, Any] | None:
    """The JSON object in ``path``; ``None`` when it does not exist, or (with a problem
    appended) when it is not a JSON object."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(Problem(Severity.WARNING, f"cannot read: {exc}", str(path)))
        return None
    try:
        data = jsonfile.loads(text)
    except json.JSONDecodeError as exc:
        problems.append(
            Problem(Severity.WARNING, f"invalid JSON: {exc.msg}", str(path), line=exc.lineno)
        )
        return None
    if not isinstance(data, Mapping):
        problems.append(Problem(Severity.WARNING, "expected a JSON object", str(path), line=1))
        return None
    return data


def read_record(
    project_dir: str | os.PathLike[str],
    *,
    home: str | os.PathLike[str],
    managed_dir: Path = MANAGED_DIR,
) -> ProjectRecord:
    """Read the project's :class:`ProjectRecord` from ``home/.claude.json`` and the settings
    files. Never raises: an unreadable or malformed file is a warning in ``problems`` and counts
    as saying nothing (so project servers stay pending — failing closed)."""
    problems: list[Problem] = []
    key = project_key(project_dir)
    settings = {
        scope: Approvals.of(_read_object(path, problems))
        for scope, path in settings_files(project_dir, home=home, managed_dir=managed_dir).items()
    }
    state = _read_object(Path(home) / ".claude.json", problems)
    projects = state.get("projects") if state is not None else None
    entry = projects.get(key) if isinstance(projects, Mapping) else None
    if not isinstance(entry, Mapping):
        entry = {}
    legacy = Approvals.of(entry)  # 2.1.332 moves these into settings.local.json at start
    settings[SettingsScope.LOCAL] = settings[SettingsScope.LOCAL].merged(legacy)
    off = entry.get("disabledMcpServers")
    return ProjectRecord(
        key,
        entry.get("hasTrustDialogAccepted") is True,
        settings,
        frozenset(n for n in off if isinstance(n, str)) if isinstance(off, list) else frozenset(),
        tuple(problems),
    )


def _write_atomic(path: Path, data: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=2, ensure_ascii=False)
            out.write("\n")
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _loaded(path: Path) -> dict[str, Any]:
    """The JSON object in ``path`` to update ({} when absent). Raises
    :class:`TrustRecordError` when it is there but not a readable JSON object."""
    problems: list[Problem] = []
    if not path.exists():
        return {}
    data = _read_object(path, problems)
    if data is None:
        why = problems[0].message if problems else "unreadable"
        raise TrustRecordError(f"{why}; not rewritten, nothing recorded", str(path))
    return dict(data)


def record_approval(
    project_dir: str | os.PathLike[str],
    names: Iterable[str],
    *,
    home: str | os.PathLike[str],
) -> None:
    """Record that the user trusted the project and approved ``names``, as Claude Code's trust
    and MCP dialogs do: ``projects[<key>].hasTrustDialogAccepted = true`` in
    ``home/.claude.json`` and each name appended (once) to ``enabledMcpjsonServers`` in
    ``<project>/.claude/settings.local.json``. Both files are checked before either is
    written. Raises :class:`TrustRecordError` naming a file that is not a JSON object (it
    is left as it was)."""
    claude_json = Path(home) / ".claude.json"
    local = Path(project_dir) / ".claude" / "settings.local.json"
    state, settings = _loaded(claude_json), _loaded(local)
    projects = state.get("projects", {})
    if not isinstance(projects, Mapping):
        raise TrustRecordError("'projects' is not an object; not rewritten", str(claude_json))
    key = project_key(project_dir)
    entry = projects.get(key, {})
    entry = dict(entry) if isinstance(entry, Mapping) else {}
    wanted = list(names)
    enabled = settings.get("enabledMcpjsonServers")
    enabled = list(enabled) if isinstance(enabled, list) else []
    added = [n for n in dict.fromkeys(wanted) if n not in enabled]
    if added:
        _write_atomic(local, {**settings, "enabledMcpjsonServers": [*enabled, *added]})
    if entry.get("hasTrustDialogAccepted") is not True:
        entry["hasTrustDialogAccepted"] = True
        _write_atomic(claude_json, {**state, "projects": {**projects, key: entry}})


def gated_names(resolved: Mapping[str, Any], project_plugins: Collection[str]) -> set[str]:
    """The keys of ``resolved`` (``{name: Resolved}``) that need an approval: the project
    scope's, and those of the plugins named in ``project_plugins``."""
    return {
        n for n, r in resolved.items() if _is_gated(str(getattr(r, "source", "")), project_plugins)
    }


def verdicts(
    resolved: Mapping[str, Any], record: ProjectRecord, project_plugins: Collection[str] = ()
) -> dict[str, TrustVerdict]:
    """The :class:`TrustVerdict` of every server of ``resolved`` (``{name: Resolved}``, see
    :func:`~mcpmini.config.resolve_mcp_servers`) in the project ``record`` describes."""
    gated = gated_names(resolved, project_plugins)
    return {n: decide(facts_of(n, record, gated=n in gated)) for n in resolved}


def release(
    resolved: Mapping[str, Any],
    judged: Mapping[str, TrustVerdict],
    environ: Mapping[str, str],
    project_plugins: Collection[str] = (),
) -> tuple[dict[str, Any], list[Problem]]:
    """The servers that may start, the held ones among them expanded from ``environ`` now
    (:func:`~mcpmini.config.expand_entry`); the others are left out, never expanded.
    Returns ``({name: Resolved}, problems)`` — none so far: the warnings about unset
    variables were reported when the entries were loaded."""
    gated = gated_names(resolved, project_plugins)
    out: dict[str, Any] = {}
    problems: list[Problem] = []
    for name, r in resolved.items():
        if not judged[name].may_start:
            continue
        if name in gated and isinstance(r.value, Mapping):
            value, _ = expand_entry(r.value, environ, name=name, origin=r.origin)
            r = replace(r, value=value)
        out[name] = r
    return out, problems


def shown_command(entry: Any) -> str:
    """A held entry's command line (or URL) as written, for a listing."""
    if not isinstance(entry, Mapping):
        return ""
    if "command" in entry:
        args = entry.get("args")
        return " ".join(
            str(x) for x in (entry["command"], *(args if isinstance(args, list) else []))
        )
    return str(entry.get("url", ""))


def _as_configs(sources: Iterable[Any]) -> list[Any]:
    out = []
    for src in sources:
        if isinstance(src, tuple):  # a (source, {name: entry}) pair
            src = McpConfig(src[0], dict(src[1]))
        out.append(src)
    return out


def _is_gated(source: str, project_plugins: Collection[str]) -> bool:
    return source == "project" or (
        source.startswith("plugin:") and source.split(":", 1)[1] in project_plugins
    )


def pending_names(
    sources: Iterable[Any], record: ProjectRecord, project_plugins: Collection[str] = ()
) -> list[str]:
    """Every held server (project scope, project plugins) still waiting for an approval —
    also one whose name a user-scope server takes meanwhile (Claude Code asks about it too)."""
    return [
        n
        for src in _as_configs(sources)
        if _is_gated(str(src.source), project_plugins)
        for n in src.servers
        if decide(facts_of(n, record, gated=True)).state is TrustState.PENDING
    ]


def resolve_trusted(
    sources: Iterable[Any],
    record: ProjectRecord,
    project_plugins: Collection[str] = (),
    session: SessionKind = SessionKind.INTERACTIVE,
) -> tuple[dict[str, Any], dict[str, TrustVerdict]]:
    """Resolve ``sources`` (:func:`~mcpmini.config.load_held_sources`) as Claude Code 2.1.332
    does with trust in a ``session`` of that kind: a project server that does not start there
    (:data:`PENDING_STARTS`) takes no part in precedence — a user-scope server of the same
    name wins — and is listed under its own name only when no other source defines it.
    Returns ``({name: Resolved}, {name: TrustVerdict})``; the verdicts are the same in both
    kinds (a pending server stays pending: mcpmini never starts it)."""
    from .precedence import Resolved, resolve_mcp_servers

    kept: list[Any] = []
    held: dict[str, tuple[Any, TrustVerdict]] = {}
    for src in _as_configs(sources):
        source = str(src.source)
        if not _is_gated(source, project_plugins):
            kept.append(src)
            continue
        judged = {n: decide(facts_of(n, record, gated=True)) for n in src.servers}
        takes_part = {
            n
            for n, v in judged.items()
            if v.may_start or (PENDING_STARTS[session] and v.state is TrustState.PENDING)
        }
        for n, entry in src.servers.items():
            if n not in takes_part:
                held[n] = (Resolved(n, entry, source, src.origin), judged[n])
        kept.append(replace(src, servers={n: e for n, e in src.servers.items() if n in takes_part}))
    resolved = resolve_mcp_servers(kept)
    out = verdicts(resolved, record, project_plugins)
    for name, (r, v) in held.items():
        if name not in resolved:
            resolved[name], out[name] = r, v
    return resolved, out


def session_differences(
    sources: Iterable[Any], record: ProjectRecord, project_plugins: Collection[str] = ()
) -> tuple[dict[str, dict[SessionKind, str]], list[Problem]]:
    """What differs between the session kinds: for each server name whose winning source is
    not the same, the source per :class:`SessionKind`; and one warning per pending server
    saying that ``claude -p`` in this folder would start it (mcpmini does not)."""
    sources = list(sources)
    by_kind = {
        kind: resolve_trusted(sources, record, project_plugins, kind)[0] for kind in SessionKind
    }
    names = set().union(*(set(r) for r in by_kind.values()))
    differ = {
        n: {k: str(by_kind[k][n].source) if n in by_kind[k] else "" for k in SessionKind}
        for n in sorted(names)
        if len({str(by_kind[k][n].source) if n in by_kind[k] else "" for k in SessionKind}) > 1
    }
    warnings = [
        Problem(
            Severity.WARNING,
            f"claude -p in this folder would start the pending project server {n!r} "
            "(never approved; ${VAR} expanded from the environment); mcpmini does not start it"
            + (
                f"; claude -p uses it instead of the {differ[n][SessionKind.INTERACTIVE]} one"
                if n in differ and differ[n][SessionKind.INTERACTIVE]
                else ""
            ),
            n,
        )
        for n in pending_names(sources, record, project_plugins)
    ]
    return differ, warnings
