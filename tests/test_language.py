"""The learner's language: one setting (override, MCPMINI_LANG, the edition marker, Japanese)."""

from pathlib import Path

import pytest

from mcpmini.course import grading
from mcpmini.course.grading import Exercise, Part
from mcpmini.course.language import (
    EDITION_MARKER,
    Lang,
    LanguageError,
    Text,
    current,
    edition_of,
    say,
    use,
)
from mcpmini.course.progress import summary

HELLO = Text("こんにちは", "hello")


def test_japanese_is_the_default_outside_any_edition(tmp_path):
    assert current({}, tmp_path) is Lang.JA
    assert edition_of(tmp_path) is None


def test_the_environment_variable_chooses_the_language(tmp_path):
    assert current({"MCPMINI_LANG": "en"}, tmp_path) is Lang.EN
    assert current({"MCPMINI_LANG": " JA "}, tmp_path) is Lang.JA


def test_an_unknown_language_is_one_error_naming_both_choices(tmp_path):
    with pytest.raises(LanguageError) as caught:
        current({"MCPMINI_LANG": "fr"}, tmp_path)
    assert caught.value.exit_code == 2
    message = str(caught.value)
    assert "\n" not in message
    assert "'fr'" in message and "ja or en" in message


def test_both_is_not_a_setting_of_the_course(tmp_path):
    with pytest.raises(LanguageError):
        current({"MCPMINI_LANG": "both"}, tmp_path)


def test_an_edition_marker_above_the_folder_sets_the_language(tmp_path):
    (tmp_path / "en").mkdir()
    (tmp_path / "en" / EDITION_MARKER).write_text("en\n")
    deep = tmp_path / "en" / "notebooks" / "ccaf"
    deep.mkdir(parents=True)
    assert current({}, deep) is Lang.EN
    assert current({"MCPMINI_LANG": "ja"}, deep) is Lang.JA  # the variable wins


def test_a_marker_naming_no_edition_is_an_error_naming_the_file(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / EDITION_MARKER).write_text("klingon")
    with pytest.raises(LanguageError) as caught:
        current({}, tmp_path / "x")
    assert EDITION_MARKER in str(caught.value)


def test_use_overrides_everything_inside_its_block(tmp_path):
    with use(Lang.EN):
        assert current({"MCPMINI_LANG": "ja"}, tmp_path) is Lang.EN
        assert str(HELLO) == "hello"
        assert f"{HELLO}!" == "hello!"
    with use("ja"):
        assert str(HELLO) == "こんにちは"


def test_a_text_formats_and_joins_in_both_languages():
    t = Text("{n} 個", "{n} items").format(n=3) + "."
    assert (t.ja, t.en) == ("3 個.", "3 items.")
    assert ("» " + HELLO).en == "» hello"
    assert HELLO.lang(Lang.BOTH) == "hello\nこんにちは"
    assert HELLO.inline(Lang.BOTH) == "hello / こんにちは"
    assert say("plain", Lang.EN) == "plain"


def test_the_checker_speaks_the_learners_language():
    ex = Exercise(
        "X.1",
        Text("題", "Title"),
        Text("問題", "Statement"),
        [Part.integer("n", Text("数は？", "How many?"), 3, otherwise=Text("違います", "No"))],
        hints=[Text("ヒントです", "A hint")],
    )
    with use(Lang.EN):
        report = ex.check({"n": 4}, record=False)
        assert str(report).splitlines()[0] == "Exercise X.1 Title: 0/1 correct (1 incorrect)"
        assert report.results[0].message == "No"
        assert "(now: 'x')" in ex.grade({"n": "x"}).results[0].message
    with use(Lang.JA):
        report = ex.check({"n": 3}, record=False)
        assert str(report).splitlines()[0] == "演習 X.1 題: 全問正解（1/1）"


def test_every_checker_word_exists_in_both_languages():
    for name, text in grading.WORDS.items():
        assert text.ja.strip() or name == "then", name
        assert text.en.strip() or name == "then", name


def test_the_progress_summary_labels_follow_the_language():
    data = {"exercises": {"9.1": {"parts": {"a": "correct"}, "score": 1}}}
    catalogue = [("9.1", "t", 1), ("9.2", "u", 2)]
    with use(Lang.EN):
        rows = summary(data, catalogue)
    assert [r["state"] for r in rows] == ["correct", "not_started"]
    assert [r["label"] for r in rows] == ["all correct", "not started"]
    with use(Lang.JA):
        assert summary(data, catalogue)[1]["label"] == "未着手"


def test_the_course_modules_never_read_the_environment_for_the_language_themselves():
    # One place decides: every other course module asks language.current().
    course = Path(__file__).resolve().parents[1] / "mcpmini" / "course"
    readers = [
        p.relative_to(course).as_posix()
        for p in course.rglob("*.py")
        if "MCPMINI_LANG" in p.read_text(encoding="utf-8") and p.name != "language.py"
    ]
    assert readers == []
