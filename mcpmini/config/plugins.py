"""Plugins: a folder of skills, commands, agents, hooks and MCP servers loaded as one unit.

:func:`load_plugin` reads ``.claude-plugin/plugin.json`` (optional; checked with
``jsonschema`` against reference §4.1), then the default component folders and the
manifest's component paths: ``skills`` *adds* to ``skills/``, ``commands`` and
``agents`` *replace* their folders, hooks and MCP servers from the default files and the
manifest are combined. Every path must start with ``./`` and stay inside the plugin
root. ``${CLAUDE_PLUGIN_ROOT}`` and ``${CLAUDE_PLUGIN_DATA}`` are substituted in MCP
entries and hook commands, and carried by plugin skills for invocation. Skills and
agents are namespaced ``plugin:name``.

Nothing here raises for a bad file: each problem is a :class:`~mcpmini.config.mcp_json.Problem`
naming the file (and JSON path and line where there is one), and the rest still loads.
Hooks are checked by :func:`mcpmini.hooks.load_settings` (one schema, one parser) and
kept as the plain ``{"hooks": {...}}`` data of each file in :attr:`Plugin.hooks`;
:meth:`Plugin.hook_settings` hands them to the hook runner. :func:`load_marketplace` (from
:mod:`mcpmini.config.marketplace`) checks a ``marketplace.json``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import ConfigError, Problem, Severity
from ..frontmatter import FrontMatter, FrontMatterSyntaxError, parse_front_matter, read_markdown
from ..skills import (
    Level,
    Skill,
    SkillSet,
    read_skill_dir,
    read_skill_file,
    scan_dir,
)
from .mcp_json import (
    McpConfig,
    line_of_key,
    load_mcp_json,
    path_inside,
    read_json,
    schema_problems,
)

__all__ = [
    "MANIFEST_SCHEMA",
    "Plugin",
    "load_plugin",
    "validate_plugin",
]

_KEBAB = r"^[a-z0-9]+(-[a-z0-9]+)*$"
_PATHS = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}
_PATHS_OR_INLINE = {"anyOf": [*_PATHS["anyOf"], {"type": "object"}]}
MANIFEST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "$schema": {"type": "string"},
        "name": {"type": "string", "pattern": _KEBAB},
        "displayName": {"type": "string"},
        "version": {"type": "string"},
        "description": {"type": "string"},
        "author": {
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string"},
                "email": {"type": "string"},
                "url": {"type": "string"},
            },
        },
        "homepage": {"type": "string"},
        "repository": {"type": "string"},
        "license": {"type": "string"},
        "keywords": {"type": "array", "items": {"type": "string"}},
        "defaultEnabled": {"type": "boolean"},
        "skills": _PATHS,
        "commands": _PATHS,
        "agents": _PATHS,
        "workflows": _PATHS,
        "outputStyles": _PATHS,
        "hooks": _PATHS_OR_INLINE,
        "mcpServers": _PATHS_OR_INLINE,
        "lspServers": _PATHS_OR_INLINE,
        "userConfig": {"type": "object"},
        "channels": {"type": "array"},
        "dependencies": {"type": "array"},
        "experimental": {},
        "metadata": {},
    },
}
_AGENT_TEXT = ("name", "description", "model", "color")


@dataclass
class Plugin:
    """One loaded plugin: its components, and every problem found while loading it."""

    name: str
    root: str
    manifest: dict[str, Any] = field(default_factory=dict)
    skills: list[Skill] = field(default_factory=list)
    agents: dict[str, dict[str, Any]] = field(default_factory=dict)
    hooks: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    mcp: McpConfig | None = None
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no problem is an error."""
        return not any(p.severity is Severity.ERROR for p in self.problems)

    @property
    def mcp_source(self) -> McpConfig:
        """The plugin's MCP servers as a ``plugin:<name>`` source for resolution.

        Servers are keyed by their registered names, ``plugin:<plugin>:<server>``.
        """
        mcp = self.mcp or McpConfig(f"plugin:{self.name}", {})
        return McpConfig(
            mcp.source,
            {self.server_id(n): v for n, v in mcp.servers.items()},
            mcp.problems,
            mcp.origin,
            mcp.skipped,
        )

    def hook_settings(self, *settings_sources: Any) -> Any:
        """The plugin's hooks merged with ``settings_sources`` (ready to run).

        ``settings_sources`` are what :func:`mcpmini.hooks.load_settings` takes (paths or
        ``(label, dict)`` pairs for user, project, local, managed settings). Hooks merge:
        every group of every source stays. Returns :class:`mcpmini.hooks.HookSettings`;
        the plugin's groups carry its root, so hook processes see ``CLAUDE_PLUGIN_ROOT``.
        Raises :class:`ConfigError` for an invalid settings source.
        """
        from ..hooks import load_settings

        label = f"plugin:{self.name}"
        settings = load_settings(
            [*settings_sources, *((label, d) for _, d in self.hooks)], strict=False
        )
        for groups in settings.hooks.values():
            for group in groups:
                if group.source == label:
                    group.plugin_root = str(Path(self.root).resolve())
        return settings

    def server_id(self, server: str) -> str:
        """The name Claude Code registers a plugin server under: ``plugin:<p>:<s>``."""
        return f"plugin:{self.name}:{server}"


