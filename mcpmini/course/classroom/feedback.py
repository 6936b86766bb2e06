"""What a class gets back: a feedback page per learner and notebook, and a gradebook CSV.

:func:`write_feedback` writes nbgrader's layout, ``feedback/<learner>/<assignment>/``, in the
form nbgrader's ``release_feedback`` takes: one HTML page per submitted notebook, named after
it (``9_1_version_negotiation.html``: nbgrader's notebook id), with each part's question, the
learner's answer, ✓/✗ and the checker's feedback, the first hint where a part is not right,
the score and any late penalty; the submission's ``timestamp.txt`` and
``submission_secret.txt`` (copied from ``submitted/<learner>/<assignment>/``, or made when the
submission came without them); and an ``index.html`` listing the learner's notebooks.
:func:`write_gradebook` writes one row per learner and assignment with a column per exercise
and the total, as Moodle's and Canvas's grade import take it (map the ``username`` column to
the learner's login). :func:`return_feedback` copies the pages into each learner's hub home.

Every word on a page is in the learner's language (:mod:`mcpmini.course.language`): the
labels below, and the exercise's own titles, questions and feedback.

Rules of this module: every string that came from a learner (name, answer, feedback text
built from file names or exception messages) is escaped with :func:`html.escape` before it
reaches a page; a page carries a Content-Security-Policy that allows no script, so even a
missed escape runs nothing. Learner, assignment and notebook names used as folder or file
names must pass :func:`~mcpmini.course.classroom.roster.is_learner_name`,
:func:`~.assignments.is_assignment_name` and a safe-file check; rows of other names are
skipped and returned. Every CSV cell goes through :func:`.spreadsheet.cell`. Returning
feedback into homes never follows a link a learner planted: each folder is opened with
``O_NOFOLLOW`` relative to the one above it, and files are written through those handles.
"""

from __future__ import annotations

import csv
import html
import json
import os
import re
import secrets
import shutil
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..language import Text, current
from .assignments import is_assignment_name
from .execution import GradeRow, RowStatus
from .roster import is_learner_name
from .spreadsheet import cells

__all__ = [
    "WORDS",
    "page_name",
    "render_page",
    "return_feedback",
    "write_feedback",
    "write_gradebook",
]

#: Every fixed text of the pages and the gradebook, in both languages.
WORDS: dict[str, Text] = {
    "exercise": Text("演習 {id} {title}", "Exercise {id} {title}"),
    "learner": Text("受講者", "Learner"),
    "score": Text("得点", "Score"),
    "state": Text("状態", "Status"),
    "question": Text("問い", "Question"),
    "your_answer": Text("あなたの答え", "Your answer"),
    "feedback": Text("フィードバック", "Feedback"),
    "blank": Text("（未回答）", "(not answered)"),
    "correct": Text("正解です。", "Correct."),
    "hint": Text("ヒント", "Hint"),
    "memo": Text("採点メモ", "Grader's note"),
    "late": Text(
        "提出が締め切りより遅れました。遅れの減点 {penalty} 点（減点後 {points} / {max}）",
        "Handed in after the due date: late penalty {penalty} (after it {points} / {max})",
    ),
    "late_free": Text(
        "提出が締め切りより遅れました（この課題では減点なし）",
        "Handed in after the due date (no penalty for this assignment)",
    ),
    "index_title": Text(
        "{learner} さんのフィードバック（{assignment}）", "Feedback for {learner} ({assignment})"
    ),
    "total": Text("合計 {points} / {max}", "Total {points} / {max}"),
    "gradebook_exercise": Text("演習 {id}", "Exercise {id}"),
}
#: The words for a row's status on a page.
STATUS: dict[RowStatus, Text] = {
    RowStatus.GRADED: Text("採点済み", "graded"),
    RowStatus.NOT_ATTEMPTED: Text("未提出・未回答", "not handed in or not answered"),
    RowStatus.ERROR: Text("実行エラー", "error while running"),
    RowStatus.TIMEOUT: Text("時間切れ", "timed out"),
    RowStatus.INVALID: Text("ノートブックとして読めません", "not a readable notebook"),
    RowStatus.REFUSED: Text("採点対象外", "not graded"),
}
_MARK = {"correct": "✓", "incorrect": "✗", "not_attempted": "·"}
_STYLE = """body{font-family:sans-serif;max-width:50em;margin:2em auto;line-height:1.5}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:.3em .5em;
vertical-align:top;text-align:left}.correct{color:#176d2c}.incorrect{color:#b00020}
code{white-space:pre-wrap;word-break:break-all}"""
_SAFE_FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


