"""The chapters' bridge to the real Claude Code: each notebook example, run through the pinned
binary when it can run here, else the result recorded from it.

Rules of this module:

- :data:`EXAMPLES` is the one table of the examples the notebooks show: a name, and the
  function that runs it through Claude Code (through :mod:`mcpmini.oracle`: offline, in
  bubblewrap, against a scripted model) and returns JSON data.
- Recorded results are never typed by hand: :func:`record` (``python -m
  mcpmini.course.chapters.claude_code --record``) runs every example through the pinned
  version and writes :data:`RECORDED`, which carries the version it came from.
- :func:`claude_code` runs the example live when Claude Code :data:`~mcpmini.oracle.PIN` is
  installed and bubblewrap works, else it returns the recorded result; :attr:`Answer.line`
  says which, in one line.
- mcpmini's own answer for the same example is computed beside it by the runtime
  (``*_rows`` functions); nothing here decides a verdict itself.

One module per concern: :mod:`.availability` (can it run live here), :mod:`.fixtures` (what
each example is made of), :mod:`.examples` (each example through the oracle),
:mod:`.recording` (live or recorded), :mod:`.rows` (beside mcpmini), :mod:`.server` (the
chapter's MCP server) and ``__main__`` (``--record`` / ``--serve``).
"""

from __future__ import annotations

from .availability import live_reason
from .examples import EXAMPLES
from .fixtures import HEAVY, LARGE_SIZES, NOT_RUN, SKILL_FILES, UNSET_MCP_JSON, plugin_variants
from .recording import RECORD_COMMAND, RECORDED, Answer, record, recorded, through_claude_code
from .rows import attack_rows, large_result_rows, mcp_tool_rows, plugin_rows, skill_listing_pair

__all__ = [
    "EXAMPLES",
    "HEAVY",
    "LARGE_SIZES",
    "NOT_RUN",
    "RECORDED",
    "RECORD_COMMAND",
    "SKILL_FILES",
    "UNSET_MCP_JSON",
    "Answer",
    "attack_rows",
    "large_result_rows",
    "live_reason",
    "mcp_tool_rows",
    "plugin_rows",
    "plugin_variants",
    "record",
    "recorded",
    "skill_listing_pair",
    "through_claude_code",
]
