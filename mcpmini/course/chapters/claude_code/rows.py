"""Side by side with mcpmini: each example's Claude Code answer beside the runtime's own
(chapters 06, 07, 09, 10, practice 04); nothing here decides a verdict itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .fixtures import SKILL_FILES, plugin_variants, server_entry
from .recording import Answer, through_claude_code
from .server import _text

__all__ = ["attack_rows", "large_result_rows", "mcp_tool_rows", "plugin_rows", "skill_listing_pair"]


def attack_rows(group: str | None = None, answer: Answer | None = None) -> list[dict[str, str]]:
    """Chapter 07's table (:func:`~.attacks.case_rows`) with a ``Claude Code <version>``
    column (``allow`` / ``ask`` / ``deny``, or Claude Code's own word) and ``agree``."""
    from ..attacks import PERMISSION_CASES, case_rows

    answer = answer or through_claude_code("permissions")
    column = f"Claude Code {answer.version}"
    rows = []
    for case, row, seen in zip(PERMISSION_CASES, case_rows(), answer.value, strict=True):
        if group is not None and case.group != group:
            continue
        verdict = str(seen["verdict"])
        if seen.get("cause") == "removed":
            verdict = "no such tool"
        agree = (
            "—" if seen.get("cause") == "not_run" else "yes" if verdict == row["actual"] else "NO"
        )
        rows.append({**row, column: verdict, "agree": agree})
    return rows


def mcp_tool_rows(answer: Answer | None = None) -> list[dict[str, Any]]:
    """The chapter server's tools: mcpmini's inventory (names, deferred or not) beside what
    Claude Code sent, for the default and for ``ENABLE_TOOL_SEARCH=false``."""
    from ....config.inventory import deferred_names, take_inventory
    from ....config.precedence import Resolved

    answer = answer or through_claude_code("mcp_tools")
    inv = take_inventory({"course": Resolved("course", server_entry(), "project")}, timeout=20)
    rows = []
    for label, setting in (("default", None), ("upfront", "false")):
        seen = answer.value[label]
        deferred = set(deferred_names(inv, setting))
        for tool in inv.tools:
            claude = (
                "deferred"
                if tool.name in seen["deferred"]
                else "sent"
                if tool.name in seen["tools"]
                else "absent"
            )
            rows.append(
                {
                    "ENABLE_TOOL_SEARCH": setting or "(unset)",
                    "tool": tool.name,
                    "mcpmini": "deferred" if tool.name in deferred else "sent",
                    f"Claude Code {answer.version}": claude,
                    "chars sent": seen["tool_chars"].get(tool.name, 0),
                }
            )
    return rows


def large_result_rows(answer: Answer | None = None) -> list[dict[str, Any]]:
    """Per result size: mcpmini's :func:`~mcpmini.agent.registry.result_fate` and the
    course host's kept prefix beside what Claude Code showed the model."""
    from ....agent.registry import result_fate

    answer = answer or through_claude_code("large_result")
    rows = []
    for seen in answer.value:
        text = _text(int(seen["chars"]))
        rows.append(
            {
                "result chars": seen["chars"],
                "mcpmini result_fate": result_fate(text).value,
                f"Claude Code {answer.version}": seen["fate"],
                "chars shown to the model": seen["shown_chars"],
            }
        )
    return rows


def plugin_rows(answer: Answer | None = None) -> list[dict[str, Any]]:
    """Per variant of :func:`plugin_variants`: ``mcpmini plugin validate``'s problems beside
    ``claude plugin validate --json``'s (severity, path, message), and both exit verdicts."""
    import tempfile

    from ....config.validation import validate

    answer = answer or through_claude_code("plugin_validate")
    rows: list[dict[str, Any]] = []
    for label, files in plugin_variants().items():
        with tempfile.TemporaryDirectory(prefix="mcpmini-ch10-") as tmp:
            root = Path(tmp) / "p"
            for rel, text in files.items():
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_text(text, encoding="utf-8")
            report = validate(root)
            mine = [f"{p.severity.value} {p.path or '-'}: {p.message}" for p in report.problems]
        seen = answer.value[label]
        claude = []
        blocks = [seen["report"].get("manifest") or {}, *(seen["report"].get("contents") or [])]
        for block in blocks:
            for key, severity in (("errors", "error"), ("warnings", "warning")):
                for item in block.get(key) or []:
                    claude.append(
                        f"{severity} {item.get('path') or '-'}: {item.get('message', '')}"
                    )
        rows.append(
            {
                "plugin": label,
                "mcpmini ok": report.success,
                f"Claude Code {answer.version} ok": seen["exit_code"] == 0,
                "mcpmini problems": mine,
                f"Claude Code {answer.version} problems": claude,
            }
        )
    return rows


def skill_listing_pair(answer: Answer | None = None) -> tuple[str, str]:
    """mcpmini's listing message for :data:`SKILL_FILES` and Claude Code's (as shown)."""
    from ....skills import build_listing, parse_skill

    answer = answer or through_claude_code("skill_listing")
    skills = [parse_skill(text, name=name) for name, text in SKILL_FILES.items()]
    mine = build_listing(skills).message
    return mine, str(answer.value)
