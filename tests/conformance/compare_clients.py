"""Client mode side by side: the mcpmini client and the official SDK client on every scenario.

    .venv/bin/python -m tests.conformance.compare_clients

Runs ``conformance client --suite all`` of both suite versions once per client and prints one
table (checks passed/failed per scenario). Not part of ``make test`` (the OAuth scenarios
alone take minutes); ``tests/test_conformance.py`` runs the mcpmini client on the non-OAuth
scenarios.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from tests.conformance import suite

HERE = Path(__file__).resolve().parent
CLIENTS = {
    "mcpmini": f"{sys.executable} {HERE / 'client.py'}",
    "official SDK": f"{sys.executable} {HERE.parent / 'peers' / 'sdk_conformance_client.py'}",
}


def cell(s: suite.Scenario | None) -> str:
    if s is None:
        return "-"
    return f"{'✓' if not s.failed else '✗'} {s.passed}/{s.passed + s.failed}"


def main() -> int:
    suite.ensure_installed()
    for version in (suite.STABLE, suite.ALPHA):
        results = {}
        for name, command in CLIENTS.items():
            with tempfile.TemporaryDirectory() as out:
                run = suite.run(version, "client", Path(out), ["--suite", "all", "--command", command],
                                timeout=1800)
            results[name] = {s.name: s for s in run.scenarios}
        names = list(dict.fromkeys(n for r in results.values() for n in r))
        print(f"\n### conformance {version}, client --suite all (checks passed/total)\n")
        print("| scenario | " + " | ".join(CLIENTS) + " |")
        print("|---|" + "---|" * len(CLIENTS))
        for n in names:
            print(f"| {n} | " + " | ".join(cell(results[c].get(n)) for c in CLIENTS) + " |")
        for c in CLIENTS:
            ok = sum(1 for s in results[c].values() if not s.failed)
            print(f"\n{c}: {ok}/{len(results[c])} scenarios without a failing check")
    return 0


if __name__ == "__main__":
    sys.exit(main())
