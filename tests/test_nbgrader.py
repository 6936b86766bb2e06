"""The exercises as a real nbgrader assignment, checked with the real nbgrader from PyPI.

``mcpmini nbgrader-course`` writes the source folder; nbgrader's own ``generate_assignment``
must turn it into exactly the exercise notebooks learners get; then, on one class of
submissions made from those release notebooks (solved, untouched, wrong in places, broken,
late, some missing), nbgrader's ``autograde`` + ``export`` and ``mcpmini grade`` must give the
same points — per notebook, per learner, late penalty included. Skipped without nbgrader
(a failure under ``CI=true``: it is in the dev extra).
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest

from mcpmini.cli import main
from mcpmini.course import get_exercise
from mcpmini.course.catalogue import ALL_IDS
from mcpmini.course.classroom import Assignment
from mcpmini.course.classroom.assignments import NOTEBOOKS
from mcpmini.course.classroom.nbgrader import build_course, mark_notebook

# The whole class is run twice (nbgrader, then mcpmini) in the module's setup.
pytestmark = pytest.mark.timeout(2400)

ROOT = Path(__file__).resolve().parents[1]
DUE = "2026-12-10 23:59:00 UTC"
ASSIGNMENTS = f"""exercises:
  exercises: [{", ".join(f'"{e}"' for e in ALL_IDS)}]
  due: 2026-12-10T23:59:00Z
  late: zero
"""


def _nbgrader() -> Path:
    bindir = Path(sys.executable).parent
    if not (bindir / "nbgrader").exists():
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true but nbgrader is not installed (the dev extra has it)")
        pytest.skip("nbgrader is not installed (pip install -e '.[dev]')")
    return bindir


def _run(bindir: Path, cwd: Path, *args: str) -> None:
    env = {**os.environ, "PATH": f"{bindir}:{os.environ.get('PATH', '')}"}
    env["MCPMINI_PROGRESS"] = "off"
    done = subprocess.run(
        [str(bindir / "nbgrader"), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]


def _answer_cell(nb: Any) -> Any:
    return next(c for c in nb.cells if "answer" in c.metadata.get("tags", []))


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _leaves(v, (*path, k))]
    return [(path, value)]


def _wrong(value: Any) -> Any:
    """Another value of the same kind (a wrong answer)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str) and len(value) == 1 and value.isalpha():
        return "B" if value != "B" else "C"
    if isinstance(value, list):
        return value[:-1]
    return "x"


def _mutated(solved: str) -> str:
    """The worked answer with its first and last parts made wrong."""
    space: dict[str, Any] = {}
    exec(solved, space)
    leaves = _leaves(space["answer"])
    lines = [solved.rstrip("\n")]
    for path, value in {leaves[0][0]: leaves[0][1], leaves[-1][0]: leaves[-1][1]}.items():
        lines.append(f"answer{''.join(f'[{k!r}]' for k in path)} = {_wrong(value)!r}")
    return "\n".join(lines) + "\n"


# learner -> exercise -> how the answer cell is filled ("solved", "blank", "wrong", "broken")
CLASS: dict[str, dict[str, str]] = {
    "ada": dict.fromkeys(ALL_IDS, "solved"),
    "ben": {"9.1": "blank", "P.1": "blank", "C.1": "blank"},
    "cy": dict.fromkeys(("9.2", "9.4", "P.2", "P.3", "C.1"), "wrong"),
    "dee": {"9.1": "broken", "9.2": "solved", "9.3": "wrong", "P.4": "solved"},  # late
}


def _submission(release: Any, solved: str, how: str) -> Any:
    nb = nbformat.from_dict(json.loads(json.dumps(release)))
    cell = _answer_cell(nb)
    if how == "solved":
        cell.source = solved
    elif how == "wrong":
        cell.source = _mutated(solved)
    elif how == "broken":
        cell.source = "answer = {\n"  # a syntax error: no answer at all
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    bindir = _nbgrader()
    course = tmp_path_factory.mktemp("nbgrader") / "course"
    build_course(course, {"exercises": Assignment("exercises", ALL_IDS)}, ROOT)
    config = course / "nbgrader_config.py"
    config.write_text(
        config.read_text() + 'c.LateSubmissionPlugin.penalty_method = "zero"\n', encoding="utf-8"
    )
    _run(bindir, course, "generate_assignment", "exercises", "--create", "--force")
    _run(bindir, course, "db", "assignment", "add", "exercises", f"--duedate={DUE}")
    release = course / "release" / "exercises"
    for learner, handed in CLASS.items():
        folder = course / "submitted" / learner / "exercises"
        folder.mkdir(parents=True)
        for exercise, how in handed.items():
            stem = NOTEBOOKS[exercise]
            given = nbformat.read(release / f"{stem}.ipynb", as_version=4)
            solved = _answer_cell(nbformat.read(ROOT / "solutions" / f"{stem}.ipynb", as_version=4))
            nbformat.write(_submission(given, solved.source, how), folder / f"{stem}.ipynb")
        when = "2026-12-11 10:00:00.000000 UTC" if learner == "dee" else "2026-12-10 20:00:00 UTC"
        (folder / "timestamp.txt").write_text(when, encoding="utf-8")
    (course / "assignments.yaml").write_text(ASSIGNMENTS, encoding="utf-8")
    _run(bindir, course, "autograde", "exercises", "--create", "--force")
    _run(bindir, course, "export", "--to", str(course / "nbgrader.csv"))
    out = course / "mcpmini.csv"
    code = main(["grade", str(course), "--out", str(out), "--no-progress", "--timeout", "120"])
    assert code == 0
    from nbgrader.api import Gradebook, MissingEntry

    per_notebook: dict[tuple[str, str], tuple[float, float]] = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for learner in CLASS:
            for exercise in ALL_IDS:
                try:
                    nb = gb.find_submission_notebook(NOTEBOOKS[exercise], "exercises", learner)
                except MissingEntry:  # not handed in: nothing to score
                    per_notebook[learner, exercise] = (0.0, 0.0)
                    continue
                per_notebook[learner, exercise] = (nb.score, nb.late_submission_penalty or 0.0)
    with (course / "nbgrader.csv").open(encoding="utf-8", newline="") as fh:
        exported = {r["student_id"]: r for r in csv.DictReader(fh)}
    with out.open(encoding="utf-8", newline="") as fh:
        ours = list(csv.DictReader(fh))
    return course, release, per_notebook, exported, ours


