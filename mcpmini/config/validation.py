"""``claude plugin validate``: the verdict Claude Code 2.1.332 gives a plugin or a marketplace.

:func:`validate` takes a folder (or a ``plugin.json`` / ``marketplace.json``) and returns a
:class:`Report`: every problem (``source`` the file, ``path`` the JSON path as Claude Code names
it), and the skills, commands and agents the plugin provides. ``tests/oracle`` checks each
verdict against the pinned binary on the whole ``claude-plugins-official`` snapshot and on the
generated variants.

Rules of this module (each observed in Claude Code 2.1.332; where the documentation says
otherwise the rule says so):

- What is validated: a folder with ``.claude-plugin/marketplace.json`` is a marketplace (its
  ``plugin.json`` is then not read); otherwise one with ``.claude-plugin/plugin.json`` is a
  plugin. A folder with neither is only a folder of components when it has
  ``skills/<x>/SKILL.md`` or a ``.claude`` folder (then its skills, agents and commands are
  checked and nothing is provided); else it fails with ``directory``. A ``skills``, ``agents``
  or ``commands`` folder, and a ``.claude`` folder, are read as a project's: there an agent
  file without front matter or ``name`` is a reference document (no warning), and symlinked
  agents and commands are reported. Documented: the manifest is optional. Observed:
  the validator fails a plugin folder without it (the marketplace's ``strict: false`` LSP
  plugins of the official repository all fail alone).
- The manifest: ``name`` is required, a non-empty string without spaces; typed fields are
  :data:`MANIFEST_TYPES`; unknown fields, non-kebab names, and a missing ``version``,
  ``description`` or ``author`` are warnings. A reserved name (:func:`reserved_name`) is an
  error for a plugin validated alone and for a marketplace entry whose plugin.json names it
  otherwise. Component paths start with ``./``, never hold ``..`` and must exist.
- Components are read from the default folders only, never through a symlink: a symlinked
  folder or skill folder, or a file over :data:`MAX_COMPONENT_BYTES` (1 MiB, the SKILL.md size
  cap), is skipped with a ``directory`` warning on its folder. Agents and commands are found in
  subfolders too (named ``plugin:sub:name``). A symlinked agent or command file is skipped
  silently.
- Front matter is read by :func:`mcpmini.frontmatter.read_as_validator`. No block is a
  warning; YAML that fails is an error; ``description`` must be a scalar and is only a warning
  when missing; ``name`` must be a string; ``allowed-tools`` a string or list of strings;
  ``shell`` bash or powershell; a non-mapping ``metadata`` is a warning.
- Provided names: ``plugin:<folder>`` for skills (documented: the front-matter ``name``
  replaces the folder name; observed: the validator keeps the folder), ``plugin:<name or file
  stem>`` for agents, ``plugin:<file stem>`` for commands. A skill and a command of one name
  are both provided (no duplicate error).
- hooks.json: not JSON (a BOM included), not an object, no ``hooks`` object, or an event that
  is not a list are errors; an unknown event, an invalid handler and an unquoted
  ``${CLAUDE_PLUGIN_ROOT}`` are warnings (the entry is ignored at runtime).
- .mcp.json: not JSON (a BOM included) is an error; a stdio server needs a ``command``, an
  http/sse/ws server a ``url``, an unknown type is an error; an array of servers is a warning;
  ``${user_config.X}`` must be declared in ``userConfig``.
- marketplace.json: see :func:`mcpmini.config.marketplace.validate_marketplace`.

Where the documentation (reference §4, snapshot of 2026-08-22) and the binary differ, this module
follows the binary:

- documented: the manifest is optional; observed in Claude Code 2.1.332: ``plugin validate``
  fails a folder without ``plugin.json`` (``directory``) unless it holds ``skills/*/SKILL.md``.
- documented: ``name`` must be kebab-case; observed: any other name is a warning, only an empty
  name or one with a space is an error, and reserved names (``claude-…``, ``anthropic-…``,
  ``cc-plugin-…``, ``official`` beside ``claude``) are errors for a plugin validated alone.
- documented: a wrong type is a load error except ``experimental`` and ``metadata``; observed:
  ``engines``, ``network`` and ``binaries`` are lenient too (warnings).
- documented: ``agents`` paths replace the ``agents/`` folder; observed: each must be a ``.md``
  file (a folder path is an error).
- documented: only plugin.json belongs in ``.claude-plugin/``; observed: the validator says
  nothing about other files there.
- documented: in plugins the front-matter ``name`` of a skill replaces the folder name;
  observed: skills are provided under their folder name.
- undocumented, observed: a BOM is accepted in plugin.json and marketplace.json and refused in
  hooks.json and .mcp.json; components over 1 MiB are not validated (the SKILL.md size cap);
  front matter that strict YAML refuses is re-read with special one-line values quoted.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from ..errors import Problem, Severity
from ..frontmatter import read_as_validator
from .manifest import (
    MANIFEST_TYPES,
    _component_paths,
    _declared,
    _Found,
    _json_of,
    _kind,
    _manifest_checks,
    _server_problems,
    reserved_name,
)
from .marketplace import validate_marketplace

__all__ = [
    "MANIFEST_TYPES",
    "MAX_COMPONENT_BYTES",
    "Report",
    "Target",
    "reserved_name",
    "validate",
]

MAX_COMPONENT_BYTES = 1024 * 1024
_PLACEHOLDERS = ("CLAUDE_PLUGIN_ROOT", "CLAUDE_PLUGIN_DATA", "CLAUDE_PROJECT_DIR")


class Target(StrEnum):
    """What :func:`validate` read."""

    PLUGIN = "plugin"
    MARKETPLACE = "marketplace"
    COMPONENTS = "components"


@dataclass(frozen=True)
class Report:
    """One validation: the target, every problem, and what the plugin provides.

    ``provides`` maps ``skills`` / ``commands`` / ``agents`` to sorted names; it is empty when
    Claude Code lists nothing (a failed validation, a marketplace, a folder of components).
    """

    target: Target
    file: str
    problems: tuple[Problem, ...]
    provides: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def success(self) -> bool:
        """True when no problem is an error (``claude plugin validate`` exits 0)."""
        return not any(p.severity is Severity.ERROR for p in self.problems)


# --- MCP servers and hooks ------------------------------------------------------------------
def _mcp_file(path: Path, declared: set[str] | None, out: list[Problem]) -> None:
    found = _Found(out, path)
    ok, data = _json_of(path, found, bom_ok=False)
    if not ok:
        return
    # JavaScript truthiness: an empty object or list is true, so ``{"mcpServers": {}}`` wraps
    wrapped = isinstance(data, dict) and data.get("mcpServers") not in (None, False, 0, "")
    servers = data["mcpServers"] if wrapped else data
    where = "mcpServers" if wrapped else "root"
    if isinstance(servers, list):
        if servers:
            found.warn(where, "is an array; use an object keyed by server name")
        entries = [(str(i), s) for i, s in enumerate(servers)]
    elif isinstance(servers, dict):
        entries = list(servers.items())
    else:
        found.error(where, "MCP servers must be an object")
        return
    for name, server in entries:
        _server_problems(f"{where}.{name}", server, declared, found)


def _unquoted(command: str) -> bool:
    """True when a ``${CLAUDE_PLUGIN_ROOT}``-like placeholder stands outside quotes."""
    quote = None
    i = 0
    while i < len(command):
        c = command[i]
        if quote is None and c in "\"'":
            quote = c
        elif c == quote:
            quote = None
        elif quote is None and any(command.startswith(f"${{{p}}}", i) for p in _PLACEHOLDERS):
            return True
        i += 1
    return False


def _handler_problem(handler: Any) -> str | None:
    if not isinstance(handler, dict):
        return "a hook must be an object"
    kind = handler.get("type")
    required = {"command": "command", "http": "url", "prompt": "prompt", "agent": "prompt"}
    if kind not in (*required, "mcp_tool"):
        return f"Unknown hook type {kind!r}"
    need = required.get(str(kind))
    if need and not isinstance(handler.get(need), str):
        return f"Invalid {kind} hook ({need} must be a string)"
    if "timeout" in handler and not isinstance(handler["timeout"], int | float):
        return f"Invalid {kind} hook (timeout must be a number)"
    return None


_GUARD_EVENTS = frozenset({"PreToolUse", "PermissionRequest"})


def _stem(path: Path) -> str:
    """A component's name from its file: ``.md`` removed (``A.MD`` stays ``A.MD``)."""
    return path.name.removesuffix(".md")


