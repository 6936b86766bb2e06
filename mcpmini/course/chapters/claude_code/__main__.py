"""``python -m mcpmini.course.chapters.claude_code``: ``--record [NAME …]`` writes the
recorded examples, ``--serve`` serves the chapter's MCP server."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from .recording import record
from .server import serve


def main(argv: Sequence[str] | None = None) -> int:
    """``--record [NAME …]`` writes :data:`RECORDED`; ``--serve`` serves the chapter server."""
    parser = argparse.ArgumentParser(prog="python -m mcpmini.course.chapters.claude_code")
    parser.add_argument("--record", nargs="*", metavar="NAME", help="record examples (all)")
    parser.add_argument(
        "--serve", nargs="*", metavar="ARG", help="serve the chapter's MCP server (ARGs echoed)"
    )
    args = parser.parse_args(argv)
    if args.serve is not None:
        serve(args.serve)
        return 0
    if args.record is not None:
        print(record(args.record or None))
        return 0
    parser.print_help()
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
