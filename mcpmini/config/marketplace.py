"""Marketplaces: `.claude-plugin/marketplace.json`, the catalogue of plugins and sources.

:func:`load_marketplace` checks the file with ``jsonschema`` against reference §4.3:
a kebab-case, non-reserved ``name``, an ``owner`` with a ``name``, and ``plugins`` whose
entries each have a ``name`` and a ``source`` (a ``./`` path inside the marketplace, or
an object of one of the source forms with its required fields). Duplicate plugin names
and relative sources that escape the marketplace root are errors too. Nothing raises:
every finding is a :class:`~mcpmini.config.mcp_json.Problem` naming the file and JSON path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import jsonfile
from ..errors import Problem, Severity
from .manifest import _DIRECTORY_FIELDS, MANIFEST_TYPES, check_entry_manifest, reserved_name
from .mcp_json import line_of_key, path_inside, read_json, schema_problems

__all__ = [
    "MARKETPLACE_SCHEMA",
    "RESERVED_NAMES",
    "SOURCE_FORMS",
    "Marketplace",
    "load_marketplace",
    "validate_marketplace",
]

_KEBAB = r"^[a-z0-9]+(-[a-z0-9]+)*$"
RESERVED_NAMES = frozenset({"claude-plugins-official"})
SOURCE_FORMS: dict[str, list[str]] = {
    "github": ["repo"],
    "url": ["url"],
    "git-subdir": ["url", "path"],
    "npm": ["package"],
    "archive": ["url"],
    "command": ["command"],
}
MARKETPLACE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name", "owner", "plugins"],
    "properties": {
        "name": {"type": "string", "pattern": _KEBAB},
        "owner": {
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string"},
                "email": {"type": "string"},
                "url": {"type": "string"},
            },
        },
        "description": {"type": "string"},
        "version": {"type": "string"},
        "plugins": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "source"],
                "properties": {
                    "name": {"type": "string", "pattern": _KEBAB},
                    "strict": {"type": "boolean"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "category": {"type": "string"},
                    "source": {
                        "anyOf": [
                            {"type": "string", "pattern": r"^\./"},
                            *(
                                {
                                    "type": "object",
                                    "required": ["source", *req],
                                    "properties": {"source": {"const": form}},
                                }
                                for form, req in SOURCE_FORMS.items()
                            ),
                        ]
                    },
                },
            },
        },
    },
}


def _explain(err: Any) -> str | None:
    if err.validator == "anyOf" and list(err.absolute_path)[-1:] == ["source"]:
        return (
            f"{err.instance!r} is not a source: use './path' inside the marketplace or an "
            f"object whose 'source' is one of {sorted(SOURCE_FORMS)} with its required "
            "fields"
        )
    return None


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
    data, text = read_json(path, problems)
    if not isinstance(data, dict):
        if data is not None:
            problems.append(Problem(Severity.ERROR, "expected a JSON object", str(path), line=1))
        return Marketplace(path.stem, {}, [], problems, str(root))
    problems += schema_problems(data, MARKETPLACE_SCHEMA, str(path), text, _explain)
    if data.get("name") in RESERVED_NAMES:
        problems.append(
            Problem(
                Severity.WARNING,
                f"{data['name']!r} is a name reserved for "
                "Anthropic's own marketplaces; users cannot add it under this "
                "name. Choose another",
                str(path),
                "name",
                line_of_key(text, "name"),
            )
        )
    entries = (
        [e for e in data.get("plugins", []) if isinstance(e, dict)]
        if isinstance(data.get("plugins"), list)
        else []
    )
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        name, src = entry.get("name"), entry.get("source")
        if name in seen:
            problems.append(
                Problem(
                    Severity.ERROR,
                    f"duplicate plugin name {name!r}",
                    str(path),
                    f"plugins[{i}].name",
                )
            )
        seen.add(str(name))
        if isinstance(src, str) and src.startswith("./"):
            path_inside(root, src, str(path), f"plugins[{i}].source", None, problems)
    owner: dict[str, Any] = data["owner"] if isinstance(data.get("owner"), dict) else {}
    return Marketplace(str(data.get("name", "")), owner, entries, problems, str(root))


# --- ``claude plugin validate`` on a marketplace (Claude Code 2.1.332) ----------------------

_MARKET_TYPES: dict[str, Any] = {
    "$schema": str,
    "description": str,
    "version": str,
    "metadata": dict,
    "allowCrossMarketplaceDependenciesOn": list,
    "renames": dict,
}
_ENTRY_EXTRA = {"category": str, "tags": list, "strict": bool}
_ENTRY_SOFT = ("experimental", "relevance", "metadata", "engines", "network")
_DESKTOP_RESERVED = frozenset({"org", "org-provisioned", "unknown"})
_ID_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_DESKTOP_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def _source_problem(src: Any, has_root: bool) -> str | None:
    """Why an entry's ``source`` is refused, or None."""
    if isinstance(src, str):
        if ".." in src.split("/"):
            return f'Path contains "..": {src}; sources are relative to the marketplace root'
        if not src.startswith("./") and not has_root:
            return f'Bare source name "{src}" requires metadata.pluginRoot'
        return None
    if not isinstance(src, dict) or src.get("source") not in SOURCE_FORMS:
        return f"{src!r} is not a source form ({', '.join(sorted(SOURCE_FORMS))})"
    missing = [k for k in SOURCE_FORMS[src["source"]] if not isinstance(src.get(k), str)]
    if missing:
        return f"a {src['source']} source needs {', '.join(missing)}"
    if ".." in str(src.get("path", "")).split("/"):
        return f'Path contains "..": {src["path"]}'
    return None