def _inside(root: Path, path: Path, problems: list[Problem]) -> bool:
    """True when ``path`` resolves inside ``root``; otherwise an error problem (a symlink out
    of the plugin root is never followed)."""
    resolved = path.resolve()
    if resolved.is_relative_to(root.resolve()):
        return True
    problems.append(
        Problem(
            Severity.ERROR,
            f"resolves to {resolved}, outside the plugin root {root}; not loaded",
            str(path),
        )
    )
    return False


def _text_of(origin: str) -> str | None:
    try:
        return Path(origin.split("#", 1)[0]).read_text(encoding="utf-8")
    except OSError:
        return None


def _paths(value: Any) -> list[str]:
    return [value] if isinstance(value, str) else list(value) if isinstance(value, list) else []


def _substitute(value: Any, variables: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        for k, v in variables.items():
            value = value.replace("${" + k + "}", v)
        return value
    if isinstance(value, list):
        return [_substitute(v, variables) for v in value]
    if isinstance(value, dict):
        return {k: _substitute(v, variables) for k, v in value.items()}
    return value


def load_plugin(
    root: str | Path,
    *,
    environ: Mapping[str, str] | None = None,
    data_dir: str | None = None,
    hold: bool = False,
) -> Plugin:
    """Load the plugin in folder ``root``; never raises for a bad file.

    ``environ`` expands ``${VAR}`` in MCP entries (``CLAUDE_PLUGIN_ROOT`` and
    ``CLAUDE_PLUGIN_DATA`` are always set, the latter to ``data_dir`` or
    ``~/.claude/plugins/data/<name>``); with ``hold`` (a plugin a project brought, not yet
    approved) only those two are substituted, every other ``${VAR}`` stays as written. Returns a
    :class:`Plugin` whose ``problems`` name each bad file, JSON path and line.
    """
    root = Path(root)
    plugin = Plugin(root.name, str(root))
    problems = plugin.problems
    if not root.is_dir():
        problems.append(Problem(Severity.ERROR, "plugin folder does not exist", str(root)))
        return plugin
    mpath = root / ".claude-plugin" / "plugin.json"
    mtext: str | None = None
    manifest: dict[str, Any] = {}
    if mpath.is_file():
        data, mtext = read_json(mpath, problems)
        if data is not None and not isinstance(data, dict):
            problems.append(
                Problem(Severity.ERROR, "manifest must be a JSON object", str(mpath), line=1)
            )
        elif isinstance(data, dict):
            errs = schema_problems(data, MANIFEST_SCHEMA, str(mpath), mtext)
            problems.extend(errs)
            bad_keys = {(p.path or "").split(".")[0] for p in errs}
            manifest = {k: v for k, v in data.items() if k not in bad_keys}
            for key in sorted(set(data) - set(MANIFEST_SCHEMA["properties"])):
                problems.append(
                    Problem(
                        Severity.WARNING,
                        f"unknown field {key!r} is ignored",
                        str(mpath),
                        key,
                        line_of_key(mtext, key),
                    )
                )
    for extra in sorted((root / ".claude-plugin").glob("*")):
        if extra.name not in ("plugin.json", "marketplace.json"):
            problems.append(
                Problem(
                    Severity.WARNING,
                    "only plugin.json belongs in .claude-plugin/; components go at the plugin root",
                    str(extra),
                )
            )
    if (root / "CLAUDE.md").is_file():
        problems.append(
            Problem(Severity.WARNING, "a plugin's CLAUDE.md is not loaded", str(root / "CLAUDE.md"))
        )
    plugin.name = manifest.get("name", root.name)
    plugin.manifest = manifest
    variables = {
        "CLAUDE_PLUGIN_ROOT": str(root.resolve()),
        "CLAUDE_PLUGIN_DATA": data_dir
        or str(Path.home() / ".claude" / "plugins" / "data" / plugin.name),
    }

    def where(key: str) -> list[Path]:
        return [
            p
            for rel in _paths(manifest.get(key))
            if (p := path_inside(root, rel, str(mpath), key, mtext, problems)) is not None
        ]

    _load_skills(plugin, root, where, variables)
    _load_agents(plugin, root, where)
    _load_hooks(plugin, root, manifest, where, variables, str(mpath))
    held = tuple(variables) if hold else None
    _load_mcp(plugin, root, manifest, where, dict(environ or {}) | variables, str(mpath), held)
    return plugin


def _load_skills(plugin: Plugin, root: Path, where: Any, variables: dict[str, str]) -> None:
    out = SkillSet(problems=plugin.problems)
    kw: dict[str, Any] = {"level": Level.PLUGIN, "plugin": plugin.name}
    found = scan_dir(root, out, commands="commands" not in plugin.manifest, confine=root, **kw)
    if (root / "SKILL.md").is_file():
        s = read_skill_file(root / "SKILL.md", out, name=None, directory=str(root.resolve()), **kw)
        found += [s] if s else []
    for d in where("skills"):
        if not d.is_dir():
            plugin.problems.append(
                Problem(
                    Severity.ERROR,
                    "a skills entry must be a folder holding SKILL.md (or skills folders)",
                    str(root / ".claude-plugin" / "plugin.json"),
                    "skills",
                )
            )
        elif (d / "SKILL.md").is_file():
            found += read_skill_dir(d, out, **kw)
        elif d != (root / "skills").resolve():
            found += [
                s
                for sub in sorted(p for p in d.iterdir() if p.is_dir())
                if _inside(root, sub, plugin.problems)
                for s in read_skill_dir(sub, out, **kw)
            ]
    for d in where("commands"):
        for f in [d] if d.is_file() else sorted(d.glob("*.md")):
            if not _inside(root, f, plugin.problems):
                continue
            s = read_skill_file(f, out, name=f.stem, directory=str(f.parent), kind="command", **kw)
            found += [s] if s else []
    seen: dict[str, Skill] = {}
    for s in found:
        if s.name in seen:
            plugin.problems.append(
                Problem(
                    Severity.ERROR,
                    f"duplicate name {s.name!r}; {seen[s.name].source} is used instead",
                    s.source,
                    "name",
                )
            )
            continue
        seen[s.name] = replace(s, variables=variables)
    plugin.skills = list(seen.values())


def _load_agents(plugin: Plugin, root: Path, where: Any) -> None:
    dirs = where("agents") if "agents" in plugin.manifest else [root / "agents"]
    files = [
        (f, () if d.is_file() else f.relative_to(d).parent.parts)
        for d in dirs
        if d.exists() and _inside(root, d, plugin.problems)
        for f in ([d] if d.is_file() else sorted(d.rglob("*.md")))
        if _inside(root, f, plugin.problems)
    ]
    for f, folders in files:
        try:
            front = parse_front_matter(read_markdown(f), str(f), text_fields=_AGENT_TEXT)
        except FrontMatterSyntaxError as exc:
            # Claude Code still registers the agent, under a placeholder description.
            plugin.problems.append(
                Problem(
                    Severity.WARNING,
                    f"{exc.message}; the agent is registered as 'Agent from "
                    f"{plugin.name} plugin'. Quote the value on that line",
                    str(f),
                    line=exc.line,
                )
            )
            front = FrontMatter({}, exc.body, present=False)
        except ConfigError as exc:
            plugin.problems.append(Problem.from_error(exc))
            continue
        fields, body, lines = dict(front.fields), front.body, front.lines
        plugin.problems.extend(front.problems)
        if not fields.get("description"):
            fields["description"] = f"Agent from {plugin.name} plugin"
        for ignored in ("hooks", "mcpServers", "permissionMode"):
            if ignored in fields:
                plugin.problems.append(
                    Problem(
                        Severity.WARNING,
                        f"{ignored!r} is ignored for plugin agents",
                        str(f),
                        ignored,
                        lines.get(ignored),
                    )
                )
        # agents in subfolders are named ``plugin:sub:name`` (observed in Claude Code 2.1.332)
        name = ":".join((plugin.name, *folders, str(fields.get("name") or f.stem)))
        if name in plugin.agents:
            plugin.problems.append(
                Problem(
                    Severity.ERROR,
                    f"duplicate agent name {name!r}",
                    str(f),
                    "name",
                    lines.get("name"),
                )
            )
            continue
        plugin.agents[name] = {
            "description": fields.get("description", ""),
            "source": str(f),
            "fields": fields,
            "prompt": body,
        }


def _load_hooks(
    plugin: Plugin,
    root: Path,
    manifest: dict[str, Any],
    where: Any,
    variables: dict[str, str],
    mpath: str,
) -> None:
    default = root / "hooks" / "hooks.json"
    files = [default] if default.is_file() and _inside(root, default, plugin.problems) else []
    inline = manifest.get("hooks") if isinstance(manifest.get("hooks"), dict) else None
    for f in [] if inline is not None else where("hooks"):
        if f == Path(mpath).resolve() or f.name == "plugin.json":
            plugin.problems.append(
                Problem(
                    Severity.ERROR,
                    "'hooks' names a plugin manifest, not a hooks file",
                    mpath,
                    "hooks",
                    line_of_key(_text_of(mpath), "hooks"),
                )
            )
        else:
            files.append(f)
    loaded: list[tuple[str, Any]] = [(str(f), read_json(f, plugin.problems)[0]) for f in files]
    if inline is not None:
        loaded.append((f"{mpath}#hooks", {"hooks": inline.get("hooks", inline)}))
    for origin, data in loaded:
        if data is None:
            continue
        if not isinstance(data, dict) or not isinstance(data.get("hooks"), dict):
            plugin.problems.append(
                Problem(Severity.ERROR, "expected an object with a 'hooks' object", origin, "hooks")
            )
            continue
        data = _substitute(data, variables)
        try:  # the hooks module owns the hook schema: check with it, never parse twice
            from ..hooks import load_settings

            load_settings([(f"plugin:{plugin.name}", data)], strict=False)
        except ConfigError as exc:
            key = (exc.path or "").rsplit(".", 1)[-1].split("[")[0] or None
            plugin.problems.append(
                Problem(
                    Severity.ERROR,
                    exc.message,
                    origin,
                    exc.path,
                    line_of_key(_text_of(origin), key) if key else None,
                )
            )
            continue
        plugin.hooks.append((origin, data))


def _load_mcp(
    plugin: Plugin,
    root: Path,
    manifest: dict[str, Any],
    where: Any,
    environ: dict[str, str],
    mpath: str,
    hold: Collection[str] | None = None,
) -> None:
    source = f"plugin:{plugin.name}"
    parts: list[McpConfig] = []
    value = manifest.get("mcpServers")
    files = [root / ".mcp.json"] if (root / ".mcp.json").is_file() else []
    files += [] if isinstance(value, dict) else where("mcpServers")
    for f in files:
        try:
            parts.append(load_mcp_json(f, environ=environ, source=source, hold=hold))
        except ConfigError as exc:
            plugin.problems.append(Problem.from_error(exc))
    if isinstance(value, dict):
        inline = value.get("mcpServers", value)
        parts.append(
            load_mcp_json(
                {"mcpServers": inline},
                environ=environ,
                source=source,
                origin=f"{mpath}#mcpServers",
                hold=hold,
            )
        )
    servers: dict[str, dict[str, Any]] = {}
    for part in parts:
        plugin.problems.extend(part.problems)
        for name, entry in part.servers.items():
            if name in servers:
                plugin.problems.append(
                    Problem(
                        Severity.ERROR,
                        f"duplicate MCP server {name!r}",
                        part.origin,
                        f"mcpServers.{name}",
                    )
                )
                continue
            servers[name] = entry
    plugin.mcp = McpConfig(source, servers, (), str(root))


def validate_plugin(root: str | Path, *, environ: Mapping[str, str] | None = None) -> list[Problem]:
    """Every problem ``claude plugin validate`` (Claude Code 2.1.332) reports for ``root``.

    ``root`` is a plugin folder, a marketplace folder, or a ``plugin.json`` /
    ``marketplace.json``; the rules are :mod:`mcpmini.config.validation`'s (the verdict with
    what the plugin provides is :func:`mcpmini.config.validation.validate`). ``environ`` is
    accepted for compatibility and not read: the validator expands nothing.
    """
    from .validation import validate

    del environ
    return list(validate(root).problems)
