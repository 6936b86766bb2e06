"""Grade a whole class: run each submitted notebook in a fresh kernel and write one CSV.

How it works. :func:`find_submissions` turns the paths an instructor gives into
``(learner, exercise, notebook)`` jobs: a folder of notebooks is one learner, a folder of
folders is a class, and an exercise a learner did not hand in becomes a ``not_attempted``
row. Each notebook is read with ``nbformat`` (unreadable → ``invalid``); a first cell is
added that skips a slow optional import, and a last cell that exports the learner's answer
variable as a display bundle of type :data:`ANSWER_MIME`, tagged with a nonce drawn for
this run. ``nbclient`` runs the
notebook in a fresh kernel of the current Python, in a scratch folder, with
``MCPMINI_PROGRESS=off`` and one deadline for the whole notebook (``timeout``). The parent
process then grades the exported answer with the exercise's checker: printed text, stored
outputs and the learner's own ``check()`` calls are never read, so no output can fake a
score. Up to ``workers`` kernels run at once on one asyncio loop; a ``tqdm`` bar counts
them. Every job ends as a :class:`GradeRow`, whatever the notebook does, and the CSV is
written row by row as jobs finish and rewritten sorted at the end.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import csv
import json
import math
import os
import re
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Coroutine, Iterable, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from functools import cache
from pathlib import Path
from typing import Any

__all__ = [
    "ANSWER_MIME",
    "COLUMNS",
    "GradeRow",
    "RowStatus",
    "Submission",
    "find_submissions",
    "grade_class",
    "grade_notebook",
    "identify_exercise",
    "write_csv",
]

ANSWER_MIME = "application/vnd.mcpmini.answer+json"
COLUMNS = ("learner", "exercise", "score", "max_score", "status", "feedback")
MAX_NOTEBOOK_BYTES = 20_000_000
_KERNEL = "mcpmini-current-env"
_NAME = re.compile(r"^9[_.]([1-4])(?:\D|$)")


class RowStatus(str, Enum):
    """How a learner's exercise ended in the batch."""

    GRADED = "graded"
    NOT_ATTEMPTED = "not_attempted"
    ERROR = "error"
    TIMEOUT = "timeout"
    INVALID = "invalid"


@dataclass(frozen=True)
class GradeRow:
    """One CSV row."""

    learner: str
    exercise: str
    score: int
    max_score: int
    status: RowStatus
    feedback: str

    def as_list(self) -> list[Any]:
        """The CSV cells. Text a learner controls (folder names, file names, exception
        messages) that a spreadsheet would run as a formula gets a leading quote."""
        return [_cell(self.learner), self.exercise, self.score, self.max_score,
                self.status.value, _cell(self.feedback)]


def _cell(text: str) -> str:
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


@dataclass(frozen=True)
class Submission:
    """A job: ``path`` is ``None`` when the learner handed nothing in for ``exercise``."""

    learner: str
    exercise: str
    path: Path | None


def identify_exercise(path: Path, nb: Any | None = None) -> str:
    """The exercise id of a notebook: ``metadata.mcpmini.exercise``, else the file name
    (``9_1_….ipynb`` → ``"9.1"``); ``""`` when neither says."""
    from .exercises import EXERCISE_IDS

    meta = (nb or {}).get("metadata", {}).get("mcpmini", {}) if isinstance(nb, dict) else {}
    claimed = meta.get("exercise") if isinstance(meta, dict) else None
    if claimed in EXERCISE_IDS:
        return str(claimed)
    match = _NAME.match(path.name)
    return f"9.{match.group(1)}" if match else ""


def _peek(path: Path) -> str:
    """The exercise of a file without running or validating it (metadata, else name)."""
    try:
        if path.stat().st_size <= MAX_NOTEBOOK_BYTES:
            data = json.loads(path.read_text(encoding="utf-8"))
            return identify_exercise(path, data if isinstance(data, dict) else None)
    except (OSError, ValueError):
        pass
    return identify_exercise(path)