def page_name(row: GradeRow) -> str:
    """The page file of a row: its notebook's name (nbgrader's notebook id) + ``.html``; for a
    row without one, the exercise id (``"9.1"`` → ``"9_1.html"``)."""
    stem = row.notebook or row.exercise.replace(".", "_")
    return f"{stem}.html"


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _document(title: str, body: str) -> str:
    return (
        f'<!DOCTYPE html>\n<html lang="{current().value}"><head><meta charset="utf-8">\n'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">\n"
        f"<title>{_e(title)}</title><style>{_STYLE}</style></head>\n<body>\n{body}</body></html>\n"
    )


def _late_line(row: GradeRow) -> str:
    if not row.late:
        return ""
    if row.penalty:
        text = WORDS["late"].format(penalty=row.penalty, points=row.points, max=row.max_score)
    else:
        text = WORDS["late_free"]
    return f"<p><b>{_e(text)}</b></p>\n"


def render_page(row: GradeRow) -> str:
    """The HTML feedback page of one row (a notebook of one learner)."""
    from ..catalogue import get_exercise
    from ..language import say

    ex = get_exercise(row.exercise)
    heading = WORDS["exercise"].format(id=ex.id, title=say(ex.title))
    head = (
        f"<h1>{_e(heading)}</h1>\n"
        f"<p>{_e(WORDS['learner'])}: <b>{_e(row.learner)}</b> · {_e(WORDS['score'])}: "
        f"<b>{row.points} / {row.max_score}</b> · {_e(WORDS['state'])}: "
        f"{_e(STATUS[row.status])}</p>\n" + _late_line(row)
    )
    memo = f"<p>{_e(WORDS['memo'])}: <code>{_e(row.feedback)}</code></p>\n" if row.feedback else ""
    if row.status is not RowStatus.GRADED and row.answer is None:
        return _document(f"{ex.id} {row.learner}", head + memo)
    report = ex.grade(row.answer)
    lines = [
        f"<table><tr><th></th><th>{_e(WORDS['question'])}</th>"
        f"<th>{_e(WORDS['your_answer'])}</th><th>{_e(WORDS['feedback'])}</th></tr>"
    ]
    hint = say(ex.hints[0]) if ex.hints else ""
    for part, result in zip(ex.parts, report.results, strict=True):
        found, value = ex.shown(part, row.answer)  # C.1: what each part judged, not a key
        shown = json.dumps(value, ensure_ascii=False) if found and value is not None else None
        status = result.status.value
        note = _e(result.message) if status != "correct" else _e(WORDS["correct"])
        if status != "correct" and hint:
            note += f"<br><small>{_e(WORDS['hint'])}: {_e(hint)}</small>"
        answer = f"<code>{_e(shown)}</code>" if shown is not None else _e(WORDS["blank"])
        lines.append(
            f'<tr class="{status}"><td>{_MARK[status]}</td><td><code>{_e(part.key)}</code>'
            f" {_e(say(part.prompt))}</td><td>{answer}</td><td>{note}</td></tr>"
        )
    lines.append("</table>")
    notes = "".join(f"<p>※ {_e(n)}</p>\n" for n in report.notes)
    return _document(f"{ex.id} {row.learner}", head + "\n".join(lines) + "\n" + notes + memo)


