"""Skill-listing scenarios for the differential test (data only; see test_skills_oracle.py).

Each scenario is a session's skill files — ``~/…`` in the temporary home, other paths in the
workspace, ``plugins/<dir>/…`` in plugin folders passed with ``--plugin-dir`` in the order
given — plus the environment, the ``skillOverrides`` setting, the ``skillUsage`` record in
``~/.claude.json`` (count, days since the last use) and the model. Claude Code's listing for
it must equal mcpmini's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["SCENARIOS", "SkillScenario", "skill_md"]


def skill_md(description: str | None = None, body: str = "Body.", **front: object) -> str:
    """A SKILL.md (or command file) whose front matter holds ``description`` and ``front``
    (underscores in keys become dashes, except ``when_to_use``), JSON-quoted."""
    fields = {"description": description, **front} if description is not None else dict(front)
    lines = ["---"]
    for key, value in fields.items():
        name = key if key == "when_to_use" else key.replace("_", "-")
        lines.append(f"{name}: {json.dumps(value, ensure_ascii=False)}")
    return "\n".join([*lines, "---", body, ""])


def plugin_json(name: str) -> str:
    return json.dumps({"name": name, "version": "1.0.0", "description": f"{name} plugin"})


@dataclass(frozen=True)
class SkillScenario:
    """One listing scenario (see the module doc)."""

    name: str
    files: Mapping[str, str]
    plugins: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    overrides: Mapping[str, str] = field(default_factory=dict)
    usage: Mapping[str, tuple[int, float]] = field(default_factory=dict)
    model: str | None = None
    context_window: int = 1_000_000
    bundled: bool = False
    #: ``skillListingBudgetFraction`` in the project's settings (``None``: not set)
    fraction: float | None = None


_SIZES = (50, 300, 20, 400, 30, 10, 200, 60)
_BUDGETED = {f".claude/skills/k{i:02d}/SKILL.md": skill_md("D" * _SIZES[i % 8]) for i in range(12)}
_MANY = {
    f".claude/skills/s{i:03d}/SKILL.md": skill_md(f"Skill number {i:03d} " + "x" * 180)
    for i in range(1, 181)
}

#: issue 32: a large listing over budget where usage ties — exact ties (the same count and
#: time) keep the listing order; a count at the decay floor ((30, 200 days) scores 3.0)
#: outranks a fresh (3, now) whose score is still decaying when Claude Code starts.
_TIED = {
    f".claude/skills/t{i:02d}/SKILL.md": skill_md("tied " * (5 + (i * 7) % 26)) for i in range(40)
}
_TIED_USAGE = {
    f"t{i:02d}": ((3, 0.0) if i % 3 == 0 else (30, 200.0) if i % 3 == 1 else (1, 1.0))
    for i in range(40)
    if i % 5 != 4
}

SCENARIOS: tuple[SkillScenario, ...] = (
    SkillScenario(
        "over-budget-usage-ties-and-the-decay-floor",
        _TIED,
        env={"SLASH_COMMAND_TOOL_CHAR_BUDGET": "2200"},
        usage=_TIED_USAGE,
    ),
    SkillScenario(
        "scopes-and-when-to-use",
        {
            "~/.claude/skills/yy/SKILL.md": skill_md("user y", when_to_use="When y is needed."),
            "~/.claude/skills/bb/SKILL.md": skill_md("user b"),
            "~/.claude/commands/zc.md": skill_md("user command z"),
            "~/.claude/commands/ac.md": skill_md("user command a"),
            ".claude/skills/zeta/SKILL.md": skill_md("project z"),
            ".claude/skills/alpha/SKILL.md": skill_md("project a", when_to_use="Use for a."),
            ".claude/commands/mc.md": skill_md("project command m"),
        },
    ),
    SkillScenario(
        "plugins-in-load-order",
        {
            "plugins/p2/.claude-plugin/plugin.json": plugin_json("beta-plug"),
            "plugins/p2/skills/s/SKILL.md": skill_md("beta s"),
            "plugins/p2/commands/a.md": skill_md("beta command a"),
            "plugins/p1/.claude-plugin/plugin.json": plugin_json("alpha-plug"),
            "plugins/p1/skills/s/SKILL.md": skill_md("alpha s"),
            "plugins/p1/skills/aaa/SKILL.md": skill_md("alpha aaa", name="renamed-p"),
            "plugins/p1/commands/c.md": skill_md("alpha command c"),
            ".claude/skills/local/SKILL.md": skill_md("project local"),
        },
        plugins=("p2", "p1"),
    ),
    SkillScenario(
        "long-descriptions-are-cut-with-an-ellipsis",
        {
            ".claude/skills/longone/SKILL.md": skill_md("A" * 1600),
            ".claude/skills/exact/SKILL.md": skill_md("E" * 1536),
            ".claude/skills/over/SKILL.md": skill_md("O" * 1537),
            ".claude/skills/wtu/SKILL.md": skill_md("D" * 1500, when_to_use="W" * 100),
        },
    ),
    SkillScenario(
        "whitespace-and-missing-descriptions",
        {
            ".claude/skills/multi/SKILL.md": "---\ndescription: |\n  one\n  two\n---\nb\n",
            ".claude/skills/tabs/SKILL.md": skill_md("tab\there  double  space\n\nnext  "),
            ".claude/skills/spaced/SKILL.md": skill_md("x \n y"),
            ".claude/skills/lead/SKILL.md": skill_md("  leading"),
            ".claude/skills/wt/SKILL.md": skill_md("desc", when_to_use="line1\nline2"),
            ".claude/skills/nodesc/SKILL.md": "---\nname: nodesc\n---\n# Title\n\nFirst para.\n",
            ".claude/skills/np/SKILL.md": "---\nname: np\n---\nFirst line\nsecond line\n",
            ".claude/skills/nofm/SKILL.md": "Just a body line.\nMore.\n",
        },
    ),
    SkillScenario(
        "name-collisions-and-aliases",
        {
            "~/.claude/skills/same/SKILL.md": skill_md("user version"),
            ".claude/skills/same/SKILL.md": skill_md("project version"),
            ".claude/commands/same.md": skill_md("command version"),
            ".claude/commands/cmdonly.md": skill_md("command only"),
            ".claude/skills/renamed/SKILL.md": skill_md("renamed one", name="other-name"),
            ".claude/skills/spacey/SKILL.md": skill_md("spaces in name", name="Other Name"),
            ".claude/skills/dup1/SKILL.md": skill_md("alias taken", name="cmdonly"),
        },
    ),
    SkillScenario(
        "invocation-flags-and-overrides",
        {
            ".claude/skills/hidden/SKILL.md": skill_md("dmi", disable_model_invocation=True),
            ".claude/skills/userless/SKILL.md": skill_md("ui false", user_invocable=False),
            ".claude/skills/on1/SKILL.md": skill_md("on one"),
            ".claude/skills/nameonly/SKILL.md": skill_md("name only"),
            ".claude/skills/useronly/SKILL.md": skill_md("user only"),
            ".claude/skills/offx/SKILL.md": skill_md("off"),
        },
        overrides={"nameonly": "name-only", "useronly": "user-invocable-only", "offx": "off"},
    ),
    SkillScenario(
        "names-sort-like-localecompare",
        {
            f".claude/skills/{n}/SKILL.md": skill_md(f"d {n}")
            for n in ("b", "A", "c", "_x", "1z", "a-b", "a_b", "aa", "Ab", "s2", "s10")
        },
    ),
    SkillScenario(
        "over-a-fixed-budget-descriptions-go-greedily",
        _BUDGETED,
        env={"SLASH_COMMAND_TOOL_CHAR_BUDGET": "900"},
    ),
    SkillScenario(
        "over-budget-the-most-used-keep-theirs",
        _BUDGETED,
        env={"SLASH_COMMAND_TOOL_CHAR_BUDGET": "900"},
        usage={"k03": (10, 0.0), "k10": (1, 30.0), "k06": (2, 3.0)},
    ),
    # the documented setting skillListingBudgetFraction (default 0.01) scales the budget
    # (observed in 2.1.332: 0.0003 of a 1M-token window at 3 characters a token, about 900
    # characters, drops the same descriptions as SLASH_COMMAND_TOOL_CHAR_BUDGET=900); and
    # SLASH_COMMAND_TOOL_CHAR_BUDGET wins over it when both are set
    SkillScenario("the-budget-fraction-setting-scales-the-budget", _BUDGETED, fraction=0.0003),
    SkillScenario(
        "the-budget-variable-wins-over-the-fraction-setting",
        _BUDGETED,
        env={"SLASH_COMMAND_TOOL_CHAR_BUDGET": "900"},
        fraction=0.0001,
    ),
    SkillScenario("many-skills-default-model-budget", _MANY),
    SkillScenario(
        "many-skills-200k-window-model",
        _MANY,
        model="claude-sonnet-4-5",
        context_window=200_000,
    ),
    SkillScenario(
        "wide-characters-count-two-columns",
        {
            ".claude/skills/ja/SKILL.md": skill_md("日本語" * 600),
            ".claude/skills/ja2/SKILL.md": skill_md("説明" * 100),
            ".claude/skills/en/SKILL.md": skill_md("e" * 150),
        },
        env={"SLASH_COMMAND_TOOL_CHAR_BUDGET": "740"},
    ),
    SkillScenario(
        "bundled-skills-listed-in-full",
        {f".claude/skills/b{i}/SKILL.md": skill_md("B" * 120) for i in range(8)},
        bundled=True,
    ),
    SkillScenario(
        "bundled-skills-stay-whole-over-budget",
        {f".claude/skills/b{i}/SKILL.md": skill_md("B" * 120) for i in range(8)},
        env={"SLASH_COMMAND_TOOL_CHAR_BUDGET": "500"},
        bundled=True,
    ),
)
