"""The CCA-F engine on a synthetic bank in the real layout: loading and its problems, computed
keys, the draw of sittings and practice sets, grading and feedback, the session, the widget
and the CLI (scripted stdin). The real bank's figures are tests/test_ccaf_bank.py's."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from ccaf_support import computed_item, item, make_bank

from mcpmini.cli.app import main
from mcpmini.course import load_progress, quiz_summary, record_quiz
from mcpmini.course.ccaf import (
    EXAM_ITEMS,
    KEY_FACTS,
    PASS_SCORE,
    AnswersLocked,
    Bank,
    BankVersionError,
    EntryError,
    EntryProblem,
    ExamSession,
    Format,
    Lang,
    Text,
    clock_text,
    draw,
    draw_sitting,
    figures,
    grade,
    lint,
    load_bank,
    parse_answers,
    scaled_score,
)
from mcpmini.course.ccaf.session import TimeUp, read_answers


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_bank(tmp_path_factory.mktemp("bank"))


@pytest.fixture(scope="module")
def bank(folder: Path) -> Bank:
    return load_bank(folder)


@pytest.fixture
def cli_bank(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Bank:
    monkeypatch.setenv("MCPMINI_QUIZ_BANK", str(folder))
    return load_bank(folder)


def write(root: Path, task: str, doc: object) -> Path:
    path = root / "items" / f"{task}.yaml"
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc, encoding="utf-8")
    return path


# --- loading and integrity ----------------------------------------------------------------


def test_the_synthetic_bank_loads_with_only_the_longest_key_share_to_report(bank: Bank) -> None:
    # every option has the same length, so no key is strictly the longest
    assert [str(p) for p in bank.problems] == []
    assert len(bank.items) == 30 * 8 + 1 and len(bank.scenarios) == 6


def test_texts_come_in_both_languages_and_lang_picks_one() -> None:
    text = Text("日本語", "English")
    assert (text.lang("ja"), text.lang(Lang.EN)) == ("日本語", "English")
    assert text.lang("both") == "English\n日本語"
    with pytest.raises(ValueError):
        text.lang("fr")


def test_a_broken_file_or_item_is_a_problem_naming_the_file_and_the_item(tmp_path: Path) -> None:
    make_bank(tmp_path, per_task=3)
    good = item("1.1", 0)
    no_english = item("1.1", 1)
    del no_english["stem"]["en"]
    unknown_fact = computed_item("1.1") | {"compute": "no_such_fact"}
    write(tmp_path, "1.1", {"task": "1.1", "items": [good, no_english, unknown_fact]})
    write(tmp_path, "1.2", "items: [unclosed")
    write(tmp_path, "1.3", {"task": "1.4", "items": [item("1.3", 0)]})
    write(tmp_path, "1.5", {"task": "1.5", "items": "not a list"})
    write(tmp_path, "1.6", {"items": [item("1.6", 0), no_english]})  # no task, a bad item
    loaded = load_bank(tmp_path)
    found = {(Path(p.source or "").name, p.path, p.message.split(":")[0]) for p in loaded.problems}
    assert ("1.1.yaml", "items[1].stem", "item t11-1 skipped") in found
    assert ("1.1.yaml", "items[2].compute", "item t11-computed skipped") in found
    assert any(name == "1.2.yaml" and m == "invalid YAML" for name, _, m in found)
    assert ("1.3.yaml", "task", "task '1.4' is not the file's name ('1.3')") in found
    assert ("1.5.yaml", "items", "file skipped") in found
    assert ("1.6.yaml", "(top level)", "file skipped") in found
    ids = {it.id for it in loaded.items}
    assert "t11-0" in ids and "t11-1" not in ids and "t12-0" not in ids and "t16-0" not in ids


def test_the_integrity_check_catches_each_kind_of_broken_item(tmp_path: Path) -> None:
    make_bank(tmp_path, per_task=3)
    short = item("2.1", 0)
    short["options"][1]["text"]["en"] = "No"
    no_rebuttal = item("2.1", 1)
    del no_rebuttal["options"][[o["id"] for o in no_rebuttal["options"]].index("A")]["rebuttal"]
    wrong_pick = item("2.1", 2) | {"pick": 2}
    twin = dict(item("2.1", 0), id="t21-twin")
    silent = item("2.1", 7, pick=2)
    silent["stem"] = {"ja": "どれか。", "en": "Which?"}
    five = item("2.2", 0)
    five["options"].append(dict(five["options"][-1], id="E"))
    write(tmp_path, "2.1", {"task": "2.1", "items": [short, no_rebuttal, wrong_pick, twin, silent]})
    write(tmp_path, "2.2", {"task": "2.2", "items": [five]})
    messages = [p.message for p in load_bank(tmp_path).problems]

    def has(fragment: str) -> bool:
        return any(fragment in m for m in messages)

    assert has("option B is under half the longest (en)")
    assert has("has no rebuttal") or has("wrong option A has no rebuttal")
    assert has("pick is 2 but the key has 1 options")
    assert has("same situation and stem as t21-0")
    assert has("the stem does not say to choose 2")
    assert has("a pick-1 item has 4 options, this one 5")


def longer_keys(root: Path, tasks: list[str]) -> None:
    for task in tasks:
        items = []
        for n in range(3):
            raw = item(task, n)
            for o in raw["options"]:
                if o["id"] in raw["answer"]:
                    o["text"] = {k: v + " (more)" for k, v in o["text"].items()}
            items.append(raw)
        write(root, task, {"task": task, "items": items})


def test_keys_longer_than_their_siblings_are_counted_and_the_linter_catches_them(
    tmp_path: Path,
) -> None:
    make_bank(tmp_path, per_task=3)
    longer_keys(tmp_path, ["3.1", "3.2", "3.3"])
    loaded = load_bank(tmp_path)
    assert figures(loaded).longest_key == {"ja": 9 / 91, "en": 9 / 91}
    longer_keys(tmp_path, [t.id for t in loaded.tasks][:12])
    loaded = load_bank(tmp_path)
    assert figures(loaded).longest_key["en"] == 45 / 90  # 15 task statements, 2.3 rewritten
    rows = {(r.lang, r.kind, r.cue, r.rule): r for r in lint(loaded)[1].rows}
    longest = rows[("en", "single", "length", "rank:1")]
    assert longest.key_rate > longest.chance + 10 and not longest.ok


def test_figures_count_per_task_domain_scenario_kind_and_pick(bank: Bank) -> None:
    f = figures(bank)
    assert f.items == 241 and sum(f.per_domain.values()) == 241
    assert set(f.per_task) == {t.id for t in bank.tasks} and f.per_task["2.3"] == 9
    assert sum(f.per_scenario.values()) == 241 and set(f.per_scenario) == {
        s.id for s in bank.scenarios
    }
    assert f.picks == {1: 211, 2: 30} and 0.7 < f.decision_share < 0.9


# --- computed keys ----------------------------------------------------------------------


def test_computed_keys_come_from_the_runtime() -> None:
    assert KEY_FACTS["tool_choice_any"]() == {"always_some_tool"}
    assert KEY_FACTS["tool_choice_named"]() == {"always_named_tool"}
    assert KEY_FACTS["tool_choice_auto"]() == {"may_answer_text"}
    assert KEY_FACTS["mcp_scope_winner"]() == {"project"}
    assert KEY_FACTS["mcp_scope_local"]() == {"local"}
    assert KEY_FACTS["var_default"]() == {"default"}
    # an unset ${VAR} without a default stays as written, as Claude Code 2.1.332 passes it
    assert KEY_FACTS["var_unset"]() == {"literal"}
    assert KEY_FACTS["retried_kinds"]() == {"transient"}
    assert KEY_FACTS["edit_duplicate_anchor"]() == {"read_write", "longer_anchor"}
    assert KEY_FACTS["max_turns_calls"]() == {"4"}
    assert KEY_FACTS["hooks_combination"]() == {"merge"}
    assert KEY_FACTS["claude_md_combination"]() == {"additive"}


def test_a_computed_item_keys_the_option_whose_value_the_runtime_returns(bank: Bank) -> None:
    it = bank.item("t23-computed")
    assert it.compute == "tool_choice_any"
    assert [o.value for o in it.options if o.id in it.correct] == ["always_some_tool"]


# --- drawing ----------------------------------------------------------------------------


def test_a_sitting_draws_four_scenarios_then_items_by_domain_weight(bank: Bank) -> None:
    s = draw_sitting(bank, 1, seed=5)
    assert len(s.items) == EXAM_ITEMS and len(set(s.items)) == EXAM_ITEMS
    assert len(s.scenarios) == 4 and {it.scenario for it in s.items} == set(s.scenarios)
    # 27/18/20/20/15 % of 60 by largest remainder
    assert Counter(it.domain for it in s.items) == {1: 16, 2: 11, 3: 12, 4: 12, 5: 9}
    assert Counter(it.scenario for it in s.items) == dict.fromkeys(s.scenarios, 15)
    # items come grouped by scenario, in the order the scenarios were drawn
    order = list(dict.fromkeys(it.scenario for it in s.items))
    assert order == list(s.scenarios) and s.shortfalls == () and s.minutes == 120
    assert s.shortfall_line() is None and s.format is Format.MIXED


def test_two_sittings_of_one_seed_share_no_item_and_are_reproducible(bank: Bank) -> None:
    first, second = draw_sitting(bank, 1, seed=9), draw_sitting(bank, 2, seed=9)
    assert not {it.id for it in first.items} & {it.id for it in second.items}
    assert draw_sitting(bank, 2, seed=9) == second
    assert draw_sitting(bank, 1, seed=10).items != first.items


def test_a_single_sitting_holds_only_single_answer_items_and_mixed_may_hold_more(
    bank: Bank,
) -> None:
    assert all(it.pick == 1 for it in draw_sitting(bank, 1, seed=1, format="single").items)
    picks = {it.pick for n in (1, 2) for it in draw_sitting(bank, n, 1, Format.MIXED).items}
    assert picks == {1, 2}


def test_a_short_cell_is_filled_from_the_other_drawn_scenarios_and_said(tmp_path: Path) -> None:
    make_bank(tmp_path)
    # Domain 2 lives in one scenario only: every sitting that draws it must fall back
    for task in ("2.1", "2.2", "2.3", "2.4", "2.5"):
        items = [item(task, n, scenario="support") for n in range(8)]
        write(tmp_path, task, {"task": task, "items": items})
    loaded = load_bank(tmp_path)
    for seed in range(6):
        s = draw_sitting(loaded, 1, seed)
        d2 = Counter(it.scenario for it in s.items if it.domain == 2)
        line = s.shortfall_line()
        assert line is not None and "\n" not in line.en and "\n" not in line.ja
        if "support" in s.scenarios:
            assert d2 == {"support": 11} and "D2 in " in line.en
        else:
            assert not d2 and "D2: 0 of 11" in line.en
        assert len(s.items) == 60


def test_a_sitting_the_bank_cannot_fill_is_an_error(bank: Bank) -> None:
    with pytest.raises(ValueError):
        draw_sitting(bank, 9, seed=1)
    with pytest.raises(ValueError):
        draw_sitting(bank, 0)


def test_a_practice_draw_is_reproducible_weighted_and_refuses_too_much(bank: Bank) -> None:
    first = [it.id for it in draw(bank, 20, seed=7)]
    assert first == [it.id for it in draw(bank, 20, seed=7)] and len(set(first)) == 20
    assert {it.task for it in draw(bank, 5, seed=1, tasks=["2.3"])} == {"2.3"}
    assert Counter(it.domain for it in draw(bank, 40, seed=3))[1] == 11
    with pytest.raises(ValueError):
        draw(bank, 9, tasks=["4.3"])
    with pytest.raises(ValueError):
        draw(bank, 0)


# --- grading and feedback ---------------------------------------------------------------


def test_a_full_answer_set_scores_1000_and_an_empty_one_the_bottom(bank: Bank) -> None:
    full = grade(bank, {it.id: sorted(it.correct) for it in bank.items})
    assert (full.scaled, full.passed, full.correct) == (1000, True, len(bank.items))
    empty = grade(bank, {})
    assert (empty.scaled, empty.passed, empty.correct) == (100, False, 0)
    assert {s.id for s in full.by_scenario} == {s.id for s in bank.scenarios}
    assert [scaled_score(n, 10) for n in (0, 5, 10)] == [100, 550, 1000] and PASS_SCORE == 720


def test_a_miss_teaches_in_the_chosen_language_by_question_number(bank: Bank) -> None:
    items = [bank.items[0].id, bank.items[1].id]
    it = bank.item(items[1])
    wrong = next(o for o in it.options if o.id not in it.correct)
    key = next(o for o in it.options if o.id in it.correct)
    report = grade(bank, {items[1]: [wrong.id]}, items, flagged=[items[1]])
    assert report.results[1].number == 2 and report.results[1].rebuttals == {
        wrong.id: wrong.rebuttal
    }
    en = "\n".join(report.lines("en"))
    assert f"{key.id}. {key.text.en}" in en and f"{wrong.id}. {wrong.text.en}" in en
    assert it.explanation.en in en and wrong.rebuttal is not None and wrong.rebuttal.en in en
    assert "Q2" in en and it.id not in en and "estimate" in en and "720" in en
    ja = "\n".join(report.lines("ja"))
    assert key.text.ja in ja and wrong.rebuttal.ja in ja and key.text.en not in ja
    both = "\n".join(report.lines("both"))
    assert key.text.ja in both and key.text.en in both


def test_a_multiple_response_item_counts_only_when_the_whole_set_is_right(bank: Bank) -> None:
    it = next(i for i in bank.items if i.pick == 2)
    report = grade(bank, {it.id: sorted(it.correct)[:1]}, [it.id])
    assert report.correct == 0 and report.results[0].rebuttals == {}


def test_grading_refuses_answers_for_items_outside_the_exam(bank: Bank) -> None:
    with pytest.raises(ValueError):
        grade(bank, {"no-such-item": ["A"]})
    with pytest.raises(ValueError):
        grade(bank, {}, ["no-such-item"])


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


def test_quiz_results_add_up_per_task_statement_across_attempts(bank: Bank, tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    record_quiz(path, grade(bank, {it.id: sorted(it.correct) for it in bank.items}))
    record_quiz(path, grade(bank, {}))
    rows = {r["task"]: r for r in quiz_summary(load_progress(path))}
    assert rows["2.1"] == {"task": "2.1", "correct": 8, "total": 16, "percent": 50.0}


# --- the session ------------------------------------------------------------------------


def test_a_session_keeps_answers_flags_and_time_then_locks_on_submit(bank: Bank) -> None:
    now = [100.0]
    exam = ExamSession(bank, 4, seed=2, minutes=1, clock=lambda: now[0], lang="en")
    first, second = exam.items[0], exam.items[1]
    exam.answer(first.id, sorted(first.correct))
    exam.flag(second.id)
    now[0] += 45
    assert exam.status() == "answered 1/4, flagged 1, time left 0:15"
    report = exam.finish()
    assert report.correct == 1 and report.results[1].flagged and exam.locked
    with pytest.raises(AnswersLocked):
        exam.answer(first.id, ["A"])
    with pytest.raises(AnswersLocked):
        exam.enter(second.id, "B")
    with pytest.raises(AnswersLocked):
        exam.flag(second.id, False)
    assert exam.finish() is report


def test_typed_lines_must_name_as_many_options_as_the_item_takes(bank: Bank) -> None:
    exam = ExamSession(bank, items=[*[i for i in bank.items if i.pick == 2][:1], bank.items[0]])
    two, one = exam.items
    with pytest.raises(EntryError) as refused:
        exam.enter(two.id, "A")
    assert refused.value.code is EntryProblem.WRONG_COUNT and two.id not in exam.answers
    with pytest.raises(EntryError) as refused:
        exam.enter(one.id, "A,B")
    assert refused.value.code is EntryProblem.WRONG_COUNT
    with pytest.raises(EntryError) as refused:
        exam.enter(one.id, "Z")
    assert refused.value.code is EntryProblem.UNKNOWN_OPTION
    exam.enter(two.id, "ce?")
    assert exam.answers[two.id] == ["C", "E"] and exam.flagged == {two.id}
    exam.enter(two.id, "")  # Enter keeps the answer and the flag
    assert exam.answers[two.id] == ["C", "E"] and exam.flagged == {two.id}
    exam.enter(two.id, "!")
    assert exam.flagged == set()
    with pytest.raises(EntryError):
        exam.answer(one.id, ["A", "B"])


def test_the_screens_show_question_numbers_never_item_ids_and_review_the_answer(
    bank: Bank,
) -> None:
    now = [0.0]
    exam = ExamSession.sitting(bank, 1, seed=4, lang="en", clock=lambda: now[0])
    assert exam.budget_s == 120 * 60 and exam.number == 1
    first = exam.items[0]
    exam.enter(first.id, next(iter(first.correct)) + "?")
    now[0] = 61.0
    lines = exam.prompt_lines(first, 1, 1, review=True)
    shown = "\n".join([*lines, exam.header(0), exam.intro(), exam.status()])
    assert all(it.id not in shown for it in exam.items)
    assert lines[0].startswith("[1/1 review] Q1 — ") and lines[0].endswith("time left 118:59")
    assert lines[-1] == f"current answer: {next(iter(first.correct))} (flagged)"
    assert (
        first.situation.en in shown and first.stem.en in shown and first.situation.ja not in shown
    )
    assert exam.intro().startswith("sitting 1 (seed 4, mixed): scenarios ")
    two = next(i for i in bank.items if i.pick == 2)
    assert "(choose 2)" in ExamSession(bank, items=[two], lang="en").prompt_lines(two, 1, 1)


def test_a_saved_session_resumes_with_its_answers_flags_and_time_used(bank: Bank) -> None:
    now = [0.0]
    exam = ExamSession(bank, 5, seed=3, lang="ja", minutes=10, clock=lambda: now[0])
    exam.enter(exam.items[0].id, next(iter(exam.items[0].correct)) + "?")
    exam.flag(exam.items[3].id)
    now[0] = 240.0
    data = json.loads(json.dumps(exam.to_dict()))
    later = [1000.0]
    again = ExamSession.from_dict(bank, data, clock=lambda: later[0])
    assert (again.answers, again.flagged) == (exam.answers, exam.flagged)
    assert [it.id for it in again.items] == [it.id for it in exam.items] and again.lang is Lang.JA
    assert again.time_left() == 360.0 and again.budget_s == 600.0  # the budget goes on
    assert clock_text(500) == "8:20"


def test_the_answers_document_names_items_by_opaque_handles_only(bank: Bank) -> None:
    exam = ExamSession(bank, 5, seed=3, lang="en")
    exam.answer(exam.items[1].id, sorted(exam.items[1].correct))
    text = json.dumps(exam.to_dict())
    assert not any(it.id in text for it in bank.items)
    assert exam.to_dict()["bank"] == bank.version and len(bank.version) == 12
    other = ExamSession(bank, items=exam.items, lang="en")
    assert exam.handle(exam.items[0].id) != other.handle(exam.items[0].id)  # salted


def test_a_document_of_another_bank_version_is_refused_naming_both_versions(bank: Bank) -> None:
    data = ExamSession(bank, 3, seed=1).to_dict()
    data["bank"] = "0123456789ab"
    with pytest.raises(BankVersionError) as caught:
        ExamSession.from_dict(bank, data)
    assert "0123456789ab" in str(caught.value) and bank.version in str(caught.value)


def test_after_the_time_is_up_no_answer_is_taken_and_the_exam_is_submitted(bank: Bank) -> None:
    now = [0.0]
    exam = ExamSession(bank, 3, seed=2, minutes=1, lang="en", clock=lambda: now[0])
    exam.answer(exam.items[0].id, sorted(exam.items[0].correct))
    now[0] = 60.0
    with pytest.raises(TimeUp):
        exam.answer(exam.items[1].id, sorted(exam.items[1].correct))
    assert exam.locked and exam.report is not None and exam.report.correct == 1
    assert exam.items[1].id not in exam.answers
    assert exam.time_up_line() == "Time is up: the exam is submitted as it stands (1:00 used)"


# --- the widget ---------------------------------------------------------------------------


def test_the_widget_drives_the_session_refuses_a_tick_too_many_and_locks(bank: Bank) -> None:
    pytest.importorskip("ipywidgets")
    from mcpmini.course.ccaf import ExamWidget

    one, two = bank.items[0], next(i for i in bank.items if i.pick == 2)
    exam = ExamSession(bank, items=[one, two], lang="en")
    widget = ExamWidget(exam)
    assert len(widget.choices.children) == 4  # one full-width row per option
    key = "ABCD".index(next(iter(one.correct)))
    widget.checks[(key + 1) % 4].value = True
    widget.checks[key].value = True  # a single answer: the other tick goes
    assert exam.answers == {one.id: sorted(one.correct)}
    assert [b.value for b in widget.checks[:4]].count(True) == 1
    widget.move(1)
    assert "choose 2" in widget.body.value and len(widget.choices.children) == 5
    for n in (0, 1, 2):  # the third tick is one too many: taken back, with a message
        widget.checks[n].value = True
    assert exam.answers[two.id] == ["A", "B"] and not widget.checks[2].value
    assert "Choose 2 for this item" in widget.message.value
    widget.finish()
    assert exam.locked and all(b.disabled for b in widget.checks)
    assert "scaled score" in widget.summary.value and two.id not in widget.summary.value
    titles = [widget.folds.get_title(n) for n in range(len(widget.folds.children))]
    assert titles[0].startswith("D") and "missed" in titles[0] and "per domain" in titles
    widget.checks[3].value = True  # a locked widget records nothing
    assert exam.answers[two.id] == ["A", "B"]


def test_the_widget_shows_one_language_and_its_switch_redraws_everything(bank: Bank) -> None:
    pytest.importorskip("ipywidgets")
    from mcpmini.course.ccaf import ExamWidget

    it = bank.items[0]
    widget = ExamWidget(ExamSession(bank, items=[it], lang="both"))
    assert widget.switch.value == "en" and it.stem.en in widget.body.value
    assert it.stem.ja not in widget.body.value and widget.buttons[3].description == "Submit"
    widget.switch.value = "ja"
    assert it.stem.ja in widget.body.value and it.stem.en not in widget.body.value
    assert (
        widget.buttons[3].description == "提出して採点" and "タイマー" in widget.timer_label.value
    )
    widget.finish()
    assert "換算点" in widget.summary.value
    widget.switch.value = "en"
    assert "scaled score" in widget.summary.value


def test_the_widget_opens_in_the_learners_language(bank: Bank) -> None:
    pytest.importorskip("ipywidgets")
    from mcpmini.course.ccaf import ExamWidget
    from mcpmini.course.language import use

    with use("ja"):
        widget = ExamWidget(ExamSession(bank, 2, seed=1))
    assert widget.switch.value == "ja"
    with use("en"):
        widget = ExamWidget(ExamSession(bank, 2, seed=1))
    assert widget.switch.value == "en"


def test_the_widget_starts_its_timer_when_shown_and_submits_at_zero(bank: Bank) -> None:
    pytest.importorskip("ipywidgets")
    from mcpmini.course.ccaf import ExamWidget

    now = [0.0]
    session = ExamSession(bank, 2, seed=1, minutes=1, lang="en", clock=lambda: now[0])
    widget = ExamWidget(session)
    ticker = widget.ticker
    assert not ticker.playing and widget.timer_label.value.startswith("Timer")
    ticker._view_count = 1  # the browser rendered the widget
    assert ticker.playing
    ticker.value = 1
    assert session.report is None and "time left 1:00" in widget.header.value
    now[0] = 61.0
    ticker.value = 2
    assert session.report is not None and not ticker.playing
    assert "scaled score 100" in widget.summary.value and "Time is up" in widget.header.value


def test_the_exam_widget_records_into_the_progress_file_it_is_given(
    bank: Bank, folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("ipywidgets")
    from mcpmini.course.ccaf import ExamWidget, exam_mode

    path = tmp_path / "progress.json"
    widget = ExamWidget(ExamSession(bank, 2, seed=1), progress=path)
    widget.finish()
    widget.finish()
    assert load_progress(path)["quiz"]["attempts"] == 1
    other = tmp_path / "other.json"
    box = exam_mode(session=ExamSession(bank, 2), environ={"MCPMINI_PROGRESS": str(other)})
    submit = box.children[7].children[3]
    submit.click()
    assert load_progress(other)["quiz"]["attempts"] == 1
    box = exam_mode(
        session=ExamSession(bank, 2), record=False, environ={"MCPMINI_PROGRESS": str(other)}
    )
    box.children[7].children[3].click()
    assert load_progress(other)["quiz"]["attempts"] == 1


# --- the command line -------------------------------------------------------------------


def test_quiz_grade_scores_a_full_answer_file_1000_and_an_empty_one_100(
    cli_bank: Bank, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    full, empty = tmp_path / "full.json", tmp_path / "empty.json"
    full.write_text(json.dumps({it.id: sorted(it.correct) for it in cli_bank.items}))
    empty.write_text("{}", encoding="utf-8")
    assert main(["quiz", "grade", str(full), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["scaled"] == 1000
    assert main(["quiz", "grade", str(empty), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["scaled"], out["passed"], out["scaled_is_estimate"]) == (100, False, True)


def test_quiz_list_hides_keys_and_ids_and_key_shows_them(
    cli_bank: Bank, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["quiz", "list", "--task", "2.3", "--json", "--lang", "en"]) == 0
    items = json.loads(capsys.readouterr().out)["items"]
    assert {it["task"] for it in items} == {"2.3"}
    assert all(
        set(it) == {"task", "scenario", "situation", "stem", "pick", "options"} for it in items
    )
    assert main(["quiz", "list", "--task", "2.3"]) == 0
    assert not any(it.id in capsys.readouterr().out for it in cli_bank.items)
    assert main(["quiz", "key", "--json"]) == 0
    key = json.loads(capsys.readouterr().out)["key"]
    assert {k: v["correct"] for k, v in key.items()} == {
        it.id: sorted(it.correct) for it in cli_bank.items
    }


def test_quiz_bad_input_is_one_line_and_exit_code_2(
    cli_bank: Bank, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert main(["quiz", "grade", str(bad)]) == 2
    assert main(["quiz", "grade", str(tmp_path / "missing.json")]) == 2
    assert main(["quiz", "list", "--task", "9.9"]) == 2
    assert main(["quiz", "take", "--resume", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 4


def replies(monkeypatch: pytest.MonkeyPatch, lines: list[str]) -> None:
    feed = iter(lines)
    monkeypatch.setattr("builtins.input", lambda _prompt="": next(feed))


def decoded(bank: Bank, path: Path) -> tuple[list[str], dict[str, list[str]], set[str]]:
    """An answers file's items, answers and flags by item id (the file holds handles)."""
    ids, answers, flagged = read_answers(bank, json.loads(path.read_text(encoding="utf-8")))
    assert ids is not None
    return ids, answers, flagged


