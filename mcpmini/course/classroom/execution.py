"""Run one submitted notebook in a fresh, sandboxed kernel and grade what it answered.

:func:`grade_notebook` reads the file with ``nbformat`` (unreadable → ``invalid``) and
copies it, alone, into a scratch folder. A notebook runner (this module's
:func:`_serve`, started as a fresh interpreter through :mod:`mcpmini.process`) then runs
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
import math
import os
import re
import secrets
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["GradeRow", "RowStatus", "grade_notebook", "identify_exercise"]

MAX_NOTEBOOK_BYTES = 20_000_000
_KERNEL = "mcpmini-current-env"
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
    """One CSV row. ``answer`` is the learner's answer as the runner read it back (plain
    JSON values; ``None`` when none was read); it is not a CSV cell and not compared."""

    learner: str
    exercise: str
    score: int
    max_score: int
    status: RowStatus
    feedback: str
    answer: Any = field(default=None, compare=False, repr=False)

    def as_list(self) -> list[Any]:
        """The CSV cells. Every text cell goes through :func:`.spreadsheet.cell`: text a
        learner controls (folder names, file names, exception messages) that a spreadsheet
        would run as a formula gets a leading quote."""
        from .spreadsheet import cells

        return cells(
            [
                self.learner,
                self.exercise,
                self.score,
                self.max_score,
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


_EXPORT = """\
def _mcpmini_export(name={variable!r}):
    import enum, json
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
    return json.dumps({{"found": found, "answer": plain(globals()[name]) if found else None}})
{slot} = _mcpmini_export()
del _mcpmini_export
"""


@cache
def _kernel_manager_class() -> type:
    import ipykernel.kernelspec
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager

    class CurrentEnvSpecs(
        KernelSpecManager
    ):  # the Python running the grader, never a registered one
        def get_kernel_spec(self, kernel_name: str) -> Any:
            if kernel_name == _KERNEL:
                return self.kernel_spec_class(
                    resource_dir=ipykernel.kernelspec.RESOURCES,
                    **ipykernel.kernelspec.get_kernel_dict(),
                )
            return super().get_kernel_spec(kernel_name)

    class CurrentEnvKernelManager(AsyncKernelManager):
        def __init__(self, **kw: Any) -> None:
            kw["kernel_spec_manager"] = CurrentEnvSpecs()
            super().__init__(**kw)

    return CurrentEnvKernelManager


SYMLINK = "a symbolic link, not graded (only the learner's own files are)"


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
            raise ValueError(f"file too large ({size} bytes)")
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
            return None, "empty file", raw
        nb = nbformat.reads(raw.decode("utf-8"), as_version=4)
        nbformat.validate(nb)
    except SymlinkRefused:
        raise
    except UnicodeDecodeError:
        return None, "not a notebook (not UTF-8 text)", raw
    except nbformat.reader.NotJSONError:
        return None, "not a notebook (not JSON)", raw
    except nbformat.ValidationError as exc:
        return None, f"not a valid notebook ({exc.message[:120]})", raw
    except ValueError as exc:
        return None, str(exc), raw
    except OSError as exc:
        return None, f"unreadable ({exc.strerror or type(exc).__name__})", raw
    except Exception as exc:
        return None, f"not a notebook ({type(exc).__name__})", raw
    return nb, "", raw


def _first_error(cells: Sequence[Any]) -> str:
    for index, cell in enumerate(cells):
        for out in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            if out.get("output_type") == "error":
                return f"cell {index + 1} raised {out.get('ename')}: {str(out.get('evalue'))[:100]}"
    return ""


_RUNNER = "from mcpmini.course.classroom.execution import _serve; _serve()"
_RESULT_CAP = 4_000_000
_STARTUP = 90.0  # seconds allowed, on top of ``timeout``, for the runner and kernel to start


def _make_undumpable() -> None:
    """Linux: forbid same-user processes (the kernel) to read this process's memory, its
    ``/proc`` files or its file descriptors (``PR_SET_DUMPABLE`` = 0)."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)


def _serve() -> None:
    """The notebook runner (runs inside the sandbox): one JSON request on stdin, one JSON
    line with the nonce on stdout. See the module doc."""
    import json
    import sys

    _make_undumpable()
    request = json.loads(sys.stdin.readline())
    sys.stdin.close()
    out, sys.stdout = sys.stdout, sys.stderr  # nothing else may write to the result stream
    result = asyncio.run(_execute(request))
    result["nonce"] = request["nonce"]
    out.write(json.dumps(result) + "\n")
    out.flush()


