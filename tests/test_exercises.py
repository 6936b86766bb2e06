"""Exercises 9.1-9.4: keys from the runtime agree with the article, practice instances
are gradable, and the committed notebooks start empty (exercises) or full (solutions)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from exercise_support import answer_of

from mcpmini.course import EXERCISE_IDS, Kind, Status, get_exercise, practice
from mcpmini.course.chapters import (
    Fate,
    Setting,
    id_violations,
    negotiate_handshake,
    negotiate_per_request,
    outstanding_is_injective,
)
from mcpmini.mcp import LEGACY, MODERN

ROOT = Path(__file__).resolve().parent.parent
SLUGS = {
    "9.1": "9_1_version_negotiation",
    "9.2": "9_2_request_ids",
    "9.3": "9_3_hook_failure",
    "9.4": "9_4_skill_reattach",
}


def test_the_9_1_key_matches_the_articles_answers():
    key = get_exercise("9.1").answer_key()
    assert key["a"] == {"handshake": True, "per_request": True}
    assert key["b"] == {"handshake": False, "per_request": True, "requests": 2}
    assert key["c"] == {"handshake": False, "per_request": False}
    assert key["why_b"] == "B"


def test_the_9_2_key_matches_the_articles_answers():
    key = get_exercise("9.2").answer_key()
    assert key == {
        "violates_2025_11_25": True,
        "violates_2026_07_28": False,
        "hypothesis_holds": True,
        "outstanding_after": 1,
        "why": "B",
    }


def test_the_9_3_key_comes_from_a_real_hook_registration():
    key = get_exercise("9.3").answer_key()
    assert key["default"] == Fate.PROCEEDS.value and key["block"] == Fate.BLOCKED.value
    assert key["guard_setting"] == Setting.BLOCK.value
    assert key["formatter_setting"] == Setting.CONTINUE.value
    assert key["post_tool_use_can_block"] is False and key["why_guard"] == "A"


def test_the_9_4_key_matches_the_articles_answers():
    key = get_exercise("9.4").answer_key()
    assert (key["upper_bound"], key["dropped_at_least"], key["tokens_each"]) == (25_000, 2, 5_000)
    assert key["dropped"] == ["skill-1", "skill-2"] and key["why_dropped"] == "A"


@pytest.mark.parametrize("exercise_id", EXERCISE_IDS)
def test_every_exercise_grades_its_key_full_and_its_template_not_attempted(exercise_id):
    ex = get_exercise(exercise_id)
    assert ex.grade(ex.answer_key()).score == ex.max_score
    assert ex.grade(ex.template()).status is Status.NOT_ATTEMPTED
    for part in ex.parts:
        if part.kind is Kind.CHOICE:
            assert sum(c.correct for c in part.choices) == 1
            assert all(c.why for c in part.choices if not c.correct)


def test_common_mistakes_get_different_messages():
    ex = get_exercise("9.4")
    msgs = {
        v: {r.key: r for r in ex.grade({"upper_bound": v}).results}["upper_bound"]
        for v in (35_000, 42_000, 30_000)
    }
    assert all(r.status is Status.INCORRECT for r in msgs.values())
    assert len({r.message for r in msgs.values()}) == 3
    ex1 = get_exercise("9.1")
    wrong_b = {r.key: r for r in ex1.grade({"b": {"handshake": True}}).results}["b.handshake"]
    wrong_a = {r.key: r for r in ex1.grade({"a": {"handshake": False}}).results}["a.handshake"]
    assert wrong_a.message != wrong_b.message


@pytest.mark.parametrize(
    "exercise_id,seeds", [("9.1", 150), ("9.2", 150), ("9.3", 12), ("9.4", 150)]
)
def test_practice_instances_grade_their_key_full_and_their_template_empty(exercise_id, seeds):
    for seed in range(seeds):
        p = practice(exercise_id, seed)
        assert p.practice and p.variable == "practice_answer"
        assert p.grade(p.answer_key()).status is Status.CORRECT, (exercise_id, seed)
        assert p.grade(p.template()).status is Status.NOT_ATTEMPTED


def test_the_same_seed_gives_the_same_instance_and_seeds_vary():
    assert practice("9.4", 3).statement == practice("9.4", 3).statement
    assert len({practice("9.1", s).statement for s in range(20)}) > 5


def test_practice_data_lets_a_solver_recompute_the_key_with_the_runtime():
    for seed in range(40):
        p = practice("9.1", seed)
        c, s = p.data["C"], p.data["S"]
        hs, pr = negotiate_handshake(c, s), negotiate_per_request(c, s)
        answer = {
            "handshake": hs.ok,
            "per_request": pr.ok,
            "requests": pr.requests,
            "handshake_version": hs.agreed or "none",
        }
        assert p.grade(answer).status is Status.CORRECT
        q = practice("9.2", seed)
        h = q.data["history"]
        answer = {
            "violates_2025_11_25": bool(id_violations(h, LEGACY)),
            "violates_2026_07_28": bool(id_violations(h, MODERN)),
            "hypothesis_holds": outstanding_is_injective(h),
        }
        assert q.grade(answer).status is Status.CORRECT


def test_unknown_exercises_are_a_key_error():
    with pytest.raises(KeyError):
        get_exercise("9.9")
    with pytest.raises(KeyError):
        practice("1.1")


def _answer(path: Path) -> object:
    return answer_of(path, EXERCISE_IDS)


@pytest.mark.parametrize("exercise_id", EXERCISE_IDS)
def test_exercise_notebooks_start_empty_and_solutions_score_full(exercise_id):
    ex = get_exercise(exercise_id)
    untouched = _answer(ROOT / "exercises" / f"{SLUGS[exercise_id]}.ipynb")
    assert untouched == ex.template()
    solved = _answer(ROOT / "solutions" / f"{SLUGS[exercise_id]}.ipynb")
    assert ex.grade(solved).score == ex.max_score


def _code(path: Path) -> list[str]:
    return [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


def test_the_fixture_class_copies_are_the_current_notebooks():
    fixtures = ROOT / "tests" / "fixtures" / "class"
    for slug in SLUGS.values():
        assert _code(fixtures / "ada" / f"{slug}.ipynb") == _code(
            ROOT / "solutions" / f"{slug}.ipynb"
        )
    exercise_91 = _code(ROOT / "exercises" / f"{SLUGS['9.1']}.ipynb")
    assert _code(fixtures / "ben" / f"{SLUGS['9.1']}.ipynb") == exercise_91
    assert _code(fixtures / "lea" / f"{SLUGS['9.1']}-Copy1.ipynb") == exercise_91


@pytest.mark.parametrize("exercise_id", ["9.1", "9.2"])
def test_the_protocol_exercises_speak_each_language_whole(exercise_id):
    """Statement, prompts, choices, messages, hints and solution of 9.1 and 9.2 are Text
    pairs: in English no Japanese is left, in Japanese every text is Japanese."""
    import random

    from mcpmini.course import Lang, say, use
    from mcpmini.course.chapters.exercises import BUILDERS, PRACTICE_BUILDERS

    def texts(ex):
        found = [ex.title, ex.statement, ex.solution_text, *ex.hints]
        for part in ex.parts:
            found.append(part.prompt)
            found.extend(why for _, why in part.mistakes)
            found.append(getattr(part, "otherwise", ""))
            for choice in getattr(part, "choices", ()) or ():
                found.extend([choice.text, choice.why])
        return [t for t in found if t]

    def japanese(text: str) -> bool:
        return any("\u3040" <= ch <= "\u9fff" for ch in text)

    for ex in (BUILDERS[exercise_id](), PRACTICE_BUILDERS[exercise_id](random.Random(3))):
        found = texts(ex)
        assert found
        for text in found:
            assert not japanese(say(text, Lang.EN)), say(text, Lang.EN)
            assert japanese(say(text, Lang.JA)), say(text, Lang.JA)
        with use(Lang.EN):
            report = str(ex.check({}, record=False))
        assert not japanese(report)
