"""The instructor's guide (``notebooks/instructor/00_guide.ipynb``): its tables, from measurements.

Two files measured on the machine that runs the class feed it: ``run_times.json`` (each
notebook run top to bottom in a fresh kernel, by ``notebooks/instructor/measure_run_times.py``)
and ``class_times.json`` (a hub's learners logging in at once and the class graded, by
``bench/classroom.py``). :func:`run_table` and :func:`plan_table` turn the first into the
guide's tables — run times in seconds, as measured, for chapters and exercises alike — and
:func:`class_table` the second. The two workshop plans are data (:data:`PLANS`): each row a
notebook (or a break), the minutes given to explaining and working, and its label.

Every label and column name is a :class:`~mcpmini.course.language.Text`, given in the current
language; ``pandas`` is imported inside the functions.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..language import Text

__all__ = [
    "PLANS",
    "WORDS",
    "class_line",
    "class_table",
    "measurement_line",
    "plan_table",
    "read_measurement",
    "run_table",
]

#: The labels of the guide's tables.
WORDS: dict[str, Text] = {
    "seconds": Text("実行時間（秒）", "run time (s)"),
    "what": Text("内容", "what"),
    "notebook": Text("ノートブック", "notebook"),
    "minutes": Text("説明・演習（分）", "teaching and work (min)"),
    "run": Text("実行（秒）", "run (s)"),
    "measured": Text(
        "測定: CPU {cpus} 個、Python {python}、測定時のロードアベレージ {load}",
        "Measured on {cpus} CPUs, Python {python}, load average {load}",
    ),
    "stopped": Text(
        "エラーで止まったノートブック: {names}", "Notebooks that stopped on an error: {names}"
    ),
    "total": Text(
        "合計 約 {minutes:.0f} 分（うち実行 {run:.0f} 秒）",
        "About {minutes:.0f} minutes in all ({run:.0f} s of it running cells)",
    ),
    "class_measured": Text(
        "測定: CPU {cpus} 個、測定を始めたときのロードアベレージ {load}",
        "Measured on {cpus} CPUs, load average {load} when it began",
    ),
    "step": Text("段階", "step"),
    "learners": Text("受講者数", "learners"),
    "median": Text("中央値（秒）", "median (s)"),
    "slowest": Text("最長（秒）", "slowest (s)"),
    "all": Text("全体（秒）", "all (s)"),
    "spawn": Text("一斉ログインからサーバ起動まで", "logging in together until each server is up"),
    "grade": Text("クラス全員の採点（mcpmini grade）", "grading the whole class (mcpmini grade)"),
    "pause": Text("休憩", "break"),
    "lunch": Text("昼休み", "lunch"),
}

_E = "exercises/"
_N = "notebooks/"
#: The workshop plans: (notebook or ``None`` for a break, minutes, label).
PLANS: dict[str, tuple[tuple[str | None, int, Text], ...]] = {
    "three_hours": (
        (
            f"{_N}00_start_here.ipynb",
            15,
            Text("はじめに・環境の確認", "Start here, check the setup"),
        ),
        (
            f"{_N}01_extension_points.ipynb",
            15,
            Text("拡張ポイントの全体像", "The extension points"),
        ),
        (f"{_N}02_mcp_messages.ipynb", 20, Text("MCP のメッセージ", "MCP messages")),
        (f"{_N}03_mcp_versions.ipynb", 15, Text("版の交渉", "Version negotiation")),
        (f"{_E}9_1_version_negotiation.ipynb", 15, Text("演習 9.1", "Exercise 9.1")),
        (None, 10, WORDS["pause"]),
        (
            f"{_N}05_mcp_server_client.ipynb",
            20,
            Text("サーバとクライアントを書く", "A server and a client"),
        ),
        (f"{_N}07_hooks.ipynb", 25, Text("フック", "Hooks")),
        (f"{_E}9_3_hook_failure.ipynb", 15, Text("演習 9.3", "Exercise 9.3")),
        (f"{_N}12_summary.ipynb", 15, Text("まとめ・質疑", "Summary, questions")),
    ),
    "full_day": (
        (
            f"{_N}00_start_here.ipynb",
            20,
            Text("はじめに・環境の確認", "Start here, check the setup"),
        ),
        (
            f"{_N}01_extension_points.ipynb",
            20,
            Text("拡張ポイントの全体像", "The extension points"),
        ),
        (f"{_N}02_mcp_messages.ipynb", 25, Text("MCP のメッセージ", "MCP messages")),
        (
            f"{_N}02b_hosts_and_transports.ipynb",
            20,
            Text("ホストとトランスポート", "Hosts and transports"),
        ),
        (f"{_N}03_mcp_versions.ipynb", 20, Text("版の交渉", "Version negotiation")),
        (f"{_E}9_1_version_negotiation.ipynb", 20, Text("演習 9.1", "Exercise 9.1")),
        (f"{_N}04_mcp_tools_errors.ipynb", 25, Text("ツールとエラー", "Tools and errors")),
        (f"{_E}9_2_request_ids.ipynb", 20, Text("演習 9.2", "Exercise 9.2")),
        (None, 60, WORDS["lunch"]),
        (
            f"{_N}05_mcp_server_client.ipynb",
            30,
            Text("サーバとクライアントを書く", "A server and a client"),
        ),
        (
            f"{_N}06_mcp_in_claude_code.ipynb",
            25,
            Text("Claude Code の中の MCP", "MCP in Claude Code"),
        ),
        (f"{_N}07_hooks.ipynb", 25, Text("フック", "Hooks")),
        (f"{_N}07b_permission_gate.ipynb", 20, Text("権限のゲート", "The permission gate")),
        (
            f"{_N}08_hooks_vs_instructions.ipynb",
            20,
            Text("フックと指示の違い", "Hooks versus instructions"),
        ),
        (f"{_E}9_3_hook_failure.ipynb", 20, Text("演習 9.3", "Exercise 9.3")),
        (None, 15, WORDS["pause"]),
        (f"{_N}09_skills.ipynb", 25, Text("スキル", "Skills")),
        (f"{_E}9_4_skill_reattach.ipynb", 20, Text("演習 9.4", "Exercise 9.4")),
        (
            f"{_N}10_plugins_precedence.ipynb",
            20,
            Text("プラグインと優先順位", "Plugins and precedence"),
        ),
        (f"{_N}11_agent_sdk.ipynb", 25, Text("エージェント SDK", "The Agent SDK")),
        (
            f"{_N}12_summary.ipynb",
            20,
            Text("まとめ・採点結果の講評", "Summary, the graded results"),
        ),
    ),
}


def read_measurement(path: Path) -> dict[str, Any]:
    """A measurement file written by the guide's scripts. Raises ``OSError`` or
    ``ValueError`` when it cannot be read."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a measurement")
    return data


