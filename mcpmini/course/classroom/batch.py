"""Grade a whole class: every submitted notebook becomes one CSV row.

:func:`find_submissions` turns the paths an instructor gives into jobs of (learner,
assignment, exercise, notebook): the learner and the assignment come from nbgrader's path
``submitted/<learner>/<assignment>/`` (elsewhere a folder of notebooks is one learner, a folder
of folders a class), and each exercise the assignment set that a learner did not hand in
becomes a ``not_attempted`` row (:mod:`.assignments` says which exercises, the due date and
the late policy). :func:`grade_class` runs the jobs through
:func:`~mcpmini.course.classroom.execution.grade_notebook` (a fresh kernel each), up to ``workers``
at once on one asyncio loop that lives in its own thread, with a ``tqdm`` bar. Every job
ends as a :class:`GradeRow`, whatever the notebook does, and the CSV is written row by
row as jobs finish and rewritten sorted at the end, also after Ctrl-C; ``resume=True``
keeps the rows a killed run already wrote and grades only the rest. Each notebook runs in
its own bubblewrap sandbox; without bubblewrap a loud warning is printed, and
``require_isolation=True`` refuses to run.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import json
import os
import re
import sys
import threading
import warnings
from collections.abc import Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..language import Text
from .assignments import (
    DEFAULT_ASSIGNMENT,
    LATE_FILE,
    NOTEBOOKS,
    Assignment,
    default_exercises,
    read_timestamp,
)
from .execution import (
    SYMLINK,
    GradeRow,
    RowStatus,
    grade_notebook,
    identify_exercise,
    note,
    read_submission,
)
from .spreadsheet import uncell
from .summary import NOTHING

__all__ = [
    "COLUMNS",
    "GradeRow",
    "RowStatus",
    "Submission",
    "SubmissionError",
    "answers_path",
    "failed_row",
    "find_submissions",
    "finish_row",
    "grade_class",
    "grade_notebook",
    "identify_exercise",
    "job_row",
    "read_csv",
    "read_grades",
    "write_csv",
]

#: The grades CSV's header: one row per learner, assignment and exercise. ``score`` is the
#: checker's, ``penalty`` what lateness takes from it, ``late`` is ``late`` or empty.
COLUMNS = (
    "learner",
    "assignment",
    "exercise",
    "notebook",
    "score",
    "max_score",
    "penalty",
    "late",
    "status",
    "feedback",
)


@dataclass(frozen=True)
class Submission:
    """A job: one notebook (or nothing) of a learner for an exercise of an assignment.

    ``path`` is ``None`` when the learner handed nothing in for ``exercise``; ``refused`` says
    why ``path`` is not graded (a symbolic link, an exercise the assignment did not set), ``""``
    when it is. ``notebook`` is the file's name without ``.ipynb`` (the exercise's own notebook
    name when nothing was handed in); ``late_seconds`` how long after the assignment's due
    date the folder was handed in (``0.0``: on time, or no due date)."""

    learner: str
    exercise: str
    path: Path | None
    refused: str = ""
    assignment: str = DEFAULT_ASSIGNMENT
    notebook: str = ""
    late_seconds: float = 0.0


class SubmissionError(ValueError):
    """Submissions that cannot be graded as given: one learner name from two folders, or an
    assignment folder the assignments file does not define. Nothing is graded then."""


def _peek(path: Path) -> str:
    """The exercise of a file without running or validating it (metadata, else name); a
    symbolic link is never followed (its name alone says)."""
    try:
        data = json.loads(read_submission(path).decode("utf-8"))
        return identify_exercise(path, data if isinstance(data, dict) else None)
    except (OSError, ValueError):
        pass
    return identify_exercise(path)


def _notebooks(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.ipynb") if p.is_symlink() or p.is_file())


def _folders(folder: Path) -> list[Path]:
    """The sub-folders of ``folder`` (links to folders included, to be refused)."""
    return sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))


def _stem(exercise: str) -> str:
    return NOTEBOOKS.get(exercise, exercise.replace(".", "_"))


@dataclass
class _Unit:
    """The notebooks of one learner for one assignment, and where they were found."""

    learner: str
    assignment: str
    origin: Path  # the learner's folder (conflicts are told by it)
    folder: Path | None  # the assignment folder (its timestamp.txt), None for single files
    files: list[Path]
    linked: Path | None = None  # a learner or assignment folder that is a link: refused
    named: bool = False  # only notebooks given by name: no rows for what they lack


class _Finder:
    """Collects units from the paths given (see :func:`find_submissions`)."""

    def __init__(self, assignments: Mapping[str, Assignment] | None) -> None:
        self.assignments = assignments
        self.units: dict[tuple[str, str, str], _Unit] = {}
        self.origins: dict[str, Path] = {}

    def _known(self, name: str) -> bool:
        return name == DEFAULT_ASSIGNMENT or name in (self.assignments or {})

    def unit(self, learner: str, assignment: str, origin: Path, folder: Path | None) -> _Unit:
        origin = Path(os.path.abspath(origin))
        first = self.origins.setdefault(learner, origin)
        if first != origin:
            raise SubmissionError(
                f"learner {learner!r} comes from two folders, {first} and {origin}: "
                "grade them apart, or give each learner a folder of their own"
            )
        if self.assignments is not None and assignment not in self.assignments:
            raise SubmissionError(
                f"{folder or origin}: assignment {assignment!r} is not defined "
                f"(defined: {', '.join(sorted(self.assignments))})"
            )
        key = (learner, assignment, str(folder or origin))
        return self.units.setdefault(key, _Unit(learner, assignment, origin, folder, []))

    def learner_folder(self, folder: Path, nbgrader: bool) -> None:
        """A learner's folder: its own notebooks (the default assignment) and, one level down,
        its assignment folders (``submitted/<learner>/<assignment>/``). An empty one handed
        in nothing: for each defined assignment, or for the default one."""
        name = folder.name
        if folder.is_symlink():
            self.unit(name, self._default(), folder, folder).linked = folder
            return
        files = _notebooks(folder)
        subs = _folders(folder)
        if files or not nbgrader:
            unit = self.unit(name, self._default(), folder, folder)
            unit.named = False
            unit.files += files
        elif not subs:
            for assignment in self.assignments or [DEFAULT_ASSIGNMENT]:
                self.unit(name, assignment, folder, folder / assignment)
        for sub in subs:
            self.assignment_folder(name, folder, sub)

    def _default(self) -> str:
        """The assignment of notebooks outside an assignment folder: the default one, or the
        only one defined."""
        if self.assignments is not None and len(self.assignments) == 1:
            return next(iter(self.assignments))
        return DEFAULT_ASSIGNMENT

    def assignment_folder(self, learner: str, origin: Path, folder: Path) -> None:
        unit = self.unit(learner, folder.name, origin, folder)
        unit.named = False
        if folder.is_symlink():
            unit.linked = folder
        else:
            unit.files += _notebooks(folder)

    def file(self, path: Path) -> None:
        """One notebook given by name: its learner is its folder, or the folder above when
        its folder is an assignment's (``ada/exercises/x.ipynb`` is ada's, as is
        ``submitted/ada/week1/x.ipynb``)."""
        here = Path(os.path.abspath(path))
        parent = here.parent
        depth = _below_submitted(parent)
        if depth is not None and depth >= 2:
            learner = parent.parents[depth - 2]
            assignment = parent.parents[depth - 3] if depth > 2 else parent
            unit = self.unit(learner.name, assignment.name, learner, assignment)
        elif self._known(parent.name) and parent.parent != parent:
            unit = self.unit(parent.parent.name, parent.name, parent.parent, parent)
        else:
            unit = self.unit(parent.name, self._default(), parent, parent)
        if not unit.files:
            unit.named = True
        unit.files.append(path)

    def folder(self, path: Path) -> None:
        here = Path(os.path.abspath(path))
        depth = _below_submitted(here)
        if depth is not None:  # nbgrader's submitted/<learner>/<assignment>/
            if depth == 0:
                for learner in _folders(path):
                    self.learner_folder(learner, nbgrader=True)
            elif depth == 1:
                self.learner_folder(path, nbgrader=True)
            else:
                learner = here.parents[depth - 2]
                assignment = here.parents[depth - 3] if depth > 2 else here
                self.assignment_folder(learner.name, learner, assignment)
            return
        if not _notebooks(path) and (path / "submitted").is_dir():
            self.folder(path / "submitted")  # an nbgrader course folder
            return
        subs = _folders(path)
        if _notebooks(path) or not subs:
            if self._known(path.name) and here.parent != here:
                self.assignment_folder(here.parent.name, here.parent, path)
            else:
                self.learner_folder(path, nbgrader=False)
        elif all(self._known(sub.name) for sub in subs):
            self.learner_folder(path, nbgrader=True)  # a learner's assignment folders
        else:
            for learner in subs:  # a class: one folder per learner
                self.learner_folder(learner, nbgrader=True)


def _below_submitted(folder: Path) -> int | None:
    """How many folders ``folder`` lies below the last folder named ``submitted`` on its path
    (``0`` for that folder itself), or ``None`` when none is."""
    parts = folder.parts
    marks = [i for i, part in enumerate(parts) if part == "submitted"]
    return len(parts) - 1 - marks[-1] if marks else None


def _unit_jobs(unit: _Unit, assignments: Mapping[str, Assignment] | None) -> list[Submission]:
    """A unit's jobs, with a ``path=None`` job for each exercise of the assignment it lacks."""
    defined = (assignments or {}).get(unit.assignment)
    late = 0.0
    if defined is not None and unit.folder is not None and unit.linked is None:
        late = defined.lateness(read_timestamp(unit.folder), (unit.folder / LATE_FILE).is_file())
    base = Submission(unit.learner, "", None, assignment=unit.assignment, late_seconds=late)
    found: list[Submission] = []
    if unit.linked is not None:  # a linked folder: refused, and nothing of it handed in
        found.append(replace(base, path=unit.linked, refused=SYMLINK))
    for path in dict.fromkeys(unit.files):  # a file given twice is one job
        exercise = identify_exercise(path) if path.is_symlink() else _peek(path)
        job = replace(base, exercise=exercise, path=path, notebook=path.name[: -len(".ipynb")])
        if path.is_symlink():
            job = replace(job, refused=SYMLINK)
        elif defined is not None and exercise and exercise not in defined.exercises:
            job = replace(
                job, refused=_NOT_SET.format(exercise=exercise, name=unit.assignment).lang()
            )
        found.append(job)
    have = [job.exercise for job in found]  # a refused link stands where its notebook would
    if unit.named:
        return found
    expected = defined.exercises if defined is not None else default_exercises(have)
    missing = [ex for ex in expected if ex not in have]
    return found + [replace(base, exercise=ex, notebook=_stem(ex)) for ex in missing]


