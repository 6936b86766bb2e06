"""Measure how long each course notebook takes to run top to bottom, for the instructor's guide.

Each notebook runs with nbclient in a fresh kernel of this Python, from its own folder (as
``make test`` runs them); the wall time, whether it ran without error, the machine's CPU
count and load average are written to ``run_times.json`` beside this script, which
``00_guide.ipynb`` reads. Nothing is written into the notebooks.

Run: ``.venv/bin/python notebooks/instructor/measure_run_times.py`` (a few minutes).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).with_name("run_times.json")
GROUPS = ("notebooks", "notebooks/practice", "notebooks/ccaf", "exercises", "solutions")


def run(path: Path) -> tuple[float, str]:
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    started = time.perf_counter()
    try:
        client.execute()
        error = ""
    except Exception as exc:
        error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"
    return time.perf_counter() - started, error


def main() -> int:
    os.environ.setdefault("MCPMINI_PROGRESS", "off")
    rows = []
    for group in GROUPS:
        for path in sorted((ROOT / group).glob("*.ipynb")):
            seconds, error = run(path)
            rel = path.relative_to(ROOT).as_posix()
            rows.append({"notebook": rel, "seconds": round(seconds, 1), "error": error})
            print(f"{seconds:6.1f} s  {rel}  {error}", flush=True)
    OUT.write_text(
        json.dumps(
            {
                "cpus": os.cpu_count(),
                "load_average": [round(x, 1) for x in os.getloadavg()],
                "python": sys.version.split()[0],
                "notebooks": rows,
            },
            ensure_ascii=False,
            indent=1,
        )
        + "\n",
        encoding="utf-8",
    )
    return 0 if all(not r["error"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
