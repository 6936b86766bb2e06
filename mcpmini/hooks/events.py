"""The hook event catalogue (reference §1.2) as data.

One frozen :class:`EventSpec` per event: which input field its matcher reads, what exit
code 2 does there (:class:`ExitTwo`), whether ``onFailure`` is ignored, its default
timeout, which handler types it accepts, and whether the article's §4.1 table lists it.
The runner and the workbench read this table; nothing else hard-codes event behaviour.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ..errors import ConfigError

__all__ = [
    "ARTICLE_EVENTS",
    "CONTEXT_STDOUT_EVENTS",
    "DEFAULT_TIMEOUT",
    "EVENTS",
    "IF_EVENTS",
    "PERMISSION_EVENTS",
    "EventSpec",
    "ExitTwo",
    "event_spec",
]

DEFAULT_TIMEOUT = 600.0  # seconds, command / http / mcp_tool handlers


class ExitTwo(enum.Enum):
    """What exit code 2 (a blocking error) does on an event."""

    BLOCKS = "blocks"  # the action is stopped (or, for Stop, the stop is prevented)
    FEEDBACK = "feedback"  # cannot block; stderr is shown to Claude
    SHOWN = "shown"  # cannot block; stderr is shown to the user
    IGNORED = "ignored"  # cannot block; nothing happens


ALL_TYPES = frozenset({"command", "http", "mcp_tool", "prompt", "agent"})
NO_MODEL_TYPES = frozenset({"command", "http", "mcp_tool"})


@dataclass(frozen=True)
class EventSpec:
    """One row of the catalogue.

    ``matcher_field`` is the input field a matcher is tested against (``None``: the event
    has no matcher and one written there is ignored); ``narrow`` selects the narrower exact
    character set; ``exit2`` the effect of exit code 2 and ``effect`` the same in words.
    """

    name: str
    fires: str
    matcher_field: str | None
    exit2: ExitTwo
    effect: str
    article: bool = False
    on_failure_ignored: bool = False
    timeout: float = DEFAULT_TIMEOUT
    handler_types: frozenset[str] = ALL_TYPES
    narrow: bool = False

    @property
    def can_block(self) -> bool:
        """True when exit 2 stops the event's action."""
        return self.exit2 is ExitTwo.BLOCKS


def _e(
    name: str, fires: str, field: str | None, exit2: ExitTwo, effect: str, **kw: object
) -> EventSpec:
    return EventSpec(name, fires, field, exit2, effect, **kw)  # type: ignore[arg-type]


B, F, S, N = ExitTwo.BLOCKS, ExitTwo.FEEDBACK, ExitTwo.SHOWN, ExitTwo.IGNORED
_TOOL = "tool_name"