def find_submissions(
    paths: Iterable[str | Path],
    assignments: Mapping[str, Assignment] | None = None,
    only: str | None = None,
) -> list[Submission]:
    """Turn notebooks, learner folders and class folders into jobs.

    nbgrader's layout is read as it is: under a folder named ``submitted`` the learner is the
    folder below it and the assignment the one below that (``submitted/<learner>/<assignment>/
    *.ipynb``), whichever of these folders is given, and a course folder holding ``submitted/``
    stands for it. Elsewhere a file is one submission of the learner named by its folder — or
    by the folder above, when its own folder is an assignment's (``ada/exercises/x.ipynb``); a
    folder holding notebooks is one learner; a folder holding only folders is a class (each
    sub-folder a learner, empty ones included), unless each of them is an assignment (then it
    is one learner's). Notebooks outside an assignment folder belong to
    :data:`~.assignments.DEFAULT_ASSIGNMENT`.

    With ``assignments`` (see :mod:`.assignments`) each learner's assignment gets a
    ``path=None`` job for every exercise it set and the learner lacks, a notebook of an
    exercise it did not set is refused, and ``late_seconds`` comes from the folder's
    ``timestamp.txt`` and the due date; without, the exercises are
    :func:`~.assignments.default_exercises`. With ``only``, just that assignment's jobs (a
    learner found without a folder for it handed nothing in). Symbolic links inside are
    refused, never followed:
    a linked notebook or learner folder is a job with ``refused`` set (a link to another
    learner's notebook is not graded as this learner's).

    Raises ``FileNotFoundError`` for a path that does not exist and :class:`SubmissionError`
    when one learner name comes from two folders (``a/x.ipynb`` and ``b/a/x.ipynb``) or an
    assignment folder is not in ``assignments``.
    """
    finder = _Finder(assignments)
    for raw in paths:
        path = Path(raw)
        if (path.is_symlink() and not path.is_dir()) or path.is_file():
            finder.file(path)
        elif path.is_dir():
            finder.folder(path)
        else:
            raise FileNotFoundError(f"no such file or folder: {path}")
    units = list(finder.units.values())
    if only is not None:
        if assignments is not None and only not in assignments:
            raise SubmissionError(
                f"assignment {only!r} is not defined (defined: {', '.join(sorted(assignments))})"
            )
        have = {unit.learner for unit in units if unit.assignment == only}
        units = [unit for unit in units if unit.assignment == only]
        for learner, origin in finder.origins.items():
            if learner not in have:
                units.append(_Unit(learner, only, origin, origin / only, []))
    return [job for unit in units for job in _unit_jobs(unit, assignments)]


