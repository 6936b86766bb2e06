"""The project-trust suite: mcpmini's pending / approved / rejected / disabled verdict against
the pinned Claude Code's ``claude mcp get NAME`` and ``claude mcp list``
(``mcpmini/oracle/data/trust/*.yaml``, run by :mod:`mcpmini.oracle.trust`).

Every case runs once, two at a time, in one module-scoped fixture (about 2.5 minutes on a quiet
2-core machine); each case and command is one test. A case with ``known:`` is a known
disagreement, marked ``xfail(strict=True)``.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from mcpmini.oracle import OracleFailure
from mcpmini.oracle.trust import TrustCase, TrustPair, load_trust_cases, run_trust_case

CASES = load_trust_cases()
VIAS = ("get", "list")
pytestmark = pytest.mark.timeout(1200)


@pytest.fixture(scope="module")
def judged(claude_binary: Path) -> dict[str, list[TrustPair] | OracleFailure]:
    """Every case's pairs (or why Claude Code gave none), the binary run two cases at a time."""

    def one(case: TrustCase) -> tuple[str, list[TrustPair] | OracleFailure]:
        try:
            return case.name, list(run_trust_case(case, claude_binary))
        except OracleFailure as exc:
            return case.name, exc

    with ThreadPoolExecutor(2) as pool:
        return dict(pool.map(one, CASES))


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_mcpmini_agrees_with_claude_code_on_project_trust(
    case: TrustCase, via: str, judged: dict[str, list[TrustPair] | OracleFailure], request: Any
) -> None:
    got = judged[case.name]
    if isinstance(got, OracleFailure):
        pytest.fail(f"Claude Code gave no verdict for {case.name}: {got}")
    if case.known:
        request.applymarker(pytest.mark.xfail(strict=True, reason=case.known))
    pairs = [p for p in got if p.via == via]
    assert pairs, f"{case.name}: no server was judged"
    differ = [
        f"{p.server}: Claude Code {p.claude}, mcpmini {p.mcpmini}" for p in pairs if not p.agree
    ]
    assert differ == [], f"{case.name} (claude mcp {via}): " + "; ".join(differ)
