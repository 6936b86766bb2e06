"""MCP server configuration: `.mcp.json` loading (``~/.claude.json`` is :mod:`.claude_json`).

:func:`load_mcp_json` reads one `.mcp.json`: it checks every entry (stdio, http, sse, ws),
expands ``${VAR}`` and ``${VAR:-default}`` in ``command``, ``args``, ``env``, ``url`` and
``headers`` from an ``environ`` mapping the caller passes in, and turns problems with one
server into :class:`Problem` values, so one bad entry never hides the others. Only a file
that cannot be read as a JSON object raises :class:`~mcpmini.errors.ConfigError`. With
``hold`` (a project's servers before they are approved, :mod:`mcpmini.config.trust`) only the
variables ``hold`` names are substituted and every other ``${VAR}`` stays as written — the
warnings (unset variables, nested defaults) are still reported against ``environ``;
:func:`expand_entry` expands a held entry once it is approved.

Problems are values (:class:`~mcpmini.errors.Problem`) shared by every loader. How several
sources combine (Proposition 6.2, Example 6.3) lives in :mod:`mcpmini.config.precedence`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import jsonfile
from ..errors import ConfigError, Problem, Severity, json_path

__all__ = [
    "McpConfig",
    "expand_entry",
    "expand_vars",
    "line_of_key",
    "load_mcp_json",
    "looks_like_secret",
    "path_inside",
    "read_json",
    "schema_problems",
]


_TRANSPORTS = {"stdio", "http", "streamable-http", "sse", "ws"}
_EXPANDED_FIELDS = ("command", "args", "env", "url", "headers")
_NESTED_DEFAULT = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*):-[^}]*\$\{")
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_SECRET_PATTERNS = (
    re.compile(r"\bsk-[A-Za-z0-9_\-]{16,}"),  # OpenAI/Anthropic-style API keys
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"),  # GitHub tokens
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"),
    re.compile(r"\bxox[abprs]-[A-Za-z0-9\-]{10,}"),  # Slack tokens
    re.compile(r"\bAKIA[0-9A-Z]{16}\b"),  # AWS access key ids
    re.compile(r"\bAIza[0-9A-Za-z_\-]{30,}"),  # Google API keys
    re.compile(r"^(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=\-]{12,}$"),
)
_SECRET_NAME = re.compile(r"(token|secret|password|passwd|api[_-]?key|auth)", re.IGNORECASE)


@dataclass(frozen=True)
class McpConfig:
    """The checked, expanded servers of one `.mcp.json` (or equivalent) source."""

    source: str
    servers: dict[str, dict[str, Any]]
    problems: tuple[Problem, ...] = ()
    origin: str | None = None
    skipped: tuple[str, ...] = field(default=())


def expand_vars(
    value: str, environ: Mapping[str, str], *, hold: Collection[str] | None = None
) -> tuple[str, list[str]]:
    """Expand ``${VAR}`` and ``${VAR:-default}`` in ``value`` from ``environ``.

    Returns the expanded text and the names of unset variables that had no default
    (those stay as the literal ``${VAR}``, as Claude Code leaves them). With ``hold`` only
    the variables it names are substituted; any other stays as written, default and all
    (still reported when unset without a default).
    """
    missing: list[str] = []

    def sub(m: re.Match[str]) -> str:
        name, default = m.group(1), m.group(2)
        if name not in environ and default is None:
            missing.append(name)
        if hold is not None and name not in hold:
            return m.group(0)
        if name in environ:
            return environ[name]
        return m.group(0) if default is None else default

    return _VAR.sub(sub, value), missing


def looks_like_secret(value: str, key: str | None = None) -> bool:
    """True when ``value`` looks like a literal credential rather than a ``${VAR}``.

    Token patterns (``sk-…``, ``ghp_…``, ``xoxb-…``, ``AKIA…``, ``Bearer <literal>``) always
    count; a long opaque string under a key named like a secret (``API_KEY``, ``token``…)
    counts too. Values containing ``${`` never count.
    """
    if "${" in value:
        return False
    if any(p.search(value) for p in _SECRET_PATTERNS):
        return True
    return bool(
        key and _SECRET_NAME.search(key) and re.fullmatch(r"[A-Za-z0-9._~+/=\-]{16,}", value)
    )


def line_of_key(text: str | None, key: str) -> int | None:
    """The 1-based line where ``"key":`` first appears in ``text`` (a JSON file), or None."""
    if not text:
        return None
    m = re.search(r'"' + re.escape(key) + r'"\s*:', text)
    return text.count("\n", 0, m.start()) + 1 if m else None


def _type_problems(name: str, entry: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(field, message)`` for every field of ``entry`` with a wrong type or value."""
    bad: list[tuple[str, str]] = []
    kind = entry.get("type", "stdio")
    if not isinstance(kind, str) or kind not in _TRANSPORTS:
        return [("type", f"unknown transport {kind!r}; expected one of {sorted(_TRANSPORTS)}")]
    if kind == "stdio":
        if "url" in entry and "command" not in entry:
            return [("url", 'an entry with no \'type\' is stdio; add "type": "http" for a url')]
        if not isinstance(entry.get("command"), str) or not entry.get("command"):
            bad.append(("command", "stdio server needs a non-empty string 'command'"))
        args = entry.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            bad.append(("args", "'args' must be a list of strings"))
        env = entry.get("env", {})
        if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
            bad.append(("env", "'env' must be an object of strings"))
    else:
        if not isinstance(entry.get("url"), str) or not entry.get("url"):
            bad.append(("url", f"{kind} server needs a string 'url'"))
        headers = entry.get("headers", {})
        if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
            bad.append(("headers", "'headers' must be an object of strings"))
    timeout = entry.get("timeout", 0)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout < 0:
        bad.append(("timeout", "'timeout' must be a non-negative number of milliseconds"))
    if not isinstance(entry.get("alwaysLoad", False), bool):
        bad.append(("alwaysLoad", "'alwaysLoad' must be true or false"))
    return bad


def _expand_entry(
    name: str,
    entry: dict[str, Any],
    environ: Mapping[str, str],
    warn: Any,
    hold: Collection[str] | None = None,
) -> dict[str, Any]:
    out = dict(entry)
    for fld in _EXPANDED_FIELDS:
        if fld not in entry:
            continue
        value = entry[fld]

        def one(text: str, where: str, key: str | None = None) -> str:
            if looks_like_secret(text, key):
                warn(
                    where,
                    "value looks like a literal secret; use ${VAR} and set it in the "
                    "environment instead",
                )
            for name in _NESTED_DEFAULT.findall(text):
                warn(
                    where,
                    f"the default of ${{{name}:-...}} holds another ${{...}}, which is "
                    "not expanded: the literal text is used. Use a literal default, or set "
                    f"{name}",
                )
            expanded, missing = expand_vars(text, environ, hold=hold)
            for var in missing:
                warn(
                    where,
                    f"environment variable {var} is not set and has no default; "
                    f"the literal ${{{var}}} is used",
                )
            return expanded

        if isinstance(value, str):
            out[fld] = one(value, fld)
        elif isinstance(value, list):
            out[fld] = [one(v, f"{fld}[{i}]") for i, v in enumerate(value)]
        elif isinstance(value, dict):
            out[fld] = {k: one(v, f"{fld}.{k}", k) for k, v in value.items()}
    return out


def expand_entry(
    entry: Mapping[str, Any],
    environ: Mapping[str, str],
    *,
    name: str = "",
    origin: str | None = None,
) -> tuple[dict[str, Any], list[Problem]]:
    """One server entry with ``${VAR}`` expanded from ``environ`` (an entry loaded with
    ``hold``, now approved). Returns the expanded entry and a warning per unset
    variable without a default and per nested default, as :func:`load_mcp_json` reports."""
    problems: list[Problem] = []

    def warn(where: str, msg: str) -> None:
        if "literal secret" not in msg:  # the lint already ran when the entry was loaded
            problems.append(Problem(Severity.WARNING, msg, origin, f"mcpServers.{name}.{where}"))

    return _expand_entry(name, dict(entry), environ, warn), problems


def load_mcp_json(
    path_or_dict: str | Path | Mapping[str, Any],
    *,
    environ: Mapping[str, str],
    source: str = "project",
    origin: str | None = None,
    hold: Collection[str] | None = None,
) -> McpConfig:
    """Read, check and expand one `.mcp.json` (a path, or its already-parsed dict).

    Returns an :class:`McpConfig` whose ``servers`` hold only the valid entries
    (expanded from ``environ``; with ``hold`` only the variables it names, the others left
    as written, see the module doc); every skipped entry, unset
    variable and literal-looking secret is a :class:`Problem` naming the file, the
    ``mcpServers.<name>.<field>`` path and, for files, the line. Raises
    :class:`ConfigError` when the file cannot be read as a JSON object, or when
    ``mcpServers`` is not an object.
    """
    text: str | None = None
    if isinstance(path_or_dict, Mapping):
        data: Any = path_or_dict
    else:
        origin = origin or str(path_or_dict)
        try:
            text = Path(path_or_dict).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read: {exc}", origin) from None
        try:
            data = jsonfile.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"invalid JSON: {exc.msg}", origin, line=exc.lineno) from None
    if not isinstance(data, Mapping):
        raise ConfigError("expected a JSON object at the top level", origin, line=1)
    servers = data.get("mcpServers", {})
    if not isinstance(servers, Mapping):
        raise ConfigError(
            "'mcpServers' must be an object", origin, "mcpServers", line_of_key(text, "mcpServers")
        )
    problems: list[Problem] = []
    kept: dict[str, dict[str, Any]] = {}
    skipped: list[str] = []
    for name, entry in servers.items():
        line = line_of_key(text, name)
        if not isinstance(entry, Mapping):
            problems.append(
                Problem(
                    Severity.ERROR,
                    "server entry must be an object",
                    origin,
                    f"mcpServers.{name}",
                    line,
                )
            )
            skipped.append(name)
            continue
        bad = _type_problems(name, entry)
        if bad:
            for fld, msg in bad:
                problems.append(
                    Problem(
                        Severity.ERROR,
                        f"server skipped: {msg}",
                        origin,
                        f"mcpServers.{name}.{fld}",
                        line,
                    )
                )
            skipped.append(name)
            continue

        def warn(where: str, msg: str, _name: str = name, _line: int | None = line) -> None:
            problems.append(
                Problem(Severity.WARNING, msg, origin, f"mcpServers.{_name}.{where}", _line)
            )

        kept[name] = _expand_entry(name, dict(entry), environ, warn, hold)
    return McpConfig(source, kept, tuple(problems), origin, tuple(skipped))


