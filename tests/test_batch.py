"""The class grader: every submission ends as one row, whatever it does, and the CSV is
always written. One real batch over tests/fixtures/class runs each notebook in a kernel."""

from __future__ import annotations

import asyncio
import csv
import json
import os
import shutil
import signal
from pathlib import Path

import pytest

from mcpmini.cli import main
from mcpmini.course.classroom import (
    COLUMNS,
    GradeRow,
    RowStatus,
    SubmissionError,
    batch,
    find_submissions,
    grade_class,
    identify_exercise,
    parse_assignments,
)
from mcpmini.course.classroom.assignments import NOTEBOOKS

CLASS = Path(__file__).resolve().parent / "fixtures" / "class"

# (learner, exercise) -> (status, score) for every notebook handed in; the rest of each
# learner's four exercises must be "not_attempted" rows saying nothing was handed in.
EXPECTED = {
    ("ada", "9.1"): ("graded", 8),
    ("ada", "9.2"): ("graded", 5),
    ("ada", "9.3"): ("graded", 6),
    ("ada", "9.4"): ("graded", 5),
    ("ben", "9.1"): ("not_attempted", 0),
    ("chen", "9.1"): ("graded", 4),
    ("chen", "9.2"): ("graded", 0),
    ("dora", "9.4"): ("graded", 2),
    ("emil", "9.1"): ("error", 0),  # the kernel dies
    ("emil", "9.2"): ("error", 5),  # a cell raises, the answers after it still count
    ("fay", "9.3"): ("timeout", 0),
    ("gus", "9.1"): ("invalid", 0),
    ("gus", "9.2"): ("invalid", 0),
    ("hana", "9.3"): ("not_attempted", 0),
    ("hana", "9.4"): ("invalid", 0),
    ("ivan", "9.1"): ("graded", 0),  # prints "全問正解" and forges an answer bundle
    ("ivan", "9.2"): ("not_attempted", 0),  # deletes its answer
    ("jun", "9.3"): ("graded", 6),
    ("jun", "9.4"): ("graded", 5),
    ("kai", "9.1"): ("graded", 0),
    ("kai", "9.2"): ("not_attempted", 0),
    ("lea", "9.1"): ("graded", 8),  # an untouched copy and a solved one: best kept
    ("mo", "9.2"): ("graded", 5),  # known from metadata only
    ("mo", ""): ("invalid", 0),  # a notebook that is no exercise
    ("omar", "9.4"): ("graded", 0),
}
LEARNERS = {
    "ada",
    "ben",
    "chen",
    "dora",
    "emil",
    "fay",
    "gus",
    "hana",
    "ivan",
    "jun",
    "kai",
    "lea",
    "mo",
    "nia",
    "omar",
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    out = tmp_path_factory.mktemp("grades") / "nested" / "grades.csv"
    progress = out.parent.parent / "progress.json"
    saved = os.environ.get("MCPMINI_PROGRESS")
    os.environ["MCPMINI_PROGRESS"] = str(progress)  # the kernels must not write here
    try:
        rows = grade_class([CLASS], out, workers=2, timeout=8, progress=False)
    finally:
        if saved is None:
            os.environ.pop("MCPMINI_PROGRESS")
        else:
            os.environ["MCPMINI_PROGRESS"] = saved
    return rows, out, progress


def test_the_fixture_class_has_at_least_twenty_submissions():
    assert sum(1 for _ in CLASS.rglob("*.ipynb")) >= 20


def test_every_submission_gets_its_status_and_score(graded):
    rows, _, _ = graded
    got = {(r.learner, r.exercise): (r.status.value, r.score) for r in rows}
    for key, want in EXPECTED.items():
        assert got[key] == want, key
    for key, value in got.items():
        if key not in EXPECTED:
            assert value == ("not_attempted", 0), key


def test_every_learner_has_a_row_for_every_exercise(graded):
    rows, _, _ = graded
    assert {r.learner for r in rows} == LEARNERS
    for learner in LEARNERS:
        assert {r.exercise for r in rows if r.learner == learner} >= {"9.1", "9.2", "9.3", "9.4"}
    assert len(rows) == len({(r.learner, r.exercise) for r in rows})


def test_max_scores_come_from_the_exercises(graded):
    rows, _, _ = graded
    for r in rows:
        if r.exercise:
            assert r.max_score == {"9.1": 8, "9.2": 5, "9.3": 6, "9.4": 5}[r.exercise]


def test_the_csv_has_the_ten_columns_and_the_returned_rows(graded):
    rows, out, _ = graded
    with out.open(encoding="utf-8", newline="") as fh:
        table = list(csv.reader(fh))
    assert tuple(table[0]) == COLUMNS
    assert table[1:] == [[str(v) for v in r.as_list()] for r in rows]


def test_feedback_names_the_cause_of_each_failure(graded):
    rows, _, _ = graded
    by = {(r.learner, r.exercise): r for r in rows}
    assert "8 秒" in by["fay", "9.3"].feedback and "セル 2" in by["fay", "9.3"].feedback
    assert "ModuleNotFoundError" in by["emil", "9.2"].feedback
    assert by["chen", "9.1"].feedback and by["ada", "9.1"].feedback == ""


def test_learner_notebooks_never_write_the_progress_file(graded):
    _, _, progress = graded
    assert not progress.exists()


def test_submissions_are_found_in_classes_learner_folders_and_files(tmp_path):
    jobs = find_submissions([CLASS])
    assert {j.learner for j in jobs} == LEARNERS
    assert [j for j in jobs if j.learner == "nia"] == [
        batch.Submission("nia", e, None, notebook=NOTEBOOKS[e])
        for e in ("9.1", "9.2", "9.3", "9.4")
    ]
    one = find_submissions([CLASS / "jun"])
    assert {(j.exercise, j.path is None) for j in one} == {
        ("9.3", False),
        ("9.4", False),
        ("9.1", True),
        ("9.2", True),
    }
    single = find_submissions([CLASS / "mo" / "homework.ipynb"])
    assert single == [
        batch.Submission("mo", "9.2", CLASS / "mo" / "homework.ipynb", notebook="homework")
    ]
    with pytest.raises(FileNotFoundError):
        find_submissions([tmp_path / "missing"])


def test_the_exercise_comes_from_metadata_before_the_file_name():
    assert identify_exercise(Path("9_3_x.ipynb")) == "9.3"
    assert (
        identify_exercise(Path("9_3_x.ipynb"), {"metadata": {"mcpmini": {"exercise": "9.1"}}})
        == "9.1"
    )
    assert identify_exercise(Path("notes.ipynb")) == ""
    assert identify_exercise(Path("9_9.ipynb"), {"metadata": {"mcpmini": {"exercise": "7"}}}) == ""


def test_bad_arguments_fail_before_anything_runs(tmp_path):
    with pytest.raises(ValueError):
        grade_class([CLASS], tmp_path / "g.csv", workers=0)
    with pytest.raises(ValueError):
        grade_class([CLASS], tmp_path / "g.csv", timeout=0)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OSError):
        grade_class([CLASS / "gus"], blocker / "g.csv", progress=False)