def _entry_name(where: str, name: Any, official: bool, warn: Any, error: Any) -> bool:
    """Check an entry's ``name``; True when it is a non-empty string."""
    if not isinstance(name, str) or not name:
        error(f"{where}.name", "a plugin entry needs a string 'name'")
        return False
    if not _ID_PART.match(name):
        error(f"{where}.name", f"Claude Code cannot install plugin {name!r}")
    if not _DESKTOP_NAME.match(name):
        warn(f"{where}.name", f"Plugin name {name!r} is not accepted by Claude Desktop")
    if not official and reserved_name(name):
        error(f"{where}.name", f"Plugin name {name!r} is reserved for Anthropic's own plugins")
    return True


def _entry_problems(
    i: int, entry: Any, official: bool, has_root: bool, warn: Any, error: Any
) -> bool:
    """Check one plugin entry; True when it passes the schema."""

    where = f"plugins[{i}]"
    if not isinstance(entry, dict):
        error(where, "a plugin entry must be an object")
        return False
    known = {"name", "source", "headers", "headersHelper", *MANIFEST_TYPES, *_ENTRY_EXTRA}
    for key in entry:
        if key not in known | set(_ENTRY_SOFT) or key in _DIRECTORY_FIELDS:
            warn(f"{where}.{key}", f"Unknown field {key!r}. Claude Code ignores it at load time.")
    for key in _ENTRY_SOFT:
        if key in entry and not isinstance(entry[key], dict):
            warn(f"{where}.{key}", f"{key!r} must be an object; it is ignored")
    ok = _entry_name(where, entry.get("name"), official, warn, error)
    if "source" not in entry:
        error(f"{where}.source", "a plugin entry needs a 'source'")
        ok = False
    elif (why := _source_problem(entry["source"], has_root)) is not None:
        error(f"{where}.source", why)
        ok = False
    for key, test in MANIFEST_TYPES.items():
        if key in entry and not test(entry[key]):
            error(f"{where}.{key}", f"{key} has the wrong type")
            ok = False
    for key, kind in _ENTRY_EXTRA.items():
        if key in entry and not isinstance(entry[key], kind):
            error(f"{where}.{key}", f"{key} has the wrong type")
            ok = False
    return ok


def _renames(data: dict[str, Any], names: set[str], error: Any) -> None:
    renames = data.get("renames")
    if not isinstance(renames, dict):
        return
    for key in renames:
        seen, at = {key}, renames[key]
        while isinstance(at, str) and at not in names and at in renames and at not in seen:
            seen.add(at)
            at = renames[at]
        if at is not None and (not isinstance(at, str) or at not in names):
            error(f"renames.{key}", "chain does not resolve to a plugin, a rename or null")


def _local_entries(
    path: Path, root: Path, entries: list[tuple[int, dict[str, Any]]], out: list[Problem]
) -> None:
    for i, entry in entries:
        src = entry["source"]
        if not isinstance(src, str) or not src.startswith("./"):
            continue
        folder = root / src
        meta = folder / ".claude-plugin"
        manifest = meta / "plugin.json"
        if meta.is_symlink():
            out.append(
                Problem(
                    Severity.WARNING,
                    "source is a symlink; not read",
                    str(path),
                    f"plugins[{i}].source",
                )
            )
            continue
        if meta.exists() and not meta.is_dir():
            out.append(
                Problem(
                    Severity.ERROR, "not a directory", str(path), f"plugins[{i}] plugin.json → file"
                )
            )
            continue
        if not manifest.is_file():
            continue
        try:
            own = jsonfile.loads(manifest.read_text(encoding="utf-8").removeprefix("\ufeff"))
        except (ValueError, OSError, UnicodeDecodeError):
            own = None
        version = own.get("version") if isinstance(own, dict) else None
        if entry.get("version") and isinstance(version, str) and version != entry["version"]:
            out.append(
                Problem(
                    Severity.WARNING,
                    f"entry version differs from plugin.json's {version!r}",
                    str(path),
                    f"plugins[{i}].version",
                )
            )
        check_entry_manifest(manifest, entry["name"], out, f"plugins[{i}]", str(path))