def _hooks_file(path: Path, out: list[Problem]) -> None:
    from ..hooks.events import EVENTS

    found = _Found(out, path)
    ok, data = _json_of(path, found, bom_ok=False)
    if not ok:
        return
    if not isinstance(data, dict):
        found.error("root", "hooks.json must be an object")
        return
    if "hooks" not in data:
        if "PreToolUse" in data or "PermissionRequest" in data:
            found.error("hooks", "PreToolUse/PermissionRequest is outside the 'hooks' object")
        elif "modules" not in data:
            found.error("root", "hooks.json must have `hooks` or `modules`")
        return
    hooks = data["hooks"]
    if not isinstance(hooks, dict):
        found.error("hooks", "'hooks' must be an object")
        return
    for event, groups in hooks.items():
        # an invalid entry is skipped at runtime (a warning), except under the guard events:
        # a PreToolUse or PermissionRequest hook that cannot load fails the plugin
        report = found.error if event in _GUARD_EVENTS else found.warn
        if event not in EVENTS:
            found.warn(f"hooks.{event}", "unknown hook event; entry ignored at runtime")
            continue
        if not isinstance(groups, list) or not all(
            isinstance(g, dict)
            and isinstance(g.get("hooks", []), list)
            and isinstance(g.get("matcher", ""), str)
            for g in groups
        ):
            report(f"hooks.{event}", "an event holds a list of matcher groups")
            continue
        for g, group in enumerate(groups):
            for h, handler in enumerate(group.get("hooks", [])):
                problem = _handler_problem(handler)
                if problem is not None:
                    report(f"hooks.{event}.{g}.hooks.{h}", f"{problem}; ignored at runtime")
                elif (
                    handler.get("type") == "command"
                    and "args" not in handler
                    and handler.get("shell") != "powershell"
                    and _unquoted(handler["command"])
                ):
                    found.warn(f"hooks.{event}", "Shell command uses a placeholder without quotes")


