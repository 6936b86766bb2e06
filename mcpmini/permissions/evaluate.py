"""Permission rules, modes, and the gate every tool call passes (reference §2).

:class:`PermissionRules` holds parsed ``allow`` / ``ask`` / ``deny`` rules (from code or
from the ``permissions`` blocks of real settings files, pooled across scopes) and answers
deny -> ask -> allow, first match wins. :func:`gate` walks one call through the documented
order and records each step in :attr:`GateResult.path`:

1. PreToolUse hooks (an :class:`~mcpmini.hooks.EventResult`): a blocking error or ``deny``
   stops the call here, before any rule is read (Proposition 4.3.1);
2. deny rules (even in ``bypassPermissions``, even after a hook ``allow``);
3. ask rules (even in bypass; ``dontAsk`` turns the prompt into a denial), then the safety
   check on ``rm``/``rmdir`` of ``/``, a top-level folder, the home or a working directory
   (asked in every mode, never approved by a hook or an allow rule);
4. the hook's own ``ask`` / ``defer`` / ``allow`` (an allow never beats steps 2-3);
5. the permission mode; 6. allow rules; 7. otherwise prompt (``ask``), or deny in dontAsk.

Writes to protected paths (``.git``, ``.claude``, ``.vscode``, ``.idea``, ``.husky``, shell
rc files, ``.mcp.json``, ``.claude.json``) are never approved by a mode or an allow rule,
except in ``bypassPermissions``. ``defer`` is reported as ``final="ask"`` with
``deferred=True``: the call waits for a decision from outside the loop.

Rules of this module: the gate never names a mode nor reads a :class:`~.modes.ModeSpec`'s
fields — what a mode does at each step is a function of :mod:`.modes` (``mode_verdict``,
``asked``, ``unapproved``, ``approves_protected``); a deny rule or a blocking hook is never
overridden by anything later in the walk; every step taken is recorded in the path.
"""

from __future__ import annotations

import enum
import os
import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import ConfigError
from .bash import (
    BypassKind,
    BypassWarning,
    CommandAnalysis,
    Subcommand,
    analyze,
    bypass_forms,
    command_forms,
    deny_forms,
    hidden_forms,
    read_paths,
)
from .commands import source_paths
from .modes import (
    ACCEPT_EDITS_COMMANDS,
    Behavior,
    ModeSpec,
    PermissionMode,
    approves_protected,
    asked,
    changed_paths,
    mode_spec,
    mode_verdict,
    protected_targets,
    unapproved,
)
from .paths import absolute, home_dir, inside, is_protected_path, working_dir
from .rules import Rule, bash_pattern, bash_rule_covers, parse_rule, rule_matches, writes_after_cd
from .tools import EDIT_TOOLS

__all__ = [
    "GateResult",
    "GateStage",
    "GateStep",
    "HookDecision",
    "PermissionRules",
    "PreToolUseResult",
    "RuleVerdict",
    "gate",
]


class GateStage(enum.StrEnum):
    """A station of the gate, in the order a call meets them (JSON carries the value)."""

    HOOKS = "hooks"
    DENY_RULES = "deny_rules"
    ASK_RULES = "ask_rules"
    SAFETY_CHECK = "safety_check"
    HOOK_DECISION = "hook_decision"
    MODE = "mode"
    ALLOW_RULES = "allow_rules"
    FALLBACK = "fallback"  # the prompt (which PermissionRequest hooks may answer)


class PreToolUseResult(Protocol):
    """What :func:`gate` reads from the PreToolUse hooks' combined result.

    :class:`mcpmini.hooks.EventResult` fits it structurally (``hooks`` sits above
    ``permissions``, so the gate names the fields it needs instead of importing the class).
    ``decision`` is ``allow`` / ``deny`` / ``ask`` / ``defer`` or ``None``.
    """

    @property
    def blocked(self) -> bool: ...

    @property
    def decision(self) -> str | None: ...

    @property
    def reason(self) -> str | None: ...

    @property
    def updated_input(self) -> Mapping[str, Any] | None: ...


