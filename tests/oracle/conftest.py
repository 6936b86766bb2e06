"""The pinned Claude Code for the differential suite, installed by the project's own files.

``claude_binary`` installs ``@anthropic-ai/claude-code@PIN`` with :func:`install_claude` (npm,
cached in ``.claude-code/``) and checks its version; ``MCPMINI_CLAUDE_CODE`` names another
binary instead (``make drift`` runs the suite against the newest release that way). Without
npm, the package or bubblewrap the tests skip saying why; under ``CI=true`` that is a failure.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from mcpmini.oracle import PIN, ClaudeCodeMissing, binary_version, install_claude


def _unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def claude_binary() -> Path:
    """The Claude Code executable the suite judges against (see the module doc)."""
    if shutil.which("bwrap") is None:
        _unavailable("bubblewrap (bwrap) is not installed: apt-get install bubblewrap")
    named = os.environ.get("MCPMINI_CLAUDE_CODE")
    try:
        binary = Path(named) if named else install_claude()
        version = binary_version(binary)
    except ClaudeCodeMissing as exc:
        _unavailable(f"Claude Code is unavailable: {exc}")
        raise AssertionError("unreachable") from exc
    if not named and version != PIN:
        pytest.fail(f"installed Claude Code is {version}, the pin is {PIN}")
    return binary
