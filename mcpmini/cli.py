"""The ``mcpmini`` command: a workbench over the runtime.

Each subcommand group is added by one ``_add_<group>`` function and runs through a
``_cmd_<name>`` function that returns the process exit code. Errors a user can fix
(a missing file, invalid JSON, a server that will not start) are printed as one line
on stderr with exit code 2, never as a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from . import __version__
from .errors import McpminiError

__all__ = ["main", "build_parser"]


def _print_json(value: Any) -> None:
    json.dump(value, sys.stdout, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write("\n")


# --- region: MCP (serve, call) ---------------------------------------------------------

def _add_mcp(sub: Any) -> None:
    pass


# --- region: hooks (hooks run, hooks events) ---------------------------------------------

def _add_hooks(sub: Any) -> None:
    pass


# --- region: skills, config, plugin ----------------------------------------------------------

def _add_skills(sub: Any) -> None:
    pass


# --- region: course (grade, progress) -------------------------------------------------------

def _add_course(sub: Any) -> None:
    pass


# --- region: loop (run) ----------------------------------------------------------------

def _add_loop(sub: Any) -> None:
    pass


_GROUPS: list[Callable[[Any], None]] = [_add_mcp, _add_hooks, _add_skills, _add_course, _add_loop]


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
    """Run the command line; return the exit code (0 ok, 1 a check failed, 2 usage/input error)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return int(handler(args) or 0)
    except McpminiError as exc:
        print(f"mcpmini {args.command}: {exc}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as exc:
        print(f"mcpmini {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
