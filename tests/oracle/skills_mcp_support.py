"""Shared parts of the plugins, skills and MCP differential tests: the binary to judge against
(the pin, or the one ``MCPMINI_CLAUDE_CODE`` names; skip with the reason when npm or
bubblewrap is missing, fail under ``CI=true``), runs of many cases at once, and reading the
skill listing out of what the model was shown."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from mcpmini.oracle import (
    Case,
    ClaudeCodeMissing,
    Session,
    binary_version,
    install_claude,
    run_case,
)
from mcpmini.skills.listing import HEADER

__all__ = ["claude_or_skip", "listing_block", "listing_entries", "run_many"]

#: Cases run at once (the machine has 2 cores; each run mostly waits on its sandbox).
WORKERS = 3


def claude_or_skip() -> Path:
    """The Claude Code to judge against: the one ``MCPMINI_CLAUDE_CODE`` names (``make drift``
    runs these checks against the newest release that way), else the pin (installed with npm
    if needed). Skips with the reason when npm or bubblewrap is missing; under ``CI=true``
    that is a failure."""
    reason = None
    named = os.environ.get("MCPMINI_CLAUDE_CODE")
    if shutil.which("bwrap") is None:
        reason = "bubblewrap (bwrap) is missing"
    else:
        try:
            binary = Path(named) if named else install_claude()
            binary_version(binary)
            return binary
        except ClaudeCodeMissing as exc:
            reason = str(exc)
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true but {reason}")
    pytest.skip(reason)


def run_many(cases: Sequence[Case], binary: Path, timeout: float = 90.0) -> list[Session]:
    """Every case through Claude Code, a few at a time; sessions in the order of ``cases``."""
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        return list(pool.map(lambda c: run_case(c, binary, timeout=timeout), cases))


def listing_block(shown_listing: str) -> str:
    """The listing lines of a skill-listing message (header and what follows cut off)."""
    if not shown_listing.startswith(HEADER):
        return ""
    return shown_listing[len(HEADER) :].lstrip("\n").split("\n\n", 1)[0]


_ENTRY = re.compile(r"\n(?=- )")


def listing_entries(block: str) -> list[tuple[str, str | None]]:
    """``(label, text)`` per listed entry (``text`` is ``None`` for a bare name); an entry's
    text may span lines (some bundled skills)."""
    rows: list[tuple[str, str | None]] = []
    for chunk in _ENTRY.split(block) if block else []:
        body = chunk[2:]
        label, sep, text = body.partition(": ")
        rows.append((label, text if sep else None))
    return rows
