"""Class-grading benchmarks, side by side in one run; each prints its ratio.

``workers`` (the default): forty submissions (ten learners × the four exercises; half the
learners hand in the solved notebooks, half the untouched ones) graded by ``grade_class``
with one worker and with two. Target: two workers take <= 0.65x the wall time of one. The
runs alternate (1, 2, 1, 2 …) so that a load change hits both sides; medians are compared.

``cluster``: 240 submissions (sixty learners) graded with two local workers and on a Dask
``LocalCluster`` of two single-thread worker processes (``mcpmini grade --scheduler``).
Targets: the cluster within 1.2x of the local run, both <= 0.7 s per submission. The
cluster is started before the timed run (its start-up is not grading).

``profile``: one submission at a time (each of the four solved notebooks, ``--repeat`` rounds),
split into its phases — reading, sandbox and runner start, kernel start, the cells, reading
the answer back, ending the sandbox (its kernel with it), the checker, the CSV row — with
the median of each.

Run: ``.venv/bin/python bench/grading.py [workers|cluster|profile] [--repeat N] [--learners N]``.
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


def make_class(root: Path, learners: int) -> Path:
    """``learners`` learner folders of four notebooks each."""
    for i in range(learners):
        folder = root / f"learner{i:03d}"
        folder.mkdir(parents=True)
        source = ROOT / ("solutions" if i % 2 == 0 else "exercises")
        for notebook in sorted(source.glob("9_*.ipynb")):
            shutil.copy(notebook, folder / notebook.name)
    for notebook in root.rglob("*.ipynb"):  # warm the validator and the file cache
        nbformat.validate(nbformat.read(notebook, as_version=4))
    return root


def timed(root: Path, out: Path, **kw: object) -> tuple[float, int]:
    started = time.perf_counter()
    rows = grade_class([root], out, timeout=120, progress=False, **kw)  # type: ignore[arg-type]
    elapsed = time.perf_counter() - started
    return elapsed, sum(1 for r in rows if r.status.value in ("graded", "not_attempted"))


def _load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def bench_workers(tmp: Path, repeat: int, learners: int) -> int:
    root = make_class(tmp / "class", learners)
    submissions = sum(1 for _ in root.rglob("*.ipynb"))
    times: dict[int, list[float]] = {1: [], 2: []}
    for _ in range(repeat):
        for workers in (1, 2):
            elapsed, ok = timed(root, tmp / f"grades-{workers}.csv", workers=workers)
            if ok != submissions:
                print(f"only {ok}/{submissions} submissions graded cleanly", file=sys.stderr)
                return 1
            times[workers].append(elapsed)
            print(f"  workers={workers}: {elapsed:6.1f} s")
    one, two = statistics.median(times[1]), statistics.median(times[2])
    # Other processes take cores from the two-worker run first, so say how busy it was.
    print(
        f"{submissions} submissions, cpus={os.cpu_count()}, load average {_load()}: "
        f"1 worker {one:.1f} s, 2 workers {two:.1f} s, ratio {two / one:.2f} (target <= 0.65)"
    )
    return 0 if two / one <= 0.65 else 1


def bench_cluster(tmp: Path, repeat: int, learners: int) -> int:
    from distributed import LocalCluster

    root = make_class(tmp / "class", learners)
    submissions = sum(1 for _ in root.rglob("*.ipynb"))
    times: dict[str, list[float]] = {"local": [], "cluster": []}
    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        host="127.0.0.1",
        silence_logs=50,
    ) as cluster:
        for _ in range(repeat):
            for side in ("local", "cluster"):
                kw: dict[str, object] = {"workers": 2}
                if side == "cluster":
                    kw["scheduler"] = cluster.scheduler_address
                elapsed, ok = timed(root, tmp / f"grades-{side}.csv", **kw)
                if ok != submissions:
                    print(f"{side}: only {ok}/{submissions} graded cleanly", file=sys.stderr)
                    return 1
                times[side].append(elapsed)
                print(f"  {side:>7}: {elapsed:6.1f} s ({elapsed / submissions:.2f} s each)")
    if (tmp / "grades-local.csv").read_bytes() != (tmp / "grades-cluster.csv").read_bytes():
        print("the cluster's CSV differs from the local run's", file=sys.stderr)
        return 1
    local, dask = statistics.median(times["local"]), statistics.median(times["cluster"])
    each = max(local, dask) / submissions
    print(
        f"{submissions} submissions, cpus={os.cpu_count()}, load average {_load()}: "
        f"2 local workers {local:.1f} s ({local / submissions:.2f} s each), 2-worker "
        f"LocalCluster {dask:.1f} s ({dask / submissions:.2f} s each), ratio "
        f"{dask / local:.2f} (targets: ratio <= 1.2, <= 0.7 s each)"
    )
    return 0 if dask / local <= 1.2 and each <= 0.7 else 1


PHASES = (
    ("read and validate the notebook", "start", "spawn"),
    ("sandbox, interpreter and runner imports", "spawn", "imported"),
    ("kernel start (until kernel_info)", "imported", "kernel_ready"),
    ("the notebook's cells", "kernel_ready", "cells_run"),
    ("reading the answer back", "cells_run", "answer_read"),
    ("result line read, sandbox ended", "answer_read", "collected"),
    ("the checker and the row", "collected", "graded"),
    ("the CSV row", "graded", "written"),
)


def bench_profile(tmp: Path, repeat: int) -> int:
    """Each phase of one submission's grading, from the runner's clock and the grader's."""
    import asyncio
    import csv

    from mcpmini import process as processes
    from mcpmini.course.classroom import execution

    stamps: dict[str, float] = {}
    real_process, real_graded_row = processes.Process, execution._graded_row

    def process(*args: object, **kw: object) -> object:
        stamps["spawn"] = time.monotonic()
        return real_process(*args, **kw)  # type: ignore[arg-type]

    def graded_row(row: object, result: dict[str, object], *rest: object) -> object:
        stamps["collected"] = time.monotonic()
        stamps.update(result.get("clock") or {})  # type: ignore[call-overload]
        return real_graded_row(row, result, *rest)  # type: ignore[arg-type]

    processes.Process = process  # type: ignore[assignment,misc]
    execution._graded_row = graded_row  # type: ignore[assignment]
    spans: dict[str, list[float]] = {name: [] for name, _, _ in PHASES}
    totals = []
    notebooks = sorted((ROOT / "solutions").glob("9_*.ipynb"))
    out = tmp / "row.csv"
    for _ in range(repeat):
        for notebook in notebooks:
            stamps.clear()
            stamps["start"] = time.monotonic()
            row = asyncio.run(execution.grade_notebook(notebook, "learner000", 120))
            stamps["graded"] = time.monotonic()
            with out.open("a", newline="", encoding="utf-8") as fh:
                csv.writer(fh).writerow(row.as_list())
            stamps["written"] = time.monotonic()
            if row.status.value != "graded":
                print(f"{notebook.name}: {row.status.value} {row.feedback}", file=sys.stderr)
                return 1
            for name, begin, end in PHASES:
                spans[name].append(stamps[end] - stamps[begin])
            totals.append(stamps["written"] - stamps["start"])
    total = statistics.median(totals)
    print(f"{len(totals)} submissions one at a time, load average {_load()}:")
    for name, _, _ in PHASES:
        median = statistics.median(spans[name])
        print(f"  {name:<42} {median:6.3f} s  {100 * median / total:4.0f} %")
    print(f"  {'total (median)':<42} {total:6.3f} s")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "bench", nargs="?", choices=("workers", "cluster", "profile"), default="workers"
    )
    parser.add_argument("--repeat", type=int, default=1, help="pairs of runs (median)")
    parser.add_argument("--learners", type=int, help="learners of four notebooks (10; cluster: 60)")
    args = parser.parse_args()
    os.environ["MCPMINI_PROGRESS"] = "off"
    with tempfile.TemporaryDirectory(prefix="mcpmini-bench-") as tmp:
        if args.bench == "profile":
            return bench_profile(Path(tmp), args.repeat)
        if args.bench == "cluster":
            return bench_cluster(Path(tmp), args.repeat, args.learners or 60)
        return bench_workers(Path(tmp), args.repeat, args.learners or 10)


if __name__ == "__main__":
    sys.exit(main())
