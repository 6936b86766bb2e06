"""§5 of the article: skills.

SKILL.md files and commands (:mod:`.loader`), the listing budget (:mod:`.listing`), invocation
and re-attachment after compaction (:mod:`.invocation`).
"""

from __future__ import annotations

from .listing import (
    build_listing,
    lint_skills,
    Listing,
    ListingEntry,
    MAX_DESC_CHARS,
    OVERRIDES,
)
from .invocation import (
    CommandRun,
    Invocation,
    InvocationStatus,
    invoke,
    PER_SKILL_TOKENS,
    reattach,
    Reattached,
    Reattachment,
    ReattachStatus,
    render,
    run_shell,
    skill_permits,
    TOTAL_TOKENS,
)
from .loader import (
    KNOWN_FIELDS,
    Level,
    load_skills,
    parse_skill,
    read_front_matter,
    read_skill_dir,
    read_skill_file,
    scan_dir,
    Skill,
    SKILL_PRECEDENCE,
    SkillSet,
)

__all__ = [
    "build_listing",
    "CommandRun",
    "Invocation",
    "InvocationStatus",
    "invoke",
    "KNOWN_FIELDS",
    "Level",
    "lint_skills",
    "Listing",
    "ListingEntry",
    "load_skills",
    "MAX_DESC_CHARS",
    "OVERRIDES",
    "parse_skill",
    "PER_SKILL_TOKENS",
    "read_front_matter",
    "read_skill_dir",
    "read_skill_file",
    "reattach",
    "Reattached",
    "Reattachment",
    "ReattachStatus",
    "render",
    "run_shell",
    "scan_dir",
    "Skill",
    "skill_permits",
    "SKILL_PRECEDENCE",
    "SkillSet",
    "TOTAL_TOKENS",
]
