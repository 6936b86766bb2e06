"""Exercises P.1–P.4: keys computed by the runtime, registered with the 9.x framework, the
sandbox prediction agrees with live runs, and the committed notebooks start empty / full."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from exercise_support import answer_of

from mcpmini.agent import Limits, SandboxOutcome, run_python
from mcpmini.course import (
    ALL_IDS,
    CCAF_IDS,
    EXERCISE_IDS,
    PRACTICE_IDS,
    TITLES,
    Lang,
    Status,
    get_exercise,
    use,
)
from mcpmini.course.classroom import identify_exercise
from mcpmini.course.practice import P3_LIMITS, Workload, loop_context, predict_run

ROOT = Path(__file__).resolve().parent.parent
SLUGS = {
    "P.1": "P_1_exposed_names",
    "P.2": "P_2_permission_layers",
    "P.3": "P_3_sandbox_limits",
    "P.4": "P_4_truncation_budget",
}


def test_practice_ids_are_registered_beside_the_articles():
    assert ALL_IDS == EXERCISE_IDS + PRACTICE_IDS + CCAF_IDS
    assert PRACTICE_IDS == ("P.1", "P.2", "P.3", "P.4")
    assert all(TITLES[i] for i in PRACTICE_IDS)


@pytest.mark.parametrize("exercise_id", PRACTICE_IDS)
def test_the_key_scores_full_and_the_template_is_not_attempted(exercise_id):
    ex = get_exercise(exercise_id)
    assert ex.grade(ex.answer_key()).score == ex.max_score
    assert ex.grade(ex.template()).status is Status.NOT_ATTEMPTED


def test_the_p1_key_names_the_collision_and_the_long_name():
    key = get_exercise("P.1").answer_key()
    assert key["collisions"] == ["crm__eu__lookup"] and key["plain_collisions"] == ["add"]
    assert key["split_server"] == "crm" and len(key["too_long"][0]) > 64


def test_the_p2_key_refuses_each_call_at_its_layer():
    key = get_exercise("P.2").answer_key()
    assert key["refused_at"] == {"a": "plan", "b": "session", "c": "user", "d": "plan", "e": "none"}
    assert key["either_extra"] == ["interp__execute_code"]


def test_the_p4_budgets_come_from_real_loop_runs():
    key = get_exercise("P.4").answer_key()
    assert key["largest_budget"] == "2000" and key["fits_without_truncation"] is False
    assert max(loop_context(2_000)) < max(loop_context(8_000)) < max(loop_context(None))


def test_a_wrong_p3_outcome_gets_a_specific_mark():
    ex = get_exercise("P.3")
    answer = ex.answer_key()
    answer["runs"]["b"] = "timeout"
    report = ex.grade(answer)
    assert report.status is Status.INCORRECT and report.count(Status.INCORRECT) == 1


@pytest.mark.parametrize(
    "work",
    [
        Workload(memory_mb=20, cpu_seconds=0.2, output_bytes=100),
        Workload(memory_mb=300),
        Workload(memory_mb=20, output_bytes=20_000),
        Workload(memory_mb=20, cpu_seconds=0.1, exit_code=1),
    ],
)
def test_the_prediction_agrees_with_a_live_sandbox_run(work, tmp_path):
    # a generous wall clock: none of these workloads depends on it, and a loaded CI
    # machine must not turn a start-up delay into a timeout
    limits = Limits(
        wall_seconds=60,
        cpu_seconds=P3_LIMITS.cpu_seconds,
        memory_mb=P3_LIMITS.memory_mb,
        output_bytes=P3_LIMITS.output_bytes,
    )
    assert predict_run(work, limits) is predict_run(work, P3_LIMITS)
    assert run_python(work.code(), tmp_path, limits).outcome is predict_run(work, limits)


def test_cpu_beyond_the_limit_is_predicted_and_observed_as_a_cpu_kill(tmp_path):
    limits = Limits(wall_seconds=60, cpu_seconds=1, memory_mb=128, output_bytes=4000)
    work = Workload(memory_mb=20, cpu_seconds=3.0)
    assert predict_run(work, limits) is SandboxOutcome.CPU_LIMIT
    assert run_python(work.code(), tmp_path, limits).outcome is SandboxOutcome.CPU_LIMIT


def test_practice_notebooks_are_identified_by_metadata_or_file_name(tmp_path):
    assert identify_exercise(tmp_path / "P_3_copy.ipynb") == "P.3"
    assert (
        identify_exercise(tmp_path / "x.ipynb", {"metadata": {"mcpmini": {"exercise": "P.2"}}})
        == "P.2"
    )


def _answer(path: Path) -> object:
    return answer_of(path, PRACTICE_IDS)


@pytest.mark.parametrize("exercise_id", PRACTICE_IDS)
def test_practice_notebooks_start_empty_and_solutions_score_full(exercise_id):
    ex = get_exercise(exercise_id)
    untouched = _answer(ROOT / "exercises" / f"{SLUGS[exercise_id]}.ipynb")
    assert ex.grade(untouched).status is Status.NOT_ATTEMPTED
    solved = _answer(ROOT / "solutions" / f"{SLUGS[exercise_id]}.ipynb")
    assert ex.grade(solved).score == ex.max_score


def test_the_class_grader_scores_practice_notebooks(tmp_path, monkeypatch):
    import shutil

    from mcpmini.course.classroom import find_submissions, grade_class

    monkeypatch.setenv("MCPMINI_PROGRESS", str(tmp_path / "progress.json"))
    learner = tmp_path / "class" / "yui"
    learner.mkdir(parents=True)
    shutil.copy(ROOT / "solutions" / f"{SLUGS['P.2']}.ipynb", learner)
    shutil.copy(ROOT / "exercises" / f"{SLUGS['P.1']}.ipynb", learner)
    jobs = {(j.exercise, j.path is None) for j in find_submissions([learner])}
    assert ("P.3", True) in jobs and ("9.1", True) in jobs and ("P.2", False) in jobs
    rows = grade_class([learner], tmp_path / "grades.csv", workers=2, timeout=120, progress=False)
    by = {r.exercise: r for r in rows}
    assert (by["P.2"].status.value, by["P.2"].score) == ("graded", get_exercise("P.2").max_score)
    assert by["P.1"].status.value == "not_attempted"


JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


def _everything_printed(ex, capsys) -> str:
    ex.describe()
    for n in range(1, len(ex.hints) + 1):
        ex.hint(n)
    ex.solution()
    answer = ex.answer_key()
    print(ex.grade(answer))
    print(ex.grade(ex.template()))
    return f"{ex.statement}\n{ex.title}\n" + capsys.readouterr().out


@pytest.mark.parametrize("exercise_id", PRACTICE_IDS)
def test_every_text_of_a_practice_exercise_is_english_in_the_english_edition(exercise_id, capsys):
    ex = get_exercise(exercise_id)
    with use(Lang.EN):
        english = _everything_printed(ex, capsys)
    with use(Lang.JA):
        japanese = _everything_printed(ex, capsys)
    assert not JAPANESE.search(english), JAPANESE.findall(english)[:5]
    assert JAPANESE.search(japanese)
    # the same facts in both: every number the Japanese prints, the English prints too
    numbers = re.compile(r"\d[\d,.]*")
    assert sorted(set(numbers.findall(japanese))) == sorted(set(numbers.findall(english)))


def test_a_wrong_answer_gets_its_mistake_in_the_learners_language():
    ex = get_exercise("P.1")
    answer = ex.answer_key()
    answer["split_server"] = "crm__eu"
    with use(Lang.EN):
        assert "Split at the first __, the server name is crm." in ex.grade(answer).feedback()
    with use(Lang.JA):
        assert "最初の __ で分けると、サーバ名は crm になります。" in ex.grade(answer).feedback()
