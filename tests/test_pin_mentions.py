"""Every Claude Code version the runtime, the course data and the notebooks name is the pin.

A claim such as "observed in 2.1.332: cp with any option asks" is checked by ``tests/oracle``
against the pinned binary (``mcpmini.oracle.binary.PIN``); when the pin moves, the claims move
with it (issue 32: 2.1.328 was still named in ~250 places after the pin had moved). A line may
name another version only beside the pin, as a change between the two ("2.1.328 から 2.1.332
で変わったのは…"); a file that records history says so in :data:`HISTORY`.
"""

from __future__ import annotations

import re
from pathlib import Path

from mcpmini.oracle.binary import PIN

REPO = Path(__file__).resolve().parents[1]
#: Claude Code's versions have a three-digit patch number (2.1.332); no other version the
#: project names has one (checked when this test was written).
VERSION = re.compile(r"\b\d\.\d+\.\d{3}\b")
PLACES = ("mcpmini", "notebooks", "exercises", "en", "examples", "README.md", "ARCHITECTURE.md")
SUFFIXES = {".py", ".yaml", ".ipynb", ".po", ".md", ".json"}
#: Files whose other versions are history, not claims about the pinned binary.
HISTORY = {
    # when each fuzzer-found case was found
    "mcpmini/oracle/data/permissions/fuzz_found.yaml",
}


def _stale() -> list[str]:
    found = []
    for place in PLACES:
        top = REPO / place
        for path in [top] if top.is_file() else sorted(top.rglob("*")):
            relative = path.relative_to(REPO).as_posix()
            if (
                path.suffix not in SUFFIXES
                or relative in HISTORY
                or ".ipynb_checkpoints" in relative
            ):
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                others = set(VERSION.findall(line)) - {PIN}
                if others and PIN not in line:
                    found.append(f"{relative}:{number}: {', '.join(sorted(others))}")
    return found


def test_every_claude_code_version_named_is_the_pin_or_a_change_from_it():
    assert _stale() == []


def test_the_check_sees_a_stale_version(tmp_path, monkeypatch):
    module = tmp_path / "mcpmini"
    module.mkdir()
    (module / "old.py").write_text("# observed in 2.1.300: it asks\n# 2.1.300 → " + PIN + "\n")
    monkeypatch.setattr(f"{__name__}.REPO", tmp_path)
    assert _stale() == ["mcpmini/old.py:1: 2.1.300"]
