"""``make drift``: the differential checks against the newest Claude Code, and what changed.

Rules of this module:

- The newest version is what ``npm view @anthropic-ai/claude-code version`` says (a short
  timeout, no retries: without network access to the npm registry ``make drift`` says so in
  one line and exits 2); it is installed beside the pin, in ``.claude-code-latest/`` (never
  over the pinned install). ``--against VERSION`` (``make drift AGAINST=…``) compares the
  pin with that release instead, e.g. the previous pin.
- The permission suite and the fuzzer's fixed-seed sample run through both binaries at once
  (nothing cached); the report lists each call whose Claude Code verdict changed between
  the pin and the newest release, then mcpmini's agreement with the newest release per
  category. The other differential checks — plugins, skills, the MCP tool list and large
  results (``tests/oracle/test_{plugins,skills,mcp}_oracle.py``) — run once under the newest
  release (``MCPMINI_CLAUDE_CODE``); since they pass under the pin in ``make test``, a
  failing one is a change between the two versions, reported by its test name. The verdicts
  are printed before the checks start, and a check that cannot run or finish is named in
  one line without hiding the others.
- Exit code 0 when nothing changed, 1 when a verdict or a check changed, 2 when a binary
  could not be found, installed or run, or a check could not finish.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..process import Ending, run
from .binary import INSTALL_DIR, PIN, ClaudeCodeMissing, install_claude
from .case import Case
from .fuzz import SAMPLE_CALLS, SAMPLE_SEED, generate
from .run import OracleFailure
from .suite import Outcome, SuiteCase, by_category, load_cases, run_session

__all__ = ["CHECKS", "LATEST_DIR", "changes", "main", "newest_version"]

LATEST_DIR = INSTALL_DIR.parent / ".claude-code-latest"
PACKAGE = "@anthropic-ai/claude-code"
REPO = INSTALL_DIR.parent
#: How long one check of :data:`CHECKS` may take (the plugin check runs ~220 binaries: about
#: a minute on a quiet machine, past ten under heavy load).
CHECK_TIMEOUT = 1800.0
#: The differential checks run under the newest release, by category.
CHECKS = {
    "plugins": "tests/oracle/test_plugins_oracle.py",
    "skills": "tests/oracle/test_skills_oracle.py",
    "mcp tools and large results": "tests/oracle/test_mcp_oracle.py",
}


def newest_version(timeout: float = 60.0) -> str:
    """The newest published version of Claude Code. Raises :class:`ClaudeCodeMissing` (one
    line) when npm is missing or the registry cannot be reached."""
    npm = shutil.which("npm")
    if npm is None:
        raise ClaudeCodeMissing("npm is not installed: install Node.js and npm")
    argv = [npm, "view", PACKAGE, "version", "--fetch-retries=0", "--fetch-timeout=20000"]
    done = run(argv, timeout=timeout)
    if done.ending is Ending.TIMEOUT:
        raise ClaudeCodeMissing(f"no answer from the npm registry for {PACKAGE} in {timeout:.0f} s")
    version = done.stdout.decode("utf-8", "replace").strip()
    if done.exit_code != 0 or not version:
        err = [
            line
            for line in done.stderr.decode("utf-8", "replace").splitlines()
            if line.strip() and "A complete log" not in line
        ]
        raise ClaudeCodeMissing(
            f"cannot reach the npm registry (npm view {PACKAGE}): {(err or ['no output'])[0]}"
        )
    return version


def changes(
    pinned: Sequence[Outcome], newest: Sequence[Outcome]
) -> list[tuple[str, str, str, str]]:
    """``(session, call label, pinned verdict, newest verdict)`` for every changed call."""
    out = []
    for a, b in zip(pinned, newest, strict=True):
        for pa, pb in zip(a.pairs, b.pairs, strict=True):
            if pa.observed.verdict is not pb.observed.verdict:
                out.append(
                    (
                        a.suite_case.key,
                        pa.observed.call.label,
                        pa.observed.verdict.value,
                        pb.observed.verdict.value,
                    )
                )
    return out


def _fuzz_sample() -> tuple[SuiteCase, ...]:
    cases: list[Case] = generate(SAMPLE_SEED, SAMPLE_CALLS)
    return tuple(SuiteCase("fuzz sample", c) for c in cases)


def _both(
    cases: Sequence[SuiteCase], pinned: Path, newest: Path, workers: int = 4
) -> tuple[list[Outcome], list[Outcome]]:
    """Every session through both binaries, ``workers`` Claude Codes at a time."""
    jobs = [(c, b) for c in cases for b in (pinned, newest)]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        done = list(pool.map(lambda job: run_session(*job), jobs))
    return done[0::2], done[1::2]


def _checks(newest: Path, timeout: float) -> dict[str, list[str] | str]:
    """Each check of :data:`CHECKS` under the newest binary: the names of its failing tests
    (an empty list: every test passed), or one line saying why it could not run or finish
    (the other checks still run)."""
    env = {**os.environ, "MCPMINI_CLAUDE_CODE": str(newest)}
    out: dict[str, list[str] | str] = {}
    for label, path in CHECKS.items():
        argv = [sys.executable, "-m", "pytest", path, "-q", "-p", "no:randomly", "-n", "2"]
        argv += ["-rf", "--no-header"]
        done = run(argv, cwd=str(REPO), env=env, timeout=timeout, cap=2_000_000)
        text = done.stdout.decode("utf-8", "replace")
        if done.ending is Ending.TIMEOUT:
            out[label] = f"{path} did not finish within {timeout:.0f} s"
        elif done.exit_code not in (0, 1):
            tail = (text.strip().splitlines() or ["no output"])[-1]
            out[label] = f"{path} could not run (exit {done.exit_code}): {tail}"
        else:
            out[label] = re.findall(r"^FAILED (\S+)", text, re.MULTILINE)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Install the pin and the newest release, run every check through both, print the drift
    (the verdicts as soon as they are known, then each check's outcome as it ends)."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m mcpmini.oracle.drift", description=__doc__)
    parser.add_argument(
        "--against",
        metavar="VERSION",
        help="compare the pin with this release instead of the newest (e.g. the previous pin)",
    )
    args = parser.parse_args(argv)
    started = time.monotonic()
    try:
        version = args.against or newest_version()
        kind = "against" if args.against else "newest"
        print(f"pinned Claude Code {PIN}, {kind} {version}", flush=True)
        if version == PIN:
            print("the newest release is the pin: nothing to compare")
            return 0
        pinned_binary = install_claude(PIN)
        newest_binary = install_claude(version, root=LATEST_DIR)
        cases = (*load_cases(), *_fuzz_sample())
        pinned, newest = _both(cases, pinned_binary, newest_binary)
    except (ClaudeCodeMissing, OracleFailure) as exc:
        print(f"make drift: {exc}", file=sys.stderr)
        return 2
    changed = changes(pinned, newest)
    for key, label, old, new in changed:
        print(f"changed  {key:45} {label[:50]:50} {PIN}: {old:9} {version}: {new}")
    print(f"{len(changed)} of {sum(len(o.pairs) for o in pinned)} verdicts changed")
    print(f"mcpmini against Claude Code {version}:")
    for category, row in by_category(newest).items():
        print(f"  {category:18} agree {row['agree']:4}  disagree {row['disagree']:4}")
    print(f"verdicts compared in {time.monotonic() - started:.0f} s", flush=True)
    failed = unrun = 0
    for label, outcome in _checks(newest_binary, timeout=CHECK_TIMEOUT).items():
        if isinstance(outcome, str):
            print(f"  {label:18} not checked: {outcome}", flush=True)
            unrun += 1
            continue
        print(f"  {label:18} {'unchanged' if not outcome else f'{len(outcome)} test(s) changed'}")
        for name in outcome:
            print(f"    changed: {name}")
        failed += len(outcome)
    print(f"drift took {time.monotonic() - started:.0f} s")
    if unrun:
        print(f"make drift: {unrun} check(s) could not finish (see above)", file=sys.stderr)
        return 2
    return 1 if changed or failed else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
