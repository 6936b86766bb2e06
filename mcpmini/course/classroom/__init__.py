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
    find_submissions,
    grade_class,
    grade_notebook,
    identify_exercise,
    read_csv,
    write_csv,
)
from .collection import COPIED, Collected, CollectStatus, collect, collect_homes, collect_zip
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
    "collect",
    "collect_homes",
    "collect_zip",
    "find_submissions",
    "grade_class",
    "grade_notebook",
    "identify_exercise",
    "is_learner_name",
    "parse_roster",
    "read_csv",
    "read_roster",
    "write_csv",
]