@dataclass(frozen=True)
class RuleVerdict:
    """The first matching rule: ``behavior`` deny/ask/allow (``None``: no rule matched)."""

    behavior: Behavior | None
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

    def __init__(
        self,
        allow: Iterable[Rule | str] = (),
        ask: Iterable[Rule | str] = (),
        deny: Iterable[Rule | str] = (),
        warnings: Iterable[str] = (),
    ) -> None:
        for name, items in (("allow", allow), ("ask", ask), ("deny", deny)):
            if isinstance(items, str):
                raise ConfigError(f"permissions.{name} must be a list of rules, not a string")
            object.__setattr__(
                self, name, tuple(r if isinstance(r, Rule) else parse_rule(r) for r in items)
            )
        notes = [
            f"allow rule {r.text!r} is skipped: allow globs count only after a literal "
            "mcp__<server>__ prefix"
            for r in self.allow
            if "*" in r.tool and not r.tool.startswith("mcp__")
        ]
        object.__setattr__(self, "warnings", tuple(dict.fromkeys([*warnings, *notes])))

    @classmethod
    def from_flags(cls, allow: Iterable[str] = (), deny: Iterable[str] = ()) -> PermissionRules:
        """Build from the command line's ``--allowedTools`` / ``--disallowedTools`` rules, as
        Claude Code 2.1.332 reads them: a malformed rule (``Bash(touch *``) is skipped with a
        warning and the rest apply; ``Tool()`` is the bare tool (``--allowedTools 'Bash()'``
        approves every command, where the same rule in a settings file is ignored)."""
        lists: dict[str, list[Rule]] = {"allow": [], "deny": []}
        notes: list[str] = []
        for name, flag, items in (
            ("allow", "--allowedTools", allow),
            ("deny", "--disallowedTools", deny),
        ):
            for text in items:
                bare = text.strip()
                if bare.endswith("()") and "(" not in bare[:-2]:
                    bare = bare[:-2]
                try:
                    lists[name].append(parse_rule(bare))
                except ConfigError as exc:
                    notes.append(f"{flag} {text!r}: {exc.message}; ignored")
        return cls(tuple(lists["allow"]), (), tuple(lists["deny"]), notes)

    @classmethod
    def from_settings(
        cls,
        block: Mapping[str, Any],
        *,
        source: str | None = None,
        root: str | None = None,
        trusted: bool = True,
    ) -> PermissionRules:
        """Build from a settings ``permissions`` block, as leniently as Claude Code reads it.

        A rule that is not a string, is malformed (``Bash(touch *``) or has an empty
        specifier (``Bash()``) is skipped with a warning naming its JSON path, and the rest
        of the block applies (observed in 2.1.332). A list that is not a list is a
        ``ConfigError``: Claude Code then ignores the whole file
        (:func:`~mcpmini.permissions.settings.file_problem` finds it first).

        ``root`` anchors the block's ``/path`` specifiers (:attr:`Rule.root`: the project
        folder for project settings, ``~/.claude`` for user settings). ``trusted=False``
        (project settings of a workspace whose trust dialog was never accepted) drops the
        ``allow`` rules with a warning, as Claude Code 2.1.332 does in ``-p``; ``ask`` and
        ``deny`` rules still apply.
        """
        lists: dict[str, list[Rule]] = {}
        notes: list[str] = []
        where = source or "settings"
        for name in ("allow", "ask", "deny"):
            items = block.get(name, [])
            if not isinstance(items, list):
                raise ConfigError("must be a list of rule strings", source, f"permissions.{name}")
            rules = []
            for i, text in enumerate(items):
                try:
                    rules.append(parse_rule(text, root=root))
                except ConfigError as exc:
                    notes.append(f"{where} at permissions.{name}[{i}]: {exc.message}; ignored")
            lists[name] = rules
        if not trusted and lists["allow"]:
            notes.append(
                f"ignoring {len(lists['allow'])} permissions.allow entries from "
                f"{source or 'project settings'}: this workspace has not been trusted"
            )
            lists["allow"] = []
        return cls(tuple(lists["allow"]), tuple(lists["ask"]), tuple(lists["deny"]), notes)

    def merged(self, *others: PermissionRules) -> PermissionRules:
        """Pool rules of several scopes: a deny anywhere beats an allow anywhere."""
        every = (self, *others)
        return PermissionRules(
            tuple(r for p in every for r in p.allow),
            tuple(r for p in every for r in p.ask),
            tuple(r for p in every for r in p.deny),
            tuple(w for p in every for w in p.warnings),
        )

    def evaluate(
        self,
        tool_name: str,
        tool_input: Mapping[str, Any],
        *,
        cwd: str = "",
        home: str | None = None,
    ) -> RuleVerdict:
        """Deny, then ask, then allow rules; the first match decides."""
        for behavior in (Behavior.DENY, Behavior.ASK, Behavior.ALLOW):
            for rule in getattr(self, behavior.value):
                if rule_matches(rule, tool_name, tool_input, behavior=behavior, cwd=cwd, home=home):
                    return RuleVerdict(behavior, rule)
        return RuleVerdict(None)

    def _deny_in_shell_c(self, found: CommandAnalysis) -> Rule | None:
        """A Bash deny rule whose command hides inside ``bash -c '…'``: observed in Claude Code
        2.1.332, such a call is asked (in bypassPermissions too), neither denied nor run."""
        for rule in self.deny:
            if rule.tool != "Bash" or rule.specifier is None:
                continue
            pattern = bash_pattern(rule.specifier)
            for sub in found.subcommands:
                if any(
                    kind is BypassKind.SHELL_C and pattern.fullmatch(text)
                    for kind, text in bypass_forms(sub)
                ):
                    return rule
        return None

    @staticmethod
    def _read_rule_on_arguments(
        rules: tuple[Rule, ...],
        found: CommandAnalysis,
        cwd: str,
        home: str | None,
        dirs: Sequence[str] = (),
    ) -> Rule | None:
        """A ``Read(...)`` rule naming a file that a read-only command is given
        (``cat secret.txt``) or that ``cp`` / ``mv`` copies or moves away
        (:func:`~.commands.source_paths`). Documented: path rules bind only the file tools;
        observed in Claude Code 2.1.332: the command is refused as a Read of that file (the
        ``cp`` case found by the fuzzer, seed 2026)."""
        for rule in rules:
            if rule.tool != "Read" or rule.specifier is None:
                continue
            for sub in found.subcommands:
                read = _file_operands(sub) if sub.read_only else source_paths(sub.plain)
                if any(
                    rule_matches(rule, "Read", {"file_path": arg}, cwd=cwd, home=home, dirs=dirs)
                    for arg in read
                ):
                    return rule
        return None

    @staticmethod
    def _edit_rule_on_operands(
        rules: tuple[Rule, ...],
        found: CommandAnalysis,
        cwd: str,
        home: str | None,
        dirs: Sequence[str] = (),
    ) -> Rule | None:
        """A deny ``Edit(...)`` rule covering a file a Bash file command changes (observed in
        2.1.332: deny ``Edit(**)`` denies ``touch t``, ``cp a b``; an ask ``Edit`` rule does
        not ask for them, and a deny ``Read(**)`` does not deny them — found by the fuzzer)."""
        for target in _file_command_paths(found):
            for rule in rules:
                if (
                    rule.tool == "Edit"
                    and rule.specifier is not None
                    and rule_matches(
                        rule,
                        "Write",
                        {"file_path": target},
                        behavior="deny",
                        cwd=cwd,
                        home=home,
                        dirs=dirs,
                    )
                ):
                    return rule
        return None

    def first(
        self,
        behavior: Behavior | str,
        tool_name: str,
        tool_input: Mapping[str, Any],
        *,
        cwd: str = "",
        home: str | None = None,
        dirs: Sequence[str] = (),
    ) -> Rule | None:
        """The first rule of one list (``"deny"``, ``"ask"`` or ``"allow"``) that matches.

        For Bash, a deny or ask list is also checked against the command's redirects: an
        output target as an ``Edit`` call, an input file as a ``Read`` call. ``dirs``: the
        further working directories relative path rules also match under.
        """
        behavior = Behavior(behavior)
        rules: tuple[Rule, ...] = getattr(self, behavior.value)
        for rule in rules:
            if rule_matches(
                rule, tool_name, tool_input, behavior=behavior, cwd=cwd, home=home, dirs=dirs
            ):
                return rule
        command = tool_input.get("command")
        if tool_name != "Bash" or behavior is Behavior.ALLOW or not isinstance(command, str):
            return None
        found = analyze(command)
        if behavior is Behavior.ASK:
            hidden = self._deny_in_shell_c(found)
            if hidden is not None:
                return hidden
        if behavior is Behavior.DENY:
            # observed in 2.1.332: only deny rules bind the files Bash reads or changes
            named = self._read_rule_on_arguments(rules, found, cwd, home, dirs)
            named = named or self._edit_rule_on_operands(rules, found, cwd, home, dirs)
            if named is not None:
                return named
        calls = [("Write", w) for w in found.writes] + [("Read", r) for r in found.reads]
        for tool, target in calls:
            for rule in rules:
                if tool == "Write" and rule.tool == "Read":
                    # observed in 2.1.332 (found by the fuzzer): a Read deny does not bind a
                    # redirect's output (echo x > f asks under deny Read(**)), though it
                    # denies the Write tool
                    continue
                if rule.tool in ("Read", "Edit") and rule_matches(
                    rule,
                    tool,
                    {"file_path": target},
                    behavior=behavior,
                    cwd=cwd,
                    home=home,
                    dirs=dirs,
                ):
                    return rule
        return None