# --- components ---------------------------------------------------------------------------


def _front_matter_problems(
    path: Path, text: str, kind: str, out: list[Problem], *, project: bool = False
) -> Any:
    """Check one skill, agent or command file; returns its front matter (a dict or None).

    In a project's ``.claude`` folder an agent file without front matter (or without a
    ``name``) is a reference document, not an agent: no warning for what it lacks.
    """
    found = _Found(out, path)
    front = read_as_validator(text)
    reference = project and kind == "agent"
    if not front.found:
        if not reference:
            found.warn("frontmatter", "No frontmatter block found")
        return None
    if front.error is not None:
        found.error("frontmatter", f"YAML frontmatter failed to parse: {front.error}")
        return None
    value = front.value
    if value is not None and not isinstance(value, dict):
        found.error("frontmatter", f"Frontmatter must be a YAML mapping, got {_kind(value)}")
        return None
    fields: dict[str, Any] = value or {}
    if "description" in fields:
        if isinstance(fields["description"], list | dict):
            found.error("description", "description must be a string")
    elif not reference or isinstance(fields.get("name"), str):
        found.warn("description", f"No description in frontmatter of this {kind}")
    if fields.get("name") is not None and not isinstance(fields["name"], str):
        found.error("name", f"name must be a string, got {_kind(fields['name'])}")
    tools = fields.get("allowed-tools")
    if not (
        tools is None
        or isinstance(tools, str)
        or (isinstance(tools, list) and all(isinstance(t, str) for t in tools))
    ):
        found.error("allowed-tools", "allowed-tools must be a string or list of strings")
    if kind in ("skill", "command"):
        meta, shell = fields.get("metadata"), fields.get("shell")
        if meta is not None and not isinstance(meta, dict):
            found.warn("metadata", "'metadata' must be a mapping; it is dropped at load time")
        if shell is not None and (
            not isinstance(shell, str) or shell.strip().lower() not in ("bash", "powershell")
        ):
            found.error("shell", "shell must be 'bash' or 'powershell'")
    return fields