def _notebooks(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.ipynb") if p.is_file())


def find_submissions(paths: Iterable[str | Path]) -> list[Submission]:
    """Turn notebooks, learner folders and class folders into jobs.

    A file is one submission of the learner named by its folder. A folder holding
    notebooks is one learner; a folder holding only folders is a class (each sub-folder
    a learner, empty ones included). Each learner folder gets a ``path=None`` job for
    every exercise it lacks. Raises ``FileNotFoundError`` for a path that does not exist.
    """
    from .exercises import EXERCISE_IDS

    jobs: list[Submission] = []
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            jobs.append(Submission(path.resolve().parent.name, _peek(path), path))
            continue
        if not path.is_dir():
            raise FileNotFoundError(f"no such file or folder: {path}")
        subdirs = sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith("."))
        learners = [path] if _notebooks(path) or not subdirs else subdirs
        for folder in learners:
            found = [Submission(folder.name, _peek(nb), nb) for nb in _notebooks(folder)]
            have = {job.exercise for job in found}
            jobs += found
            jobs += [Submission(folder.name, ex, None) for ex in EXERCISE_IDS if ex not in have]
    return jobs


_EXPORT = """\
def _mcpmini_export(name={variable!r}, nonce={nonce!r}):
    import enum, json
    from IPython.display import display
    def plain(x, depth=0):
        if depth > 32:
            return {{"__unreadable__": "nested too deep"}}
        if isinstance(x, enum.Enum):
            x = x.value
        if x is None or isinstance(x, (bool, int, float, str)):
            return x
        if x is Ellipsis:
            return None
        if isinstance(x, dict):
            return {{str(k): plain(v, depth + 1) for k, v in x.items()}}
        if isinstance(x, (list, tuple, set, frozenset)):
            return [plain(v, depth + 1) for v in x]
        return {{"__unreadable__": type(x).__name__}}
    found = name in globals()
    display({{{mime!r}: {{"nonce": nonce, "found": found,
              "answer": plain(globals()[name]) if found else None}}}}, raw=True)
_mcpmini_export()
"""


# jsonschema imports rfc3987_syntax (installed with Jupyter) only to check "iri" formats,
# and that import compiles a grammar for seconds; the grading kernel goes without it.
_PREAMBLE = """\
import sys
sys.modules.setdefault("rfc3987_syntax", None)
del sys
"""


def _code_cell(source: str) -> Any:
    import nbformat

    return nbformat.v4.new_code_cell(source)


@cache
def _kernel_manager_class() -> type:
    import ipykernel.kernelspec
    from jupyter_client import AsyncKernelManager
    from jupyter_client.kernelspec import KernelSpecManager

    class CurrentEnvSpecs(KernelSpecManager):  # the Python running the grader, never a registered one
        def get_kernel_spec(self, kernel_name: str) -> Any:
            if kernel_name == _KERNEL:
                return self.kernel_spec_class(resource_dir=ipykernel.kernelspec.RESOURCES,
                                              **ipykernel.kernelspec.get_kernel_dict())
            return super().get_kernel_spec(kernel_name)

    class CurrentEnvKernelManager(AsyncKernelManager):
        def __init__(self, **kw: Any) -> None:
            kw["kernel_spec_manager"] = CurrentEnvSpecs()
            super().__init__(**kw)

    return CurrentEnvKernelManager


def _read(path: Path) -> tuple[Any | None, str]:
    """The notebook, or ``None`` and why it is invalid."""
    import nbformat

    try:
        size = path.stat().st_size
        if size == 0:
            return None, "empty file"
        if size > MAX_NOTEBOOK_BYTES:
            return None, f"file too large ({size} bytes)"
        text = path.read_text(encoding="utf-8")
        nb = nbformat.reads(text, as_version=4)
        nbformat.validate(nb)
    except UnicodeDecodeError:
        return None, "not a notebook (not UTF-8 text)"
    except nbformat.reader.NotJSONError:
        return None, "not a notebook (not JSON)"
    except nbformat.ValidationError as exc:
        return None, f"not a valid notebook ({exc.message[:120]})"
    except Exception as exc:  # noqa: BLE001 - nbformat raises assorted errors for odd JSON
        return None, f"not a notebook ({type(exc).__name__})"
    return nb, ""


