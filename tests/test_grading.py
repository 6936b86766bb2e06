"""The checker framework and local progress: three states, specific messages, never raising."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path

import pytest

from mcpmini.cli import main
from mcpmini.course import (
    Exercise,
    Kind,
    Part,
    Report,
    Status,
    load_progress,
    progress_path,
    record_progress,
    summary,
)
from mcpmini.errors import ConfigError


class Colour(str, Enum):  # noqa: UP042 (a learner may write a plain str mix-in)
    RED = "red"
    BLUE = "blue"


def small_exercise(tmp_path: Path, practice: bool = False) -> Exercise:
    return Exercise(
        "9.9",
        "test",
        "statement",
        [
            Part.boolean("a.ok", "q", True, otherwise="because"),
            Part.integer("n", "q", 25_000, mistakes={35_000: "per-skill cap only"}),
            Part.option("colour", "q", Colour.RED, Colour),
            Part.choice(
                "why",
                "q",
                [
                    ("wrong one", False, "why A is wrong"),
                    ("right", True, ""),
                    ("also wrong", False, "why C is wrong"),
                ],
            ),
            Part.names("names", "q", ["x", "y"]),
        ],
        hints=["first", "second"],
        solution_text=lambda: "worked solution",
        practice=practice,
        environ={"MCPMINI_PROGRESS": str(tmp_path / "progress.json")},
    )


FULL = {"a": {"ok": True}, "n": 25_000, "colour": "red", "why": "B", "names": ["y", "x"]}


def test_blank_values_and_missing_keys_are_not_attempted(tmp_path):
    ex = small_exercise(tmp_path)
    for answer in (None, ..., {}, {"a": {"ok": None}, "n": ..., "colour": "", "why": None}):
        report = ex.grade(answer)
        assert report.status is Status.NOT_ATTEMPTED
        assert report.score == 0 and report.max_score == 5


def test_the_full_answer_is_correct_and_labelled_so(tmp_path):
    report = small_exercise(tmp_path).grade(FULL)
    assert report.status is Status.CORRECT
    assert (report.score, report.max_score) == (5, 5)
    assert report.label.startswith("全問正解")


def test_a_partial_answer_is_never_labelled_all_correct(tmp_path):
    partial = {**FULL, "names": None}
    report = small_exercise(tmp_path).grade(partial)
    assert report.status is Status.INCORRECT
    assert report.count(Status.NOT_ATTEMPTED) == 1
    assert "全問正解" not in report.label and "全問正解" not in str(report)


def test_values_of_the_wrong_type_are_incorrect_with_their_own_message(tmp_path):
    ex = small_exercise(tmp_path)
    wrong_type = ex.grade({**FULL, "a": {"ok": "yes"}, "n": True, "colour": "green"})
    wrong_value = ex.grade({**FULL, "a": {"ok": False}})
    by_key = {r.key: r for r in wrong_type.results}
    assert by_key["a.ok"].status is Status.INCORRECT
    assert by_key["n"].status is Status.INCORRECT
    assert by_key["colour"].status is Status.INCORRECT
    other = {r.key: r for r in wrong_value.results}["a.ok"]
    assert other.message == "because" and by_key["a.ok"].message != other.message


def test_readable_variants_of_the_right_value_are_accepted(tmp_path):
    variants = {
        "a": {"ok": " true "},
        "n": "25,000",
        "colour": Colour.RED,
        "why": " b ",
        "names": ("x", "y"),
    }
    assert small_exercise(tmp_path).grade(variants).status is Status.CORRECT
    assert small_exercise(tmp_path).grade({**FULL, "n": 25_000.0}).status is Status.CORRECT


def test_text_is_read_alike_for_every_kind_and_unreadable_values_share_one_message(tmp_path):
    ex = small_exercise(tmp_path)
    assert (
        ex.grade({**FULL, "a": {"ok": "True"}, "n": "25000", "why": "b"}).status is Status.CORRECT
    )
    bad = {r.key: r.message for r in ex.grade({**FULL, "a": {"ok": "yes"}, "n": "many"}).results}
    # one template: only the expected kind and the value differ
    assert bad["a.ok"].replace("True か False", "X") == bad["n"].replace("整数", "X").replace(
        "many", "yes"
    )


def test_each_wrong_choice_and_each_known_mistake_gets_its_own_message(tmp_path):
    ex = small_exercise(tmp_path)
    msg = {
        label: {r.key: r.message for r in ex.grade({**FULL, "why": label}).results}["why"]
        for label in "AC"
    }
    assert msg["A"] != msg["C"] and "why A is wrong" in msg["A"]
    n_msg = {r.key: r.message for r in ex.grade({**FULL, "n": 35_000}).results}["n"]
    assert n_msg == "per-skill cap only"


def test_a_names_answer_reports_missing_and_extra_counts_not_order(tmp_path):
    part = Part.names("names", "q", ["x", "y"])
    assert part.grade({"names": ["y", "x"]}).status is Status.CORRECT
    result = part.grade({"names": ["x", "z", "w"]})
    assert result.status is Status.INCORRECT
    assert "1" in result.message and "2" in result.message


def test_a_value_that_breaks_comparison_is_incorrect_and_does_not_raise(tmp_path):
    class Hostile:
        def __eq__(self, other):
            raise RuntimeError("boom")

        def __hash__(self):
            raise RuntimeError("boom")

    report = small_exercise(tmp_path).grade(
        {"a": {"ok": Hostile()}, "n": Hostile(), "colour": Hostile(), "names": [Hostile()]}
    )
    assert all(r.status is Status.INCORRECT for r in report.results if r.key != "why")


def test_an_answer_that_is_not_a_dict_adds_a_note(tmp_path):
    report = small_exercise(tmp_path).grade([True, 25_000])
    assert report.status is Status.NOT_ATTEMPTED
    assert len(report.notes) == 1


def test_building_parts_with_an_inconsistent_key_is_refused():
    with pytest.raises(ValueError):
        Part.choice("why", "q", [("a", True, ""), ("b", True, "")])
    with pytest.raises(ValueError):
        Part.choice("why", "q", [("a", False, ""), ("b", False, "")])
    with pytest.raises(ValueError):
        Part.option("c", "q", "green", Colour)


def test_template_and_answer_key_follow_the_dotted_keys(tmp_path):
    ex = small_exercise(tmp_path)
    assert ex.template() == {
        "a": {"ok": None},
        "n": None,
        "colour": None,
        "why": None,
        "names": None,
    }
    assert ex.grade(ex.answer_key()).status is Status.CORRECT
    assert ex.grade(ex.template()).status is Status.NOT_ATTEMPTED
    assert ex.parts[2].kind is Kind.OPTION


def test_hints_and_the_solution_print_and_never_raise(tmp_path, capsys):
    ex = small_exercise(tmp_path)
    ex.hint(2)
    ex.hint(7)
    ex.hint("x")  # type: ignore[arg-type]
    ex.solution()
    ex.describe()
    out = capsys.readouterr().out
    assert "second" in out and "worked solution" in out and out.count("ヒント") >= 3


def test_check_records_the_latest_result_and_the_best_score(tmp_path):
    ex = small_exercise(tmp_path)
    ex.check(FULL)
    ex.check({**FULL, "n": 1})
    data = load_progress(tmp_path / "progress.json")
    entry = data["exercises"]["9.9"]
    assert (entry["score"], entry["best_score"], entry["attempts"]) == (4, 5, 2)
    assert entry["parts"]["n"] == "incorrect"


def test_an_untouched_check_does_not_overwrite_progress(tmp_path):
    ex = small_exercise(tmp_path)
    ex.check(FULL)
    ex.check(None)
    entry = load_progress(tmp_path / "progress.json")["exercises"]["9.9"]
    assert (entry["score"], entry["attempts"]) == (5, 1)


def test_practice_checks_only_add_to_the_tally(tmp_path):
    ex = small_exercise(tmp_path, practice=True)
    ex.check(FULL)
    ex.check({**FULL, "why": "A"})
    ex.check(None)
    data = load_progress(tmp_path / "progress.json")
    assert data["exercises"] == {}
    assert data["practice"]["9.9"] == {"attempts": 2, "correct": 1}


def test_an_unwritable_progress_file_becomes_a_note_not_an_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    ex = small_exercise(tmp_path)
    ex.environ = {"MCPMINI_PROGRESS": str(blocker / "sub" / "progress.json")}
    report = ex.check(FULL)
    assert report.status is Status.CORRECT and len(report.notes) == 1


def test_a_corrupt_progress_file_is_reported_with_its_line_and_kept_aside(tmp_path):
    path = tmp_path / "progress.json"
    path.write_text('{\n  "exercises": {\n  oops\n}')
    with pytest.raises(ConfigError) as info:
        load_progress(path)
    assert info.value.line == 3 and info.value.source == str(path)
    small_exercise(tmp_path).check(FULL)
    assert (tmp_path / "progress.json.corrupt").read_text().startswith('{\n  "exercises"')
    assert load_progress(path)["exercises"]["9.9"]["score"] == 5


def test_a_progress_file_of_the_wrong_shape_is_a_config_error(tmp_path):
    path = tmp_path / "progress.json"
    path.write_text('{"exercises": []}')
    with pytest.raises(ConfigError) as info:
        load_progress(path)
    assert info.value.path == "exercises"


def test_the_progress_path_comes_from_the_environment_or_the_user_data_dir(tmp_path):
    assert progress_path({"MCPMINI_PROGRESS": "off"}) is None
    assert progress_path({"MCPMINI_PROGRESS": str(tmp_path / "p.json")}) == tmp_path / "p.json"
    default = progress_path({})
    assert default is not None and default.name == "progress.json" and "mcpmini" in str(default)


def test_the_summary_is_honest_about_unchecked_and_partial_exercises(tmp_path):
    path = tmp_path / "progress.json"
    parts = (Part.boolean("x", "q", True), Part.boolean("y", "q", True))
    full = Report("1", "one", tuple(p.grade({"x": True, "y": True}) for p in parts))
    half = Report("2", "two", tuple(p.grade({"x": True}) for p in parts))
    record_progress(path, full)
    record_progress(path, half)
    rows = {
        r["exercise"]: r
        for r in summary(load_progress(path), [("1", "one", 2), ("2", "two", 2), ("3", "x", 4)])
    }
    assert rows["1"]["label"] == "全問正解"
    assert rows["2"]["label"] != "全問正解" and rows["2"]["score"] == 1
    assert rows["3"]["label"] == "未着手" and rows["3"]["attempts"] == 0
    changed = summary(load_progress(path), [("1", "one", 3)])[0]  # the key grew a part
    assert changed["label"] != "全問正解"


def test_the_progress_command_lists_every_exercise(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MCPMINI_PROGRESS", str(tmp_path / "progress.json"))
    from mcpmini.course import get_exercise

    ex = get_exercise("9.4")
    ex.check(ex.answer_key())
    assert main(["progress", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = {r["exercise"]: r for r in data["exercises"]}
    assert set(rows) == {"9.1", "9.2", "9.3", "9.4", "P.1", "P.2", "P.3", "P.4", "C.1"}
    assert rows["9.4"]["label"] == "全問正解" and rows["9.1"]["label"] == "未着手"


def test_the_progress_command_fails_cleanly_on_a_corrupt_file(tmp_path, monkeypatch, capsys):
    path = tmp_path / "progress.json"
    path.write_text("not json")
    monkeypatch.setenv("MCPMINI_PROGRESS", str(path))
    assert main(["progress"]) == 2
    assert str(path) in capsys.readouterr().err
