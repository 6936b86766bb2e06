"""LineBuffer cost on one long line, side by side with the old quadratic algorithm.

The old ``feed`` joined the unfinished tail with every new chunk and split the whole
thing again, so a line of n bytes fed in 64 KiB chunks cost O(n²/64 KiB). The current
:class:`mcpmini.mcp.LineBuffer` scans only the new bytes. Both are fed the same 16 MiB
line (and a stream of small lines, where they should be even) and the ratio is printed.

Run: ``.venv/bin/python bench/linebuffer.py``.
"""

from __future__ import annotations

import sys
import time
from collections import deque
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcpmini.mcp import LineBuffer

CHUNK = 1 << 16


class QuadraticLineBuffer:
    """The algorithm LineBuffer had before issue 9 (kept here as the reference)."""

    def __init__(self) -> None:
        self._tail = b""
        self.lines: deque[bytes] = deque()

    def feed(self, chunk: bytes) -> None:
        data = self._tail + chunk
        parts = data.split(b"\n")
        self._tail = parts.pop()
        self.lines.extend(parts)


def timed(factory: type, chunks: list[bytes]) -> float:
    buffer = factory()
    started = time.perf_counter()
    for chunk in chunks:
        buffer.feed(chunk)
    elapsed = time.perf_counter() - started
    assert len(buffer.lines) >= 1
    return elapsed


def main() -> int:
    long_line = b"x" * (16 << 20) + b"\n"
    small = b"".join(b'{"jsonrpc":"2.0","id":%d,"result":{}}\n' % i for i in range(200_000))
    for name, data in (("one 16 MiB line", long_line), ("200k small lines", small)):
        chunks = [data[i : i + CHUNK] for i in range(0, len(data), CHUNK)]
        old = min(timed(QuadraticLineBuffer, chunks) for _ in range(2))
        new = min(timed(LineBuffer, chunks) for _ in range(3))
        print(f"{name:18s} old {old:8.3f} s   new {new:8.3f} s   old/new {old / new:7.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
