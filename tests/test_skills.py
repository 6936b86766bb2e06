"""Skills: parsing, loading with precedence, the listing budget, invocation, re-attachment."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpmini.agent import estimate_tokens
from mcpmini.errors import ConfigError, Severity
from mcpmini.skills import (
    CommandRun,
    InvocationStatus,
    Level,
    ReattachStatus,
    build_listing,
    invoke,
    lint_skills,
    load_skills,
    parse_skill,
    reattach,
    render,
    run_shell,
)
from mcpmini.skills import loader as skills_module

FIXTURES = Path(__file__).parent / "fixtures" / "skills"


def skill_md(fields: str, body: str = "Body.\n") -> str:
    return f"---\n{fields}---\n\n{body}"


def write_skill(root: Path, name: str, text: str) -> Path:
    d = root / "skills" / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text(text, encoding="utf-8")
    return d


def test_all_exported_names_exist() -> None:
    for name in skills_module.__all__:
        assert hasattr(skills_module, name), name


def test_parse_skill_reads_front_matter_fields_and_body() -> None:
    s = parse_skill(
        skill_md("description: Does X.\nwhen_to_use: When Y.\nargument-hint: <f>\n", "Step 1.\n"),
        name="x-skill",
    )
    assert (s.name, s.description, s.when_to_use) == ("x-skill", "Does X.", "When Y.")
    assert s.body.strip() == "Step 1."
    assert s.listing_text == "Does X. - When Y."
    assert s.warnings == ()


def test_a_skill_without_front_matter_lists_its_first_line_and_is_warned() -> None:
    s = parse_skill("# Title\n\nSecond paragraph.\n", name="plain")
    assert s.description == "Title"
    assert [w.path for w in s.warnings] == ["description"]


def test_malformed_yaml_names_the_file_and_line() -> None:
    with pytest.raises(ConfigError) as info:
        parse_skill("---\ndescription: ok\nbad: [unclosed\nnext: 1\n---\nbody", source="a/SKILL.md")
    assert info.value.source == "a/SKILL.md"
    assert info.value.line in (3, 4, 5)


def test_a_field_written_twice_is_an_error_on_its_second_line() -> None:
    with pytest.raises(ConfigError) as info:
        parse_skill("---\ndescription: a\nmodel: x\ndescription: b\n---\nbody", source="d.md")
    assert (info.value.path, info.value.line) == ("description", 4)


def test_unclosed_front_matter_is_an_error_on_line_one() -> None:
    with pytest.raises(ConfigError) as info:
        parse_skill("---\ndescription: x\n\nbody\n", source="s.md")
    assert (info.value.source, info.value.line) == ("s.md", 1)


def test_front_matter_that_is_not_a_mapping_is_an_error() -> None:
    with pytest.raises(ConfigError) as info:
        parse_skill("---\n- a\n- b\n---\nbody", source="s.md")
    assert info.value.line == 2


@pytest.mark.parametrize(
    ("fields", "key", "line"),
    [
        ("description: ok\ndisable-model-invocation: maybe\n", "disable-model-invocation", 3),
        ("description: ok\nallowed-tools: {a: 1}\n", "allowed-tools", 3),
        ("description: ok\ncontext: thread\n", "context", 3),
        ("description: ok\nhooks: [1, 2]\n", "hooks", 3),
    ],
)
def test_a_known_field_of_the_wrong_type_names_field_and_line(
    fields: str, key: str, line: int
) -> None:
    with pytest.raises(ConfigError) as info:
        parse_skill(skill_md(fields), source="f.md")
    assert (info.value.path, info.value.line) == (key, line)


@pytest.mark.parametrize(
    ("spelling", "value"),
    [("yes", True), ("off", False), ("1", True), ("0", False), ("'on'", True), ("false", False)],
)
def test_booleans_accept_yes_no_on_off_and_digits(spelling: str, value: bool) -> None:
    s = parse_skill(skill_md(f"description: d\ndisable-model-invocation: {spelling}\n"))
    assert s.model_invocable is (not value)


def test_unknown_fields_are_warnings_with_their_line() -> None:
    s = parse_skill(skill_md("description: d\ncolour: blue\n"), source="x.md")
    assert [(w.severity, w.path, w.line) for w in s.warnings] == [(Severity.WARNING, "colour", 3)]
    assert "colour" not in s.fields


def test_plugin_skills_are_namespaced_by_their_folder_as_claude_code_2_1_328_lists_them() -> None:
    s = parse_skill(
        skill_md("name: notes\ndescription: d\n"),
        name="write-notes",
        plugin="team",
        level=Level.PLUGIN,
    )
    assert s.name == "team:write-notes"
    root = parse_skill(skill_md("name: notes\ndescription: d\n"), name=None, plugin="team")
    assert root.name == "team:notes"


def test_commands_ignore_name_and_paths() -> None:
    s = parse_skill(
        skill_md("name: other\npaths: src/*\ndescription: d\n"), name="deploy", kind="command"
    )
    assert s.name == "deploy"
    assert {"name", "paths"}.isdisjoint(s.fields)


def test_loading_the_fixture_keeps_the_good_skill_and_names_every_bad_file() -> None:
    found = load_skills([FIXTURES])
    assert set(found.skills) == {"good", "unknown-field", "deploy"}
    by_dir = {}
    for p in found.problems:
        if p.severity is Severity.ERROR:
            key = Path(p.source).parent.name if p.source.endswith(".md") else Path(p.source).name
            by_dir[key] = p
    assert set(by_dir) == {"bad-yaml", "no-skill-md", "wrong-type", "unclosed"}
    assert by_dir["bad-yaml"].line is not None and by_dir["bad-yaml"].line >= 3
    assert by_dir["wrong-type"].line == 3
    assert by_dir["unclosed"].line == 1
    assert not found.ok
    assert any(p.path == "colour" for p in found.problems)


def test_a_skill_wins_over_a_command_of_the_same_name() -> None:
    found = load_skills([FIXTURES])
    assert found["good"].kind == "skill"
    assert len(found.shadowed["good"]) == 1


def test_enterprise_beats_personal_beats_project(tmp_path: Path) -> None:
    roots = {lvl: tmp_path / lvl for lvl in ("ent", "per", "proj")}
    for lvl, root in roots.items():
        write_skill(root, "deploy", skill_md(f"description: from {lvl}\n"))
    write_skill(roots["proj"], "only-project", skill_md("description: p\n"))
    found = load_skills(enterprise=roots["ent"], personal=roots["per"], project=[roots["proj"]])
    assert found["deploy"].description == "from ent"
    assert found["deploy"].level is Level.ENTERPRISE
    assert len(found.shadowed["deploy"]) == 2
    assert found["only-project"].level is Level.PROJECT
    found = load_skills(personal=roots["per"], project=[roots["proj"]])
    assert found["deploy"].description == "from per"


def test_two_skills_with_one_name_at_one_level_is_an_error_naming_both(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    write_skill(a, "dup", skill_md("description: first\n"))
    write_skill(b, "dup", skill_md("description: second\n"))
    found = load_skills(project=[a, b])
    assert found["dup"].description == "first"
    dup = [p for p in found.problems if p.severity is Severity.ERROR]
    assert len(dup) == 1 and dup[0].source.startswith(str(b))


def test_skill_hooks_are_checked_with_the_hook_schema(tmp_path: Path) -> None:
    good = (
        "hooks:\n  PostToolUse:\n    - matcher: Edit\n      hooks:\n        - type: command\n"
        "          command: ruff format\n"
    )
    write_skill(tmp_path, "good-hooks", skill_md("description: d\n" + good))
    write_skill(
        tmp_path,
        "bad-hooks",
        skill_md("description: d\n" + good.replace("type: command", "type: shell")),
    )
    found = load_skills([tmp_path / "skills"])
    assert set(found.skills) == {"good-hooks"}
    (problem,) = found.problems
    assert problem.source.endswith("bad-hooks/SKILL.md") and problem.path.startswith("hooks.")


def test_a_missing_path_is_a_problem_not_an_exception(tmp_path: Path) -> None:
    found = load_skills([tmp_path / "nowhere"])
    assert len(found) == 0 and not found.ok


def test_the_listing_cuts_description_plus_when_to_use_at_1536_characters() -> None:
    s = parse_skill(
        skill_md(f"description: {'a' * 1000}\nwhen_to_use: {'b' * 1000}\n"), name="long"
    )
    listing = build_listing([s])
    (entry,) = listing.entries
    assert (len(entry.text), entry.original_chars, entry.truncated) == (1536, 2003, True)


def test_disable_model_invocation_keeps_a_skill_out_of_the_listing() -> None:
    a = parse_skill(skill_md("description: a\n"), name="a")
    b = parse_skill(skill_md("description: b\ndisable-model-invocation: true\n"), name="b")
    listing = build_listing([a, b])
    assert [e.name for e in listing.entries] == ["a"]
    assert listing.excluded == ("b",)


def test_over_budget_the_least_used_descriptions_go_first_and_names_stay() -> None:
    many = [parse_skill(skill_md(f"description: {'d' * 90}\n"), name=f"s{i}") for i in range(5)]
    usage = {"s0": 9, "s1": 1, "s2": 5, "s3": 0, "s4": 7}
    listing = build_listing(many, usage=usage, budget_chars=250)  # 5 lines of 96 → 484
    dropped = {e.name for e in listing.entries if e.dropped}
    assert dropped == {"s3", "s1", "s2"}
    assert listing.chars <= 250
    assert build_listing(many, usage=usage, budget_chars=484).chars == 484
    assert all(f"- s{i}" in listing.text for i in range(5))


def test_skill_overrides_hide_a_skill_or_its_description() -> None:
    a, b, c = (parse_skill(skill_md(f"description: {n}\n"), name=n) for n in "abc")
    listing = build_listing([a, b, c], overrides={"a": "name-only", "b": "off"})
    assert [(e.name, e.dropped) for e in listing.entries] == [("a", True), ("c", False)]
    assert listing.text == "- a\n- c: c" and listing.excluded == ("b",)
    with pytest.raises(ValueError):
        build_listing([a], overrides={"a": "hidden"})


def test_the_default_budget_is_one_percent_of_the_window_in_characters() -> None:
    assert build_listing([]).budget_chars == 30_000  # 1M tokens x 3 characters x 1 %
    assert build_listing([], context_window_tokens=200_000, chars_per_token=4).budget_chars == 8000


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=20_000), min_size=1, max_size=6))
def test_the_listing_does_not_depend_on_body_sizes(body_sizes: list[int]) -> None:
    # Proposition 5.2 (1): only descriptions are listed, never bodies
    base = [
        parse_skill(skill_md("description: same\n", "x" * n), name=f"s{i}")
        for i, n in enumerate(body_sizes)
    ]
    small = [
        parse_skill(skill_md("description: same\n", "x"), name=f"s{i}")
        for i in range(len(body_sizes))
    ]
    assert build_listing(base).chars == build_listing(small).chars


def test_lint_reports_cut_descriptions_and_an_overflowing_budget() -> None:
    found = load_skills([FIXTURES])
    problems = lint_skills(found, budget_chars=5)
    assert problems[0].severity is Severity.ERROR
    assert any("budget" in (p.message or "") and p.source is None for p in problems)


def test_render_substitutes_every_argument_form() -> None:
    body = (
        "all=$ARGUMENTS first=$0 second=$ARGUMENTS[1] missing=$7 named=$file "
        "absent=$mode esc=\\$1 dir=${CLAUDE_SKILL_DIR} other=${CLAUDE_NOPE} keep=$HOME"
    )
    out = render(
        body, 'a.py "two words"', names=["file", "x", "mode"], variables={"CLAUDE_SKILL_DIR": "/s"}
    )
    assert out == (
        'all=a.py "two words" first=a.py second=two words missing=$7 named=a.py '
        "absent= esc=$1 dir=/s other=${CLAUDE_NOPE} keep=$HOME"
    )


def test_render_appends_the_arguments_when_the_body_has_no_placeholder() -> None:
    assert render("Do it.", "now") == "Do it.\n\nARGUMENTS: now"
    assert render("Do it.", "") == "Do it."


def fake_runner(results: dict[str, CommandRun]):
    calls: list[str] = []

    def run(command: str) -> CommandRun:
        calls.append(command)
        return results[command]

    return run, calls


def test_invoke_runs_embedded_commands_once_and_never_rescans_their_output() -> None:
    s = parse_skill(
        skill_md(
            "description: d\n",
            "Date: !`date`\n```!\necho a\necho b\n```\nNot a command: x!`nope`\n",
        ),
        name="c",
        directory="/d",
    )
    run, calls = fake_runner(
        {
            "date": CommandRun("date", 0, "!`evil`\n"),
            "echo a\necho b": CommandRun("echo a\necho b", 0, "a\nb\n"),
        }
    )
    inv = invoke(s, runner=run)
    assert inv.status is InvocationStatus.OK
    assert calls == ["date", "echo a\necho b"]
    assert "Date: !`evil`" in inv.text and "a\nb" in inv.text and "x!`nope`" in inv.text


def test_a_failing_command_aborts_the_whole_invocation() -> None:
    s = parse_skill(skill_md("description: d\n", "A !`false`\nB !`echo b`\n"), name="f")
    run, calls = fake_runner(
        {"false": CommandRun("false", 3, "", "boom"), "echo b": CommandRun("echo b", 0, "b")}
    )
    inv = invoke(s, runner=run)
    assert (inv.status, inv.text) == (InvocationStatus.ABORTED, "")
    assert calls == ["false"]
    assert inv.error is not None and "false" in inv.error


def test_exit_one_is_tolerated_only_for_search_and_diff_commands() -> None:
    assert CommandRun("grep x f", 1).ok and CommandRun("git diff --exit-code", 1).ok
    assert not CommandRun("cat f", 1).ok and not CommandRun("grep x f", 2).ok


def test_allowed_tools_keep_rule_specifiers_with_spaces_together() -> None:
    s = parse_skill(skill_md("description: d\nallowed-tools: Bash(git log *), Read Grep\n"))
    assert s.fields["allowed-tools"] == ["Bash(git log *)", "Read", "Grep"]


def test_a_command_the_permission_check_refuses_never_runs_and_aborts() -> None:
    from mcpmini.skills import skill_permits

    s = parse_skill(
        skill_md(
            "description: d\nallowed-tools: Bash(git log *)\n",
            "A !`git log -1`\nB !`ls`\nC !`git push`\n",
        ),
        name="p",
    )
    run, calls = fake_runner({c: CommandRun(c, 0, "out") for c in ("git log -1", "ls")})
    inv = invoke(s, runner=run, permit=skill_permits(s))
    assert inv.status is InvocationStatus.ABORTED
    assert calls == ["git log -1", "ls"]
    assert inv.commands[-1].refused and inv.commands[-1].command == "git push"
    ok = parse_skill(skill_md("description: d\n", "!`ls`\n"), name="q")
    assert invoke(ok, runner=run, permit=skill_permits(ok)).status is InvocationStatus.OK


def test_shell_execution_can_be_disabled() -> None:
    s = parse_skill(skill_md("description: d\n", "A !`rm -rf /`\n"), name="f")
    inv = invoke(s, shell_execution=False, runner=lambda c: pytest.fail("ran " + c))
    assert inv.status is InvocationStatus.OK and "disabled" in inv.text


def test_a_real_command_runs_in_the_skill_folder_variables(tmp_path: Path) -> None:
    d = write_skill(
        tmp_path, "t", skill_md("description: d\n", '!`cat "${CLAUDE_SKILL_DIR}/data.txt"`\n')
    )
    (d / "data.txt").write_text("hello from the file\n")
    found = load_skills([tmp_path / "skills" / "t"])
    inv = invoke(found["t"])
    assert inv.status is InvocationStatus.OK
    assert inv.text.strip() == "hello from the file"


def test_a_command_that_outlives_its_timeout_counts_as_failed() -> None:
    run = run_shell("sleep 5", timeout=0.2)  # the bounded wait is the thing under test
    assert run.returncode is None and not run.ok


def test_exercise_9_4_seven_skills_of_6000_tokens() -> None:
    r = reattach([(f"skill{i}", 6000) for i in range(7)])
    assert r.total_tokens == 25_000
    assert r.dropped == ["skill1", "skill0"]
    assert [x.status for x in r.items] == [ReattachStatus.CUT] * 5 + [ReattachStatus.DROPPED] * 2
    assert all(x.original_tokens == 6000 for x in r.items)


def test_only_the_latest_invocation_of_a_skill_counts_and_sets_its_recency() -> None:
    r = reattach([("a", 100), ("b", 200), ("a", 300)], per_skill_tokens=1000, total_tokens=350)
    assert [(x.name, x.tokens, x.original_tokens, x.status) for x in r.items] == [
        ("a", 300, 300, ReattachStatus.WHOLE),
        ("b", 50, 200, ReattachStatus.CUT),
    ]


def test_texts_and_invocation_objects_are_measured_with_estimate_tokens() -> None:
    s = parse_skill(skill_md("description: d\n", "word " * 40), name="w")
    inv = invoke(s)
    r = reattach([inv, ("t", "x" * 8)])
    assert [x.original_tokens for x in r.items] == [2, estimate_tokens(inv.text)]


def test_negative_sizes_and_caps_are_rejected() -> None:
    with pytest.raises(ValueError):
        reattach([("a", -1)])
    with pytest.raises(ValueError):
        reattach([("a", 1)], total_tokens=-5)


@given(
    st.lists(st.tuples(st.sampled_from("abcdefghij"), st.integers(0, 12_000)), max_size=25),
    st.integers(0, 8000),
    st.integers(0, 40_000),
)
def test_the_reattached_total_never_exceeds_min_k_a_big_a(
    invocations: list[tuple[str, int]], a: int, big_a: int
) -> None:
    r = reattach(invocations, per_skill_tokens=a, total_tokens=big_a)
    k = len({name for name, _ in invocations})
    assert len(r.items) == k
    assert r.total_tokens <= min(k * a, big_a)
    for x in r.items:
        assert 0 <= x.tokens <= min(a, x.original_tokens)
    # newest first: a dropped skill is never newer than an attached one
    statuses = [x.status for x in r.items if x.original_tokens > 0]
    if ReattachStatus.DROPPED in statuses:
        first = statuses.index(ReattachStatus.DROPPED)
        assert all(s is ReattachStatus.DROPPED for s in statuses[first:])


def test_the_notebook_09_widget_logic_reports_statuses_and_the_bound() -> None:
    from mcpmini.course import Lang, use
    from mcpmini.course.chapters import reattach_explorer, reattach_lines

    with use(Lang.EN):
        lines = reattach_lines([6000] * 7)
        assert len(lines) == 8 and lines[0].startswith("skill7") and "dropped" in lines[-2]
        assert "attached 25000" in lines[-1] and "= 25000;" in lines[-1]
        assert reattach_lines([100, 200], 5000, 25000)[-1].startswith("attached 300")
    with use(Lang.JA):
        assert "落とした" in reattach_lines([6000] * 7)[-2]
    assert reattach_explorer([10, 20]).children[-1].value.count("skill") == 2


def test_the_notebook_09_curve_is_min_k_a_big_a_when_bodies_exceed_the_cap() -> None:
    from mcpmini.course.chapters import reattach_curve

    rows = reattach_curve(body_tokens=6000, k_max=8)
    assert [r[1] for r in rows] == [r[2] for r in rows] == [min(k * 5000, 25000) for k in range(9)]
    small = reattach_curve(body_tokens=1000, k_max=4)
    assert [r[1] for r in small] == [0, 1000, 2000, 3000, 4000]
    assert all(r[1] <= r[2] for r in small)
