"""The classroom: a hub for a class, collecting, grading, feedback and the class summary.

:mod:`.hub` sets up ``make hub`` (one OS account per learner as root, the class mode);
:mod:`.collection` gathers hub homes and LMS downloads into nbgrader's ``submitted/``;
:mod:`.assignments` says which exercises each assignment set, when it is due and what lateness
costs; :mod:`.batch` finds the submissions, runs them in parallel, writes and resumes the CSV;
:mod:`.execution` runs one notebook in a fresh kernel (inside bubblewrap where available) and
reads its answer back under a nonce; :mod:`.cluster` does the same on a Dask cluster over TLS;
:mod:`.feedback` writes the pages nbgrader's ``release_feedback`` takes and returns them into
the hub homes; :mod:`.nbgrader` builds the nbgrader course of the exercises; :mod:`.summary`
draws the class at a glance.
"""

from __future__ import annotations

from .assignments import (
    Assignment,
    AssignmentError,
    LatePolicy,
    parse_assignments,
    read_assignments,
)
from .batch import (
    COLUMNS,
    GradeRow,
    RowStatus,
    Submission,
    SubmissionError,
    answers_path,
    find_submissions,
    grade_class,
    grade_notebook,
    identify_exercise,
    read_csv,
    read_grades,
    write_csv,
)
from .collection import (
    COPIED,
    PROBLEMS,
    Collected,
    CollectError,
    CollectStatus,
    collect,
    collect_homes,
    collect_zip,
    read_names,
)
from .feedback import page_name, render_page, return_feedback, write_feedback, write_gradebook
from .roster import RosterError, is_learner_name, parse_roster, read_roster

__all__ = [
    "COLUMNS",
    "COPIED",
    "PROBLEMS",
    "Assignment",
    "AssignmentError",
    "CollectError",
    "CollectStatus",
    "Collected",
    "GradeRow",
    "LatePolicy",
    "RosterError",
    "RowStatus",
    "Submission",
    "SubmissionError",
    "answers_path",
    "collect",
    "collect_homes",
    "collect_zip",
    "find_submissions",
    "grade_class",
    "grade_notebook",
    "identify_exercise",
    "is_learner_name",
    "page_name",
    "parse_assignments",
    "parse_roster",
    "read_assignments",
    "read_csv",
    "read_grades",
    "read_names",
    "read_roster",
    "render_page",
    "return_feedback",
    "write_csv",
    "write_feedback",
    "write_gradebook",
]
