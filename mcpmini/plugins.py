"""Plugins: a folder of skills, commands, agents, hooks and MCP servers loaded as one unit.

:func:`load_plugin` reads ``.claude-plugin/plugin.json`` (optional; checked with
``jsonschema`` against reference §4.1), then the default component folders and the
manifest's component paths: ``skills`` *adds* to ``skills/``, ``commands`` and
``agents`` *replace* their folders, hooks and MCP servers from the default files and the
manifest are combined. Every path must start with ``./`` and stay inside the plugin
root. ``${CLAUDE_PLUGIN_ROOT}`` and ``${CLAUDE_PLUGIN_DATA}`` are substituted in MCP
entries and hook commands, and carried by plugin skills for invocation. Skills and
agents are namespaced ``plugin:name``.

Nothing here raises for a bad file: each problem is a :class:`~mcpmini.settings.Problem`
naming the file (and JSON path and line where there is one), and the rest still loads.
Hooks are checked by :func:`mcpmini.hooks.load_settings` (one schema, one parser) and
kept as the plain ``{"hooks": {...}}`` data of each file in :attr:`Plugin.hooks`;
:meth:`Plugin.hook_settings` hands them to the hook runner. :func:`load_marketplace` checks a
``marketplace.json``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import jsonschema

from .errors import ConfigError
from .settings import McpConfig, Problem, Severity, line_of_key, load_mcp_json
from .skills import (
    Level,
    Skill,
    SkillSet,
    read_front_matter,
    read_skill_dir,
    read_skill_file,
    scan_dir,
)

__all__ = [
    "MANIFEST_SCHEMA",
    "MARKETPLACE_SCHEMA",
    "Marketplace",
    "Plugin",
    "load_marketplace",
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
        "author": {"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string"}, "email": {"type": "string"}, "url": {"type": "string"}}},
        "homepage": {"type": "string"},
        "repository": {"type": "string"},
        "license": {"type": "string"},
        "keywords": {"type": "array", "items": {"type": "string"}},
        "defaultEnabled": {"type": "boolean"},
        "skills": _PATHS, "commands": _PATHS, "agents": _PATHS, "workflows": _PATHS,
        "outputStyles": _PATHS,
        "hooks": _PATHS_OR_INLINE, "mcpServers": _PATHS_OR_INLINE,
        "lspServers": _PATHS_OR_INLINE,
        "userConfig": {"type": "object"},
        "channels": {"type": "array"},
        "dependencies": {"type": "array"},
        "experimental": {}, "metadata": {},
    },
}
_SOURCE_FORMS: dict[str, list[str]] = {
    "github": ["repo"], "url": ["url"], "git-subdir": ["url", "path"], "npm": ["package"],
    "archive": ["url"], "command": ["command"],
}
MARKETPLACE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name", "owner", "plugins"],
    "properties": {
        "name": {"type": "string", "pattern": _KEBAB,
                 "not": {"enum": ["claude-plugins-official"]}},
        "owner": {"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string"}, "email": {"type": "string"}, "url": {"type": "string"}}},
        "description": {"type": "string"},
        "version": {"type": "string"},
        "plugins": {"type": "array", "items": {
            "type": "object", "required": ["name", "source"],
            "properties": {
                "name": {"type": "string", "pattern": _KEBAB},
                "strict": {"type": "boolean"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "category": {"type": "string"},
                "source": {"anyOf": [
                    {"type": "string", "pattern": r"^\./"},
                    *({"type": "object", "required": ["source", *req],
                       "properties": {"source": {"const": form}}}
                      for form, req in _SOURCE_FORMS.items()),
                ]},
            },
        }},
    },
}


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
        return McpConfig(mcp.source, {self.server_id(n): v for n, v in mcp.servers.items()},
                         mcp.problems, mcp.origin, mcp.skipped)

    def hook_settings(self) -> Any:
        """The plugin's hooks as :class:`mcpmini.hooks.HookSettings` (ready to run).

        Each group carries the plugin root, so hook processes see ``CLAUDE_PLUGIN_ROOT``.
        """
        from .hooks import load_settings

        settings = load_settings([(f"plugin:{self.name}", d) for _, d in self.hooks],
                                 strict=False)
        for groups in settings.hooks.values():
            for group in groups:
                group.plugin_root = str(Path(self.root).resolve())
        return settings

    def server_id(self, server: str) -> str:
        """The name Claude Code registers a plugin server under: ``plugin:<p>:<s>``."""
        return f"plugin:{self.name}:{server}"


def _schema_problems(data: Any, schema: dict[str, Any], source: str, text: str | None
                     ) -> list[Problem]:
    found = []
    validator = jsonschema.Draft202012Validator(schema)
    for err in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.path))):
        path = ".".join(str(p) for p in err.absolute_path) or None
        key = next((str(p) for p in reversed(err.absolute_path) if isinstance(p, str)), None)
        unique = key is not None and text is not None and text.count(f'"{key}"') == 1
        message = err.message
        if err.validator == "not":
            message = f"{err.instance!r} is a reserved name"
        elif err.validator == "anyOf" and key == "source":
            message = (f"{err.instance!r} is not a source: use './path' inside the marketplace "
                       f"or an object whose 'source' is one of {sorted(_SOURCE_FORMS)} with "
                       "its required fields")
        found.append(Problem(Severity.ERROR, message, source, path,
                             line_of_key(text, key) if unique else None))
    return found


def _read_json(path: Path, problems: list[Problem]) -> tuple[Any, str | None]:
    try:
        text = path.read_text(encoding="utf-8")
        return json.loads(text), text
    except json.JSONDecodeError as exc:
        problems.append(Problem(Severity.ERROR, f"invalid JSON: {exc.msg}", str(path),
                                line=exc.lineno))
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(Problem(Severity.ERROR, f"cannot read: {exc}", str(path)))
    return None, None


def _inside(root: Path, rel: str, manifest: str, key: str, text: str | None,
            problems: list[Problem]) -> Path | None:
    """``root/rel`` if ``rel`` starts with ./ and stays inside ``root``, else a problem."""
    line = line_of_key(text, key)
    if not rel.startswith("./"):
        problems.append(Problem(Severity.ERROR, f"path {rel!r} must start with './'",
                                manifest, key, line))
        return None
    target = (root / rel).resolve()
    if not target.is_relative_to(root.resolve()):
        problems.append(Problem(Severity.ERROR, f"path {rel!r} escapes the plugin root",
                                manifest, key, line))
        return None
    if not target.exists():
        problems.append(Problem(Severity.ERROR, f"path {rel!r} does not exist", manifest,
                                key, line))
        return None
    return target


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
) -> Plugin:
    """Load the plugin in folder ``root``; never raises for a bad file.

    ``environ`` expands ``${VAR}`` in MCP entries (``CLAUDE_PLUGIN_ROOT`` and
    ``CLAUDE_PLUGIN_DATA`` are always set, the latter to ``data_dir`` or
    ``~/.claude/plugins/data/<name>``). Returns a :class:`Plugin` whose ``problems``
    name each bad file, JSON path and line.
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
        data, mtext = _read_json(mpath, problems)
        if data is not None and not isinstance(data, dict):
            problems.append(Problem(Severity.ERROR, "manifest must be a JSON object", str(mpath),
                                    line=1))
        elif isinstance(data, dict):
            errs = _schema_problems(data, MANIFEST_SCHEMA, str(mpath), mtext)
            problems.extend(errs)
            bad_keys = {(p.path or "").split(".")[0] for p in errs}
            manifest = {k: v for k, v in data.items() if k not in bad_keys}
            for key in sorted(set(data) - set(MANIFEST_SCHEMA["properties"])):
                problems.append(Problem(Severity.WARNING, f"unknown field {key!r} is ignored",
                                        str(mpath), key, line_of_key(mtext, key)))
    for extra in sorted((root / ".claude-plugin").glob("*")):
        if extra.name not in ("plugin.json", "marketplace.json"):
            problems.append(Problem(Severity.WARNING, "only plugin.json belongs in "
                                    ".claude-plugin/; components go at the plugin root",
                                    str(extra)))
    if (root / "CLAUDE.md").is_file():
        problems.append(Problem(Severity.WARNING, "a plugin's CLAUDE.md is not loaded",
                                str(root / "CLAUDE.md")))
    plugin.name = manifest.get("name", root.name)
    plugin.manifest = manifest
    variables = {"CLAUDE_PLUGIN_ROOT": str(root.resolve()),
                 "CLAUDE_PLUGIN_DATA": data_dir or str(
                     Path.home() / ".claude" / "plugins" / "data" / plugin.name)}

    def where(key: str) -> list[Path]:
        return [p for rel in _paths(manifest.get(key)) if
                (p := _inside(root, rel, str(mpath), key, mtext, problems)) is not None]

    _load_skills(plugin, root, where, variables)
    _load_agents(plugin, root, where)
    _load_hooks(plugin, root, manifest, where, variables, str(mpath))
    _load_mcp(plugin, root, manifest, where, dict(environ or {}) | variables, str(mpath))
    return plugin


