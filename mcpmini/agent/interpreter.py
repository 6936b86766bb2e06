"""A code-interpreter MCP server backed by the sandbox (:func:`mcpmini.agent.run_python`).

:func:`interpreter_server` returns an mcpmini :class:`~mcpmini.mcp.Server` with one tool,
``execute_code(code)``. Every call gets a fresh, empty workspace folder (deleted
afterwards, so nothing one run writes is seen by the next) and the :class:`Limits` given
when the server was built; the model cannot raise them. A run that ends any other way
than exit code 0 is a tool error whose text starts with the outcome (``[timeout]``,
``[memory]``…), so the model sees what happened. :func:`last_results` keeps the
:class:`SandboxResult` values for the host to inspect.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping

from ..mcp import Server
from .sandbox import Limits, SandboxResult, run_python

__all__ = ["interpreter_server", "last_results"]

_RESULTS: dict[int, list[SandboxResult]] = {}


def interpreter_server(
    limits: Limits | None = None,
    environ: Mapping[str, str] | None = None,
    isolate_network: bool = True,
) -> Server:
    """A server whose ``execute_code`` runs Python under ``limits`` (default :class:`Limits`).

    ``environ`` is the whole environment of each run (default: the sandbox's minimal one).
    Returns the :class:`Server`; runs are recorded for :func:`last_results`.
    """
    limits = limits or Limits()
    server = Server(
        "code-interpreter",
        "0.1.0",
        instructions=f"Runs Python in a throw-away sandbox: {limits.wall_seconds} s "
        f"wall, {limits.cpu_seconds} s CPU, {limits.memory_mb} MB, "
        f"{limits.output_bytes} bytes of output, no network.",
    )
    history: list[SandboxResult] = []
    _RESULTS[id(server)] = history

    @server.tool()
    def execute_code(code: str) -> str:
        """Run a short Python 3 program and return what it printed. Use for calculations
        and data checks; not for anything that needs the network or lasting files.

        Args:
            code: the whole program; print what you want to see
        """
        with tempfile.TemporaryDirectory(prefix="mcpmini-interp-") as workspace:
            result = run_python(
                code, workspace, limits, environ=environ, isolate_network=isolate_network
            )
        history.append(result)
        if not result.ok:
            raise RuntimeError(result.as_text())
        return result.as_text()

    return server


def last_results(server: Server) -> list[SandboxResult]:
    """Every :class:`SandboxResult` of ``server``'s runs so far, oldest first (a copy).

    Returns an empty list for a server not made by :func:`interpreter_server`.
    """
    return list(_RESULTS.get(id(server), []))
