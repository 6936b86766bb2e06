"""The differential fuzzer's fixed-seed sample against the pinned Claude Code.

``SAMPLE_CALLS`` generated calls (seed ``SAMPLE_SEED``) run through the binary and mcpmini;
every call the binary judged must agree. A disagreement fails with the minimized case,
ready to paste into ``mcpmini/oracle/data/permissions/``; a call the binary could not judge
is reported and never counted. ``make fuzz-oracle N=… SEED=…`` runs more.
"""

from __future__ import annotations

import io
from pathlib import Path

from mcpmini.oracle.fuzz import SAMPLE_CALLS, SAMPLE_SEED, _print, _runner, generate, run_fuzz


def test_the_fixed_seed_sample_agrees_with_claude_code(claude_binary: Path) -> None:
    cases = generate(SAMPLE_SEED, SAMPLE_CALLS)
    report = run_fuzz(cases, _runner(claude_binary), seed=SAMPLE_SEED, max_minimized=3)
    shown = io.StringIO()
    _print(report, shown)
    assert report.tally.judged + report.tally.unrunnable == SAMPLE_CALLS
    assert report.tally.judged >= SAMPLE_CALLS * 3 // 4, shown.getvalue()
    assert report.tally.disagree == 0, shown.getvalue()