def test_generate_assignment_writes_exactly_the_exercise_notebooks_learners_get(graded):
    _, release, *_ = graded
    for exercise in ALL_IDS:
        stem = NOTEBOOKS[exercise]
        made = nbformat.read(release / f"{stem}.ipynb", as_version=4)
        committed = nbformat.read(ROOT / "exercises" / f"{stem}.ipynb", as_version=4)
        assert [(c.cell_type, c.source, c.metadata.get("nbgrader")) for c in made.cells] == [
            (c.cell_type, c.source, c.metadata.get("nbgrader")) for c in committed.cells
        ], stem


def test_every_exercise_and_solution_notebook_carries_the_nbgrader_cells():
    for folder in ("exercises", "solutions"):
        for exercise in ALL_IDS:
            path = ROOT / folder / f"{NOTEBOOKS[exercise]}.ipynb"
            nb = nbformat.read(path, as_version=4)
            assert nb.metadata["mcpmini"]["exercise"] == exercise
            marked = mark_notebook(nb, exercise, get_exercise(exercise).max_score, str(path))
            assert [c.metadata for c in marked.cells] == [c.metadata for c in nb.cells], path
            assert [c.source for c in marked.cells] == [c.source for c in nb.cells], path


def test_nbgrader_and_mcpmini_give_the_same_points_per_notebook(graded):
    _, _, per_notebook, _, ours = graded
    mine = {(r["learner"], r["exercise"]): (int(r["score"]), int(r["penalty"])) for r in ours}
    assert mine == {key: (int(raw), int(cut)) for key, (raw, cut) in per_notebook.items()}
    assert mine["ada", "9.1"] == (8, 0) and 0 < mine["cy", "9.2"][0] < 5
    assert mine["dee", "9.2"] == (5, 5)  # solved, but late under "zero": nothing counts
    table = "\n".join(
        f"  {learner:<4} "
        + " ".join(f"{e}={mine[learner, e][0]}-{mine[learner, e][1]}" for e in ALL_IDS)
        for learner in CLASS
    )
    print(f"points-penalty per notebook, the same from mcpmini and nbgrader:\n{table}")


def test_nbgrader_export_and_mcpmini_give_the_same_totals_and_penalties(graded):
    _, _, _, exported, ours = graded
    for learner in CLASS:
        rows = [r for r in ours if r["learner"] == learner]
        points = sum(int(r["score"]) - int(r["penalty"]) for r in rows)
        top = sum(int(r["max_score"]) for r in rows)
        theirs = exported[learner]
        assert (points, top) == (float(theirs["score"]), float(theirs["max_score"])), learner
        assert sum(int(r["penalty"]) for r in rows) == float(theirs["late_submission_penalty"])
        assert any(r["late"] for r in rows) == (learner == "dee")
    print(
        "totals (nbgrader export = mcpmini): "
        + ", ".join(
            f"{k} {float(v['score']):g}/{float(v['max_score']):g}" for k, v in exported.items()
        )
    )


def test_nbgrader_release_feedback_takes_the_feedback_mcpmini_writes(graded, tmp_path):
    course, *_ = graded
    bindir = _nbgrader()
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    _run(
        bindir,
        course,
        "release_feedback",
        "exercises",
        "--course",
        "mcpmini",
        f"--Exchange.root={exchange}",
    )
    released = sorted((exchange / "mcpmini" / "feedback").glob("*.html"))
    pages = sorted((course / "feedback").glob("*/exercises/*.html"))
    assert len(released) == len(pages) and len(pages) >= len(CLASS) * len(ALL_IDS)