def _markdown_files(
    folder: Path, prefix: tuple[str, ...] = (), links: list[Path] | None = None
) -> Iterator[tuple[Path, tuple[str, ...]]]:
    """Every ``*.md`` below ``folder`` with its subfolder names; symlinks are never followed
    (they are added to ``links`` when it is given)."""
    for entry in sorted(folder.iterdir()):
        if entry.is_symlink():
            if links is not None:
                links.append(entry)
            continue
        if entry.is_dir():
            yield from _markdown_files(entry, (*prefix, entry.name), links)
        elif entry.is_file() and entry.name.lower().endswith(".md"):
            yield entry, prefix


@dataclass
class _Components:
    problems: list[Problem] = field(default_factory=list)
    skills: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    agents: list[str] = field(default_factory=list)
    complete: bool = True
    project: bool = False
    scanned: int = 0


def _read_component(path: Path, kind: str, found: _Components, skipped: list[str]) -> Any:
    if path.is_symlink() or not path.is_file():
        skipped.append("not a regular file")
        return False
    if path.stat().st_size > MAX_COMPONENT_BYTES:
        skipped.append("too large")
        return False
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")  # read lossily, as Claude Code
    except OSError as exc:
        found.problems.append(Problem(Severity.ERROR, f"Failed to read: {exc}", str(path), "file"))
        return False
    found.scanned += 1
    return _front_matter_problems(path, text, kind, found.problems, project=found.project)


def _skills_dir(folder: Path, found: _Components) -> None:
    skipped: list[str] = []
    for entry in sorted(folder.iterdir()):
        if entry.is_symlink():
            skipped.append("symlink")
            if (entry / "SKILL.md").is_file() and entry.resolve().is_relative_to(
                folder.parent.resolve()
            ):
                found.skills.append(entry.name)
            continue
        md = entry / "SKILL.md"
        if not entry.is_dir() or not (md.exists() or md.is_symlink()):
            continue
        read = _read_component(md, "skill", found, skipped)
        # a symlinked SKILL.md is not validated, but the plugin still provides the skill
        if read is not False or (md.is_symlink() and md.is_file()):
            found.skills.append(entry.name)
    if skipped:
        found.problems.append(
            Problem(
                Severity.WARNING, f"{len(skipped)} entries were not read", str(folder), "directory"
            )
        )


def _flat_dir(folder: Path, kind: str, found: _Components) -> None:
    skipped: list[str] = []
    links: list[Path] = []
    names = found.agents if kind == "agent" else found.commands
    for md, prefix in _markdown_files(folder, links=links):
        fields = _read_component(md, kind, found, skipped)
        if fields is False:
            continue
        own = fields.get("name") if kind == "agent" and isinstance(fields, dict) else None
        names.append(":".join((*prefix, own if isinstance(own, str) and own else _stem(md))))
    # a plugin's agents and commands skip symlinks silently; a project's are reported
    if found.project and (links or "not a regular file" in skipped):
        found.problems.append(
            Problem(Severity.WARNING, "symlinks here were not read", str(folder), "directory")
        )
    if "too large" in skipped:
        found.problems.append(
            Problem(
                Severity.WARNING,
                "files larger than 1 MiB were not validated",
                str(folder),
                "directory",
            )
        )


_KINDS = {"skills": "skill", "agents": "agent", "commands": "command"}


