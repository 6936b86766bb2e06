"""Grade a whole class: every submitted notebook becomes one CSV row.

:func:`find_submissions` turns the paths an instructor gives into
``(learner, exercise, notebook)`` jobs: a folder of notebooks is one learner, a folder of
folders is a class, and an exercise a learner did not hand in becomes a ``not_attempted``
row. :func:`grade_class` runs the jobs through
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
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .execution import (
    SYMLINK,
    GradeRow,
    RowStatus,
    grade_notebook,
    identify_exercise,
    read_submission,
)
from .spreadsheet import uncell

__all__ = [
    "COLUMNS",
    "GradeRow",
    "RowStatus",
    "Submission",
    "answers_path",
    "failed_row",
    "find_submissions",
    "grade_class",
    "grade_notebook",
    "identify_exercise",
    "job_row",
    "read_csv",
    "read_grades",
    "write_csv",
]

COLUMNS = ("learner", "exercise", "score", "max_score", "status", "feedback")


@dataclass(frozen=True)
class Submission:
    """A job: ``path`` is ``None`` when the learner handed nothing in for ``exercise``;
    ``refused`` says why ``path`` is not graded (a symbolic link), ``""`` when it is."""

    learner: str
    exercise: str
    path: Path | None
    refused: str = ""


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


def _assignments(folder: Path) -> list[Path]:
    """nbgrader's ``<learner>/<assignment>/`` folders of a learner folder (links included,
    to be refused)."""
    return sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))


def _job(learner: str, path: Path) -> Submission:
    if path.is_symlink():
        return Submission(learner, identify_exercise(path), path, SYMLINK)
    return Submission(learner, _peek(path), path)


def _learner_jobs(folder: Path) -> list[Submission]:
    """A learner folder's jobs, with a ``path=None`` job for each exercise it lacks; a
    folder that is a symbolic link is one refused job (and nothing handed in)."""
    from ..catalogue import EXERCISE_IDS, PRACTICE_IDS

    if folder.is_symlink():
        found = [Submission(folder.name, "", folder, SYMLINK)]
    else:
        found = [_job(folder.name, nb) for nb in _notebooks(folder)]
        for assignment in _assignments(folder):
            if assignment.is_symlink():
                found.append(Submission(folder.name, "", assignment, SYMLINK))
            else:
                found += [_job(folder.name, nb) for nb in _notebooks(assignment)]
    have = {job.exercise for job in found}
    expected = EXERCISE_IDS + (PRACTICE_IDS if have & set(PRACTICE_IDS) else ())
    return found + [Submission(folder.name, ex, None) for ex in expected if ex not in have]


def find_submissions(paths: Iterable[str | Path]) -> list[Submission]:
    """Turn notebooks, learner folders and class folders into jobs.

    A file is one submission of the learner named by its folder. A folder holding
    notebooks is one learner; a folder holding only folders is a class (each sub-folder
    a learner, empty ones included). nbgrader's layout is read as it is: a learner folder's
    notebooks may sit one level down (``submitted/<learner>/<assignment>/*.ipynb``), and a
    course folder holding ``submitted/`` stands for it. Each learner folder gets a
    ``path=None`` job for every exercise of the article it lacks, and of the practice track
    when it handed in at least one practice notebook. Symbolic links inside are refused,
    never followed: a linked notebook or learner folder is a job with ``refused`` set (a
    link to another learner's notebook is not graded as this learner's). Raises
    ``FileNotFoundError`` for a path that does not exist.
    """
    jobs: list[Submission] = []
    for raw in paths:
        path = Path(raw)
        if (path.is_symlink() and not path.is_dir()) or path.is_file():
            jobs.append(_job(Path(os.path.abspath(path)).parent.name, path))
            continue
        if not path.is_dir():
            raise FileNotFoundError(f"no such file or folder: {path}")
        if not _notebooks(path) and (path / "submitted").is_dir():
            path = path / "submitted"  # an nbgrader course folder
        subdirs = _assignments(path)
        learners = [path] if _notebooks(path) or not subdirs else subdirs
        for folder in learners:
            jobs += _learner_jobs(folder)
    return jobs


def answers_path(out: Path) -> Path:
    """The answers file kept beside the grades CSV ``out`` (``grades.csv`` →
    ``grades.answers.jsonl``): each graded row's answer, for feedback and the class summary."""
    return out.with_name(f"{out.stem}.answers.jsonl")


def _answer_line(row: GradeRow) -> str:
    key = [row.learner, row.exercise, row.score, row.status.value, row.feedback]
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
    key = lambda r: (r.learner, r.exercise, r.score, r.status.value, r.feedback)  # noqa: E731
    return [replace(r, answer=found.get(key(r))) for r in rows]


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
    """One row per (learner, exercise): the best of duplicates, which are named in feedback."""
    groups: dict[tuple[str, str], list[GradeRow]] = {}
    for row in rows:
        groups.setdefault((row.learner, row.exercise), []).append(row)
    merged = []
    for (_, exercise), group in groups.items():
        if not exercise or len(group) == 1:
            merged.extend(group)
            continue
        best = max(group, key=lambda r: (r.score, _RANK[r.status]))
        best = replace(
            best, feedback=f"{len(group)} notebooks for {exercise}, best kept; " + best.feedback
        )
        merged.append(best)
    return sorted(merged, key=lambda r: (r.learner, r.exercise, r.feedback))


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


INTERRUPTED = "not graded (run interrupted)"
NOT_ISOLATED = (
    "WARNING: bubblewrap is not available, so each notebook runs WITHOUT a sandbox: "
    "a submission can read and change your files, see the other kernels and the "
    "grader, and reach the network. Install bubblewrap (Debian: apt-get install "
    "bubblewrap), or pass --require-isolation to refuse to grade without it."
)
_MERGED = re.compile(r"^(\d+) notebooks for ")


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
                learner, exercise, score, max_score, status, feedback = cells
                row = GradeRow(
                    uncell(learner),
                    exercise,
                    int(score),
                    int(max_score),
                    RowStatus(status),
                    uncell(feedback),
                )
            except ValueError:
                raise ValueError(f"{path}: line {number} is not a grades row") from None
            interrupted = row.status is RowStatus.ERROR and row.feedback == INTERRUPTED
            if keep_interrupted or not interrupted:
                rows.append(row)
    return rows


def _resumed(jobs: list[Submission], previous: list[GradeRow]) -> tuple[list[GradeRow], set[int]]:
    """The previous rows to keep and the indexes of the jobs they stand for: a learner's
    exercise is skipped when the CSV already holds a row for each of its notebooks."""
    counts: dict[tuple[str, str], int] = {}
    for row in previous:
        merged = _MERGED.match(row.feedback)
        key = (row.learner, row.exercise)
        counts[key] = counts.get(key, 0) + (int(merged.group(1)) if merged else 1)
    wanted: dict[tuple[str, str], list[int]] = {}
    for i, job in enumerate(jobs):
        wanted.setdefault((job.learner, job.exercise), []).append(i)
    done = {key for key, idx in wanted.items() if counts.get(key, 0) >= len(idx)}
    keep = [row for row in previous if (row.learner, row.exercise) in done]
    return keep, {i for key in done for i in wanted[key]}


def job_row(job: Submission) -> GradeRow | None:
    """The row of a job that needs no kernel (nothing handed in, a refused link), else None."""
    from ..catalogue import get_exercise

    if job.refused:
        top = get_exercise(job.exercise).max_score if job.exercise else 0
        name = job.path.name if job.path else job.learner
        return GradeRow(
            job.learner, job.exercise, 0, top, RowStatus.REFUSED, f"{name}: {job.refused}"
        )
    if job.path is None:
        return GradeRow(
            job.learner,
            job.exercise,
            0,
            get_exercise(job.exercise).max_score,
            RowStatus.NOT_ATTEMPTED,
            "nothing handed in",
        )
    return None


def failed_row(job: Submission, exc: BaseException) -> GradeRow:
    """The row of a job whose grading itself failed (a grader bug, a lost worker)."""
    why = f"grader failed: {type(exc).__name__}: {exc}"[:300]
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
    seconds. ``on_row`` is called with each row as it is written. Raises ``FileNotFoundError`` for a
    missing path, ``ValueError`` for ``workers < 1``, ``timeout <= 0`` or an ``out`` that
    is not a grades CSV when resuming, ``OSError`` when ``out`` cannot be written.
    """
    from ...agent import bubblewrap_available

    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if timeout <= 0:
        raise ValueError(f"timeout must be positive, got {timeout}")
    jobs = find_submissions(paths)
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
            )
        else:
            _run_in_thread(lambda: _grade_locally(pending, record, workers, timeout))
    finally:
        bar.close()
        done = [
            row
            if row is not None
            else GradeRow(job.learner, job.exercise, 0, 0, RowStatus.ERROR, INTERRUPTED)
            for i, (row, job) in enumerate(zip(rows, jobs))
            if i not in skip
        ]
        final = _merge(kept + done)
        write_csv(final, out)
        write_answers(final, answers)
    return final
