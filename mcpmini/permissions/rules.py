"""Permission rule strings: ``Tool`` and ``Tool(specifier)``, parsed and matched.

:func:`parse_rule` turns ``"Bash(npm run test:*)"`` into a frozen :class:`Rule`;
:func:`rule_matches` decides whether it covers one call ``(tool_name, tool_input)``
(reference §2.1). What each specifier means depends on the tool:

* **Bash** - ``*`` matches anything (spaces too); a trailing `` *`` keeps a word boundary
  (``ls *`` hits ``ls -la`` and ``ls`` but not ``lsof``); a trailing ``:*`` is the same as
  `` *``. A compound command is split on ``&& || ; | |& &`` and newlines outside quotes.
  For an *allow* rule every subcommand must match; a *deny* or *ask* rule matches when any
  subcommand does. Wrappers (``timeout time nice nohup stdbuf command builtin noglob``, bare
  ``xargs``) are stripped; leading ``VAR=value`` assignments are stripped for deny/ask only.
  A command that cannot be split (an open quote) is matched whole by deny/ask, never by allow.
* **Read / Edit** - gitignore-style paths: ``//abs``, ``~/home``, ``/`` relative to the
  settings root, ``./`` or a path with a slash relative to the cwd, and a bare name (no
  slash) at any depth. ``Edit`` covers every file-writing tool; a ``Read`` deny also covers
  them. ``Write``/``NotebookEdit``/``Glob`` path rules are accepted but never consulted.
* **WebFetch** ``domain:host`` (``*.host`` for subdomains, not the apex); ``Tool(key:value)``
  on a top-level parameter (deny/ask only); ``Agent(type)``, ``Skill(name)``.
* **MCP** - ``mcp__server`` and ``mcp__server__*`` cover the whole server; globs in the tool
  name count for deny/ask, and for allow only after a literal ``mcp__<server>__``.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError

__all__ = [
    "EDIT_TOOLS",
    "READ_TOOLS",
    "Rule",
    "is_read_only_command",
    "parse_rule",
    "rule_matches",
    "split_command",
    "strip_wrappers",
]

EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
READ_TOOLS = frozenset({"Read", "Grep", "Glob", "LS", "NotebookRead"})
_NEVER_CONSULTED = frozenset({"Write", "NotebookEdit", "Glob"})
_PRIMARY = {"Agent": "subagent_type", "Task": "subagent_type", "Skill": "skill",
            "WebSearch": "query"}
_PRIMARY_FIELDS = frozenset({"command", "file_path", "notebook_path", "path", "url", "pattern"})
_WRAPPERS = {"time", "nohup", "command", "builtin", "noglob"}
_READ_ONLY = {"ls", "cat", "echo", "pwd", "head", "tail", "grep", "find", "wc", "which",
              "diff", "stat", "du", "cd"}
_GIT_READ = {"status", "log", "diff", "show", "branch", "rev-parse", "ls-files", "blame"}
_RULE = re.compile(r"([^()\s]+)(?:\((.*)\))?", re.DOTALL)


@dataclass(frozen=True)
class Rule:
    """One permission rule: ``tool`` (may hold ``*`` globs) and an optional ``specifier``."""

    tool: str
    specifier: str | None
    text: str

    def __str__(self) -> str:
        return self.text


def parse_rule(text: str) -> Rule:
    """Parse a rule string; ``Bash`` and ``Bash(*)`` give the same rule.

    Raises ``ConfigError`` for an empty rule or unbalanced parentheses.
    """
    if not isinstance(text, str):
        raise ConfigError(f"a permission rule must be a string, got {type(text).__name__}")
    m = _RULE.fullmatch(text.strip())
    if not m:
        raise ConfigError(f"malformed permission rule {text!r}: expected Tool or Tool(specifier)")
    spec = m[2]
    return Rule(m[1], None if spec is None or spec.strip() in ("", "*") else spec, text)


def _glob(pattern: str, *, dotall: bool = True) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(p) for p in pattern.split("*")),
                      re.DOTALL if dotall else 0)


def split_command(command: str) -> list[str] | None:
    """Split a shell command on ``&& || ; | |& &`` and newlines outside quotes.

    Returns the stripped subcommands, or ``None`` when a quote is left open.
    """
    parts: list[str] = []
    buf: list[str] = []
    quote: str | None = None
    i = 0
    while i < len(command):
        ch = command[i]
        if quote:
            buf.append(ch)
            if ch == "\\" and quote == '"' and i + 1 < len(command):
                buf.append(command[i + 1])
                i += 1
            elif ch == quote:
                quote = None
        elif ch == "\\" and i + 1 < len(command):
            buf.append(command[i : i + 2])
            i += 1
        elif ch in "'\"":
            quote = ch
            buf.append(ch)
        elif ch in ";&|\n":
            step = 2 if command[i : i + 2] in ("&&", "||", "|&") else 1
            parts.append("".join(buf))
            buf = []
            i += step
            continue
        else:
            buf.append(ch)
        i += 1
    if quote:
        return None
    parts.append("".join(buf))
    return [p.strip() for p in parts if p.strip()]


def strip_wrappers(sub: str, *, assignments: bool) -> str:
    """Remove leading wrappers (``timeout 5``, ``nice -n 3``, ``nohup``…) and, when
    ``assignments`` is true, leading ``VAR=value`` words. Returns the remaining command."""
    words = sub.split()
    changed = True
    while words and changed:
        changed = False
        head = words[0]
        if (assignments and re.fullmatch(r"[A-Za-z_]\w*=\S*", head)) or head in _WRAPPERS or (head == "xargs" and len(words) > 1
                                   and not words[1].startswith("-")):
            words, changed = words[1:], True
        elif head in ("timeout", "nice", "stdbuf"):
            rest = words[1:]
            while rest and rest[0].startswith("-"):
                takes_value = rest[0] in ("-n", "-s", "-k", "-o", "-e", "-i") and len(rest) > 1
                rest = rest[2:] if takes_value else rest[1:]
            if head == "timeout" and rest and re.fullmatch(r"[\d.]+[smhd]?", rest[0]):
                rest = rest[1:]
            words, changed = rest, True
    return " ".join(words)


def is_read_only_command(command: str) -> bool:
    """True when every subcommand is in the built-in read-only set (no redirects)."""
    parts = split_command(command)
    if not parts or ">" in command:
        return False
    for part in parts:
        words = strip_wrappers(part, assignments=False).split()
        if not words:
            return False
        if words[0] == "git":
            if len(words) < 2 or words[1] not in _GIT_READ:
                return False
        elif words[0] not in _READ_ONLY:
            return False
    return True


def _bash_pattern(spec: str) -> re.Pattern[str]:
    if spec.endswith(":*"):
        spec = spec[:-2] + " *"
    if spec.endswith(" *"):
        head = _glob(spec[:-2]).pattern
        return re.compile(f"{head}(?: .*)?", re.DOTALL)
    return _glob(spec)


def _bash_matches(spec: str, command: str, behavior: str) -> bool:
    pattern = _bash_pattern(spec)
    parts = split_command(command)
    if parts is None:
        return behavior != "allow" and pattern.fullmatch(command.strip()) is not None
    loose = behavior != "allow"
    subs = [strip_wrappers(p, assignments=loose) for p in parts]
    hits = [pattern.fullmatch(s) is not None for s in subs]
    return any(hits) if loose else bool(hits) and all(hits)


def _path_regex(spec: str, cwd: str, home: str, root: str) -> re.Pattern[str]:
    if spec.startswith("//"):
        base, rest = "/", spec[2:]
    elif spec.startswith("~/"):
        base, rest = home, spec[2:]
    elif spec.startswith("/"):
        base, rest = root, spec[1:]
    elif spec.startswith("./"):
        base, rest = cwd, spec[2:]
    elif "/" in spec.rstrip("/"):
        base, rest = cwd, spec
    else:
        base, rest = None, spec  # a bare name matches at any depth
    rest = rest.rstrip("/")
    out = []
    i = 0
    while i < len(rest):
        if rest.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif rest.startswith("**", i):
            out.append(".*")
            i += 2
        elif rest[i] == "*":
            out.append("[^/]*")
            i += 1
        elif rest[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(rest[i]))
            i += 1
    body = "".join(out)
    prefix = "(?:.*/)?" if base is None else re.escape(posixpath.join(base, "").rstrip("/") + "/")
    if base == "/":
        prefix = "/"
    return re.compile(f"{prefix}{body}(?:/.*)?", re.DOTALL)


def _target_path(tool_input: Mapping[str, Any], cwd: str) -> str | None:
    for key in ("file_path", "notebook_path", "path"):
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            value = value.replace("\\", "/")
            joined = value if value.startswith("/") else posixpath.join(cwd, value)
            return posixpath.normpath(joined)
    return None


def _tool_hits(rule: Rule, tool_name: str, behavior: str) -> bool:
    tool = rule.tool
    if "*" in tool:
        if behavior == "allow" and not re.match(r"mcp__[^*]+__", tool):
            return False  # allow globs count only after a literal mcp__<server>__ prefix
        return _glob(tool).fullmatch(tool_name) is not None
    if tool.startswith("mcp__") and "__" not in tool[5:]:
        return tool_name == tool or tool_name.startswith(tool + "__")
    if tool == "Edit":
        return tool_name in EDIT_TOOLS
    if tool == "Read":
        return tool_name in READ_TOOLS or (behavior == "deny" and tool_name in EDIT_TOOLS)
    return tool_name == tool


def rule_matches(
    rule: Rule, tool_name: str, tool_input: Mapping[str, Any], *, behavior: str = "deny",
    cwd: str = "", home: str = "/root", root: str | None = None,
) -> bool:
    """Whether ``rule`` (used as a ``behavior`` rule: allow/ask/deny) covers the call.

    ``cwd``, ``home`` and ``root`` (the settings file's root, default ``cwd``) anchor
    path specifiers. Never raises.
    """
    if not _tool_hits(rule, tool_name, behavior):
        return False
    spec = rule.specifier
    if spec is None:
        return True
    tool = rule.tool
    if tool in _NEVER_CONSULTED:
        return False
    if tool == "Bash":
        command = tool_input.get("command")
        return isinstance(command, str) and _bash_matches(spec, command, behavior)
    if tool in ("Read", "Edit"):
        target = _target_path(tool_input, cwd or "/")
        return target is not None and _path_regex(
            spec, cwd or "/", home, root or cwd or "/").fullmatch(target) is not None
    if tool == "WebFetch" and spec.startswith("domain:"):
        host = re.sub(r"^[a-z]+://", "", str(tool_input.get("url", ""))).split("/")[0]
        host = host.split("@")[-1].split(":")[0].lower()
        want = spec[7:].lower()
        if want.startswith("*."):
            return host.endswith(want[1:]) and host != want[2:]
        return host == want
    key, sep, value = spec.partition(":")
    if sep and behavior != "allow" and key not in _PRIMARY_FIELDS and key in tool_input:
        return _glob(value).fullmatch(str(tool_input[key])) is not None
    field = _PRIMARY.get(tool)
    if field and isinstance(tool_input.get(field), str):
        pattern = _bash_pattern(spec) if spec.endswith((" *", ":*")) else _glob(spec)
        return pattern.fullmatch(tool_input[field]) is not None
    return False