def _market_name(name: Any, warn: Any, error: Any) -> None:
    if not isinstance(name, str) or not name:
        error("name", "a marketplace needs a string 'name'")
        return
    if not _ID_PART.match(name):
        error("name", f"Claude Code cannot install plugins from marketplace {name!r}")
    if name.lower() in _DESKTOP_RESERVED:
        warn("name", f"Marketplace name {name!r} is reserved in Claude Desktop")
    elif not _DESKTOP_NAME.match(name):
        warn("name", f"Marketplace name {name!r} is not accepted by Claude Desktop")


def _top_level(data: dict[str, Any], warn: Any, error: Any) -> bool:
    """Check the marketplace's own fields; True when they pass the schema."""
    known = {"name", "owner", "plugins", *_MARKET_TYPES}
    for key in data:
        if key not in known:
            warn(key, f"Unknown field {key!r}. Claude Code ignores it at load time.")
    ok = isinstance(data.get("name"), str)
    _market_name(data.get("name"), warn, error)
    owner = data.get("owner")
    if not isinstance(owner, dict) or not (
        isinstance(owner.get("name"), str)
        and all(isinstance(owner.get(k, ""), str) for k in ("email", "url"))
    ):
        error("owner", "'owner' must be an object with a string 'name'")
        ok = False
    for key, kind in _MARKET_TYPES.items():
        if key in data and not isinstance(data[key], kind):
            error(key, f"{key} has the wrong type")
            ok = False
    return ok


def validate_marketplace(path: str | Path) -> list[Problem]:
    """Every problem ``claude plugin validate`` reports for one ``marketplace.json``.

    Checks the fields, each plugin entry (name, source form, types; a reserved name unless the
    marketplace is Anthropic's own), duplicate names, renames, and the plugin.json of every
    local entry (its problems prefixed ``plugins[i] plugin.json →``). A BOM is accepted.
    Documented: ``claude-plugins-official`` is reserved. Observed in Claude Code 2.1.332: the
    validator accepts a marketplace of that name without a word (the reservation applies when
    a user adds it, not here).
    """
    path = Path(path)
    out: list[Problem] = []

    def warn(where: str, msg: str) -> None:
        out.append(Problem(Severity.WARNING, msg, str(path), where))

    def error(where: str, msg: str) -> None:
        out.append(Problem(Severity.ERROR, msg, str(path), where))

    try:
        data = jsonfile.loads(path.read_text(encoding="utf-8").removeprefix("\ufeff"))
    except (OSError, UnicodeDecodeError) as exc:
        error("file", f"cannot read: {exc}")
        return out
    except ValueError as exc:
        error("json", f"Invalid JSON syntax: {exc}")
        return out
    if not isinstance(data, dict):
        error("root", "a marketplace must be an object")
        return out
    ok = _top_level(data, warn, error)
    plugins = data.get("plugins")
    if not isinstance(plugins, list):
        error("plugins", "'plugins' must be an array")
        return out
    meta: dict[str, Any] = data["metadata"] if isinstance(data.get("metadata"), dict) else {}
    official = data.get("name") in RESERVED_NAMES
    good = [
        (i, e)
        for i, e in enumerate(plugins)
        if _entry_problems(i, e, official, "pluginRoot" in meta, warn, error)
    ]
    ok = ok and len(good) == len(plugins)
    if ok:
        names = [e["name"] for e in plugins]
        if not plugins:
            warn("plugins", "Marketplace has no plugins defined")
        for i, name in enumerate(names):
            if names.count(name) > 1:
                error(f"plugins[{i}].name", f"Duplicate plugin name {name!r} found in marketplace")
        _renames(data, set(names), error)
        if not data.get("description") and not meta.get("description"):
            warn("description", "No marketplace description provided")
    root = path.parent.parent if path.parent.name == ".claude-plugin" else path.parent
    _local_entries(path, root, good, out)
    return out
