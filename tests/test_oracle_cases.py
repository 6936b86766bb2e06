"""The oracle's case model and the differential suite's data (no Claude Code needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpmini.errors import ConfigError
from mcpmini.oracle import PIN
from mcpmini.oracle.case import Call, Case, Scope
from mcpmini.oracle.compare import Judged, Pair
from mcpmini.oracle.drift import changes
from mcpmini.oracle.suite import Outcome, SuiteCase, by_category, load_cases
from mcpmini.oracle.verdict import Cause, Observed, Verdict
from mcpmini.permissions import MODES

CATEGORIES = {
    "rule_forms",
    "compound",
    "redirects",
    "wrappers",
    "read_only",
    "paths",
    "scopes",
    "modes",
    "webfetch",
    "mcp",
    "hooks",
    # issue 29
    "runners",
    "builtins",
    "options",
    # issue 32
    "settings_keys",
    "case",
    "protected",
    "rule_parsing",
    "permission_request",
    "trust_paths",
    "fuzz_found",
}


def test_the_suite_holds_at_least_250_calls_in_every_category() -> None:
    cases = load_cases()
    assert {c.category for c in cases} == CATEGORIES
    assert sum(len(c.case.calls) for c in cases) >= 250
    assert len({c.key for c in cases}) == len(cases)
    modes = {c.case.mode for c in cases}
    assert {m.value for m in MODES} <= modes


def test_every_known_disagreement_names_the_pinned_version_it_was_seen_in() -> None:
    # the suite runs every known one under the pin (xfail, strict): a reason naming an older
    # version was not looked at again when the pin moved
    known = [call.known for c in load_cases() for call in c.case.calls if call.known]
    assert known
    assert all(f"observed in {PIN}:" in reason and "mcpmini" in reason for reason in known)


def test_short_forms_expand_to_tool_calls() -> None:
    case = Case.from_dict(
        {
            "calls": [
                {"bash": "ls"},
                {"read": "/x"},
                {"write": "/y", "known": "why"},
                {"mcp": "mcp__s__t", "input": {"a": 1}},
                {"fetch": "https://e.com/"},
            ]
        }
    )
    assert [(c.tool, dict(c.input)) for c in case.calls][:2] == [
        ("Bash", {"command": "ls"}),
        ("Read", {"file_path": "/x"}),
    ]
    assert case.calls[2].input["content"] == "oracle\n"
    assert case.calls[2].known == "why"
    assert case.calls[3] == Call("mcp__s__t", {"a": 1}, label="mcp__s__t")
    assert case.calls[4].input["url"] == "https://e.com/"


def test_placeholders_are_bound_everywhere() -> None:
    case = Case.from_dict(
        {
            "settings": {"user": {"permissions": {"deny": ["Read(/{ws}/a)"]}}},
            "files": {"~/x": "{home}"},
            "calls": [{"read": "{ws}/a"}],
        }
    ).bind({"ws": "/w", "home": "/h", "root": "/r"})
    assert case.settings[Scope.USER]["permissions"]["deny"] == ["Read(//w/a)"]
    assert case.files == {"~/x": "/h"}
    assert case.calls[0].input["file_path"] == "/w/a"


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"mode": "yolo"}, "mode"),
        ({"settings": {"team": {}}}, "settings.team"),
        ({"calls": [{"input": {}}]}, "calls[0].tool"),
        ({"calls": [{"bash": "ls", "read": "/x"}]}, "calls[0]"),
        ({"surprise": 1}, "surprise"),
        ({"trusted": "yes"}, "trusted"),
    ],
)
def test_a_bad_case_names_the_field(data: dict[str, object], path: str) -> None:
    with pytest.raises(ConfigError) as caught:
        Case.from_dict(data, source="case.json")
    assert caught.value.path == path


def _outcome(verdicts: list[str]) -> Outcome:
    calls = tuple(Call("Bash", {"command": f"c{i}"}, label=f"c{i}") for i in range(len(verdicts)))
    pairs = tuple(
        Pair(Observed(i, c, Verdict(v), Cause.NONE, "", False), Judged(c, "allow"))
        for i, (c, v) in enumerate(zip(calls, verdicts, strict=True))
    )
    return Outcome(SuiteCase("modes", Case("s", calls)), None, pairs)  # type: ignore[arg-type]


def test_drift_lists_every_call_whose_claude_code_verdict_changed() -> None:
    pinned = [_outcome(["allow", "ask", "deny"])]
    newest = [_outcome(["allow", "deny", "deny"])]
    assert changes(pinned, newest) == [("modes/s", "c1", "ask", "deny")]
    assert changes(pinned, pinned) == []


def test_agreement_is_counted_per_category_with_the_known_ones() -> None:
    table = by_category([_outcome(["allow", "ask", "deny"])])
    assert table == {"modes": {"agree": 1, "disagree": 2, "known": 0}}


def test_drift_without_the_npm_registry_says_so_in_one_line(tmp_path, monkeypatch, capsys) -> None:
    from mcpmini.oracle import drift

    npm = tmp_path / "npm"
    npm.write_text(
        "#!/bin/sh\necho 'npm error code ENOTFOUND' >&2\n"
        "echo 'npm error network request failed' >&2\nexit 1\n"
    )
    npm.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    assert drift.main([]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "make drift: cannot reach the npm registry (npm view "
        "@anthropic-ai/claude-code): npm error code ENOTFOUND"
    ]


def test_drift_against_a_named_release_asks_npm_for_no_newest_version(
    tmp_path, monkeypatch, capsys
) -> None:
    from mcpmini.oracle import drift

    calls = tmp_path / "calls"
    npm = tmp_path / "npm"  # records each call; every install fails as offline
    npm.write_text(
        f'#!/bin/sh\necho "$@" >> {calls}\necho "npm error code ENOTFOUND" >&2\nexit 1\n'
    )
    npm.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    monkeypatch.setattr(drift, "install_claude", lambda version, root=None: _fail(version))
    assert drift.main(["--against", "2.1.300"]) == 2
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == f"pinned Claude Code {drift.PIN}, against 2.1.300"
    assert err.strip().splitlines() == ["make drift: npm install of Claude Code 2.1.300 failed"]
    assert not calls.exists()  # no `npm view`: the release was named


def _fail(version: str) -> Path:
    from mcpmini.oracle import PIN, ClaudeCodeMissing

    if version == PIN:
        return Path("claude")  # the pin is installed; the named release cannot be
    raise ClaudeCodeMissing(f"npm install of Claude Code {version} failed")


def test_a_drift_check_that_cannot_finish_is_named_and_the_others_still_run(monkeypatch) -> None:
    from mcpmini.oracle import drift
    from mcpmini.process import Completed, Ending

    answers = {
        "a.py": Completed(("pytest",), Ending.EXITED, 0, b"3 passed\n"),
        "b.py": Completed(("pytest",), Ending.TIMEOUT, None, b""),
        "c.py": Completed(("pytest",), Ending.EXITED, 1, b"FAILED c.py::test_x - assert\n"),
        "d.py": Completed(("pytest",), Ending.EXITED, 4, b"ERROR: file not found: d.py\n"),
    }
    seen = []

    def fake_run(argv, **kwargs):
        seen.append(argv[3])
        return answers[argv[3]]

    monkeypatch.setattr(drift, "CHECKS", {k[0]: k for k in answers})
    monkeypatch.setattr(drift, "run", fake_run)
    assert drift._checks(Path("claude"), timeout=5) == {
        "a": [],
        "b": "b.py did not finish within 5 s",
        "c": ["c.py::test_x"],
        "d": "d.py could not run (exit 4): ERROR: file not found: d.py",
    }
    assert seen == ["a.py", "b.py", "c.py", "d.py"]
