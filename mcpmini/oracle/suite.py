"""The differential suite as data: the permission and hook case files, run and compared.

Rules of this module:

- The cases live in ``data/permissions/<category>.yaml``, each a list of sessions in the
  :class:`~.case.Case` shape; a call's ``known`` names a known disagreement between mcpmini
  and Claude Code (the tests mark it ``xfail(strict=True)``, so a fix flips it).
- :func:`run_session` runs one session through Claude Code and mcpmini on the same laid-out
  tree and returns the :class:`~.compare.Pair` of every call; nothing is cached — every run
  asks the binary again.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..errors import ConfigError
from .case import Case
from .compare import Pair, judge, pair
from .run import DEFAULT_TIMEOUT, Session, lay_out, run_tree

__all__ = [
    "CASES_DIR",
    "Outcome",
    "SuiteCase",
    "by_category",
    "load_cases",
    "run_session",
    "run_suite",
]

CASES_DIR = Path(__file__).parent / "data" / "permissions"


@dataclass(frozen=True)
class SuiteCase:
    """One session of the suite and its category (the case file's stem)."""

    category: str
    case: Case

    @property
    def key(self) -> str:
        """``category/name``, unique in the suite."""
        return f"{self.category}/{self.case.name}"


@dataclass(frozen=True)
class Outcome:
    """A finished session: the session and each call's pair of verdicts."""

    suite_case: SuiteCase
    session: Session
    pairs: tuple[Pair, ...]


def load_cases(folder: Path = CASES_DIR) -> tuple[SuiteCase, ...]:
    """Every session of every case file in ``folder``, file by file in name order.

    Raises ``ConfigError`` naming the file for a bad case or a duplicate session name.
    """
    found: list[SuiteCase] = []
    for path in sorted(folder.glob("*.yaml")):
        try:
            items = yaml.safe_load(path.read_text(encoding="utf-8")) or []
        except yaml.YAMLError as exc:
            raise ConfigError(f"invalid YAML: {exc}", str(path)) from None
        if not isinstance(items, list):
            raise ConfigError("a case file holds a list of sessions", str(path))
        names: set[str] = set()
        for i, item in enumerate(items):
            case = Case.from_dict(item, source=f"{path}[{i}]")
            if case.name in names:
                raise ConfigError(f"duplicate session name {case.name!r}", str(path))
            names.add(case.name)
            found.append(SuiteCase(path.stem, case))
    return tuple(found)


def run_session(
    suite_case: SuiteCase, binary: Path, *, timeout: float = DEFAULT_TIMEOUT
) -> Outcome:
    """Run one session through Claude Code, then mcpmini's own verdicts on the same tree.

    Raises :class:`~.run.OracleFailure` when Claude Code gives no verdict at all.
    """
    with lay_out(suite_case.case) as tree:
        judged = judge(tree)
        session = run_tree(tree, binary, timeout=timeout)
    return Outcome(suite_case, session, pair(session, judged))


def run_suite(cases: Iterable[SuiteCase], binary: Path, *, workers: int = 2) -> tuple[Outcome, ...]:
    """Run every session, ``workers`` at a time; the outcomes come back in input order."""
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return tuple(pool.map(lambda c: run_session(c, binary), list(cases)))


def by_category(outcomes: Iterable[Outcome]) -> dict[str, dict[str, int]]:
    """Per category: calls where mcpmini agrees with Claude Code, where it does not, and how
    many of those disagreements the data already marks as known."""
    table: dict[str, dict[str, int]] = {}
    for outcome in outcomes:
        row = table.setdefault(outcome.suite_case.category, {"agree": 0, "disagree": 0, "known": 0})
        for p in outcome.pairs:
            if p.agree:
                row["agree"] += 1
            else:
                row["disagree"] += 1
                row["known"] += bool(p.observed.call.known)
    return dict(sorted(table.items()))


def _main(argv: Sequence[str]) -> int:  # pragma: no cover - a developer's view of the suite
    import os

    from .binary import find_claude

    binary = Path(argv[0]) if argv else find_claude(os.environ)
    if binary is None:
        print("no Claude Code: run `make claude-code`", file=sys.stderr)
        return 2
    outcomes = run_suite(load_cases(), binary)
    for outcome in outcomes:
        for p in outcome.pairs:
            o = p.observed
            mark = "ok  " if p.agree else ("KNOWN" if o.call.known else "DIFF")
            print(
                f"{mark} {outcome.suite_case.key:45} {o.call.label[:50]:50} "
                f"cc={o.verdict.value:9} mm={p.judged.verdict:6} {o.cause.value:7} "
                f"{o.text[:90]!r}"
            )
    for category, row in by_category(outcomes).items():
        print(f"{category:12} agree {row['agree']:4}  disagree {row['disagree']:4}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(_main(sys.argv[1:]))
