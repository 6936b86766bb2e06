"""Permission rule strings: ``Tool`` and ``Tool(specifier)``, parsed and matched.

:func:`parse_rule` turns ``"Bash(npm run test:*)"`` into a frozen :class:`Rule`;
:func:`rule_matches` decides whether it covers one call ``(tool_name, tool_input)``
(reference §2.1). What each specifier means depends on the tool:

* **Bash** - ``*`` matches anything (spaces too); a trailing `` *`` keeps a word boundary
  (``ls *`` hits ``ls -la`` and ``ls`` but not ``lsof``); a trailing ``:*`` is the same as
  `` *``. The command is read by :func:`~mcpmini.permissions.bash.analyze`: every simple
  command, nested ones included, wrappers stripped. A *deny* or *ask* rule matches when any
  of them does (assignments stripped too), or, for a command that does not parse, the whole
  text. An *allow* rule needs every one of them (assignments kept), a statically verifiable
  command and no output redirect; ``find -exec``/``-delete`` and exec wrappers (``watch``,
  ``setsid``, ``ionice``, ``flock``) only by a rule without ``*`` that names them exactly.
* **Read / Edit** - gitignore-style paths (:mod:`.paths`), matched without regard to case.
  ``Edit(path)`` covers every file-writing tool, a bare ``Edit`` (or ``Edit(*)``) only the
  Edit tool (observed in 2.1.332: it neither approves nor denies Write); a ``Read`` deny also
  covers the file-writing tools; ``Read`` covers Grep, Glob and LS,
  and a folder they search is covered by a rule for something under it.
  ``Write``/``NotebookEdit``/``Glob`` path rules are accepted but never consulted.
* **WebFetch** ``domain:host`` (``*.host`` for subdomains, not the apex); ``Tool(key:value)``
  on a top-level parameter (deny/ask only); ``Agent(type)``, ``Skill(name)``.
* **MCP** - ``mcp__server`` and ``mcp__server__*`` cover the whole server; globs in the tool
  name count for deny/ask, and for allow only after a literal ``mcp__<server>__``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError
from .bash import Subcommand, analyze, deny_forms
from .modes import ACCEPT_EDITS_COMMANDS, Behavior
from .paths import call_paths, home_dir, path_rule_matches, working_dir
from .tools import EDIT_TOOLS, NEVER_CONSULTED, PRIMARY_FIELD, READ_TOOLS

__all__ = [
    "Rule",
    "bash_pattern",
    "bash_rule_covers",
    "is_exact",
    "parse_rule",
    "rule_matches",
    "writes_after_cd",
]

_PRIMARY_FIELDS = frozenset({"command", "file_path", "notebook_path", "path", "url", "pattern"})
_RULE = re.compile(r"([^()\s]+)(?:\((.*)\))?", re.DOTALL)


@dataclass(frozen=True)
class Rule:
    """One permission rule: ``tool`` (may hold ``*`` globs) and an optional ``specifier``.

    ``root`` is the folder a ``/path`` specifier is anchored at: the root of the settings file
    the rule came from (the project folder for project settings, ``~/.claude`` for user
    settings); ``None`` means the working directory.
    """

    tool: str
    specifier: str | None
    text: str
    root: str | None = None

    def __str__(self) -> str:
        return self.text


def parse_rule(text: str, *, root: str | None = None) -> Rule:
    """Parse a rule string; ``Bash`` and ``Bash(*)`` give the same rule, and the specifier is
    trimmed (``Bash( touch * )`` is ``Bash(touch *)``, as Claude Code 2.1.332 reads it).
    ``root``: the settings file's root (:attr:`Rule.root`).

    Raises ``ConfigError`` for an empty rule, unbalanced parentheses or an empty specifier
    (``Bash()``, which Claude Code ignores: :meth:`PermissionRules.from_settings` skips each
    such rule with a warning and keeps the rest of the file).
    """
    if not isinstance(text, str):
        raise ConfigError(f"a permission rule must be a string, got {type(text).__name__}")
    m = _RULE.fullmatch(text.strip())
    if not m or (m[2] is not None and _unbalanced(m[2])):
        raise ConfigError(f"malformed permission rule {text!r}: expected Tool or Tool(specifier)")
    spec = None if m[2] is None else m[2].strip()
    if spec == "":
        raise ConfigError(f"empty specifier in permission rule {text!r}: write {m[1]} alone")
    return Rule(m[1], None if spec in (None, "*") else spec, text, root)


def _unbalanced(spec: str) -> bool:
    """Parentheses inside a specifier that do not pair up (``Read(x.txt))``)."""
    depth = 0
    for char in spec:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            return True
    return depth != 0


def _glob(pattern: str, *, dotall: bool = True) -> re.Pattern[str]:
    return re.compile(
        ".*".join(re.escape(p) for p in pattern.split("*")), re.DOTALL if dotall else 0
    )


def bash_pattern(spec: str) -> re.Pattern[str]:
    """The regex a Bash specifier compiles to (``:*`` and `` *`` keep a word boundary).

    The legacy prefix form ``prefix:*`` takes its prefix literally: observed in 2.1.332,
    ``Bash(touch *:*)`` approves no ``touch`` command (the ``*`` before ``:*`` is no wildcard).
    """
    if spec.endswith(":*"):
        head = re.escape(spec[:-2])
        return re.compile(f"{head}(?: .*)?", re.DOTALL)
    if spec.endswith(" *"):
        head = _glob(spec[:-2]).pattern
        return re.compile(f"{head}(?: .*)?", re.DOTALL)
    return _glob(spec)


def is_exact(spec: str) -> bool:
    """A Bash specifier without a wildcard: it names one command exactly."""
    return "*" not in spec


def bash_rule_covers(rule: Rule, sub: Subcommand, raw: str | None = None) -> bool:
    """Whether the Bash ``rule``, used as an allow rule, approves one simple command:
    its text matches (assignments kept unless all are safe: :attr:`Subcommand.allow_text`),
    no operand expands when it runs, and an exec wrapper or ``find -exec``/``-delete``
    only under a rule without ``*`` (an exact match). ``raw``: the whole command as typed,
    when it is this one simple command — an exact rule must then equal it (observed in
    2.1.332: ``Bash(mkdir one)`` asks for ``mkdir  one``)."""
    if rule.tool != "Bash" or sub.unverifiable or not sub.words:
        return False
    if rule.specifier is None:
        return True
    if raw is not None and is_exact(rule.specifier) and raw.split() == rule.specifier.split():
        return raw == rule.specifier
    if None in sub.plain:
        return False  # observed in 2.1.332: "touch $f", 'touch "$HOME/l"' ask
    pattern = bash_pattern(rule.specifier)
    # observed in 2.1.332: "\\touch w" is read as "touch w" by an allow rule
    unquoted = " ".join(p for p in sub.plain if p is not None)
    matched = pattern.fullmatch(sub.allow_text) is not None or (
        sub.allow_text == sub.text and pattern.fullmatch(unquoted) is not None
    )
    return matched and ("*" not in rule.specifier or not sub.exec_wrapper)


def _bash_matches(rule: Rule, spec: str, command: str, behavior: str) -> bool:
    found = analyze(command)
    if behavior != "allow":
        pattern = bash_pattern(spec)
        if not found.parsed and pattern.fullmatch(command.strip()) is not None:
            return True
        return any(
            pattern.fullmatch(text) is not None
            for s in found.subcommands
            if s.words
            for text in (s.text, *deny_forms(s))
        )
    if found.unverifiable or found.writes or not found.subcommands:
        return False
    if writes_after_cd(found.subcommands):
        return False  # observed in 2.1.332: asked even when an allow rule matches the write
    raw = command.strip() if len(found.subcommands) == 1 and not found.redirects else None
    return all(bash_rule_covers(rule, s, raw) for s in found.subcommands)


def writes_after_cd(subs: Sequence[Subcommand]) -> bool:
    """A file-changing command (:data:`ACCEPT_EDITS_COMMANDS`) after a ``cd``."""
    moved = False
    for sub in subs:
        if sub.program in ("cd", "pushd", "popd"):
            moved = True
        elif moved and sub.program in ACCEPT_EDITS_COMMANDS:
            return True
    return False


def _tool_hits(rule: Rule, tool_name: str, behavior: str) -> bool:
    tool = rule.tool
    if "*" in tool:
        if behavior == "allow" and not re.match(r"mcp__[^*]+__", tool):
            return False  # allow globs count only after a literal mcp__<server>__ prefix
        return _glob(tool).fullmatch(tool_name) is not None
    if tool.startswith("mcp__") and "__" not in tool[5:]:
        return tool_name == tool or tool_name.startswith(tool + "__")
    if tool == "Edit":
        # observed in 2.1.332: a bare Edit rule is the Edit tool only; Edit(path) covers Write
        return tool_name in EDIT_TOOLS if rule.specifier is not None else tool_name == "Edit"
    if tool == "Read":
        return tool_name in READ_TOOLS or (behavior == "deny" and tool_name in EDIT_TOOLS)
    return tool_name == tool


def rule_matches(
    rule: Rule,
    tool_name: str,
    tool_input: Mapping[str, Any],
    *,
    behavior: Behavior | str = Behavior.DENY,
    cwd: str = "",
    home: str | None = None,
    root: str | None = None,
    dirs: Sequence[str] = (),
) -> bool:
    """Whether ``rule`` (used as a ``behavior`` rule: allow/ask/deny) covers the call.

    ``cwd`` (empty: the process's working directory), ``home`` (``None``: the current
    user's home) and ``root`` (the settings file's root; default the rule's own
    :attr:`Rule.root`, then ``cwd``) anchor path specifiers; a relative deny or ask
    specifier (``Read(e.txt)``, ``Read(sub/**)``, ``Edit(**)``) also matches under each of the
    further working directories ``dirs``, a relative allow specifier does not (observed in
    2.1.332 with ``--add-dir``: allow ``Edit(**)`` asks for a write there). Never raises.
    """
    if not _tool_hits(rule, tool_name, behavior):
        return False
    spec = rule.specifier
    if spec is None:
        return True
    tool = rule.tool
    if tool in NEVER_CONSULTED:
        return False
    if tool == "Bash":
        command = tool_input.get("command")
        return isinstance(command, str) and _bash_matches(rule, spec, command, behavior)
    if tool in ("Read", "Edit"):
        where, user = working_dir(cwd), home_dir(home)
        touched = call_paths(tool_name, tool_input, where, user)
        anchored = working_dir(root or rule.root or where)
        hits = [
            any(
                path_rule_matches(
                    spec, p, behavior=behavior, cwd=base, home=user, root=anchored, directory=d
                )
                for base in (where, *(dirs if behavior != "allow" else ()))
            )
            for p, d in touched
        ]
        return bool(hits) and (all(hits) if behavior == "allow" else any(hits))
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
    field = PRIMARY_FIELD.get(tool)
    if field and isinstance(tool_input.get(field), str):
        pattern = bash_pattern(spec) if spec.endswith((" *", ":*")) else _glob(spec)
        return pattern.fullmatch(tool_input[field]) is not None
    return False
