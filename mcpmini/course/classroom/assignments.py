"""Assignments: which exercises were set, when they are due, and what lateness costs.

An instructor defines a class's assignments in one YAML file (``assignments.yaml`` beside
``submitted/``, or named with ``mcpmini grade --assignments FILE``)::

    week1:
      exercises: ["9.1", "9.2"]
      due: 2026-12-10 23:59 +09:00
      late: none            # none | zero | per_day 10
    week2:
      exercises: ["9.3", "9.4", "P.1"]
      due: 2026-12-17T23:59:00Z
      late: per_day 20

The names are nbgrader's assignment names, the folder under ``submitted/<learner>/``.
``late`` follows nbgrader's ``LateSubmissionPlugin``: ``none`` marks a late notebook and takes
nothing, ``zero`` takes every point (nbgrader's ``penalty_method = "zero"``), ``per_day P``
takes P % of the notebook's maximum for every started day past the due date (never below 0).
A notebook is late when its submission time (nbgrader's ``timestamp.txt`` of the submission
folder) is after ``due``, or when the LMS marked it late (Canvas's ``_LATE_``, recorded by
``mcpmini collect`` in :data:`LATE_FILE`).

Without a file every folder is the one assignment :data:`DEFAULT_ASSIGNMENT` of no due date,
whose exercises are the article's four (and the practice track's when one of them was handed
in), as before assignments existed.

Rules of this module: every name is checked whole (``fullmatch``); a file is read completely
before anything is graded, and the first thing wrong in it is an :class:`AssignmentError`
naming the file, the assignment and the item (an unknown exercise, a due date without a time
zone, an unknown late policy) — nothing is graded then.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

__all__ = [
    "ASSIGNMENTS_FILE",
    "ASSIGNMENT_NAME",
    "DEFAULT_ASSIGNMENT",
    "LATE_FILE",
    "NOTEBOOKS",
    "Assignment",
    "AssignmentError",
    "LateKind",
    "LatePolicy",
    "default_exercises",
    "find_assignments",
    "is_assignment_name",
    "parse_assignments",
    "read_assignments",
    "read_timestamp",
]

#: The file ``mcpmini grade`` looks for beside ``submitted/`` when none is named.
ASSIGNMENTS_FILE = "assignments.yaml"
#: The assignment of a folder when no assignments file says otherwise (the hub's folder name).
DEFAULT_ASSIGNMENT = "exercises"
#: Written by ``mcpmini collect`` into a submission folder the LMS marked late.
LATE_FILE = "late.txt"
#: An assignment name: a folder name nbgrader accepts (matched whole).
ASSIGNMENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")

#: Each exercise's notebook, as ``exercises/`` and ``solutions/`` name it (nbgrader's notebook
#: id: feedback pages are named after it). ``tests/test_assignments.py`` checks the folders.
NOTEBOOKS: dict[str, str] = {
    "9.1": "9_1_version_negotiation",
    "9.2": "9_2_request_ids",
    "9.3": "9_3_hook_failure",
    "9.4": "9_4_skill_reattach",
    "P.1": "P_1_exposed_names",
    "P.2": "P_2_permission_layers",
    "P.3": "P_3_sandbox_limits",
    "P.4": "P_4_truncation_budget",
    "C.1": "C_1_weather_routing",
}


class AssignmentError(ValueError):
    """An assignments file that cannot be used; the message names the file and the item."""


class LateKind(StrEnum):
    """What lateness costs (nbgrader's ``penalty_method`` names where it has one)."""

    NONE = "none"
    ZERO = "zero"
    PER_DAY = "per_day"


@dataclass(frozen=True)
class LatePolicy:
    """A late policy: its kind and, for ``per_day``, the percent taken per started day."""

    kind: LateKind = LateKind.NONE
    percent: int = 0

    def __str__(self) -> str:
        return f"per_day {self.percent}" if self.kind is LateKind.PER_DAY else self.kind.value


@dataclass(frozen=True)
class Assignment:
    """One assignment: its name (the folder), its exercises in order, the due date (aware, or
    ``None``) and the late policy."""

    name: str
    exercises: tuple[str, ...]
    due: datetime | None = None
    late: LatePolicy = LatePolicy()

    def lateness(self, submitted: datetime | None, flagged: bool = False) -> float:
        """Seconds past the due date (``0.0`` when on time or when either time is unknown);
        an LMS's own late mark counts as at least one second."""
        seconds = 0.0
        if self.due is not None and submitted is not None:
            seconds = max(0.0, (submitted - self.due).total_seconds())
        return max(seconds, 1.0) if flagged else seconds

    def penalty(self, score: int, max_score: int, late_seconds: float) -> int:
        """The points a notebook of ``score`` out of ``max_score``, ``late_seconds`` late, loses."""
        if late_seconds <= 0 or score <= 0:
            return 0
        if self.late.kind is LateKind.ZERO:
            return score
        if self.late.kind is LateKind.PER_DAY:
            days = math.ceil(late_seconds / 86400)
            return min(score, round(max_score * self.late.percent * days / 100))
        return 0


def is_assignment_name(name: str) -> bool:
    """Whether ``name`` can be an assignment (a single safe folder name, checked whole)."""
    return (
        isinstance(name, str)
        and ASSIGNMENT_NAME.fullmatch(name) is not None
        and ".." not in name
        and name != "."
    )


def default_exercises(handed_in: Sequence[str] = ()) -> tuple[str, ...]:
    """The exercises of an undefined assignment: the article's four, and the practice track's
    when ``handed_in`` holds one of them."""
    from ..catalogue import EXERCISE_IDS, PRACTICE_IDS

    practice = bool(set(handed_in) & set(PRACTICE_IDS))
    return EXERCISE_IDS + (PRACTICE_IDS if practice else ())


def _due(value: Any, where: str) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        when = value
    elif isinstance(value, str):
        text = value.strip()
        text = text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text
        text = re.sub(r"\s+([+-]\d\d:?\d\d)$", r"\1", text)
        try:
            when = datetime.fromisoformat(text)
        except ValueError:
            raise AssignmentError(f"{where}: due {value!r} is not a date and time") from None
    else:
        raise AssignmentError(f"{where}: due {value!r} is not a date and time")
    if when.tzinfo is None:
        raise AssignmentError(f"{where}: due {value!s} has no time zone (add +09:00, Z, ...)")
    return when


_PER_DAY = re.compile(r"per_day\s+(\d{1,3})\s*%?")


def _late(value: Any, where: str) -> LatePolicy:
    if value is None:
        return LatePolicy()
    text = str(value).strip()
    if text in (LateKind.NONE.value, LateKind.ZERO.value):
        return LatePolicy(LateKind(text))
    match = _PER_DAY.fullmatch(text)
    if match and 0 < int(match.group(1)) <= 100:
        return LatePolicy(LateKind.PER_DAY, int(match.group(1)))
    raise AssignmentError(
        f"{where}: late {value!r} is not a late policy (none, zero or per_day P, 1 <= P <= 100)"
    )


def _one(name: Any, body: Any, source: str) -> Assignment:
    from ..catalogue import ALL_IDS

    where = f"{source}: {name}"
    if not isinstance(name, str) or not is_assignment_name(name):
        raise AssignmentError(f"{source}: {name!r} is not an assignment name (a folder name)")
    if not isinstance(body, Mapping):
        raise AssignmentError(f"{where}: expected exercises:, due: and late:")
    unknown_keys = sorted(set(map(str, body)) - {"exercises", "due", "late"})
    if unknown_keys:
        raise AssignmentError(f"{where}: unknown key {unknown_keys[0]!r}")
    raw = body.get("exercises")
    if not isinstance(raw, list) or not raw:
        raise AssignmentError(f"{where}: exercises must be a list of exercise ids")
    exercises: list[str] = []
    for item in raw:
        text = str(item).strip()
        if text not in ALL_IDS:
            raise AssignmentError(
                f"{where}: unknown exercise {item!r} (one of {', '.join(ALL_IDS)})"
            )
        if text in exercises:
            raise AssignmentError(f"{where}: exercise {text} listed twice")
        exercises.append(text)
    return Assignment(
        name, tuple(exercises), _due(body.get("due"), where), _late(body.get("late"), where)
    )


def parse_assignments(text: str, source: str = ASSIGNMENTS_FILE) -> dict[str, Assignment]:
    """The assignments of a YAML text, by name. Raises :class:`AssignmentError` (see the
    module rules)."""
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise AssignmentError(f"{source}{line}: not YAML") from None
    if not isinstance(data, Mapping) or not data:
        raise AssignmentError(f"{source}: expected one entry per assignment")
    return {str(name): _one(name, body, source) for name, body in data.items()}


def read_assignments(path: Path) -> dict[str, Assignment]:
    """:func:`parse_assignments` of the file ``path``; an unreadable file is an
    :class:`AssignmentError` too."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AssignmentError(f"{path}: cannot be read ({exc})") from None
    return parse_assignments(text, str(path))


def find_assignments(paths: Sequence[Path]) -> Path | None:
    """The :data:`ASSIGNMENTS_FILE` of the course folder the first of ``paths`` lies in (the
    folder holding ``submitted/``, or ``paths[0]`` itself), or ``None``."""
    for raw in paths[:1]:
        here = Path(raw).absolute()
        for place in (here, *here.parents):
            if place.name == "submitted":
                candidate = place.parent / ASSIGNMENTS_FILE
                return candidate if candidate.is_file() else None
        if (here / "submitted").is_dir() and (here / ASSIGNMENTS_FILE).is_file():
            return here / ASSIGNMENTS_FILE
    return None


def read_timestamp(folder: Path) -> datetime | None:
    """The submission time in ``folder/timestamp.txt`` (nbgrader's
    ``%Y-%m-%d %H:%M:%S.%f %Z``, or ISO 8601), aware; ``None`` when missing or unreadable.
    A time without a zone is taken as UTC, as nbgrader does."""
    place = folder / "timestamp.txt"
    if place.is_symlink():  # a learner's link is never followed
        return None
    try:
        text = place.read_text(encoding="utf-8").strip()[:100]
    except (OSError, UnicodeDecodeError):
        return None
    text = re.sub(r"\s*(UTC|GMT|Z)$", "+00:00", text)
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)
