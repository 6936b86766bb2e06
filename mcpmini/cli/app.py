"""The ``mcpmini`` command: a workbench over the runtime.

Each command group lives in its own module with one ``add(sub)`` function that registers its
subcommands; each subcommand runs through a ``_cmd_<name>`` function that returns the process
exit code.

Rules of this module (click's model):

* :func:`main` reports only the project's own errors: a :class:`~mcpmini.errors.McpminiError`
  (a :class:`~mcpmini.errors.UsageError` for a wrong command line, a ``ConfigError`` for a bad
  file, a ``TransportError`` for a server that will not start …) is one line on stderr and the
  exit code the error class owns (``exit_code``, 2 unless a class says otherwise).
* Anything else (``KeyError``, ``TypeError``, a stray ``ValueError`` …) is a bug in the
  runtime: it propagates with its traceback, never disguised as a user error.
* Exit codes: 0 ok, 1 a check failed, 2 a usage or input error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .. import __version__
from ..errors import McpminiError
from . import auth, claude_code, config, course, hooks, mcp, quiz, run, skills, tools
from .output import terminal_safe

__all__ = ["build_parser", "main"]

_GROUPS: list[Callable[[Any], None]] = [
    mcp.add,
    hooks.add,
    skills.add,
    config.add,
    course.add,
    run.add,
    quiz.add,
    tools.add,
    auth.add,
    claude_code.add,
]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="mcpmini", description="A workbench for MCP servers, hooks, skills and plugins."
    )
    parser.add_argument("--version", action="version", version=f"mcpmini {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in _GROUPS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (0 ok, 1 a check failed, 2 usage/input error).

    Raises what is not a :class:`~mcpmini.errors.McpminiError` (a bug), and ``SystemExit``
    for what argparse refuses.
    """
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    # Everything after the first "--" is a command line of its own (the server to start);
    # argparse's handling of "--" inside subcommands is unreliable, so split here. Only
    # commands that declare ``command_line`` (a default of ``[]``) take one.
    rest: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, rest = argv[:cut], argv[cut + 1 :]
    args = parser.parse_args(argv)
    if rest:
        if not hasattr(args, "command_line"):
            parser.error(f"{args.command or 'mcpmini'} takes no command after --")
        args.command_line = rest
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return int(handler(args) or 0)
    except McpminiError as exc:
        print(f"mcpmini {args.command}: {terminal_safe(exc, layout=False)}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