def _index(learner: str, assignment: str, rows: list[GradeRow]) -> str:
    from ..catalogue import get_exercise
    from ..language import say

    items = "".join(
        f'<li><a href="{_e(page_name(r))}">'
        f"{_e(WORDS['exercise'].format(id=r.exercise, title=say(get_exercise(r.exercise).title)))}"
        f"</a>: {r.points} / {r.max_score}</li>\n"
        for r in rows
    )
    total, top = sum(r.points for r in rows), sum(r.max_score for r in rows)
    title = WORDS["index_title"].format(learner=learner, assignment=assignment)
    body = f"<h1>{_e(title)}</h1>\n<p>{_e(WORDS['total'].format(points=total, max=top))}</p>\n"
    return _document(str(title), body + "<ul>\n" + items + "</ul>\n")


def _pageable(row: GradeRow) -> bool:
    return (
        bool(row.exercise)
        and is_learner_name(row.learner)
        and is_assignment_name(row.assignment)
        and _SAFE_FILE.fullmatch(page_name(row)) is not None
        and page_name(row) != "index.html"
    )


def _submission_files(course: Path, learner: str, assignment: str, folder: Path) -> None:
    """nbgrader's ``timestamp.txt`` and ``submission_secret.txt`` in the feedback ``folder``:
    the submission's own when it has them (a symbolic link is never read), else made here."""
    source = course / "submitted" / learner / assignment
    for name in ("timestamp.txt", "submission_secret.txt"):
        text = None
        place = source / name
        if place.is_file() and not place.is_symlink():
            text = place.read_text(encoding="utf-8", errors="replace")
        if text is None:
            if name == "timestamp.txt":
                text = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f %Z")
            else:
                text = secrets.token_hex(16)
        _write(folder / name, text)


def write_feedback(rows: Iterable[GradeRow], course: Path) -> tuple[list[Path], list[GradeRow]]:
    """Write ``course/feedback/<learner>/<assignment>/`` pages for ``rows`` (see the module).

    Returns the pages written and the rows skipped (no exercise, or a name that cannot be a
    folder or file). Raises ``OSError`` when a page cannot be written.
    """
    by: dict[tuple[str, str], list[GradeRow]] = {}
    skipped = []
    for row in rows:
        if not _pageable(row):
            skipped.append(row)
        else:
            by.setdefault((row.learner, row.assignment), []).append(row)
    written = []
    for (learner, assignment), mine in sorted(by.items()):
        folder = course / "feedback" / learner / assignment
        folder.mkdir(parents=True, exist_ok=True)
        mine.sort(key=lambda r: r.exercise)
        for row in mine:
            written.append(_write(folder / page_name(row), render_page(row)))
        written.append(_write(folder / "index.html", _index(learner, assignment, mine)))
        _submission_files(course, learner, assignment, folder)
    return written, skipped


def _write(path: Path, text: str) -> Path:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path


def write_gradebook(rows: Iterable[GradeRow], out: Path) -> None:
    """Write the gradebook CSV: ``username``, ``assignment``, one column per exercise (its
    points after any late penalty), ``penalty``, ``total`` and ``max_total``; one row per
    learner and assignment, sorted. ``max_total`` is the sum of the row maxima — what the
    learner's index page shows. Rows without an exercise are left out."""
    scores: dict[tuple[str, str], list[GradeRow]] = {}
    exercises: set[str] = set()
    for row in rows:
        if row.exercise:
            scores.setdefault((row.learner, row.assignment), []).append(row)
            exercises.add(row.exercise)
    order = sorted(exercises)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    with tmp.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        head = [str(WORDS["gradebook_exercise"].format(id=e)) for e in order]
        writer.writerow(["username", "assignment", *head, "penalty", "total", "max_total"])
        for (learner, assignment), mine in sorted(scores.items()):
            got = {r.exercise: r.points for r in mine}
            marks = [got.get(e, "") for e in order]
            writer.writerow(
                cells(
                    [
                        learner,
                        assignment,
                        *marks,
                        sum(r.penalty for r in mine),
                        sum(r.points for r in mine),
                        sum(r.max_score for r in mine),
                    ]
                )
            )
    os.replace(tmp, out)