def _components(
    root: Path, *, project: bool = False, only: str | None = None, into: _Components | None = None
) -> _Components:
    """The skills, agents and commands folders of ``root`` (or the one folder ``root`` is, when
    ``only`` names its kind), in a plugin's or a project's (``.claude``) way."""
    found = into or _Components()
    found.project = project
    for name, kind in _KINDS.items():
        if only is not None and kind != only:
            continue
        folder = root if only is not None else root / name
        if folder.is_symlink():
            found.problems.append(
                Problem(
                    Severity.WARNING,
                    "This directory is a symlink; nothing in it was read",
                    str(folder),
                    "directory",
                )
            )
            if kind == "skill" and folder.resolve().is_relative_to(root.resolve()):
                found.skills += [d.name for d in folder.iterdir() if (d / "SKILL.md").is_file()]
        elif folder.is_dir() and kind == "skill":
            _skills_dir(folder, found)
        elif folder.is_dir():
            _flat_dir(folder, kind, found)
    return found


def _plugin_files(root: Path, manifest: dict[str, Any] | None, found: _Components) -> None:
    """CLAUDE.md, hooks files and MCP files of a plugin folder."""
    for entry in sorted(root.iterdir()):
        if entry.is_file() and entry.name.lower() in ("claude.md", "claude.local.md"):
            found.problems.append(
                Problem(
                    Severity.WARNING,
                    f"{entry.name} at the plugin root is not loaded",
                    str(entry),
                    "root",
                )
            )
    hooks = [root / "hooks" / "hooks.json"]
    mcp = [root / ".mcp.json"]
    if manifest is not None:
        for where, rel, _is_dir, is_json in _component_paths(manifest):
            if is_json and rel.startswith("./") and rel.endswith(".json") and ".." not in rel:
                (
                    hooks if where.startswith("hooks") else mcp if where.startswith("mcp") else []
                ).append(root / rel)
    for path in dict.fromkeys(hooks):
        if path.parent.is_symlink() or path.is_symlink():
            found.problems.append(
                Problem(
                    Severity.WARNING,
                    "hooks file behind a link was not read",
                    str(path),
                    "directory",
                )
            )
            found.complete = False
        elif path.is_file():
            _hooks_file(path, found.problems)
        elif path.exists():
            found.problems.append(
                Problem(Severity.WARNING, "not a regular file; not read", str(path), "directory")
            )
            found.complete = False
    for path in dict.fromkeys(mcp):
        if path.is_symlink() or path.parent.is_symlink():
            found.problems.append(
                Problem(
                    Severity.WARNING, "MCP file behind a link was not read", str(path), "directory"
                )
            )
        elif path.is_file():
            _mcp_file(path, _declared(manifest), found.problems)
        elif path.exists():
            found.problems.append(
                Problem(Severity.WARNING, "not a regular file; not read", str(path), "directory")
            )


# --- the targets ----------------------------------------------------------------------------


def _plugin(root: Path) -> Report:
    mpath = root / ".claude-plugin" / "plugin.json"
    problems: list[Problem] = []
    manifest: dict[str, Any] | None = None
    complete = True
    if mpath.parent.is_symlink() or mpath.is_symlink():
        problems.append(
            Problem(
                Severity.WARNING, "the manifest is behind a link; not read", str(mpath), "directory"
            )
        )
        complete = False
    else:
        found = _Found(problems, mpath)
        ok, data = _json_of(mpath, found, bom_ok=True)
        manifest = _manifest_checks(mpath, data, found) if ok else None
    parts = _components(root)
    _plugin_files(root, manifest, parts)
    problems += parts.problems
    provides: dict[str, tuple[str, ...]] = {}
    report = Report(Target.PLUGIN, str(mpath), tuple(problems))
    if report.success and complete and parts.complete and manifest is not None:
        name = manifest["name"]
        skills = [*parts.skills]
        if (root / "SKILL.md").is_file():
            own = read_as_validator((root / "SKILL.md").read_text(encoding="utf-8")).value
            named = own.get("name") if isinstance(own, dict) else None
            skills.append(named if isinstance(named, str) and named else name)
        _manifest_components(root, manifest, parts, skills)
        provides = {
            kind: tuple(sorted({f"{name}:{n}" for n in names}))
            for kind, names in (
                ("skills", skills),
                ("commands", parts.commands),
                ("agents", parts.agents),
            )
            if names
        }
    return Report(Target.PLUGIN, str(mpath), tuple(problems), provides)