@dataclass(frozen=True)
class GateStep:
    """One station of the gate: which ``step``, its ``verdict`` (``None``: passed on)."""

    step: GateStage
    verdict: Behavior | None
    detail: str


@dataclass(frozen=True)
class GateResult:
    """Final decision (``allow`` / ``deny`` / ``ask``), the path taken, and why.

    ``warnings`` names each deny/ask Bash rule that a form of this command sidesteps
    (``sudo rm``, ``bash -c``, ``/bin/rm``…): the decision stays Claude Code's.
    """

    final: Behavior
    path: tuple[GateStep, ...]
    reason: str
    rule: Rule | None = None
    deferred: bool = False
    tool_input: Mapping[str, Any] | None = None
    warnings: tuple[BypassWarning, ...] = ()

    @property
    def decided_by(self) -> GateStage:
        """The step that decided (the last one with a verdict)."""
        return next((s.step for s in reversed(self.path) if s.verdict), self.path[-1].step)


def _file_command_paths(analysis: CommandAnalysis) -> list[str]:
    """The paths a Bash command's file commands change, as written (its redirects and the
    operands computed when it runs left out)."""
    return [p for p in changed_paths(analysis) if p is not None and p not in analysis.writes]


#: Read-only programs that are given no file to read (their operands are text, not paths).
_NO_FILE_OPERANDS = frozenset(
    {"echo", "printf", "pwd", "which", "true", "false", "date", "id", "git", "whoami", "uname"}
)


