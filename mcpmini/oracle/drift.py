"""``make drift``: the differential suite against the newest Claude Code, and what changed.

Rules of this module:

- The newest version is what ``npm view @anthropic-ai/claude-code version`` says; it is
  installed beside the pin, in ``.claude-code-latest/`` (never over the pinned install).
- Every session of the suite runs through both binaries (nothing cached); the report lists each
  call whose Claude Code verdict changed between the pin and the newest release, then
  mcpmini's agreement with the newest release per category. Exit code 0 when nothing changed,
  1 when a verdict changed, 2 when a binary could not be found, installed or run.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Sequence

from ..process import Ending, run
from .binary import INSTALL_DIR, PIN, ClaudeCodeMissing, install_claude
from .run import OracleFailure
from .suite import Outcome, by_category, load_cases, run_suite

__all__ = ["LATEST_DIR", "changes", "main", "newest_version"]

LATEST_DIR = INSTALL_DIR.parent / ".claude-code-latest"
PACKAGE = "@anthropic-ai/claude-code"


def newest_version(timeout: float = 60.0) -> str:
    """The newest published version of Claude Code. Raises :class:`ClaudeCodeMissing`."""
    npm = shutil.which("npm")
    if npm is None:
        raise ClaudeCodeMissing("npm is not installed: install Node.js and npm")
    done = run([npm, "view", PACKAGE, "version"], timeout=timeout)
    if done.ending is Ending.TIMEOUT:
        raise ClaudeCodeMissing(f"npm view {PACKAGE} timed out")
    version = done.stdout.decode("utf-8", "replace").strip()
    if done.exit_code != 0 or not version:
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ClaudeCodeMissing(f"npm view {PACKAGE} failed: {(err or ['no output'])[-1]}")
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


def main(argv: Sequence[str] | None = None) -> int:
    """Install the pin and the newest release, run the suite through both, print the drift."""
    del argv
    try:
        version = newest_version()
        print(f"pinned Claude Code {PIN}, newest {version}")
        if version == PIN:
            print("the newest release is the pin: nothing to compare")
            return 0
        pinned_binary = install_claude(PIN)
        newest_binary = install_claude(version, root=LATEST_DIR)
        cases = load_cases()
        pinned = run_suite(cases, pinned_binary)
        newest = run_suite(cases, newest_binary)
    except (ClaudeCodeMissing, OracleFailure) as exc:
        print(f"make drift: {exc}", file=sys.stderr)
        return 2
    changed = changes(pinned, newest)
    for key, label, old, new in changed:
        print(f"changed  {key:45} {label[:50]:50} {PIN}: {old:9} {version}: {new}")
    print(f"{len(changed)} of {sum(len(o.pairs) for o in pinned)} verdicts changed")
    print(f"mcpmini against Claude Code {version}:")
    for category, row in by_category(newest).items():
        print(f"  {category:12} agree {row['agree']:4}  disagree {row['disagree']:4}")
    return 1 if changed else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