def _manifest_components(
    root: Path, manifest: dict[str, Any], parts: _Components, skills: list[str]
) -> None:
    """What the manifest's paths provide: ``skills`` adds, ``commands`` and ``agents`` replace
    the default folders (documented and observed alike)."""
    for key, names in (("commands", parts.commands), ("agents", parts.agents)):
        if key not in manifest:
            continue
        names.clear()
        for _where, rel, _d, _j in _component_paths(manifest):
            if not _where.startswith(key):
                continue
            target = root / rel
            files = [(target, ())] if target.is_file() else list(_markdown_files(target))
            for md, prefix in files:
                front = read_as_validator(md.read_text(encoding="utf-8")).value
                own = front.get("name") if key == "agents" and isinstance(front, dict) else None
                names.append(
                    ":".join((*prefix, own if isinstance(own, str) and own else _stem(md)))
                )
    for _where, rel, _d, _j in _component_paths(manifest):
        target = root / rel
        if _where.startswith("skills") and target.is_dir() and target != root / "skills":
            if (target / "SKILL.md").is_file():
                skills.append(target.name)
            else:
                skills += [d.name for d in sorted(target.iterdir()) if (d / "SKILL.md").is_file()]


def _has_skill(root: Path) -> bool:
    skills = root / "skills"
    if skills.is_symlink():
        return True
    return skills.is_dir() and any(
        (d / "SKILL.md").exists() for d in skills.iterdir() if d.is_dir() and not d.is_symlink()
    )


def _folder(root: Path) -> Report:
    """A folder without a manifest: its components, or the ``directory`` error.

    A ``skills``, ``agents`` or ``commands`` folder and a ``.claude`` folder are read as a
    project's; any folder's ``.claude`` too, and the folder itself as a plugin's when it has
    ``.claude-plugin/`` or a skill. Nothing read at all is the error.
    """
    found = _Components()
    if root.name in _KINDS:  # a components folder is always a verdict, even an empty one
        _components(root, project=True, only=_KINDS[root.name], into=found)
        return Report(Target.COMPONENTS, str(root), tuple(found.problems))
    if root.name == ".claude":
        _components(root, project=True, into=found)
    else:
        claude = root / ".claude"
        if claude.is_dir() and not claude.is_symlink():
            _components(claude, project=True, into=found)
        if (root / ".claude-plugin").is_dir() or _has_skill(root):
            _components(root, into=found)
    if found.scanned or found.problems:
        return Report(Target.COMPONENTS, str(root), tuple(found.problems))
    return Report(
        Target.PLUGIN,
        str(root),
        (
            Problem(
                Severity.ERROR,
                "No manifest found in directory. Expected .claude-plugin/marketplace.json or "
                ".claude-plugin/plugin.json",
                str(root),
                "directory",
            ),
        ),
    )


def validate(path: str | Path) -> Report:
    """Validate a plugin folder, a marketplace folder, or one ``plugin.json`` /
    ``marketplace.json``, as ``claude plugin validate`` does. Never raises for a bad file.
    """
    target = Path(path)
    if target.is_dir():
        market = target / ".claude-plugin" / "marketplace.json"
        if market.is_file():
            return Report(Target.MARKETPLACE, str(market), tuple(validate_marketplace(market)))
        if (target / ".claude-plugin" / "plugin.json").exists() or (
            target / ".claude-plugin"
        ).is_symlink():
            return _plugin(target)
        return _folder(target)
    if target.name == "marketplace.json":
        return Report(Target.MARKETPLACE, str(target), tuple(validate_marketplace(target)))
    if target.name == "plugin.json":
        problems: list[Problem] = []
        found = _Found(problems, target)
        if not target.is_file():
            found.error("file", f"File not found: {target}")
        else:
            ok, data = _json_of(target, found, bom_ok=True)
            if ok:
                _manifest_checks(target, data, found)
        return Report(Target.PLUGIN, str(target), tuple(problems))
    return _folder(target.parent)
