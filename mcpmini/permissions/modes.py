"""Permission modes as data, and the mode step of the gate (reference §2.3).

Rules of this module:

* :data:`MODES` holds one frozen :class:`ModeSpec` per :class:`PermissionMode`: whether the
  mode approves every call, what it does with an edit tool call (no default, approved inside
  the working directories, or always asked), which Bash file commands it approves inside the
  working directories, and what a prompt becomes (``ask``, or ``deny`` in ``dontAsk``, and for
  Bash in ``plan``). Nothing else in the package tests a mode by name: :func:`mode_verdict` and the
  gate read the row. Adding a mode is one member of :class:`PermissionMode` and one row here.
* Reads run in every mode, inside the working directories. A Bash command that cannot be
  verified statically, an exec wrapper and ``find -exec``/``-delete`` get no default from any
  mode but one that approves everything.
* A mode never approves a write to a protected path (``.git``, ``.claude``…), except one that
  approves everything.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError
from .bash import CommandAnalysis, Subcommand, read_paths, sed_writes_or_runs
from .commands import edit_paths, touched_paths
from .paths import absolute, call_paths, inside, is_protected_path
from .tools import EDIT_TOOLS, READ_TOOLS

__all__ = [
    "ACCEPT_EDITS_COMMANDS",
    "DEFAULT_MODE_VALUES",
    "EDIT_TOOLS",
    "MODES",
    "READ_TOOLS",
    "Behavior",
    "Changes",
    "ModeSpec",
    "PermissionMode",
    "StartingMode",
    "approves_protected",
    "asked",
    "changed_paths",
    "mode_spec",
    "mode_verdict",
    "protected_targets",
    "starting_mode",
    "unapproved",
]

_FILE_COMMANDS = ("mkdir", "touch", "rm", "rmdir", "mv", "cp", "sed")
#: The Bash commands ``acceptEdits`` approves when every path they name is inside.
ACCEPT_EDITS_COMMANDS = frozenset(_FILE_COMMANDS)
_CHANGES_DIR = frozenset({"cd", "pushd", "popd"})


class Behavior(enum.StrEnum):
    """A rule list and a gate verdict: ``allow`` / ``ask`` / ``deny`` (JSON carries the value)."""

    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"


class PermissionMode(enum.StrEnum):
    """The permission modes the gate models; :data:`MODES` says what each one does.

    ``manual`` (the label Claude Code shows for ``default``) is accepted by :meth:`parse`.
    """

    DEFAULT = "default"
    ACCEPT_EDITS = "acceptEdits"
    PLAN = "plan"
    DONT_ASK = "dontAsk"
    BYPASS = "bypassPermissions"

    @classmethod
    def parse(cls, value: PermissionMode | str) -> PermissionMode:
        """Accept an enum member, its settings spelling or an alias; raise ``ConfigError``."""
        if isinstance(value, cls):
            return value
        if value in _ALIASES:
            return _ALIASES[value]
        try:
            return cls(value)
        except ValueError:
            raise ConfigError(
                f"unknown permission mode {value!r}; expected one of {[m.value for m in cls]}"
            ) from None


_ALIASES = {"manual": PermissionMode.DEFAULT}


class Changes(enum.StrEnum):
    """What a mode does with a change: an edit tool call or a Bash file command."""

    UNDECIDED = "no default"  # the allow rules decide, then the prompt
    INSIDE = "approved inside the working directories"
    ASKS = "asked, whatever the allow rules say"


@dataclass(frozen=True)
class ModeSpec:
    """One permission mode as data.

    ``everything``: the mode approves every call no deny/ask rule or safety check caught;
    ``edits``: what it does with an edit tool call; ``file_commands``: the Bash programs it
    approves inside the working directories; ``prompt``: what a call becomes that would
    otherwise prompt the user (an ask rule, or nothing approving it); ``classified_prompt``:
    the same for a call of one of ``classified`` (the tools auto mode's safety check judges)
    when it differs (``None``: ``prompt``); ``reads_anywhere``: the
    file-reading tools run without asking outside the working directories too;
    ``default_from``: the settings scopes whose ``defaultMode`` may start the mode (``None``:
    any; elsewhere it is ignored with a warning and the session starts in ``default``);
    ``disableable``: ``permissions.disableBypassPermissionsMode: "disable"`` in any settings
    file refuses the mode (the session falls back to the settings' own ``defaultMode``).
    """

    mode: PermissionMode
    everything: bool = False
    edits: Changes = Changes.UNDECIDED
    file_commands: tuple[str, ...] = ()
    prompt: Behavior = Behavior.ASK
    classified: frozenset[str] = frozenset()
    classified_prompt: Behavior | None = None
    reads_anywhere: bool = False
    default_from: frozenset[str] | None = None
    disableable: bool = False

    @property
    def name(self) -> str:
        """The mode's settings spelling (``acceptEdits``)."""
        return self.mode.value


#: Every mode, one row each (reference §2.3).
MODES: Mapping[PermissionMode, ModeSpec] = {
    spec.mode: spec
    for spec in (
        ModeSpec(PermissionMode.DEFAULT),
        ModeSpec(PermissionMode.ACCEPT_EDITS, edits=Changes.INSIDE, file_commands=_FILE_COMMANDS),
        # documented: plan refuses edits and changing commands. Observed in 2.1.332: an
        # edit asks ("Cannot write to … while in plan mode"; allow rules do not approve it);
        # a Bash or WebFetch call no rule approves goes to auto mode's safety check, which runs on
        # Anthropic's server: offline (the oracle's setting) the call is denied.
        # Observed in 2.1.332 as well: plan's Read runs outside the working directories too.
        ModeSpec(
            PermissionMode.PLAN,
            edits=Changes.ASKS,
            classified=frozenset({"Bash", "WebFetch"}),
            classified_prompt=Behavior.DENY,
            reads_anywhere=True,
        ),
        ModeSpec(PermissionMode.DONT_ASK, prompt=Behavior.DENY),
        # documented: disableBypassPermissionsMode "disable" prevents the mode. Observed in
        # 2.1.332 as well: honoured from every scope, an untrusted project's too; and a
        # defaultMode of bypassPermissions applies only from user, --settings and managed
        # settings (a project or local one is ignored: the call asks).
        ModeSpec(
            PermissionMode.BYPASS,
            everything=True,
            default_from=frozenset({"user", "flag", "managed"}),
            disableable=True,
        ),
    )
}

#: The values ``permissions.defaultMode`` may take; any other makes Claude Code 2.1.332
#: ignore the whole settings file (observed: its rules and hooks too).
DEFAULT_MODE_VALUES = tuple(m.value for m in PermissionMode)


@dataclass(frozen=True)
class StartingMode:
    """The mode a session starts in, and what was refused on the way (``warnings``)."""

    mode: PermissionMode
    warnings: tuple[str, ...] = ()


def starting_mode(
    requested: PermissionMode | str | None,
    default: tuple[str, str] | None = None,
    *,
    disable_bypass: bool = False,
) -> StartingMode:
    """The mode a session starts in: ``requested`` (``--permission-mode``), else the
    ``defaultMode`` of the highest-ranked settings file that sets one (``default`` is its
    ``(scope, value)``), else ``default``; each row's ``default_from`` and ``disableable``
    apply. Raises ``ConfigError`` for an unknown mode.
    """
    notes: list[str] = []
    fallback: PermissionMode | None = None
    if default is not None:
        scope, value = default
        fallback = PermissionMode.parse(value)
        allowed = MODES[fallback].default_from
        if allowed is not None and scope not in allowed:
            notes.append(
                f"defaultMode {value} in {scope} settings is ignored: only "
                f"{', '.join(sorted(allowed))} settings may start a session in it"
            )
            fallback = PermissionMode.DEFAULT
    mode = PermissionMode.parse(requested) if requested else fallback or PermissionMode.DEFAULT
    if disable_bypass and MODES[mode].disableable:
        refused = mode
        back = fallback if fallback and not MODES[fallback].disableable else None
        mode = back or PermissionMode.DEFAULT
        notes.append(
            f"{refused.value} is disabled by permissions.disableBypassPermissionsMode; "
            f"the session starts in {mode.value}"
        )
    return StartingMode(mode, tuple(notes))


def mode_spec(mode: PermissionMode | str) -> ModeSpec:
    """The :class:`ModeSpec` of ``mode`` (any spelling :meth:`PermissionMode.parse` takes).

    Raises ``ConfigError`` for an unknown mode.
    """
    return MODES[PermissionMode.parse(mode)]


def asked(spec: ModeSpec) -> tuple[Behavior, str]:
    """What a prompt (an ask rule, the safety check) becomes in this mode, and why when it is
    not a prompt (``dontAsk`` denies)."""
    if spec.prompt is Behavior.ASK:
        return Behavior.ASK, ""
    return spec.prompt, f"{spec.name} denies"


def unapproved(spec: ModeSpec, tool_name: str) -> tuple[Behavior, str]:
    """The last step: what a call nothing approved becomes in this mode, and why."""
    if tool_name in spec.classified and spec.classified_prompt is not None:
        return (
            spec.classified_prompt,
            f"{spec.name}: a {tool_name} call no rule approves goes to auto mode's safety check, "
            "which is unavailable offline",
        )
    if spec.prompt is not Behavior.ASK:
        return spec.prompt, f"{spec.name} denies what is not pre-approved"
    return Behavior.ASK, "nothing approved the call: the user is asked"


def approves_protected(spec: ModeSpec) -> bool:
    """Whether the mode approves a change to a protected path (only one that approves
    everything; elsewhere neither a hook's allow nor an allow rule does)."""
    return spec.everything


def _path_args(sub: Subcommand) -> list[str] | None:
    """The path arguments of an acceptEdits command (``None``: one is not static, or an
    option ``acceptEdits`` does not approve: :func:`~.commands.edit_paths`)."""
    return edit_paths(sub.plain)


def changed_paths(analysis: CommandAnalysis) -> list[str | None]:
    """The paths a Bash command changes, as written: the operands of its file commands
    (:data:`ACCEPT_EDITS_COMMANDS`) and its output redirects (``None``: an operand that is
    computed when it runs)."""
    found: list[str | None] = list(analysis.writes)
    for sub in analysis.subcommands:
        if sub.program in ACCEPT_EDITS_COMMANDS and not sub.read_only:  # not "sed -n 1p f"
            found.extend(touched_paths(sub.plain))
    return found


def protected_targets(
    tool_name: str,
    tool_input: Mapping[str, Any],
    analysis: CommandAnalysis | None,
    cwd: str,
    home: str,
) -> list[str]:
    """The protected paths (``.git``, ``.claude``, ``.mcp.json``…) this call would change:
    an edit tool's file, a Bash file command's operands and redirect targets."""
    if analysis is not None:
        named = [p for p in changed_paths(analysis) if p is not None]
    elif tool_name in EDIT_TOOLS:
        named = [
            v for k in ("file_path", "notebook_path") if isinstance(v := tool_input.get(k), str)
        ]
    else:
        named = []
    return [p for p in named if is_protected_path(absolute(p, cwd, home))]


def _recursive_cp(word: str) -> bool:
    """``-r``, ``-R``, ``--recursive`` or a bundle of short options holding one (``-rf``)."""
    if word in ("--recursive", "-a", "--archive"):
        return True
    return word.startswith("-") and not word.startswith("--") and bool(set(word[1:]) & set("rRa"))


def _edit_inside(sub: Subcommand, cwd: str, home: str, dirs: Sequence[str]) -> bool:
    if sub.program == "sed" and sed_writes_or_runs(sub.plain):
        return False  # "sed command requires approval (contains potentially dangerous operations)"
    if sub.program == "sed" and any(w and w.startswith("--in-place=") for w in sub.plain):
        return False  # observed in 2.1.332: it writes a backup file too; asked in acceptEdits
    if sub.program == "cp" and any(w and _recursive_cp(w) for w in sub.plain[1:]):
        return False  # observed in 2.1.332: a recursive copy is asked in acceptEdits
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


def _writable(path: str, dirs: Sequence[str]) -> bool:
    """Inside the working directories and not protected."""
    return inside(path, dirs) and not is_protected_path(path)


def _reads_outside(
    analysis: CommandAnalysis, cwd: str, home: str, dirs: Sequence[str]
) -> list[str]:
    """The files a read-only command reads outside the working directories."""
    named = [p for sub in analysis.subcommands for p in read_paths(sub, cwd)]
    named += list(analysis.reads)
    return [
        p
        for p in named
        if ".." in p.split("/") or not inside(absolute(p, cwd, home), dirs)  # "sub/.." asks
    ]


def _bash_verdict(
    spec: ModeSpec, analysis: CommandAnalysis, cwd: str, home: str, dirs: Sequence[str]
) -> tuple[Behavior | None, str]:
    if analysis.unverifiable:
        return None, "cannot be verified statically: " + "; ".join(analysis.unverifiable)
    subs = analysis.subcommands
    if subs and not analysis.writes and all(s.read_only for s in subs):
        outside = _reads_outside(analysis, cwd, home, dirs)
        if outside:
            # documented: the read-only set never prompts. Observed in 2.1.332: it does when
            # it reads outside the working directories ("cat in '/etc/hostname' was blocked")
            return None, f"reads outside the working directories: {', '.join(outside)}"
        return Behavior.ALLOW, f"{spec.name} runs read-only commands without asking"
    wrapped = [s.text for s in subs if s.exec_wrapper]
    if wrapped:
        return None, f"{', '.join(wrapped)} runs another program: it always prompts"
    if not spec.file_commands:
        return None, f"{spec.name} has no default for this command"
    writes_ok = all(_writable(absolute(w, cwd, home), dirs) for w in analysis.writes)
    moves = any(s.program in _CHANGES_DIR for s in subs)
    edits_ok = all(
        s.read_only
        or (not moves and s.program in spec.file_commands and _edit_inside(s, cwd, home, dirs))
        for s in subs
    )
    if subs and writes_ok and edits_ok:
        commands = "/".join(spec.file_commands)
        return Behavior.ALLOW, f"{spec.name} approves {commands} inside the working directories"
    return None, f"{spec.name} approves file commands only inside the working directories"


def _edit_verdict(
    spec: ModeSpec, tool_input: Mapping[str, Any], cwd: str, home: str, dirs: Sequence[str]
) -> tuple[Behavior | None, str]:
    if spec.edits is Changes.ASKS:
        return Behavior.ASK, f"{spec.name} asks before any edit; no allow rule approves it"
    target = next(
        (
            tool_input[k]
            for k in ("file_path", "notebook_path")
            if isinstance(tool_input.get(k), str)
        ),
        None,
    )
    if target and _writable(absolute(target, cwd, home), dirs):
        return Behavior.ALLOW, f"{spec.name} approves file edits inside the working directories"
    return None, f"{spec.name} approves edits only inside the working directories"


def mode_verdict(
    mode: PermissionMode | ModeSpec,
    tool_name: str,
    tool_input: Mapping[str, Any],
    *,
    analysis: CommandAnalysis | None,
    cwd: str,
    home: str,
    dirs: Sequence[str],
) -> tuple[Behavior | None, str]:
    """The mode's verdict (``allow``, ``deny`` or ``None``: no default) and why.

    ``mode`` is a mode or its :class:`ModeSpec`; ``analysis`` the Bash command's analysis
    (``None`` for other tools); ``dirs`` the working directories (``cwd`` and any
    additional ones), absolute.
    """
    spec = mode if isinstance(mode, ModeSpec) else MODES[mode]
    if spec.everything:
        return Behavior.ALLOW, f"{spec.name} runs everything that no deny/ask rule caught"
    if tool_name in READ_TOOLS:
        # documented: reads run without asking. Observed in 2.1.332: only inside the
        # working directories ("Claude requested permissions to read from /etc/hostname")
        outside = [
            p
            for p, _ in call_paths(tool_name, tool_input, cwd, home)
            if not spec.reads_anywhere and not inside(p, dirs)
        ]
        if outside:
            return None, f"reads outside the working directories: {', '.join(outside)}"
        return Behavior.ALLOW, f"{spec.name} runs reads without asking"
    if analysis is not None:
        return _bash_verdict(spec, analysis, cwd, home, dirs)
    if tool_name in EDIT_TOOLS and spec.edits is not Changes.UNDECIDED:
        return _edit_verdict(spec, tool_input, cwd, home, dirs)
    return None, f"{spec.name} has no default for {tool_name}"
