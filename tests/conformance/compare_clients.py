"""Client mode side by side: the mcpmini client and the official SDK client on every scenario.

    .venv/bin/python -m tests.conformance.compare_clients [--sdk-client PATH]

``--sdk-client`` names the official Python SDK's own conformance client script (in a checkout
of modelcontextprotocol/python-sdk: ``.github/actions/conformance/client.py``); it is not part
of this repository, so without it the table has the mcpmini column only.

Runs every client scenario of both suite versions (``conformance list --client``) one at a
time with ``--scenario`` (a parallel ``--suite all`` run times out on a loaded machine) for
each client and prints one table (checks passed/total per scenario). Not part of ``make
test`` (it takes many minutes); ``tests/test_conformance.py`` runs the mcpmini client alone on
every scenario, ``auth/*`` included.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.conformance import suite

HERE = Path(__file__).resolve().parent
CLIENTS = {"mcpmini": f"{sys.executable} {HERE / 'client.py'}"}


def cell(s: suite.Scenario | None) -> str:
    if s is None:
        return "-"
    return f"{'✓' if not s.failed else '✗'} {s.passed}/{s.passed + s.failed}"


def main() -> int:
    if "--sdk-client" in sys.argv:
        script = Path(sys.argv[sys.argv.index("--sdk-client") + 1]).resolve()
        if not script.is_file():
            print(f"--sdk-client: no such file: {script}", file=sys.stderr)
            return 2
        CLIENTS["official SDK"] = f"{sys.executable} {script}"
    suite.ensure_installed()
    for version in (suite.STABLE, suite.ALPHA):
        listing = subprocess.run(
            [str(suite.node()), str(suite.suite_js(version)), "list", "--client"],
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout
        names = re.findall(r"^\s+- (\S+)", listing, re.M)
        results: dict[str, dict[str, suite.Scenario]] = {c: {} for c in CLIENTS}
        for scenario in names:
            for name, command in CLIENTS.items():
                with tempfile.TemporaryDirectory() as out:
                    try:
                        run = suite.run(
                            version,
                            "client",
                            Path(out),
                            ["--scenario", scenario, "--timeout", "60000", "--command", command],
                            timeout=180,
                        )
                    except subprocess.TimeoutExpired:
                        continue
                for s in run.scenarios:
                    results[name][s.name] = s
        print(f"\n### conformance {version}, client, each scenario alone (checks passed/total)\n")
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
