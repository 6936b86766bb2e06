"""Permission modes and what each runs without asking (reference §2.3).

:func:`mode_verdict` is the mode step of the gate. Reads run in every mode; ``plan`` makes
no edits and runs no command that changes things; ``acceptEdits`` approves file edits and
``mkdir touch rm rmdir mv cp sed`` **only inside the working directories** and never on a
protected path; ``bypassPermissions`` runs everything the rules did not stop. A Bash command
that cannot be verified statically, an exec wrapper and ``find -exec``/``-delete`` get no
default from any mode but bypass.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import ConfigError
from .bash import CommandAnalysis, Subcommand
from .paths import absolute, inside, is_protected_path

__all__ = [
    "ACCEPT_EDITS_COMMANDS",
    "EDIT_TOOLS",
    "READ_TOOLS",
    "Behavior",
    "PermissionMode",
    "mode_verdict",
]

EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
READ_TOOLS = frozenset({"Read", "Grep", "Glob", "LS", "NotebookRead"})
#: The Bash commands ``acceptEdits`` approves when every path they name is inside.
ACCEPT_EDITS_COMMANDS = frozenset({"mkdir", "touch", "rm", "rmdir", "mv", "cp", "sed"})


class Behavior(enum.StrEnum):
    """A rule list and a gate verdict: ``allow`` / ``ask`` / ``deny`` (JSON carries the value)."""

    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"


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
            raise ConfigError(
                f"unknown permission mode {value!r}; expected one of {[m.value for m in cls]}"
            ) from None


def _path_args(sub: Subcommand) -> list[str] | None:
    """The path arguments of an acceptEdits command (``None``: one is not static)."""
    args: list[str] = []
    script_seen = sub.program != "sed" or any(
        a in ("-e", "--expression") or (a or "").startswith("--expression=") for a in sub.plain
    )
    options_done = False
    for arg in sub.plain[1:]:
        if arg is None:
            return None
        if not options_done and arg == "--":
            options_done = True
        elif not options_done and arg.startswith("-"):
            if "=" in arg and arg.startswith("--"):
                args.append(arg.split("=", 1)[1])
        elif not script_seen:
            script_seen = True
        else:
            args.append(arg)
    return args


def _edit_inside(sub: Subcommand, cwd: str, home: str, dirs: Sequence[str]) -> bool:
    args = _path_args(sub)
    if args is None or not args:
        return False
    for arg in args:
        path = absolute(arg, cwd, home)
        if not inside(path, dirs) or is_protected_path(path):
            return False
        if sub.program in ("rm", "rmdir", "mv") and any(inside(d, [path]) for d in dirs):
            return False  # removing or moving a working directory itself (or a parent)
    return True


def mode_verdict(
    mode: PermissionMode,
    tool_name: str,
    tool_input: Mapping[str, Any],
    *,
    analysis: CommandAnalysis | None,
    cwd: str,
    home: str,
    dirs: Sequence[str],
) -> tuple[Behavior | None, str]:
    """The mode's verdict (``allow``, ``deny`` or ``None``: no default) and why.

    ``analysis`` is the Bash command's analysis (``None`` for other tools); ``dirs`` the
    working directories (``cwd`` and any additional ones), absolute.
    """
    if mode is PermissionMode.BYPASS:
        return Behavior.ALLOW, "bypassPermissions runs everything that no deny/ask rule caught"
    if tool_name in READ_TOOLS:
        return Behavior.ALLOW, f"{mode.value} runs reads without asking"
    if analysis is not None:
        if analysis.unverifiable:
            return None, "cannot be verified statically: " + "; ".join(analysis.unverifiable)
        subs = analysis.subcommands
        if subs and not analysis.writes and all(s.read_only for s in subs):
            return Behavior.ALLOW, f"{mode.value} runs read-only commands without asking"
        if mode is PermissionMode.PLAN:
            return Behavior.DENY, "plan mode makes no edits and runs no commands that change things"
        wrapped = [s.text for s in subs if s.exec_wrapper]
        if wrapped:
            return None, f"{', '.join(wrapped)} runs another program: it always prompts"
        if mode is PermissionMode.ACCEPT_EDITS:
            writes_ok = all(
                inside(p, dirs) and not is_protected_path(p)
                for p in (absolute(w, cwd, home) for w in analysis.writes)
            )
            moves = any(s.program in ("cd", "pushd", "popd") for s in subs)
            edits_ok = all(
                s.read_only
                or (
                    not moves
                    and s.program in ACCEPT_EDITS_COMMANDS
                    and _edit_inside(s, cwd, home, dirs)
                )
                for s in subs
            )
            if subs and writes_ok and edits_ok:
                return Behavior.ALLOW, (
                    "acceptEdits approves mkdir/touch/rm/rmdir/mv/cp/sed "
                    "inside the working directories"
                )
            return None, "acceptEdits approves file commands only inside the working directories"
        return None, f"{mode.value} has no default for this command"
    if mode is PermissionMode.PLAN and tool_name in EDIT_TOOLS:
        return Behavior.DENY, "plan mode makes no edits and runs no commands that change things"
    if mode is PermissionMode.ACCEPT_EDITS and tool_name in EDIT_TOOLS:
        target = next(
            (
                tool_input[k]
                for k in ("file_path", "notebook_path")
                if isinstance(tool_input.get(k), str)
            ),
            None,
        )
        path = absolute(target, cwd, home) if target else None
        if path and inside(path, dirs) and not is_protected_path(path):
            return Behavior.ALLOW, "acceptEdits approves file edits inside the working directories"
        return None, "acceptEdits approves edits only inside the working directories"
    return None, f"{mode.value} has no default for {tool_name}"