def _copy(tmp_path: Path, *learners: str) -> Path:
    root = tmp_path / "class"
    for learner in learners:
        shutil.copytree(CLASS / learner, root / learner)
    return root


def test_a_bug_in_the_grader_is_one_error_row_and_the_batch_goes_on(tmp_path, monkeypatch):
    async def broken(path, learner, timeout, exercise):
        raise RuntimeError("grader bug")

    monkeypatch.setattr(batch, "grade_notebook", broken)
    rows = grade_class([_copy(tmp_path, "gus", "nia")], tmp_path / "g.csv", progress=False)
    assert [r.status for r in rows if r.learner == "gus" and r.exercise in ("9.1", "9.2")] == [
        RowStatus.ERROR,
        RowStatus.ERROR,
    ]
    assert sum(1 for r in rows if r.learner == "nia") == 4


@pytest.fixture
def python_sigint_handler():
    """Python's own SIGINT handler for the test, whatever the suite was started with.

    ``_thread.interrupt_main()`` does nothing while SIGINT is ignored (``nohup``, ``make test &``
    from a script), so without this the Ctrl-C test would wait for an interrupt forever.
    """
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_cancels_the_running_jobs_and_still_writes_every_row(
    tmp_path, monkeypatch, python_sigint_handler
):
    import _thread

    cancelled = []

    async def long_job(path, learner, timeout, exercise):
        _thread.interrupt_main()  # what Ctrl-C does to the waiting main thread
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(path.name)
            raise

    monkeypatch.setattr(batch, "grade_notebook", long_job)
    out = tmp_path / "g.csv"
    with pytest.raises(KeyboardInterrupt):
        grade_class([_copy(tmp_path, "gus", "nia")], out, workers=1, progress=False)
    assert len(cancelled) == 1  # one worker: one job was running, and it was cancelled
    with out.open(encoding="utf-8", newline="") as fh:
        table = list(csv.DictReader(fh))
    assert len(table) == 8 and {r["learner"] for r in table} == {"gus", "nia"}
    assert {
        r["status"] for r in table if r["learner"] == "gus" and r["exercise"] in ("9.1", "9.2")
    } == {"error"}


