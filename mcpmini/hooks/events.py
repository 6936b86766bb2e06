"""The hook event catalogue (reference §1.2) as data.

One frozen :class:`EventSpec` per event owns everything that differs between events: the
input field its matcher reads, what exit code 2 does there (:class:`ExitTwo`), which output
fields carry a decision (:class:`DecisionField`), whether plain stdout becomes context,
whether ``if`` rules and ``onFailure`` apply, the default timeout of each handler type,
which handler types it accepts, and whether the article's §4.1 table lists it. The
outcome rules (:mod:`.outcomes`) and the runner read this table; no other module names an
event to decide behaviour.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ..errors import ConfigError
from .options import SETTINGS_TYPES, HandlerType, OnFailure

__all__ = [
    "ARTICLE_EVENTS",
    "CONTEXT_STDOUT_EVENTS",
    "DEFAULT_TIMEOUT",
    "EVENTS",
    "GATE_EVENT",
    "IF_EVENTS",
    "PERMISSION_EVENTS",
    "PROMPT_EVENT",
    "DecisionField",
    "EventSpec",
    "ExitTwo",
    "event_spec",
    "in_subagent",
]

DEFAULT_TIMEOUT = 600.0  # seconds, command / http / mcp_tool handlers
MODEL_TIMEOUTS = {HandlerType.PROMPT: 30.0, HandlerType.AGENT: 60.0}  # reference §1.8, any event


class ExitTwo(enum.StrEnum):
    """What exit code 2 (a blocking error) does on an event."""

    BLOCKS = "blocks"  # the action is stopped (or, for Stop, the stop is prevented)
    FEEDBACK = "feedback"  # cannot block; stderr is shown to Claude
    SHOWN = "shown"  # cannot block; stderr is shown to the user
    IGNORED = "ignored"  # cannot block; nothing happens

    def __str__(self) -> str:
        return self.value


class DecisionField(enum.StrEnum):
    """An output field an event reads a decision from (reference §1.2, §1.7)."""

    PERMISSION = "hookSpecificOutput.permissionDecision"  # allow / deny / ask / defer
    BEHAVIOR = "hookSpecificOutput.decision.behavior"  # allow / deny (PermissionRequest)
    BLOCK = "decision"  # top-level "block" with a reason
    LEGACY = "decision (approve / block)"  # deprecated PreToolUse form, maps to allow / deny

    def __str__(self) -> str:
        return self.value


ALL_TYPES = SETTINGS_TYPES
NO_MODEL_TYPES = frozenset({HandlerType.COMMAND, HandlerType.HTTP, HandlerType.MCP_TOOL})
_COMMAND_MCP = frozenset({HandlerType.COMMAND, HandlerType.MCP_TOOL})


@dataclass(frozen=True)
class EventSpec:
    """One row of the catalogue.

    ``matcher_field`` is the input field a matcher is tested against (``None``: the event
    has no matcher and one written there is ignored); ``narrow`` selects the narrower exact
    character set and ``match_basename`` matches the file name only; ``exit2`` is the
    effect of exit code 2 and ``effect`` the same in words; ``decisions`` the output fields
    that carry a decision; ``context_stdout`` whether plain stdout on exit 0 reaches Claude;
    ``if_evaluated`` whether a handler's ``if`` rule is read (elsewhere such a handler never
    runs); ``on_failure_ignored`` whether ``onFailure: "block"`` is ignored; ``timeout`` the
    default for command / http / mcp_tool handlers (:meth:`default_timeout`);
    ``timeout_blocks`` a timeout blocks like exit 2, ``callback_timeout_blocks`` an SDK
    callback's timeout does; ``nonzero_fails`` any nonzero exit fails the action;
    ``match_error_blocks`` a matcher that cannot be evaluated (or input that cannot be
    serialized) blocks; ``tool_use_id`` the input carries ``tool_use_id``.
    """

    name: str
    fires: str
    matcher_field: str | None
    exit2: ExitTwo
    effect: str
    article: bool = False
    on_failure_ignored: bool = False
    timeout: float = DEFAULT_TIMEOUT
    handler_types: frozenset[HandlerType] = ALL_TYPES
    narrow: bool = False
    decisions: frozenset[DecisionField] = frozenset()
    context_stdout: bool = False
    if_evaluated: bool = False
    timeout_blocks: bool = False
    callback_timeout_blocks: bool = False
    nonzero_fails: bool = False
    match_error_blocks: bool = False
    match_basename: bool = False
    tool_use_id: bool = False

    @property
    def can_block(self) -> bool:
        """True when exit 2 stops the event's action."""
        return self.exit2 is ExitTwo.BLOCKS

    def default_timeout(self, handler_type: HandlerType | str) -> float:
        """Seconds a handler of ``handler_type`` may run when it sets no ``timeout``."""
        return MODEL_TIMEOUTS.get(HandlerType(handler_type), self.timeout)

    def honours_block(self, on_failure: OnFailure | str | None) -> bool:
        """True when ``onFailure`` (``"block"``) turns a failure into a blocking error here.

        A failure under ``"block"`` then acts as exit 2 does on the event: it stops the action
        where exit 2 blocks, and where exit 2 is feedback (PostToolUse, PostToolUseFailure) it
        reaches Claude without undoing anything — observed in Claude Code 2.1.332, which sends
        "… hook blocking error …: failed; blocking because onFailure is "block"" and the stderr.
        """
        return (
            on_failure == OnFailure.BLOCK
            and not self.on_failure_ignored
            and self.exit2 in (ExitTwo.BLOCKS, ExitTwo.FEEDBACK)
        )


