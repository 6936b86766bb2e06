"""The differential test of ``mcpmini plugin validate`` against the real Claude Code.

Every plugin and the marketplace of the pinned ``claude-plugins-official`` snapshot, and every
generated variant (``plugin_variants.py``), is validated by ``claude plugin validate --json``
(the pin, installed by the project's own ``install_claude``, or the one
``MCPMINI_CLAUDE_CODE`` names) and by
:func:`mcpmini.config.validation.validate`; the normalised verdicts (``plugin_oracle.py``:
pass/fail, the set of (severity, file, path head), the provided names) must be equal.

The binary runs once per case, two at a time, in one module-scoped fixture. Without npm the
tests skip saying why; under ``CI=true`` that is a failure.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from mcpmini.config.validation import validate

from .plugin_oracle import Verdict, claude_verdict, mcpmini_verdict, run_validate
from .plugin_variants import SNAPSHOT, VARIANTS
from .skills_mcp_support import claude_or_skip

# The module fixture runs about 220 binaries: ~50 s on a quiet 2-core machine, minutes under load.
pytestmark = pytest.mark.timeout(1200)

CORPUS = [
    ".",
    *sorted(
        f"{top}/{p.name}"
        for top in ("plugins", "external_plugins")
        for p in (SNAPSHOT / top).iterdir()
    ),
]


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[Path, Verdict]]]:
    """Every case's folder and Claude Code's verdict on it (the binary runs here, 2 at once)."""
    binary = claude_or_skip()
    base = tmp_path_factory.mktemp("variants")
    folders = {f"corpus:{rel}": SNAPSHOT / rel for rel in CORPUS}
    for name, build in VARIANTS.items():
        target = build(base / name)
        folders[f"variant:{name}"] = base / name / (target or "")

    def judge(item: tuple[str, Path]) -> tuple[str, tuple[Path, Verdict]]:
        key, folder = item
        report: dict[str, Any] = run_validate(binary, folder)
        return key, (folder, claude_verdict(report, folder))

    with ThreadPoolExecutor(2) as pool:
        yield dict(pool.map(judge, folders.items()))
    shutil.rmtree(base, ignore_errors=True)


def _agree(cases: dict[str, tuple[Path, Verdict]], key: str) -> None:
    folder, expected = cases[key]
    report = validate(folder)
    got = mcpmini_verdict(list(report.problems), folder, dict(report.provides))
    assert got == expected, f"\nClaude Code: {expected.show()}\nmcpmini:     {got.show()}"


@pytest.mark.parametrize("rel", CORPUS)
def test_each_plugin_and_the_marketplace_of_the_official_repository_get_claude_codes_verdict(
    cases: dict[str, tuple[Path, Verdict]], rel: str
) -> None:
    _agree(cases, f"corpus:{rel}")


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_each_malformed_variant_gets_claude_codes_verdict(
    cases: dict[str, tuple[Path, Verdict]], name: str
) -> None:
    _agree(cases, f"variant:{name}")


def test_the_corpus_and_the_variants_are_large_enough_to_mean_something(
    cases: dict[str, tuple[Path, Verdict]],
) -> None:
    variants = [v for k, (_, v) in cases.items() if k.startswith("variant:")]
    assert len(CORPUS) >= 50 and len(variants) >= 60
    # both verdicts and every severity occur, so agreement is not agreement on one answer
    assert {v.success for v in variants} == {True, False}
    assert {s for v in variants for s, _, _ in v.problems} == {"error", "warning"}


@pytest.mark.parametrize(
    "rel", ["plugins/feature-dev", "plugins/code-simplifier", "plugins/lua-lsp"]
)
def test_strict_fails_on_warnings_in_both(rel: str, capsys: pytest.CaptureFixture[str]) -> None:
    from mcpmini.cli import main

    strict = run_validate(claude_or_skip(), SNAPSHOT / rel, strict=True)
    code = main(["plugin", "validate", "--strict", "--json", str(SNAPSHOT / rel)])
    capsys.readouterr()
    assert (code == 0) is bool(strict["success"])
