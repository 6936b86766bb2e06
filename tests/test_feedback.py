"""Feedback for a class: a page per learner and notebook in nbgrader's ``feedback/`` layout
(every learner string escaped, no script allowed, the learner's language), a gradebook CSV an
LMS imports, and the pages returned into hub homes without following a learner's link."""

from __future__ import annotations

import csv
import html
import json
import os
import stat
from pathlib import Path

import pytest

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
from mcpmini.course.classroom.feedback import return_feedback
from mcpmini.course.language import say, use

KEY = get_exercise("9.1").answer_key()
EVIL = "<script>alert(1)</script>"


def _row(learner: str, answer, score: int = 0, exercise: str = "9.1", **kw) -> GradeRow:
    top = get_exercise(exercise).max_score
    kw.setdefault("assignment", "exercises")
    kw.setdefault("notebook", "9_1_version_negotiation")
    return GradeRow(learner, exercise, score, top, RowStatus.GRADED, "", answer, **kw)


def test_a_correct_answer_shows_a_tick_for_every_part_and_the_score():
    page = render_page(_row("ada", KEY, 8))
    assert page.count("✓") == len(get_exercise("9.1").parts) and "✗" not in page
    assert "8 / 8" in page and "ヒント" not in page


def test_a_wrong_part_shows_a_cross_our_feedback_and_the_hint():
    answer = {**KEY, "why_b": "A" if KEY["why_b"] != "A" else "B"}
    page = render_page(_row("ben", answer, 7))
    ex = get_exercise("9.1")
    assert page.count("✗") == 1
    assert html.escape(say(ex.hints[0]), quote=True) in page
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


def test_a_page_speaks_the_learners_language():
    row = _row("ada", KEY, 8)
    with use("en"):
        english = render_page(row)
    assert '<html lang="en">' in english and "Learner" in english and "Score" in english
    assert "受講者" not in english and "得点" not in english and "状態" not in english
    japanese = render_page(row)
    assert '<html lang="ja">' in japanese and "受講者" in japanese


def test_a_late_row_shows_its_penalty_and_the_points_that_count():
    row = _row("ada", KEY, 8, penalty=8, late=True)
    page = render_page(row)
    assert "0 / 8" in page and "減点 8" in page
    with use("en"):
        assert "late penalty 8" in render_page(row)


