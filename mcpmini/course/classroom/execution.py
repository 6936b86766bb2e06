"""Run one submitted notebook in a fresh, sandboxed kernel and grade what it answered.

:func:`grade_notebook` reads the file with ``nbformat`` (unreadable → ``invalid``) and
copies it, alone, into a scratch folder. A notebook runner (:mod:`.runner`, started by
path as a fresh interpreter through :mod:`mcpmini.process`) then runs
it there with ``nbclient`` in a fresh kernel of the current Python, with one deadline for
the whole notebook. Where bubblewrap works, the runner and its kernel live in their own
sandbox (:func:`mcpmini.agent.confine`): new user, PID, network, IPC and mount
namespaces, a clean environment, the system read-only, and of the grader's files only the
Python environment and this package — no class folder, no CSV, no other kernel, and no
process outside the sandbox to look at or to kill; nothing it starts survives it.

The answer is read through a channel that output cannot forge: after the last cell the
runner sends one more ``execute_request`` that stores the learner's answer variable,
serialised, under a random name drawn for this run, and reads it back from
the kernel's ``user_expressions`` reply — never from displayed outputs, so replacing
``IPython.display.display`` changes nothing. The runner (which makes itself
non-dumpable, so the kernel cannot read its memory or its pipes) writes one JSON line
carrying the nonce it received on stdin; the grader ignores every line without it. The
answer is then graded here, in the grader's process, by the exercise's checker.
Whatever the notebook does (raise, hang, kill its kernel or the runner), the result is
one :class:`GradeRow`.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import re
import secrets
import stat
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from ..language import Text

__all__ = ["NOTES", "GradeRow", "RowStatus", "grade_notebook", "identify_exercise", "note"]

#: Every note the grader writes into a row's feedback, in both languages (the CSV and the
#: feedback pages are in the language :func:`~mcpmini.course.language.current` gives).
NOTES: dict[str, Text] = {
    "symlink": Text(
        "シンボリックリンクなので採点しません（採点するのは受講者自身のファイルだけです）",
        "a symbolic link, not graded (only the learner's own files are)",
    ),
    "which": Text("どの演習か分かりません", "cannot tell which exercise this is"),
    "empty": Text("空のファイル", "empty file"),
    "not_utf8": Text(
        "ノートブックではありません（UTF-8 のテキストでない）", "not a notebook (not UTF-8 text)"
    ),
    "not_json": Text("ノートブックではありません（JSON でない）", "not a notebook (not JSON)"),
    "not_valid": Text("正しいノートブックではありません（{why}）", "not a valid notebook ({why})"),
    "too_large": Text("ファイルが大きすぎます（{size} バイト）", "file too large ({size} bytes)"),
    "unreadable": Text("読めません（{why}）", "unreadable ({why})"),
    "not_notebook": Text("ノートブックではありません（{why}）", "not a notebook ({why})"),
    "no_start": Text("実行を始められませんでした（{why}）", "could not start the runner ({why})"),
    "timed_out": Text("{timeout:g} 秒で時間切れ{where}", "timed out after {timeout:g} s{where}"),
    "in_cell": Text("（セル {cell}）", " in cell {cell}"),
    "runner_crashed": Text(
        "実行が異常終了しました（終了コード {code}）",
        "the notebook runner crashed (exit code {code})",
    ),
    "kernel_died": Text("カーネルが停止しました{where}", "the kernel died{where}"),
    "could_not_run": Text("実行できませんでした（{why}）", "could not run ({why})"),
    "unread": Text("答えを読み取れませんでした", "answers could not be read"),
    "raised": Text("セル {cell} で {ename}: {evalue}", "cell {cell} raised {ename}: {evalue}"),
    "not_attempted": Text("どの設問にも答えていません", "no part answered"),
    "no_variable": Text(
        "ノートブックに変数 {variable!r} がありません", "no variable {variable!r} in the notebook"
    ),
}


def note(name: str, **fields: Any) -> str:
    """The note ``name`` of :data:`NOTES` in the current language, formatted."""
    return NOTES[name].lang().format(**fields)


MAX_NOTEBOOK_BYTES = 20_000_000
#: The ``mcpmini`` package (``mcpmini/course/classroom/`` is two levels below it), the one
#: folder of the grader the sandboxed runner may read.
_PACKAGE_DIR = Path(__file__).resolve().parents[2]
_NAME = re.compile(r"^([9PC])[_.]([1-9])(?:\D|$)")


class RowStatus(StrEnum):
    """How a learner's exercise ended in the batch."""

    GRADED = "graded"
    NOT_ATTEMPTED = "not_attempted"
    ERROR = "error"
    TIMEOUT = "timeout"
    INVALID = "invalid"
    REFUSED = "refused"  # a symbolic link: never read, never graded as the learner's


