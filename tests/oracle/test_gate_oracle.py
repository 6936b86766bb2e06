"""Issue 29, item 3: the gate's generated commands against the real Claude Code — no command
mcpmini approves that Claude Code asks for or denies.

The seeded generator the tripwire property test runs (``tests/gate_support.py``) draws
``MCPMINI_GATE_ORACLE_CASES`` commands (default 1000) with ``MCPMINI_GATE_SEED`` (default 29).
mcpmini judges every one on a laid-out case tree shaped like the tripwire's workspace (files
named like options, a symbolic link out of it, a secret beside it and one in the home), in the
default mode with no rules; every command it approves goes to Claude Code, 30 to a session
(longer sessions were seen to change Claude Code's verdicts late in the session), and each
session is one test that names every command Claude Code did not run. Commands mcpmini asks
for are not sent: asking where Claude Code would run is the safe direction.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gate_support import generate

from mcpmini.oracle import Case, judge, lay_out
from mcpmini.oracle.run import OracleFailure
from mcpmini.oracle.suite import SuiteCase, run_session
from mcpmini.oracle.verdict import Verdict

SEED = int(os.environ.get("MCPMINI_GATE_SEED", "29"))
CASES = int(os.environ.get("MCPMINI_GATE_ORACLE_CASES", "1000"))
PER_SESSION = 30
#: One session's deadline: some approved commands wait on their input or follow a file until
#: the call's 8 s timeout (``tail -F``, ``strings``), and a loaded machine was seen to need
#: more than 360 s for 30 calls; pytest-timeout's bound is that and a margin.
#: Observed in 2.1.332: a Bash call that outlives its ``timeout`` is moved to the background
#: and ``claude -p`` then waits for it, so one approved ``tail -F`` held a session 610 s on a
#: quiet machine; with background tasks off the call ends at its timeout (exit 143) with the
#: same verdict (measured: a one-call ``tail -F`` session, 200 s and unfinished → 5.1 s).
ENV = {"CLAUDE_CODE_DISABLE_BACKGROUND_TASKS": "1"}
_RUN_TIMEOUT = 120 + 25 * PER_SESSION
_SESSION_TIMEOUT = _RUN_TIMEOUT + 60
FILES = {
    "f": "one\ntwo\n",
    "a.txt": "b\na\n",
    "a b.txt": "space\n",
    "sub/c.txt": "c\n",
    "-i": "x\n",
    "--output=planted": "x\n",
    "-n": "x\n",
    "../outside/secret": "SECRET\n",
    "~/secret": "SECRET\n",
}


def _link() -> str:
    """A host folder holding ``link -> ../outside``, copied over each case's workspace (the
    link kept as a link: copied alone, a link to a folder would be followed)."""
    top = Path(tempfile.mkdtemp(prefix="gate-oracle-link-"))
    (top / "outside").mkdir()
    (top / "ws").mkdir()
    (top / "ws" / "link").symlink_to("../outside")
    return str(top / "ws")


def _case(name: str, commands: list[str], link: str) -> Case:
    return Case.from_dict(
        {
            "name": name,
            "files": FILES,
            "copies": {"{ws}": link},
            "env": ENV,
            "calls": [{"bash": c, "input": {"timeout": 8000}} for c in commands],
        }
    )


def _approved() -> tuple[list[str], str]:
    """The generated commands mcpmini approves, judged on the same tree Claude Code gets."""
    link = _link()
    commands = [c.replace("{out}", "{root}/outside") for c in generate(SEED, CASES)]
    with lay_out(_case("judge", commands, link)) as tree:
        verdicts = [j.verdict for j in judge(tree)]
    return [c for c, v in zip(commands, verdicts, strict=True) if v == "allow"], link


APPROVED, LINK = _approved()
SESSIONS = [APPROVED[i : i + PER_SESSION] for i in range(0, len(APPROVED), PER_SESSION)]


def _check(index: int, binary: Path) -> None:
    commands = SESSIONS[index]
    suite_case = SuiteCase("gate", _case(f"gate-{SEED}-{index}", commands, LINK))
    try:
        outcome = run_session(suite_case, binary, timeout=_RUN_TIMEOUT)
    except OracleFailure as exc:
        pytest.fail(f"Claude Code gave no verdict for session {index}: {exc}")
    refused = [
        f"{o.verdict.value} ({o.cause.value}): {o.call.input['command']!r}"
        for o in (p.observed for p in outcome.pairs)
        if o.verdict is not Verdict.ALLOW
    ]
    assert not refused, (
        f"mcpmini approves {len(refused)} command(s) Claude Code does not run "
        f"(seed {SEED}, session {index}): " + "; ".join(refused)
    )


def _sessions(parity: int) -> Iterator[Any]:
    for i in range(parity, len(SESSIONS), 2):
        yield pytest.param(i, id=f"session-{i}")


class TestGateEvenSessions:
    @pytest.mark.timeout(_SESSION_TIMEOUT)
    @pytest.mark.parametrize("index", list(_sessions(0)))
    def test_claude_code_runs_every_command_mcpmini_approves(
        self, index: int, claude_binary: Path
    ) -> None:
        _check(index, claude_binary)


class TestGateOddSessions:
    @pytest.mark.timeout(_SESSION_TIMEOUT)
    @pytest.mark.parametrize("index", list(_sessions(1)))
    def test_claude_code_runs_every_command_mcpmini_approves(
        self, index: int, claude_binary: Path
    ) -> None:
        _check(index, claude_binary)


def test_the_generated_commands_reach_what_mcpmini_approves() -> None:
    assert len(APPROVED) > CASES // 5