def answers_path(out: Path) -> Path:
    """The answers file kept beside the grades CSV ``out`` (``grades.csv`` →
    ``grades.answers.jsonl``): each graded row's answer, for feedback and the class summary."""
    return out.with_name(f"{out.stem}.answers.jsonl")


def _key(row: GradeRow) -> list[Any]:
    """What ties an answer record to its row."""
    return [row.learner, row.assignment, row.exercise, row.score, row.status.value, row.feedback]


def _answer_line(row: GradeRow) -> str:
    key = _key(row)
    return json.dumps({"row": key, "answer": row.answer}, ensure_ascii=False) + "\n"


def write_answers(rows: Iterable[GradeRow], path: Path) -> None:
    """Write the answers of ``rows`` (those that have one) atomically to ``path``."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        fh.writelines(_answer_line(row) for row in rows if row.answer is not None)
    os.replace(tmp, path)


def with_answers(rows: list[GradeRow], path: Path) -> list[GradeRow]:
    """``rows`` with the answers recorded in ``path`` attached (a missing file, or a line
    that is not an answer record, is no answer)."""
    found: dict[tuple[Any, ...], Any] = {}
    with contextlib.suppress(OSError):
        for line in path.read_text(encoding="utf-8").splitlines():
            with contextlib.suppress(ValueError, TypeError, KeyError):
                item = json.loads(line)
                found[tuple(item["row"])] = item["answer"]
    return [replace(r, answer=found.get(tuple(_key(r)))) for r in rows]


def read_grades(out: str | Path) -> list[GradeRow]:
    """The rows of the grades CSV ``out`` with their answers (:func:`answers_path`) attached.

    Raises ``OSError`` and ``ValueError`` as :func:`read_csv` does.
    """
    out = Path(out)
    return with_answers(read_csv(out, keep_interrupted=True), answers_path(out))


def write_csv(rows: Iterable[GradeRow], out: Path) -> None:
    """Write ``rows`` (with the :data:`COLUMNS` header) atomically to ``out``."""
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    with tmp.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(COLUMNS)
        writer.writerows(row.as_list() for row in rows)
    os.replace(tmp, out)


_RANK = {
    RowStatus.GRADED: 4,
    RowStatus.ERROR: 3,
    RowStatus.NOT_ATTEMPTED: 2,
    RowStatus.TIMEOUT: 1,
    RowStatus.INVALID: 0,
    RowStatus.REFUSED: -1,
}


def _merge(rows: list[GradeRow]) -> list[GradeRow]:
    """One row per (learner, assignment, exercise): the best of duplicates, which are named in
    feedback (``mcpmini collect`` keeps only a learner's latest notebook of an exercise, so
    duplicates come from notebooks given by hand)."""
    groups: dict[tuple[str, str, str], list[GradeRow]] = {}
    for row in rows:
        groups.setdefault((row.learner, row.assignment, row.exercise), []).append(row)
    merged = []
    for (_, _, exercise), group in groups.items():
        if not exercise or len(group) == 1:
            merged.extend(group)
            continue
        best = max(group, key=lambda r: (r.points, r.score, _RANK[r.status]))
        best = replace(
            best, feedback=_BEST.format(n=len(group), exercise=exercise).lang() + best.feedback
        )
        merged.append(best)
    return sorted(merged, key=lambda r: (r.learner, r.assignment, r.exercise, r.feedback))


def _run_in_thread(make: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run ``make()`` on an event loop of its own thread and wait for it.

    Off the main thread nbclient installs no signal handlers, so Ctrl-C reaches this
    thread as ``KeyboardInterrupt``: the batch is then cancelled (each kernel is shut
    down by its own cleanup) and the interrupt re-raised. It also lets a notebook, whose
    thread already runs a loop, call :func:`grade_class`.
    """
    loop = asyncio.new_event_loop()
    main = loop.create_task(make())  # made before the thread starts, so Ctrl-C can cancel it
    failure: list[BaseException] = []
    finished = threading.Event()

    def runner() -> None:
        try:
            loop.run_until_complete(main)
        except BaseException as exc:
            failure.append(exc)
        finally:  # cancel what is left (each job's cleanup kills its kernel), then close
            pending = asyncio.all_tasks(loop)
            for leftover in pending:
                leftover.cancel()
            if pending:
                with contextlib.suppress(BaseException):  # the first failure is kept above
                    loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()
            finished.set()

    # Wait on an Event, not on Thread.join: a join that Ctrl-C interrupts can leave the
    # thread reported as finished while it still runs (CPython issue 90882). The start is
    # inside the try: Ctrl-C may arrive while start() waits for the thread to begin.
    try:
        threading.Thread(target=runner, name="mcpmini-grade", daemon=True).start()
        while not finished.wait(0.2):
            pass
    except KeyboardInterrupt:
        with contextlib.suppress(RuntimeError):  # the loop may have just closed
            loop.call_soon_threadsafe(main.cancel)
        finished.wait(30)  # kernels are killed, not asked to stop, so this is quick
        raise
    if failure and not isinstance(failure[0], asyncio.CancelledError):
        raise failure[0]


