"""The CCA-F bank: integrity, computed keys, drawing, grading, the CLI and progress."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from mcpmini.cli.app import main
from mcpmini.course import ccaf, load_progress, quiz_summary, record_quiz
from mcpmini.course.ccaf import (
    KEY_FACTS,
    PASS_SCORE,
    ExamSession,
    bank_problems,
    clock_text,
    draw,
    grade,
    load_bank,
    parse_answers,
    scaled_score,
)

BANK = load_bank()
FULL = {it.id: sorted(it.correct) for it in BANK.items}


# --- integrity --------------------------------------------------------------------------


def test_the_bank_loads_without_a_single_problem() -> None:
    assert [str(p) for p in BANK.problems] == []


def test_ids_are_unique_and_no_two_stems_repeat() -> None:
    ids = [it.id for it in BANK.items]
    assert len(ids) == len(set(ids))
    stems = [" ".join(it.stem.split()) + "|" + " ".join(it.scenario.split()) for it in BANK.items]
    assert len(stems) == len(set(stems))


def test_every_wrong_option_has_a_rebuttal_and_pick_is_the_size_of_the_key() -> None:
    for it in BANK.items:
        assert it.pick == len(it.correct), it.id
        assert it.correct <= {o.id for o in it.options}, it.id
        for o in it.options:
            assert (o.rebuttal is None) == (o.id in it.correct), (it.id, o.id)


def test_domain_2_has_40_items_six_per_task_statement_and_a_quarter_multiple_response() -> None:
    d2 = [it for it in BANK.items if it.domain == 2]
    per_task = Counter(it.task for it in d2)
    assert len(d2) >= 40
    assert set(per_task) == {"2.1", "2.2", "2.3", "2.4", "2.5"}
    assert min(per_task.values()) >= 6
    assert sum(it.pick > 1 for it in BANK.items) / len(BANK.items) >= 0.25


def test_bank_problems_point_into_the_file_with_json_paths(tmp_path: Path) -> None:
    (tmp_path / "tasks.yaml").write_text(
        (Path(ccaf.__file__).parent / "data" / "tasks.yaml").read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    good = {
        "id": "p1",
        "task": "2.1",
        "scenario": "s",
        "stem": "q",
        "pick": 1,
        "answer": ["A"],
        "explanation": "e",
        "options": [
            {"id": "A", "text": "a"},
            {"id": "B", "text": "b", "rebuttal": "r"},
            {"id": "C", "text": "c", "rebuttal": "r"},
        ],
    }
    bad_option = dict(good, id="p2", options=[*good["options"][:2], {"id": "Z", "text": "z"}])
    unknown_fact = {k: v for k, v in good.items() if k != "answer"} | {
        "id": "p3",
        "compute": "no_such_fact",
    }
    twin = dict(good, scenario="other scenario")
    (tmp_path / "items.yaml").write_text(
        json.dumps({"items": [good, "not a mapping", bad_option, unknown_fact, twin]}),
        encoding="utf-8",
    )
    paths = {(p.path, p.message.split(":")[0]) for p in load_bank(tmp_path).problems}
    assert ("items[1]", "item must be a mapping") in paths
    assert ("items[2].options[2].id", "item skipped") in paths
    assert ("items[3].compute", "item skipped") in paths
    assert ("items[4]", "duplicate id (also in " + str(tmp_path / "items.yaml") + ")") in paths


def test_other_domains_have_three_items_per_mapped_task_statement() -> None:
    per_task = Counter(it.task for it in BANK.items if it.domain != 2)
    assert set(per_task) == {t.id for t in BANK.tasks if t.domain != 2}
    assert min(per_task.values()) >= 3


def test_the_five_seed_quiz_questions_are_in_the_bank() -> None:
    sources = sorted(it.source for it in BANK.items if it.source.startswith("seed quiz"))
    assert sources == [f"seed quiz {n}, rewritten" for n in range(1, 6)]


def test_domain_weights_add_up_to_100() -> None:
    assert {d.id: d.weight for d in BANK.domains} == {1: 27, 2: 18, 3: 20, 4: 20, 5: 15}


def test_the_integrity_check_catches_each_kind_of_broken_item(tmp_path: Path) -> None:
    (tmp_path / "tasks.yaml").write_text(
        (Path(ccaf.__file__).parent / "data" / "tasks.yaml").read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    item = {
        "id": "x1",
        "task": "2.1",
        "scenario": "s",
        "stem": "q",
        "pick": 2,
        "answer": ["A"],
        "explanation": "e",
        "options": [
            {"id": "A", "text": "a"},
            {"id": "B", "text": "b"},
            {"id": "C", "text": "c", "rebuttal": "r"},
        ],
    }
    twin = dict(item, id="x1")
    unknown_fact = dict(item, id="x2", compute="no_such_fact")
    del unknown_fact["answer"]
    (tmp_path / "items.yaml").write_text(
        json.dumps({"items": [item, twin, unknown_fact]}), encoding="utf-8"
    )
    (tmp_path / "broken.yaml").write_text("items: [unclosed", encoding="utf-8")
    bank = load_bank(tmp_path)
    messages = [p.message for p in bank.problems]
    assert any(m.startswith("invalid YAML") for m in messages)
    assert any("unknown fact" in m for m in messages)
    assert any(m.startswith("duplicate id") for m in messages)
    assert any(m.startswith("same scenario and stem") for m in messages)
    assert any(m.startswith("pick is 2") for m in messages)
    assert any("has no rebuttal" in m for m in messages)
    assert any(m == "task statement 2.2 has no items" for m in messages)
    assert bank_problems(BANK) == []


# --- computed keys ----------------------------------------------------------------------


def test_computed_keys_come_from_the_runtime() -> None:
    assert KEY_FACTS["tool_choice_any"]() == {"always_some_tool"}
    assert KEY_FACTS["tool_choice_named"]() == {"always_named_tool"}
    assert KEY_FACTS["tool_choice_auto"]() == {"may_answer_text"}
    assert KEY_FACTS["mcp_scope_winner"]() == {"project"}
    assert KEY_FACTS["mcp_scope_local"]() == {"local"}
    assert KEY_FACTS["var_default"]() == {"default"}
    assert KEY_FACTS["retried_kinds"]() == {"transient"}
    assert KEY_FACTS["edit_duplicate_anchor"]() == {"read_write"}
    assert KEY_FACTS["max_turns_calls"]() == {"4"}
    assert KEY_FACTS["hooks_combination"]() == {"merge"}
    assert KEY_FACTS["claude_md_combination"]() == {"additive"}


def test_a_computed_item_keys_the_option_whose_value_the_runtime_returns() -> None:
    item = BANK.item("d23-metadata-first")
    assert item.compute == "tool_choice_named"
    assert [o.value for o in item.options if o.id in item.correct] == ["always_named_tool"]


# --- drawing ----------------------------------------------------------------------------


def test_a_draw_is_reproducible_from_its_seed_and_has_no_repeats() -> None:
    first = [it.id for it in draw(BANK, 20, seed=7)]
    assert first == [it.id for it in draw(BANK, 20, seed=7)]
    assert len(set(first)) == 20
    assert first != [it.id for it in draw(BANK, 20, seed=8)]


def test_a_draw_follows_the_domain_weights() -> None:
    domains = Counter(it.domain for it in draw(BANK, 40, seed=3))
    # 27/18/20/20/15 % of 40, capped by what each domain holds (Domain 4 has 3 items)
    assert domains[4] == 3 and domains[1] == 9
    assert domains[2] >= 7 and sum(domains.values()) == 40


def test_a_draw_restricted_to_one_task_statement_only_holds_it() -> None:
    assert {it.task for it in draw(BANK, 5, seed=1, tasks=["2.3"])} == {"2.3"}


def test_drawing_more_than_the_pool_is_an_error() -> None:
    with pytest.raises(ValueError):
        draw(BANK, 7, tasks=["4.3"])
    with pytest.raises(ValueError):
        draw(BANK, 0)


# --- grading ----------------------------------------------------------------------------


def test_a_full_answer_set_scores_1000_and_an_empty_one_the_bottom() -> None:
    full = grade(BANK, FULL)
    assert (full.scaled, full.passed, full.correct) == (1000, True, len(BANK.items))
    empty = grade(BANK, {})
    assert (empty.scaled, empty.passed, empty.correct) == (100, False, 0)
    assert all(t.percent == 100.0 for t in full.by_task)
    assert {t.id for t in empty.by_task} == {t.id for t in BANK.tasks}


def test_the_scale_runs_from_100_to_1000_with_the_line_at_720() -> None:
    assert [scaled_score(n, 10) for n in (0, 5, 10)] == [100, 550, 1000]
    assert PASS_SCORE == 720
    with pytest.raises(ValueError):
        scaled_score(0, 0)


def test_a_multiple_response_item_counts_only_when_the_whole_set_is_right() -> None:
    item = next(it for it in BANK.items if it.pick == 2)
    half = sorted(item.correct)[:1]
    report = grade(BANK, {item.id: half}, [item.id])
    assert report.correct == 0 and report.results[0].rebuttals == {}


def test_every_miss_carries_the_rebuttal_of_the_option_chosen() -> None:
    item = BANK.item("d25-payment-declined-origin")
    wrong = next(o for o in item.options if o.id not in item.correct)
    report = grade(BANK, {item.id: [wrong.id]}, [item.id], flagged=[item.id])
    result = report.results[0]
    assert not result.is_correct and result.flagged
    assert result.rebuttals == {wrong.id: wrong.rebuttal}
    assert report.by_task[0].id == "2.5" and report.by_task[0].percent == 0.0


def test_grading_refuses_answers_for_items_outside_the_exam() -> None:
    with pytest.raises(ValueError):
        grade(BANK, {"no-such-item": ["A"]})
    with pytest.raises(ValueError):
        grade(BANK, {}, ["no-such-item"])


def test_answers_files_may_be_wrapped_or_bare() -> None:
    items, answers, flagged = parse_answers(
        {"items": ["a"], "answers": {"a": "b, c"}, "flagged": ["a"]}
    )
    assert (items, answers, flagged) == (["a"], {"a": ["B", "C"]}, {"a"})
    assert parse_answers({"a": ["d"]}) == (None, {"a": ["D"]}, set())
    with pytest.raises(ValueError):
        parse_answers({"a": 3})
    with pytest.raises(ValueError):
        parse_answers([1])


# --- the command line -------------------------------------------------------------------


def test_quiz_grade_scores_a_full_answer_file_1000_and_an_empty_one_100(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    full, empty = tmp_path / "full.json", tmp_path / "empty.json"
    full.write_text(json.dumps(FULL), encoding="utf-8")
    empty.write_text("{}", encoding="utf-8")
    assert main(["quiz", "grade", str(full), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["scaled"] == 1000
    assert main(["quiz", "grade", str(empty), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["scaled"], out["passed"]) == (100, False)


def test_quiz_list_hides_the_keys_and_key_shows_them(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["quiz", "list", "--task", "2.3", "--json"]) == 0
    items = json.loads(capsys.readouterr().out)["items"]
    assert {it["task"] for it in items} == {"2.3"}
    assert all(set(it) == {"id", "task", "scenario", "stem", "pick", "options"} for it in items)
    assert all(set(o) == {"id", "text"} for it in items for o in it["options"])
    assert main(["quiz", "key", "--json"]) == 0
    key = json.loads(capsys.readouterr().out)["key"]
    assert {k: v["correct"] for k, v in key.items()} == FULL


def test_quiz_bad_input_is_one_line_and_exit_code_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert main(["quiz", "grade", str(bad)]) == 2
    assert main(["quiz", "grade", str(tmp_path / "missing.json")]) == 2
    assert main(["quiz", "list", "--task", "9.9"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 3


def test_quiz_take_runs_interactively_and_records_progress(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    progress = tmp_path / "progress.json"
    monkeypatch.setenv("MCPMINI_PROGRESS", str(progress))
    drawn = draw(BANK, 3, seed=5)
    # a letter the item lacks is asked again; then the first item answered right but
    # flagged, the second skipped, the third wrong;
    # then the flagged item comes back for review and is answered right again
    replies = iter(
        [
            "Z",
            ",".join(sorted(drawn[0].correct)) + "?",
            "",
            next(o.id for o in drawn[2].options if o.id not in drawn[2].correct),
            ",".join(sorted(drawn[0].correct)),
        ]
    )
    monkeypatch.setattr("builtins.input", lambda _prompt="": next(replies))
    out = tmp_path / "answers.json"
    assert main(["quiz", "take", "--count", "3", "--seed", "5", "--out", str(out)]) == 0
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert saved["items"] == [it.id for it in drawn] and saved["flagged"] == []
    shown = capsys.readouterr().out
    assert "1 flagged items to review" in shown and "choose among" in shown
    data = load_progress(progress)
    assert data["quiz"]["attempts"] == 1
    assert data["quiz"]["last"]["correct"] == 1
    assert sum(r["total"] for r in quiz_summary(data)) == 3
    assert main(["progress", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["quiz"]["attempts"] == 1 and shown["quiz"]["tasks"]


def test_quiz_results_add_up_per_task_statement_across_attempts(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    record_quiz(path, grade(BANK, FULL))
    record_quiz(path, grade(BANK, {}))
    rows = {r["task"]: r for r in quiz_summary(load_progress(path))}
    n = sum(it.task == "2.1" for it in BANK.items)
    assert rows["2.1"] == {"task": "2.1", "correct": n, "total": 2 * n, "percent": 50.0}
    assert load_progress(path)["quiz"]["best_scaled"] == 1000


# --- exam mode --------------------------------------------------------------------------


def test_an_exam_session_keeps_answers_flags_and_time_then_grades() -> None:
    now = [100.0]
    exam = ExamSession(BANK, 4, seed=2, minutes=1, clock=lambda: now[0])
    first, second = exam.items[0], exam.items[1]
    exam.answer(first.id, sorted(first.correct))
    exam.answer(second.id, ["a"])
    exam.answer(second.id, [])  # cleared again
    exam.flag(second.id)
    now[0] += 45
    assert exam.time_left() == 15.0
    assert exam.status() == "answered 1/4, flagged 1, time left 0:15"
    now[0] += 100
    assert exam.time_left() == 0.0
    report = exam.finish()
    assert report.correct == 1 and [r.flagged for r in report.results][1] is True
    with pytest.raises(ValueError):
        exam.answer(first.id, ["Z"])
    with pytest.raises(KeyError):
        exam.answer("not-in-this-exam", ["A"])


def test_typed_lines_choose_flag_skip_and_refuse_letters_the_item_lacks() -> None:
    exam = ExamSession(BANK, 3, seed=3, minutes=2, clock=lambda: 0.0)
    first, second = exam.items[0], exam.items[1]
    letters = sorted(o.id for o in first.options)
    exam.enter(first.id, f" {letters[0].lower()} ?")
    assert exam.answers[first.id] == [letters[0]] and exam.flagged == {first.id}
    exam.enter(first.id, "")  # Enter keeps the answer and clears the flag
    assert exam.answers[first.id] == [letters[0]] and exam.flagged == set()
    with pytest.raises(ValueError, match="choose among"):
        exam.enter(second.id, "Z")
    assert second.id not in exam.answers and second.id not in exam.flagged
    with pytest.raises(KeyError):
        exam.enter("not-in-this-exam", "A")


def test_the_session_gives_the_review_order_and_every_line_both_front_ends_show() -> None:
    now = [0.0]
    exam = ExamSession(BANK, 4, seed=2, minutes=3, clock=lambda: now[0])
    assert exam.review_items() == [] and exam.next_flagged(0) is None
    exam.flag(exam.items[3].id)
    exam.flag(exam.items[1].id)
    assert [it.id for it in exam.review_items()] == [exam.items[1].id, exam.items[3].id]
    assert exam.next_flagged(1) == 3 and exam.next_flagged(3) == 1  # wraps round
    now[0] = 61.0
    head, scenario, stem, *options = exam.prompt_lines(exam.items[0], 1, 4, review=True)
    assert head == f"[1/4 review] {exam.items[0].id} ({exam.items[0].task})  time left 1:59"
    assert (scenario, stem) == (exam.items[0].scenario, exam.items[0].stem)
    assert len(options) == len(exam.items[0].options)
    assert exam.header(0) == f"1 / 4 — {exam.items[0].task} — {exam.status()}"
    assert exam.intro().startswith("4 items (seed 2), 3 minutes.")
    now[0] = 500.0
    assert exam.expired and clock_text(exam.time_used()) == "8:20"
    assert exam.to_dict() == {
        "items": [it.id for it in exam.items],
        "answers": {},
        "flagged": sorted({exam.items[1].id, exam.items[3].id}),
        "seed": 2,
    }


def test_a_session_can_hold_given_items_instead_of_a_draw() -> None:
    items = [BANK.items[5], BANK.items[2]]
    exam = ExamSession(BANK, seed=9, items=items)
    assert exam.items == items and exam.budget_s == 4 * 60.0


def test_the_exam_widget_records_into_the_progress_file_it_is_given(tmp_path: Path) -> None:
    pytest.importorskip("ipywidgets")
    from mcpmini.course.ccaf import ExamWidget, exam_mode

    path = tmp_path / "progress.json"
    widget = ExamWidget(ExamSession(BANK, 2, seed=1), progress=path)
    widget.finish()
    assert load_progress(path)["quiz"]["attempts"] == 1
    # the public function reads the environment it is handed, not the process's
    other = tmp_path / "other.json"
    box = exam_mode(2, seed=1, environ={"MCPMINI_PROGRESS": str(other)})
    box.children[5].children[3].click()
    assert load_progress(other)["quiz"]["attempts"] == 1
    box = exam_mode(2, seed=1, record=False, environ={"MCPMINI_PROGRESS": str(other)})
    box.children[5].children[3].click()
    assert load_progress(other)["quiz"]["attempts"] == 1


def test_the_exam_widget_drives_the_same_session() -> None:
    pytest.importorskip("ipywidgets")
    from mcpmini.course.ccaf import exam_mode

    box = exam_mode(3, seed=4)
    exam = box.session
    single = next(w for w in box.children if type(w).__name__ == "RadioButtons")
    multi = next(w for w in box.children if type(w).__name__ == "SelectMultiple")
    first = exam.items[0]
    if first.pick > 1:
        multi.value = tuple(sorted(first.correct))
    else:
        single.value = next(iter(first.correct))
    assert exam.answers == {first.id: sorted(first.correct)}
    buttons = box.children[5].children
    buttons[3].click()  # finish
    assert exam.report is not None and exam.report.correct == 1
    assert "scaled score" in box.children[6].value


def test_the_exam_widget_grades_by_itself_when_time_runs_out() -> None:
    pytest.importorskip("ipywidgets")
    from mcpmini.course.ccaf import exam_mode

    now = [0.0]
    box = exam_mode(session=ExamSession(BANK, 2, seed=1, minutes=1, clock=lambda: now[0]))
    ticker = box.children[-1]
    ticker.value = 1
    assert box.session.report is None and "time left 1:00" in box.children[0].value
    now[0] = 61.0
    ticker.value = 2
    assert box.session.report is not None and not ticker.playing
    assert "scaled score 100" in box.children[6].value


def test_quiz_take_can_retake_the_missed_items_or_drill_the_weakest_statements(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    progress = tmp_path / "progress.json"
    monkeypatch.setenv("MCPMINI_PROGRESS", str(progress))
    # everything right except the 2.2 items, which are left blank
    answers = {k: v for k, v in FULL.items() if BANK.item(k).task != "2.2"}
    record_quiz(progress, grade(BANK, answers))
    missed = {it.id for it in BANK.items if it.task == "2.2"}
    monkeypatch.setattr("builtins.input", lambda _prompt="": "q")
    out = tmp_path / "retake.json"
    assert main(["quiz", "take", "--missed", "--seed", "1", "--out", str(out), "--no-record"]) == 0
    assert set(json.loads(out.read_text(encoding="utf-8"))["items"]) == missed
    assert (
        main(["quiz", "take", "--weakest", "1", "--count", "3", "--out", str(out), "--no-record"])
        == 0
    )
    assert {BANK.item(i).task for i in json.loads(out.read_text(encoding="utf-8"))["items"]} == {
        "2.2"
    }
    assert "weakest task statements: 2.2" in capsys.readouterr().out
    progress.unlink()
    assert main(["quiz", "take", "--missed"]) == 2