def _file_operands(sub: Subcommand) -> tuple[str, ...]:
    """The files a read-only command reads: what :func:`~.bash.read_paths` knows of its
    program, none for a program that reads no file (``echo src/a``, observed in 2.1.332),
    else every operand that is not an option."""
    known = read_paths(sub)
    if known or sub.program in _NO_FILE_OPERANDS:
        return known
    return tuple(a for a in sub.plain[1:] if a and not a.startswith("-"))


def _bypass_warnings(
    rules: PermissionRules, analysis: CommandAnalysis, cwd: str, home: str
) -> tuple[BypassWarning, ...]:
    """The deny/ask rules this command sidesteps: a Bash rule that a wrapped, re-spelled or
    nested form escapes, and a Read/Edit rule on a file named as a Bash argument (path
    rules bind the built-in file tools, not the programs Bash runs)."""
    found: list[BypassWarning] = []
    denies = set(rules.deny)
    for rule in (*rules.deny, *rules.ask):
        if rule.tool in ("Read", "Edit") and rule.specifier is not None:
            for sub in analysis.subcommands:
                enforced = sub.read_only or sub.program in ACCEPT_EDITS_COMMANDS
                if rule in denies and enforced:
                    # observed in 2.1.332: a deny rule refuses the Bash call as a Read or
                    # a write of that file: no sidestep
                    continue
                if any(
                    arg
                    and not arg.startswith("-")
                    and rule_matches(rule, rule.tool, {"file_path": arg}, cwd=cwd, home=home)
                    for arg in sub.plain[1:]
                ):
                    found.append(BypassWarning(rule.text, BypassKind.FILE_BY_BASH, sub.text))
            continue
        if rule.tool != "Bash" or rule.specifier is None:
            continue
        pattern = bash_pattern(rule.specifier)
        if not any(pattern.fullmatch(s.text) for s in analysis.subcommands):
            for kind, text in command_forms(analysis.command):
                if pattern.fullmatch(text):
                    found.append(BypassWarning(rule.text, kind, text))
                    break
        for sub in analysis.subcommands:
            if any(pattern.fullmatch(text) for text in (sub.text, *deny_forms(sub))):
                continue  # the rule sees this form (observed in 2.1.332): no sidestep
            for kind, text in bypass_forms(sub):
                if pattern.fullmatch(text):
                    found.append(BypassWarning(rule.text, kind, sub.text))
                    break
            # what nobody can read before it runs (a shell reading a pipe, a command word
            # only known when it runs): no deny rule can be checked against it
            found += [BypassWarning(rule.text, kind, sub.text) for kind in hidden_forms(sub)]
    return tuple(dict.fromkeys(found))