def _e(
    name: str, fires: str, field: str | None, exit2: ExitTwo, effect: str, **kw: object
) -> EventSpec:
    return EventSpec(name, fires, field, exit2, effect, **kw)  # type: ignore[arg-type]


B, F, S, N = ExitTwo.BLOCKS, ExitTwo.FEEDBACK, ExitTwo.SHOWN, ExitTwo.IGNORED
_TOOL = "tool_name"
_BLOCK = frozenset({DecisionField.BLOCK})

EVENTS: dict[str, EventSpec] = {
    spec.name: spec
    for spec in [
        _e(
            "SessionStart",
            "session started, resumed, cleared, compacted or forked",
            "source",
            S,
            "cannot block; stderr shown to the user",
            article=True,
            context_stdout=True,
            handler_types=_COMMAND_MCP,
        ),
        _e(
            "Setup",
            "--init-only, -p --init or -p --maintenance",
            "trigger",
            S,
            "cannot block",
            handler_types=_COMMAND_MCP,
        ),
        _e(
            "InstructionsLoaded",
            "CLAUDE.md or a rules file loaded",
            "load_reason",
            N,
            "ignored",
            handler_types=NO_MODEL_TYPES,
        ),
        _e(
            "UserPromptSubmit",
            "prompt submitted, before Claude reads it",
            None,
            B,
            "blocks the prompt and erases it",
            article=True,
            timeout=30.0,
            decisions=_BLOCK,
            context_stdout=True,
            callback_timeout_blocks=True,
        ),
        _e(
            "UserPromptExpansion",
            "a /command or MCP prompt expands",
            "command_name",
            B,
            "blocks the expansion",
            decisions=_BLOCK,
            context_stdout=True,
            callback_timeout_blocks=True,
        ),
        _e(
            "MessageDisplay",
            "assistant text streams",
            None,
            N,
            "original text shown",
            timeout=10.0,
            handler_types=NO_MODEL_TYPES,
        ),
        _e(
            "PreToolUse",
            "before a tool call runs",
            _TOOL,
            B,
            "blocks the call; stderr to Claude",
            article=True,
            decisions=frozenset({DecisionField.PERMISSION, DecisionField.LEGACY}),
            if_evaluated=True,
            callback_timeout_blocks=True,
            match_error_blocks=True,
            tool_use_id=True,
        ),
        _e(
            "PermissionRequest",
            "a permission prompt is about to appear",
            _TOOL,
            N,
            "not honored; flow unchanged",
            decisions=frozenset({DecisionField.BEHAVIOR}),
            if_evaluated=True,
            match_error_blocks=True,
        ),
        _e(
            "PermissionDenied",
            "auto mode denied a call",
            _TOOL,
            N,
            "ignored",
            if_evaluated=True,
            tool_use_id=True,
        ),
        _e(
            "PostToolUse",
            "after a tool call succeeded",
            _TOOL,
            F,
            "cannot block (the tool already ran); stderr to Claude",
            article=True,
            decisions=_BLOCK,
            if_evaluated=True,
            tool_use_id=True,
        ),
        _e(
            "PostToolUseFailure",
            "after a tool call failed",
            _TOOL,
            F,
            "stderr to Claude",
            decisions=_BLOCK,
            if_evaluated=True,
            tool_use_id=True,
        ),
        _e(
            "PostToolBatch",
            "after a batch of parallel calls",
            None,
            B,
            "stops the agentic loop",
            decisions=_BLOCK,
        ),
        _e(
            "Notification",
            "a notification is sent",
            "notification_type",
            N,
            "ignored",
            handler_types=NO_MODEL_TYPES,
        ),
        _e(
            "SubagentStart",
            "a subagent is spawned",
            "agent_type",
            S,
            "cannot block; stderr shown to the user",
            article=True,
            handler_types=NO_MODEL_TYPES,
        ),
        _e(
            "SubagentStop",
            "a subagent finished",
            "agent_type",
            B,
            "the subagent keeps running",
            article=True,
            on_failure_ignored=True,
            decisions=_BLOCK,
        ),
        _e(
            "TaskCreated", "TaskCreate tool", None, B, "task creation rolled back", decisions=_BLOCK
        ),
        _e(
            "TaskCompleted",
            "a task is marked complete",
            None,
            B,
            "task not marked complete",
            on_failure_ignored=True,
        ),
        _e(
            "Stop",
            "Claude finished responding",
            None,
            B,
            "Claude keeps going",
            article=True,
            on_failure_ignored=True,
            decisions=_BLOCK,
        ),
        _e(
            "StopFailure",
            "a turn ended by an API error",
            "error",
            N,
            "ignored",
            narrow=True,
            handler_types=NO_MODEL_TYPES,
        ),
        _e(
            "TeammateIdle",
            "a teammate is about to go idle",
            None,
            B,
            "the teammate keeps working",
            on_failure_ignored=True,
        ),
        _e(
            "ConfigChange",
            "a settings or skill file changed",
            "source",
            B,
            "blocks the change (never for policy_settings)",
            handler_types=NO_MODEL_TYPES,
            decisions=_BLOCK,
        ),
        _e(
            "CwdChanged",
            "working directory changed",
            None,
            N,
            "cannot block",
            handler_types=NO_MODEL_TYPES,
        ),
        _e(
            "DirectoryAdded",
            "/add-dir or register_repo_root",
            "source",
            N,
            "cannot block",
            handler_types=NO_MODEL_TYPES,
        ),
        _e(
            "FileChanged",
            "a watched file changed",
            "file_path",
            N,
            "cannot block",
            narrow=True,
            match_basename=True,
            handler_types=NO_MODEL_TYPES,
        ),
        _e(
            "WorktreeCreate",
            "a worktree is created",
            None,
            B,
            "any nonzero exit fails creation",
            nonzero_fails=True,
            handler_types=NO_MODEL_TYPES,
        ),
        _e(
            "WorktreeRemove",
            "a worktree is removed",
            None,
            N,
            "cannot block",
            handler_types=NO_MODEL_TYPES,
        ),
        _e(
            "PreCompact",
            "before compaction",
            "trigger",
            B,
            "blocks compaction",
            article=True,
            decisions=_BLOCK,
            handler_types=NO_MODEL_TYPES,
        ),
        _e(
            "PostCompact",
            "after compaction",
            "trigger",
            N,
            "cannot block",
            handler_types=NO_MODEL_TYPES,
        ),
        _e(
            "Elicitation",
            "an MCP server asks the user for input",
            "mcp_server_name",
            B,
            "denies the request",
            handler_types=NO_MODEL_TYPES,
        ),
        _e(
            "ElicitationResult",
            "after the user answers an elicitation",
            "mcp_server_name",
            B,
            "the action becomes decline",
            handler_types=NO_MODEL_TYPES,
        ),
        _e(
            "SessionEnd",
            "the session ends",
            "reason",
            N,
            "cannot block",
            handler_types=NO_MODEL_TYPES,
        ),
        _e(
            "PreModelSwitch",
            "before a requested model switch",
            "to_model",
            B,
            "blocks the switch; a timeout also blocks",
            timeout=30.0,
            decisions=frozenset({DecisionField.PERMISSION}),
            timeout_blocks=True,
            handler_types=NO_MODEL_TYPES,
        ),
        _e(
            "PostModelSwitch",
            "after the model changed",
            "to_model",
            N,
            "cannot block",
            timeout=30.0,
            context_stdout=True,
            handler_types=NO_MODEL_TYPES,
        ),
    ]
}

