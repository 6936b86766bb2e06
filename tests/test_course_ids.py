"""Notebook 02's data and words: every malformed line is refused, each history is judged by
both generations' rules, and what the notebook prints reads in one language."""

from __future__ import annotations

import pytest

from mcpmini.course import Lang, use
from mcpmini.course.chapters import id_violations
from mcpmini.course.chapters.ids import (
    ID_HISTORIES,
    MALFORMED_LINES,
    WORDS,
    IdRule,
    IdViolation,
    id_rule_table,
)
from mcpmini.errors import RemoteProtocolError
from mcpmini.mcp import LEGACY, MODERN, parse_line


def _japanese(text: str) -> bool:
    return any("\u3040" <= ch <= "\u9fff" for ch in text)


def test_every_malformed_line_is_refused_with_a_code():
    codes = []
    for _, line in MALFORMED_LINES:
        with pytest.raises(RemoteProtocolError) as caught:
            parse_line(line)
        codes.append(caught.value.code)
    assert set(codes) == {-32700, -32600, -32602}


def test_the_rule_a_send_breaks_is_named_and_read_in_the_learners_language():
    _, history = ID_HISTORIES["reused"]
    [violation] = id_violations(history, LEGACY)
    assert violation == IdViolation(3, 5, IdRule.REUSED)
    _, history = ID_HISTORIES["outstanding"]
    assert [v.rule for v in id_violations(history, MODERN)] == [IdRule.OUTSTANDING]
    with use(Lang.EN):
        assert str(violation) == "event 3 (id 5): reuses an id already used in the session"
    with use(Lang.JA):
        assert _japanese(str(violation)) and "3" in str(violation)


@pytest.mark.parametrize("lang", [Lang.JA, Lang.EN])
def test_the_rule_table_judges_each_history_in_one_language(lang):
    with use(lang):
        table = id_rule_table()
        text = table.to_string()
    assert list(table[LEGACY]) == [WORDS[w].lang(lang) for w in ("obeys", "violation", "violation")]
    assert list(table[MODERN]) == [WORDS[w].lang(lang) for w in ("obeys", "obeys", "violation")]
    assert _japanese(text) == (lang is Lang.JA)


def test_every_word_of_the_chapter_has_both_languages_with_the_same_fields():
    import string

    for text in WORDS.values():
        fields = [
            {f for _, f, _, _ in string.Formatter().parse(t) if f} for t in (text.ja, text.en)
        ]
        assert fields[0] == fields[1] and not _japanese(text.en)
    for label, _ in MALFORMED_LINES:
        assert not _japanese(label.en) and _japanese(label.ja)
