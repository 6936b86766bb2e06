"""§5 of the article: skills.

SKILL.md files and commands (:mod:`.loader`), the listing budget (:mod:`.listing`), invocation
and re-attachment after compaction (:mod:`.invocation`).
"""

from __future__ import annotations

from .invocation import (
    PER_SKILL_TOKENS,
    TOTAL_TOKENS,
    CommandRun,
    Invocation,
    InvocationStatus,
    Reattached,
    Reattachment,
    ReattachStatus,
    invoke,
    reattach,
    render,
    run_shell,
    skill_permits,
)
from .listing import (
    MAX_DESC_CHARS,
    OVERRIDES,
    Listing,
    ListingEntry,
    build_listing,
    lint_skills,
)
from .loader import (
    KNOWN_FIELDS,
    SKILL_PRECEDENCE,
    Level,
    Skill,
    SkillSet,
    load_skills,
    parse_skill,
    read_skill_dir,
    read_skill_file,
    scan_dir,
)

__all__ = [
    "KNOWN_FIELDS",
    "MAX_DESC_CHARS",
    "OVERRIDES",
    "PER_SKILL_TOKENS",
    "SKILL_PRECEDENCE",
    "TOTAL_TOKENS",
    "CommandRun",
    "Invocation",
    "InvocationStatus",
    "Level",
    "Listing",
    "ListingEntry",
    "ReattachStatus",
    "Reattached",
    "Reattachment",
    "Skill",
    "SkillSet",
    "build_listing",
    "invoke",
    "lint_skills",
    "load_skills",
    "parse_skill",
    "read_skill_dir",
    "read_skill_file",
    "reattach",
    "render",
    "run_shell",
    "scan_dir",
    "skill_permits",
]