def test_invalid_files_are_graded_without_a_kernel(tmp_path):
    rows = grade_class([_copy(tmp_path, "gus")], tmp_path / "g.csv", progress=False)
    got = {r.exercise: r.status for r in rows}
    assert got == {
        "9.1": RowStatus.INVALID,
        "9.2": RowStatus.INVALID,
        "9.3": RowStatus.NOT_ATTEMPTED,
        "9.4": RowStatus.NOT_ATTEMPTED,
    }


def test_the_grade_command_writes_the_csv_and_exits_zero(tmp_path, capsys):
    out = tmp_path / "grades.csv"
    code = main(
        [
            "grade",
            str(CLASS / "gus"),
            str(CLASS / "nia"),
            "--out",
            str(out),
            "--workers",
            "1",
            "--timeout",
            "3",
            "--no-progress",
        ]
    )
    assert code == 0
    assert "8 行" in capsys.readouterr().out
    code = main(
        [
            *("grade", str(CLASS / "gus"), "--out", str(out), "--no-progress", "--lang", "en"),
        ]
    )
    assert code == 0 and "4 rows for 1 learners" in capsys.readouterr().out
    with out.open(encoding="utf-8", newline="") as fh:
        english = {r["exercise"]: r["feedback"] for r in csv.DictReader(fh)}
    assert english["9.3"] == "nothing handed in" and "not a notebook" in english["9.1"]
    assert out.read_text(encoding="utf-8").splitlines()[0] == ",".join(COLUMNS)
    assert main(["grade", str(tmp_path / "nope"), "--out", str(out)]) == 2


def test_rows_convert_to_csv_cells():
    row = GradeRow("a", "9.1", 3, 8, RowStatus.GRADED, "x", assignment="w1", notebook="n")
    assert row.as_list() == ["a", "w1", "9.1", "n", 3, 8, 0, "", "graded", "x"]
    late = GradeRow("a", "9.1", 3, 8, RowStatus.GRADED, "", penalty=2, late=True)
    assert late.as_list()[6:8] == [2, "late"] and late.points == 1
    assert json.dumps(row.as_list())


def test_text_a_spreadsheet_would_run_as_a_formula_is_quoted():
    row = GradeRow("=HYPERLINK(1)", "9.1", 0, 8, RowStatus.INVALID, "@SUM(1): not JSON")
    assert row.as_list()[0] == "'=HYPERLINK(1)" and row.as_list()[9].startswith("'@")


def test_the_grader_can_be_called_where_an_event_loop_is_running(tmp_path):
    async def from_a_notebook_cell():
        return grade_class([_copy(tmp_path, "gus")], tmp_path / "g.csv", progress=False)

    rows = asyncio.run(from_a_notebook_cell())
    assert [r.status for r in rows if r.exercise == "9.1"] == [RowStatus.INVALID]


def test_resume_keeps_the_rows_already_written_and_grades_only_the_rest(tmp_path, monkeypatch):
    root = _copy(tmp_path, "gus", "nia")
    out = tmp_path / "g.csv"
    first = grade_class([root], out, progress=False)
    calls = []

    async def recorded(path, learner, timeout, exercise):
        calls.append((learner, path.name))
        return GradeRow(learner, exercise, 0, 8, RowStatus.INVALID, "regraded")

    monkeypatch.setattr(batch, "grade_notebook", recorded)
    assert grade_class([root], out, progress=False, resume=True) == first
    assert calls == []  # every notebook already has its row
    with out.open(encoding="utf-8", newline="") as fh:
        table = list(csv.reader(fh))
    kept = [r for r in table if not (r[0] == "gus" and r[2] == "9.1")]
    with out.open("w", encoding="utf-8", newline="") as fh:  # as if killed before gus 9.1
        csv.writer(fh).writerows(kept)
    rows = grade_class([root], out, progress=False, resume=True)
    assert calls == [("gus", "9_1_version_negotiation.ipynb")]
    assert {(r.learner, r.exercise): r.feedback for r in rows}["gus", "9.1"] == "regraded"
    assert len(rows) == len(first)