#: The feedback of a row whose run was interrupted (left out when resuming).
INTERRUPTED_NOTE = Text(
    "採点されていません（実行が中断されました）", "not graded (run interrupted)"
)
_NOT_SET = Text(
    "{exercise} は課題 {name} に含まれていません", "{exercise} is not part of assignment {name}"
)
_FAILED = Text("採点器の失敗: {error}", "grader failed: {error}")
_BEST = Text(
    "{exercise} のノートブックが {n} 個あり、良い方を残しました; ",
    "{n} notebooks for {exercise}, best kept; ",
)
NOT_ISOLATED = (
    "WARNING: bubblewrap is not available, so each notebook runs WITHOUT a sandbox: "
    "a submission can read and change your files, see the other kernels and the "
    "grader, and reach the network. Install bubblewrap (Debian: apt-get install "
    "bubblewrap), or pass --require-isolation to refuse to grade without it."
)
_MERGED = re.compile(r"(\d+) notebooks for |\S+ のノートブックが (\d+) 個あり")


def read_csv(path: Path, *, keep_interrupted: bool = False) -> list[GradeRow]:
    """The rows of a grades CSV written by :func:`grade_class` (for ``resume``).

    Rows of a run that was interrupted before they were graded are left out, unless
    ``keep_interrupted``. Raises
    ``ValueError`` naming the line when the file is not such a CSV.
    """
    rows = []
    with path.open(encoding="utf-8", newline="") as fh:
        for number, cells in enumerate(csv.reader(fh), start=1):
            if number == 1:
                if tuple(cells) != COLUMNS:
                    raise ValueError(f"{path}: line 1 is not the grades header {','.join(COLUMNS)}")
                continue
            try:
                learner, assignment, exercise, notebook, score, top, penalty, late = cells[:8]
                status, feedback = cells[8:]
                if late not in ("", "late"):
                    raise ValueError(late)
                row = GradeRow(
                    uncell(learner),
                    uncell(exercise),
                    int(score),
                    int(top),
                    RowStatus(status),
                    uncell(feedback),
                    assignment=uncell(assignment),
                    notebook=uncell(notebook),
                    penalty=int(penalty),
                    late=late == "late",
                )
            except ValueError:
                raise ValueError(f"{path}: line {number} is not a grades row") from None
            stopped = (INTERRUPTED_NOTE.ja, INTERRUPTED_NOTE.en)
            interrupted = row.status is RowStatus.ERROR and row.feedback in stopped
            if keep_interrupted or not interrupted:
                rows.append(row)
    return rows