# The seven rows of the article's §4.1 table (SubagentStart/Stop share a row there).
ARTICLE_EVENTS: tuple[str, ...] = tuple(n for n, s in EVENTS.items() if s.article)

# Derived from the table, kept as names for the workbench and the notebooks.
PERMISSION_EVENTS = frozenset(
    n for n, s in EVENTS.items() if DecisionField.PERMISSION in s.decisions
)
CONTEXT_STDOUT_EVENTS = frozenset(n for n, s in EVENTS.items() if s.context_stdout)
IF_EVENTS = frozenset(n for n, s in EVENTS.items() if s.if_evaluated)


# The event whose hooks run before the permission gate (article Proposition 4.3).
GATE_EVENT = "PreToolUse"
#: The event that answers a permission prompt the gate would show (``hooks.decide``).
PROMPT_EVENT = "PermissionRequest"
# In subagent front matter a Stop hook is registered as SubagentStop (reference §1.1).
_IN_SUBAGENT = {"Stop": "SubagentStop"}


def in_subagent(name: str) -> str:
    """The event a hook written for ``name`` in subagent front matter is registered under."""
    return _IN_SUBAGENT.get(name, name)


def event_spec(name: str) -> EventSpec:
    """Return the catalogue row for ``name``; raise ``ConfigError`` for an unknown event."""
    try:
        return EVENTS[name]
    except KeyError:
        close = [n for n in EVENTS if n.lower() == name.lower()]
        hint = f" (did you mean {close[0]!r}? event names are case-sensitive)" if close else ""
        raise ConfigError(f"unknown hook event {name!r}{hint}") from None
