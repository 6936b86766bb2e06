"""Chapter 12: the article's summary table, built from experiments on the runtime.

:func:`experiment` runs one loop with an MCP server, a skill and counting hooks on four events
under a given model and returns what it observed; :func:`findings` turns the observations of
several models into the four facts the table rests on (which parts vary with the model);
:func:`summary_rows` builds the table's rows from those facts, the proposition checks and the
runtime's ``COMBINATION`` table, choosing each cell's words by the facts, so a different
result changes the words and the marks. Every word is a
:class:`~mcpmini.course.language.Text` of :data:`WORDS`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from ..language import Text
from .tables import frame

__all__ = [
    "SKILL_BODY",
    "WORDS",
    "experiment",
    "findings",
    "findings_lines",
    "observation_table",
    "summary_display",
    "summary_rows",
    "summary_table",
]

#: The body the chapter's skill returns when invoked (what "in context" looks for).
SKILL_BODY = "Checklist: tests added? errors handled? names clear?"

#: Every fixed text of the chapter's tables and lines.
WORDS: dict[str, Text] = {
    "model": Text("モデル", "model"),
    "model_calls": Text("モデルの呼び出し", "model calls"),
    "tool_calls": Text("求めたツール呼び出し", "tool calls asked for"),
    "executed": Text("実行された呼び出し", "calls executed"),
    "mcp_tools": Text("呼ばれた MCP ツール", "MCP tools called"),
    "skill_body": Text("スキルの本文が文脈に入った", "skill body in context"),
    "pre_tool_use": Text("PreToolUse の発火", "PreToolUse fired"),
    "user_prompt_submit": Text("UserPromptSubmit の発火", "UserPromptSubmit fired"),
    "stop": Text("Stop の発火", "Stop fired"),
    "pairing": Text("対応の不変条件", "pairing holds"),
    "bound": Text("T + 1 以内", "within T + 1"),
    "mcp_line": Text(
        "呼ばれた MCP ツールはモデルによって違う: {value}",
        "the MCP tools called vary with the model: {value}",
    ),
    "hooks_line": Text(
        "フックはループの構造だけで発火する: {value}",
        "the hooks fire by the loop's structure only: {value}",
    ),
    "skill_line": Text(
        "スキルの本文が文脈に入るかはモデルによって違う: {value}",
        "whether the skill body reaches the context varies with the model: {value}",
    ),
    "loop_line": Text(
        "対応の不変条件と T + 1 の上界はどのモデルでも成り立つ: {value}"
        "（モデルの呼び出し: {calls}）",
        "the pairing invariant and the T + 1 bound hold for every model: {value} "
        "(model calls: {calls})",
    ),
    # the summary table
    "mechanism": Text("仕組み", "mechanism"),
    "runner": Text("実行の主体", "who runs it"),
    "depends": Text("モデルの出力に依る部分", "what depends on the model's output"),
    "combination": Text("重なり方", "combination"),
    "props": Text("命題", "propositions"),
    "mcp": Text("MCP", "MCP"),
    "hooks": Text("フック", "hooks"),
    "skills": Text("スキル", "skills"),
    "plugins": Text("プラグイン", "plugins"),
    "sdk": Text("Agent SDK", "Agent SDK"),
    "mcp_runner": Text("サーバのプロセス", "the server's process"),
    "hooks_runner": Text("ハーネス", "the harness"),
    "skills_runner": Text(
        "モデル（本文を読んで従うかを決める）",
        "the model (it reads the body and decides whether to follow it)",
    ),
    "plugins_runner": Text("構成部品のそれぞれ", "each of its components"),
    "sdk_runner": Text("利用者のコード", "the user's code"),
    "depends_on": Text("依る：{what}", "depends: {what}"),
    "independent": Text("依らない", "does not depend"),
    "mcp_what": Text("呼ぶツールとその時機", "which tools are called, and when"),
    "skills_what": Text(
        "呼び出す時機と、本文に従うかどうか", "when it is invoked, and whether its body is followed"
    ),
    "hooks_fixed": Text(
        "依らない（いつ発火するかはループの形だけで決まる）",
        "does not depend (when they fire is fixed by the loop's shape alone)",
    ),
    "hooks_vary": Text("依る", "depends"),
    "plugins_parts": Text(
        "部品による（{parts} は依る、フックは依らない）",
        "per component ({parts} depend, hooks do not)",
    ),
    "loop_same": Text("ループの中身は変わらない", "the loop itself does not change"),
    "loop_broke": Text("ループが崩れた", "the loop broke"),
    "per_component": Text("部品ごと", "per component"),
    "list_sep": Text("、", ", "),
    "held": Text("✓", "✓"),
    "failed": Text("✗", "✗"),
}


def experiment(model: Any, *, max_turns: int = 2) -> dict[str, Any]:
    """One run of the loop under ``model`` with the ``add`` MCP server, a ``Skill`` tool whose
    result is :data:`SKILL_BODY`, and hooks that only count on UserPromptSubmit, PreToolUse,
    PostToolUse and Stop. Returns what was observed, keyed by identifiers."""
    from ...agent import AgentOptions, Tool, pairing_violations, run
    from ...hooks import HookMatcher
    from ...mcp import add_server

    skill = Tool(
        "Skill",
        "Load the review checklist skill for a code review.",
        {"type": "object", "properties": {"name": {"type": "string"}}},
        lambda inp: SKILL_BODY,
    )
    fired: Counter[str] = Counter()

    def count(event: str) -> Any:
        def hook(data: Any, tool_use_id: Any, context: Any) -> dict[str, Any]:
            fired[event] += 1
            return {}

        return hook

    hooks = {
        e: [HookMatcher(None if e in ("UserPromptSubmit", "Stop") else "*", [count(e)])]
        for e in ("UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")
    }
    options = AgentOptions(
        mcp_servers={"calc": add_server()},
        tools=[skill],
        hooks=hooks,
        allowed_tools=["mcp__calc__add", "Skill"],
        max_turns=max_turns,
    )
    r = run("Please add two numbers", model, options)
    calls = [
        b["name"]
        for m in r.messages
        if m["role"] == "assistant"
        for b in m["content"]
        if b["type"] == "tool_use"
    ]
    return {
        "model_calls": r.model_calls,
        "tool_calls": calls,
        "executed": sum(e.step.name == "TOOL_RUN" for e in r.events),
        "mcp_tools": sorted({c for c in calls if c.startswith("mcp__")}),
        "skill_body": any(SKILL_BODY in str(m["content"]) for m in r.messages),
        "pre_tool_use": fired["PreToolUse"],
        "user_prompt_submit": fired["UserPromptSubmit"],
        "stop": fired["Stop"],
        "pairing": pairing_violations(r.messages) == [],
        "bound": r.model_calls <= max_turns + 1,
    }


_OBSERVED = (
    "model_calls",
    "tool_calls",
    "executed",
    "mcp_tools",
    "skill_body",
    "pre_tool_use",
    "user_prompt_submit",
    "stop",
    "pairing",
    "bound",
)


def observation_table(observed: Mapping[str, Mapping[str, Any]]) -> Any:
    """The observations of :func:`experiment` per model name, one row each, labelled."""
    rows = [{"model": name, **values} for name, values in observed.items()]
    table = frame(rows, {"model": WORDS["model"], **{k: WORDS[k] for k in _OBSERVED}})
    return table.set_index(str(WORDS["model"]))


def findings(observed: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """What the observations of several models say: whether the MCP tools called vary with
    the model (``mcp_depends``), whether the hooks fired by the loop's structure alone — on
    every executed call, once per prompt — (``hooks_fixed``), whether the skill body reaching
    the context varies (``skill_depends``), and whether the pairing invariant and the T + 1
    bound held for every model (``loop_same``), with the model calls of each."""
    rows = list(observed.values())

    def varies(key: str) -> bool:
        return len({repr(r[key]) for r in rows}) > 1

    return {
        "mcp_depends": varies("mcp_tools"),
        "hooks_fixed": all(
            r["pre_tool_use"] == r["executed"] and r["user_prompt_submit"] == 1 for r in rows
        ),
        "skill_depends": varies("skill_body"),
        "loop_same": all(r["pairing"] and r["bound"] for r in rows),
        "model_calls": [r["model_calls"] for r in rows],
    }


def findings_lines(found: Mapping[str, Any]) -> list[str]:
    """:func:`findings` as 4 lines in words."""
    return [
        str(WORDS["mcp_line"].format(value=found["mcp_depends"])),
        str(WORDS["hooks_line"].format(value=found["hooks_fixed"])),
        str(WORDS["skill_line"].format(value=found["skill_depends"])),
        str(WORDS["loop_line"].format(value=found["loop_same"], calls=found["model_calls"])),
    ]


def _props(checks: Mapping[str, bool], *names: str) -> str:
    sep = str(WORDS["list_sep"])
    return sep.join(f"{n} {WORDS['held'] if checks.get(n) else WORDS['failed']}" for n in names)


def summary_rows(found: Mapping[str, Any], checks: Mapping[str, bool]) -> list[dict[str, Any]]:
    """The rows of the article's §8 table: per mechanism who runs it, what depends on the
    model's output (chosen by ``found``), how same-name definitions combine (the runtime's
    ``COMBINATION``), and the propositions behind it with ✓ where ``checks`` held."""
    from ...config import COMBINATION, Mechanism

    def depends(flag: bool, what: str) -> Text:
        return WORDS["depends_on"].format(what=WORDS[what]) if flag else WORDS["independent"]

    parts = [
        str(WORDS[name])
        for name, flag in (("mcp", found["mcp_depends"]), ("skills", found["skill_depends"]))
        if flag
    ]
    return [
        {
            "mechanism": WORDS["mcp"],
            "runner": WORDS["mcp_runner"],
            "depends": depends(found["mcp_depends"], "mcp_what"),
            "combination": COMBINATION[Mechanism.MCP_SERVERS].value,
            "props": _props(checks, "3.3", "3.4", "3.7", "3.8"),
        },
        {
            "mechanism": WORDS["hooks"],
            "runner": WORDS["hooks_runner"],
            "depends": WORDS["hooks_fixed" if found["hooks_fixed"] else "hooks_vary"],
            "combination": COMBINATION[Mechanism.HOOKS].value,
            "props": _props(checks, "4.3", "4.5"),
        },
        {
            "mechanism": WORDS["skills"],
            "runner": WORDS["skills_runner"],
            "depends": depends(found["skill_depends"], "skills_what"),
            "combination": COMBINATION[Mechanism.SKILLS].value,
            "props": _props(checks, "5.2"),
        },
        {
            "mechanism": WORDS["plugins"],
            "runner": WORDS["plugins_runner"],
            "depends": WORDS["plugins_parts"].format(parts=str(WORDS["list_sep"]).join(parts)),
            "combination": WORDS["per_component"],
            "props": _props(checks, "6.2"),
        },
        {
            "mechanism": WORDS["sdk"],
            "runner": WORDS["sdk_runner"],
            "depends": WORDS["loop_same" if found["loop_same"] else "loop_broke"],
            "combination": "—",
            "props": _props(checks, "7.1"),
        },
    ]


def summary_table(found: Mapping[str, Any], checks: Mapping[str, bool]) -> Any:
    """:func:`summary_rows` as a labelled ``DataFrame``."""
    keys = ("mechanism", "runner", "depends", "combination", "props")
    return frame(summary_rows(found, checks), {k: WORDS[k] for k in keys})


def summary_display(table: Any) -> dict[str, str]:
    """``table`` as the two forms a notebook shows: HTML (a pandas Styler, text left-aligned
    and wrapping) for the browser, and plain text whose columns line up even with full-width
    characters (``east_asian_width``) for terminals and headless runs. Pass the dict to
    ``display(..., raw=True)``."""
    import pandas as pd

    with pd.option_context(
        "display.unicode.east_asian_width",
        True,
        "display.width",
        250,
        "display.max_colwidth",
        80,
    ):
        plain = table.to_string(index=False)
    html = (
        table.style.hide(axis="index")
        .set_uuid("summary")
        .set_properties(**{"text-align": "left", "white-space": "normal"})
        .set_table_styles([{"selector": "th", "props": "text-align: left"}])
        .to_html()
    )
    return {"text/html": html, "text/plain": plain}
