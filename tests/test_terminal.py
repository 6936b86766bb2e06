"""Issue 22, clean terminals: every string that came from a server, a config file, a plugin, a
skill or a hook reaches the terminal with its control characters escaped; ``--json`` stays
exact JSON. Each kind of escape sequence goes through each command that prints."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import pytest
from attack_support import descendants, snapshot

from mcpmini.cli import main
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


# ---- every command that prints, end to end ------------------------------------------------

EVIL = "".join(ATTACKS.values())
ONE_LINE = "x\x1b]0;t\x07\x1b[2J\x1b[1A\rY\u202e"  # for names: no newline inside
SERVER = """\
import sys
from mcpmini.mcp import Server, serve_stdio
EVIL = {evil!r}
server = Server("evil" + EVIL)
def echo(text: str = "") -> str:
    return EVIL
server.add_tool(echo, name="echo", description="Echo. " + EVIL)
server.add_tool(echo, name="n" + {one!r}, description=EVIL)
sys.stderr.write(EVIL)
serve_stdio(server)
"""
CRASH = "import sys; sys.stderr.write({evil!r}); sys.exit(3)"


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project whose every file carries escape sequences; HOME and cwd inside ``tmp_path``."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MCPMINI_PROGRESS", str(tmp_path / "progress.json"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "home" / ".claude").mkdir(parents=True)
    # the project's servers approved by the user's own settings (project trust, test_trust.py)
    (tmp_path / "home" / ".claude" / "settings.json").write_text(
        json.dumps({"enableAllProjectMcpServers": True})
    )
    monkeypatch.setenv("MCPMINI_MANAGED_DIR", str(tmp_path / "home"))
    server = tmp_path / "server.py"
    server.write_text(SERVER.format(evil=EVIL, one=ONE_LINE))
    servers = {
        "s" + ONE_LINE: {"command": sys.executable, "args": [str(server)]},
        "crash": {"command": sys.executable, "args": ["-c", CRASH.format(evil=EVIL)]},
    }
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    remote = {"r" + ONE_LINE: {"type": "http", "url": "http://127.0.0.1:9/" + EVIL}}
    (tmp_path / "remote.json").write_text(json.dumps({"mcpServers": remote}))
    hook = (
        f'{sys.executable} -c "import sys,json; sys.stderr.write(json.loads(sys.argv[1])); '
        f'sys.exit(2)" {json.dumps(json.dumps(EVIL))}'
    )
    ctx = (
        f"{sys.executable} -c \"import json,sys; print(json.dumps({{'hookSpecificOutput': "
        f"{{'hookEventName': 'PreToolUse', 'additionalContext': json.loads(sys.argv[1])}}}}))\" "
        f"{json.dumps(json.dumps(EVIL))}"
    )
    settings = {
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": hook}]},
                {"matcher": "*", "hooks": [{"type": "command", "command": ctx}]},
                {"matcher": "B" + ONE_LINE, "hooks": [{"type": "command", "command": "true"}]},
            ]
        },
        "permissions": {"allow": ["Bash(" + ONE_LINE + ")"]},
    }
    (tmp_path / "settings.json").write_text(json.dumps(settings))
    skill = tmp_path / "skills" / ("evil" + ONE_LINE)
    skill.mkdir(parents=True)
    quoted = json.dumps(EVIL)  # a YAML double-quoted scalar: \u001b is ESC there too
    (skill / "SKILL.md").write_text(
        f"---\nname: {json.dumps(ONE_LINE)}\ndescription: {quoted}\n"
        f"{json.dumps('k' + ONE_LINE)}: 1\nallowed-tools: 3\n---\n"
    )
    plugin = tmp_path / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(
        json.dumps({"name": "p" + ONE_LINE, "description": EVIL})
    )
    (plugin / "agents").mkdir()
    (plugin / "agents" / ("a" + ONE_LINE.replace("/", "") + ".md")).write_text("x")
    (tmp_path / "progress.json").write_text(
        json.dumps(
            {
                "exercises": {},
                "practice": {},
                "quiz": {
                    "attempts": EVIL,
                    "best_scaled": EVIL,
                    "last": {"scaled": EVIL, "passed": True, "tasks": {}},
                },
            }
        )
    )
    klass = tmp_path / ("class" + ONE_LINE)
    (klass / ("learner" + ONE_LINE)).mkdir(parents=True)
    return tmp_path


COMMANDS = {
    "tools": ["tools", "--project", ".mcp.json", "--timeout", "20"],
    "hooks_run": [
        "hooks", "run", "--settings", "settings.json", "--event", "PreToolUse",
        "--tool-name", "Bash", "--tool-input", '{"command": "ls"}',
    ],
    "skills_list": ["skills", "list", "skills"],
    "skills_lint": ["skills", "lint", "skills"],
    "config_resolve": ["config", "resolve", "--project", ".mcp.json", "--user", "remote.json"],
    "plugin_validate": ["plugin", "validate", "plugin"],
    "run": ["run", "hi", "--model", "always", "--tool", "mcp__stdio__echo",
            "--max-turns", "2", "--", sys.executable, "server.py"],
    "progress": ["progress"],
    "grade": ["grade", "class" + ONE_LINE, "--out", "out" + ONE_LINE + ".csv", "--no-progress"],
    "run_crash": ["run", "hi", "--", sys.executable, "-c", CRASH.format(evil=EVIL)],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_no_escape_sequence_reaches_the_terminal_raw(
    hostile: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = snapshot(Path(__file__).parent / "fixtures")
    before = descendants()
    code = main(COMMANDS[name])
    out, err = capsys.readouterr()
    assert raw_controls(out) == set() and raw_controls(err) == set(), (name, code)
    assert "\\x1b" in out + err or "\\u001b" in out, (name, out, err)  # shown, escaped
    assert descendants() <= before
    assert snapshot(Path(__file__).parent / "fixtures") == outside


JSON_COMMANDS = [n for n in COMMANDS if n not in ("grade", "run_crash")]


@pytest.mark.parametrize("name", sorted(JSON_COMMANDS))
def test_json_output_stays_exact_json_and_keeps_the_strings(
    hostile: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = COMMANDS[name]
    cut = argv.index("--") if "--" in argv else len(argv)
    main([*argv[:cut], "--json", *argv[cut:]])
    out, err = capsys.readouterr()
    value = json.loads(out)
    assert raw_controls(out) == set() and raw_controls(err) == set()
    assert any("\x1b" in text for text in strings(value))  # the exact strings, as data


def strings(value: object) -> list[str]:
    """Every string inside a JSON value, keys included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def test_the_cli_and_the_inspector_widget_escape_with_one_table() -> None:
    from mcpmini import terminal
    from mcpmini.cli import output

    inspector = importlib.import_module("mcpmini.course.chapters.inspector")

    sample = "".join(chr(c) for c in range(0x2100)) + "\u2066\u2069\u061c"
    assert inspector._visible(sample) == terminal.terminal_safe(sample)
    assert output.terminal_safe is terminal.terminal_safe
    assert not hasattr(inspector, "_TABLE") and not hasattr(output, "_TABLE")  # no copy left
