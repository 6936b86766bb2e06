"""The practice track (``notebooks/practice/``, ``exercises/P_*``): hosting MCP servers.

:mod:`.exercises` holds P.1–P.4 (keys computed by the runtime) and the data the notebooks
share with them; :mod:`.hostlab` the permission-layer tables, the grant toggle, simulated
latency and the context-growth figure.
"""

from __future__ import annotations

from .exercises import (
    P2_POLICY,
    P2_TOOLS,
    P3_LIMITS,
    P4_CONTEXT_LIMIT,
    PRACTICE_IDS,
    TITLES,
    Workload,
    build_practice,
    loop_context,
    predict_run,
)
from .hostlab import (
    SimulatedLatency,
    grant_toggler,
    layer_lines,
    layer_rows,
    plot_context_growth,
    time_calls,
)

__all__ = [
    "P2_POLICY",
    "P2_TOOLS",
    "P3_LIMITS",
    "P4_CONTEXT_LIMIT",
    "PRACTICE_IDS",
    "TITLES",
    "SimulatedLatency",
    "Workload",
    "build_practice",
    "grant_toggler",
    "layer_lines",
    "layer_rows",
    "loop_context",
    "plot_context_growth",
    "predict_run",
    "time_calls",
]
