"""Permission rules, modes, and the gate every tool call passes (reference §2).

:class:`PermissionRules` holds parsed ``allow`` / ``ask`` / ``deny`` rules (from code or
from the ``permissions`` blocks of real settings files, pooled across scopes) and answers
deny -> ask -> allow, first match wins. :func:`gate` walks one call through the documented
order and records each step in :attr:`GateResult.path`:

1. PreToolUse hooks (an :class:`~mcpmini.hooks.EventResult`): a blocking error or ``deny``
   stops the call here, before any rule is read (Proposition 4.3.1);
2. deny rules (even in ``bypassPermissions``, even after a hook ``allow``);
3. ask rules (even in bypass; ``dontAsk`` turns the prompt into a denial);
4. the hook's own ``ask`` / ``defer`` / ``allow`` (an allow never beats steps 2-3);
5. the permission mode; 6. allow rules; 7. otherwise prompt (``ask``), or deny in dontAsk.

Writes to protected paths (``.git``, ``.claude``, ``.vscode``, ``.idea``, ``.husky``, shell
rc files, ``.mcp.json``, ``.claude.json``) are never approved by a mode or an allow rule,
except in ``bypassPermissions``. ``defer`` is reported as ``final="ask"`` with
``deferred=True``: the call waits for a decision from outside the loop.
"""

from __future__ import annotations

import enum
import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError
from .rules import (
    EDIT_TOOLS,
    READ_TOOLS,
    Rule,
    is_read_only_command,
    parse_rule,
    rule_matches,
    split_command,
    strip_wrappers,
)

__all__ = [
    "GateResult",
    "GateStep",
    "PermissionMode",
    "PermissionRules",
    "RuleVerdict",
    "gate",
    "is_protected_path",
]

_ACCEPT_EDITS_BASH = {"mkdir", "touch", "rm", "rmdir", "mv", "cp", "sed"}
_PROTECTED_DIRS = {".git", ".claude", ".vscode", ".idea", ".husky"}
_PROTECTED_FILES = {".bashrc", ".zshrc", ".profile", ".bash_profile", ".zprofile",
                    ".mcp.json", ".claude.json"}


class PermissionMode(enum.Enum):
    """The permission modes the gate models (``manual`` is accepted for ``default``)."""

    DEFAULT = "default"
    ACCEPT_EDITS = "acceptEdits"
    PLAN = "plan"
    DONT_ASK = "dontAsk"
    BYPASS = "bypassPermissions"

    @classmethod
    def parse(cls, value: PermissionMode | str) -> PermissionMode:
        """Accept an enum member or its settings spelling; raise ``ConfigError`` otherwise."""
        if isinstance(value, cls):
            return value
        if value == "manual":
            return cls.DEFAULT
        try:
            return cls(value)
        except ValueError:
            raise ConfigError(f"unknown permission mode {value!r}; expected one of "
                              f"{[m.value for m in cls]}") from None


@dataclass(frozen=True)
class RuleVerdict:
    """The first matching rule: ``behavior`` deny/ask/allow (``None``: no rule matched)."""

    behavior: str | None
    rule: Rule | None = None


