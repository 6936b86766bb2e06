"""Every exercise of the course by id: the article's 9.1–9.4, the practice track's P.1–P.4,
then the CCA-F track's C.1.

The notebooks, the exercise notebooks and the class grader look exercises up here
(:func:`get_exercise`, :func:`practice`); each track builds its own (``chapters.exercises``,
``practice.exercises``, ``ccaf.exercises``) and this module only puts them in one table. An id
is the track's letter (none for the article, ``P`` practice, ``C`` CCA-F) and a number.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache, partial

from .ccaf.exercises import CCAF_IDS, build_ccaf, practice_ccaf
from .ccaf.exercises import TITLES as CCAF_TITLES
from .chapters.exercises import BUILDERS as CHAPTER_BUILDERS
from .chapters.exercises import EXERCISE_IDS, PRACTICE_BUILDERS
from .chapters.exercises import TITLES as CHAPTER_TITLES
from .grading import Exercise
from .practice.exercises import PRACTICE_IDS, build_practice
from .practice.exercises import TITLES as PRACTICE_TITLES

__all__ = [
    "ALL_IDS",
    "CCAF_IDS",
    "EXERCISE_IDS",
    "PRACTICE_IDS",
    "TITLES",
    "get_exercise",
    "practice",
]

#: The article's exercises, then the practice track's (P.1–P.4), then the CCA-F track's (C.1).
ALL_IDS = EXERCISE_IDS + PRACTICE_IDS + CCAF_IDS
TITLES = {**CHAPTER_TITLES, **PRACTICE_TITLES, **CCAF_TITLES}

_BUILDERS: dict[str, Callable[[], Exercise]] = {
    **CHAPTER_BUILDERS,
    **{i: partial(build_practice, i) for i in PRACTICE_IDS},
    **{i: partial(build_ccaf, i) for i in CCAF_IDS},
}
_PRACTICE: dict[str, Callable[[random.Random], Exercise]] = {
    **PRACTICE_BUILDERS,
    **{i: partial(practice_ccaf, i) for i in CCAF_IDS},
}


@cache
def get_exercise(exercise_id: str) -> Exercise:
    """The exercise ``exercise_id`` (``"9.1"`` … ``"9.4"``, ``"P.1"`` … ``"P.4"``, ``"C.1"``),
    its key computed by the runtime.

    Raises ``KeyError`` for an unknown id.
    """
    if exercise_id not in _BUILDERS:
        raise KeyError(f"unknown exercise {exercise_id!r}; choose one of {list(ALL_IDS)}")
    return _BUILDERS[exercise_id]()


def practice(exercise_id: str, seed: int | None = None) -> Exercise:
    """A fresh random instance of ``exercise_id`` (same seed, same instance).

    Its answer variable is ``practice_answer``; checking it adds to the practice tally in
    the progress file. Raises ``KeyError`` for an unknown id.
    """
    if exercise_id not in _PRACTICE:
        raise KeyError(f"unknown exercise {exercise_id!r}; choose one of {list(_PRACTICE)}")
    return _PRACTICE[exercise_id](random.Random(seed))
