"""What a class gets back: a feedback page per learner and exercise, and a gradebook CSV.

:func:`write_feedback` writes nbgrader's layout, ``feedback/<learner>/<assignment>/``: one
HTML page per exercise (``9_1.html`` …) with each part's question, the learner's answer,
✓/✗ and our Japanese feedback, the first hint where a part is not right, and the score —
plus an ``index.html`` listing the learner's exercises. :func:`write_gradebook` writes one
row per learner with a column per exercise and the total, as Moodle's and Canvas's grade
import take it (map the ``username`` column to the learner's login).

Rules of this module: every string that came from a learner (name, answer, feedback text
built from file names or exception messages) is escaped with :func:`html.escape` before it
reaches a page; a page carries a Content-Security-Policy that allows no script, so even a
missed escape runs nothing. Learner names used as folder names must pass
:func:`~mcpmini.course.classroom.roster.is_learner_name`; rows of other names are skipped
and returned. Every CSV cell goes through :func:`.spreadsheet.cell`.
"""

from __future__ import annotations

import csv
import html
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .execution import GradeRow, RowStatus
from .roster import is_learner_name
from .spreadsheet import cells

__all__ = ["page_name", "render_page", "write_feedback", "write_gradebook"]

_MARK = {"correct": "✓", "incorrect": "✗", "not_attempted": "・"}
_STATUS_JA = {
    RowStatus.GRADED: "採点済み",
    RowStatus.NOT_ATTEMPTED: "未提出・未回答",
    RowStatus.ERROR: "実行エラー",
    RowStatus.TIMEOUT: "時間切れ",
    RowStatus.INVALID: "ノートブックとして読めません",
    RowStatus.REFUSED: "採点対象外（シンボリックリンク）",
}
_STYLE = """body{font-family:sans-serif;max-width:50em;margin:2em auto;line-height:1.5}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:.3em .5em;
vertical-align:top;text-align:left}.correct{color:#176d2c}.incorrect{color:#b00020}
code{white-space:pre-wrap;word-break:break-all}"""


def page_name(exercise: str) -> str:
    """The page file of ``exercise`` (``"9.1"`` → ``"9_1.html"``)."""
    return exercise.replace(".", "_") + ".html"


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _document(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="ja"><head><meta charset="utf-8">\n'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">\n"
        f"<title>{_e(title)}</title><style>{_STYLE}</style></head>\n<body>\n{body}</body></html>\n"
    )


def render_page(row: GradeRow) -> str:
    """The HTML feedback page of one row (an exercise of one learner)."""
    from ..catalogue import get_exercise

    ex = get_exercise(row.exercise)
    head = (
        f"<h1>演習 {_e(ex.id)} {_e(ex.title)}</h1>\n"
        f"<p>受講者: <b>{_e(row.learner)}</b> ・ 得点: <b>{row.score} / {row.max_score}</b>"
        f" ・ 状態: {_e(_STATUS_JA[row.status])}</p>\n"
    )
    if row.status is not RowStatus.GRADED and row.answer is None:
        why = f"<p>採点メモ: <code>{_e(row.feedback)}</code></p>\n" if row.feedback else ""
        return _document(f"{ex.id} {row.learner}", head + why)
    report = ex.grade(row.answer)
    lines = ["<table><tr><th></th><th>問い</th><th>あなたの答え</th><th>フィードバック</th></tr>"]
    hint = ex.hints[0] if ex.hints else ""
    for part, result in zip(ex.parts, report.results, strict=True):
        found, value = ex.shown(part, row.answer)
        shown = (
            json.dumps(value, ensure_ascii=False) if found and value is not None else "（未回答）"
        )
        status = result.status.value
        note = _e(result.message) if status != "correct" else "正解です。"
        if status != "correct" and hint:
            note += f"<br><small>ヒント: {_e(hint)}</small>"
        lines.append(
            f'<tr class="{status}"><td>{_MARK[status]}</td><td><code>{_e(part.key)}</code>'
            f" {_e(part.prompt)}</td><td><code>{_e(shown)}</code></td><td>{note}</td></tr>"
        )
    lines.append("</table>")
    notes = "".join(f"<p>※ {_e(n)}</p>\n" for n in report.notes)
    memo = f"<p>採点メモ: <code>{_e(row.feedback)}</code></p>\n" if row.feedback else ""
    return _document(f"{ex.id} {row.learner}", head + "\n".join(lines) + "\n" + notes + memo)


def _index(learner: str, rows: list[GradeRow]) -> str:
    from ..catalogue import get_exercise

    items = "".join(
        f'<li><a href="{page_name(r.exercise)}">演習 {_e(r.exercise)} '
        f"{_e(get_exercise(r.exercise).title)}</a>: {r.score} / {r.max_score}</li>\n"
        for r in rows
    )
    total, top = sum(r.score for r in rows), sum(r.max_score for r in rows)
    body = f"<h1>{_e(learner)} さんのフィードバック</h1>\n<p>合計 {total} / {top}</p>\n<ul>\n"
    return _document(f"feedback {learner}", body + items + "</ul>\n")


def write_feedback(
    rows: Iterable[GradeRow], course: Path, *, assignment: str = "exercises"
) -> tuple[list[Path], list[GradeRow]]:
    """Write ``course/feedback/<learner>/<assignment>/`` pages for ``rows``.

    Returns the pages written and the rows skipped (no exercise, or a learner name that
    cannot be a folder). Raises ``OSError`` when a page cannot be written.
    """
    by: dict[str, list[GradeRow]] = {}
    skipped = []
    for row in rows:
        if not row.exercise or not is_learner_name(row.learner):
            skipped.append(row)
        else:
            by.setdefault(row.learner, []).append(row)
    written = []
    for learner, mine in sorted(by.items()):
        folder = course / "feedback" / learner / assignment
        folder.mkdir(parents=True, exist_ok=True)
        mine.sort(key=lambda r: r.exercise)
        for row in mine:
            written.append(_write(folder / page_name(row.exercise), render_page(row)))
        written.append(_write(folder / "index.html", _index(learner, mine)))
    return written, skipped


def _write(path: Path, text: str) -> Path:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path


def write_gradebook(rows: Iterable[GradeRow], out: Path) -> None:
    """Write the gradebook CSV: ``username``, one column per exercise (its score), ``total``
    and ``max_total``; one row per learner, sorted. Rows without an exercise are left out."""
    from ..catalogue import get_exercise

    scores: dict[str, dict[str, int]] = {}
    exercises: set[str] = set()
    for row in rows:
        if row.exercise:
            scores.setdefault(row.learner, {})[row.exercise] = row.score
            exercises.add(row.exercise)
    order = sorted(exercises)
    top = sum(get_exercise(e).max_score for e in order)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    with tmp.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["username", *(f"演習 {e}" for e in order), "total", "max_total"])
        for learner, got in sorted(scores.items()):
            marks = [got.get(e, 0) for e in order]
            writer.writerow(cells([learner, *marks, sum(marks), top]))
    os.replace(tmp, out)
