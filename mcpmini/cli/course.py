"""``mcpmini grade``, ``collect``, ``grade-certs``, ``release-feedback`` and ``progress``: the
class grader and its tools, and the learner's progress."""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import UsageError
from .output import echo, print_json

__all__ = ["add"]


def add(sub: Any) -> None:
    _add_grade(sub)
    _add_collect(sub)
    certs = sub.add_parser(
        "grade-certs",
        help="make the TLS certificates of a class's Dask grading cluster",
        description="Write a certificate authority for the class and a certificate for the "
        "scheduler, the workers and the grader into DIR (keys 0600), then print the commands "
        "that start the scheduler and the workers with them. Keep DIR away from learners.",
    )
    certs.add_argument("folder", metavar="DIR", help="an empty or new folder")
    certs.add_argument(
        "--host",
        action="append",
        default=[],
        help="the scheduler's host name or address (repeat for more)",
    )
    certs.add_argument("--days", type=int, default=30, help="days the certificates hold (30)")
    certs.set_defaults(handler=_cmd_certs)
    release = sub.add_parser(
        "release-feedback",
        help="return feedback pages into the learners' hub homes",
        description="Copy COURSE/feedback/<learner>/<assignment>/ into HOMES/<learner>/feedback/"
        "<assignment>/, owned by each home's owner and readable by it alone (no link a learner "
        "made is followed).",
    )
    release.add_argument("course", metavar="COURSE", help="the course folder holding feedback/")
    release.add_argument("--homes", required=True, help="the hub's homes folder (.hub/homes)")
    release.add_argument("--assignment", help="only this assignment")
    release.set_defaults(handler=_cmd_release)
    nbg = sub.add_parser(
        "nbgrader-course",
        help="write an nbgrader course folder of the exercises",
        description="Write DIR/nbgrader_config.py and DIR/source/<assignment>/<notebook>.ipynb for "
        "each exercise of each assignment: the exercise notebook with the worked answer in a "
        "solution region. 'nbgrader generate_assignment' in DIR then writes the exercise notebooks "
        "as learners get them, and 'nbgrader autograde' gives the points 'mcpmini grade' gives.",
    )
    nbg.add_argument("folder", metavar="DIR", help="the nbgrader course folder to write")
    nbg.add_argument(
        "--assignments",
        metavar="FILE",
        help="assignments.yaml (default: one assignment, exercises, of every exercise)",
    )
    nbg.add_argument("--edition", choices=["ja", "en"], default="ja", help="the edition (ja)")
    nbg.add_argument("--course", default=".", help="the course checkout (the current folder)")
    nbg.set_defaults(handler=_cmd_nbgrader)
    prog = sub.add_parser(
        "progress",
        help="show your exercise and quiz progress",
        description="Show the results recorded by check() in the notebooks.",
    )
    prog.add_argument("--json", action="store_true", help="print the rows as JSON")
    prog.set_defaults(handler=_cmd_progress)


_GRADE_HELP = (
    "Run each notebook in a fresh kernel, in its own bubblewrap sandbox, and grade the "
    "exercises {ids}. SUBMISSIONS are notebooks, learner folders, a class folder of them, or "
    "nbgrader's submitted/<learner>/<assignment>/ (the learner and the assignment are taken "
    "from that path). Which exercises an assignment set, its due date and late policy come "
    "from assignments.yaml beside submitted/ (or --assignments). Grading an nbgrader course "
    "folder also writes its feedback/ and gradebook.csv."
)


def _with_exercises(parser: argparse.ArgumentParser) -> None:
    """Name every exercise in ``parser``'s help, read from the catalogue when help is asked
    for (importing the course on every command's start would slow all of them)."""
    plain = parser.format_help

    def format_help() -> str:
        from ..course.catalogue import ALL_IDS

        parser.description = _GRADE_HELP.format(ids=", ".join(ALL_IDS))
        return plain()

    setattr(parser, "format_help", format_help)  # noqa: B010 (an instance's own method)


def _add_grade(sub: Any) -> None:
    grade = sub.add_parser(
        "grade",
        help="grade a class's exercise notebooks into a CSV",
        description=_GRADE_HELP.format(ids="of the course"),
    )
    _with_exercises(grade)
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
        help="grade on this Dask distributed scheduler: tls://HOST:8786 with --tls, or "
        "tcp://127.0.0.1:PORT on this machine only; each notebook in its own bubblewrap sandbox "
        "on a worker; workers need mcpmini and bubblewrap",
    )
    grade.add_argument(
        "--tls",
        metavar="DIR",
        help="the class's certificates for a tls:// scheduler (made by mcpmini grade-certs DIR)",
    )
    grade.add_argument(
        "--connect-timeout",
        type=float,
        default=10.0,
        help="seconds to wait for the --scheduler (10)",
    )
    grade.add_argument(
        "--assignments",
        metavar="FILE",
        help="the assignments file (default: assignments.yaml beside submitted/)",
    )
    grade.add_argument("--assignment", help="grade only this assignment")
    grade.add_argument(
        "--feedback",
        metavar="COURSE",
        help="write COURSE/feedback/<learner>/<assignment>/*.html and COURSE/gradebook.csv "
        "(default: the course folder holding submitted/, when that is what is graded)",
    )
    grade.add_argument("--no-feedback", action="store_true", help="write no feedback pages")
    grade.add_argument(
        "--lang", choices=["ja", "en"], help="the language of the feedback (default: MCPMINI_LANG)"
    )
    grade.set_defaults(handler=_cmd_grade)


