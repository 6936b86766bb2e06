"""The agent loop's map (notebooks 00 and 01): each step of a run named in the learner's
language, and which of the six extension mechanisms each recorded event comes from.

A run of :func:`mcpmini.agent.run` records its :class:`~mcpmini.agent.LoopEvent` list; every
event has a :class:`~mcpmini.agent.Step`. :data:`STEPS` names each step (one
:class:`~mcpmini.course.language.Text` row per member), :data:`MECHANISMS` names the six
mechanisms and the loop's own parts, :func:`mechanism_of` tells which one an event belongs to
(a hook step is a hook, the permission step the gate, a tool run the mechanism that provided
the tool, anything else the loop), and :func:`timeline` / :func:`mechanism_counts` put a whole
run in a table (``pandas`` imported inside them).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ...agent import LoopEvent, RunResult, Step
from ..language import Text

__all__ = [
    "COLUMNS",
    "MECHANISMS",
    "STEPS",
    "mechanism_counts",
    "mechanism_of",
    "step_name",
    "step_names",
    "timeline",
]

#: Every step of the loop in the learner's language (the English is the runtime's own name).
STEPS: dict[Step, Text] = {
    Step.USER_PROMPT_SUBMIT: Text("UserPromptSubmit フック", Step.USER_PROMPT_SUBMIT.value),
    Step.MODEL_CALL: Text("モデルの呼び出し", Step.MODEL_CALL.value),
    Step.MALFORMED: Text("崩れた返答の修復", Step.MALFORMED.value),
    Step.DEFINITION_LOADED: Text("ツール定義の追記", Step.DEFINITION_LOADED.value),
    Step.PRE_TOOL_USE: Text("PreToolUse フック", Step.PRE_TOOL_USE.value),
    Step.PERMISSION: Text("関門（権限）", Step.PERMISSION.value),
    Step.TOOL_RUN: Text("ツールの実行", Step.TOOL_RUN.value),
    Step.POST_TOOL_USE: Text("PostToolUse フック", Step.POST_TOOL_USE.value),
    Step.TRUNCATED: Text("結果の切り詰め", Step.TRUNCATED.value),
    Step.PAIRING_CHECK: Text("対応の検査", Step.PAIRING_CHECK.value),
    Step.STOP: Text("Stop フック", Step.STOP.value),
}

#: The six mechanisms of chapter 01 and the parts of the loop itself, by key.
MECHANISMS: dict[str, Text] = {
    "sdk": Text("Agent SDK（呼び出し側）", "Agent SDK (the caller)"),
    "hook": Text("フック", "hook"),
    "gate": Text("関門（権限）", "permission gate"),
    "loop": Text("ループ本体", "the loop itself"),
    "builtin": Text("組み込みツール", "built-in tool"),
    "mcp": Text("MCP サーバ", "MCP server"),
    "plugin_mcp": Text("MCP サーバ（プラグイン由来）", "MCP server (from the plugin)"),
    "skill": Text("スキル", "skill"),
    "plugin_skill": Text("スキル（プラグイン由来）", "skill (from the plugin)"),
    "subagent": Text("サブエージェント", "subagent"),
}

#: The columns of :func:`timeline`.
COLUMNS: dict[str, Text] = {
    "turn": Text("ターン", "turn"),
    "step": Text("段", "step"),
    "tool": Text("ツール", "tool"),
    "mechanism": Text("仕組み", "mechanism"),
}

_HOOK_STEPS = frozenset({Step.USER_PROMPT_SUBMIT, Step.PRE_TOOL_USE, Step.POST_TOOL_USE, Step.STOP})
#: What the caller's own line of the timeline shows in the step column (it is code).
CALLER = "run(prompt, model, options)"


def step_name(step: Step) -> str:
    """``step`` in the learner's language."""
    return str(STEPS[step])


def step_names(events: Iterable[LoopEvent]) -> str:
    """The steps of ``events`` in order, joined by arrows (one line for a short run)."""
    return " → ".join(step_name(e.step) for e in events)


def mechanism_of(event: LoopEvent, origin: Mapping[str, str]) -> str:
    """The key in :data:`MECHANISMS` of the mechanism ``event`` belongs to.

    ``origin`` maps a tool name to the key of the mechanism that provides it (an MCP server,
    a skill, a subagent); a tool it does not name is a built-in tool. Raises ``KeyError``
    for an ``origin`` value that is not a key of :data:`MECHANISMS`.
    """
    if event.step in _HOOK_STEPS:
        return "hook"
    if event.step is Step.PERMISSION:
        return "gate"
    if event.step is Step.TOOL_RUN:
        key = origin.get(event.tool or "", "builtin")
        if key not in MECHANISMS:
            raise KeyError(f"{key!r} is not a mechanism; use one of {', '.join(MECHANISMS)}")
        return key
    return "loop"


def timeline(result: RunResult, origin: Mapping[str, str]) -> Any:
    """The run as a ``pandas.DataFrame``: the caller's line, then one row per event with its
    turn, step, tool and mechanism (:func:`mechanism_of`), columns named by :data:`COLUMNS`."""
    import pandas as pd

    rows = [{"turn": 0, "step": CALLER, "tool": "", "mechanism": str(MECHANISMS["sdk"])}]
    rows += [
        {
            "turn": e.turn,
            "step": step_name(e.step),
            "tool": e.tool or "",
            "mechanism": str(MECHANISMS[mechanism_of(e, origin)]),
        }
        for e in result.events
    ]
    return pd.DataFrame(rows).rename(columns={k: str(v) for k, v in COLUMNS.items()})


def mechanism_counts(result: RunResult, origin: Mapping[str, str]) -> Any:
    """How many lines of :func:`timeline` each mechanism has (a ``pandas.Series`` named by
    the mechanism column, in :data:`MECHANISMS` order; mechanisms with no line left out)."""
    import pandas as pd

    table = timeline(result, origin)
    counts = table[str(COLUMNS["mechanism"])].value_counts()
    order = [str(m) for m in MECHANISMS.values() if str(m) in counts.index]
    return pd.Series([int(counts[m]) for m in order], index=order, name=str(COLUMNS["mechanism"]))