@dataclass(frozen=True, init=False)
class PermissionRules:
    """Parsed ``allow`` / ``ask`` / ``deny`` rules; strings are parsed on construction.

    Raises ``ConfigError`` for a malformed rule or a bare string instead of a list.
    ``warnings`` lists rules that are accepted but never take effect.
    """

    allow: tuple[Rule, ...]
    ask: tuple[Rule, ...]
    deny: tuple[Rule, ...]
    warnings: tuple[str, ...] = field(compare=False)

    def __init__(self, allow: Iterable[Rule | str] = (), ask: Iterable[Rule | str] = (),
                 deny: Iterable[Rule | str] = (), warnings: Iterable[str] = ()) -> None:
        for name, items in (("allow", allow), ("ask", ask), ("deny", deny)):
            if isinstance(items, str):
                raise ConfigError(f"permissions.{name} must be a list of rules, not a string")
            object.__setattr__(self, name, tuple(
                r if isinstance(r, Rule) else parse_rule(r) for r in items))
        notes = [f"allow rule {r.text!r} is skipped: allow globs count only after a literal "
                 "mcp__<server>__ prefix" for r in self.allow
                 if "*" in r.tool and not r.tool.startswith("mcp__")]
        object.__setattr__(self, "warnings", tuple(dict.fromkeys([*warnings, *notes])))

    @classmethod
    def from_settings(
        cls, block: Mapping[str, Any], *, source: str | None = None
    ) -> PermissionRules:
        """Build from a settings ``permissions`` block; ``ConfigError`` names the bad rule."""
        lists: dict[str, list[Rule]] = {}
        for name in ("allow", "ask", "deny"):
            items = block.get(name, [])
            if not isinstance(items, list):
                raise ConfigError("must be a list of rule strings", source, f"permissions.{name}")
            rules = []
            for i, text in enumerate(items):
                try:
                    rules.append(parse_rule(text))
                except ConfigError as exc:
                    raise ConfigError(exc.message, source, f"permissions.{name}[{i}]") from None
            lists[name] = rules
        return cls(tuple(lists["allow"]), tuple(lists["ask"]), tuple(lists["deny"]))

    def merged(self, *others: PermissionRules) -> PermissionRules:
        """Pool rules of several scopes: a deny anywhere beats an allow anywhere."""
        every = (self, *others)
        return PermissionRules(
            tuple(r for p in every for r in p.allow), tuple(r for p in every for r in p.ask),
            tuple(r for p in every for r in p.deny),
            tuple(w for p in every for w in p.warnings))

    def evaluate(self, tool_name: str, tool_input: Mapping[str, Any], *, cwd: str = "",
                 home: str = "/root") -> RuleVerdict:
        """Deny, then ask, then allow rules; the first match decides."""
        for behavior in ("deny", "ask", "allow"):
            for rule in getattr(self, behavior):
                if rule_matches(rule, tool_name, tool_input, behavior=behavior, cwd=cwd, home=home):
                    return RuleVerdict(behavior, rule)
        return RuleVerdict(None)

    def first(self, behavior: str, tool_name: str, tool_input: Mapping[str, Any], *,
              cwd: str = "", home: str = "/root") -> Rule | None:
        """The first rule of one list (``"deny"``, ``"ask"`` or ``"allow"``) that matches."""
        rules: tuple[Rule, ...] = getattr(self, behavior)
        for rule in rules:
            if rule_matches(rule, tool_name, tool_input, behavior=behavior, cwd=cwd, home=home):
                return rule
        return None


@dataclass(frozen=True)
class GateStep:
    """One station of the gate: ``step`` name, its ``verdict`` (``None``: passed on)."""

    step: str
    verdict: str | None
    detail: str


@dataclass(frozen=True)
class GateResult:
    """Final decision (``allow`` / ``deny`` / ``ask``), the path taken, and why."""

    final: str
    path: tuple[GateStep, ...]
    reason: str
    rule: Rule | None = None
    deferred: bool = False
    tool_input: Mapping[str, Any] | None = None

    @property
    def decided_by(self) -> str:
        """The name of the step that decided."""
        return self.path[-1].step


def is_protected_path(path: str) -> bool:
    """True for paths inside protected folders or naming protected files."""
    parts = [p for p in path.replace("\\", "/").split("/") if p]
    for i, part in enumerate(parts[:-1]):
        if part in _PROTECTED_DIRS and not (part == ".claude" and parts[i + 1] == "worktrees"):
            return True
    return bool(parts) and (parts[-1] in _PROTECTED_FILES or parts[-1] in _PROTECTED_DIRS)


