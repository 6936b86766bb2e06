"""The class mode: what the instructor lets learners see while a class is graded.

A hub made by ``make hub`` writes its switches into ``class.json`` in the hub folder and
points every learner's server at it with :data:`CLASS_ENV`. ``get_exercise(…).solution()``
and ``hint(n)`` ask :func:`allowed` before they print: with the switch off they print
:data:`OFF` instead. The instructor turns a switch with ``make hub-class SOLUTIONS=on`` (or
``python -m mcpmini.course.classroom.hub --solutions on``); the file is read at every call, so
a running class sees the change at once, without restarting any server.

Rules of this module: outside a hub (no :data:`CLASS_ENV`) everything is allowed — a learner
studying alone has the whole course. Inside one, a switch file that is missing, unreadable or
not the JSON object :func:`write_switches` writes allows nothing (closed, not open). The class
mode is a switch, not a lock on the checker: the answer key is computed by the runtime in the
learner's own kernel (that is how ``check()`` works), so a learner who reads the runtime's code
can compute it; the solution notebooks themselves are kept out of the learners' reach by file
permissions (:mod:`.classroom.hub`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from .language import Text

__all__ = ["CLASS_ENV", "OFF", "SWITCHES", "allowed", "read_switches", "write_switches"]

#: The environment variable naming the hub's switch file.
CLASS_ENV = "MCPMINI_CLASS"
#: The switches and their value in a new hub: worked solutions off, hints on.
SWITCHES: dict[str, bool] = {"solutions": False, "hints": True}
#: What ``solution()`` and ``hint()`` print when the instructor switched them off.
OFF: dict[str, Text] = {
    "solutions": Text(
        "このクラスでは、講師が解答の表示を止めています。",
        "Your instructor has switched worked solutions off for this class.",
    ),
    "hints": Text(
        "このクラスでは、講師がヒントの表示を止めています。",
        "Your instructor has switched hints off for this class.",
    ),
}


def read_switches(path: Path) -> dict[str, bool] | None:
    """The switches in ``path``, or ``None`` when it is missing or not what
    :func:`write_switches` writes."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not all(isinstance(data.get(k), bool) for k in SWITCHES):
        return None
    return {k: bool(data[k]) for k in SWITCHES}


def write_switches(path: Path, switches: Mapping[str, bool]) -> dict[str, bool]:
    """Write ``switches`` (every key of :data:`SWITCHES`) to ``path`` atomically, readable by
    every learner (mode ``0644``: it holds no secret). Returns what was written. Raises
    ``ValueError`` for an unknown switch."""
    unknown = sorted(set(switches) - set(SWITCHES))
    if unknown:
        raise ValueError(f"unknown class switch {unknown[0]!r} (one of {', '.join(SWITCHES)})")
    values = {k: bool(switches.get(k, SWITCHES[k])) for k in SWITCHES}
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(values, fh)
    os.chmod(tmp, 0o644)  # whatever the umask: every learner's server reads it
    os.replace(tmp, path)
    return values


def allowed(what: str, environ: Mapping[str, str] | None = None) -> bool:
    """Whether ``what`` (``"solutions"`` or ``"hints"``) may be shown (see the module rules)."""
    env = os.environ if environ is None else environ
    place = env.get(CLASS_ENV, "")
    if not place:
        return True
    switches = read_switches(Path(place))
    return bool(switches and switches.get(what, False))