def _bash_allow(
    rules: PermissionRules, analysis: CommandAnalysis, dirs: tuple[str, ...], home: str
) -> tuple[Rule | None, str]:
    """The allow rule that approves the command (every part covered), or why none does.

    ``dirs`` are the working directories, the current one first."""
    cwd = dirs[0]
    if analysis.unverifiable or not analysis.subcommands:
        return None, "no allow rule approves a command that cannot be verified statically"
    if writes_after_cd(analysis.subcommands):
        # observed in 2.1.332: asked even when an allow rule matches the write
        return None, "no allow rule approves a file-changing command after cd"
    guarded = protected_targets("Bash", {}, analysis, cwd, home)
    if guarded:
        # observed in 2.1.332: Bash(touch *) does not approve touch .git/q
        return None, f"protected path {guarded[0]}: allow rules do not apply"
    # observed in 2.1.332: a bare Bash allow rule (or Bash(*)) approves outside paths too
    everything = any(r.tool == "Bash" and r.specifier is None for r in rules.allow)
    outside = [p for p in _file_command_paths(analysis) if not inside(absolute(p, cwd, home), dirs)]
    if outside and not everything:
        # observed in 2.1.332: Bash(rm:*) does not approve rm ../out/f, nor an exact rule
        # touch ../out/f (touch, mkdir, cp, mv too); an additional directory counts as inside
        return None, f"{outside[0]} is outside the working directories: allow rules do not apply"
    named = [p for s in analysis.subcommands if s.read_only for p in read_paths(s)]
    far = [p for p in (*named, *analysis.reads) if not inside(absolute(p, cwd, home), dirs)]
    if far and not everything and _read_allow(rules, analysis, cwd, home)[0] is None:
        # observed in 2.1.332: Bash(cat *) does not approve cat ../out/f (nor head, nor
        # cat ~/f); a Read(path) allow rule covering every file read still does (_read_allow)
        return None, f"{far[0]} is outside the working directories: no Bash allow rule reads it"
    used: Rule | None = None
    raw = analysis.command.strip()
    if len(analysis.subcommands) == 1 and not analysis.redirects:
        # observed in 2.1.332: an exact rule matches the command as typed ("mkdir  two")
        exact = [r for r in rules.allow if r.tool == "Bash" and r.specifier == raw]
        if exact and "*" not in raw:
            return exact[0], f"allow rule {exact[0].text} matches the command exactly"
    one = raw if len(analysis.subcommands) == 1 and not analysis.redirects else None
    for sub in analysis.subcommands:
        rule = next((r for r in rules.allow if bash_rule_covers(r, sub, one)), None)
        if rule is None and not sub.read_only:
            return None, f"no allow rule matches {sub.allow_text!r}"
        used = used or rule
    for target in analysis.writes:
        path = absolute(target, cwd, home)
        rule = (
            None
            if is_protected_path(path)
            else rules.first(Behavior.ALLOW, "Write", {"file_path": path}, cwd=cwd, home=home)
        )
        if rule is None:
            return None, f"the redirect to {target} is a file write no Edit allow rule approves"
        used = used or rule
    if used is None and all(s.read_only for s in analysis.subcommands):
        return _read_allow(rules, analysis, cwd, home)
    if used is None:
        return None, "no allow rule matches"
    return used, f"allow rule {used.text} matches every part of the command"


