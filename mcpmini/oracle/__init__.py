"""The real Claude Code as the oracle: the pinned binary, a fake Messages API, sandboxed runs.

Everything the workbench decides about permissions, hooks, plugins, skills and the tools a model
sees is checked against the pinned Claude Code (:data:`PIN`), run offline against a scripted
model. :mod:`.binary` finds or installs it.
"""

from __future__ import annotations

from .binary import INSTALL_DIR, PIN, ClaudeCodeMissing, binary_version, find_claude, install_claude

__all__ = [
    "INSTALL_DIR",
    "PIN",
    "ClaudeCodeMissing",
    "binary_version",
    "find_claude",
    "install_claude",
]
