"""Chapters 08 and 11: the agent loop as the learner reads it — its events, the options of
:class:`mcpmini.agent.AgentOptions` beside the loop model, and the count of model calls over
several inputs (the article's caveat on streaming input and ``max_turns``).

:func:`events_table` turns a run's :attr:`~mcpmini.agent.RunResult.events` into a labelled
table (the step in words, the runtime's own detail kept as it is); :func:`options_table` reads
the fields of ``AgentOptions`` from the dataclass itself, so a new field without a row in
:data:`OPTION_ROLES` shows up (:func:`undescribed_options`); :func:`input_rows` runs one loop
per queued input and counts the model calls of each, against ``max_turns + 1``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..language import Text
from .tables import frame

__all__ = [
    "OPTION_ROLES",
    "SDK_OPTIONS",
    "STEP_WORDS",
    "events_table",
    "input_rows",
    "input_table",
    "limit_rows",
    "limit_table",
    "options_table",
    "undescribed_options",
]

#: Each step of the loop (``mcpmini.agent.Step``, by member name) in words.
STEP_WORDS: dict[str, Text] = {
    "USER_PROMPT_SUBMIT": Text("UserPromptSubmit フック", "UserPromptSubmit hooks"),
    "MODEL_CALL": Text("モデルの呼び出し", "model call"),
    "MALFORMED": Text("壊れた返事の修復", "malformed reply repaired"),
    "DEFINITION_LOADED": Text("ツール定義の追加", "tool definition appended"),
    "PRE_TOOL_USE": Text("PreToolUse フック", "PreToolUse hooks"),
    "PERMISSION": Text("関門", "permission gate"),
    "TOOL_RUN": Text("ツールの実行", "tool run"),
    "POST_TOOL_USE": Text("PostToolUse フック", "PostToolUse hooks"),
    "TRUNCATED": Text("結果の切り詰め", "result truncated"),
    "PAIRING_CHECK": Text("対応の検査", "pairing check"),
    "STOP": Text("Stop フック", "Stop hooks"),
}

_WORDS: dict[str, Text] = {
    "turn": Text("ターン", "turn"),
    "step": Text("段", "step"),
    "tool": Text("ツール", "tool"),
    "detail": Text("ランタイムの記録", "the runtime's record"),
    "option": Text("オプション", "option"),
    "default": Text("既定値", "default"),
    "in_sdk": Text("SDK にも同名", "same name in the SDK"),
    "role": Text("模型のどこ", "place in the loop model"),
    "input": Text("入力", "input"),
    "model_calls": Text("モデルの呼び出し", "model calls"),
    "turns": Text("ツール使用ターン", "tool-use turns"),
    "stop": Text("止まり方", "stop reason"),
    "bound": Text("上界 T + 1", "bound T + 1"),
    "mark": Text("✓", "✓"),
    "limit": Text("max_turns の値 T", "max_turns T"),
    "last_result": Text("最後の結果（ランタイムの文）", "last result (the runtime's words)"),
    "pairing": Text("対応の不変条件", "pairing holds"),
    "no_mark": Text("✗", "✗"),
}


def events_table(result: Any, replace: Mapping[str, str] | None = None) -> Any:
    """The events of one run as a labelled ``DataFrame``: turn, the step in words, the tool,
    and the runtime's detail as it recorded it, with each key of ``replace`` (a temporary
    folder, say) written as its value."""
    rows = []
    for event in result.events:
        detail = event.detail
        for old, new in (replace or {}).items():
            detail = detail.replace(old, new)
        rows.append(
            {
                "turn": event.turn,
                "step": STEP_WORDS.get(event.step.name, event.step.value),
                "tool": event.tool or "",
                "detail": detail,
            }
        )
    return frame(rows, {k: _WORDS[k] for k in ("turn", "step", "tool", "detail")})


#: What each field of ``AgentOptions`` decides in the loop model of the article.
OPTION_ROLES: dict[str, Text] = {
    "system_prompt": Text(
        "固定部分（毎回の要求の先頭）", "the fixed part (the head of every request)"
    ),
    "tools": Text(
        "ツール定義の集合と実行（組み込み・関数。SDK の tools は名前の一覧で、意味が違う）",
        "the tool definitions and their execution (built-in tools, functions; the SDK's "
        "tools is a list of names and means something else)",
    ),
    "mcp_servers": Text(
        "ツール定義の集合と実行（MCP サーバの分、mcp__<server>__<tool>）",
        "the tool definitions and their execution (those of MCP servers, mcp__<server>__<tool>)",
    ),
    "allowed_tools": Text(
        "関門：allow 規則（確認なしで実行）", "the gate: allow rules (run without asking)"
    ),
    "disallowed_tools": Text(
        "関門：deny 規則（名前が一致すればツール層からも外す）",
        "the gate: deny rules (a matching name also leaves the tool list)",
    ),
    "permission_mode": Text("関門：モードの既定", "the gate: the mode's default"),
    "hooks": Text(
        "関門の一部（PreToolUse）と前後の処理（UserPromptSubmit / PostToolUse / Stop）",
        "part of the gate (PreToolUse) and the steps around it "
        "(UserPromptSubmit / PostToolUse / Stop)",
    ),
    "max_turns": Text("ツール使用ターンの上限 T", "the bound T on tool-use turns"),
    "tool_choice": Text(
        "モデルへの指示（auto / any / 名前で指定）", "what the model is told (auto / any / a name)"
    ),
    "tool_search": Text(
        "ツール定義の遅延読み込み（06 章）", "deferred loading of tool definitions (chapter 06)"
    ),
    "max_result_tokens": Text(
        "結果の長さの上限（超えた分は切って保管）",
        "the cap on a result's length (the rest is cut and kept)",
    ),
    "results_dir": Text(
        "切った結果の全文の置き場所", "where the full text of a cut result is kept"
    ),
    "on_ask": Text(
        "関門が ask になったときに答える人の代わり（SDK の can_use_tool）",
        "who answers when the gate asks (the SDK's can_use_tool)",
    ),
    "tool_timeout": Text(
        "MCP ツールの応答待ちの上限（秒）", "how long to wait for an MCP tool (seconds)"
    ),
    "cwd": Text(
        "作業フォルダ（フックと権限の判定に渡す）",
        "the working folder (passed to hooks and the gate)",
    ),
    "env": Text("フックのプロセスに見せる環境変数", "the environment hook processes see"),
    "session_id": Text("フックの入力に入るセッション名", "the session name in the hooks' input"),
}

#: The fields of ``AgentOptions`` that ``ClaudeAgentOptions`` has under the same name.
SDK_OPTIONS = frozenset(
    {
        "system_prompt",
        "mcp_servers",
        "allowed_tools",
        "disallowed_tools",
        "permission_mode",
        "hooks",
        "max_turns",
        "cwd",
        "env",
    }
)


def _fields() -> list[dataclasses.Field[Any]]:
    from ...agent import AgentOptions

    return list(dataclasses.fields(AgentOptions))


def undescribed_options() -> list[str]:
    """The fields of ``AgentOptions`` that :data:`OPTION_ROLES` does not describe yet."""
    return [f.name for f in _fields() if f.name not in OPTION_ROLES]


def options_table() -> Any:
    """Every field of ``AgentOptions`` read from the dataclass: name, default, whether the
    SDK has it by the same name, and its place in the loop model. Raises ``LookupError``
    naming a field :data:`OPTION_ROLES` does not describe."""
    missing = undescribed_options()
    if missing:
        raise LookupError(f"AgentOptions fields without a role: {', '.join(missing)}")
    rows = []
    for f in _fields():
        missing_default = f.default is dataclasses.MISSING
        factory: Callable[[], Any] | None = (
            f.default_factory if f.default_factory is not dataclasses.MISSING else None
        )
        default = factory() if missing_default and factory is not None else f.default
        rows.append(
            {
                "option": f.name,
                "default": repr(default),
                "in_sdk": _WORDS["mark"] if f.name in SDK_OPTIONS else "",
                "role": OPTION_ROLES[f.name],
            }
        )
    return frame(rows, {k: _WORDS[k] for k in ("option", "default", "in_sdk", "role")})


def input_rows(
    inputs: Sequence[str],
    make_model: Callable[[], Any],
    options: Any,
) -> list[dict[str, Any]]:
    """One run of the loop per input of ``inputs``, as a program feeding queued messages one
    after the other would start them: the model calls and tool-use turns of each, its stop
    reason and the bound ``max_turns + 1`` it keeps. ``make_model`` gives the model of a run."""
    from ...agent import run

    rows = []
    for text in inputs:
        result = run(text, make_model(), options)
        limit = options.max_turns
        rows.append(
            {
                "input": text,
                "model_calls": result.model_calls,
                "turns": result.turns,
                "stop": result.stop_reason.value,
                "bound": limit + 1 if limit is not None else "-",
            }
        )
    return rows


def input_table(rows: Iterable[Mapping[str, Any]]) -> Any:
    """:func:`input_rows` as a labelled ``DataFrame``."""
    return frame(rows, {k: _WORDS[k] for k in ("input", "model_calls", "turns", "stop", "bound")})


def limit_rows(
    limits: Iterable[int],
    tool: str = "mcp__calc__add",
    tool_input: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Proposition 7.1 run for each ``max_turns`` of ``limits``: a model that always calls
    ``tool`` (the ``add`` server's, allowed), and what the run did — model calls, tool-use
    turns, the stop reason, the last tool result and whether the pairing invariant held."""
    from ...agent import AgentOptions, AlwaysToolModel, pairing_violations, run
    from ...mcp import add_server

    rows = []
    for limit in limits:
        model = AlwaysToolModel(tool, dict(tool_input or {"a": 1, "b": 1}))
        options = AgentOptions(
            mcp_servers={"calc": add_server()}, allowed_tools=[tool], max_turns=limit
        )
        result = run("add forever", model, options)
        last = result.messages[-1]["content"][0]
        paired = pairing_violations(result.messages) == []
        rows.append(
            {
                "limit": limit,
                "model_calls": result.model_calls,
                "turns": result.turns,
                "stop": result.stop_reason.value,
                "last_result": last.get("content", ""),
                "pairing": _WORDS["mark" if paired else "no_mark"],
            }
        )
    return rows


def limit_table(limits: Iterable[int]) -> Any:
    """:func:`limit_rows` as a labelled ``DataFrame``."""
    keys = ("limit", "model_calls", "turns", "stop", "last_result", "pairing")
    return frame(limit_rows(limits), {k: _WORDS[k] for k in keys})