def test_pages_follow_nbgrader_feedback_layout_and_bad_names_are_skipped(tmp_path):
    course = tmp_path / "course"
    handed = course / "submitted" / "ada" / "week1"
    handed.mkdir(parents=True)
    (handed / "timestamp.txt").write_text("2026-12-10 14:00:00.000000 UTC")
    (handed / "submission_secret.txt").write_text("s3cret")
    rows = [
        _row("ada", KEY, 8, assignment="week1"),
        GradeRow(
            "ada",
            "9.2",
            0,
            5,
            RowStatus.NOT_ATTEMPTED,
            "",
            assignment="week1",
            notebook="9_2_request_ids",
        ),
        _row("../evil", KEY, 8),
        _row("ada", KEY, 8, assignment="../x"),
        _row("ada", KEY, 8, notebook="index"),
        GradeRow("mo", "", 0, 0, RowStatus.INVALID, "notes.ipynb: no exercise"),
    ]
    pages, skipped = write_feedback(rows, course)
    names = sorted(p.relative_to(tmp_path).as_posix() for p in pages)
    assert names == [
        "course/feedback/ada/week1/9_1_version_negotiation.html",
        "course/feedback/ada/week1/9_2_request_ids.html",
        "course/feedback/ada/week1/index.html",
    ]
    folder = course / "feedback" / "ada" / "week1"
    # what nbgrader's release_feedback reads beside the pages: the submission's own files
    assert (folder / "timestamp.txt").read_text() == "2026-12-10 14:00:00.000000 UTC"
    assert (folder / "submission_secret.txt").read_text() == "s3cret"
    assert [r.learner for r in skipped] == ["../evil", "ada", "ada", "mo"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["course"]


def test_the_gradebook_has_a_row_per_learner_and_quotes_formulas(tmp_path):
    rows = [
        _row("ada", KEY, 8),
        GradeRow("ada", "9.2", 3, 5, RowStatus.GRADED, "", assignment="exercises", penalty=1),
        GradeRow("ada", "9.3", 0, 0, RowStatus.REFUSED, "not set", assignment="exercises"),
        GradeRow("=cmd", "9.1", 0, 8, RowStatus.INVALID, "", assignment="exercises"),
        GradeRow("mo", "", 0, 0, RowStatus.INVALID, "no exercise"),
    ]
    out = tmp_path / "gradebook.csv"
    write_gradebook(rows, out)
    with out.open(encoding="utf-8", newline="") as fh:
        table = list(csv.reader(fh))
    head = ["username", "assignment", "演習 9.1", "演習 9.2", "演習 9.3", "penalty", "total"]
    assert table[0] == [*head, "max_total"]
    assert table[1:] == [
        ["'=cmd", "exercises", "0", "", "", "0", "0", "8"],
        ["ada", "exercises", "8", "2", "0", "1", "10", "13"],  # the index page's 10 / 13 too
    ]


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
    assert pages == [
        "9_1_version_negotiation.html",
        "9_2_request_ids.html",
        "9_3_hook_failure.html",
        "9_4_skill_reattach.html",
        "index.html",
        "submission_secret.txt",
        "timestamp.txt",
    ]
    assert (course / "gradebook.csv").read_text(encoding="utf-8").startswith("username,")


def _feedback(tmp_path: Path) -> Path:
    course = tmp_path / "course"
    write_feedback([_row("ada", KEY, 8), _row("ben", KEY, 8)], course)
    return course


def test_feedback_is_returned_into_each_home_owned_by_its_learner(tmp_path):
    course = _feedback(tmp_path)
    homes = tmp_path / "homes"
    (homes / "ada").mkdir(parents=True)
    if os.geteuid() == 0:  # as root a home belongs to the learner's own account
        os.chown(homes / "ada", 65534, 65534)
    written, skipped = return_feedback(course, homes)
    assert skipped == [f"ben: no home folder {homes / 'ben'}"]
    page = homes / "ada" / "feedback" / "exercises" / "9_1_version_negotiation.html"
    assert page in written and page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert not (homes / "ada" / "feedback" / "exercises" / "submission_secret.txt").exists()
    info = page.stat()
    assert stat.S_IMODE(info.st_mode) == 0o600
    assert info.st_uid == (homes / "ada").stat().st_uid


def test_a_link_a_learner_planted_is_never_followed(tmp_path):
    course = _feedback(tmp_path)
    homes, elsewhere = tmp_path / "homes", tmp_path / "elsewhere"
    elsewhere.mkdir()
    (homes / "ada").mkdir(parents=True)
    (homes / "ada" / "feedback").symlink_to(elsewhere, target_is_directory=True)
    (homes / "ben" / "feedback").mkdir(parents=True)
    (homes / "ben" / "feedback" / "exercises").symlink_to(elsewhere, target_is_directory=True)
    written, skipped = return_feedback(course, homes)
    assert written == [] and len(skipped) == 2
    assert list(elsewhere.iterdir()) == []
    with pytest.raises(FileNotFoundError):
        return_feedback(tmp_path / "nothing", homes)


def test_an_english_page_of_an_english_exercise_holds_no_japanese():
    from mcpmini.course.edition import japanese_chars

    row = GradeRow(
        "ada",
        "P.1",
        0,
        6,
        RowStatus.GRADED,
        "",
        {"distinct_names": 1},
        assignment="w1",
        notebook="P_1_exposed_names",
        penalty=0,
        late=True,
    )
    with use("en"):
        page = render_page(row)
    assert japanese_chars(page) == 0 and "·" in page


def test_a_c1_page_shows_what_counted_for_each_routing_part_never_not_answered():
    """C.1's routing parts have no key of their own in the answer (it holds two descriptions
    and a .mcp.json): the page shows the tool the router chose over the learner's
    descriptions, or that none was chosen, not "(not answered)"."""
    ex = get_exercise("C.1")
    key = ex.answer_key()
    rows = {p.key: i for i, p in enumerate(ex.parts)}
    routing = [k for k in rows if k.startswith("routing.")]
    assert len(routing) == 10
    for lang, blank in (("ja", "（未回答）"), ("en", "(not answered)")):
        with use(lang):
            page = render_page(_row("ada", key, ex.max_score, "C.1", notebook="C_1"))
        assert blank not in page
        cells = {k: _answer_cell(page, k) for k in rows}
        assert {cells[k] for k in routing} == {
            "<code>&quot;get_weather&quot;</code>",
            "<code>&quot;get_weather_history&quot;</code>",
        }
        assert "Not for past days" in cells["get_weather.boundary"]
        assert "WEATHER_API_KEY" in cells["mcp_json.secret"]
    vague = {**key, "get_weather": "Weather.", "get_weather_history": "Weather."}
    page = render_page(_row("ben", vague, 0, "C.1", notebook="C_1"))
    chosen = [_answer_cell(page, k) for k in routing]
    # "weather" alone: a tie goes to the tool listed first; "snowing … right now" none
    assert set(chosen) == {
        "<code>&quot;get_weather&quot;</code>",
        "<code>&quot;（どのツールも選ばれない）&quot;</code>",
    }
    with use("en"):
        empty = render_page(_row("cy", ex.template(), 0, "C.1", notebook="C_1"))
    assert {_answer_cell(empty, k) for k in routing} == {"(not answered)"}


def _answer_cell(page: str, key: str) -> str:
    """The "your answer" cell of the row of part ``key`` on a feedback page."""
    row = page.split(f"<code>{key}</code>", 1)[1].split("</tr>", 1)[0]
    return row.split("<td>")[1].removesuffix("</td>")


def test_c1_pages_show_what_each_part_judged_not_unanswered():
    # Bug (issue 28): C.1's answer is two docstrings and a .mcp.json, not one value per part,
    # so every row of its page read 「（未回答）」 although the grade was right.
    ex = get_exercise("C.1")
    key = ex.answer_key()
    page = render_page(_row("ada", key, ex.max_score, "C.1", notebook="C_1"))
    assert "未回答" not in page
    assert page.count("<code>&quot;get_weather_history&quot;</code>") == 5
    assert html.escape(json.dumps(key["get_weather"], ensure_ascii=False), quote=True) in page
    assert "<code>{&quot;WEATHER_API_KEY&quot;: &quot;${WEATHER_API_KEY}&quot;}</code>" in page

    page = render_page(_row("ben", {**key, "mcp_json": None}, 0, "C.1", notebook="C_1"))
    rows = [r for r in page.split("<tr") if "未回答" in r]
    assert [r.split("<code>")[1].split("</code>")[0] for r in rows] == [
        "mcp_json.server",
        "mcp_json.secret",
    ]