def _resumed(jobs: list[Submission], previous: list[GradeRow]) -> tuple[list[GradeRow], set[int]]:
    """The previous rows to keep and the indexes of the jobs they stand for: a learner's
    exercise is skipped when the CSV already holds a row for each of its notebooks."""
    counts: dict[tuple[str, str, str], int] = {}
    for row in previous:
        merged = _MERGED.match(row.feedback)
        key = (row.learner, row.assignment, row.exercise)
        counts[key] = counts.get(key, 0) + (
            int(merged.group(1) or merged.group(2)) if merged else 1
        )
    wanted: dict[tuple[str, str, str], list[int]] = {}
    for i, job in enumerate(jobs):
        wanted.setdefault((job.learner, job.assignment, job.exercise), []).append(i)
    done = {key for key, idx in wanted.items() if counts.get(key, 0) >= len(idx)}
    keep = [row for row in previous if (row.learner, row.assignment, row.exercise) in done]
    return keep, {i for key in done for i in wanted[key]}


def job_row(job: Submission) -> GradeRow | None:
    """The row of a job that needs no kernel (nothing handed in, a refused link), else None."""
    from ..catalogue import get_exercise

    if job.refused:
        # A link stands where the learner's notebook would (its points are missing); an
        # exercise the assignment did not set counts for nothing.
        assigned = job.refused == SYMLINK
        top = get_exercise(job.exercise).max_score if job.exercise and assigned else 0
        name = job.path.name if job.path else job.learner
        return GradeRow(
            job.learner,
            job.exercise,
            0,
            top,
            RowStatus.REFUSED,
            f"{name}: {note('symlink') if assigned else job.refused}",
        )
    if job.path is None:
        return GradeRow(
            job.learner,
            job.exercise,
            0,
            get_exercise(job.exercise).max_score,
            RowStatus.NOT_ATTEMPTED,
            str(NOTHING),
        )
    return None


