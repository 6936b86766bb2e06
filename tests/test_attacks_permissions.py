"""Issue 14, permission gate: the attack and bypass table shared with chapter 07, plus the
cases that need a real filesystem (symlinks, an empty working directory)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpmini.course.chapters import PERMISSION_CASES, case_rows, run_case
from mcpmini.permissions import (
    BypassKind,
    PermissionRules,
    analyze,
    gate,
    is_read_only_command,
    parse_rule,
    rule_matches,
)


@pytest.mark.parametrize("case", PERMISSION_CASES, ids=lambda c: f"{c.group}:{c.call}")
def test_every_case_of_the_shared_table_gets_its_decision_and_warnings(case):
    result = run_case(case)
    assert result.final == case.expected
    assert tuple(w.kind for w in result.warnings) == case.warnings


def test_no_attack_case_is_auto_approved():
    attacks = [c for c in PERMISSION_CASES if c.group == "attack"]
    assert len(attacks) >= 20
    assert all(run_case(c).final != "allow" for c in attacks)


def test_every_bypass_warning_names_the_rule_and_its_remedy():
    result = gate(
        "Bash",
        {"command": "eval 'rm -rf /'"},
        rules=PermissionRules(deny=["Bash(rm:*)"]),
        cwd="/p",
        home="/h",
    )
    (warning,) = result.warnings
    assert (warning.rule, warning.kind, warning.command) == (
        "Bash(rm:*)",
        BypassKind.EVAL,
        "eval 'rm -rf /'",
    )
    assert "PreToolUse" in warning.message and "sandbox" in warning.message


def test_case_rows_are_computed_live_and_agree_with_the_table():
    rows = case_rows()
    assert len(rows) == len(PERMISSION_CASES)
    assert all(r["expected"] == r["actual"] for r in rows)
    assert {r["group"] for r in case_rows("bypass")} == {"bypass"}
    assert {r["group"] for r in case_rows("layers")} == {"layers"}


@pytest.mark.parametrize(
    "command",
    [
        "echo $(rm -rf ~)",
        "echo `rm -rf ~`",
        'echo "$(rm -rf ~)"',
        "cat <(rm x)",
        "cat <<EOF\n$(rm x)\nEOF\n",
        "(rm x)",
        "{ rm x; }",
        "for f in a; do rm $f; done",
        "X=$(rm x) ls",
        "ls ${A:-$(rm x)}",
        "if true; then rm x; fi",
    ],
)
def test_a_deny_rule_sees_rm_wherever_bash_would_run_it(command):
    rules = PermissionRules(deny=["Bash(rm:*)"])
    assert gate("Bash", {"command": command}, rules=rules, cwd="/p", home="/h").final == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "$CMD x",
        "${CMD} x",
        "$(echo rm) x",
        "`echo ls`",
        "eval ls",
        "ls $(pwd)",
        "exec ls",
        "source x.sh",
        "cat > $(echo f)",
        "echo 'open",
    ],
)
def test_commands_that_cannot_be_verified_statically_fail_closed(command):
    found = analyze(command)
    assert found.unverifiable
    rules = PermissionRules(allow=["Bash"])
    assert gate("Bash", {"command": command}, rules=rules, cwd="/p", home="/h").final == "ask"
    assert gate("Bash", {"command": command}, mode="dontAsk", cwd="/p", home="/h").final == "deny"


@pytest.mark.parametrize(
    ("command", "read_only"),
    [
        ("ls -la", True),
        ("cat a b", True),
        ("echo hi", True),
        ("pwd", True),
        ("head -n 3 f", True),
        ("tail -f log", True),
        ("grep -rn x .", True),
        ("find . -name '*.py'", True),
        ("wc -l f", True),
        ("which python", True),
        ("diff a b", True),
        ("stat f", True),
        ("du -sh .", True),
        ("cd src", True),
        ("git status", True),
        ("git log --oneline", True),
        ("git diff HEAD", True),
        ("git show HEAD", True),
        ("git branch -a", True),
        ("git rev-parse HEAD", True),
        ("git ls-files", True),
        ("git blame f", True),
        ("sed -n 1,5p f", True),
        ("sed 's/a/b/g' f", False),  # observed in 2.1.332: s/// on a file asks
        ("sed -e 's/a/b/' -e 5q f", False),  # observed in 2.1.332: -e asks
        ("find . -delete", False),
        ("find . -exec rm {} ;", False),
        ("find . -execdir ls ;", False),
        ("find . -fprint out", False),
        ("git diff --output=x", False),
        ("git log --output x", False),
        ("git branch newname", False),
        ("git branch -D main", False),
        ("git push", False),
        ("git -c core.pager=sh log", False),
        ("git diff --ext-diff", False),
        ("git commit", False),
        ("sed -i 's/a/b/' f", False),
        ("sed -ni p f", False),
        ("sed --in-place p f", False),
        ("sed 's/a/b/w out' f", False),
        ("sed 's/a/b/e' f", False),
        ("sed 'w out' f", False),
        ("sed '1e id' f", False),
        ("sed -f script.sed f", False),
        ("ls > out", False),
        ("ls >> out", False),
        ("ls &> out", False),
        ("ls 2>/dev/null", True),
        ("echo x >&2", True),
        ("rm x", False),
        ("curl x", False),
        ("python -c 1", False),
        ("lsof", False),
        # observed in Claude Code 2.1.332 (issue 23): reads only in these narrower forms
        ("echo a | sed 's/a/b/'", True),
        ("sed -n p f", True),
        ("sed -nE 1p f", True),
        ("sed -E 's/a/b/' f", False),
        ("sed --qui p f", False),
        ("sed -l 5 p f", False),
        ("sed 1d f", False),
        ("sed -n '/a/p' f", False),
        ("sed -n '$p' f", False),
        ("git branch --set-upstream-to=origin/main", False),
        ("ls | xargs cat", False),
        ("xargs cat < f", False),
        ("echo f | xargs -I{} cat {}", False),
        ("find . | xargs grep a", True),
        ("echo f | xargs wc -l", True),
        ("echo a | xargs", True),
        ("[[ -f f ]]", True),
        ("test -f f", True),
        ("[ -f f ]", True),
        ("[[ $(echo hi) == hi ]]", False),
        ('[ "$(ls)" ]', False),
        ("(ls)", False),
        ("ls && (pwd)", False),
        ("{ ls; }", False),
        ("f() { ls; }", False),
        ("case a in a) ls;; esac", False),
        ("echo {a,b}", False),
    ],
)
def test_the_read_only_set_command_by_command(command, read_only):
    assert is_read_only_command(command) is read_only
    final = gate("Bash", {"command": command}, cwd="/p", home="/h").final
    assert (final == "allow") is read_only


def test_wrappers_are_stripped_before_matching_and_exec_wrappers_are_not():
    sub = analyze("FOO=1 timeout -s KILL 5 nice -n 3 nohup stdbuf -oL time rm x").subcommands[0]
    assert sub.text == "rm x" and sub.assignments == ("FOO=1",)
    assert sub.wrappers == ("timeout", "nice", "nohup", "stdbuf", "time")
    assert analyze("xargs rm").subcommands[0].text == "rm"
    assert analyze("xargs -0 rm").subcommands[0].text == "xargs -0 rm"
    assert analyze("setsid rm x").subcommands[0].exec_wrapper
    # observed in 2.1.332: "command -p" is stripped before an allow rule, "time -p",
    # "stdbuf -o L" and "nice -n3" are not (a deny rule still sees "time -p rm")
    assert [
        analyze(c).subcommands[0].text
        for c in ("command -p rm x", "time -p rm x", "stdbuf -o L rm x", "nice -n3 rm x")
    ] == ["rm x", "time -p rm x", "stdbuf -o L rm x", "nice -n3 rm x"]
    assert analyze("command -v rm").subcommands[0].text == "command -v rm"


def test_home_is_the_one_passed_in_not_root():
    rules = PermissionRules(deny=["Edit(~/.ssh/**)"])
    call = {"file_path": "/home/alice/.ssh/id_rsa", "content": "x"}
    assert (
        gate(
            "Write", call, rules=rules, mode="acceptEdits", cwd="/home/alice", home="/home/alice"
        ).final
        == "deny"
    )
    assert (
        gate(
            "Write",
            {"file_path": "/root/.ssh/id_rsa", "content": "x"},
            rules=rules,
            mode="bypassPermissions",
            cwd="/home/alice",
            home="/home/alice",
        ).final
        == "allow"
    )


def test_path_anchors_double_slash_settings_root_and_dot_slash():
    def hit(spec: str, path: str, **kw: str) -> bool:
        return rule_matches(
            parse_rule(f"Read({spec})"), "Read", {"file_path": path}, cwd="/p/sub", home="/h", **kw
        )

    assert hit("//etc/passwd", "/etc/passwd")
    assert hit("/docs/*.md", "/p/docs/a.md", root="/p")
    assert not hit("/docs/*.md", "/p/sub/docs/a.md", root="/p")
    # observed in Claude Code 2.1.332: "./name" matches at any depth (docs: the cwd only)
    assert hit("./x", "/p/sub/x") and hit("./x", "/p/sub/deep/x")
    assert hit("./a/x", "/p/sub/a/x") and not hit("./a/x", "/p/sub/b/a/x")
    assert hit("~/n", "/h/n")


def test_an_empty_working_directory_means_the_process_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rules = PermissionRules(deny=["Read(./secrets/**)"])
    target = {"file_path": str(tmp_path / "secrets" / "k")}
    assert gate("Read", target, rules=rules, cwd="", home="/h").final == "deny"
    assert gate("Read", {"file_path": "secrets/k"}, rules=rules, cwd="", home="/h").final == "deny"


def test_a_symlink_into_a_denied_folder_is_denied(tmp_path):
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "k").write_text("KEY")
    (tmp_path / "link").symlink_to(tmp_path / "secrets")
    (tmp_path / "alias").symlink_to(tmp_path / "secrets" / "k")
    rules = PermissionRules(deny=["Read(./secrets/**)"])
    for call in ({"file_path": "link/k"}, {"file_path": "alias"}):
        assert gate("Read", call, rules=rules, cwd=str(tmp_path), home="/h").final == "deny"
    assert (
        gate(
            "Grep", {"pattern": "K", "path": "link"}, rules=rules, cwd=str(tmp_path), home="/h"
        ).final
        == "deny"
    )


def test_a_symlink_out_of_an_allowed_folder_is_not_allowed(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "out").symlink_to("/etc/passwd")
    rules = PermissionRules(allow=["Edit(./src/**)"])
    assert (
        gate("Edit", {"file_path": "src/out"}, rules=rules, cwd=str(tmp_path), home="/h").final
        == "ask"
    )
    assert (
        gate("Edit", {"file_path": "src/ok.py"}, rules=rules, cwd=str(tmp_path), home="/h").final
        == "allow"
    )


def test_accept_edits_stays_inside_the_working_and_additional_directories(tmp_path):
    other = tmp_path / "other"
    work = tmp_path / "work"
    call = {"command": f"touch {other}/x"}
    assert gate("Bash", call, mode="acceptEdits", cwd=str(work), home="/h").final == "ask"
    # observed in 2.1.332: an additional directory that does not exist is ignored
    missing = gate(
        "Bash", call, mode="acceptEdits", cwd=str(work), home="/h", additional_dirs=[str(other)]
    )
    assert missing.final == "ask"
    other.mkdir()
    assert (
        gate(
            "Bash", call, mode="acceptEdits", cwd=str(work), home="/h", additional_dirs=[str(other)]
        ).final
        == "allow"
    )
    assert (
        gate("Bash", {"command": "rm -rf ."}, mode="acceptEdits", cwd=str(work), home="/h").final
        == "ask"
    )
    assert (
        gate(
            "Bash", {"command": "echo x > out.txt"}, mode="acceptEdits", cwd=str(work), home="/h"
        ).final
        == "allow"
    )
    assert (
        gate(
            "Bash",
            {"command": "echo x > .git/config"},
            mode="acceptEdits",
            cwd=str(work),
            home="/h",
        ).final
        == "ask"
    )


def test_redirect_targets_are_judged_as_file_writes_and_input_files_as_reads():
    rules = PermissionRules(allow=["Bash(echo:*)", "Edit(./out/**)"], deny=["Read(.env)"])
    kw = {"rules": rules, "cwd": "/p", "home": "/h"}
    assert gate("Bash", {"command": "echo x > out/a"}, **kw).final == "allow"
    assert gate("Bash", {"command": "echo x > src/a"}, **kw).final == "ask"
    assert gate("Bash", {"command": "cat < .env"}, **kw).final == "deny"
    # observed in 2.1.332 (mcpmini claude-code --compare): a Read deny does not bind a
    # redirect's output, so the allow rules approve this write
    assert gate("Bash", {"command": "echo x > out/.env"}, **kw).final == "allow"


def test_tree_sitter_parses_what_a_hand_splitter_gets_wrong():
    found = analyze("echo 'a && b' && [[ -f x ]] && case $x in a) rm y;; esac && echo $((1+2))")
    assert found.parsed
    assert [s.program for s in found.subcommands] == ["echo", "[[", "rm", "echo"]
    assert [s.text for s in analyze("ls\nrm x").subcommands] == ["ls", "rm x"]


def test_a_command_nested_too_deeply_fails_closed_without_a_traceback():
    command = "echo " + "$(" * 3000 + "ls" + ")" * 3000
    found = analyze(command)
    assert not found.parsed and found.unverifiable
    rules = PermissionRules(allow=["Bash"])
    assert gate("Bash", {"command": command}, rules=rules, cwd="/p", home="/h").final == "ask"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_any_text_gets_a_decision_and_never_a_traceback(command):
    result = gate(
        "Bash",
        {"command": command},
        rules=PermissionRules(deny=["Bash(rm:*)"]),
        cwd="/p",
        home="/h",
    )
    assert result.final in ("allow", "ask", "deny")


FRAGMENTS = [
    "ls",
    "cat f",
    "echo hi",
    "git status",
    "rm -rf x",
    "$(rm x)",
    "`id`",
    "$X",
    "> out",
    "2>/dev/null",
    "&&",
    "||",
    ";",
    "|",
    "\n",
    "sudo",
    "timeout 5",
    "find . -delete",
    "<(ls)",
    "FOO=1",
    "eval",
    "sed -i s/a/b/ f",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=8))
def test_an_auto_approved_command_holds_no_substitution_write_or_non_read(parts):
    command = " ".join(parts)
    result = gate("Bash", {"command": command}, cwd="/p", home="/h")
    if result.final != "allow":
        return
    assert not {"$(rm x)", "`id`", "> out", "<(ls)"} & set(parts)
    segment: list[str] = []
    for part in [*parts, ";"]:
        if part not in ("&&", "||", ";", "|", "\n"):
            segment.append(part)
            continue
        heads = [p for p in segment if p not in ("timeout 5", "2>/dev/null")]
        assert not heads or heads[0] in ("ls", "cat f", "echo hi", "git status")
        segment = []


def _cli(tmp_path, monkeypatch, capsys, home, *argv):
    import json

    from mcpmini.cli import main

    settings_file = tmp_path / "settings.json"
    settings_file.write_text("{}")
    monkeypatch.setenv("HOME", home)
    code = main(
        ["hooks", "run", "--settings", str(settings_file), "--event", "PreToolUse", "--json", *argv]
    )
    return code, json.loads(capsys.readouterr().out)


def test_the_cli_takes_home_from_the_environment(tmp_path, monkeypatch, capsys):
    argv = [
        "--tool-name",
        "Write",
        "--tool-input",
        '{"file_path": "/home/alice/.ssh/id_rsa", "content": "k"}',
        "--deny",
        "Edit(~/.ssh/**)",
        "--mode",
        "acceptEdits",
        "--project-dir",
        str(tmp_path),
    ]
    _, out = _cli(tmp_path, monkeypatch, capsys, "/home/alice", *argv)
    assert out["final"] == "deny"
    _, out = _cli(tmp_path, monkeypatch, capsys, "/home/bob", *argv)
    assert out["final"] == "ask"  # outside the working directory, and not bob's ~/.ssh


def test_the_cli_reports_bypass_warnings(tmp_path, monkeypatch, capsys):
    _, out = _cli(
        tmp_path,
        monkeypatch,
        capsys,
        "/home/alice",
        "--tool-name",
        "Bash",
        "--tool-input",
        '{"command": "eval \'rm -rf /\'"}',
        "--deny",
        "Bash(rm:*)",
    )
    assert out["final"] == "ask"
    assert any("Bash(rm:*)" in w and "PreToolUse" in w for w in out["warnings"])


@pytest.mark.parametrize(
    "command",
    [
        "sudo rm -rf /",
        "env rm -rf /",
        "/bin/rm -rf /",
        '"rm" -rf /',
        "\\rm -rf /",
        "setsid rm -rf /",
        "exec rm -rf /",
    ],
)
@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
def test_a_bash_deny_rule_sees_through_the_forms_claude_code_2_1_328_sees_through(command, mode):
    # documented: these forms sidestep a deny rule; observed in the binary: they are denied
    result = gate(
        "Bash",
        {"command": command},
        rules=PermissionRules(deny=["Bash(rm:*)"]),
        mode=mode,
        cwd="/p",
    )
    assert result.final == "deny" and result.warnings == ()


@pytest.mark.parametrize(("home_is_ws", "written"), [(True, False), (False, True)])
def test_the_loop_anchors_tilde_at_the_home_in_its_environment(tmp_path, home_is_ws, written):
    from mcpmini.agent import AgentOptions, ScriptedModel, builtin_tools, run

    ws = tmp_path / "ws"
    ws.mkdir()
    use = {
        "type": "tool_use",
        "id": "w1",
        "name": "Write",
        "input": {"file_path": "secret.txt", "content": "x"},
    }
    home = str(ws) if home_is_ws else str(tmp_path / "elsewhere")
    run(
        "x",
        ScriptedModel([[use], "done"]),
        AgentOptions(
            tools=builtin_tools(ws),
            permission_mode="acceptEdits",
            cwd=str(ws),
            disallowed_tools=["Edit(~/secret.txt)"],
            env={"HOME": home},
        ),
    )
    assert (ws / "secret.txt").exists() is written


def test_a_read_rule_covers_a_directory_given_to_any_file_tool(tmp_path):
    (tmp_path / "secrets").mkdir()
    rules = PermissionRules(deny=["Read(./secrets/**)"])
    for tool in ("Read", "LS", "Grep"):
        assert (
            gate(
                tool,
                {"path" if tool != "Read" else "file_path": "secrets"},
                rules=rules,
                cwd=str(tmp_path),
                home="/h",
            ).final
            == "deny"
        )


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        ("r\\\nm -rf x", BypassKind.LINE_CONTINUATION),
        ("$'rm' -rf x", BypassKind.ANSI_C),
        ("$'\\x72m' -rf x", BypassKind.ANSI_C),
        ("{rm,-rf,x}", BypassKind.BRACE_EXPANSION),
    ],
)
def test_forms_that_build_the_command_word_ask_and_warn_of_the_deny_rule_they_sidestep(
    command, kind
):
    # Claude Code 2.1.332 asks for each (its deny rule does not match): keep the ask, warn
    result = gate("Bash", {"command": command}, rules=PermissionRules(deny=["Bash(rm *)"]))
    assert result.final == "ask"
    assert [(w.kind, w.rule) for w in result.warnings] == [(kind, "Bash(rm *)")]


@pytest.mark.parametrize(
    ("command", "final"),
    [
        ("true", "allow"),
        ("echo $((2*3))", "allow"),
        ("echo $((x+1))", "ask"),
        ("LANG=C ls", "allow"),
        ("FOO=1 ls", "ask"),
        ("ls sub/..", "ask"),
        ("cat sub/../f.txt", "ask"),
        ("cat /etc/hostname", "ask"),
        ("grep root /etc/passwd", "ask"),
        ("grep -e a f.txt /etc/hostname", "ask"),
        ("cat < /etc/hostname", "ask"),
        ("cat f.txt", "allow"),
        ("grep root f.txt", "allow"),
    ],
)
def test_reads_outside_the_working_directories_ask(command, final):
    # documented: the read-only set never prompts; observed in Claude Code 2.1.332: only inside
    assert gate("Bash", {"command": command}, cwd="/w/ws", home="/w/home").final == final


def test_words_the_grammar_hangs_on_a_redirect_of_a_whole_list_fail_closed():
    # found by the property test above: bash runs "ls <(ls)" as the list's last command
    assert (
        gate("Bash", {"command": "ls && ls 2>/dev/null <(ls)"}, cwd="/p", home="/h").final == "ask"
    )
    assert gate("Bash", {"command": "ls && ls 2>/dev/null"}, cwd="/p", home="/h").final == "allow"
