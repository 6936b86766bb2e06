"""The notebook runner: runs inside the sandbox, one submission, then exits.

:mod:`.execution` starts this file as a script (``python -I …/runner.py``), never as
``mcpmini.course.classroom.runner``: run by path it imports no package ``__init__`` and so
none of the course (the grader's checkers, the chapters' models), only ``nbformat``,
``nbclient`` and ``jupyter_client`` — what running a notebook needs. The kernel it starts
imports what the notebook imports, no more.

Rules of this module: it imports nothing of ``mcpmini`` (the tests pin it); it reads one
JSON request on stdin and writes one JSON line, carrying the request's nonce, on stdout
(nothing else may write there); it makes itself non-dumpable before it reads the request;
the kernel is the Python running this file, started with :data:`KERNEL_BOOT` (ipykernel
without its debugger, IPython without a history database), never a registered kernel.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["KERNEL_BOOT", "KERNEL_NAME", "main"]

KERNEL_NAME = "mcpmini-current-env"

#: How the kernel starts: ``ipykernel_launcher``'s two lines, with ``debugpy`` marked absent
#: first (ipykernel imports the debugger at start-up only to offer it to a front end, which
#: a graded run never has) — the notebook itself runs as in any ipykernel.
KERNEL_BOOT = (
    "import sys\n"
    "if sys.path and sys.path[0] == '':\n"
    "    del sys.path[0]\n"
    "sys.modules.setdefault('debugpy', None)\n"
    "from ipykernel import kernelapp\n"
    "kernelapp.launch_new_instance()\n"
)
#: Options after the connection file: no SQLite history in the scratch home.
_KERNEL_OPTIONS = ("--HistoryManager.enabled=False",)

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


def kernel_argv() -> list[str]:
    """The kernel's command line (``{connection_file}`` filled in by jupyter_client)."""
    return [sys.executable, "-c", KERNEL_BOOT, "-f", "{connection_file}", *_KERNEL_OPTIONS]


def _kernel_manager_class() -> type:
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager

    class CurrentEnvSpecs(KernelSpecManager):  # the Python running the grader only
        def get_kernel_spec(self, kernel_name: str) -> Any:
            if kernel_name == KERNEL_NAME:
                return KernelSpec(
                    argv=kernel_argv(), display_name="mcpmini", language="python", env={}
                )
            return super().get_kernel_spec(kernel_name)

    class CurrentEnvKernelManager(AsyncKernelManager):
        def __init__(self, **kw: Any) -> None:
            kw["kernel_spec_manager"] = CurrentEnvSpecs()
            super().__init__(**kw)

    return CurrentEnvKernelManager


def _first_error(cells: Sequence[Any]) -> dict[str, Any] | None:
    """The first error output: its cell (1-based), name and value (the grader words it)."""
    for index, cell in enumerate(cells):
        for out in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            if out.get("output_type") == "error":
                value = str(out.get("evalue"))[:100]
                return {"cell": index + 1, "ename": str(out.get("ename")), "evalue": value}
    return None


def _make_undumpable() -> None:
    """Linux: forbid same-user processes (the kernel) to read this process's memory, its
    ``/proc`` files or its file descriptors (``PR_SET_DUMPABLE`` = 0)."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)


def main() -> None:
    """One JSON request on stdin, one JSON line with the nonce on stdout (see the rules).

    The line is written as soon as the answer is read, before the kernel is stopped: the
    grader may end the sandbox on reading it. The runner then leaves without the
    interpreter's clean-up (``os._exit``), its kernel already stopped.
    """
    import json

    _make_undumpable()
    request = json.loads(sys.stdin.readline())
    sys.stdin.close()
    out, sys.stdout = sys.stdout, sys.stderr  # nothing else may write to the result stream
    written: list[bool] = []

    def report(result: dict[str, Any]) -> None:
        if not written:
            written.append(True)
            out.write(json.dumps({**result, "nonce": request["nonce"]}) + "\n")
            out.flush()

    report(asyncio.run(_execute(request, report)))
    os._exit(0)


async def _execute(
    request: dict[str, Any], report: Callable[[dict[str, Any]], None]
) -> dict[str, Any]:
    """Run the notebook named in ``request``, read the answer back (see :mod:`.execution`)
    and return the result; once the answer is read, ``report`` gets the result before the
    kernel is stopped. ``clock`` in the result holds ``time.monotonic()`` at each phase
    (imports done, kernel ready, cells run, answer read) for the profile."""
    import ast
    import json

    # As ``mcpmini/__init__`` does: jsonschema (imported by nbformat) would otherwise
    # import rfc3987_syntax, which compiles a grammar for seconds, for a format never checked.
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    clock = {"imported": time.monotonic()}
    timeout = float(request["timeout"])
    with open(request["notebook"], encoding="utf-8") as fh:
        text = fh.read()
    # The grader validated these bytes already; validating again here would compile
    # nbformat's schema afresh in this new process. Older formats go through the converter.
    if json.loads(text).get("nbformat") == 4:
        from nbformat.v4.nbjson import JSONReader

        nb = JSONReader().reads(text)
    else:
        nb = nbformat.reads(text, as_version=4)
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
        kernel_name=KERNEL_NAME,
        kernel_manager_class=_kernel_manager_class(),
        timeout_func=remaining,
        allow_errors=True,
        shutdown_kernel="immediate",
        startup_timeout=60,
        resources={"metadata": {"path": os.getcwd()}},
    )
    result: dict[str, Any] = {"status": "ok", "cell": 0, "clock": clock}
    try:
        async with client.async_setup_kernel(
            env=dict(os.environ), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        ):
            clock["kernel_ready"] = time.monotonic()
            for index, cell in enumerate(cells):
                await client.async_execute_cell(cell, index)
            clock["cells_run"] = time.monotonic()
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
            clock["answer_read"] = time.monotonic()
            report({**result, "crash": _first_error(cells)})
    except (TimeoutError, CellTimeoutError):
        result.update(status="timeout", cell=current[0])
    except DeadKernelError:
        result.update(status="dead", cell=current[0])
    except Exception as exc:
        result.update(status="failed", cell=current[0], error=f"{type(exc).__name__}: {exc}"[:200])
    result["crash"] = _first_error(cells)
    return result


if __name__ == "__main__":
    main()