def read_json(path: Path, problems: list[Problem]) -> tuple[Any, str | None]:
    """``(data, text)`` of a JSON file, or ``(None, None)`` with a problem appended.

    Invalid JSON is an error naming the file and line; an unreadable file names the file.
    """
    try:
        text = path.read_text(encoding="utf-8")
        return jsonfile.loads(text), text
    except json.JSONDecodeError as exc:
        problems.append(
            Problem(Severity.ERROR, f"invalid JSON: {exc.msg}", str(path), line=exc.lineno)
        )
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(Problem(Severity.ERROR, f"cannot read: {exc}", str(path)))
    return None, None


def schema_problems(
    data: Any,
    schema: dict[str, Any],
    source: str,
    text: str | None,
    explain: Callable[[Any], str | None] | None = None,
) -> list[Problem]:
    """Every ``jsonschema`` violation of ``data`` as an error :class:`Problem`.

    Each names ``source``, the JSON path, and the line when the offending key occurs once
    in ``text``. ``explain(error)`` may return a clearer message for a violation.
    """
    import jsonschema  # only the plugin and marketplace checks need it

    found = []
    validator = jsonschema.Draft202012Validator(schema)
    for err in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.path))):
        path = json_path(err.absolute_path) if err.absolute_path else None
        key = next((str(p) for p in reversed(err.absolute_path) if isinstance(p, str)), None)
        unique = key is not None and text is not None and text.count(f'"{key}"') == 1
        message = (explain(err) if explain else None) or err.message
        found.append(
            Problem(
                Severity.ERROR,
                message,
                source,
                path,
                line_of_key(text, key) if unique and key else None,
            )
        )
    return found


def path_inside(
    root: Path, rel: str, source: str, key: str, text: str | None, problems: list[Problem]
) -> Path | None:
    """``root/rel`` when ``rel`` starts with ``./``, stays inside ``root`` and exists.

    Otherwise appends an error naming ``source``, ``key`` and its line, and returns None.
    """
    line = line_of_key(text, key)
    if not rel.startswith("./"):
        problems.append(
            Problem(Severity.ERROR, f"path {rel!r} must start with './'", source, key, line)
        )
        return None
    target = (root / rel).resolve()
    if not target.is_relative_to(root.resolve()):
        problems.append(
            Problem(Severity.ERROR, f"path {rel!r} escapes the root {root}", source, key, line)
        )
        return None
    if not target.exists():
        problems.append(Problem(Severity.ERROR, f"path {rel!r} does not exist", source, key, line))
        return None
    return target
