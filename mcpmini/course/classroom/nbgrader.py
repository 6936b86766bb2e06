"""Every exercise an nbgrader assignment too: the cells nbgrader reads, and its course folder.

Each exercise notebook of ``exercises/`` is what nbgrader calls the *release* version: its
answer cell (tagged ``answer``) is an nbgrader solution cell, and the cell after it, which
checks the answer, is an autograded grade cell worth the exercise's points. That cell runs
``check()`` (so the learner sees the same ✓/✗ report as anywhere in the course) and ends in
the report's score, the number nbgrader's autograder takes as partial credit — the same points
``mcpmini grade`` gives. :func:`mark_notebook` puts those cells and their metadata into a
notebook (the committed exercise and solution notebooks are marked; a test keeps them so).

:func:`build_course` writes an nbgrader course folder for the instructor who already runs
nbgrader: ``nbgrader_config.py`` and ``source/<assignment>/<notebook>.ipynb`` for each
exercise of each assignment — the exercise notebook with the worked answer of ``solutions/``
inside a solution region (``### BEGIN SOLUTION`` … ``### END SOLUTION``) after the template.
``nbgrader generate_assignment`` then clears the region (the configured stub is an empty
line) and writes exactly the exercise notebook learners get, metadata and all.

Rules of this module: the grade cell's code is one constant (:data:`GRADE_CELL`), English
and free of any learner-facing text; grade ids are ``answer_<id>`` and ``check_<id>``
(``9_1``, ``P_2`` …, nbgrader's id alphabet); a notebook without exactly one answer cell
followed by a check cell is a ``ValueError`` naming it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .assignments import NOTEBOOKS, Assignment

__all__ = [
    "GRADE_CELL",
    "NBGRADER_CONFIG",
    "build_course",
    "grade_id",
    "mark_notebook",
    "source_notebook",
]

#: The autograded cell of every exercise: the learner's report, then its score (the value
#: nbgrader's autograder reads as the cell's points).
GRADE_CELL = (
    "# graded cell: your report, then your points (nbgrader's autograder reads this number)\n"
    "report = ex.check(answer)\n"
    "display(report)\n"
    "report.score"
)
#: The course folder's ``nbgrader_config.py`` (``{course_id}`` filled in).
NBGRADER_CONFIG = """\
# Written by mcpmini nbgrader-course: nbgrader's course folder for the mcpmini exercises.
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = {course_id!r}
# A solution region is cleared to an empty line: the answer cell keeps its template above it,
# so `nbgrader generate_assignment` writes the exercise notebook as learners get it.
c.ClearSolutions.code_stub = {{"python": ""}}
# A learner's notebook runs in one kernel, its cells in order; the slowest exercise needs seconds.
c.Execute.timeout = 120
"""


def grade_id(exercise: str, kind: str) -> str:
    """The nbgrader grade id of an exercise's ``answer`` or ``check`` cell (``check_9_1``)."""
    return f"{kind}_{exercise.replace('.', '_')}"


def _cells(nb: Any, name: str) -> tuple[Any, Any]:
    cells = nb.cells
    found = [i for i, c in enumerate(cells) if "answer" in c.metadata.get("tags", [])]
    if len(found) != 1 or found[0] + 1 >= len(cells) or cells[found[0] + 1].cell_type != "code":
        raise ValueError(f"{name}: expected one answer cell followed by its check cell")
    return cells[found[0]], cells[found[0] + 1]


def _meta(exercise: str, kind: str, points: int, source: str) -> dict[str, Any]:
    """nbgrader's metadata of the answer or check cell, as ``generate_assignment`` writes it
    into a release: the cell type and the checksum nbgrader computes included."""
    grade, solution = kind == "check", kind == "answer"
    meta: dict[str, Any] = {
        "cell_type": "code",
        "checksum": _checksum(source, grade_id(exercise, kind), grade, solution, points),
        "grade": grade,
        "grade_id": grade_id(exercise, kind),
        "locked": grade,
        "schema_version": 3,
        "solution": solution,
        "task": False,
    }
    if grade:
        meta["points"] = points
    return meta


