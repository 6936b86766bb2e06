"""The CCA-F chapter's closing self-check: what the learner ticks, and what backs each tick.

Each :data:`CHECKLIST` item names the parts of exercise C.1 (key prefixes) and the quiz's task
statements that back it. :func:`checklist_gaps` says, per item, which checks do not pass yet —
a failing C.1 part, or a task statement answered below 70 % or not at all in the progress
file (:func:`quiz_tasks`) — and :func:`checklist_lines` prints one line per item in the
learner's language, marking a tick that no passing check backs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...errors import ConfigError
from ..grading import Status
from ..language import Text, say
from ..progress import load_progress, progress_path

__all__ = ["CHECKLIST", "ChecklistItem", "checklist_gaps", "checklist_lines", "quiz_tasks"]


@dataclass(frozen=True)
class ChecklistItem:
    """One item of the closing self-check: its ``key``, the ``text`` the learner ticks, and
    what backs it: parts of C.1 (key prefixes) and/or CCA-F task statements of the quiz."""

    key: str
    text: Text
    parts: tuple[str, ...] = ()
    tasks: tuple[str, ...] = ()


CHECKLIST: tuple[ChecklistItem, ...] = (
    ChecklistItem(
        "docstring",
        Text(
            "FastMCP（公式 SDK）や mcpmini のデコレータで、docstring がそのままツールの説明文に"
            "なることを説明できる",
            "I can explain how, with FastMCP (the official SDK) or mcpmini's decorator, a "
            "docstring becomes the tool's description as it is",
        ),
        parts=("get_weather.inputs", "get_weather_history.inputs"),
    ),
    ChecklistItem(
        "boundary",
        Text(
            "説明文の 4 つの要素（目的・入力の形と例・例外的な場合・境界）を挙げ、境界の一文が"
            "取り違えを防ぐ理由を説明できる",
            "I can name the four parts of a description (purpose, input format and examples, "
            "edge cases, boundaries) and explain why a boundary sentence prevents misrouting",
        ),
        parts=("get_weather.boundary", "get_weather_history.boundary", "routing."),
        tasks=("2.1",),
    ),
    ChecklistItem(
        "first_fix",
        Text(
            "ツールの取り違えに対する最初の一手が説明文の充実であり、few-shot・振り分けの層・"
            "ツールの統合ではない理由を説明できる",
            "I can explain why the first fix for tool misrouting is a fuller description, not "
            "few-shot examples, a routing layer or merging tools",
        ),
        tasks=("2.1",),
    ),
    ChecklistItem(
        "errors",
        Text(
            "一時的・入力の検証・業務の規則・権限のエラーを区別し、正常な空の結果をエラーにしない"
            "理由を説明できる",
            "I can tell transient, validation, business-rule and permission errors apart, and "
            "explain why a valid empty result is not an error",
        ),
        tasks=("2.2",),
    ),
    ChecklistItem(
        "tool_choice",
        Text(
            "tool_choice の auto・any・名前の指定の違いと、1 体に渡すツールを絞る理由を説明できる",
            "I can explain the difference between tool_choice auto, any and a named tool, and "
            "why one agent should hold few tools",
        ),
        tasks=("2.3",),
    ),
    ChecklistItem(
        "scopes",
        Text(
            ".mcp.json（チームで共有）と ~/.claude.json（自分だけ）の使い分けと、秘密を ${VAR} で"
            "渡す理由を説明できる",
            "I can explain when to use .mcp.json (shared with the team) and ~/.claude.json (only "
            "mine), and why secrets come through ${VAR}",
        ),
        parts=("mcp_json.",),
        tasks=("2.4",),
    ),
    ChecklistItem(
        "builtin",
        Text(
            "Grep（中身）と Glob（名前）の使い分けと、Edit が失敗したときの Read＋Write を説明"
            "できる",
            "I can explain when to use Grep (contents) and Glob (names), and Read + Write when "
            "an Edit fails",
        ),
        tasks=("2.5",),
    ),
)

_EXERCISE_GAP = Text("演習 C.1 の {parts}", "exercise C.1: {parts}")
_QUIZ_GAP = Text("問題集の {task}（{correct}/{total}）", "quiz {task} ({correct}/{total})")
_STATES = {
    "backed": Text("裏付けあり", "backed"),
    "unbacked": Text("まだ裏付けなし: {gaps}", "not backed yet: {gaps}"),
    "open": Text("未チェック（確かめるもの: {gaps}）", "not ticked (to check: {gaps})"),
}
_JOIN = Text("、", "; ")


def _backed(item: ChecklistItem, report: Any, quiz_tasks: Mapping[str, Any]) -> list[Text]:
    """What still does not back ``item``: failing C.1 parts and task statements of the quiz
    answered below 70 % or not at all (an empty list: every check passes)."""
    gaps = []
    if item.parts:
        results = list(getattr(report, "results", ()) or ())
        mine = [r for r in results if any(r.key.startswith(p) for p in item.parts)]
        if not mine or any(r.status is not Status.CORRECT for r in mine):
            names = [p.rstrip(".") for p in item.parts]
            gaps.append(
                Text(
                    _EXERCISE_GAP.ja.format(parts="・".join(names)),
                    _EXERCISE_GAP.en.format(parts=", ".join(names)),
                )
            )
    for task in item.tasks:
        entry = quiz_tasks.get(task) or {}
        total, correct = int(entry.get("total", 0)), int(entry.get("correct", 0))
        if not total or correct / total < 0.7:
            gaps.append(_QUIZ_GAP.format(task=task, correct=correct, total=total))
    return gaps


def quiz_tasks(environ: Mapping[str, str]) -> Mapping[str, Any]:
    """The progress file's per-task-statement quiz totals (``quiz.tasks``), read from the file
    :func:`~mcpmini.course.progress_path` finds in ``environ``; ``{}`` when there is none or
    it cannot be read."""
    try:
        path = progress_path(environ)
        if path is None or not path.exists():
            return {}
        tasks = load_progress(path).get("quiz", {}).get("tasks", {})
    except (OSError, ConfigError):
        return {}
    return tasks if isinstance(tasks, Mapping) else {}


def checklist_gaps(
    report: Any = None, quiz_tasks: Mapping[str, Any] | None = None
) -> dict[str, list[str]]:
    """Per :data:`CHECKLIST` item, the checks that do not pass yet (an empty list: backed),
    in the learner's language."""
    return {
        item.key: [say(g) for g in _backed(item, report, quiz_tasks or {})] for item in CHECKLIST
    }


def checklist_lines(
    ticked: Mapping[str, bool], report: Any = None, quiz_tasks: Mapping[str, Any] | None = None
) -> list[str]:
    """One line per :data:`CHECKLIST` item: ☑ / ☐ as the learner ticked it, and whether a
    passing check backs it, in the learner's language. ``report`` is C.1's
    :class:`~mcpmini.course.Report` (or ``None``); ``quiz_tasks`` the progress file's
    ``quiz.tasks`` (a task statement counts when 70 % of its items were right). A ticked item
    without a passing check says "not backed yet" with what is missing."""
    lines = []
    for item in CHECKLIST:
        mark = "☑" if ticked.get(item.key) is True else "☐"
        gaps = _backed(item, report, quiz_tasks or {})
        joined = Text(_JOIN.ja.join(g.ja for g in gaps), _JOIN.en.join(g.en for g in gaps))
        if not gaps:
            state = _STATES["backed"]
        else:
            row = _STATES["unbacked" if mark == "☑" else "open"]
            state = Text(row.ja.format(gaps=joined.ja), row.en.format(gaps=joined.en))
        lines.append(f"{mark} {item.key}: {say(item.text)} — {say(state)}")
    return lines