def _first_error(cells: Sequence[Any]) -> str:
    for index, cell in enumerate(cells):
        for out in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            if out.get("output_type") == "error":
                return f"cell {index + 1} raised {out.get('ename')}: {str(out.get('evalue'))[:100]}"
    return ""


async def _kill(client: Any) -> None:
    """Shut a client's kernel down at once if it is still running (never raises)."""
    km = getattr(client, "km", None)
    with contextlib.suppress(Exception):
        if km is not None and await km.is_alive():
            await km.shutdown_kernel(now=True)


async def grade_notebook(path: Path, learner: str, timeout: float = 60.0,
                         exercise: str = "") -> GradeRow:
    """Run one notebook in a fresh kernel and grade its exported answer; never raises.

    ``timeout`` bounds the execution of the whole notebook (kernel start excluded).
    """
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    from .exercises import get_exercise

    nb, why = await asyncio.to_thread(_read, path)
    exercise = identify_exercise(path, nb) if nb is not None else exercise
    if not exercise:
        return GradeRow(learner, "", 0, 0, RowStatus.INVALID,
                        f"{path.name}: {why or 'cannot tell which exercise this is'}")
    ex = get_exercise(exercise)
    row = GradeRow(learner, exercise, 0, ex.max_score, RowStatus.INVALID, f"{path.name}: {why}")
    if nb is None:
        return row
    cells = list(nb.cells)
    nonce = secrets.token_hex(16)
    nb.cells = [_code_cell(_PREAMBLE), *cells, _code_cell(_EXPORT.format(
        variable=ex.variable, nonce=nonce, mime=ANSWER_MIME))]
    position = {id(cell): i for i, cell in enumerate(nb.cells)}  # learner cells are 1..n
    started: list[float] = []
    current = [0]

    def remaining(cell: Any) -> int:
        if not started:
            started.append(time.monotonic())
        current[0] = position.get(id(cell), current[0])
        return max(1, math.ceil(timeout - (time.monotonic() - started[0])))

    def where() -> str:
        return f" in cell {current[0]}" if 1 <= current[0] <= len(cells) else ""

    env = dict(os.environ, MCPMINI_PROGRESS="off", MPLBACKEND="Agg")
    with tempfile.TemporaryDirectory(prefix="mcpmini-grade-") as scratch:
        client = NotebookClient(
            nb, kernel_name=_KERNEL, kernel_manager_class=_kernel_manager_class(),
            timeout_func=remaining, allow_errors=True, shutdown_kernel="immediate",
            startup_timeout=60, resources={"metadata": {"path": scratch}})
        try:
            await asyncio.wait_for(client.async_execute(
                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL), timeout + 90)
        except asyncio.CancelledError:  # the batch was interrupted: kill this kernel too
            await _kill(client)
            raise
        except (TimeoutError, CellTimeoutError):
            await _kill(client)
            return replace(row, status=RowStatus.TIMEOUT,
                           feedback=f"{path.name}: timed out after {timeout:g} s{where()}")
        except DeadKernelError:
            return replace(row, status=RowStatus.ERROR,
                           feedback=f"{path.name}: the kernel died{where()}")
        except Exception as exc:  # noqa: BLE001 - a kernel that cannot start, and the like
            await _kill(client)
            return replace(row, status=RowStatus.ERROR,
                           feedback=f"{path.name}: could not run ({type(exc).__name__}: {exc})"[:300])
        finally:
            atexit.unregister(client._cleanup_kernel)  # nbclient's hook; we clean up here
    exported = [out["data"][ANSWER_MIME] for out in nb.cells[-1].get("outputs", [])
                if out.get("output_type") == "display_data" and ANSWER_MIME in out.get("data", {})]
    exported = [e for e in exported if isinstance(e, dict) and e.get("nonce") == nonce]
    crash = _first_error(cells)
    if not exported:
        return replace(row, status=RowStatus.ERROR,
                       feedback=f"{path.name}: answers could not be read" + (f"; {crash}" if crash else ""))
    answer = exported[-1].get("answer") if exported[-1].get("found") else None
    report = ex.grade(answer)
    if crash:
        status = RowStatus.ERROR
    elif report.status.value == "not_attempted":
        status = RowStatus.NOT_ATTEMPTED
    else:
        status = RowStatus.GRADED
    detail = "no part answered" if status is RowStatus.NOT_ATTEMPTED else report.feedback()
    notes = "; ".join(bit for bit in (crash, detail, *report.notes) if bit)
    if not exported[-1].get("found"):
        notes = f"no variable {ex.variable!r} in the notebook" + (f"; {notes}" if notes else "")
    return GradeRow(learner, exercise, report.score, report.max_score, status, notes)