def _checksum(source: str, cell_id: str, grade: bool, solution: bool, points: int) -> str:
    """nbgrader's ``compute_checksum`` of a code cell: MD5 over the source, the type, whether
    it is a grade, solution and locked cell, the grade id and (for a grade cell) the points.
    A grade cell is locked, a solution cell never (nbgrader's ``is_locked``)."""
    import hashlib

    digest = hashlib.md5(usedforsecurity=False)
    locked = grade and not solution
    for part in (source, "code", str(grade), str(solution), str(locked), cell_id):
        digest.update(part.encode("utf-8"))
    if grade:
        digest.update(str(float(points)).encode("utf-8"))
    return digest.hexdigest()


def mark_notebook(nb: Any, exercise: str, points: int, name: str = "notebook") -> Any:
    """``nb`` with nbgrader's cells (a copy): the answer cell a solution cell (its source
    ending in a newline, where the solution region's stub goes), the cell after it the grade
    cell :data:`GRADE_CELL` worth ``points``. Raises ``ValueError`` (see the module rules)."""
    out = copy.deepcopy(nb)
    answer, check = _cells(out, name)
    if not answer.source.endswith("\n"):
        answer.source += "\n"
    answer.metadata["nbgrader"] = _meta(exercise, "answer", points, answer.source)
    if check.source != GRADE_CELL:
        check.source = GRADE_CELL
        check.outputs = []
        check.execution_count = None
    check.metadata["nbgrader"] = _meta(exercise, "check", points, check.source)
    return out


def source_notebook(exercise_nb: Any, solution_nb: Any, name: str = "notebook") -> Any:
    """The nbgrader source of an exercise: ``exercise_nb`` without outputs, the worked answer
    of ``solution_nb``'s answer cell in a solution region after the template. Raises
    ``ValueError`` when either lacks its answer cell."""
    out = copy.deepcopy(exercise_nb)
    answer, check = _cells(out, name)
    solved, _ = _cells(solution_nb, f"{name} (solution)")
    for cell in (answer, check):  # a source notebook carries no checksum: nbgrader adds it
        for key in ("checksum", "cell_type"):
            cell.metadata.get("nbgrader", {}).pop(key, None)
    answer.source = (
        answer.source.rstrip("\n")
        + "\n### BEGIN SOLUTION\n"
        + solved.source.strip("\n")
        + "\n### END SOLUTION"
    )
    for cell in out.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
            cell.metadata.pop("execution", None)
    out.metadata.pop("widgets", None)
    return out


def build_course(
    out: Path,
    assignments: Mapping[str, Assignment],
    course: Path,
    *,
    edition: str = "ja",
    course_id: str = "mcpmini",
) -> list[Path]:
    """Write the nbgrader course folder ``out`` (see the module doc) for ``assignments`` from
    the course checkout ``course`` (``en/`` for the English edition). Returns the source
    notebooks written. Raises ``FileNotFoundError`` naming a missing exercise or solution
    notebook (nothing is written then)."""
    import nbformat

    base = course / "en" if edition == "en" else course
    plan: list[tuple[Path, Any]] = []
    for name, assignment in assignments.items():
        for exercise in assignment.exercises:
            stem = NOTEBOOKS[exercise]
            given, solved = (
                base / "exercises" / f"{stem}.ipynb",
                base / "solutions" / f"{stem}.ipynb",
            )
            for path in (given, solved):
                if not path.is_file():
                    raise FileNotFoundError(f"no notebook {path}")
            nb = source_notebook(
                nbformat.read(given, as_version=4), nbformat.read(solved, as_version=4), stem
            )
            plan.append((out / "source" / name / f"{stem}.ipynb", nb))
    out.mkdir(parents=True, exist_ok=True)
    (out / "nbgrader_config.py").write_text(
        NBGRADER_CONFIG.format(course_id=course_id), encoding="utf-8"
    )
    for path, nb in plan:
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, path)
    return [path for path, _ in plan]
