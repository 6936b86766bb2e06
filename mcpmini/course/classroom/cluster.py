"""Grade on a Dask ``distributed`` cluster (``mcpmini grade --scheduler ADDRESS``).

:func:`grade_on_dask` reads each submission here, with ``O_NOFOLLOW`` as a local run does
(an invalid, unreadable or linked file gets its row here, without a task), and sends its
bytes — never a path, so workers need no shared file system — to :func:`remote_grade` on a
worker, which writes them to a scratch folder of its own and grades them exactly as a local
run does (:func:`~mcpmini.course.classroom.execution.grade_notebook`: a fresh kernel in its
own bubblewrap sandbox on that worker). Workers need this package and bubblewrap installed.

Rules of this module: every job ends as exactly one row. Each task has a key of its own
(``pure=False`` semantics), so two identical notebooks are two tasks. When a worker dies,
the scheduler reruns its tasks elsewhere and a future still yields one result, so no row is
lost or written twice; a task the scheduler gives up on (``KilledWorker`` after its allowed
failures) is an ``error`` row. Rows are passed to ``record`` in the order tasks finish, on
the calling thread; Ctrl-C cancels what is left. A worker without bubblewrap grades unsandboxed
and the grader prints its warning once — or, with
``require_isolation``, the worker refuses and the row is an ``error``.
"""

from __future__ import annotations

import asyncio
import secrets
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .execution import GradeRow, RowStatus, grade_notebook

__all__ = ["grade_on_dask", "remote_grade"]

NO_SANDBOX_ON_WORKER = "isolation required, but bubblewrap is not available on this worker"


def remote_grade(
    name: str, raw: bytes, learner: str, timeout: float, exercise: str, require_isolation: bool
) -> tuple[GradeRow, bool]:
    """Runs on a worker: grade the notebook ``raw`` (file name ``name``) for ``learner``.

    Returns the row and whether it ran in a bubblewrap sandbox.
    """
    from ...agent import bubblewrap_available

    isolated = bubblewrap_available()
    if require_isolation and not isolated:
        return GradeRow(learner, exercise, 0, 0, RowStatus.ERROR, NO_SANDBOX_ON_WORKER), False
    with tempfile.TemporaryDirectory(prefix="mcpmini-dask-") as scratch:
        path = Path(scratch) / Path(name).name
        path.write_bytes(raw)
        row = asyncio.run(grade_notebook(path, learner, timeout, exercise))
    return row, isolated


def _connect(address: str, connect_timeout: float) -> object:
    import logging

    from distributed import Client

    # distributed logs each failed connection attempt; the caller reports the one line.
    quiet = logging.getLogger("distributed")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)
    try:
        return Client(address, timeout=connect_timeout, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise RuntimeError(
            f"cannot reach the Dask scheduler at {address} ({type(exc).__name__}: {exc})"[:300]
        ) from None
    finally:
        quiet.setLevel(level)


def grade_on_dask(
    address: str,
    pending: list[tuple[int, Any]],
    record: Callable[[int, GradeRow], None],
    *,
    job_row: Callable[[Any], GradeRow | None],
    failed_row: Callable[[Any, BaseException], GradeRow],
    warning: str,
    timeout: float,
    require_isolation: bool,
    connect_timeout: float = 10.0,
) -> None:
    """Grade the ``(index, job)`` pairs of ``pending`` on the cluster at ``address``,
    passing each ``(index, row)`` to ``record`` (see the module rules). The jobs are
    :class:`~mcpmini.course.classroom.batch.Submission`; ``job_row`` gives the row of one
    that needs no kernel, ``failed_row`` the row of one whose task failed, and ``warning``
    is printed once when a worker had no sandbox.

    Raises ``RuntimeError`` when the scheduler cannot be reached in ``connect_timeout``
    seconds, ``ImportError`` when ``distributed`` is not installed.
    """
    from distributed import as_completed

    from .execution import SymlinkRefused, _read

    client = _connect(address, connect_timeout)
    futures = {}
    run = secrets.token_hex(4)
    try:
        for i, job in pending:
            row = job_row(job)
            raw = b""
            if row is None:
                assert job.path is not None
                try:
                    nb, _, raw = _read(job.path)
                except SymlinkRefused:
                    nb = None
                if nb is None:  # invalid, unreadable or a link: no kernel, graded here
                    row = asyncio.run(grade_notebook(job.path, job.learner, timeout, job.exercise))
            if row is not None:
                record(i, row)
                continue
            assert job.path is not None
            future = client.submit(  # type: ignore[attr-defined]
                remote_grade,
                job.path.name,
                raw,
                job.learner,
                timeout,
                job.exercise,
                require_isolation,
                key=f"mcpmini-grade-{run}-{i}",
                retries=0,
            )
            futures[future] = (i, job)
        warned = False
        for future in as_completed(list(futures), loop=client.loop) if futures else ():  # type: ignore[attr-defined]
            i, job = futures.pop(future)
            try:
                row, isolated = future.result()
            except Exception as exc:  # KilledWorker, a worker without this package, ...
                row, isolated = failed_row(job, exc), True
            if not isolated and not warned and row.status is not RowStatus.ERROR:
                print(warning, file=sys.stderr)
                warned = True
            record(i, row)
    finally:
        if futures:
            client.cancel(list(futures))  # type: ignore[attr-defined]
        client.close()  # type: ignore[attr-defined]
