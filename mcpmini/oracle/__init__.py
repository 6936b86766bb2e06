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

from .binary import INSTALL_DIR, PIN, ClaudeCodeMissing, binary_version, find_claude, install_claude
from .case import Call, Case, Scope
from .compare import Judged, Pair, agreement, judge, pair
from .fakeapi import FakeApi, Script, ScriptedCall
from .run import Failure, OracleFailure, Session, Tree, lay_out, run_case, run_tree
from .shown import Shown
from .verdict import Cause, Observed, Verdict

__all__ = [
    "INSTALL_DIR",
    "PIN",
    "Call",
    "Case",
    "Cause",
    "ClaudeCodeMissing",
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
    "run_tree",
]