def _read_allow(
    rules: PermissionRules, analysis: CommandAnalysis, cwd: str, home: str
) -> tuple[Rule | None, str]:
    """A read-only command that reads outside the working directories, approved when a
    ``Read(path)`` allow rule covers every file it reads (observed in 2.1.332: ``allow
    Read(//abs/**)`` then ``cat /abs/f`` runs; a path through ``..`` still asks; a bare
    ``Read`` rule does not count)."""
    named = [p for sub in analysis.subcommands for p in read_paths(sub)] + list(analysis.reads)
    if not named or any(".." in p.split("/") for p in named):
        return None, "no allow rule matches"
    used: Rule | None = None
    for name in named:
        call = {"file_path": absolute(name, cwd, home)}
        rule = next(
            (
                r
                for r in rules.allow
                if r.tool == "Read"
                and r.specifier is not None
                and rule_matches(r, "Read", call, behavior="allow", cwd=cwd, home=home)
            ),
            None,
        )
        if rule is None:
            return None, f"no Read allow rule covers {name}"
        used = used or rule
    assert used is not None
    return used, f"allow rule {used.text} covers every file the command reads"


def _edit_allows_read(
    rules: PermissionRules, tool_input: Mapping[str, Any], cwd: str, home: str
) -> Rule | None:
    """The ``Edit(path)`` allow rule that approves a Read of the same file: a file the
    Edit path rules would let Claude write it may read (observed in 2.1.332: allow
    ``Edit(//abs/**)`` approves reading ``/abs/f``, not ``cat /abs/f``; an ``Edit(path)`` ask
    or deny rule on the file takes that away, a bare ``Write`` ask rule does not, and a bare
    ``Edit`` rule approves no read — found by the fuzzer, seed 2026 sessions 3 and 37)."""
    target = tool_input.get("file_path")
    if not isinstance(target, str):
        return None
    write = {"file_path": target}

    def edit_path_rule(behavior: Behavior) -> Rule | None:
        return next(
            (
                r
                for r in getattr(rules, behavior.value)
                if r.tool == "Edit"
                and r.specifier is not None
                and rule_matches(r, "Write", write, behavior=behavior, cwd=cwd, home=home)
            ),
            None,
        )

    if edit_path_rule(Behavior.DENY) or edit_path_rule(Behavior.ASK):
        return None
    return edit_path_rule(Behavior.ALLOW)


class HookDecision(enum.StrEnum):
    """A PreToolUse hook's permission decision as the gate reads it (``hooks.Decision``
    carries the same values)."""

    ALLOW = "allow"
    DENY = "deny"
    ASK = "ask"
    DEFER = "defer"


@dataclass
class _Walk:
    """The gate's path so far: the steps taken, the input the rules see, the warnings."""

    tool_input: Mapping[str, Any]
    path: list[GateStep] = field(default_factory=list)
    warnings: tuple[BypassWarning, ...] = ()

    def pass_on(self, step: GateStage, detail: str) -> None:
        self.path.append(GateStep(step, None, detail))

    def done(
        self,
        final: Behavior,
        step: GateStage,
        detail: str,
        rule: Rule | None = None,
        deferred: bool = False,
    ) -> GateResult:
        self.path.append(GateStep(step, final, detail))
        return GateResult(
            final, tuple(self.path), detail, rule, deferred, self.tool_input, self.warnings
        )


def _hook_step(walk: _Walk, hooks: PreToolUseResult | None) -> GateResult | HookDecision | None:
    """Step 1: a blocking hook or a hook ``deny`` ends the walk; else the hook's decision."""
    if hooks is None:
        walk.pass_on(GateStage.HOOKS, "no PreToolUse hooks")
        return None
    try:
        decision = HookDecision(hooks.decision) if hooks.decision is not None else None
    except ValueError:
        raise ConfigError(f"unknown hook decision {hooks.decision!r}") from None
    if hooks.blocked or decision is HookDecision.DENY:
        return walk.done(
            Behavior.DENY, GateStage.HOOKS, hooks.reason or "a PreToolUse hook blocked the call"
        )
    if hooks.updated_input is not None:
        walk.tool_input = hooks.updated_input
    walk.pass_on(GateStage.HOOKS, f"hook decision: {decision or 'none'}")
    return decision