def _add_collect(sub: Any) -> None:
    collect = sub.add_parser(
        "collect",
        help="gather a class's exercise notebooks into nbgrader's submitted/ layout",
        description="Copy every learner's exercise notebooks from the hub's user folders "
        "(SOURCE/<learner>/exercises/*.ipynb) or from an LMS's download zip (Moodle's folders or "
        "flat names, Canvas's names with _LATE_, or --pattern) into "
        "OUT/submitted/<learner>/<assignment>/, which 'mcpmini grade OUT' reads. Of several "
        "notebooks for one exercise the latest is kept. Every file that is not copied is "
        "reported with the reason (a symbolic link, unreadable, not a notebook, not on the "
        "roster...); exit code 1 when there is any.",
    )
    collect.add_argument("source", metavar="SOURCE", help="a folder of homes, or a .zip")
    collect.add_argument("--out", required=True, help="the course folder to write submitted/ in")
    collect.add_argument("--assignment", default="exercises", help="assignment name (exercises)")
    collect.add_argument(
        "--subdir", default="exercises", help="folder inside each home to take (exercises)"
    )
    collect.add_argument("--roster", help="roster file: one learner a line; others are reported")
    collect.add_argument(
        "--lms",
        default="auto",
        choices=["auto", "moodle", "canvas"],
        help="the LMS that made the zip (auto: Moodle's forms, then Canvas's)",
    )
    collect.add_argument(
        "--pattern",
        metavar="REGEX",
        help="read entry names with this regular expression instead, as nbgrader's "
        "FileNameCollectorPlugin.named_regexp: (?P<student_id>...) and (?P<file_id>...) "
        "required, (?P<timestamp>...) and (?P<late>...) optional",
    )
    collect.add_argument(
        "--names",
        metavar="FILE",
        help="CSV of lms_name,login: the LMS's name (or id) for each learner and their login",
    )
    collect.add_argument("--report", help="also write every record to this CSV file")
    collect.set_defaults(handler=_cmd_collect)


# (Japanese, English) pairs, made into course.language.Text only when printed: importing the
# course at the CLI's start would slow every command.
_SAID: dict[str, tuple[str, str]] = {
    "needs_distributed": (
        "mcpmini grade: --scheduler には distributed が要ります（{error}）",
        "mcpmini grade: --scheduler needs distributed ({error})",
    ),
    "no_page": (
        "受講者 {learner!r} のフィードバックは書きませんでした（{why}）",
        "no feedback page for learner {learner!r} ({why})",
    ),
    "pages": (
        "フィードバック {pages} ページと {gradebook} を書きました",
        "{pages} feedback pages and {gradebook} written",
    ),
    "rows": (
        "{rows} 行（受講者 {learners} 人）を {out} に書きました: {counts}",
        "{rows} rows for {learners} learners written to {out}: {counts}",
    ),
    "late": ("締め切り後の提出 {n}", "late {n}"),
}


def _said(name: str, **fields: Any) -> str:
    from ..course.language import Text

    return Text(*_SAID[name]).lang().format(**fields)


def _assignments(args: argparse.Namespace) -> Any:
    from pathlib import Path

    from ..course.classroom.assignments import find_assignments, read_assignments

    if args.assignments:
        return read_assignments(Path(args.assignments))
    found = find_assignments([Path(p) for p in args.submissions])
    return read_assignments(found) if found is not None else None


def _feedback_course(args: argparse.Namespace) -> Any:
    """Where feedback goes: --feedback, else the course folder of a graded submitted/ tree."""
    from pathlib import Path

    if args.no_feedback:
        return None
    if args.feedback:
        return Path(args.feedback)
    first = Path(args.submissions[0]).absolute()
    for place in (first, *first.parents):
        if place.name == "submitted":
            return place.parent
    return first if (first / "submitted").is_dir() else None


def _cmd_grade(args: argparse.Namespace) -> int:
    from contextlib import ExitStack

    from ..course.language import use

    with ExitStack() as stack:
        if args.lang:
            stack.enter_context(use(args.lang))
        return _grade(args)


