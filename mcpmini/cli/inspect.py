"""What ``mcpmini call`` writes on a terminal: the inspector's lines, live.

:class:`Console` is the one writer: every line goes through :meth:`Console.line`, the one
place where text that came from the server is escaped (``output.terminal_safe``), so a
server cannot move the cursor, retitle the window or forge a line. A progress notification
redraws one bar in place when stdout is a terminal, and is one plain line otherwise; any
other line first clears the bar and then redraws it. ``--raw`` wire lines go to stderr
through the same writer. :func:`save_blocks` writes image, audio and blob blocks as files
named by index and extension inside one folder, refusing any path outside it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Literal

from ..errors import UsageError
from ..mcp.inspection import BlockView, extension_for, notification_line, progress_bar, progress_of
from ..mcp.jsonrpc import Notification
from ..mcp.trace import Trace
from .output import terminal_safe

__all__ = ["Console", "LiveTrace", "save_blocks"]

_CLEAR = "\r\x1b[K"  # carriage return, erase to the end of the line (ours, never the server's)


class Console:
    """Writes the inspector's lines to ``out`` (and ``err``), a progress bar in place when
    ``tty`` (default: whether ``out`` is a terminal)."""

    def __init__(
        self, out: IO[str] | None = None, err: IO[str] | None = None, tty: bool | None = None
    ) -> None:
        self.out = out if out is not None else sys.stdout
        self.err = err if err is not None else sys.stderr
        self.tty = self.out.isatty() if tty is None else tty
        self._bar: str | None = None  # the bar now drawn on the terminal's last line

    def line(self, text: str, stream: Literal["out", "err"] = "out") -> None:
        """Write one line, escaped (the one call site of ``terminal_safe``)."""
        self._clear_bar()
        target = self.out if stream == "out" else self.err
        target.write(terminal_safe(text, layout=False) + "\n")
        target.flush()
        self._draw_bar()

    def lines(self, texts: Iterable[str], stream: Literal["out", "err"] = "out") -> None:
        """Write each of ``texts`` with :meth:`line`."""
        for text in texts:
            self.line(text, stream)

    def notification(self, notification: Notification) -> None:
        """Show a notification as it arrives: progress as the bar (a terminal) or a line."""
        progress = progress_of(notification)
        if progress is None or not self.tty:
            self.line(notification_line(notification))
            return
        self._clear_bar()
        self._bar = terminal_safe(progress_bar(progress), layout=False)
        self._draw_bar()

    def end_progress(self) -> None:
        """Leave the last bar on its own line (before the result is written)."""
        if self._bar is not None:
            self.out.write("\n")
            self.out.flush()
            self._bar = None

    def _clear_bar(self) -> None:
        if self._bar is not None:
            self.out.write(_CLEAR)

    def _draw_bar(self) -> None:
        if self._bar is not None:
            self.out.write(_CLEAR + "progress " + self._bar)
            self.out.flush()


class LiveTrace(Trace):
    """A :class:`~mcpmini.mcp.Trace` that also writes each line to a :class:`Console`'s
    stderr the moment it crosses (``--raw``)."""

    def __init__(self, console: Console) -> None:
        super().__init__()
        self.console = console

    def record(self, direction: Literal["send", "recv"], line: bytes) -> None:
        """Record the line, then show it as ``C→S …`` or ``S→C …``."""
        super().record(direction, line)
        arrow = "C→S " if direction == "send" else "S→C "
        self.console.line(arrow + self.events[-1].line.decode("utf-8", "replace"), "err")


def _write_inside(folder: Path, name: str, data: bytes) -> Path:
    """Write ``data`` to ``folder/name``; refuse a name that leaves ``folder`` or a symlink
    at its place. Raises :class:`UsageError`."""
    root = folder.resolve()
    target = (root / name).resolve(strict=False)
    if target.parent != root or name in ("", ".", ".."):
        raise UsageError(f"--save: {name!r} is not a file inside {folder}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(root / name, flags, 0o644)
    except OSError as exc:
        raise UsageError(f"--save: cannot write {root / name}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    return root / name


def save_blocks(folder: str | os.PathLike[str], blocks: Iterable[BlockView]) -> list[Path]:
    """Write each binary block (image, audio, blob resource) to ``folder`` as
    ``<index><extension>``; returns the paths written.

    ``folder`` is created when missing. Raises :class:`UsageError` when it cannot be, or
    when a file cannot be written inside it (a symlink in its place is refused).
    """
    root = Path(folder)
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--save: cannot create {root}: {exc.strerror or exc}") from None
    written = []
    for block in blocks:
        if block.data is not None:
            written.append(
                _write_inside(root, f"{block.index}{extension_for(block.mime_type)}", block.data)
            )
    return written