def finish_row(
    job: Submission, row: GradeRow, assignments: Mapping[str, Assignment] | None = None
) -> GradeRow:
    """``row`` as the CSV holds it: the job's assignment and notebook, and the late penalty of
    the assignment's policy (a row of nothing handed in is never late)."""
    row = replace(row, assignment=job.assignment, notebook=job.notebook)
    defined = (assignments or {}).get(job.assignment)
    if job.path is None or defined is None or job.late_seconds <= 0:
        return row
    penalty = defined.penalty(row.score, row.max_score, job.late_seconds)
    return replace(row, late=True, penalty=penalty)


def failed_row(job: Submission, exc: BaseException) -> GradeRow:
    """The row of a job whose grading itself failed (a grader bug, a lost worker)."""
    why = _FAILED.format(error=f"{type(exc).__name__}: {exc}").lang()[:300]
    return GradeRow(job.learner, job.exercise, 0, 0, RowStatus.ERROR, why)


def _bar(total: int, progress: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc="grading", unit="nb", disable=not progress, file=sys.stderr)


async def _grade_locally(
    pending: list[tuple[int, Submission]],
    record: Callable[[int, GradeRow], None],
    workers: int,
    timeout: float,
) -> None:
    """Grade ``pending`` on this machine, ``workers`` notebooks at once."""
    gate = asyncio.Semaphore(workers)

    async def one(i: int, job: Submission) -> None:
        try:
            row = job_row(job)
            if row is None:
                assert job.path is not None
                async with gate:
                    row = await grade_notebook(job.path, job.learner, timeout, job.exercise)
        except Exception as exc:
            row = failed_row(job, exc)
        record(i, row)

    await asyncio.gather(*(one(i, job) for i, job in pending))


