"""Invoking a skill, and re-attaching invoked skills after compaction.

:func:`render` is pure: it substitutes ``$ARGUMENTS``, ``$ARGUMENTS[N]``, ``$N`` (0-based,
shell-style quoting), named ``$arg`` from the ``arguments`` field and ``${CLAUDE_*}``
variables in a body; ``\\$`` escapes one placeholder. :func:`invoke` then runs the
``!`cmd``` embeddings (at a line start or after whitespace, or a fenced ```` ```! ````
block) once, through a runner the caller may replace, each bounded by a timeout; a
command that fails aborts the whole invocation (exit 1 is tolerated for search and diff
commands), and the outcome is an :class:`Invocation` value, never an exception.

:func:`reattach` models what survives auto-compaction (Proposition 5.2 (2), exercise
9.4): the latest invocation of each skill, newest first, the first ``per_skill_tokens``
of each, until ``total_tokens`` are used. It returns a :class:`Reattachment` saying
which skills were attached whole, cut or dropped.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .. import process
from ..agent import estimate_tokens

__all__ = [
    "PER_SKILL_TOKENS",
    "TOTAL_TOKENS",
    "CommandRun",
    "Invocation",
    "InvocationStatus",
    "ReattachStatus",
    "Reattached",
    "Reattachment",
    "invoke",
    "reattach",
    "render",
    "run_shell",
    "skill_permits",
]

PER_SKILL_TOKENS = 5_000
TOTAL_TOKENS = 25_000
_TOLERATE_EXIT_1 = {"grep", "egrep", "fgrep", "rg", "ag", "ack", "diff", "cmp"}
_PLACEHOLDER = re.compile(
    r"\\\$|\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS\b|\$(\d+)|\$\{(CLAUDE_[A-Z_]+)\}"
    r"|\$([A-Za-z_][A-Za-z0-9_]*)"
)
_FENCE = re.compile(r"^```!\s*\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
_INLINE = re.compile(r"(?:(?<=\s)|^)!`([^`\n]+)`", re.MULTILINE)


class InvocationStatus(StrEnum):
    OK = "ok"
    ABORTED = "aborted"


@dataclass(frozen=True)
class CommandRun:
    """One ``!`cmd``` run: its exit code (``None`` when it timed out) and its output."""

    command: str
    returncode: int | None
    stdout: str = ""
    stderr: str = ""
    refused: bool = False  # the permission check did not allow it, so it never ran

    @property
    def ok(self) -> bool:
        if self.refused:
            return False
        if self.returncode == 0:
            return True
        words = self.command.split()
        tolerant = bool(words) and (
            words[0] in _TOLERATE_EXIT_1 or words[:2] in (["git", "diff"], ["git", "grep"])
        )
        return self.returncode == 1 and tolerant


@dataclass(frozen=True)
class Invocation:
    """The rendered message of one invocation (empty when aborted) and its commands."""

    name: str
    text: str
    status: InvocationStatus = InvocationStatus.OK
    commands: tuple[CommandRun, ...] = ()
    error: str | None = None

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text)


def _split_args(arguments: str) -> list[str]:
    try:
        return shlex.split(arguments)
    except ValueError:  # unbalanced quotes: fall back to whitespace
        return arguments.split()


def render(
    body: str,
    arguments: str = "",
    *,
    names: Sequence[str] = (),
    variables: Mapping[str, str] | None = None,
) -> str:
    """Substitute arguments and ``${CLAUDE_*}`` variables in ``body``; returns the text.

    ``names`` are the skill's named arguments (``$name`` → that positional value, or ""
    when missing). A missing ``$ARGUMENTS[N]`` / ``$N`` stays as written, as does an
    unknown ``${CLAUDE_X}`` or ``$word``. When the body has no argument placeholder and
    ``arguments`` is not empty, ``ARGUMENTS: <arguments>`` is appended.
    """
    variables = variables or {}
    argv = _split_args(arguments)
    used = False

    def sub(m: re.Match[str]) -> str:
        nonlocal used
        whole, idx, num, var, word = m.group(0), m.group(1), m.group(2), m.group(3), m.group(4)
        if whole == "\\$":
            return "$"
        if var is not None:
            return variables.get(var, whole)
        if word is not None:
            if word not in names:
                return whole
            used = True
            pos = list(names).index(word)
            return argv[pos] if pos < len(argv) else ""
        used = True
        if idx is None and num is None:
            return arguments
        n = int(idx if idx is not None else num)
        return argv[n] if n < len(argv) else whole

    text = _PLACEHOLDER.sub(sub, body)
    if not used and arguments.strip():
        text = f"{text.rstrip()}\n\nARGUMENTS: {arguments}"
    return text


def run_shell(command: str, *, cwd: str | None = None, timeout: float = 10.0) -> CommandRun:
    """Run ``command`` with ``sh -c`` through :func:`mcpmini.process.run`.

    A timeout gives ``returncode=None``; everything the command started (background jobs,
    ``nohup`` and ``setsid`` children included, even one that cleared the run marker: it runs
    under the sub-reaper launcher) is ended when it returns or times out.
    """
    done = process.run(["sh", "-c", command], cwd=cwd, timeout=timeout, reaper=True)
    if done.start_error is not None:
        return CommandRun(command, 127, "", done.start_error)
    if done.timed_out:
        return CommandRun(command, None, "", f"timed out after {timeout} s")
    return CommandRun(
        command,
        done.exit_code,
        done.stdout.decode("utf-8", "replace"),
        done.stderr.decode("utf-8", "replace"),
    )


def invoke(
    skill: Any,
    arguments: str = "",
    *,
    variables: Mapping[str, str] | None = None,
    runner: Callable[[str], CommandRun] | None = None,
    cwd: str | None = None,
    timeout: float = 10.0,
    shell_execution: bool = True,
    permit: Callable[[str], bool] | None = None,
) -> Invocation:
    """Render ``skill`` (a :class:`~mcpmini.skills.Skill`) for ``arguments``; run its commands.

    ``variables`` add to ``CLAUDE_SKILL_DIR`` (the skill's folder) and the skill's own
    ``variables`` (a plugin skill carries ``CLAUDE_PLUGIN_ROOT``). ``runner(command)``
    replaces :func:`run_shell` (which uses ``cwd`` and ``timeout``); with
    ``shell_execution=False`` each command becomes a placeholder, as
    ``disableSkillShellExecution`` does. ``permit(command)`` is the permission check
    (e.g. :func:`skill_permits`); a command it refuses is never run and, since the check
    never prompts, aborts the invocation. Without ``permit`` every command may run.
    Returns an :class:`Invocation`; a refused, failing or timed-out command gives status
    ``ABORTED`` with the reason in ``error``.
    """
    env = {"CLAUDE_SKILL_DIR": skill.directory or ""} | dict(getattr(skill, "variables", {}))
    env |= dict(variables or {})
    text = render(skill.body, arguments, names=skill.arguments, variables=env)
    run = runner or (lambda c: run_shell(c, cwd=cwd, timeout=timeout))
    runs: list[CommandRun] = []
    failed: list[CommandRun] = []

    def execute(command: str) -> str:
        if not shell_execution:
            return "[shell command execution disabled]"
        if failed:
            return ""
        command = command.strip()
        if permit is not None and not permit(command):
            result = CommandRun(
                command, None, "", "not allowed by the permission check", refused=True
            )
        else:
            result = run(command)
        runs.append(result)
        if not result.ok:
            failed.append(result)
        return result.stdout.rstrip("\n")

    # one pass over the original text: outputs are never re-scanned
    pattern = re.compile(f"{_FENCE.pattern}|{_INLINE.pattern}", re.MULTILINE | re.DOTALL)
    text = pattern.sub(
        lambda m: execute(m.group(1) if m.group(1) is not None else m.group(2)), text
    )
    if failed:
        bad = failed[0]
        why = (
            "was refused"
            if bad.refused
            else "timed out"
            if bad.returncode is None
            else f"exited {bad.returncode}"
        )
        return Invocation(
            skill.name,
            "",
            InvocationStatus.ABORTED,
            tuple(runs),
            f"command {bad.command!r} {why}: {bad.stderr.strip()[:200]}",
        )
    return Invocation(skill.name, text, InvocationStatus.OK, tuple(runs))


def skill_permits(skill: Any, *, extra_allow: Sequence[str] = ()) -> Callable[[str], bool]:
    """A permission check for ``!`cmd``` built from the skill's ``allowed-tools``.

    A command is allowed when every subcommand is in the built-in read-only set, or when
    a ``Bash(...)`` rule among ``allowed-tools`` and ``extra_allow`` (e.g. the settings'
    allow rules) matches it, using the rule syntax of :mod:`mcpmini.permissions.rules`.
    """
    from ..permissions import is_read_only_command, parse_rule, rule_matches

    rules = [parse_rule(r) for r in (*skill.fields.get("allowed-tools", ()), *extra_allow)]

    def permit(command: str) -> bool:
        return is_read_only_command(command) or any(
            rule_matches(r, "Bash", {"command": command}, behavior="allow") for r in rules
        )

    return permit


class ReattachStatus(StrEnum):
    WHOLE = "whole"
    CUT = "cut"
    DROPPED = "dropped"


@dataclass(frozen=True)
class Reattached:
    """One skill after compaction: how many of its tokens came back, and how."""

    name: str
    status: ReattachStatus
    tokens: int
    original_tokens: int


@dataclass(frozen=True)
class Reattachment:
    """Every invoked skill, newest first, with what was re-attached."""

    items: tuple[Reattached, ...]
    per_skill_tokens: int
    total_budget: int

    @property
    def total_tokens(self) -> int:
        return sum(r.tokens for r in self.items)

    def names(self, status: ReattachStatus) -> list[str]:
        """The skills with ``status``, newest first."""
        return [r.name for r in self.items if r.status is status]

    @property
    def dropped(self) -> list[str]:
        return self.names(ReattachStatus.DROPPED)


def _size(item: Any) -> tuple[str, int]:
    if isinstance(item, tuple):
        name, body = item
    else:
        name = item.name
        body = getattr(item, "tokens", None)
        if body is None:
            body = getattr(item, "text", None) or getattr(item, "body", "")
    tokens = body if isinstance(body, int) else estimate_tokens(str(body))
    if tokens < 0:
        raise ValueError(f"token count of {name!r} must not be negative, got {tokens}")
    return str(name), tokens


def reattach(
    invocations: Sequence[Any],
    *,
    per_skill_tokens: int = PER_SKILL_TOKENS,
    total_tokens: int = TOTAL_TOKENS,
) -> Reattachment:
    """What comes back after auto-compaction (Proposition 5.2 (2)).

    ``invocations`` are in invocation order, oldest first: ``(name, text_or_tokens)``
    pairs or objects with ``name`` and ``tokens``/``text``/``body`` (an
    :class:`Invocation` works). Only the latest invocation of each name counts. Newest
    first, each keeps ``min(original, per_skill_tokens, what is left of total_tokens)``.
    Returns a :class:`Reattachment` whose ``total_tokens`` never exceeds
    ``min(k * per_skill_tokens, total_tokens)`` for ``k`` distinct skills. Raises
    ``ValueError`` for a negative count or cap.
    """
    if per_skill_tokens < 0 or total_tokens < 0:
        raise ValueError("token caps must not be negative")
    latest: dict[str, int] = {}
    for item in invocations:
        name, tokens = _size(item)
        latest.pop(name, None)  # re-insert so dict order follows the latest invocation
        latest[name] = tokens
    left = total_tokens
    items: list[Reattached] = []
    for name, original in reversed(latest.items()):
        kept = min(original, per_skill_tokens, left)
        left -= kept
        if kept == original:
            status = ReattachStatus.WHOLE
        elif kept == 0:
            status = ReattachStatus.DROPPED
        else:
            status = ReattachStatus.CUT
        items.append(Reattached(name, status, kept, original))
    return Reattachment(tuple(items), per_skill_tokens, total_tokens)