def _open_dir(parent: int, name: str, uid: int, gid: int) -> int:
    """The folder ``name`` inside the open folder ``parent`` (made ``0700`` for ``uid`` when
    missing), opened without following a link. Raises ``OSError`` for a link or a file."""
    try:
        os.mkdir(name, 0o700, dir_fd=parent)
        os.chown(name, uid, gid, dir_fd=parent, follow_symlinks=False)
    except FileExistsError:
        pass
    return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=parent)


def _copy_into(dirfd: int, name: str, source: Path, uid: int, gid: int) -> None:
    tmp = f".{name}.{os.getpid()}.tmp"
    try:  # whatever a learner left under this name goes (unlink never follows a link)
        os.unlink(tmp, dir_fd=dirfd)
    except FileNotFoundError:
        pass
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    fd = os.open(tmp, flags, 0o600, dir_fd=dirfd)
    try:
        with os.fdopen(fd, "wb") as fh, source.open("rb") as src:
            shutil.copyfileobj(src, fh)
            os.fchown(fh.fileno(), uid, gid)
    except BaseException:
        os.unlink(tmp, dir_fd=dirfd)
        raise
    os.replace(tmp, name, src_dir_fd=dirfd, dst_dir_fd=dirfd)


def return_feedback(
    course: Path, homes: Path, *, assignment: str | None = None
) -> tuple[list[Path], list[str]]:
    """Copy ``course/feedback/<learner>/<assignment>/`` into each learner's hub home, as
    ``<homes>/<learner>/feedback/<assignment>/``, owned by the home's owner (the learner's
    OS account on a root hub) and readable by it alone. Only ``assignment`` when given.

    Returns the files written and, one line each, the learners skipped: no home, a home that
    is a link, a ``feedback`` folder a learner replaced with a link or a file. Raises
    ``FileNotFoundError`` when ``course/feedback`` is not a folder.
    """
    source = course / "feedback"
    if not source.is_dir():
        raise FileNotFoundError(f"no feedback to return: {source} is not a folder")
    written: list[Path] = []
    skipped: list[str] = []
    for learner_dir in sorted(p for p in source.iterdir() if p.is_dir() and not p.is_symlink()):
        learner = learner_dir.name
        if not is_learner_name(learner):
            continue
        home = homes / learner
        if home.is_symlink() or not home.is_dir():
            skipped.append(f"{learner}: no home folder {home}")
            continue
        owner = home.stat()
        top = os.open(home, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            try:
                base = _open_dir(top, "feedback", owner.st_uid, owner.st_gid)
            except OSError as exc:
                skipped.append(f"{learner}: {home / 'feedback'} is not a folder ({exc.strerror})")
                continue
            try:
                for folder in sorted(learner_dir.iterdir()):
                    name = folder.name
                    if folder.is_symlink() or not folder.is_dir() or not is_assignment_name(name):
                        continue
                    if assignment is not None and name != assignment:
                        continue
                    written += _return_one(base, folder, home / "feedback" / name, owner)
            except OSError as exc:
                skipped.append(f"{learner}: {exc.strerror or exc}")
            finally:
                os.close(base)
        finally:
            os.close(top)
    return written, skipped


def _return_one(base: int, folder: Path, target: Path, owner: os.stat_result) -> list[Path]:
    sub = _open_dir(base, folder.name, owner.st_uid, owner.st_gid)
    written = []
    try:
        for page in sorted(folder.iterdir()):
            if page.is_symlink() or not page.is_file() or not _SAFE_FILE.fullmatch(page.name):
                continue
            if page.name == "submission_secret.txt":
                continue  # the instructor's record of the submission, not the learner's
            _copy_into(sub, page.name, page, owner.st_uid, owner.st_gid)
            written.append(target / page.name)
    finally:
        os.close(sub)
    return written
