"""The differential suite: every permission and hook case, mcpmini's verdict against the real
Claude Code's (``mcpmini/oracle/data/permissions/*.yaml``).

Each session of a case file runs once in one Claude Code process (many scripted calls) on first
use; each call is one test. A call with ``known:`` in the data is a known disagreement, marked
``xfail(strict=True)``: when mcpmini (or a new Claude Code) starts to agree, the test fails and
the mark must go. Nothing is cached between runs: every run asks the binary again. One class per
category, so ``--dist loadscope`` spreads the categories over the workers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mcpmini.oracle import OracleFailure, Verdict
from mcpmini.oracle.suite import Outcome, SuiteCase, load_cases, run_session

CASES = load_cases()
_RUNS: dict[str, Outcome | OracleFailure] = {}


def _outcome(suite_case: SuiteCase, binary: Path) -> Outcome:
    if suite_case.key not in _RUNS:
        try:
            _RUNS[suite_case.key] = run_session(suite_case, binary)
        except OracleFailure as exc:
            _RUNS[suite_case.key] = exc
    got = _RUNS[suite_case.key]
    if isinstance(got, OracleFailure):
        pytest.fail(f"Claude Code gave no verdict for {suite_case.key}: {got}")
    return got


def _check(suite_case: SuiteCase, index: int, binary: Path, request: Any) -> None:
    pair = _outcome(suite_case, binary).pairs[index]
    seen, judged = pair.observed, pair.judged
    where = f"{suite_case.key} call {index} ({seen.call.label!r})"
    if seen.verdict is Verdict.UNREACHED:
        pytest.fail(f"{where}: Claude Code never answered this call")
    if judged.error:
        pytest.fail(f"{where}: mcpmini raised {judged.error}")
    if seen.call.known:
        request.applymarker(pytest.mark.xfail(strict=True, reason=seen.call.known))
    assert judged.verdict == seen.verdict.value, (
        f"{where}: Claude Code {seen.verdict.value} ({seen.cause.value}: {seen.text[:160]!r}), "
        f"mcpmini {judged.verdict} ({judged.detail})"
    )


def _params(category: str) -> list[Any]:
    return [
        pytest.param(sc, i, id=f"{sc.case.name}[{i}] {call.label[:60]}")
        for sc in CASES
        if sc.category == category
        for i, call in enumerate(sc.case.calls)
    ]


def _category_class(category: str) -> type:
    @pytest.mark.parametrize(("suite_case", "index"), _params(category))
    def test_mcpmini_agrees_with_claude_code(
        self: Any, suite_case: SuiteCase, index: int, claude_binary: Path, request: Any
    ) -> None:
        _check(suite_case, index, claude_binary, request)

    name = "Test" + "".join(part.title() for part in category.split("_"))
    return type(
        name, (), {"test_mcpmini_agrees_with_claude_code": test_mcpmini_agrees_with_claude_code}
    )


for _category in sorted({sc.category for sc in CASES}):
    _cls = _category_class(_category)
    globals()[_cls.__name__] = _cls
