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
    grade.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="grade on this Dask distributed scheduler (tcp://host:8786): each notebook in its "
        "own bubblewrap sandbox on a worker; workers need mcpmini and bubblewrap",
    )
    grade.add_argument(
        "--connect-timeout",
        type=float,
        default=10.0,
        help="seconds to wait for the --scheduler (10)",
    )
    grade.add_argument(
        "--feedback",
        metavar="COURSE",
        help="also write COURSE/feedback/<learner>/<assignment>/*.html and COURSE/gradebook.csv",
    )
    grade.add_argument(
        "--assignment", default="exercises", help="assignment name in feedback/ (exercises)"
    )
    grade.set_defaults(handler=_cmd_grade)
    collect = sub.add_parser(
        "collect",
        help="gather a class's exercise notebooks into nbgrader's submitted/ layout",
        description="Copy every learner's exercise notebooks from the hub's user folders "
        "(SOURCE/<learner>/exercises/*.ipynb) or from a zip of LMS downloads named "
        "<learner>_<id>_<file>.ipynb into OUT/submitted/<learner>/<assignment>/, which "
        "'mcpmini grade OUT' reads. Every file that is not copied is reported with the "
        "reason (a symbolic link, unreadable, not a notebook, not on the roster...); exit "
        "code 1 when there is any.",
    )
    collect.add_argument("source", metavar="SOURCE", help="a folder of homes, or a .zip")
    collect.add_argument("--out", required=True, help="the course folder to write submitted/ in")
    collect.add_argument("--assignment", default="exercises", help="assignment name (exercises)")
    collect.add_argument(
        "--subdir", default="exercises", help="folder inside each home to take (exercises)"
    )
    collect.add_argument("--roster", help="roster file: one learner a line; others are reported")
    collect.add_argument("--report", help="also write every record to this CSV file")
    collect.set_defaults(handler=_cmd_collect)
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
            scheduler=args.scheduler,
            connect_timeout=args.connect_timeout,
        )
    except ImportError as exc:
        echo(f"mcpmini grade: --scheduler needs distributed ({exc})", err=True)
        return 2
    except RuntimeError as exc:
        echo(f"mcpmini grade: {exc}", err=True)
        return 2
    except (OSError, ValueError) as exc:  # grade_class's documented refusals of its arguments
        raise UsageError(str(exc)) from None
    if args.feedback:
        from pathlib import Path

        from ..course.classroom import write_feedback, write_gradebook

        course = Path(args.feedback)
        try:
            pages, skipped = write_feedback(rows, course, assignment=args.assignment)
            write_gradebook(rows, course / "gradebook.csv")
        except OSError as exc:
            raise UsageError(f"cannot write feedback: {exc}") from None
        for row in skipped:
            if row.exercise:
                echo(f"no feedback page for learner {row.learner!r}", err=True)
        echo(f"{len(pages)} feedback pages and {course / 'gradebook.csv'} written")
    counts = Counter(row.status.value for row in rows)
    learners = len({row.learner for row in rows})
    echo(
        f"{len(rows)} rows for {learners} learners written to {args.out}: "
        + ", ".join(f"{status} {n}" for status, n in sorted(counts.items()))
    )
    return 0


def _cmd_collect(args: argparse.Namespace) -> int:
    import csv
    from collections import Counter
    from pathlib import Path

    from ..course.classroom import COPIED, RosterError, collect, read_roster
    from ..course.classroom.spreadsheet import cells

    try:
        roster = read_roster(Path(args.roster)) if args.roster else None
        records = collect(
            Path(args.source),
            Path(args.out),
            assignment=args.assignment,
            subdir=args.subdir,
            roster=roster,
        )
    except (RosterError, OSError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    for r in records:
        if r.status.value != "collected":
            echo(
                f"{r.status.value}: {r.learner or '?'}: {r.source}"
                + (f" ({r.detail})" if r.detail else ""),
                err=True,
            )
    if args.report:
        with open(args.report, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(["learner", "exercise", "status", "source", "target", "detail"])
            for r in records:
                target = str(r.target) if r.target else ""
                writer.writerow(
                    cells([r.learner, r.exercise, r.status.value, r.source, target, r.detail])
                )
    counts = Counter(r.status.value for r in records)
    learners = len({r.learner for r in records if r.status in COPIED})
    echo(
        f"{sum(counts[s.value] for s in COPIED)} notebooks of {learners} learners collected into "
        f"{Path(args.out) / 'submitted'}"
        + "".join(
            f", {status} {n}" for status, n in sorted(counts.items()) if status != "collected"
        )
    )
    return 0 if all(r.status in COPIED for r in records) else 1


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
    from ..course.language import Text

    words = {
        "off": Text(
            "進捗は記録していません（MCPMINI_PROGRESS=off）",
            "progress recording is off (MCPMINI_PROGRESS=off)",
        ),
        "file": Text("進捗ファイル: {path}", "progress file: {path}"),
        "best": Text("  最高 {best}/{max}", "  best {best}/{max}"),
        "row": Text(
            "  {id} {title}: {label}{best}  check {attempts} 回  練習 {practice}",
            "  {id} {title}: {label}{best}  checks {attempts}  practice {practice}",
        ),
        "done": Text("{done}/{total} 個の演習が全問正解", "{done}/{total} exercises fully correct"),
        "quiz": Text(
            "CCA-F 模擬試験: 前回 {scaled}/1000（{verdict}）、最高 {best}、受験 {attempts} 回",
            "CCA-F quiz: last {scaled}/1000 ({verdict}), best {best}, attempts {attempts}",
        ),
        "pass": Text("合格の線を超えています", "pass"),
        "below": Text("720 未満", "below 720"),
    }
    path = progress_path(os.environ)
    if path is None:
        echo(str(words["off"]), err=True)
        return 0
    catalogue = [(i, str(TITLES[i]), get_exercise(i).max_score) for i in ALL_IDS]
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
    echo(words["file"].lang().format(path=path))
    for row in rows:
        best = (
            words["best"].lang().format(best=row["best_score"], max=row["max_score"])
            if row["attempts"]
            else ""
        )
        echo(
            words["row"]
            .lang()
            .format(
                id=row["exercise"],
                title=row["title"],
                label=row["label"],
                best=best,
                attempts=row["attempts"],
                practice=row["practice"],
            )
        )
    done = sum(1 for row in rows if row["state"] == "correct")
    echo(words["done"].lang().format(done=done, total=len(rows)))
    if last:
        verdict = words["pass"] if last["passed"] else words["below"]
        echo(
            words["quiz"]
            .lang()
            .format(
                scaled=last["scaled"],
                verdict=verdict,
                best=data["quiz"].get("best_scaled"),
                attempts=data["quiz"].get("attempts"),
            )
        )
        for r in quiz:
            echo(f"  {r['task']:<5} {r['correct']:>3}/{r['total']:<3} {r['percent']:5.1f} %")
    return 0
