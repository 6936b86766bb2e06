"""Live or recorded: :func:`through_claude_code` runs an example live when the pinned binary
and bubblewrap work here, else returns the result :func:`record` wrote to :data:`RECORDED`
(``python -m mcpmini.course.chapters.claude_code --record``), which carries the version it
came from; :attr:`Answer.line` says which, in one line in the learner's language
(:data:`SOURCE_LINES`)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ....oracle import PIN, ClaudeCodeMissing
from ...language import Text
from .availability import live_reason
from .examples import EXAMPLES
from .fixtures import HEAVY

__all__ = [
    "NOT_LIVE",
    "RECORDED",
    "RECORD_COMMAND",
    "SOURCE_LINES",
    "Answer",
    "record",
    "recorded",
    "through_claude_code",
]

RECORDED = Path(__file__).parents[1] / "data" / "claude_code" / f"examples_{PIN}.json"
RECORD_COMMAND = "python -m mcpmini.course.chapters.claude_code --record"


@dataclass(frozen=True)
class Answer:
    """Claude Code's answer to one example: ``value`` (JSON data), the ``version`` it came
    from, ``live`` (run just now) or recorded, and ``reason`` why it was not run live."""

    name: str
    value: Any
    version: str
    live: bool
    reason: str = ""

    @property
    def line(self) -> str:
        """One line saying where the figures come from, in the learner's language."""
        if self.live:
            return str(SOURCE_LINES["live"].format(version=self.version))
        return str(
            SOURCE_LINES["recorded"].format(
                version=self.version, reason=self.reason, command=RECORD_COMMAND
            )
        )


#: Where an :class:`Answer`'s figures come from, said in one line (``Answer.line``).
SOURCE_LINES: dict[str, Text] = {
    "live": Text(
        "Claude Code {version}: いま実行した結果（オフライン、bubblewrap の中）",
        "Claude Code {version}: run live (offline, in bubblewrap)",
    ),
    "recorded": Text(
        "Claude Code {version}: 記録した結果（{reason}。`{command}` で記録）",
        "Claude Code {version}: recorded result ({reason}; recorded by `{command}`)",
    ),
}


#: Why an example the machine could run live was not: the two reasons the course itself
#: gives (``live_reason``'s are the runtime's own messages and stay as they are).
NOT_LIVE: dict[str, Text] = {
    "asked": Text("記録を使うよう指定", "asked for"),
    "heavy": Text(
        "セッションが多いため。MCPMINI_COURSE_LIVE=all でその場で実行",
        "many sessions: MCPMINI_COURSE_LIVE=all runs it live",
    ),
}


def recorded(name: str, reason: str = "") -> Answer:
    """The recorded result of example ``name``. Raises ``KeyError`` for an example that was
    never recorded and ``FileNotFoundError`` when :data:`RECORDED` is missing."""
    data = json.loads(RECORDED.read_text(encoding="utf-8"))
    return Answer(name, data["examples"][name], str(data["version"]), False, reason)


def through_claude_code(
    name: str, *, live: bool | None = None, environ: Mapping[str, str] | None = None
) -> Answer:
    """Claude Code's answer to example ``name`` (a key of :data:`EXAMPLES`): live when the
    pinned binary and bubblewrap work here (``live=False`` forces the recorded result), else
    the recorded one. Raises ``KeyError`` for an unknown example and
    :class:`~mcpmini.oracle.OracleFailure` when a live run fails."""
    run = EXAMPLES[name]
    env = os.environ if environ is None else environ
    binary, reason = live_reason(env) if live is not False else (None, str(NOT_LIVE["asked"]))
    heavy = name in HEAVY and env.get("MCPMINI_COURSE_LIVE") != "all"
    if binary is not None and live is None and heavy:
        binary, reason = None, str(NOT_LIVE["heavy"])
    if binary is None:
        return recorded(name, reason)
    return Answer(name, run(binary), PIN, True)


def record(names: Sequence[str] | None = None, *, path: Path = RECORDED) -> Path:
    """Run the examples (all, or ``names``) through the pinned Claude Code and write them to
    ``path`` (other recorded examples are kept). Returns ``path``. Raises
    ``ClaudeCodeMissing`` when the pinned version cannot run here."""
    binary, reason = live_reason(
        {k: v for k, v in os.environ.items() if k != "MCPMINI_COURSE_RECORDED"}
    )
    if binary is None:
        raise ClaudeCodeMissing(f"cannot record: {reason}")
    data: dict[str, Any] = {"version": PIN, "recorded_by": RECORD_COMMAND, "examples": {}}
    if path.exists():
        data["examples"] = json.loads(path.read_text(encoding="utf-8"))["examples"]
    for name in names or list(EXAMPLES):
        data["examples"][name] = EXAMPLES[name](binary)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True)
    path.write_text(text + "\n", encoding="utf-8")
    return path