def _mode_verdict(mode: PermissionMode, tool_name: str, tool_input: Mapping[str, Any],
                  protected: bool) -> tuple[str | None, str]:
    command = tool_input.get("command") if tool_name == "Bash" else None
    reads = tool_name in READ_TOOLS or (isinstance(command, str) and is_read_only_command(command))
    if mode is PermissionMode.BYPASS:
        return "allow", "bypassPermissions runs everything that no deny/ask rule caught"
    if reads:
        return "allow", f"{mode.value} runs reads without asking"
    if mode is PermissionMode.PLAN and (tool_name in EDIT_TOOLS or tool_name == "Bash"):
        return "deny", "plan mode makes no edits and runs no commands that change things"
    if mode is PermissionMode.ACCEPT_EDITS and not protected:
        if tool_name in EDIT_TOOLS:
            return "allow", "acceptEdits approves file edits"
        parts = split_command(command) if isinstance(command, str) else None
        heads = [strip_wrappers(p, assignments=False).split()[:1] for p in parts or []]
        if heads and all(h and h[0] in _ACCEPT_EDITS_BASH for h in heads):
            return "allow", "acceptEdits approves mkdir/touch/rm/rmdir/mv/cp/sed"
    return None, f"{mode.value} has no default for {tool_name}"


def gate(
    tool_name: str, tool_input: Mapping[str, Any], *, hooks: Any = None,
    rules: PermissionRules | None = None, mode: PermissionMode | str = PermissionMode.DEFAULT,
    cwd: str = "", home: str = "/root",
) -> GateResult:
    """Walk one tool call through hooks, rules and mode; return the :class:`GateResult`.

    ``hooks`` is the PreToolUse :class:`~mcpmini.hooks.EventResult` (or ``None``); its
    ``updated_input`` replaces ``tool_input`` for the rule checks. Raises ``ConfigError``
    for an unknown mode.
    """
    rules = rules or PermissionRules()
    mode = PermissionMode.parse(mode)
    path: list[GateStep] = []

    def done(final: str, step: str, detail: str, rule: Rule | None = None,
             deferred: bool = False) -> GateResult:
        path.append(GateStep(step, final, detail))
        return GateResult(final, tuple(path), detail, rule, deferred, tool_input)

    hook_decision = None
    if hooks is None:
        path.append(GateStep("hooks", None, "no PreToolUse hooks"))
    else:
        if hooks.blocked or hooks.decision == "deny":
            return done("deny", "hooks", hooks.reason or "a PreToolUse hook blocked the call")
        hook_decision = hooks.decision
        if hooks.updated_input is not None:
            tool_input = hooks.updated_input
        path.append(GateStep("hooks", None, f"hook decision: {hook_decision or 'none'}"))
    rule = rules.first("deny", tool_name, tool_input, cwd=cwd, home=home)
    if rule:
        return done("deny", "deny_rules", f"deny rule {rule.text} matches", rule)
    path.append(GateStep("deny_rules", None, "no deny rule matches"))
    rule = rules.first("ask", tool_name, tool_input, cwd=cwd, home=home)
    if rule:
        if mode is PermissionMode.DONT_ASK:
            return done("deny", "ask_rules", f"ask rule {rule.text} matches; dontAsk denies", rule)
        return done("ask", "ask_rules", f"ask rule {rule.text} matches", rule)
    path.append(GateStep("ask_rules", None, "no ask rule matches"))
    if hook_decision == "defer":
        return done("ask", "hook_decision", "a hook deferred the call", deferred=True)
    if hook_decision == "ask":
        return done("ask", "hook_decision", "a hook asked for confirmation")
    if hook_decision == "allow":
        return done("allow", "hook_decision", "a hook allowed the call (no deny/ask rule)")
    target = next((tool_input.get(k) for k in ("file_path", "notebook_path")
                   if isinstance(tool_input.get(k), str)), None)
    protected = tool_name in EDIT_TOOLS and target is not None and is_protected_path(
        posixpath.join(cwd or "/", target))
    verdict, detail = _mode_verdict(mode, tool_name, tool_input, protected)
    if verdict:
        return done(verdict, "mode", detail)
    path.append(GateStep("mode", None, detail))
    rule = None if protected or mode is PermissionMode.BYPASS else rules.first(
        "allow", tool_name, tool_input, cwd=cwd, home=home)
    if rule:
        return done("allow", "allow_rules", f"allow rule {rule.text} matches", rule)
    path.append(GateStep("allow_rules", None, "protected path: allow rules do not apply"
                         if protected else "no allow rule matches"))
    if mode is PermissionMode.DONT_ASK:
        return done("deny", "fallback", "dontAsk denies what is not pre-approved")
    return done("ask", "fallback", "nothing approved the call: the user is asked")
