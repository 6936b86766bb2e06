"""Class-grading benchmark, side by side in one run; prints the ratio.

Forty submissions (ten learners × the four exercises; half the learners hand in the
solved notebooks, half the untouched ones) are graded by ``grade_class`` with one worker
and with two, each in a fresh kernel per notebook. Target: two workers take <= 0.65x the
wall time of one. The runs alternate (1, 2, 1, 2 …) so that a load change on the machine
hits both sides; the medians are compared.

Run: ``.venv/bin/python bench/grading.py [--repeat N]`` (default 1 pair of runs).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import nbclient  # noqa: F401 - imported up front so neither timed run pays for the import
import nbformat

from mcpmini.course.classroom import grade_class

ROOT = Path(__file__).resolve().parents[1]
LEARNERS = 10


def make_class(root: Path) -> Path:
    """Ten learner folders of four notebooks each: 40 submissions."""
    for i in range(LEARNERS):
        folder = root / f"learner{i:02d}"
        folder.mkdir(parents=True)
        source = ROOT / ("solutions" if i % 2 == 0 else "exercises")
        for notebook in sorted(source.glob("9_*.ipynb")):
            shutil.copy(notebook, folder / notebook.name)
    return root


def timed(root: Path, out: Path, workers: int) -> tuple[float, int]:
    started = time.perf_counter()
    rows = grade_class([root], out, workers=workers, timeout=120, progress=False)
    elapsed = time.perf_counter() - started
    return elapsed, sum(1 for r in rows if r.status.value in ("graded", "not_attempted"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="pairs of runs (median)")
    args = parser.parse_args()
    os.environ["MCPMINI_PROGRESS"] = "off"
    with tempfile.TemporaryDirectory(prefix="mcpmini-bench-") as tmp:
        root = make_class(Path(tmp) / "class")
        for notebook in root.rglob("*.ipynb"):  # warm the validator and the file cache
            nbformat.validate(nbformat.read(notebook, as_version=4))
        submissions = sum(1 for _ in root.rglob("*.ipynb"))
        times: dict[int, list[float]] = {1: [], 2: []}
        for _ in range(args.repeat):
            for workers in (1, 2):
                elapsed, ok = timed(root, Path(tmp) / f"grades-{workers}.csv", workers)
                if ok != submissions:
                    print(f"only {ok}/{submissions} submissions graded cleanly", file=sys.stderr)
                    return 1
                times[workers].append(elapsed)
                print(f"  workers={workers}: {elapsed:6.1f} s")
    one, two = statistics.median(times[1]), statistics.median(times[2])
    # Other processes take cores from the two-worker run first, so say how busy it was.
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"{submissions} submissions, cpus={os.cpu_count()}, load average {load}: "
        f"1 worker {one:.1f} s, 2 workers {two:.1f} s, ratio {two / one:.2f} (target <= 0.65)"
    )
    return 0 if two / one <= 0.65 else 1


if __name__ == "__main__":
    sys.exit(main())