def _load_skills(plugin: Plugin, root: Path, where: Any, variables: dict[str, str]) -> None:
    out = SkillSet(problems=plugin.problems)
    kw = {"level": Level.PLUGIN, "plugin": plugin.name}
    found = scan_dir(root, out, commands="commands" not in plugin.manifest, **kw)
    if (root / "SKILL.md").is_file():
        found += read_skill_dir(root, out, **kw)
    for d in where("skills"):
        if (d / "SKILL.md").is_file():
            found += read_skill_dir(d, out, **kw)
        elif d != (root / "skills").resolve():
            found += [s for sub in sorted(p for p in d.iterdir() if p.is_dir())
                      for s in read_skill_dir(sub, out, **kw)]
    for d in where("commands"):
        for f in [d] if d.is_file() else sorted(d.glob("*.md")):
            s = read_skill_file(f, out, name=f.stem, directory=str(f.parent), kind="command",
                                **kw)
            found += [s] if s else []
    seen: dict[str, Skill] = {}
    for s in found:
        if s.name in seen:
            plugin.problems.append(Problem(Severity.ERROR, f"duplicate name {s.name!r}; "
                                           f"{seen[s.name].source} is used instead", s.source,
                                           "name"))
            continue
        seen[s.name] = replace(s, variables=variables)
    plugin.skills = list(seen.values())


