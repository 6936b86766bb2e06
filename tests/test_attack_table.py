"""How chapter 07b labels the shared permission cases: columns, notes, warnings and the
comparison with Claude Code in the learner's language (the rows themselves are tested in
``tests/test_attacks_permissions.py``)."""

from __future__ import annotations

from mcpmini.course.chapters import (
    PERMISSION_CASES,
    case_rows,
    case_summary,
    case_table,
    comparison_summary,
    comparison_table,
)
from mcpmini.course.chapters.attacks import BYPASS_WORDS, NOTES
from mcpmini.course.edition import japanese_chars
from mcpmini.course.language import Lang, use
from mcpmini.permissions import BypassKind


def test_every_note_of_the_table_has_its_japanese():
    missing = sorted({c.note for c in PERMISSION_CASES if c.note and c.note not in NOTES})
    assert missing == []
    assert all(japanese_chars(text.ja) for text in NOTES.values())


def test_every_bypass_kind_has_words_in_both_languages():
    assert {k.value for k in BypassKind} <= set(BYPASS_WORDS)


def test_the_case_table_speaks_one_language_at_a_time():
    columns = ("call", "mode", "actual", "decided_by", "warnings", "note")
    with use(Lang.EN):
        english = case_table("bypass", columns)
    with use(Lang.JA):
        japanese = case_table("bypass", columns)
    assert list(english.columns) == ["call", "mode", "mcpmini", "decided at", "warnings", "note"]
    assert list(japanese.columns) == [
        "呼び出し",
        "モード",
        "mcpmini の判定",
        "決めた関門",
        "警告",
        "注",
    ]
    assert not any(japanese_chars(str(v)) for v in english.values.ravel())
    assert english["call"].tolist() == japanese["呼び出し"].tolist()
    shell = english["call"].tolist().index("bash -c 'rm -rf /'")
    assert english["warnings"][shell] == "shell -c" and japanese["警告"][shell] == "シェルの -c"
    assert japanese["決めた関門"][0] == "deny 規則"


def test_the_summary_counts_the_rows():
    rows = case_rows("attack")
    auto = sum(r["actual"] == "allow" for r in rows)
    with use(Lang.EN):
        line = case_summary("attack")
    assert line.startswith(f"{len(rows)} cases") and f"{auto} auto-approved" in line


def test_the_comparison_table_maps_agreement_and_claude_codes_own_words():
    base = case_rows()[:3]
    version = "9.9.9"
    column = f"Claude Code {version}"
    rows = [
        {**base[0], column: base[0]["actual"], "agree": "yes"},
        {**base[1], column: "no such tool", "agree": "NO"},
        {**base[2], column: "", "agree": "—"},
    ]
    with use(Lang.JA):
        table = comparison_table(rows, version)
        summary = comparison_summary(rows)
    assert table[column].tolist()[1] == "ツールが無い (no such tool)"
    assert table["一致"].tolist() == ["はい", "いいえ", "—"]
    assert summary == "本物に送った 2 行のうち 1 行で一致"


def test_the_comparison_table_names_groups_and_the_case_not_sent_in_each_language():
    from mcpmini.course.chapters.attacks import GROUP_WORDS, VERDICT_WORDS
    from mcpmini.course.chapters.claude_code import NOT_RUN

    assert set(NOT_RUN.values()) <= set(VERDICT_WORDS)
    assert {c.group for c in PERMISSION_CASES} <= set(GROUP_WORDS)
    [not_run] = NOT_RUN.values()
    version = "9.9.9"
    column = f"Claude Code {version}"
    row = next(r for r in case_rows("control"))
    rows = [{**row, column: not_run, "agree": "—"}]
    with use(Lang.JA):
        japanese = comparison_table(rows, version)
    with use(Lang.EN):
        english = comparison_table(rows, version)
    assert japanese["組"].tolist() == ["対照"] and english["group"].tolist() == ["control"]
    assert japanese_chars(japanese[column][0]) and english[column][0] == not_run
