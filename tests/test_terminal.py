"""Issue 22, clean terminals: every string that came from a server, a config file, a plugin, a
skill or a hook reaches the terminal with its control characters escaped; ``--json`` stays
exact JSON. Each kind of escape sequence goes through each command that prints."""

from __future__ import annotations

import json

import pytest

from mcpmini.cli.output import terminal_safe

# Each kind of sequence a hostile string may carry, by name.
ATTACKS = {
    "osc_title": "\x1b]0;pwned\x07",
    "osc_title_st": "\x1b]2;pwned\x1b\\",
    "clear_screen": "\x1b[2J\x1b[H",
    "cursor_up": "\x1b[1A\x1b[2K",
    "cursor_position": "\x1b[10;10H",
    "c1_csi": "\x9b2J",
    "c1_osc": "\x9d0;pwned\x9c",
    "carriage_return": "ok\rFAKE",
    "backspace": "abc\x08\x08\x08xyz",
    "bell_del": "\x07\x7f",
    "bidi_override": "\u202eevil\u202c",
    "bidi_isolate": "\u2066\u2067\u2068\u2069",
}
RAW = {chr(c) for c in (*range(0x20), 0x7F, *range(0x80, 0xA0))} - {"\n", "\t"} | {
    *map(chr, range(0x202A, 0x202F)),
    *map(chr, range(0x2066, 0x206A)),
}


def raw_controls(text: str) -> set[str]:
    """The characters of ``text`` a terminal would act on (newline and TAB are layout)."""
    return {c for c in text if c in RAW}


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_terminal_safe_escapes_each_kind_of_sequence(name: str) -> None:
    out = terminal_safe(f"before {ATTACKS[name]} after")
    assert raw_controls(out) == set()
    assert out.startswith("before ") and out.endswith(" after")


def test_terminal_safe_shows_escapes_as_hex_and_keeps_text() -> None:
    assert terminal_safe("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert terminal_safe("\u202e") == "\\u202e"
    assert terminal_safe("\x9b") == "\\x9b"
    assert terminal_safe("tools: 日本語 é ok") == "tools: 日本語 é ok"


def test_newline_and_tab_are_layout_unless_the_field_is_one_line() -> None:
    assert terminal_safe("a\n\tb") == "a\n\tb"
    assert terminal_safe("a\n\tb", layout=False) == "a\\x0a\\x09b"
    assert terminal_safe("a\r\nb") == "a\\x0d\nb"


def test_print_json_stays_exact_json_and_clean(capsys) -> None:
    from mcpmini.cli.output import print_json

    value = {"name": "".join(ATTACKS.values()), "ok": [1, "日本"]}
    print_json(value)
    out = capsys.readouterr().out
    assert json.loads(out) == value
    assert raw_controls(out) == set()
