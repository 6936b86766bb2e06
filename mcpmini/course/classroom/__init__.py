"""Class grading (``mcpmini grade``): every learner's notebook run in its own sandbox and
graded with the same checkers the learner sees.

:mod:`.batch` finds the submissions, runs them in parallel, writes and resumes the CSV;
:mod:`.execution` runs one notebook in a fresh kernel (inside bubblewrap where available) and
reads its answer back under a nonce.
"""

from __future__ import annotations

from .batch import (
    COLUMNS,
    GradeRow,
    RowStatus,
    Submission,
    answers_path,
    find_submissions,
    grade_class,
    grade_notebook,
    identify_exercise,
    read_csv,
    read_grades,
    write_csv,
)
from .collection import COPIED, Collected, CollectStatus, collect, collect_homes, collect_zip
from .feedback import page_name, render_page, write_feedback, write_gradebook
from .roster import RosterError, is_learner_name, parse_roster, read_roster

__all__ = [
    "COLUMNS",
    "COPIED",
    "CollectStatus",
    "Collected",
    "GradeRow",
    "RosterError",
    "RowStatus",
    "Submission",
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
    "parse_roster",
    "read_csv",
    "read_grades",
    "read_roster",
    "render_page",
    "write_csv",
    "write_feedback",
    "write_gradebook",
]
