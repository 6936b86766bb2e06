"""A case for the oracle: one Claude Code session (its configuration) and the tool calls in it.

Rules of this module:

- A :class:`Case` is data only: settings per :class:`Scope`, a permission mode, trust, files,
  MCP servers, plugin folders and the scripted :class:`Call` list. :meth:`Case.from_dict` reads
  the JSON / YAML shape used by case files and by ``mcpmini claude-code``; every bad field is a
  ``ConfigError`` naming its path.
- Strings in a case may hold the placeholders ``{ws}`` (the absolute workspace), ``{home}``
  (the temporary home) and ``{root}`` (the case folder); :meth:`Case.bind` replaces them
  everywhere once the temporary tree exists, so mcpmini and Claude Code see the same paths.
- ``SCOPE_FILES`` is the one table of where each scope's settings file lives.
- Every path a case writes stays inside the case's temporary tree: a ``files`` key is a
  relative path under the workspace or ``~/`` and the home, never absolute, never climbing
  out of the case folder with ``..``, never holding a placeholder; a ``copies`` destination
  starts with a placeholder and never climbs out. Anything else is refused with one
  ``ConfigError`` when the case is read (:meth:`Case.from_dict`) and again when it is bound
  (:meth:`Case.bind`, before :func:`~.run.lay_out` writes anything): :func:`confined_key`,
  :func:`confined_copy`.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from ..errors import ConfigError
from ..permissions import MODES

__all__ = [
    "SCOPE_FILES",
    "SHORTHAND",
    "Call",
    "Case",
    "Scope",
    "bind_text",
    "confined_copy",
    "confined_key",
]


class Scope(StrEnum):
    """Where a settings file lives (its precedence is Claude Code's, not this order)."""

    USER = "user"
    PROJECT = "project"
    LOCAL = "local"
    FLAG = "flag"
    MANAGED = "managed"


#: Each scope's settings file, relative to its anchor: ``home``, ``ws`` or ``root``.
#: Managed settings are bound at ``/etc/claude-code`` inside the sandbox; ``FLAG`` is passed
#: with ``--settings``.
SCOPE_FILES: dict[Scope, tuple[str, str]] = {
    Scope.USER: ("home", ".claude/settings.json"),
    Scope.PROJECT: ("ws", ".claude/settings.json"),
    Scope.LOCAL: ("ws", ".claude/settings.local.json"),
    Scope.FLAG: ("root", "flag-settings.json"),
    Scope.MANAGED: ("root", "managed/managed-settings.json"),
}


def bind_text(value: Any, places: Mapping[str, str]) -> Any:
    """``value`` with ``{ws}`` / ``{home}`` / ``{root}`` replaced in every string, recursively."""
    if isinstance(value, str):
        for key, path in places.items():
            value = value.replace("{" + key + "}", path)
        return value
    if isinstance(value, Mapping):
        return {bind_text(k, places): bind_text(v, places) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(bind_text(v, places) for v in value)
    return value


_PLACEHOLDERS = ("{ws}", "{home}", "{root}")


def _outside(anchor: str, rel: str, *, folder: bool = False) -> str | None:
    """Why ``rel``, taken from the tree's folder ``anchor`` (``ws``, ``home`` or ``""`` for the
    case folder itself), leaves the case folder or names no file (``None``: it stays
    inside); ``folder``: naming a folder is fine (a copy's destination)."""
    if not rel and not folder:
        return "an empty path"
    if rel.startswith("/"):
        return "an absolute path"
    if "\0" in rel:
        return "a path holding a NUL byte"
    joined = posixpath.normpath(posixpath.join(anchor or ".", rel))
    if joined == ".." or joined.startswith("../"):
        return "a path climbing out with .."
    if not folder and (joined == "." or rel.endswith(("/", "/.")) or rel == "."):
        return "a folder, not a file"
    return None


def confined_key(key: str, source: str | None = None) -> str:
    """``key`` (a ``files:`` entry) when it names a file inside the case folder: relative to
    the workspace, or ``~/…`` relative to the home (``../x`` is the case folder's own ``x``;
    ``~user/x`` a workspace file of that name). Raises ``ConfigError`` naming the key for an
    absolute path (``~//etc/x`` too), one climbing out of the case folder, a placeholder, or
    a folder."""
    if any(p in key for p in _PLACEHOLDERS):
        raise ConfigError(
            "a case file holds a placeholder: name it relative to the workspace or ~/",
            source,
            f"files.{key}",
        )
    home = key.startswith("~/")
    why = _outside("home" if home else "ws", key[2:] if home else key)
    if why:
        raise ConfigError(
            f"a case file must name a file inside the case folder, not {why}: "
            "give a path relative to the workspace or ~/",
            source,
            f"files.{key}",
        )
    return key


def confined_copy(dest: str, source: str | None = None) -> str:
    """``dest`` (a ``copies:`` destination) when it starts with ``{root}``, ``{ws}`` or
    ``{home}`` and stays inside the case folder; raises ``ConfigError`` naming it otherwise."""
    head = next((p for p in _PLACEHOLDERS if dest.startswith(p)), None)
    rest = dest[len(head) :] if head else dest
    anchor = (head or "").strip("{}").replace("root", "")
    bad = rest != "" and (not rest.startswith("/") or _outside(anchor, rest[1:], folder=True))
    if head is None or bad or any(p in rest for p in _PLACEHOLDERS):
        raise ConfigError(
            "a copy would land outside the case folder: start its destination with "
            "{root}, {ws} or {home} and do not climb out of it",
            source,
            f"copies.{dest}",
        )
    return dest


@dataclass(frozen=True)
class Call:
    """One scripted tool call: ``tool`` and its ``input``; ``label`` names it in reports;
    ``known`` is the reason of a known disagreement between mcpmini and Claude Code."""

    tool: str
    input: Mapping[str, Any]
    label: str = ""
    known: str | None = None


@dataclass(frozen=True)
class Case:
    """One Claude Code session and the tool calls the scripted model makes in it.

    ``settings`` maps a :class:`Scope` to a settings object; ``mode`` is passed as
    ``--permission-mode`` (``None``: none); ``trusted`` writes the workspace's trust into
    ``~/.claude.json``; ``files`` maps a path (relative to the workspace, or ``~/…``) to its
    text; ``copies`` maps a destination (with a placeholder, e.g. ``{root}/plugins/p``) to a
    host file or folder copied there (symlinks kept as links), so the sandbox sees a learner's
    plugin or skill folder without seeing the rest of the host; ``mcp_servers`` are written
    to the ``--mcp-config`` file beside the oracle's own prompt server (``{"probe": true}``
    stands for the probe server); ``user_mcp_servers`` are user-scope servers, written to
    ``mcpServers`` of ``~/.claude.json``; ``plugin_dirs`` are passed as ``--plugin-dir``;
    ``tool_search`` (Claude Code's default) leaves MCP tools deferred behind ToolSearch, and
    ``False`` sets ``ENABLE_TOOL_SEARCH=false``, which loads them up front; ``prompt_tool``
    (the default) passes the oracle's ``--permission-prompt-tool``, and ``False`` leaves it out,
    so a call Claude Code would ask about is refused headlessly ("Claude requested
    permissions …") after its PermissionRequest hooks had their say; ``env`` adds
    environment variables; ``args`` adds command-line arguments; ``allowed_tools`` /
    ``disallowed_tools`` are rules given on the command line (``--allowedTools`` /
    ``--disallowedTools``; for mcpmini they are allow / deny rules, as ``mcpmini hooks run
    --allow / --deny``).
    """

    name: str
    calls: tuple[Call, ...] = ()
    settings: Mapping[Scope, Mapping[str, Any]] = field(default_factory=dict)
    mode: str | None = None
    trusted: bool = True
    files: Mapping[str, str] = field(default_factory=dict)
    copies: Mapping[str, str] = field(default_factory=dict)
    mcp_servers: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    user_mcp_servers: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    plugin_dirs: tuple[str, ...] = ()
    tool_search: bool = True
    prompt_tool: bool = True
    env: Mapping[str, str] = field(default_factory=dict)
    args: tuple[str, ...] = ()
    allowed_tools: tuple[str, ...] = ()
    disallowed_tools: tuple[str, ...] = ()
    prompt: str = "Run the scripted calls."

    def confine(self, source: str | None = None) -> Case:
        """This case, once every path it writes is known to stay inside its tree (module
        doc). Raises ``ConfigError`` naming the first one that does not (``source``: the
        case file, for the message)."""
        for key in self.files:
            confined_key(key, source)
        for dest in self.copies:
            confined_copy(dest, source)
        return self

    def bind(self, places: Mapping[str, str]) -> Case:
        """This case with every placeholder replaced (see the module doc), after
        :meth:`confine`: an unconfined path raises ``ConfigError`` before anything is bound
        or written."""
        self.confine()
        return replace(
            self,
            calls=tuple(
                replace(c, input=bind_text(dict(c.input), places), label=c.label)
                for c in self.calls
            ),
            settings={s: bind_text(dict(v), places) for s, v in self.settings.items()},
            files={k: bind_text(v, places) for k, v in self.files.items()},
            copies={bind_text(k, places): v for k, v in self.copies.items()},
            mcp_servers=bind_text(dict(self.mcp_servers), places),
            user_mcp_servers=bind_text(dict(self.user_mcp_servers), places),
            plugin_dirs=tuple(bind_text(p, places) for p in self.plugin_dirs),
            env=bind_text(dict(self.env), places),
            args=tuple(bind_text(a, places) for a in self.args),
            allowed_tools=tuple(bind_text(a, places) for a in self.allowed_tools),
            disallowed_tools=tuple(bind_text(a, places) for a in self.disallowed_tools),
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str | None = None) -> Case:
        """Read a case from its JSON / YAML shape. Raises ``ConfigError`` naming the field."""
        if not isinstance(data, Mapping):
            raise ConfigError("a case must be an object", source)
        known = set(cls.__dataclass_fields__) | {"category"}
        for key in data:
            if key not in known:
                raise ConfigError(f"unknown field {key!r}", source, str(key))
        name = data.get("name", "case")
        mode = data.get("mode")
        names = [m.value for m in MODES]  # the one list: mcpmini.permissions.MODES
        if mode is not None and mode not in names:
            raise ConfigError(f"unknown mode {mode!r} (one of {', '.join(names)})", source, "mode")
        return cls(
            name=str(name),
            calls=tuple(
                _call(c, source, f"calls[{i}]") for i, c in enumerate(_list(data, "calls", source))
            ),
            settings=_settings(data.get("settings", {}), source),
            mode=mode,
            trusted=_bool(data, "trusted", True, source),
            files=_strings(data, "files", source),
            copies=_strings(data, "copies", source),
            mcp_servers=_objects(data, "mcp_servers", source),
            user_mcp_servers=_objects(data, "user_mcp_servers", source),
            plugin_dirs=tuple(str(p) for p in _list(data, "plugin_dirs", source)),
            tool_search=_bool(data, "tool_search", True, source),
            prompt_tool=_bool(data, "prompt_tool", True, source),
            env=_strings(data, "env", source),
            args=tuple(str(a) for a in _list(data, "args", source)),
            allowed_tools=tuple(str(a) for a in _list(data, "allowed_tools", source)),
            disallowed_tools=tuple(str(a) for a in _list(data, "disallowed_tools", source)),
            prompt=str(data.get("prompt", cls.prompt)),
        ).confine(source)

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape :meth:`from_dict` reads."""
        return {
            "name": self.name,
            "calls": [
                {"tool": c.tool, "input": dict(c.input), "label": c.label, "known": c.known}
                for c in self.calls
            ],
            "settings": {str(s): dict(v) for s, v in self.settings.items()},
            "mode": self.mode,
            "trusted": self.trusted,
            "files": dict(self.files),
            "copies": dict(self.copies),
            "mcp_servers": {k: dict(v) for k, v in self.mcp_servers.items()},
            "user_mcp_servers": {k: dict(v) for k, v in self.user_mcp_servers.items()},
            "plugin_dirs": list(self.plugin_dirs),
            "tool_search": self.tool_search,
            "prompt_tool": self.prompt_tool,
            "env": dict(self.env),
            "args": list(self.args),
            "allowed_tools": list(self.allowed_tools),
            "disallowed_tools": list(self.disallowed_tools),
            "prompt": self.prompt,
        }


def _list(data: Mapping[str, Any], key: str, source: str | None) -> Sequence[Any]:
    value = data.get(key, [])
    if not isinstance(value, list | tuple):
        raise ConfigError("must be a list", source, key)
    return value


def _bool(data: Mapping[str, Any], key: str, default: bool, source: str | None) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise ConfigError("must be true or false", source, key)
    return value


def _strings(data: Mapping[str, Any], key: str, source: str | None) -> dict[str, str]:
    value = data.get(key, {})
    if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
        raise ConfigError("must map names to strings", source, key)
    return {str(k): v for k, v in value.items()}


def _objects(data: Mapping[str, Any], key: str, source: str | None) -> dict[str, dict[str, Any]]:
    value = data.get(key, {})
    if not isinstance(value, Mapping) or not all(isinstance(v, Mapping) for v in value.values()):
        raise ConfigError("must map names to objects", source, key)
    return {str(k): dict(v) for k, v in value.items()}


def _settings(value: Any, source: str | None) -> dict[Scope, dict[str, Any]]:
    if not isinstance(value, Mapping):
        raise ConfigError("must map scopes to settings objects", source, "settings")
    out: dict[Scope, dict[str, Any]] = {}
    for key, block in value.items():
        try:
            scope = Scope(key)
        except ValueError:
            names = ", ".join(s.value for s in Scope)
            raise ConfigError(
                f"unknown scope {key!r} (one of {names})", source, f"settings.{key}"
            ) from None
        if not isinstance(block, Mapping):
            raise ConfigError("must be a settings object", source, f"settings.{key}")
        out[scope] = json.loads(json.dumps(block))
    return out


#: The short forms of a call in case files: ``{bash: "ls"}`` is ``{tool: Bash, input:
#: {command: "ls"}}``; each names its tool, the field the value fills, and fixed fields.
SHORTHAND: dict[str, tuple[str | None, str | None, Mapping[str, str]]] = {
    "bash": ("Bash", "command", {}),
    "read": ("Read", "file_path", {}),
    "write": ("Write", "file_path", {"content": "oracle\n"}),
    "edit": ("Edit", "file_path", {"old_string": "", "new_string": "oracle\n"}),
    "fetch": ("WebFetch", "url", {"prompt": "Summarize the page."}),
    "mcp": (None, None, {}),
}


def _expand(value: Mapping[str, Any], source: str | None, where: str) -> dict[str, Any]:
    short = [k for k in SHORTHAND if k in value]
    if not short:
        return dict(value)
    if len(short) > 1 or "tool" in value:
        raise ConfigError("a call has one tool", source, where)
    tool, key, fixed = SHORTHAND[short[0]]
    text = value[short[0]]
    if not isinstance(text, str):
        raise ConfigError("must be a string", source, f"{where}.{short[0]}")
    rest = {k: v for k, v in value.items() if k != short[0]}
    if tool is None:
        return {"tool": text, "input": rest.pop("input", {}), **rest}
    return {"tool": tool, "input": {key: text, **fixed, **rest.pop("input", {})}, **rest}


def _label(tool: str, tool_input: Mapping[str, Any]) -> str:
    first = next(iter(tool_input.values()), "") if tool_input else ""
    return f"{tool} {first}".strip() if isinstance(first, str) else tool


def _call(value: Any, source: str | None, where: str) -> Call:
    if isinstance(value, Mapping):
        value = _expand(value, source, where)
    if not isinstance(value, Mapping) or not isinstance(value.get("tool"), str):
        raise ConfigError("a call needs a tool name", source, f"{where}.tool")
    tool_input = value.get("input", {})
    if not isinstance(tool_input, Mapping):
        raise ConfigError("must be an object", source, f"{where}.input")
    known = value.get("known")
    return Call(
        tool=value["tool"],
        input=dict(tool_input),
        label=str(value.get("label") or _label(value["tool"], tool_input)),
        known=str(known) if known else None,
    )