@dataclass(frozen=True)
class GradeRow:
    """One CSV row: a learner's exercise in one assignment.

    ``score`` is what the checker gave, ``penalty`` what lateness takes from it
    (:meth:`points` is the rest), ``late`` whether the notebook came in after the due date.
    ``notebook`` is the submitted file's name without ``.ipynb`` (nbgrader's notebook id; the
    exercise's own notebook name for a row of nothing handed in). ``answer`` is the learner's
    answer as the runner read it back (plain JSON values; ``None`` when none was read); it is
    not a CSV cell and not compared."""

    learner: str
    exercise: str
    score: int
    max_score: int
    status: RowStatus
    feedback: str
    answer: Any = field(default=None, compare=False, repr=False)
    assignment: str = ""
    notebook: str = ""
    penalty: int = 0
    late: bool = False

    @property
    def points(self) -> int:
        """The points that count: ``score`` less the late ``penalty``."""
        return max(0, self.score - self.penalty)

    def as_list(self) -> list[Any]:
        """The CSV cells, in the order of :data:`.batch.COLUMNS`. Every text cell goes through
        :func:`.spreadsheet.cell`: text a learner controls (folder names, file names,
        exception messages) that a spreadsheet would run as a formula gets a leading quote."""
        from .spreadsheet import cells

        return cells(
            [
                self.learner,
                self.assignment,
                self.exercise,
                self.notebook,
                self.score,
                self.max_score,
                self.penalty,
                "late" if self.late else "",
                self.status.value,
                self.feedback,
            ]
        )


def identify_exercise(path: Path, nb: Any | None = None) -> str:
    """The exercise id of a notebook: ``metadata.mcpmini.exercise``, else the file name
    (``9_1_….ipynb`` → ``"9.1"``, ``P_2_….ipynb`` → ``"P.2"``, ``C_1_….ipynb`` → ``"C.1"``);
    ``""`` when neither names an exercise of the catalogue."""
    from ..catalogue import ALL_IDS

    meta = (nb or {}).get("metadata", {}).get("mcpmini", {}) if isinstance(nb, dict) else {}
    claimed = meta.get("exercise") if isinstance(meta, dict) else None
    if claimed in ALL_IDS:
        return str(claimed)
    match = _NAME.match(path.name)
    named = f"{match.group(1)}.{match.group(2)}" if match else ""
    return named if named in ALL_IDS else ""


#: Why a linked submission is not graded, in the current language.
SYMLINK_NOTE = NOTES["symlink"]
#: The code of a job refused for being a link (see :class:`.batch.Submission`).
SYMLINK = "symlink"


class SymlinkRefused(OSError):
    """A submission that is a symbolic link (:data:`SYMLINK`)."""