def test_quiz_take_enforces_the_number_to_pick_reviews_and_saves_flags(
    cli_bank: Bank,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    progress = tmp_path / "progress.json"
    monkeypatch.setenv("MCPMINI_PROGRESS", str(progress))
    drawn = draw(cli_bank, 3, seed=5, format="mixed")
    wrong = next(o.id for o in drawn[2].options if o.id not in drawn[2].correct)
    first = ",".join(sorted(drawn[0].correct))
    too_few = "Z" if drawn[0].pick == 1 else sorted(drawn[0].correct)[0]
    # a refused line (wrong count or letter) is asked again; the first item is answered right
    # and flagged, the second skipped, the third wrong; the flagged one comes back in review
    # showing its answer, Enter keeps it, and the flag survives into the saved file
    replies(monkeypatch, [too_few, first + "?", "", wrong, ""])
    out = tmp_path / "answers.json"
    argv = ["quiz", "take", "--count", "3", "--seed", "5", "--format", "mixed", "--lang", "en"]
    assert main([*argv, "--out", str(out)]) == 0
    ids, answers, flagged = decoded(cli_bank, out)
    assert ids == [it.id for it in drawn] and flagged == {drawn[0].id}
    assert answers[drawn[0].id] == sorted(drawn[0].correct)
    assert not any(it.id in out.read_text(encoding="utf-8") for it in cli_bank.items)
    shown = capsys.readouterr().out
    assert "1 flagged items to review" in shown
    assert ("for this item (you chose" in shown) or ("choose among" in shown)
    assert f"current answer: {first} (flagged)" in shown
    assert not any(it.id in shown for it in cli_bank.items)
    data = load_progress(progress)
    assert data["quiz"]["attempts"] == 1 and data["quiz"]["last"]["correct"] == 1
    # the saved file resumes with its answers and flags: submit at once and grade the same
    replies(monkeypatch, ["q"])
    assert main(["quiz", "take", "--resume", str(out), "--out", str(out), "--no-record"]) == 0
    assert decoded(cli_bank, out) == (ids, answers, flagged)


def test_quiz_take_runs_a_full_sitting_in_the_chosen_language(
    cli_bank: Bank,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    replies(monkeypatch, ["q"])
    out = tmp_path / "s.json"
    argv = ["quiz", "take", "--sitting", "2", "--seed", "8", "--lang", "ja", "--no-record"]
    assert main([*argv, "--out", str(out)]) == 0
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert decoded(cli_bank, out)[0] == [it.id for it in draw_sitting(cli_bank, 2, 8).items]
    assert (saved["sitting"], saved["lang"], saved["format"]) == (2, "ja", "mixed")
    shown = capsys.readouterr().out
    assert "模擬試験 2" in shown and "換算点" in shown and "問 1" in shown
    assert "使った時間" in shown and "time used" not in shown


def test_quiz_take_can_retake_the_missed_items_or_drill_the_weakest_statements(
    cli_bank: Bank,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    progress = tmp_path / "progress.json"
    monkeypatch.setenv("MCPMINI_PROGRESS", str(progress))
    answers = {it.id: sorted(it.correct) for it in cli_bank.items if it.task != "2.2"}
    record_quiz(progress, grade(cli_bank, answers))
    missed = {it.id for it in cli_bank.items if it.task == "2.2"}
    monkeypatch.setattr("builtins.input", lambda _prompt="": "q")
    out = tmp_path / "retake.json"
    assert main(["quiz", "take", "--missed", "--seed", "1", "--out", str(out), "--no-record"]) == 0
    assert set(decoded(cli_bank, out)[0]) == missed
    argv = ["quiz", "take", "--weakest", "1", "--count", "3", "--out", str(out), "--no-record"]
    assert main(argv) == 0
    assert {cli_bank.item(i).task for i in decoded(cli_bank, out)[0]} == {"2.2"}
    assert "weakest task statements: 2.2" in capsys.readouterr().out
    progress.unlink()
    assert main(["quiz", "take", "--missed"]) == 2


def test_quiz_take_stops_at_the_time_limit_and_a_resumed_exam_keeps_its_clock(
    cli_bank: Bank,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    now = [0.0]
    monkeypatch.setattr("time.monotonic", lambda: now[0])
    drawn = draw(cli_bank, 3, seed=4)

    def answer_late(_prompt: str = "") -> str:
        now[0] += 40.0  # each answer takes 40 s of a one-minute budget
        return ",".join(sorted(drawn[0].correct))

    monkeypatch.setattr("builtins.input", answer_late)
    out = tmp_path / "timed.json"
    argv = ["quiz", "take", "--count", "3", "--seed", "4", "--minutes", "1", "--lang", "en"]
    assert main([*argv, "--out", str(out), "--no-record"]) == 0
    shown = capsys.readouterr().out
    assert "Time is up: the exam is submitted as it stands (1:00 used)" in shown
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert saved["submitted"] and saved["elapsed"] == 80.0 and len(saved["answers"]) == 1
    # resumed, the exam whose time is up is submitted, not reopened: no item is shown
    monkeypatch.setattr("builtins.input", lambda _p="": pytest.fail("asked for an answer"))
    assert main(["quiz", "take", "--resume", str(out), "--no-record"]) == 0
    shown = capsys.readouterr().out
    assert "Time is up" in shown and "[1/3]" not in shown and "scaled score" in shown


def test_quiz_take_resumes_with_the_time_left_of_the_saved_exam(
    cli_bank: Bank,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    now = [0.0]
    monkeypatch.setattr("time.monotonic", lambda: now[0])

    def slow_quit(_prompt: str = "") -> str:
        now[0] += 300.0
        return "q"

    monkeypatch.setattr("builtins.input", slow_quit)
    out = tmp_path / "paused.json"
    argv = ["quiz", "take", "--count", "3", "--seed", "2", "--minutes", "30", "--lang", "en"]
    assert main([*argv, "--out", str(out), "--no-record"]) == 0
    assert json.loads(out.read_text(encoding="utf-8"))["elapsed"] == 300.0
    capsys.readouterr()
    now[0] = 10_000.0  # the next day: the clock of the resumed exam goes on from 5:00 used
    monkeypatch.setattr("builtins.input", lambda _p="": "q")
    assert main(["quiz", "take", "--resume", str(out), "--no-record"]) == 0
    assert "time left 25:00" in capsys.readouterr().out


def test_an_answers_file_of_another_bank_version_is_refused_naming_the_version(
    cli_bank: Bank, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = ExamSession(cli_bank, 3, seed=1).to_dict()
    data["bank"] = "feedfacecafe"
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["quiz", "grade", str(path)]) == 2
    assert main(["quiz", "take", "--resume", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all("feedfacecafe" in e and cli_bank.version in e for e in err)


def test_a_sitting_asking_more_than_a_cell_holds_says_so_in_one_line_before_it_starts(
    cli_bank: Bank, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    replies(monkeypatch, ["q"])
    argv = ["quiz", "take", "--sitting", "1", "--count", "150", "--seed", "3", "--lang", "en"]
    assert main([*argv, "--no-record"]) == 0
    lines = capsys.readouterr().out.splitlines()
    said = [n for n, line in enumerate(lines) if "asks more than the bank holds" in line]
    first_item = next(n for n, line in enumerate(lines) if line.startswith("[1/"))
    assert len(said) == 1 and said[0] < first_item
