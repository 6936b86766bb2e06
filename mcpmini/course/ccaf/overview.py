"""The tables and lines of the CCA-F track's notebooks, in the learner's language.

Every heading and label is a :class:`~mcpmini.course.language.Text` row of :data:`COLUMNS`, so
the notebook's code is the same in both editions: the Japanese edition shows the Japanese
titles with the exam's English beside the terms that matter, the English one English only.
``pandas`` is imported when a table is built. :func:`servers_folder` finds the track's demo
servers from either edition's notebook folder, so the notebooks' code reads the same in both.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..glossary import load_glossary
from ..language import Lang, Text, current, say
from .bank import Bank
from .figures import figures
from .retries import simulate_retries
from .routing import routing_accuracy, selection_accuracy
from .scoring import QuizReport

__all__ = [
    "COLUMNS",
    "cell_table",
    "column",
    "domain_table",
    "exam_terms",
    "measurement_lines",
    "report_excerpt",
    "scenario_lines",
    "servers_folder",
    "task_table",
]

#: Where the track's demo servers live, relative to the repository.
SERVERS = Path("notebooks") / "ccaf" / "servers"


def servers_folder(start: Path | str | None = None) -> Path:
    """The folder of the track's demo servers (``notebooks/ccaf/servers``), found from
    ``start`` (default: the working folder) or the first folder above it that holds it —
    the Japanese notebooks run in ``notebooks/ccaf``, the English ones in
    ``en/notebooks/ccaf``. Raises :class:`FileNotFoundError` when none does."""
    here = Path.cwd() if start is None else Path(start)
    here = here.absolute()
    for place in (here, *here.parents):
        if (place / "servers").is_dir() and place.name == "ccaf":
            return place / "servers"
        if (place / SERVERS).is_dir():
            return place / SERVERS
    raise FileNotFoundError(f"no {SERVERS} in {here} or above")


#: Every column heading and fixed line of the overview's tables.
COLUMNS: dict[str, Text] = {
    "domain": Text("領域", "domain"),
    "title": Text("名前", "title"),
    "weight": Text("重み %", "weight %"),
    "task": Text("タスクステートメント", "task statement"),
    "number": Text("番号", "task"),
    "chapters": Text("教える章", "taught in"),
    "items": Text("問題数", "items"),
    "exam term": Text("試験の英語", "exam term"),
    "course term": Text("このコースの日本語", "this course's word"),
    "meaning": Text("説明", "what it means"),
    "routing": Text(
        "2.1 説明文だけで選ぶルーターの正解率（{n} 件の依頼）",
        "2.1 routing accuracy over {n} requests (description-based router)",
    ),
    "selection": Text(
        "2.3 持たせるツールの数と選択の正解率（種 {seeds} 通りずつ）",
        "2.3 selection accuracy against the number of tools held ({seeds} seeds each)",
    ),
    "selection row": Text(
        "  ツール {tools:>2} 個  平均 {mean:.1%}（最低 {low:.1%}、最高 {high:.1%}）、"
        "役割の外のツールに取られた {stolen:.1%}",
        "  {tools:>2} tools  mean {mean:.1%}  (min {low:.1%}, max {high:.1%}), "
        "taken by off-role tools {stolen:.1%}",
    ),
    "retries": Text(
        "2.2 障害を注入した {n} 件の依頼での再試行の結果（種 0）",
        "2.2 retry outcomes over {n} requests with injected faults (seed 0)",
    ),
    "tool": Text("ツール", "tool"),
    "description": Text("説明文（{version}）", "description ({version})"),
    "request count": Text("依頼 {n} 件", "{n} requests"),
    "routed": Text(
        "{name}: {total} 件のうち {hits} 件を正しく振り分け（{share:.0%}）、同点の判定 {ties} 件",
        "{name}: {hits}/{total} routed correctly ({share:.0%}), {ties} decisions were ties",
    ),
    "miss": Text(
        "  {request!r}: 正しくは {want}、選ばれたのは {got}",
        "  {request!r}: expected {want}, got {got}",
    ),
    "tool set": Text("版", "tool set"),
    "correct": Text("正解", "correct"),
    "requests": Text("依頼", "requests"),
    "accuracy %": Text("正解率 %", "accuracy %"),
    "ties": Text("同点", "ties"),
    "policy": Text("方針", "policy"),
    "tool calls": Text("ツール呼び出し", "tool calls"),
    "backoff wait (s)": Text("待ち（秒）", "backoff wait (s)"),
    "resolved": Text("理由つきで解決・引き継ぎ", "resolved or handed on with a reason"),
    "tools": Text("ツールの数", "tools"),
    "mean accuracy": Text("平均の正解率", "mean accuracy"),
    "min": Text("最低", "min"),
    "max": Text("最高", "max"),
    "taken": Text("役割の外のツールに取られた", "taken by an off-role tool"),
    "prompt": Text("依頼", "prompt"),
    "called": Text("呼ばれたツール", "called"),
    "text only": Text("（文章だけ）", "(text only)"),
    "small talk": Text("雑談", "small talk"),
    "billing mail": Text("請求のメール", "billing mail"),
    "retries row": Text(
        "  {policy:<10} ツール呼び出し {calls:>3}  待ち {wait:6.1f} 秒  "
        "理由の無い失敗で終わった {failed:>3}",
        "  {policy:<10} tool calls {calls:>3}  backoff {wait:6.1f} s  "
        "ended as a generic failure {failed:>3}",
    ),
}


def column(key: str, **values: Any) -> str:
    """The heading or fixed line ``key`` of :data:`COLUMNS` in the learner's language,
    formatted with ``values`` (the notebooks' table columns and labels come from here)."""
    return say(COLUMNS[key]).format(**values)


def _frame(rows: list[dict[str, Any]]) -> Any:
    import pandas as pd

    return pd.DataFrame(rows)


def _col(key: str) -> str:
    return say(COLUMNS[key])


def domain_table(bank: Bank) -> Any:
    """The five domains: number, title (with the exam's English in the Japanese edition),
    weight."""
    rows = []
    for d in bank.domains:
        title = d.title if current() is Lang.EN else f"{d.title_ja}（{d.title}）"
        rows.append({_col("domain"): d.id, _col("title"): title, _col("weight"): d.weight})
    return _frame(rows)


def scenario_lines(bank: Bank) -> list[str]:
    """One line per scenario: its id and its title in the learner's language."""
    return [f"{s.id:<13} {s.title}" for s in bank.scenarios]


def task_table(bank: Bank) -> Any:
    """The thirty task statements and the chapters that teach each."""
    return _frame(
        [
            {
                _col("number"): t.id,
                _col("task"): str(t.text),
                _col("chapters"): ", ".join(t.chapters) or "—",
            }
            for t in bank.tasks
        ]
    )


def cell_table(bank: Bank) -> Any:
    """Items per domain and per scenario (the cells a sitting draws from)."""
    per_domain = figures(bank).per_domain
    return _frame(
        [
            {
                _col("domain"): f"D{d.id}",
                _col("items"): per_domain[d.id],
                **{
                    s.id: sum(1 for it in bank.items if it.domain == d.id and it.scenario == s.id)
                    for s in bank.scenarios
                },
            }
            for d in bank.domains
        ]
    )


def _cell(text: str) -> str:
    return str(text).replace("\\", "\\\\").replace("$", "\\$").replace("|", "\\|")


def exam_terms() -> str:
    """The glossary's exam terms as a Markdown table: in Japanese, the exam's English beside
    the course's Japanese word and what it means; in English, the term and what it means."""
    entries = load_glossary()["exam"]
    if current() is Lang.EN:
        head = [f"| {_col('exam term')} | {_col('meaning')} |", "|---|---|"]
        return "\n".join(
            head + [f"| {_cell(e['en'])} | {_cell(e.get('note_en', ''))} |" for e in entries]
        )
    head = [
        f"| {_col('exam term')} | {_col('course term')} | {_col('meaning')} |",
        "|---|---|---|",
    ]
    rows = [f"| {_cell(e['en'])} | {_cell(e['ja'])} | {_cell(e['note'])} |" for e in entries]
    return "\n".join(head + rows)


def report_excerpt(report: QuizReport) -> list[str]:
    """The score, the first missed item as the report teaches it, and the table per
    scenario: what the overview shows of a graded sitting."""
    out = [*report.summary(), ""]
    sections = report.sections()
    misses = [lines for title, lines in sections if title.startswith("D")]
    if misses:
        first = misses[0]
        end = next((n for n in range(1, len(first)) if not first[n].startswith("    ")), None)
        out += first[:end]
    tables = [lines for title, lines in sections if not title.startswith("D")]
    if tables:
        out += ["", *tables[0]]
    return out


def measurement_lines(seeds: int = 20) -> list[str]:
    """What each notebook of the track measured, computed again (fixed seeds, so the same
    numbers every run): routing accuracy (2.1), selection accuracy against the number of
    tools (2.3), retry outcomes (2.2)."""
    from .routing import REQUESTS

    out = [say(COLUMNS["routing"]).format(n=len(REQUESTS))]
    for name in ("vague", "rewritten", "split"):
        r = routing_accuracy(name)
        out.append(f"  {name:<10} {r.hits:>2}/{r.total}  {r.accuracy:6.1%}")
    out += ["", say(COLUMNS["selection"]).format(seeds=seeds)]
    for row in selection_accuracy((5, 8, 12, 18), seeds=seeds):
        out.append(
            say(COLUMNS["selection row"]).format(
                tools=row["tools"],
                mean=row["accuracy"],
                low=row["min"],
                high=row["max"],
                stolen=row["stolen"],
            )
        )
    out += ["", say(COLUMNS["retries"]).format(n=200)]
    for policy in ("structured", "naive", "none"):
        s = simulate_retries(200, seed=0, policy=policy)
        failed = sum(n for (_, o), n in s.outcomes.items() if o.startswith("gave up"))
        out.append(
            say(COLUMNS["retries row"]).format(
                policy=policy, calls=s.calls, wait=s.wait_s, failed=failed
            )
        )
    return out