def _load_agents(plugin: Plugin, root: Path, where: Any) -> None:
    dirs = where("agents") if "agents" in plugin.manifest else [root / "agents"]
    files = [f for d in dirs for f in ([d] if d.is_file() else sorted(d.glob("*.md")))
             if d.exists()]
    for f in files:
        try:
            fields, body, lines = read_front_matter(f.read_text(encoding="utf-8"), str(f))
        except (ConfigError, OSError, UnicodeDecodeError) as exc:
            plugin.problems.append(Problem.from_error(exc) if isinstance(exc, ConfigError)
                                   else Problem(Severity.ERROR, f"cannot read: {exc}", str(f)))
            continue
        for ignored in ("hooks", "mcpServers", "permissionMode"):
            if ignored in fields:
                plugin.problems.append(Problem(Severity.WARNING, f"{ignored!r} is ignored for "
                                               "plugin agents", str(f), ignored,
                                               lines.get(ignored)))
        name = f"{plugin.name}:{fields.get('name') or f.stem}"
        if name in plugin.agents:
            plugin.problems.append(Problem(Severity.ERROR, f"duplicate agent name {name!r}",
                                           str(f), "name", lines.get("name")))
            continue
        plugin.agents[name] = {"description": fields.get("description", ""), "source": str(f),
                               "fields": fields, "prompt": body}


def _load_hooks(plugin: Plugin, root: Path, manifest: dict[str, Any], where: Any,
                variables: dict[str, str], mpath: str) -> None:
    files = [root / "hooks" / "hooks.json"] if (root / "hooks" / "hooks.json").is_file() else []
    inline = manifest.get("hooks") if isinstance(manifest.get("hooks"), dict) else None
    files += [] if inline is not None else where("hooks")
    loaded: list[tuple[str, Any]] = [(str(f), _read_json(f, plugin.problems)[0]) for f in files]
    if inline is not None:
        loaded.append((f"{mpath}#hooks", {"hooks": inline.get("hooks", inline)}))
    for origin, data in loaded:
        if data is None:
            continue
        if not isinstance(data, dict) or not isinstance(data.get("hooks"), dict):
            plugin.problems.append(Problem(Severity.ERROR, "expected an object with a 'hooks' "
                                           "object", origin, "hooks"))
            continue
        data = _substitute(data, variables)
        try:  # the hooks module owns the hook schema: check with it, never parse twice
            from .hooks import load_settings

            load_settings([(f"plugin:{plugin.name}", data)], strict=False)
        except ConfigError as exc:
            key = (exc.path or "").rsplit(".", 1)[-1].split("[")[0] or None
            plugin.problems.append(Problem(Severity.ERROR, exc.message, origin, exc.path,
                                           line_of_key(_text_of(origin), key) if key else None))
            continue
        plugin.hooks.append((origin, data))