EVENTS: dict[str, EventSpec] = {
    spec.name: spec
    for spec in [
        _e("SessionStart", "session started, resumed, cleared, compacted or forked", "source", S,
           "cannot block; stderr shown to the user", article=True,
           handler_types=frozenset({"command", "mcp_tool"})),
        _e("Setup", "--init-only, -p --init or -p --maintenance", "trigger", S, "cannot block",
           handler_types=frozenset({"command", "mcp_tool"})),
        _e("InstructionsLoaded", "CLAUDE.md or a rules file loaded", "load_reason", N, "ignored",
           handler_types=NO_MODEL_TYPES),
        _e("UserPromptSubmit", "prompt submitted, before Claude reads it", None, B,
           "blocks the prompt and erases it", article=True, timeout=30.0),
        _e("UserPromptExpansion", "a /command or MCP prompt expands", "command_name", B,
           "blocks the expansion"),
        _e("MessageDisplay", "assistant text streams", None, N, "original text shown",
           timeout=10.0, handler_types=NO_MODEL_TYPES),
        _e("PreToolUse", "before a tool call runs", _TOOL, B, "blocks the call; stderr to Claude",
           article=True),
        _e("PermissionRequest", "a permission prompt is about to appear", _TOOL, N,
           "not honored; flow unchanged"),
        _e("PermissionDenied", "auto mode denied a call", _TOOL, N, "ignored"),
        _e("PostToolUse", "after a tool call succeeded", _TOOL, F,
           "cannot block (the tool already ran); stderr to Claude", article=True),
        _e("PostToolUseFailure", "after a tool call failed", _TOOL, F, "stderr to Claude"),
        _e("PostToolBatch", "after a batch of parallel calls", None, B, "stops the agentic loop"),
        _e("Notification", "a notification is sent", "notification_type", N, "ignored",
           handler_types=NO_MODEL_TYPES),
        _e("SubagentStart", "a subagent is spawned", "agent_type", S,
           "cannot block; stderr shown to the user", article=True, handler_types=NO_MODEL_TYPES),
        _e("SubagentStop", "a subagent finished", "agent_type", B, "the subagent keeps running",
           article=True, on_failure_ignored=True),
        _e("TaskCreated", "TaskCreate tool", None, B, "task creation rolled back"),
        _e("TaskCompleted", "a task is marked complete", None, B, "task not marked complete",
           on_failure_ignored=True),
        _e("Stop", "Claude finished responding", None, B, "Claude keeps going", article=True,
           on_failure_ignored=True),
        _e("StopFailure", "a turn ended by an API error", "error", N, "ignored",
           narrow=True, handler_types=NO_MODEL_TYPES),
        _e("TeammateIdle", "a teammate is about to go idle", None, B, "the teammate keeps working",
           on_failure_ignored=True),
        _e("ConfigChange", "a settings or skill file changed", "source", B,
           "blocks the change (never for policy_settings)", handler_types=NO_MODEL_TYPES),
        _e("CwdChanged", "working directory changed", None, N, "cannot block",
           handler_types=NO_MODEL_TYPES),
        _e("DirectoryAdded", "/add-dir or register_repo_root", "source", N, "cannot block",
           handler_types=NO_MODEL_TYPES),
        _e("FileChanged", "a watched file changed", "file_path", N, "cannot block", narrow=True,
           handler_types=NO_MODEL_TYPES),
        _e("WorktreeCreate", "a worktree is created", None, B, "any nonzero exit fails creation",
           handler_types=NO_MODEL_TYPES),
        _e("WorktreeRemove", "a worktree is removed", None, N, "cannot block",
           handler_types=NO_MODEL_TYPES),
        _e("PreCompact", "before compaction", "trigger", B, "blocks compaction", article=True,
           handler_types=NO_MODEL_TYPES),
        _e("PostCompact", "after compaction", "trigger", N, "cannot block",
           handler_types=NO_MODEL_TYPES),
        _e("Elicitation", "an MCP server asks the user for input", "mcp_server_name", B,
           "denies the request", handler_types=NO_MODEL_TYPES),
        _e("ElicitationResult", "after the user answers an elicitation", "mcp_server_name", B,
           "the action becomes decline", handler_types=NO_MODEL_TYPES),
        _e("SessionEnd", "the session ends", "reason", N, "cannot block",
           handler_types=NO_MODEL_TYPES),
        _e("PreModelSwitch", "before a requested model switch", "to_model", B,
           "blocks the switch; a timeout also blocks", timeout=30.0,
           handler_types=NO_MODEL_TYPES),
        _e("PostModelSwitch", "after the model changed", "to_model", N, "cannot block",
           timeout=30.0, handler_types=NO_MODEL_TYPES),
    ]
}

# The seven rows of the article's §4.1 table (SubagentStart/Stop share a row there).
ARTICLE_EVENTS: tuple[str, ...] = tuple(n for n, s in EVENTS.items() if s.article)

# Events whose success output carries a permission decision.
PERMISSION_EVENTS = frozenset({"PreToolUse", "PreModelSwitch"})
# Events where plain stdout on exit 0 becomes context for Claude.
CONTEXT_STDOUT_EVENTS = frozenset(
    {"UserPromptSubmit", "UserPromptExpansion", "SessionStart", "PostModelSwitch"}
)
# Events on which a handler's ``if`` rule is evaluated (elsewhere such a handler never runs).
IF_EVENTS = frozenset(
    {"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"}
)


def event_spec(name: str) -> EventSpec:
    """Return the catalogue row for ``name``; raise ``ConfigError`` for an unknown event."""
    try:
        return EVENTS[name]
    except KeyError:
        close = [n for n in EVENTS if n.lower() == name.lower()]
        hint = f" (did you mean {close[0]!r}? event names are case-sensitive)" if close else ""
        raise ConfigError(f"unknown hook event {name!r}{hint}") from None