async def _execute(request: dict[str, Any]) -> dict[str, Any]:
    """Run the notebook named in ``request`` and read the answer back (see the module doc)."""
    import ast
    import json

    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    timeout = float(request["timeout"])
    nb = nbformat.read(request["notebook"], as_version=4)
    cells = list(nb.cells)
    # A name of its own, not the nonce: the kernel sees this name, and a thread the
    # notebook left running must not learn from it what makes a result line genuine.
    slot = f"_mcpmini_answer_{secrets.token_hex(16)}"
    started: list[float] = []
    current = [0]

    def remaining(cell: Any = None) -> int:
        if not started:
            started.append(time.monotonic())
        if cell is not None:
            current[0] = next((i for i, c in enumerate(cells, 1) if c is cell), current[0])
        return max(1, math.ceil(timeout - (time.monotonic() - started[0])))

    client = NotebookClient(
        nb,
        kernel_name=_KERNEL,
        kernel_manager_class=_kernel_manager_class(),
        timeout_func=remaining,
        allow_errors=True,
        shutdown_kernel="immediate",
        startup_timeout=60,
        resources={"metadata": {"path": os.getcwd()}},
    )
    result: dict[str, Any] = {"status": "ok", "cell": 0}
    try:
        async with client.async_setup_kernel(
            env=dict(os.environ), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        ):
            for index, cell in enumerate(cells):
                await client.async_execute_cell(cell, index)
            assert client.kc is not None
            msg_id = client.kc.execute(
                _EXPORT.format(variable=request["variable"], slot=slot),
                silent=True,
                store_history=False,
                user_expressions={"answer": slot},
            )
            client.timeout = remaining()
            reply = await client.async_wait_for_reply(msg_id)
            value = (reply or {}).get("content", {}).get("user_expressions", {}).get("answer", {})
            if value.get("status") == "ok":
                exported = json.loads(ast.literal_eval(value["data"]["text/plain"]))
                result.update(found=bool(exported.get("found")), answer=exported.get("answer"))
    except (TimeoutError, CellTimeoutError):
        result.update(status="timeout", cell=current[0])
    except DeadKernelError:
        result.update(status="dead", cell=current[0])
    except Exception as exc:
        result.update(status="failed", cell=current[0], error=f"{type(exc).__name__}: {exc}"[:200])
    result["crash"] = _first_error(cells)
    return result


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


def _collect(proc: Any, request: bytes, deadline: float) -> tuple[bytes, bool]:
    """Send the request, read the runner's stdout until EOF or ``deadline``; ``(data,
    timed_out)``. Runs in a worker thread."""
    try:
        proc.write(request, deadline)
    except OSError:
        pass
    proc.close_stdin()
    data = bytearray()
    try:
        while chunk := proc.read(deadline):
            if len(data) < _RESULT_CAP:
                data += chunk[: _RESULT_CAP - len(data)]
    except TimeoutError:
        return bytes(data), True
    except (OSError, ValueError):
        pass
    return bytes(data), False


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
            learner, exercise, 0, max_score, RowStatus.REFUSED, f"{path.name}: {SYMLINK}"
        )
    exercise = identify_exercise(path, nb) if nb is not None else exercise
    if not exercise:
        return GradeRow(
            learner,
            "",
            0,
            0,
            RowStatus.INVALID,
            f"{path.name}: {why or 'cannot tell which exercise this is'}",
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
        inner = [sys.executable, "-I", "-c", _RUNNER]
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
                feedback=f"{path.name}: could not start the runner ({exc})"[:300],
            )
        try:
            data, hung = await asyncio.to_thread(
                _collect, proc, request, time.monotonic() + timeout + _STARTUP
            )
        except asyncio.CancelledError:  # the batch was interrupted: end this run at once
            proc.terminate(0.0)
            raise
        finally:
            await asyncio.to_thread(proc.close, 0.0)
    results = []
    for line in data.splitlines():
        with contextlib.suppress(ValueError):
            item = json.loads(line)
            if isinstance(item, dict) and item.get("nonce") == nonce:
                results.append(item)
    if hung:
        return replace(
            row, status=RowStatus.TIMEOUT, feedback=f"{path.name}: timed out after {timeout:g} s"
        )
    if not results:
        return replace(
            row,
            status=RowStatus.ERROR,
            feedback=f"{path.name}: the notebook runner crashed (exit code {proc.returncode})",
        )
    return _graded_row(row, results[-1], ex, len(nb.cells), path.name, timeout)


def _graded_row(
    row: GradeRow, result: dict[str, Any], ex: Any, cells: int, name: str, timeout: float
) -> GradeRow:
    """The row for the runner's last ``result`` on a notebook of ``cells`` cells."""
    where = f" in cell {result['cell']}" if 1 <= int(result.get("cell") or 0) <= cells else ""
    crash = str(result.get("crash") or "")
    if result["status"] == "timeout":
        return replace(
            row,
            status=RowStatus.TIMEOUT,
            feedback=f"{name}: timed out after {timeout:g} s{where}",
        )
    if result["status"] == "dead":
        return replace(row, status=RowStatus.ERROR, feedback=f"{name}: the kernel died{where}")
    if result["status"] == "failed":
        return replace(
            row,
            status=RowStatus.ERROR,
            feedback=f"{name}: could not run ({result.get('error')})"[:300],
        )
    if "found" not in result:
        return replace(
            row,
            status=RowStatus.ERROR,
            feedback=f"{name}: answers could not be read" + (f"; {crash}" if crash else ""),
        )
    answer = result.get("answer") if result["found"] else None
    report = ex.grade(answer)
    if crash:
        status = RowStatus.ERROR
    elif report.status.value == "not_attempted":
        status = RowStatus.NOT_ATTEMPTED
    else:
        status = RowStatus.GRADED
    detail = "no part answered" if status is RowStatus.NOT_ATTEMPTED else report.feedback()
    notes = "; ".join(bit for bit in (crash, detail, *report.notes) if bit)
    if not result["found"]:
        notes = f"no variable {ex.variable!r} in the notebook" + (f"; {notes}" if notes else "")
    return replace(row, score=report.score, status=status, feedback=notes, answer=answer)