def _load_mcp(plugin: Plugin, root: Path, manifest: dict[str, Any], where: Any,
              environ: dict[str, str], mpath: str) -> None:
    source = f"plugin:{plugin.name}"
    parts: list[McpConfig] = []
    value = manifest.get("mcpServers")
    files = [root / ".mcp.json"] if (root / ".mcp.json").is_file() else []
    files += [] if isinstance(value, dict) else where("mcpServers")
    for f in files:
        try:
            parts.append(load_mcp_json(f, environ=environ, source=source))
        except ConfigError as exc:
            plugin.problems.append(Problem.from_error(exc))
    if isinstance(value, dict):
        inline = value.get("mcpServers", value)
        parts.append(load_mcp_json({"mcpServers": inline}, environ=environ, source=source,
                                   origin=f"{mpath}#mcpServers"))
    servers: dict[str, dict[str, Any]] = {}
    for part in parts:
        plugin.problems.extend(part.problems)
        for name, entry in part.servers.items():
            if name in servers:
                plugin.problems.append(Problem(Severity.ERROR, f"duplicate MCP server {name!r}",
                                               part.origin, f"mcpServers.{name}"))
                continue
            servers[name] = entry
    plugin.mcp = McpConfig(source, servers, (), str(root))


@dataclass
class Marketplace:
    """A checked ``marketplace.json``: its name, owner, plugin entries and problems."""

    name: str
    owner: dict[str, Any]
    plugins: list[dict[str, Any]]
    problems: list[Problem]
    root: str

    @property
    def ok(self) -> bool:
        return not any(p.severity is Severity.ERROR for p in self.problems)


def load_marketplace(path: str | Path) -> Marketplace:
    """Read and check ``.claude-plugin/marketplace.json`` (or the folder holding it).

    Returns a :class:`Marketplace`; schema violations, duplicate plugin names and
    relative sources that escape the marketplace root are error problems.
    """
    path = Path(path)
    if path.is_dir():
        path = path / ".claude-plugin" / "marketplace.json"
    root = path.parent.parent if path.parent.name == ".claude-plugin" else path.parent
    problems: list[Problem] = []
    data, text = _read_json(path, problems)
    if not isinstance(data, dict):
        if data is not None:
            problems.append(Problem(Severity.ERROR, "expected a JSON object", str(path), line=1))
        return Marketplace(path.stem, {}, [], problems, str(root))
    problems += _schema_problems(data, MARKETPLACE_SCHEMA, str(path), text)
    entries = [e for e in data.get("plugins", []) if isinstance(e, dict)] if isinstance(
        data.get("plugins"), list) else []
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        name, src = entry.get("name"), entry.get("source")
        if name in seen:
            problems.append(Problem(Severity.ERROR, f"duplicate plugin name {name!r}", str(path),
                                    f"plugins.{i}.name"))
        seen.add(str(name))
        if isinstance(src, str) and src.startswith("./"):
            _inside(root, src, str(path), f"plugins.{i}.source", None, problems)
    owner = data.get("owner") if isinstance(data.get("owner"), dict) else {}
    return Marketplace(str(data.get("name", "")), owner, entries, problems, str(root))


def validate_plugin(root: str | Path, *, environ: Mapping[str, str] | None = None
                    ) -> list[Problem]:
    """Every problem in the plugin at ``root`` (and its marketplace.json, if any)."""
    found = list(load_plugin(root, environ=environ or {}).problems)
    market = Path(root) / ".claude-plugin" / "marketplace.json"
    if market.is_file():
        found += load_marketplace(market).problems
    return found
