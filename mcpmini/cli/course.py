"""``mcpmini grade`` and ``mcpmini progress``: the class grader and the learner's progress."""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import UsageError
from .output import echo, print_json

__all__ = ["add"]


def add(sub: Any) -> None:
    grade = sub.add_parser(
        "grade",
        help="grade a class's exercise notebooks into a CSV",
        description="Run each notebook in a fresh kernel, in its own bubblewrap sandbox, and grade "
        "exercises 9.1-9.4. "
        "SUBMISSIONS are notebooks, learner folders, or a class folder of them.",
    )
    grade.add_argument("submissions", nargs="+", metavar="SUBMISSIONS")
    grade.add_argument("--out", required=True, help="CSV file to write (always written)")
    grade.add_argument("--workers", type=int, default=2, help="notebooks run at once (2)")
    grade.add_argument(
        "--timeout", type=float, default=60.0, help="seconds allowed per notebook (60)"
    )
    grade.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    grade.add_argument(
        "--resume",
        action="store_true",
        help="keep the rows already in --out and grade only the rest",
    )
    grade.add_argument(
        "--require-isolation",
        action="store_true",
        help="refuse to grade unless each notebook can run in a bubblewrap sandbox",
    )
    grade.set_defaults(handler=_cmd_grade)
    prog = sub.add_parser(
        "progress",
        help="show your exercise and quiz progress",
        description="Show the results recorded by check() in the notebooks.",
    )
    prog.add_argument("--json", action="store_true", help="print the rows as JSON")
    prog.set_defaults(handler=_cmd_progress)


def _cmd_grade(args: argparse.Namespace) -> int:
    from collections import Counter

    from ..course.classroom import grade_class

    try:
        rows = grade_class(
            args.submissions,
            args.out,
            workers=args.workers,
            timeout=args.timeout,
            progress=not args.no_progress,
            resume=args.resume,
            require_isolation=args.require_isolation,
        )
    except RuntimeError as exc:
        echo(f"mcpmini grade: {exc}", err=True)
        return 2
    except (OSError, ValueError) as exc:  # grade_class's documented refusals of its arguments
        raise UsageError(str(exc)) from None
    counts = Counter(row.status.value for row in rows)
    learners = len({row.learner for row in rows})
    echo(
        f"{len(rows)} rows for {learners} learners written to {args.out}: "
        + ", ".join(f"{status} {n}" for status, n in sorted(counts.items()))
    )
    return 0


def _cmd_progress(args: argparse.Namespace) -> int:
    import os

    from ..course import (
        ALL_IDS,
        TITLES,
        get_exercise,
        load_progress,
        progress_path,
        quiz_summary,
        summary,
    )

    path = progress_path(os.environ)
    if path is None:
        echo("progress recording is off (MCPMINI_PROGRESS=off)", err=True)
        return 0
    catalogue = [(i, TITLES[i], get_exercise(i).max_score) for i in ALL_IDS]
    data = load_progress(path)
    rows = summary(data, catalogue)
    quiz = quiz_summary(data)
    last = data.get("quiz", {}).get("last")
    if args.json:
        print_json(
            {
                "path": str(path),
                "exercises": rows,
                "quiz": {
                    "attempts": data.get("quiz", {}).get("attempts", 0),
                    "best_scaled": data.get("quiz", {}).get("best_scaled"),
                    "last": last,
                    "tasks": quiz,
                },
            }
        )
        return 0
    echo(f"progress file: {path}")
    for row in rows:
        best = f"  best {row['best_score']}/{row['max_score']}" if row["attempts"] else ""
        echo(
            f"  {row['exercise']} {row['title']}: {row['label']}{best}  "
            f"checks {row['attempts']}  practice {row['practice']}"
        )
    done = sum(1 for row in rows if row["label"] == "全問正解")
    echo(f"{done}/{len(rows)} exercises fully correct")
    if last:
        echo(
            f"CCA-F quiz: last {last['scaled']}/1000 "
            f"({'pass' if last['passed'] else 'below 720'}), "
            f"best {data['quiz'].get('best_scaled')}, attempts {data['quiz'].get('attempts')}"
        )
        for r in quiz:
            echo(f"  {r['task']:<5} {r['correct']:>3}/{r['total']:<3} {r['percent']:5.1f} %")
    return 0
