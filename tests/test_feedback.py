"""Feedback for a class: a page per learner and exercise in nbgrader's ``feedback/`` layout
(every learner string escaped, no script allowed), and a gradebook CSV an LMS imports."""

from __future__ import annotations

import csv
import html
import json
from pathlib import Path

from mcpmini.course import get_exercise
from mcpmini.course.classroom import (
    GradeRow,
    RowStatus,
    answers_path,
    read_grades,
    render_page,
    write_csv,
    write_feedback,
    write_gradebook,
)
from mcpmini.course.classroom.batch import write_answers

KEY = get_exercise("9.1").answer_key()
EVIL = "<script>alert(1)</script>"


def _row(learner: str, answer, score: int = 0, exercise: str = "9.1") -> GradeRow:
    top = get_exercise(exercise).max_score
    return GradeRow(learner, exercise, score, top, RowStatus.GRADED, "", answer)


def test_a_correct_answer_shows_a_tick_for_every_part_and_the_score():
    page = render_page(_row("ada", KEY, 8))
    assert page.count("✓") == len(get_exercise("9.1").parts) and "✗" not in page
    assert "8 / 8" in page and "ヒント" not in page


def test_a_wrong_part_shows_a_cross_our_feedback_and_the_hint():
    answer = {**KEY, "why_b": "A" if KEY["why_b"] != "A" else "B"}
    page = render_page(_row("ben", answer, 7))
    ex = get_exercise("9.1")
    assert page.count("✗") == 1
    assert html.escape(str(ex.hints[0]), quote=True) in page
    message = ex.grade(answer).results[-1].message
    assert html.escape(message, quote=True) in page


def test_every_learner_string_is_escaped_and_no_script_may_run():
    answer = {"a": {"handshake": EVIL}, "why_b": EVIL}
    row = GradeRow(EVIL, "9.1", 0, 8, RowStatus.ERROR, f'{EVIL}.ipynb: "x" raised', answer)
    page = render_page(row)
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "default-src 'none'" in page


def test_a_row_without_an_answer_still_gets_a_page_saying_why():
    row = GradeRow("fay", "9.3", 0, 6, RowStatus.TIMEOUT, "9_3.ipynb: timed out after 8 s")
    page = render_page(row)
    assert "時間切れ" in page and "timed out after 8 s" in page and "0 / 6" in page


def test_pages_follow_nbgrader_feedback_layout_and_bad_names_are_skipped(tmp_path):
    rows = [
        _row("ada", KEY, 8),
        GradeRow("ada", "9.2", 0, 5, RowStatus.NOT_ATTEMPTED, "nothing handed in"),
        _row("../evil", KEY, 8),
        GradeRow("mo", "", 0, 0, RowStatus.INVALID, "notes.ipynb: no exercise"),
    ]
    pages, skipped = write_feedback(rows, tmp_path / "course")
    names = sorted(p.relative_to(tmp_path).as_posix() for p in pages)
    assert names == [
        "course/feedback/ada/exercises/9_1.html",
        "course/feedback/ada/exercises/9_2.html",
        "course/feedback/ada/exercises/index.html",
    ]
    assert [r.learner for r in skipped] == ["../evil", "mo"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["course"]


def test_the_gradebook_has_a_row_per_learner_and_quotes_formulas(tmp_path):
    rows = [
        _row("ada", KEY, 8),
        GradeRow("ada", "9.2", 3, 5, RowStatus.GRADED, ""),
        GradeRow("=cmd", "9.1", 0, 8, RowStatus.INVALID, ""),
        GradeRow("mo", "", 0, 0, RowStatus.INVALID, "no exercise"),
    ]
    out = tmp_path / "gradebook.csv"
    write_gradebook(rows, out)
    with out.open(encoding="utf-8", newline="") as fh:
        table = list(csv.reader(fh))
    assert table[0] == ["username", "演習 9.1", "演習 9.2", "total", "max_total"]
    assert table[1:] == [["'=cmd", "0", "0", "0", "13"], ["ada", "8", "3", "11", "13"]]


def test_answers_kept_beside_the_csv_are_read_back_with_their_rows(tmp_path):
    rows = [_row("ada", KEY, 8), GradeRow("ben", "9.1", 0, 8, RowStatus.TIMEOUT, "t")]
    out = tmp_path / "grades.csv"
    write_csv(rows, out)
    write_answers(rows, answers_path(out))
    back = read_grades(out)
    assert back == rows and back[0].answer == KEY and back[1].answer is None


def test_grade_with_feedback_writes_pages_and_the_gradebook(tmp_path, capsys):
    from mcpmini.cli import main

    cls = Path(__file__).resolve().parent / "fixtures" / "class"
    course = tmp_path / "course"
    code = main(
        [
            *("grade", str(cls / "gus"), "--out", str(tmp_path / "g.csv")),
            *("--no-progress", "--feedback", str(course)),
        ]
    )
    assert code == 0
    pages = sorted(p.name for p in (course / "feedback" / "gus" / "exercises").iterdir())
    assert pages == ["9_1.html", "9_2.html", "9_3.html", "9_4.html", "index.html"]
    assert (course / "gradebook.csv").read_text(encoding="utf-8").startswith("username,")


def test_c1_pages_show_what_each_part_judged_not_unanswered():
    # Bug (issue 28): C.1's answer is two docstrings and a .mcp.json, not one value per part,
    # so every row of its page read 「（未回答）」 although the grade was right.
    ex = get_exercise("C.1")
    key = ex.answer_key()
    page = render_page(_row("ada", key, ex.max_score, "C.1"))
    assert "未回答" not in page
    assert page.count("<code>&quot;get_weather_history&quot;</code>") == 5
    assert html.escape(json.dumps(key["get_weather"], ensure_ascii=False), quote=True) in page
    assert "<code>{&quot;WEATHER_API_KEY&quot;: &quot;${WEATHER_API_KEY}&quot;}</code>" in page

    page = render_page(_row("ben", {**key, "mcp_json": None}, 0, "C.1"))
    rows = [r for r in page.split("<tr") if "未回答" in r]
    assert [r.split("<code>")[1].split("</code>")[0] for r in rows] == [
        "mcp_json.server",
        "mcp_json.secret",
    ]
