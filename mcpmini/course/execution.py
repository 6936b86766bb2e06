"""Run one submitted notebook in a fresh kernel and grade what it answered.

:func:`grade_notebook` reads the file with ``nbformat`` (unreadable → ``invalid``), adds
a first cell that skips a slow optional import and a last cell that exports the learner's
answer variable as a display bundle of type :data:`ANSWER_MIME`, tagged with a nonce
drawn for this run, and executes the notebook with ``nbclient`` in a fresh kernel of the
current Python, in a scratch folder, with ``MCPMINI_PROGRESS=off`` and one deadline for
the whole notebook. The answer is then graded here, in the grader's process, by the
exercise's checker: printed text, stored outputs and the learner's own ``check()`` calls
are never read, so no output can fake a score. Whatever the notebook does (raise, hang,
kill its kernel), the result is one :class:`GradeRow`; the kernel is always shut down.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import math
import os
import re
import secrets
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import Enum
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["ANSWER_MIME", "GradeRow", "RowStatus", "grade_notebook", "identify_exercise"]

ANSWER_MIME = "application/vnd.mcpmini.answer+json"
MAX_NOTEBOOK_BYTES = 20_000_000
_KERNEL = "mcpmini-current-env"
_NAME = re.compile(r"^([9P])[_.]([1-4])(?:\D|$)")


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


def identify_exercise(path: Path, nb: Any | None = None) -> str:
    """The exercise id of a notebook: ``metadata.mcpmini.exercise``, else the file name
    (``9_1_….ipynb`` → ``"9.1"``, ``P_2_….ipynb`` → ``"P.2"``); ``""`` when neither says."""
    from .exercises import ALL_IDS

    meta = (nb or {}).get("metadata", {}).get("mcpmini", {}) if isinstance(nb, dict) else {}
    claimed = meta.get("exercise") if isinstance(meta, dict) else None
    if claimed in ALL_IDS:
        return str(claimed)
    match = _NAME.match(path.name)
    return f"{match.group(1)}.{match.group(2)}" if match else ""


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


def _code_cell(source: str) -> Any:
    import nbformat

    return nbformat.v4.new_code_cell(source)


@cache
def _kernel_manager_class() -> type:
    import ipykernel.kernelspec
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager

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
    except Exception as exc:
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
    nb.cells = [*cells, _code_cell(_EXPORT.format(
        variable=ex.variable, nonce=nonce, mime=ANSWER_MIME))]
    # Learner cells are numbered 1..n as Jupyter users count them. (A learner notebook
    # imports mcpmini first, which spares the kernel jsonschema's slow optional import.)
    position = {id(cell): i for i, cell in enumerate(nb.cells, start=1)}
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
        except Exception as exc:
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