def grade_class(
    paths: Iterable[str | Path],
    out: str | Path,
    *,
    workers: int = 2,
    timeout: float = 60.0,
    progress: bool = True,
    resume: bool = False,
    require_isolation: bool = False,
    scheduler: str | None = None,
    connect_timeout: float = 10.0,
    on_row: Callable[[GradeRow], None] | None = None,
    assignments: Mapping[str, Assignment] | None = None,
    only: str | None = None,
    security: Any = None,
) -> list[GradeRow]:
    """Grade every submission under ``paths`` and write the CSV to ``out``.

    Returns the rows written. Each graded row's answer is kept beside the CSV in
    :func:`answers_path` (for feedback pages and the class summary). The CSV header is
    written before any notebook runs (so an unwritable ``out`` fails at once), each row is
    appended as its job ends, and the
    sorted table replaces it at the end — also when the run is interrupted, in which case
    unfinished jobs are rows with status ``error``. With ``resume``, the rows already in
    ``out`` are kept and their notebooks are not run again (an interrupted batch goes on).

    Each notebook runs in its own bubblewrap sandbox (see
    :mod:`mcpmini.course.classroom.execution`). Where bubblewrap is missing, :data:`NOT_ISOLATED` is
    printed to stderr and issued as a warning — or, with ``require_isolation``,
    ``RuntimeError`` is raised before anything runs.

    With ``scheduler`` (a Dask ``distributed`` scheduler's address) the notebooks are graded
    on that cluster instead (:mod:`.cluster`): each task in its own bubblewrap sandbox on its
    worker, the same rows as a local run; ``workers`` is then the cluster's own business.
    ``RuntimeError`` is raised when the scheduler cannot be reached in ``connect_timeout``
    seconds; ``security`` is the ``distributed.Security`` to connect with (see
    :func:`.cluster.check_scheduler`). ``on_row`` is called with each row as it is written.

    ``assignments`` (:mod:`.assignments`) says which exercises each assignment set, its due
    date and late policy: rows are made for exactly those exercises, and a late notebook's row
    carries its penalty; ``only`` grades one assignment. Raises ``FileNotFoundError`` for a
    missing path, :class:`SubmissionError` for submissions that cannot be told apart,
    :class:`~.cluster.SchedulerRefused` for a scheduler refused before connecting,
    ``ValueError`` for
    ``workers < 1``, ``timeout <= 0`` or an ``out`` that is not a grades CSV when resuming,
    ``OSError`` when ``out`` cannot be written.
    """
    from ...agent import bubblewrap_available

    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if timeout <= 0:
        raise ValueError(f"timeout must be positive, got {timeout}")
    if scheduler is not None:
        from .cluster import check_scheduler

        check_scheduler(scheduler, security)  # before anything is written
    jobs = find_submissions(paths, assignments, only)
    out = Path(out)
    answers = answers_path(out)
    previous = with_answers(read_csv(out), answers) if resume and out.exists() else []
    kept, skip = _resumed(jobs, previous)
    todo = [
        job.path is not None and not job.refused and i not in skip for i, job in enumerate(jobs)
    ]
    if any(todo) and scheduler is None and not bubblewrap_available():
        if require_isolation:
            raise RuntimeError("isolation required, but bubblewrap is not available here")
        print(NOT_ISOLATED, file=sys.stderr)
        warnings.warn(NOT_ISOLATED, RuntimeWarning, stacklevel=2)
    out.parent.mkdir(parents=True, exist_ok=True)
    rows: list[GradeRow | None] = [None] * len(jobs)
    with out.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(COLUMNS)
        writer.writerows(row.as_list() for row in kept)
    write_answers(kept, answers)

    bar = _bar(len(jobs) - len(skip), progress)

    def record(i: int, row: GradeRow) -> None:
        row = finish_row(jobs[i], row, assignments)
        rows[i] = row
        with out.open("a", newline="", encoding="utf-8") as fh:
            csv.writer(fh).writerow(row.as_list())
        if row.answer is not None:
            with answers.open("a", encoding="utf-8") as fh:
                fh.write(_answer_line(row))
        bar.update(1)
        if on_row is not None:
            on_row(row)

    pending = [(i, job) for i, job in enumerate(jobs) if i not in skip]
    try:
        if scheduler is not None:
            from .cluster import grade_on_dask

            grade_on_dask(
                scheduler,
                pending,
                record,
                job_row=job_row,
                failed_row=failed_row,
                warning=NOT_ISOLATED,
                timeout=timeout,
                require_isolation=require_isolation,
                connect_timeout=connect_timeout,
                security=security,
            )
        else:
            _run_in_thread(lambda: _grade_locally(pending, record, workers, timeout))
    finally:
        bar.close()
        done = [
            row
            if row is not None
            else finish_row(
                job,
                GradeRow(job.learner, job.exercise, 0, 0, RowStatus.ERROR, str(INTERRUPTED_NOTE)),
            )
            for i, (row, job) in enumerate(zip(rows, jobs))
            if i not in skip
        ]
        final = _merge(kept + done)
        write_csv(final, out)
        write_answers(final, answers)
    return final