_HOOK_VERDICTS = {
    HookDecision.DEFER: (Behavior.ASK, "a hook deferred the call"),
    HookDecision.ASK: (Behavior.ASK, "a hook asked for confirmation"),
    HookDecision.ALLOW: (Behavior.ALLOW, "a hook allowed the call (no deny/ask rule)"),
}


def _removal_targets(sub: Subcommand) -> list[str | None]:
    """The operands of an ``rm`` / ``rmdir`` (``None``: computed when it runs)."""
    if sub.program not in ("rm", "rmdir"):
        return []
    targets: list[str | None] = []
    options_done = False
    for word in sub.plain[1:]:
        if word == "--" and not options_done:
            options_done = True
        elif options_done or word is None or not word.startswith("-"):
            targets.append(word)
    return targets


def _critical(path: str, home: str, dirs: tuple[str, ...]) -> bool:
    """``/``, a top-level folder (``/etc``, ``/usr``, ``/tmp``…), the home folder, or a
    working directory or one of its parents."""
    return (
        path == "/"
        or posixpath.dirname(path) == "/"
        or path == home
        or any(d == path or d.startswith(path.rstrip("/") + "/") for d in dirs)
    )


def _dangerous_removal(
    analysis: CommandAnalysis, cwd: str, home: str, dirs: tuple[str, ...]
) -> str | None:
    """Why this command's ``rm``/``rmdir`` needs the user whatever the mode and rules say
    (observed in Claude Code 2.1.332, also under bypassPermissions: "Dangerous rm operation
    detected"), or ``None``. A target computed when it runs counts, and so does a glob whose
    folder is critical (``rm -rf *`` in the working directory)."""
    for sub in analysis.subcommands:
        for target in _removal_targets(sub):
            if target is None:
                return f"{sub.text}: the removal target is computed when it runs"
            folder, glob = target, False
            if any(c in target for c in "*?["):
                folder, glob = posixpath.dirname(target.rstrip("/")) or ".", True
            path = absolute(folder, cwd, home)
            if _critical(path, home, dirs) and (glob or path == absolute(target, cwd, home)):
                return f"{sub.text}: removes a critical or working directory ({path})"
    return None


def _rule_steps(
    walk: _Walk,
    tool_name: str,
    rules: PermissionRules,
    spec: ModeSpec,
    decision: HookDecision | None,
    analysis: CommandAnalysis | None,
    dirs: tuple[str, ...],
    user: str,
) -> GateResult | None:
    """Steps 2-4: deny rules, ask rules (``modes.asked`` says what an ask becomes), the
    removal safety check (no mode, hook or allow rule approves ``rm -rf /``), then the hook's
    own ``defer`` / ``ask`` / ``allow``."""
    tool_input, where = walk.tool_input, dirs[0]
    rule = rules.first(Behavior.DENY, tool_name, tool_input, cwd=where, home=user, dirs=dirs[1:])
    if rule:
        return walk.done(
            Behavior.DENY, GateStage.DENY_RULES, f"deny rule {rule.text} matches", rule
        )
    walk.pass_on(GateStage.DENY_RULES, "no deny rule matches")
    rule = rules.first(Behavior.ASK, tool_name, tool_input, cwd=where, home=user, dirs=dirs[1:])
    if rule:
        final, why = asked(spec)
        detail = f"ask rule {rule.text} matches" + (f"; {why}" if why else "")
        return walk.done(final, GateStage.ASK_RULES, detail, rule)
    walk.pass_on(GateStage.ASK_RULES, "no ask rule matches")
    danger = _dangerous_removal(analysis, where, user, dirs) if analysis else None
    if danger:
        return walk.done(asked(spec)[0], GateStage.SAFETY_CHECK, danger)
    if decision is HookDecision.ALLOW and not approves_protected(spec):
        guarded = protected_targets(tool_name, tool_input, analysis, where, user)
        if guarded:
            # observed in 2.1.332: a hook's allow for a write under .claude/ still asks
            walk.pass_on(
                GateStage.HOOK_DECISION,
                f"a hook's allow does not cover the protected path {guarded[0]}",
            )
            return None
    if decision is not None and decision in _HOOK_VERDICTS:
        final, detail = _HOOK_VERDICTS[decision]
        deferred = decision is HookDecision.DEFER
        return walk.done(final, GateStage.HOOK_DECISION, detail, deferred=deferred)
    return None


