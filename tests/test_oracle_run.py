"""The oracle's runner against stand-in binaries: bad input ends in one OracleFailure, exit 2,
no process left behind and nothing written outside the case folder (no Claude Code needed;
bubblewrap is)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import psutil
import pytest

from mcpmini.oracle.case import Call, Case, Scope
from mcpmini.oracle.fakeapi import tool_use_id
from mcpmini.oracle.run import REPO, Failure, OracleFailure, lay_out, run_case, sandbox_argv
from mcpmini.oracle.shown import shown_in
from mcpmini.oracle.verdict import Cause, Verdict, observe

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is missing")

CASE = Case(
    "stand-in",
    calls=(Call("Bash", {"command": "ls"}),),
    settings={Scope.PROJECT: {"permissions": {"allow": ["Bash(ls *)"]}}},
)


def _stand_in(tmp_path: Path, body: str) -> Path:
    exe = tmp_path / "bin" / "claude"
    exe.parent.mkdir()
    exe.write_text("#!/bin/sh\n" + body + "\n", encoding="utf-8")
    exe.chmod(0o755)
    return exe


def _children() -> set[int]:
    return {p.pid for p in psutil.Process().children(recursive=True)}


@needs_bwrap
@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ("exec sleep 300", Failure.HUNG),
        ("echo boom >&2; exit 3", Failure.CRASHED),
        ("echo 'Invalid API key · Please run /login'; exit 1", Failure.LOGIN),
        ('echo \'{"type": "other"}\'', Failure.CRASHED),
    ],
)
def test_a_bad_claude_code_is_one_failure_and_leaves_nothing_behind(
    tmp_path: Path, body: str, kind: Failure
) -> None:
    outside, in_repo = tmp_path / "outside.txt", REPO / "oracle-escape.txt"
    exe = _stand_in(tmp_path, f"echo x > {outside}; echo x > {in_repo}; {body}")
    cases = tmp_path / "cases"
    cases.mkdir()
    before = _children()
    with pytest.raises(OracleFailure) as caught:
        run_case(CASE, exe, timeout=2, tmp=str(cases))
    assert caught.value.kind is kind
    assert caught.value.exit_code == 2
    assert "\n" not in str(caught.value)
    assert _children() <= before
    assert not outside.exists()
    assert not in_repo.exists()
    assert list(cases.iterdir()) == []


def test_a_missing_binary_is_a_missing_failure(tmp_path: Path) -> None:
    with pytest.raises(OracleFailure) as caught:
        run_case(CASE, tmp_path / "nothing", tmp=str(tmp_path))
    assert caught.value.kind is Failure.MISSING
    assert list(tmp_path.iterdir()) == []


def test_a_missing_bubblewrap_is_a_sandbox_failure(tmp_path: Path) -> None:
    exe = _stand_in(tmp_path, "exit 0")
    with pytest.raises(OracleFailure) as caught:
        run_case(CASE, exe, bwrap=str(tmp_path / "no-bwrap"), tmp=str(tmp_path))
    assert caught.value.kind is Failure.SANDBOX


def test_the_case_folder_holds_each_scope_and_the_trust(tmp_path: Path) -> None:
    case = Case(
        "layout",
        settings={
            Scope.USER: {"permissions": {"deny": ["Read(~/x)"]}},
            Scope.LOCAL: {"permissions": {"allow": ["Bash(ls {ws})"]}},
            Scope.MANAGED: {"permissions": {"deny": ["Bash(rm *)"]}},
        },
        files={"a.txt": "a", "~/notes.txt": "n"},
        trusted=False,
    )
    with lay_out(case, tmp=str(tmp_path)) as tree:
        assert json.loads((tree.home / ".claude/settings.json").read_text())["permissions"]
        local = json.loads((tree.ws / ".claude/settings.local.json").read_text())
        assert local["permissions"]["allow"] == [f"Bash(ls {tree.ws})"]
        assert (tree.root / "managed/managed-settings.json").exists()
        assert (tree.ws / "a.txt").read_text() == "a"
        assert (tree.home / "notes.txt").read_text() == "n"
        state = json.loads((tree.home / ".claude.json").read_text())
        assert state["projects"] == {}
    assert list(tmp_path.iterdir()) == []


def test_the_sandbox_is_read_only_but_the_case_folder_and_has_no_network(tmp_path: Path) -> None:
    argv = sandbox_argv(["true"], tmp_path, tmp_path, Path("/bin/true"))
    assert argv[:5] == ["bwrap", "--unshare-user", "--uid", "1000", "--gid"]
    assert "--unshare-net" in argv and "--die-with-parent" in argv and "--unshare-pid" in argv
    assert argv[argv.index("--ro-bind") + 1 : argv.index("--ro-bind") + 3] == ["/", "/"]
    binds = [argv[i + 1] for i, a in enumerate(argv) if a == "--bind"]
    assert binds == [str(tmp_path)]
    managed = argv.index("/etc/claude-code")
    assert argv[managed - 2 : managed] == ["--ro-bind", str(tmp_path / "managed")]


def _body(results: list[tuple[int, str, bool]]) -> dict[str, object]:
    messages: list[dict[str, object]] = [{"role": "user", "content": "go"}]
    for step, text, error in results:
        messages.append(
            {"role": "assistant", "content": [{"type": "tool_use", "id": tool_use_id(step)}]}
        )
        block = {"type": "tool_result", "tool_use_id": tool_use_id(step), "content": text}
        messages.append({"role": "user", "content": [{**block, "is_error": error}]})
    return {"messages": messages, "tools": [{"name": "Bash"}]}


def test_each_call_is_read_as_ran_asked_denied_or_unreached() -> None:
    calls = [Call("Bash", {"command": c}) for c in ("ls", "rm x", "git push", "false", "x", "y")]
    ids = [tool_use_id(i) for i in range(len(calls))]
    body = _body(
        [
            (0, "a.txt", False),
            (1, "Permission to use Bash with command rm x has been denied.", True),
            (2, "oracle: the permission prompt was refused", True),
            (3, "Exit code 1", True),
            (4, "<tool_use_error>Error: No such tool available: Bash</tool_use_error>", True),
        ]
    )
    result = {"permission_denials": [{"tool_use_id": ids[1]}, {"tool_use_id": ids[2]}]}
    prompts = [{"tool_name": "Bash", "input": {"command": "git push"}, "tool_use_id": ids[2]}]
    got = observe(calls, ids, [body], result, prompts)
    assert [(o.verdict, o.cause) for o in got] == [
        (Verdict.ALLOW, Cause.NONE),
        (Verdict.DENY, Cause.RULE),
        (Verdict.ASK, Cause.PROMPT),
        (Verdict.ALLOW, Cause.NONE),
        (Verdict.DENY, Cause.REMOVED),
        (Verdict.UNREACHED, Cause.OTHER),
    ]


def test_what_the_model_was_shown_comes_from_the_first_request_with_tools() -> None:
    listing = "The following skills are available for use with the Skill tool:\n\n- a: b"
    first = {
        "system": [{"type": "text", "text": "You are Claude Code."}],
        "tools": [{"name": "Bash"}, {"name": "mcp__s__t", "defer_loading": True}],
        "messages": [
            {"role": "system", "content": listing + "\n\nToday's date is 2026-12-01."},
            {"role": "user", "content": "go"},
        ],
    }
    shown = shown_in([{"messages": []}, first])
    assert shown.system == "You are Claude Code."
    assert shown.tools == ("Bash", "mcp__s__t")
    assert shown.deferred == ("mcp__s__t",)
    assert shown.skill_listing == listing
    assert shown.sizes()["system"]["chars"] == len("You are Claude Code.")


def test_a_headless_refusal_of_a_redirect_followed_by_more_words_is_an_ask() -> None:
    # found by the fuzzer: `echo x > f # note` is asked interactively (the prompt tool is
    # called); claude -p refuses the same prompt with this text instead of "needs approval"
    calls = [Call("Bash", {"command": "echo x > w.txt # note"})]
    ids = [tool_use_id(0)]
    text = "Redirect has multiple targets — post-redirect args swallowed"
    body = _body([(0, text, True)])
    result = {"permission_denials": [{"tool_use_id": ids[0]}]}
    [got] = observe(calls, ids, [body], result, [])
    assert (got.verdict, got.cause) == (Verdict.ASK, Cause.PROMPT)
