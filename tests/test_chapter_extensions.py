"""Exercises 9.3 and 9.4 speak the learner's language: statement, parts, messages, hints and
solution, and the practice variants (course/chapters/extensions.py)."""

from __future__ import annotations

import contextlib
import io
import random

import pytest

from mcpmini.course.chapters.extensions import build_9_3, build_9_4, practice_9_3, practice_9_4
from mcpmini.course.edition import japanese_chars
from mcpmini.course.language import Lang, use

WRONG = {
    "9.3": {
        "default": "blocked",
        "block": "proceeds",
        "guard_setting": "continue",
        "formatter_setting": "block",
        "post_tool_use_can_block": True,
        "why_guard": "B",
    },
    "9.4": {
        "upper_bound": 35000,
        "dropped_at_least": 0,
        "tokens_each": 6000,
        "dropped": ["skill-7"],
        "why_dropped": "C",
    },
}


def _everything(build, answer):
    exercise = build()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exercise.describe()
        exercise.solution()
        for n in range(1, len(exercise.hints) + 1):
            exercise.hint(n)
    return (
        str(exercise.title)
        + str(exercise.statement)
        + out.getvalue()
        + str(
            exercise.check(answer, record=False)
            if _takes_record(exercise)
            else exercise.check(answer)
        )
    )


def _takes_record(exercise) -> bool:
    import inspect

    return "record" in inspect.signature(exercise.check).parameters


@pytest.mark.parametrize(("key", "build"), [("9.3", build_9_3), ("9.4", build_9_4)])
def test_the_english_exercise_holds_no_japanese_and_the_japanese_one_is_japanese(
    key, build, tmp_path, monkeypatch
):
    monkeypatch.setenv("MCPMINI_PROGRESS", "off")
    with use(Lang.EN):
        english = _everything(build, WRONG[key])
    with use(Lang.JA):
        japanese = _everything(build, WRONG[key])
    assert japanese_chars(english) == 0, english
    assert japanese_chars(japanese) > 100


def test_the_9_3_feedback_says_a_post_tool_use_failure_reaches_claude():
    exercise = build_9_3()
    with use(Lang.EN):
        text = str(exercise.solution_text)
    assert "the failure is reported to Claude" in text
    assert "blocked = False" in text


@pytest.mark.parametrize("practice", [practice_9_3, practice_9_4])
def test_the_practice_variants_speak_english_too(practice):
    for seed in range(6):
        exercise = practice(random.Random(seed))
        with use(Lang.EN):
            text = str(exercise.title) + str(exercise.statement) + str(exercise.solution_text)
            text += "".join(str(p.prompt) for p in exercise.parts)
        assert japanese_chars(text) == 0, text
        assert text.count("(practice)") == 1