def _mode_steps(
    walk: _Walk,
    tool_name: str,
    rules: PermissionRules,
    spec: ModeSpec,
    analysis: CommandAnalysis | None,
    dirs: tuple[str, ...],
    user: str,
) -> GateResult:
    """Steps 5-7: the mode, the allow rules (never for a protected path), the prompt."""
    tool_input, where = walk.tool_input, dirs[0]
    verdict, detail = mode_verdict(
        spec, tool_name, tool_input, analysis=analysis, cwd=where, home=user, dirs=dirs
    )
    if verdict:
        return walk.done(verdict, GateStage.MODE, detail)
    walk.pass_on(GateStage.MODE, detail)
    target = next(
        (
            tool_input.get(k)
            for k in ("file_path", "notebook_path")
            if isinstance(tool_input.get(k), str)
        ),
        None,
    )
    rule: Rule | None
    if (
        tool_name in EDIT_TOOLS
        and isinstance(target, str)
        and is_protected_path(absolute(target, where, user))
    ):
        rule, why = None, "protected path: allow rules do not apply"
    elif analysis is not None:
        rule, why = _bash_allow(rules, analysis, dirs, user)
    else:
        rule = rules.first(
            Behavior.ALLOW, tool_name, tool_input, cwd=where, home=user, dirs=dirs[1:]
        )
        if rule is None and tool_name == "Read":
            rule = _edit_allows_read(rules, tool_input, where, user)
        why = "no allow rule matches"
    if rule:
        return walk.done(
            Behavior.ALLOW, GateStage.ALLOW_RULES, f"allow rule {rule.text} matches", rule
        )
    walk.pass_on(GateStage.ALLOW_RULES, why)
    final, detail = unapproved(spec, tool_name)
    return walk.done(final, GateStage.FALLBACK, detail)


def gate(
    tool_name: str,
    tool_input: Mapping[str, Any],
    *,
    hooks: PreToolUseResult | None = None,
    rules: PermissionRules | None = None,
    mode: PermissionMode | str = PermissionMode.DEFAULT,
    cwd: str = "",
    home: str | None = None,
    additional_dirs: Iterable[str] = (),
) -> GateResult:
    """Walk one tool call through hooks, rules and mode; return the :class:`GateResult`.

    ``hooks`` is the PreToolUse :class:`~mcpmini.hooks.EventResult` (any
    :class:`PreToolUseResult`, or ``None``); its
    ``updated_input`` replaces ``tool_input`` for the rule checks. ``cwd`` is the working
    directory (empty: the process's), ``home`` the user's home that ``~`` means (``None``:
    the current user's; pass ``$HOME`` through), ``additional_dirs`` further working
    directories (``--add-dir``, ``permissions.additionalDirectories``: relative to ``cwd``,
    ``~`` expanded, one that is not a folder ignored) where reads run and ``acceptEdits``
    writes. Raises ``ConfigError`` for an unknown mode or hook
    decision.
    """
    rules = rules or PermissionRules()
    spec = mode_spec(mode)
    where, user = working_dir(cwd), home_dir(home)
    extra = (absolute(d, where, user) for d in additional_dirs)
    # observed in 2.1.332: a folder that does not exist is no working directory
    dirs = (where, *(d for d in extra if os.path.isdir(d)))
    walk = _Walk(tool_input)
    decision = _hook_step(walk, hooks)
    if isinstance(decision, GateResult):
        return decision
    command = walk.tool_input.get("command") if tool_name == "Bash" else None
    analysis = analyze(command) if isinstance(command, str) else None
    if analysis is not None:
        walk.warnings = _bypass_warnings(rules, analysis, where, user)
    return _rule_steps(walk, tool_name, rules, spec, decision, analysis, dirs, user) or _mode_steps(
        walk, tool_name, rules, spec, analysis, dirs, user
    )
