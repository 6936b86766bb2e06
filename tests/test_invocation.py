"""Invoking a skill: placeholders, ``!`cmd``` embeddings, the permission check, re-attachment."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpmini.skills import (
    CommandRun,
    InvocationStatus,
    ReattachStatus,
    Skill,
    invoke,
    reattach,
    render,
    skill_permits,
)


def skill(body: str, **fields) -> Skill:
    return Skill("demo", "a demo", body, fields=fields, directory="/skills/demo")


class Recorder:
    """A runner that answers from a table and remembers what it was asked to run."""

    def __init__(self, answers: dict[str, CommandRun] | None = None) -> None:
        self.answers = answers or {}
        self.ran: list[str] = []

    def __call__(self, command: str) -> CommandRun:
        self.ran.append(command)
        return self.answers.get(command, CommandRun(command, 0, f"<{command}>\n"))


# --- render ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body, arguments, expected",
    [
        ("Fix $ARGUMENTS now", "issue 12", "Fix issue 12 now"),
        ("$ARGUMENTS[0] then $ARGUMENTS[1]", "a 'b c'", "a then b c"),
        ("$0/$1", "x y", "x/y"),
        ("$2 stays", "x y", "$2 stays"),
        ("costs \\$5", "", "costs $5"),
        ("$HOME stays", "", "$HOME stays"),
    ],
)
def test_render_substitutes_the_argument_placeholders(body, arguments, expected):
    assert render(body, arguments) == expected


def test_named_arguments_take_the_positional_values_and_missing_ones_are_empty():
    assert render("from $src to $dst", "a.txt", names=("src", "dst")) == "from a.txt to "


def test_claude_variables_are_substituted_and_unknown_ones_stay():
    text = render("${CLAUDE_SKILL_DIR}/x ${CLAUDE_NOPE}", variables={"CLAUDE_SKILL_DIR": "/s"})
    assert text == "/s/x ${CLAUDE_NOPE}"


def test_arguments_without_a_placeholder_are_appended():
    assert render("Do the thing.", "now please") == "Do the thing.\n\nARGUMENTS: now please"
    assert render("Do the thing.", "  ") == "Do the thing."


def test_unbalanced_quotes_fall_back_to_whitespace_splitting():
    assert render("$0|$1", "it's fine") == "it's|fine"


# --- invoke ---------------------------------------------------------------------------


def test_inline_and_fenced_commands_run_once_each_and_their_output_replaces_them():
    runner = Recorder()
    body = "Branch: !`git branch`\n```!\nls -1\n```\nend"
    result = invoke(skill(body), runner=runner)
    assert result.status is InvocationStatus.OK and result.error is None
    assert runner.ran == ["git branch", "ls -1"]
    assert result.text == "Branch: <git branch>\n<ls -1>\nend"
    assert [c.command for c in result.commands] == ["git branch", "ls -1"]


def test_command_output_is_never_scanned_again_for_commands():
    runner = Recorder({"echo": CommandRun("echo", 0, "!`rm -rf /`")})
    result = invoke(skill("say !`echo`"), runner=runner)
    assert runner.ran == ["echo"] and result.text == "say !`rm -rf /`"


def test_a_bang_inside_a_word_is_not_a_command():
    runner = Recorder()
    assert invoke(skill("wow!`x`"), runner=runner).text == "wow!`x`" and runner.ran == []


def test_a_failing_command_aborts_the_invocation_and_later_commands_do_not_run():
    runner = Recorder({"false": CommandRun("false", 2, "", "bad")})
    result = invoke(skill("!`true` !`false` !`later`"), runner=runner)
    assert result.status is InvocationStatus.ABORTED and result.text == ""
    assert runner.ran == ["true", "false"]
    assert [c.returncode for c in result.commands] == [0, 2]


def test_exit_1_is_tolerated_only_for_search_and_diff_commands():
    assert CommandRun("grep x f", 1).ok and CommandRun("git diff", 1).ok
    assert not CommandRun("ls x", 1).ok and not CommandRun("grep x f", 2).ok
    assert not CommandRun("grep x f", None).ok  # a timeout


def test_a_timed_out_command_aborts():
    runner = Recorder({"slow": CommandRun("slow", None, "", "timed out")})
    result = invoke(skill("!`slow`"), runner=runner)
    assert result.status is InvocationStatus.ABORTED
    assert result.commands[0].returncode is None


def test_with_shell_execution_disabled_nothing_runs():
    runner = Recorder()
    result = invoke(skill("!`date`"), runner=runner, shell_execution=False)
    assert runner.ran == [] and result.status is InvocationStatus.OK
    assert "!`date`" not in result.text


def test_a_refused_command_never_runs_and_aborts():
    runner = Recorder()
    result = invoke(skill("!`ls` !`curl x`"), runner=runner, permit=lambda c: c == "ls")
    assert runner.ran == ["ls"]
    assert result.status is InvocationStatus.ABORTED
    assert [c.refused for c in result.commands] == [False, True]


def test_the_skill_dir_and_plugin_variables_reach_the_body():
    s = Skill(
        "demo",
        "d",
        "${CLAUDE_SKILL_DIR} ${CLAUDE_PLUGIN_ROOT} ${CLAUDE_SESSION_ID}",
        directory="/skills/demo",
        variables={"CLAUDE_PLUGIN_ROOT": "/plug"},
    )
    text = invoke(s, variables={"CLAUDE_SESSION_ID": "s1"}, runner=Recorder()).text
    assert text == "/skills/demo /plug s1"


def test_the_default_runner_runs_the_command_in_a_shell(tmp_path):
    (tmp_path / "marker.txt").write_text("here")
    result = invoke(skill("!`cat marker.txt`"), cwd=str(tmp_path), timeout=10)
    assert result.status is InvocationStatus.OK and result.text == "here"


# --- skill_permits ----------------------------------------------------------------------


def test_skill_permits_allows_read_only_commands_and_the_skills_bash_rules():
    permit = skill_permits(skill("", **{"allowed-tools": ["Bash(npm test:*)"]}))
    assert permit("ls -la") and permit("npm test -- --watch")
    assert not permit("npm publish") and not permit("rm -rf build")
    assert skill_permits(skill(""), extra_allow=["Bash(make:*)"])("make build")


# --- reattach --------------------------------------------------------------------------


def test_reattach_keeps_the_newest_invocation_of_each_skill_newest_first():
    result = reattach([("a", 100), ("b", 200), ("a", 300)], per_skill_tokens=1000)
    assert [(r.name, r.tokens, r.status) for r in result.items] == [
        ("a", 300, ReattachStatus.WHOLE),
        ("b", 200, ReattachStatus.WHOLE),
    ]


def test_reattach_cuts_at_the_per_skill_cap_and_drops_when_the_total_is_spent():
    result = reattach(
        [("old", 4000), ("mid", 7000), ("new", 5000)], per_skill_tokens=5000, total_tokens=9000
    )
    assert [(r.name, r.status, r.tokens) for r in result.items] == [
        ("new", ReattachStatus.WHOLE, 5000),
        ("mid", ReattachStatus.CUT, 4000),
        ("old", ReattachStatus.DROPPED, 0),
    ]
    assert result.dropped == ["old"] and result.total_tokens == 9000


def test_reattach_refuses_negative_numbers():
    with pytest.raises(ValueError):
        reattach([("a", -1)])
    with pytest.raises(ValueError):
        reattach([], total_tokens=-1)


def test_an_invocation_can_be_reattached_by_its_rendered_text():
    done = invoke(skill("word " * 400), runner=Recorder())
    (item,) = reattach([done], per_skill_tokens=10_000).items
    assert item.original_tokens == done.tokens > 0


@given(
    st.lists(st.tuples(st.sampled_from("abcdef"), st.integers(0, 9000)), max_size=12),
    st.integers(0, 6000),
    st.integers(0, 30000),
)
def test_reattached_tokens_never_exceed_either_cap(invocations, per_skill, total):
    result = reattach(invocations, per_skill_tokens=per_skill, total_tokens=total)
    k = len({name for name, _ in invocations})
    assert len(result.items) == k
    assert result.total_tokens <= min(k * per_skill, total)
    assert all(r.tokens <= min(r.original_tokens, per_skill) for r in result.items)