def test_resume_refuses_a_file_that_is_not_a_grades_csv(tmp_path):
    out = tmp_path / "g.csv"
    out.write_text("name,score\nx,1\n", encoding="utf-8")
    with pytest.raises(ValueError):
        grade_class([_copy(tmp_path, "nia")], out, progress=False, resume=True)
    assert out.read_text(encoding="utf-8") == "name,score\nx,1\n"


SAMPLE = CLASS.parent / "class_grades" / "grades.csv"


def test_the_committed_sample_grades_are_what_the_grader_writes_today(graded):
    """The instructor's summary notebook reads this sample: it must not drift from the grader."""
    from mcpmini.course.classroom import read_grades

    rows, out, _ = graded
    sample = read_grades(SAMPLE)
    assert sample == rows
    assert [r.answer for r in sample] == [r.answer for r in read_grades(out)]
    assert sum(1 for r in sample if r.answer is not None) >= 15


def test_the_runner_is_started_by_path_and_imports_nothing_of_mcpmini():
    # Started as ``-m``/``-c`` of a package module, the runner imported the whole course
    # (its package ``__init__``s) before running a notebook: seconds per submission.
    import ast

    from mcpmini.course.classroom import execution

    runner = execution._RUNNER
    assert runner.is_file() and runner.parent == Path(execution.__file__).parent
    imported = set()
    for node in ast.walk(ast.parse(runner.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add("." if node.level else (node.module or "").split(".")[0])
    assert "mcpmini" not in imported and "." not in imported
    assert {"nbclient", "nbformat", "jupyter_client"} <= imported


def _nbgrader(tmp_path: Path, layout: dict[str, str]) -> Path:
    """A course folder: ``layout`` maps ``learner/assignment`` to a fixture notebook path."""
    course = tmp_path / "course"
    for place, source in layout.items():
        folder = course / "submitted" / place
        folder.mkdir(parents=True, exist_ok=True)
        if source:
            shutil.copy(CLASS / source, folder)
    return course


def test_the_learner_and_assignment_come_from_nbgraders_path(tmp_path):
    course = _nbgrader(
        tmp_path,
        {
            "ada/week1": "ada/9_1_version_negotiation.ipynb",
            "ben/week1": "chen/9_2_request_ids.ipynb",
        },
    )
    for given in (course, course / "submitted", course / "submitted" / "ada"):
        jobs = find_submissions([given])
        assert {(j.learner, j.assignment) for j in jobs if j.path} >= {("ada", "week1")}
        assert "submitted" not in {j.learner for j in jobs}
    one = find_submissions(
        [course / "submitted" / "ada" / "week1" / "9_1_version_negotiation.ipynb"]
    )
    assert {(j.learner, j.assignment) for j in one} == {("ada", "week1")}
    # issue 30: two learners' files in folders named like the assignment stay two learners
    for name in ("a", "b"):
        (tmp_path / name / "exercises").mkdir(parents=True)
        shutil.copy(CLASS / "ada" / "9_1_version_negotiation.ipynb", tmp_path / name / "exercises")
    pair = find_submissions(
        [tmp_path / n / "exercises" / "9_1_version_negotiation.ipynb" for n in ("a", "b")]
    )
    assert {(j.learner, j.assignment) for j in pair} == {("a", "exercises"), ("b", "exercises")}


def test_one_learner_name_from_two_folders_is_refused(tmp_path, capsys):
    for place in ("x/ada", "y/ada"):
        (tmp_path / place).mkdir(parents=True)
        shutil.copy(CLASS / "ada" / "9_1_version_negotiation.ipynb", tmp_path / place)
    paths = [tmp_path / p / "9_1_version_negotiation.ipynb" for p in ("x/ada", "y/ada")]
    with pytest.raises(SubmissionError, match="two folders"):
        find_submissions(paths)
    out = tmp_path / "g.csv"
    assert main(["grade", *map(str, paths), "--out", str(out), "--no-progress"]) == 2
    assert "two folders" in capsys.readouterr().err and not out.exists()


WEEKS = """
week1:
  exercises: ["9.1", "9.2"]
  due: 2026-12-10 23:59 +09:00
  late: zero
week2:
  exercises: ["9.4"]
  due: 2026-12-17T23:59:00Z
  late: per_day 25
"""


def _stub(score: int):
    async def stub(path, learner, timeout, exercise):
        return GradeRow(
            learner, exercise, score, 8 if exercise == "9.1" else 5, RowStatus.GRADED, ""
        )

    return stub


def test_rows_are_made_for_what_each_assignment_set_and_lateness_costs(tmp_path, monkeypatch):
    course = _nbgrader(
        tmp_path,
        {
            "ada/week1": "ada/9_1_version_negotiation.ipynb",
            "ada/week2": "ada/9_4_skill_reattach.ipynb",
            "ben/week1": "ada/9_3_hook_failure.ipynb",  # not set in week1
            "cy/week2": "",
        },
    )
    stamp = course / "submitted" / "ada" / "week2" / "timestamp.txt"
    stamp.write_text("2026-12-19 12:00:00.000000 UTC")  # 1.5 days late: two started days
    (course / "submitted" / "ada" / "week1" / "timestamp.txt").write_text(
        "2026-12-10 14:00:00.000000 UTC"  # 23:00 in Tokyo: on time
    )
    (course / "submitted" / "ben" / "week1" / "late.txt").write_text("marked late by the LMS\n")
    monkeypatch.setattr(batch, "grade_notebook", _stub(4))
    rows = grade_class(
        [course], tmp_path / "g.csv", progress=False, assignments=parse_assignments(WEEKS)
    )
    got = {(r.learner, r.assignment, r.exercise): r for r in rows}
    assert set(got) == {
        ("ada", "week1", "9.1"),
        ("ada", "week1", "9.2"),
        ("ada", "week2", "9.4"),
        ("ben", "week1", "9.1"),
        ("ben", "week1", "9.2"),
        ("ben", "week1", "9.3"),
        ("cy", "week2", "9.4"),
    }
    assert not got["ada", "week1", "9.1"].late and got["ada", "week1", "9.1"].points == 4
    late = got["ada", "week2", "9.4"]
    assert late.late and late.penalty == round(5 * 0.25 * 2) and late.points == 4 - late.penalty
    assert got["ben", "week1", "9.3"].status is RowStatus.REFUSED
    assert got["ben", "week1", "9.3"].max_score == 0  # counts for nothing
    assert got["cy", "week2", "9.4"].status is RowStatus.NOT_ATTEMPTED
    assert got["ada", "week1", "9.2"].notebook == "9_2_request_ids"


def test_an_assignment_folder_the_file_does_not_define_is_refused(tmp_path, capsys):
    course = _nbgrader(tmp_path, {"ada/week9": "ada/9_1_version_negotiation.ipynb"})
    (course / "assignments.yaml").write_text(WEEKS, encoding="utf-8")
    out = tmp_path / "g.csv"
    assert main(["grade", str(course), "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "week9" in err[0] and not out.exists()
    (course / "assignments.yaml").write_text(WEEKS.replace('"9.4"', '"9.7"'), encoding="utf-8")
    assert main(["grade", str(course), "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "9.7" in err[0] and "week2" in err[0] and not out.exists()


def test_grading_an_nbgrader_course_writes_its_feedback_by_default(tmp_path, monkeypatch, capsys):
    course = _nbgrader(tmp_path, {"ada/week1": "ada/9_1_version_negotiation.ipynb"})
    (course / "assignments.yaml").write_text(WEEKS, encoding="utf-8")
    monkeypatch.setattr(batch, "grade_notebook", _stub(8))
    out = tmp_path / "g.csv"
    assert main(["grade", str(course / "submitted"), "--out", str(out), "--no-progress"]) == 0
    pages = sorted(p.name for p in (course / "feedback" / "ada" / "week1").iterdir())
    assert pages == [
        "9_1_version_negotiation.html",
        "9_2_request_ids.html",
        "index.html",
        "submission_secret.txt",
        "timestamp.txt",
    ]
    assert (course / "gradebook.csv").is_file()
    assert (
        main(["grade", str(course), "--out", str(out), "--no-progress", "--assignment", "week2"])
        == 0
    )
    assert {r["assignment"] for r in csv.DictReader(out.open(encoding="utf-8"))} == {"week2"}


def test_grade_help_names_every_exercise_it_grades(capsys):
    from mcpmini.course.catalogue import ALL_IDS

    with pytest.raises(SystemExit):
        main(["grade", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert all(exercise in text for exercise in ALL_IDS) and "9.1-9.4" not in text
