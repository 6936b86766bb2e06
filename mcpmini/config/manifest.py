"""The plugin manifest as ``claude plugin validate`` (Claude Code 2.1.332) checks it.

Shared by :mod:`.validation` (a plugin's own ``plugin.json``) and :mod:`.marketplace` (the
``plugin.json`` of each local entry, and the entry fields): the typed fields
(:data:`MANIFEST_TYPES`), the reserved names (:func:`reserved_name`), component paths, and the
MCP server checks that inline ``mcpServers`` and ``.mcp.json`` files share. The rules are listed
in :mod:`.validation`'s docstring.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from .. import jsonfile
from ..errors import Problem, Severity

__all__ = [
    "MANIFEST_TYPES",
    "check_entry_manifest",
    "reserved_name",
]

_KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_RESERVED_PREFIXES = ("claude-", "anthropic-", "anthropics-", "cc-plugin-")
_RESERVED_EXACT = frozenset({"claude", "anthropic", "anthropics", "claude-code", "claude-mods"})


class _Found:
    """Problems of one file, collected in order."""

    def __init__(self, out: list[Problem], file: Path | str) -> None:
        self.out, self.file = out, str(file)

    def error(self, path: str, message: str) -> None:
        self.out.append(Problem(Severity.ERROR, message, self.file, path))

    def warn(self, path: str, message: str) -> None:
        self.out.append(Problem(Severity.WARNING, message, self.file, path))


def reserved_name(name: str) -> bool:
    """True for a plugin name Claude Code keeps for Anthropic's own plugins.

    Case-insensitive: a ``claude-``, ``anthropic-``, ``anthropics-`` or ``cc-plugin-`` prefix,
    one of ``claude``, ``anthropic``, ``anthropics``, ``claude-code``, ``claude-mods``, or
    ``official`` next to ``claude`` or ``anthropic`` (``my-claude-official``).
    """
    low = name.lower()
    if low in _RESERVED_EXACT or low.startswith(_RESERVED_PREFIXES):
        return True
    words = re.split(r"[^a-z0-9]+", low)
    return any(
        {a, b} in ({"official", "claude"}, {"official", "anthropic"})
        for a, b in itertools.pairwise(words)
    )


def _json_of(path: Path, found: _Found, *, bom_ok: bool) -> tuple[bool, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        found.error("file", f"cannot read: {exc}")
        return False, None
    if bom_ok:
        text = text.removeprefix("\ufeff")
    try:
        return True, jsonfile.loads(text)
    except ValueError as exc:
        found.error("json", f"Invalid JSON syntax: {exc}")
        return False, None


def _kind(value: Any) -> str:
    return {
        bool: "boolean",
        int: "number",
        float: "number",
        str: "string",
        list: "array",
        dict: "object",
    }.get(type(value), "null" if value is None else type(value).__name__)


# --- the manifest -------------------------------------------------------------------------


def _is_str(v: Any) -> bool:
    return isinstance(v, str)


def _is_path(v: Any) -> bool:
    return isinstance(v, str) and v.startswith("./")


def _paths(v: Any) -> bool:
    return _is_path(v) or (isinstance(v, list) and all(_is_path(x) for x in v))


def _paths_or_inline(v: Any) -> bool:
    return (
        _is_path(v)
        or isinstance(v, dict)
        or (isinstance(v, list) and all(_is_path(x) or isinstance(x, dict) for x in v))
    )


def _md_paths(v: Any) -> bool:
    """Agents are listed as files: each path starts with ``./`` and ends with ``.md``."""
    items = v if isinstance(v, list) else [v]
    return all(_is_path(x) and x.endswith(".md") for x in items)


def _option(v: Any) -> bool:
    """A ``userConfig`` option: an object with a string ``description``."""
    return isinstance(v, dict) and isinstance(v.get("description"), str)


def _author(v: Any) -> bool:
    return (
        isinstance(v, dict)
        and isinstance(v.get("name"), str)
        and all(isinstance(v.get(k, ""), str) for k in ("email", "url"))
    )


# The fields Claude Code type-checks (a wrong type is an error); each maps to its test.
MANIFEST_TYPES: dict[str, Callable[[Any], bool]] = {
    "$schema": _is_str,
    "displayName": _is_str,
    "version": _is_str,
    "description": _is_str,
    "author": _author,
    "homepage": _is_str,
    "repository": _is_str,
    "license": _is_str,
    "keywords": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
    "defaultEnabled": lambda v: isinstance(v, bool),
    "dependencies": lambda v: isinstance(v, list),
    "channels": lambda v: isinstance(v, list),
    "settings": lambda v: isinstance(v, dict),
    "userConfig": lambda v: isinstance(v, dict) and all(_option(o) for o in v.values()),
    "types": _is_str,
    "skills": _paths,
    "commands": lambda v: _paths(v) or isinstance(v, dict),
    "agents": lambda v: _md_paths(v),
    "outputStyles": _paths,
    "themes": _paths,
    "workflows": _paths,
    "monitors": _paths_or_inline,
    "hooks": _paths_or_inline,
    "mcpServers": _paths_or_inline,
    "lspServers": _paths_or_inline,
}
# Accepted with a warning when they are not objects; never an error.
_SOFT_OBJECTS = ("experimental", "metadata", "engines", "network", "binaries")
# Read by the plugin directory, not by Claude Code: neither known nor warned about.
_DIRECTORY_FIELDS = frozenset(
    {
        "icon",
        "screenshots",
        "classification",
        "privacyPolicyUrl",
        "privacy_policy",
        "privacyPolicy",
        "supportUrl",
        "support",
        "bugs",
        "termsOfServiceUrl",
        "terms_of_service",
        "documentationUrl",
        "docs",
    }
)
# (field, indexed when a bare string, must be a directory, must be a JSON file)
_COMPONENT_PATHS: tuple[tuple[str, bool, bool, bool], ...] = (
    ("skills", True, True, False),
    ("commands", False, False, False),
    ("agents", True, False, False),
    ("outputStyles", False, False, False),
    ("workflows", False, False, False),
    ("hooks", True, False, True),
    ("mcpServers", False, False, True),
    ("lspServers", False, False, True),
    ("themes", False, False, False),
    ("monitors", False, False, True),
)


def _name_problems(name: Any, found: _Found) -> bool:
    """Check ``name``; True when it passes the schema."""
    if not isinstance(name, str):
        found.error("name", f"Invalid input: expected string, received {_kind(name)}")
        return False
    if not name:
        found.error("name", "Plugin name cannot be empty")
        return False
    if " " in name:
        found.error("name", 'Plugin name cannot contain spaces. Use kebab-case (e.g., "my-plugin")')
        return False
    return True


def _schema(data: dict[str, Any], found: _Found) -> bool:
    ok = _name_problems(data.get("name"), found)
    for key, test in MANIFEST_TYPES.items():
        value = data.get(key)
        if key not in data or test(value):
            continue
        ok = False
        bad = [i for i, v in enumerate(value) if not test(v)] if isinstance(value, list) else []
        for where in [f"{key}[{i}]" for i in bad] or [key]:
            found.error(where, f"Invalid input: {key} has the wrong type ({_kind(value)})")
    return ok


def _field_warnings(data: dict[str, Any], found: _Found) -> None:
    entry_only = {"category", "tags", "strict", "source", "relevance", "id"}
    known = {"name", *MANIFEST_TYPES, *_SOFT_OBJECTS, *_DIRECTORY_FIELDS}
    for key in data:
        if key in entry_only:
            found.warn(key, f"Field {key!r} belongs in the marketplace entry, not plugin.json")
        elif key == "capabilities":
            found.warn(key, "'capabilities' is no longer read; delete the field")
        elif key not in known:
            found.warn(key, f"Unknown field {key!r}. Claude Code ignores it at load time.")
    for key in ("themes", "monitors"):
        if key in data:
            found.warn(key, f"{key!r} is an experimental component; declare it under experimental")
    for key in _SOFT_OBJECTS:
        if key in data and not isinstance(data[key], dict):
            found.warn(key, f"{key!r} must be an object; got {_kind(data[key])}. It is ignored")


def _component_paths(data: dict[str, Any]) -> Iterator[tuple[str, str, bool, bool]]:
    """``(field path, relative path, must be a dir, must be JSON)`` of every manifest path."""
    for key, indexed, is_dir, is_json in _COMPONENT_PATHS:
        value = data.get(key)
        if isinstance(value, list):
            pairs = [(f"{key}[{i}]", v) for i, v in enumerate(value)]
        elif isinstance(value, dict):  # ``commands`` as a record of {source: path}
            pairs = [
                (f"{key}.{k}.source", v.get("source"))
                for k, v in value.items()
                if key == "commands" and isinstance(v, dict)
            ]
        else:
            pairs = [(f"{key}[0]" if indexed else key, value)]
        for where, rel in pairs:
            if isinstance(rel, str) and not re.match(r"^[a-z][a-z0-9+.-]*://", rel, re.I):
                yield where, rel, is_dir, is_json


def _check_paths(root: Path, data: dict[str, Any], found: _Found) -> None:
    for where, rel, is_dir, is_json in _component_paths(data):
        if ".." in Path(rel).parts:
            found.error(where, f'Path contains ".." which could be a path traversal: {rel}')
            continue
        if rel.startswith("/"):
            continue
        target = root / rel
        if not target.exists():
            found.error(where, f"Path not found: {rel}")
        elif is_dir and not target.is_dir():
            found.error(where, f"Path is a file; skills entries must be directories: {rel}")
        elif is_json and rel.endswith(".json") and target.is_dir():
            found.error(where, f"Path is a directory; it must point to a JSON file: {rel}")


def _manifest_checks(
    path: Path, data: Any, found: _Found, *, entry_name: str | None = None
) -> dict[str, Any] | None:
    """Check one parsed plugin.json; returns it when it passes the schema.

    ``entry_name`` is the marketplace entry's name (the reserved-name check then applies only
    when plugin.json names the plugin otherwise).
    """
    if not isinstance(data, dict):
        found.error("root", "manifest must be an object")
        return None
    ok = _schema(data, found)
    _check_paths(path.parent.parent, data, found)
    for name, server in _inline_servers(data.get("mcpServers")):
        _server_problems(name, server, _declared(data), found)
    _field_warnings(data, found)
    if not ok:
        return None
    name = data["name"]
    if not _KEBAB.match(name):
        found.warn("name", f"Plugin name {name!r} is not kebab-case")
    if (entry_name is None or entry_name != name) and reserved_name(name):
        found.error("name", f"Plugin name {name!r} is reserved for Anthropic's own plugins")
    for key, what in (("version", "version"), ("description", "description"), ("author", "author")):
        if not data.get(key):
            found.warn(key, f"No {what} specified")
    return data


def _inline_servers(value: Any) -> Iterator[tuple[str, Any]]:
    blocks = value if isinstance(value, list) else [value]
    for i, block in enumerate(blocks):
        if isinstance(block, dict):
            prefix = f"mcpServers[{i}]" if isinstance(value, list) else "mcpServers"
            for name, server in block.items():
                yield f"{prefix}.{name}", server


def _declared(manifest: Mapping[str, Any] | None) -> set[str] | None:
    if manifest is None:
        return None
    keys = set(manifest.get("userConfig") or {}) if isinstance(manifest, dict) else set()
    for channel in manifest.get("channels") or [] if isinstance(manifest, dict) else []:
        if isinstance(channel, dict) and isinstance(channel.get("userConfig"), dict):
            keys |= set(channel["userConfig"])
    return keys


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)


def _server_problems(where: str, server: Any, declared: set[str] | None, found: _Found) -> None:
    if not isinstance(server, dict):
        return
    kind = server.get("type", "stdio")
    if kind == "stdio":
        if not isinstance(server.get("command"), str):
            found.error(f"{where}.command", "a stdio server needs a string 'command'")
    elif kind in ("http", "sse", "ws"):
        if not isinstance(server.get("url"), str):
            found.error(f"{where}.url", f"a {kind} server needs a string 'url'")
    else:
        found.error(f"{where}.type", f"unknown server type {kind!r}")
    for text in _strings({k: v for k, v in server.items() if k != "type"}):
        for key in re.findall(r"\$\{user_config\.([^}]*)\}", text):
            if declared is not None and key not in declared:
                found.error(where, f"references ${{user_config.{key}}}, which is not declared")


def check_entry_manifest(
    path: Path, entry_name: str, out: list[Problem], prefix: str, market: str
) -> None:
    """The plugin.json of a marketplace's local entry: its problems go to ``out`` on the
    marketplace file ``market``, their paths prefixed ``<prefix> plugin.json → ``."""
    own: list[Problem] = []
    found = _Found(own, path)
    ok, data = _json_of(path, found, bom_ok=True)
    if ok:
        _manifest_checks(path, data, found, entry_name=entry_name)
    for p in own:
        out.append(Problem(p.severity, p.message, market, f"{prefix} plugin.json → {p.path}"))
