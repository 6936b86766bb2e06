"""Hook sources: one settings file, plugin hooks file or skill front matter, read and checked.

:func:`read_source` turns a path or a ``(label, dict | path)`` pair into a
:class:`RawSource`: its display name, its kind (``user``, ``project``, ``local``,
``managed``, ``plugin``, ``skill``, ``subagent``), the settings dict and, for plugins, the
plugin root. Validation uses ``jsonschema`` against :data:`SETTINGS_SCHEMA`; the first error
becomes a ``ConfigError`` naming the file, the JSON path (``hooks.Stop[0].hooks[0].timeout``)
and, for JSON syntax errors, the line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema

from .. import jsonfile
from ..errors import ConfigError, json_path
from ..frontmatter import parse_front_matter, read_markdown
from ..permissions import DEFAULT_MODE_VALUES
from .handlers import CommandHandler, Handler, HttpHandler, McpToolHandler, ModelHandler
from .options import SETTINGS_TYPES, HandlerOptions, HandlerType

__all__ = [
    "KEY_BY_KEY_KINDS",
    "SETTINGS_KINDS",
    "SETTINGS_SCHEMA",
    "SOURCE_KINDS",
    "InvalidSettings",
    "RawSource",
    "json_path",
    "read_source",
]

#: The settings files proper (``flag``: the file given with ``--settings``).
SETTINGS_KINDS = frozenset({"user", "project", "local", "flag", "managed"})
#: Observed in 2.1.332: managed settings are read key by key. A ``permissions`` value of the
#: wrong type or an unknown ``defaultMode`` there is ignored alone and the rest of the file
#: applies, and ``disableBypassPermissionsMode`` refuses bypass for any truthy value
#: (``"yes"``, even ``"enable"``; ``false`` does not), where a user, project, local or
#: ``--settings`` file holding such a value is ignored whole.
KEY_BY_KEY_KINDS = frozenset({"managed"})
SOURCE_KINDS = SETTINGS_KINDS | {"plugin", "skill", "subagent"}

# The keys a settings entry of each handler type must have.
_REQUIRED = {
    HandlerType.COMMAND: ["command"],
    HandlerType.HTTP: ["url"],
    HandlerType.MCP_TOOL: ["server", "tool"],
    HandlerType.PROMPT: ["prompt"],
    HandlerType.AGENT: ["prompt"],
}
assert set(_REQUIRED) == SETTINGS_TYPES
# onFailure is read on these types only (reference §1.8: command and HTTP handlers)
_ON_FAILURE_TYPES = frozenset({HandlerType.COMMAND, HandlerType.HTTP})

_STR = {"type": "string"}
_STRS = {"type": "array", "items": _STR}
_HANDLER = {
    "type": "object",
    "required": ["type"],
    "properties": {
        "type": {"enum": [t.value for t in HandlerType if t in SETTINGS_TYPES]},
        "command": _STR,
        "args": _STRS,
        "shell": {"enum": ["bash", "powershell"]},
        "async": {"type": "boolean"},
        "asyncRewake": {"type": "boolean"},
        "timeout": {"type": "number", "exclusiveMinimum": 0},
        "onFailure": {"enum": ["continue", "block"]},
        "if": _STR,
        "statusMessage": _STR,
        "once": {"type": "boolean"},
        "url": _STR,
        "headers": {"type": "object", "additionalProperties": _STR},
        "allowedEnvVars": _STRS,
        "server": _STR,
        "tool": _STR,
        "input": {"type": "object"},
        "prompt": _STR,
        "model": _STR,
        "continueOnBlock": {"type": "boolean"},
    },
    "allOf": [
        {"if": {"properties": {"type": {"const": t.value}}}, "then": {"required": req}}
        for t, req in _REQUIRED.items()
    ],
}
_GROUP = {
    "type": "object",
    "required": ["hooks"],
    "properties": {
        "matcher": {"type": ["string", "null"]},
        "hooks": {"type": "array", "items": _HANDLER},
    },
}
SETTINGS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "hooks": {"type": "object", "additionalProperties": {"type": "array", "items": _GROUP}},
        "disableAllHooks": {"type": "boolean"},
        "allowManagedHooksOnly": {"type": "boolean"},
        # observed in 2.1.332: a wrong type here makes Claude Code ignore the whole file
        # (its rules and hooks); a rule list may hold anything (a non-string is skipped)
        "permissions": {
            "type": "object",
            "properties": {
                "allow": {"type": "array"},
                "ask": {"type": "array"},
                "deny": {"type": "array"},
                "defaultMode": {"enum": list(DEFAULT_MODE_VALUES)},
                "disableBypassPermissionsMode": {"enum": ["disable"]},
                "additionalDirectories": _STRS,
            },
        },
        "model": _STR,
    },
}
_VALIDATOR = jsonschema.Draft202012Validator(SETTINGS_SCHEMA)


@dataclass(frozen=True)
class RawSource:
    """One validated hook source: ``name`` to show, ``kind``, the settings ``data``."""

    name: str
    kind: str
    data: Mapping[str, Any]
    plugin_root: str | None = None
    #: what was ignored alone in a settings file read key by key (:data:`KEY_BY_KEY_KINDS`)
    notes: tuple[str, ...] = ()

    def handler(self, raw: Mapping[str, Any]) -> Handler:
        """Build the handler of one validated settings entry (its options normalised here)."""
        # statusMessage is accepted (the schema checks it) but only labels Claude Code's spinner
        kind = HandlerType(raw["type"])
        options = HandlerOptions(
            timeout=raw.get("timeout"),
            on_failure=raw.get("onFailure") if kind in _ON_FAILURE_TYPES else None,
            if_=raw.get("if"),
            once=bool(raw.get("once")) and self.kind == "skill",
            async_=kind is HandlerType.COMMAND and bool(raw.get("async") or raw.get("asyncRewake")),
        )
        if kind is HandlerType.COMMAND:
            args = raw.get("args")
            return CommandHandler(
                raw["command"],
                tuple(args) if args is not None else None,
                None if args is not None else raw.get("shell"),
                options=options,
            )
        if kind is HandlerType.HTTP:
            return HttpHandler(
                raw["url"],
                tuple(sorted((raw.get("headers") or {}).items())),
                tuple(raw.get("allowedEnvVars") or ()),
                options=options,
            )
        if kind is HandlerType.MCP_TOOL:
            return McpToolHandler(
                raw["server"], raw["tool"], dict(raw.get("input") or {}), options=options
            )
        return ModelHandler(kind, raw["prompt"], raw.get("model"), options=options)


class InvalidSettings(ConfigError):
    """A source whose values do not fit :data:`SETTINGS_SCHEMA`; ``kind`` is its source kind
    (a settings file of that kind is ignored whole, as Claude Code ignores it)."""

    def __init__(self, message: str, source: str, path: str, kind: str) -> None:
        super().__init__(message, source, path)
        self.kind = kind


def _check(data: Any, name: str, kind: str) -> tuple[Mapping[str, Any], tuple[str, ...]]:
    """``data`` validated, and the notes of what was ignored alone (managed settings only)."""
    errors = list(_VALIDATOR.iter_errors(data))
    notes: list[str] = []
    if errors and kind in KEY_BY_KEY_KINDS:
        errors, data = _drop_bad_permissions(data, errors, name, notes)
    if errors:
        best = jsonschema.exceptions.best_match(errors)
        raise InvalidSettings(best.message, name, json_path(best.absolute_path), kind)
    checked: Mapping[str, Any] = data
    return checked, tuple(notes)


def _drop_bad_permissions(
    data: Mapping[str, Any], errors: list[Any], name: str, notes: list[str]
) -> tuple[list[Any], Mapping[str, Any]]:
    """Each ``permissions`` key with a bad value dropped alone (noted); the other errors.

    ``disableBypassPermissionsMode`` is kept as written: any truthy value refuses bypass."""
    bad: dict[str, str] = {}
    rest = []
    for error in errors:
        where = list(error.absolute_path)
        if len(where) >= 2 and where[0] == "permissions" and isinstance(where[1], str):
            bad.setdefault(where[1], error.message)
        else:
            rest.append(error)
    kept = {k: v for k, v in data["permissions"].items() if k not in bad}
    for key, message in bad.items():
        if key == "disableBypassPermissionsMode":
            kept[key] = data["permissions"][key]
            notes.append(
                f"{name}: permissions.{key}: {message}; read as "
                f"{'on' if data['permissions'][key] else 'off'}, as Claude Code reads managed "
                "settings"
            )
        else:
            notes.append(
                f"{name}: permissions.{key}: {message}; this key alone is ignored, as Claude "
                "Code reads managed settings key by key"
            )
    return rest, {**data, "permissions": kept}


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"not UTF-8 text ({exc.reason})", str(path)) from None
    except OSError as exc:
        raise ConfigError(exc.strerror or str(exc), str(path)) from None


def _load_json(path: Path) -> Any:
    try:
        return jsonfile.loads(_read_text(path))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"invalid JSON: {exc.msg}", str(path), line=exc.lineno) from None


def _front_matter(path: Path) -> Any:
    """The ``hooks`` of a skill or agent file, read by the one front-matter parser."""
    fields = parse_front_matter(read_markdown(path), str(path)).fields
    return {"hooks": fields["hooks"]} if "hooks" in fields else {}


def _infer_kind(path: Path, home: Path) -> str:
    name = path.name
    if name.endswith(".md"):
        return "subagent" if path.parent.name == "agents" else "skill"
    if name in ("hooks.json", "plugin.json"):
        return "plugin"
    if name == "settings.local.json":
        return "local"
    if name.startswith("managed-settings") or path.parent.name == "managed-settings.d":
        return "managed"
    try:
        if path.resolve() == (home / ".claude" / "settings.json").resolve():
            return "user"
    except OSError:
        pass
    if name == "settings.json" and path.parent.name == ".claude":
        return "project"
    # any other settings file is one given on the command line, as `claude --settings FILE`
    return "flag"


def _hook_file(root: Path, rel: Any, manifest: Path, where: str) -> Path:
    """The hooks file a manifest names, resolved; refused when it leaves the plugin root."""
    if not isinstance(rel, str):
        raise ConfigError("a hooks path must be a string", str(manifest), where)
    target = (root / rel).resolve()
    if not target.is_relative_to(root.resolve()):
        raise ConfigError(
            f"hooks path {rel!r} leaves the plugin root {root}; refused", str(manifest), where
        )
    if target == manifest.resolve() or target.name == "plugin.json":
        raise ConfigError(
            f"hooks path {rel!r} names a plugin manifest, not a hooks file", str(manifest), where
        )
    return target


def _plugin(path: Path, data: Any) -> tuple[Any, str]:
    """Plugin files: hooks.json wraps ``hooks``; plugin.json may inline them or name files.

    A named file is resolved and must stay inside the plugin root and be a hooks file (a
    manifest naming itself, or another manifest, is an error, never a recursion).
    """
    root = path.parent.parent  # <root>/hooks/hooks.json or <root>/.claude-plugin/plugin.json
    if path.name == "plugin.json" and isinstance(data, Mapping):
        hooks = data.get("hooks")
        if isinstance(hooks, (str, list)):
            merged: dict[str, list[Any]] = {}
            names = [hooks] if isinstance(hooks, str) else hooks
            for i, rel in enumerate(names):
                where = "hooks" if isinstance(hooks, str) else json_path(["hooks", i])
                loaded = _load_json(_hook_file(root, rel, path, where))
                inner = loaded.get("hooks") if isinstance(loaded, Mapping) else None
                if not isinstance(inner, Mapping):
                    raise ConfigError("expected an object with a 'hooks' object", str(rel))
                for event, groups in inner.items():
                    merged.setdefault(event, []).extend(
                        groups if isinstance(groups, list) else [groups]
                    )
            return {"hooks": merged}, str(root)
        return {"hooks": hooks} if hooks is not None else {}, str(root)
    if isinstance(data, Mapping):
        return {"hooks": data.get("hooks", {})}, str(root)
    return data, str(root)


def read_source(source: Any, *, home: str | os.PathLike[str] | None = None) -> RawSource:
    """Read one source (path, ``(label, dict)`` or ``(label, path)``); return it validated.

    Raises ``ConfigError`` naming the file and JSON path for any problem.
    """
    home_dir = Path(home) if home is not None else Path.home()
    label: str | None = None
    if isinstance(source, tuple):
        if len(source) != 2 or not isinstance(source[0], str):
            raise ConfigError(f"a source pair must be (label, dict or path), got {source!r}")
        label, source = source
    if isinstance(source, Mapping):
        kind = (label or "project").split(":", 1)[0]
        name = label or "project"
        data: Any = source
        if kind == "plugin" and "hooks" in data and set(data) <= {"hooks", "description"}:
            data = {"hooks": data["hooks"]}
        root = None
    else:
        path = Path(os.fspath(source))
        kind = (label.split(":", 1)[0] if label else None) or _infer_kind(path, home_dir)
        name = str(path)
        if path.suffix == ".md":
            data, root = _front_matter(path), None
        else:
            data, root = _load_json(path), None
            if kind == "plugin":
                data, root = _plugin(path, data)
    if kind not in SOURCE_KINDS:
        raise ConfigError(
            f"unknown source label {label!r}; expected one of {sorted(SOURCE_KINDS)}", name
        )
    checked, notes = _check(data, name, kind)
    return RawSource(name, kind, checked, root, notes)
