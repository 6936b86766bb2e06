"""The real Claude Code as the oracle: the pinned binary, a fake Messages API, sandboxed runs.

Everything the workbench decides about permissions, hooks, plugins, skills and the tools a model
sees is checked against the pinned Claude Code (:data:`PIN`), run offline against a scripted
model. :mod:`.binary` finds or installs it; :mod:`.fakeapi` is the scripted model (a fake
Anthropic Messages API on loopback); :mod:`.case` describes one session (settings per scope,
mode, trust, files, MCP servers, plugins, tool calls); :mod:`.run` lays a case out in a
temporary tree and runs Claude Code on it inside bubblewrap (:mod:`.supervisor` is the process
inside the sandbox, :mod:`.probe` the permission-prompt and probe MCP servers); :mod:`.verdict`
reads Claude Code's verdict on each call and :mod:`.shown` what the model was shown;
:mod:`.compare` puts mcpmini's own verdict beside it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .binary import INSTALL_DIR, PIN, ClaudeCodeMissing, binary_version, find_claude, install_claude

if TYPE_CHECKING:
    from .case import Call, Case, Scope
    from .compare import Judged, Pair, agreement, judge, pair
    from .fakeapi import FakeApi, Script, ScriptedCall
    from .run import (
        Command,
        Failure,
        OracleFailure,
        Session,
        Tree,
        lay_out,
        run_case,
        run_command,
        run_tree,
    )
    from .shown import Shown
    from .verdict import Cause, Observed, Verdict

# Resolved on first use: the supervisor and the probe servers start as ``python -m
# mcpmini.oracle.<module>`` inside the sandbox and must not pay for the hooks engine.
_LAZY = {
    "Call": "case",
    "Case": "case",
    "Scope": "case",
    "Judged": "compare",
    "Pair": "compare",
    "agreement": "compare",
    "judge": "compare",
    "pair": "compare",
    "FakeApi": "fakeapi",
    "Script": "fakeapi",
    "ScriptedCall": "fakeapi",
    "Command": "run",
    "Failure": "run",
    "OracleFailure": "run",
    "Session": "run",
    "Tree": "run",
    "lay_out": "run",
    "run_case": "run",
    "run_command": "run",
    "run_tree": "run",
    "Shown": "shown",
    "Cause": "verdict",
    "Observed": "verdict",
    "Verdict": "verdict",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "INSTALL_DIR",
    "PIN",
    "Call",
    "Case",
    "Cause",
    "ClaudeCodeMissing",
    "Command",
    "Failure",
    "FakeApi",
    "Judged",
    "Observed",
    "OracleFailure",
    "Pair",
    "Scope",
    "Script",
    "ScriptedCall",
    "Session",
    "Shown",
    "Tree",
    "Verdict",
    "agreement",
    "binary_version",
    "find_claude",
    "install_claude",
    "judge",
    "lay_out",
    "pair",
    "run_case",
    "run_command",
    "run_tree",
]