def write_csv(rows: Iterable[GradeRow], out: Path) -> None:
    """Write ``rows`` (with the :data:`COLUMNS` header) atomically to ``out``."""
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    with tmp.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(COLUMNS)
        writer.writerows(row.as_list() for row in rows)
    os.replace(tmp, out)


_RANK = {RowStatus.GRADED: 4, RowStatus.ERROR: 3, RowStatus.NOT_ATTEMPTED: 2,
         RowStatus.TIMEOUT: 1, RowStatus.INVALID: 0}


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
        best = replace(best, feedback=f"{len(group)} notebooks for {exercise}, best kept; "
                                      + best.feedback)
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
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
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


def grade_class(paths: Iterable[str | Path], out: str | Path, *, workers: int = 2,
                timeout: float = 60.0, progress: bool = True) -> list[GradeRow]:
    """Grade every submission under ``paths`` and write the CSV to ``out``.

    Returns the rows written. The CSV header is written before any notebook runs (so an
    unwritable ``out`` fails at once), each row is appended as its job ends, and the
    sorted table replaces it at the end — also when the run is interrupted, in which case
    unfinished jobs are rows with status ``error``. Raises ``FileNotFoundError`` for a
    missing path, ``ValueError`` for ``workers < 1`` or ``timeout <= 0``, ``OSError``
    when ``out`` cannot be written.
    """
    from .exercises import get_exercise

    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if timeout <= 0:
        raise ValueError(f"timeout must be positive, got {timeout}")
    jobs = find_submissions(paths)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    rows: list[GradeRow | None] = [None] * len(jobs)
    with out.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerow(COLUMNS)

    def missing(job: Submission) -> GradeRow:
        return GradeRow(job.learner, job.exercise, 0, get_exercise(job.exercise).max_score,
                        RowStatus.NOT_ATTEMPTED, "nothing handed in")

    async def run_all() -> None:
        from tqdm import tqdm

        gate = asyncio.Semaphore(workers)
        bar = tqdm(total=len(jobs), desc="grading", unit="nb", disable=not progress,
                   file=sys.stderr)

        async def one(i: int, job: Submission) -> None:
            try:
                if job.path is None:
                    rows[i] = missing(job)
                else:
                    async with gate:
                        rows[i] = await grade_notebook(job.path, job.learner, timeout, job.exercise)
            except Exception as exc:  # noqa: BLE001 - a bug of ours must not lose other rows
                rows[i] = GradeRow(job.learner, job.exercise, 0, 0, RowStatus.ERROR,
                                   f"grader failed: {type(exc).__name__}: {exc}"[:300])
            with out.open("a", newline="", encoding="utf-8") as fh:  # noqa: ASYNC230 - one short line
                csv.writer(fh).writerow(rows[i].as_list())  # type: ignore[union-attr]
            bar.update(1)

        try:
            await asyncio.gather(*(one(i, job) for i, job in enumerate(jobs)))
        finally:
            bar.close()

    try:
        _run_in_thread(run_all)
    finally:
        done = [row if row is not None else GradeRow(
            job.learner, job.exercise, 0, 0, RowStatus.ERROR, "not graded (run interrupted)")
            for row, job in zip(rows, jobs)]
        final = _merge(done)
        write_csv(final, out)
    return final