def _grade(args: argparse.Namespace) -> int:
    from collections import Counter
    from pathlib import Path

    from ..course.classroom import AssignmentError, SubmissionError, grade_class
    from ..course.classroom.cluster import SchedulerRefused, security_from

    try:
        assignments = _assignments(args)
        security = security_from(Path(args.tls)) if args.tls else None
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
            assignments=assignments,
            only=args.assignment,
            security=security,
        )
    except ImportError as exc:
        echo(_said("needs_distributed", error=exc), err=True)
        return 2
    except RuntimeError as exc:
        echo(f"mcpmini grade: {exc}", err=True)
        return 2
    except (AssignmentError, SubmissionError, SchedulerRefused) as exc:
        raise UsageError(str(exc)) from None
    except (OSError, ValueError) as exc:  # grade_class's documented refusals of its arguments
        raise UsageError(str(exc)) from None
    course = _feedback_course(args)
    if course is not None:
        from ..course.classroom import write_feedback, write_gradebook

        try:
            pages, skipped = write_feedback(rows, course)
            write_gradebook(rows, course / "gradebook.csv")
        except OSError as exc:
            raise UsageError(f"cannot write feedback: {exc}") from None
        for row in skipped:
            if row.exercise and row.max_score:
                why = f"{row.assignment}/{row.notebook}"
                echo(_said("no_page", learner=row.learner, why=why), err=True)
        echo(_said("pages", pages=len(pages), gradebook=course / "gradebook.csv"))
    counts = Counter(row.status.value for row in rows)
    late = sum(1 for row in rows if row.late)
    learners = len({row.learner for row in rows})
    summary = ", ".join(f"{status} {n}" for status, n in sorted(counts.items()))
    if late:
        summary += ", " + _said("late", n=late)
    echo(_said("rows", rows=len(rows), learners=learners, out=args.out, counts=summary))
    return 0


def _cmd_certs(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..course.classroom.cluster import make_certificates

    if args.days < 1:
        raise UsageError(f"--days must be at least 1, got {args.days}")
    try:
        make_certificates(Path(args.folder), args.host, args.days)
    except (FileExistsError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot write {args.folder}: {exc}") from None
    d = Path(args.folder)
    host = args.host[0] if args.host else "HOST"
    echo(f"certificates written to {d} (keys readable by you alone; keep {d} from learners)")
    echo(
        f"  scheduler: dask scheduler --protocol tls --tls-ca-file {d}/ca.pem "
        f"--tls-cert {d}/scheduler.pem --tls-key {d}/scheduler-key.pem "
        "--dashboard-address 127.0.0.1:8787"
    )
    echo(
        f"  worker:    dask worker tls://{host}:8786 --tls-ca-file {d}/ca.pem "
        f"--tls-cert {d}/worker.pem --tls-key {d}/worker-key.pem"
    )
    echo(f"  grader:    mcpmini grade ... --scheduler tls://{host}:8786 --tls {d}")
    return 0


def _cmd_nbgrader(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..course.catalogue import ALL_IDS
    from ..course.classroom import Assignment, AssignmentError, read_assignments
    from ..course.classroom.nbgrader import build_course

    try:
        if args.assignments:
            assignments = read_assignments(Path(args.assignments))
        else:
            assignments = {"exercises": Assignment("exercises", ALL_IDS)}
        written = build_course(
            Path(args.folder), assignments, Path(args.course), edition=args.edition
        )
    except (AssignmentError, FileNotFoundError) as exc:
        raise UsageError(str(exc)) from None
    echo(f"{len(written)} source notebooks and nbgrader_config.py written to {args.folder}")
    return 0


def _cmd_release(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..course.classroom import return_feedback

    try:
        written, skipped = return_feedback(
            Path(args.course), Path(args.homes), assignment=args.assignment
        )
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None
    for line in skipped:
        echo(f"skipped: {line}", err=True)
    learners = len({p.parents[2].name for p in written})
    echo(f"{len(written)} files returned into the homes of {learners} learners")
    return 1 if skipped else 0


def _cmd_collect(args: argparse.Namespace) -> int:
    import csv
    from collections import Counter
    from pathlib import Path

    from ..course.classroom import (
        COPIED,
        PROBLEMS,
        CollectError,
        RosterError,
        collect,
        read_names,
        read_roster,
    )
    from ..course.classroom.spreadsheet import cells

    try:
        roster = read_roster(Path(args.roster)) if args.roster else None
        names = read_names(Path(args.names)) if args.names else None
        records = collect(
            Path(args.source),
            Path(args.out),
            assignment=args.assignment,
            subdir=args.subdir,
            roster=roster,
            form=args.lms,
            pattern=args.pattern,
            names=names,
        )
    except (RosterError, CollectError, OSError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    for r in records:
        if r.status in PROBLEMS:
            echo(
                f"{r.status.value}: {r.learner or '?'}: {r.source}"
                + (f" ({r.detail})" if r.detail else ""),
                err=True,
            )
    if args.report:
        with open(args.report, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(["learner", "exercise", "status", "late", "source", "target", "detail"])
            for r in records:
                target = str(r.target) if r.target else ""
                late = "late" if r.late else ""
                writer.writerow(
                    cells([r.learner, r.exercise, r.status.value, late, r.source, target, r.detail])
                )
    counts = Counter(r.status.value for r in records)
    learners = len({r.learner for r in records if r.status in COPIED})
    marked = sum(1 for r in records if r.late)
    echo(
        f"{sum(counts[s.value] for s in COPIED)} notebooks of {learners} learners collected into "
        f"{Path(args.out) / 'submitted'}"
        + (f", {marked} marked late" if marked else "")
        + "".join(
            f", {status} {n}" for status, n in sorted(counts.items()) if status != "collected"
        )
    )
    return 1 if any(r.status in PROBLEMS for r in records) else 0


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