def measurement_line(measured: Mapping[str, Any]) -> str:
    """Where and when the run times were measured, and what stopped on an error."""
    stopped = sorted(r["notebook"] for r in measured["notebooks"] if r.get("error"))
    head = WORDS["measured"].format(
        cpus=measured["cpus"], python=measured["python"], load=measured["load_average"]
    )
    return f"{head}\n{WORDS['stopped'].format(names=stopped)}"


def class_line(measured: Mapping[str, Any]) -> str:
    """Where the class times (``class_times.json``) were measured."""
    return (
        WORDS["class_measured"].format(cpus=measured["cpus"], load=measured["load_average"]).lang()
    )


def run_table(measured: Mapping[str, Any]) -> Any:
    """A ``DataFrame`` of each notebook's run time in seconds, as measured."""
    import pandas as pd

    frame = pd.DataFrame(measured["notebooks"]).set_index("notebook")
    return frame[["seconds"]].rename(columns={"seconds": str(WORDS["seconds"])})


def plan_table(name: str, measured: Mapping[str, Any]) -> tuple[Any, str]:
    """The plan :data:`PLANS` ``name`` with each notebook's measured run time (seconds), and
    its total line. Raises ``KeyError`` for an unknown plan or a notebook without a time."""
    import pandas as pd

    seconds = {r["notebook"]: float(r["seconds"]) for r in measured["notebooks"]}
    rows = []
    for notebook, minutes, what in PLANS[name]:
        run = seconds[notebook] if notebook else 0.0
        rows.append(
            {
                str(WORDS["what"]): str(what),
                str(WORDS["notebook"]): notebook or "—",
                str(WORDS["minutes"]): minutes,
                str(WORDS["run"]): run,
            }
        )
    frame = pd.DataFrame(rows)
    run = frame[str(WORDS["run"])].sum()
    total = frame[str(WORDS["minutes"])].sum() + run / 60
    return frame, WORDS["total"].format(minutes=total, run=run).lang()


def class_table(measured: Mapping[str, Any]) -> Any:
    """A ``DataFrame`` of a class's measured spawn and grading times (``class_times.json``)."""
    import pandas as pd

    rows = []
    for key in ("spawn", "grade"):
        part = measured[key]
        times: Sequence[float] = sorted(part["seconds"])
        rows.append(
            {
                str(WORDS["step"]): str(WORDS[key]),
                str(WORDS["learners"]): part["learners"],
                str(WORDS["median"]): round(times[len(times) // 2], 1) if times else None,
                str(WORDS["slowest"]): round(times[-1], 1) if times else None,
                str(WORDS["all"]): round(part["total"], 1),
            }
        )
    return pd.DataFrame(rows).set_index(str(WORDS["step"]))