def read_submission(path: Path) -> bytes:
    """The bytes of ``path``, opened with ``O_NOFOLLOW`` (as the file tools do).

    Raises ``IsADirectoryError``/``OSError`` as ``open`` does, ``SymlinkRefused`` when the
    file is a symbolic link, ``ValueError`` naming the size when it is larger than
    :data:`MAX_NOTEBOOK_BYTES`.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SymlinkRefused(str(path)) from None
        raise
    with os.fdopen(fd, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        if size > MAX_NOTEBOOK_BYTES:
            raise ValueError(note("too_large", size=size))
        return fh.read(MAX_NOTEBOOK_BYTES + 1)


def _read(path: Path) -> tuple[Any | None, str, bytes]:
    """The notebook, why it is invalid (``""`` when valid) and its bytes.

    Raises ``SymlinkRefused`` for a symbolic link.
    """
    import nbformat

    raw = b""
    try:
        raw = read_submission(path)
        if not raw:
            return None, note("empty"), raw
        nb = nbformat.reads(raw.decode("utf-8"), as_version=4)
        nbformat.validate(nb)
    except SymlinkRefused:
        raise
    except UnicodeDecodeError:
        return None, note("not_utf8"), raw
    except nbformat.reader.NotJSONError:
        return None, note("not_json"), raw
    except nbformat.ValidationError as exc:
        return None, note("not_valid", why=exc.message[:120]), raw
    except ValueError as exc:
        return None, str(exc), raw
    except OSError as exc:
        return None, note("unreadable", why=exc.strerror or type(exc).__name__), raw
    except Exception as exc:
        return None, note("not_notebook", why=type(exc).__name__), raw
    return nb, "", raw


#: The runner, started by path so that it imports none of the course (see :mod:`.runner`).
_RUNNER = Path(__file__).with_name("runner.py")
_RESULT_CAP = 4_000_000
_STARTUP = 90.0  # seconds allowed, on top of ``timeout``, for the runner and kernel to start


def _sandbox_env(scratch: str) -> dict[str, str]:
    """The runner's whole environment: nothing of the grader's but ``PATH``; the home and
    every Jupyter, IPython and matplotlib folder inside the scratch folder."""
    home = os.path.join(scratch, ".home")
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "HOME": home,
        "JUPYTER_RUNTIME_DIR": os.path.join(home, "runtime"),
        "IPYTHONDIR": os.path.join(home, "ipython"),
        "MPLCONFIGDIR": os.path.join(home, "matplotlib"),
        "MPLBACKEND": "Agg",
        "MCPMINI_PROGRESS": "off",
        "PYTHONIOENCODING": "utf-8",
    }


def _collect(proc: Any, request: bytes, deadline: float, nonce: str) -> tuple[bytes, bool]:
    """Send the request, read the runner's stdout until EOF, the end of the first line
    carrying ``nonce`` (the runner's result: what comes after it is not read) or
    ``deadline``; ``(data, timed_out)``. Runs in a worker thread."""
    try:
        proc.write(request, deadline)
    except OSError:
        pass
    proc.close_stdin()
    data = bytearray()
    mark = nonce.encode()
    try:
        while chunk := proc.read(deadline):
            if len(data) < _RESULT_CAP:
                data += chunk[: _RESULT_CAP - len(data)]
            if mark in data and _result_line(bytes(data), nonce):
                break
    except TimeoutError:
        return bytes(data), True
    except (OSError, ValueError):
        pass
    return bytes(data), False


def _result_line(data: bytes, nonce: str) -> dict[str, Any] | None:
    """The last complete line of ``data`` that is a JSON object carrying ``nonce``."""
    import json

    found = None
    for line in data.split(b"\n")[:-1]:  # a line is complete once its newline came
        with contextlib.suppress(ValueError):
            item = json.loads(line)
            if isinstance(item, dict) and item.get("nonce") == nonce:
                found = item
    return found


def _isolation() -> bool:
    from ...agent import bubblewrap_available

    return bubblewrap_available()


async def grade_notebook(
    path: Path, learner: str, timeout: float = 60.0, exercise: str = "", *, isolate: bool = True
) -> GradeRow:
    """Run one notebook in a fresh kernel and grade its answer; never raises.

    ``timeout`` bounds the execution of the whole notebook (kernel start excluded). With
    ``isolate`` (the default) the runner and kernel are sandboxed where bubblewrap works;
    without bubblewrap they run as a plain subprocess with a clean environment (see
    :func:`~mcpmini.course.classroom.batch.grade_class` for the warning and ``require_isolation``).
    """
    import json

    from ...agent import confine
    from ...process import Process
    from ..catalogue import get_exercise

    try:
        nb, why, raw = await asyncio.to_thread(_read, path)
    except SymlinkRefused:
        exercise = identify_exercise(path) or exercise
        max_score = get_exercise(exercise).max_score if exercise else 0
        return GradeRow(
            learner, exercise, 0, max_score, RowStatus.REFUSED, f"{path.name}: {note('symlink')}"
        )
    exercise = identify_exercise(path, nb) if nb is not None else exercise
    if not exercise:
        return GradeRow(
            learner,
            "",
            0,
            0,
            RowStatus.INVALID,
            f"{path.name}: {why or note('which')}",
        )
    ex = get_exercise(exercise)
    row = GradeRow(learner, exercise, 0, ex.max_score, RowStatus.INVALID, f"{path.name}: {why}")
    if nb is None:
        return row
    nonce = secrets.token_hex(16)
    with tempfile.TemporaryDirectory(prefix="mcpmini-grade-") as scratch:
        copy = Path(scratch) / "submission.ipynb"
        copy.write_bytes(raw)
        (Path(scratch) / ".home").mkdir()
        inner = [sys.executable, "-I", str(_RUNNER)]
        argv = (
            confine(inner, scratch, read_only=[_PACKAGE_DIR]) if isolate and _isolation() else inner
        )
        request = (
            json.dumps(
                {"nonce": nonce, "notebook": str(copy), "timeout": timeout, "variable": ex.variable}
            ).encode()
            + b"\n"
        )
        try:
            proc = Process(
                argv, env=_sandbox_env(scratch), cwd=scratch, stderr=False, new_session=True
            )
        except OSError as exc:
            return replace(
                row,
                status=RowStatus.ERROR,
                feedback=f"{path.name}: {note('no_start', why=exc)}"[:300],
            )
        try:
            data, hung = await asyncio.to_thread(
                _collect, proc, request, time.monotonic() + timeout + _STARTUP, nonce
            )
        except asyncio.CancelledError:  # the batch was interrupted: end this run at once
            proc.terminate(0.0)
            raise
        finally:
            await asyncio.to_thread(proc.close, 0.0)
    result = _result_line(data + b"\n", nonce)
    if hung:
        return replace(
            row,
            status=RowStatus.TIMEOUT,
            feedback=f"{path.name}: {note('timed_out', timeout=timeout, where='')}",
        )
    if result is None:
        return replace(
            row,
            status=RowStatus.ERROR,
            feedback=f"{path.name}: {note('runner_crashed', code=proc.returncode)}",
        )
    return _graded_row(row, result, ex, len(nb.cells), path.name, timeout)


def _crash(value: Any) -> str:
    """The runner's first error (``{"cell", "ename", "evalue"}``) as a note, ``""`` for none."""
    if not isinstance(value, dict):
        return ""
    return note(
        "raised",
        cell=value.get("cell"),
        ename=str(value.get("ename")),
        evalue=str(value.get("evalue"))[:100],
    )


def _graded_row(
    row: GradeRow, result: dict[str, Any], ex: Any, cells: int, name: str, timeout: float
) -> GradeRow:
    """The row for the runner's last ``result`` on a notebook of ``cells`` cells."""
    cell = int(result.get("cell") or 0)
    where = note("in_cell", cell=cell) if 1 <= cell <= cells else ""
    crash = _crash(result.get("crash"))
    if result["status"] == "timeout":
        return replace(
            row,
            status=RowStatus.TIMEOUT,
            feedback=f"{name}: {note('timed_out', timeout=timeout, where=where)}",
        )
    if result["status"] == "dead":
        return replace(
            row, status=RowStatus.ERROR, feedback=f"{name}: {note('kernel_died', where=where)}"
        )
    if result["status"] == "failed":
        return replace(
            row,
            status=RowStatus.ERROR,
            feedback=f"{name}: {note('could_not_run', why=result.get('error'))}"[:300],
        )
    if "found" not in result:
        return replace(
            row,
            status=RowStatus.ERROR,
            feedback=f"{name}: {note('unread')}" + (f"; {crash}" if crash else ""),
        )
    answer = result.get("answer") if result["found"] else None
    report = ex.grade(answer)
    if crash:
        status = RowStatus.ERROR
    elif report.status.value == "not_attempted":
        status = RowStatus.NOT_ATTEMPTED
    else:
        status = RowStatus.GRADED
    detail = note("not_attempted") if status is RowStatus.NOT_ATTEMPTED else report.feedback()
    notes = "; ".join(bit for bit in (crash, detail, *report.notes) if bit)
    if not result["found"]:
        notes = note("no_variable", variable=ex.variable) + (f"; {notes}" if notes else "")
    return replace(row, score=report.score, status=status, feedback=notes, answer=answer)
