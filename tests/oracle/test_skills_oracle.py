"""The skill listing Claude Code 2.1.332 shows the model equals mcpmini's, scenario by scenario.

Each scenario of :mod:`tests.oracle.skill_scenarios` is laid out twice: once for the real
Claude Code (run offline in bubblewrap by :mod:`mcpmini.oracle`, the listing read from the
first request's ``role: "system"`` message) and once on disk for mcpmini
(:func:`mcpmini.skills.load_skills` then :func:`mcpmini.skills.build_listing`). The bundled
skills are Claude Code's own: their lines are taken from its listing and given to mcpmini as
``fixed`` entries (their text is not ours to copy); which lines are kept, cut, dropped and in
what order is mcpmini's to decide.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from mcpmini.config import load_plugin
from mcpmini.oracle import Case, Scope, Session
from mcpmini.skills import load_skills
from mcpmini.skills.listing import build_listing, usage_scores

from .skill_scenarios import SCENARIOS, SkillScenario
from .skills_mcp_support import claude_or_skip, listing_block, listing_entries, run_many

#: What ``CLAUDE_CODE_DISABLE_BUNDLED_SKILLS=1`` leaves in 2.1.332's listing.
BUNDLED_WHEN_DISABLED = ("plugin-authoring",)
#: Built-in prompt commands listed after the bundled skills; unlike those, their descriptions
#: can be dropped over budget. Their text is read from the scenario listed in full.
BUILTIN_COMMANDS = ("init", "security-review")
FULL_BUNDLED = "bundled-skills-listed-in-full"
DAY_MS = 86_400_000


#: When the scenarios' ``skillUsage`` timestamps were written (one instant for all).
WRITTEN_MS = int(time.time() * 1000)


def _files(s: SkillScenario) -> dict[str, str]:
    files = {}
    for rel, text in s.files.items():
        files["~/" + rel if rel.startswith("plugins/") else rel] = text
    if s.usage:
        now = WRITTEN_MS
        state = {
            "hasCompletedOnboarding": True,
            "projects": {"{ws}": {"hasTrustDialogAccepted": True}},
            "skillUsage": {
                k: {"usageCount": c, "lastUsedAt": now - int(d * DAY_MS)}
                for k, (c, d) in s.usage.items()
            },
        }
        files["~/.claude.json"] = json.dumps(state)
    return files


def oracle_case(s: SkillScenario) -> Case:
    """The scenario as a case for Claude Code (no tool calls: only the first request matters)."""
    env = dict(s.env)
    if s.bundled:
        env["CLAUDE_CODE_DISABLE_BUNDLED_SKILLS"] = "0"
    project: dict[str, Any] = {"skillOverrides": dict(s.overrides)} if s.overrides else {}
    if s.fraction is not None:
        project["skillListingBudgetFraction"] = s.fraction
    return Case(
        s.name,
        files=_files(s),
        settings={Scope.PROJECT: project} if project else {},
        plugin_dirs=tuple(f"{{home}}/plugins/{p}" for p in s.plugins),
        env=env,
        args=("--model", s.model) if s.model else (),
        prompt="hello",
    )


def mcpmini_block(s: SkillScenario, root: Path, claude_block: str, full_block: str = "") -> str:
    """mcpmini's listing lines for the scenario, laid out under ``root``."""
    home, ws = root / "home", root / "ws"
    for rel, text in s.files.items():
        target = home / rel[2:] if rel.startswith("~/") else ws / rel
        if rel.startswith("plugins/"):
            target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    found = load_skills(
        personal=home / ".claude",
        project=[ws / ".claude"],
        plugins=[load_plugin(root / "plugins" / p, environ={}) for p in s.plugins],
    )
    listing = build_listing(found, **_options(s, found, claude_block, full_block))
    return listing.text


def _options(s: SkillScenario, found: Any, claude_block: str, full_block: str) -> dict[str, Any]:
    ours = {e.name for e in build_listing(found, budget_chars=10**9).entries}
    texts = dict(listing_entries(full_block))
    theirs = [
        (label, text or texts.get(label) or "")
        for label, text in listing_entries(claude_block)
        if (label in BUNDLED_WHEN_DISABLED or s.bundled) and label not in ours
    ]
    budget = s.env.get("SLASH_COMMAND_TOOL_CHAR_BUDGET")
    options: dict[str, Any] = {
        "context_window_tokens": s.context_window,
        "budget_chars": int(budget) if budget else None,
        "fraction": s.fraction if s.fraction is not None else 0.01,
        # scored now, from the timestamps written, as Claude Code scores at its start
        "usage": usage_scores(
            {
                k: {"usageCount": c, "lastUsedAt": WRITTEN_MS - int(d * DAY_MS)}
                for k, (c, d) in s.usage.items()
            },
            time.time() * 1000,
        ),
        "overrides": dict(s.overrides),
        "fixed": [e for e in theirs if e[0] not in BUILTIN_COMMANDS],
        "builtin": [e for e in theirs if e[0] in BUILTIN_COMMANDS],
    }
    if s.model:
        options["model"] = s.model
    return options


@pytest.fixture(scope="module")
def sessions() -> dict[str, Session]:
    binary = claude_or_skip()
    done = run_many([oracle_case(s) for s in SCENARIOS], binary)
    return {s.name: d for s, d in zip(SCENARIOS, done)}


def test_there_are_at_least_ten_scenarios() -> None:
    assert len({s.name for s in SCENARIOS}) == len(SCENARIOS) >= 10


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_the_listing_claude_code_shows_equals_mcpminis(
    scenario: SkillScenario, sessions: dict[str, Session], tmp_path: Path
) -> None:
    claude = listing_block(sessions[scenario.name].shown.skill_listing)
    assert claude, "Claude Code showed no skill listing"
    full = listing_block(sessions[FULL_BUNDLED].shown.skill_listing)
    assert mcpmini_block(scenario, tmp_path, claude, full) == claude
