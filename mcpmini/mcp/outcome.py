"""What a ``tools/call`` came to: four outcome kinds, and one ``tool_result`` for each.

:func:`classify` reads one reply (or its absence) as a :class:`ToolOutcome` — ok, tool error,
protocol error or no answer (Proposition 3.7, (i)–(iv)) — and :func:`to_tool_result` maps
**every** outcome to exactly one ``tool_result`` block for the model, so the agent loop can
always go on. No I/O here: :class:`~mcpmini.mcp.Client` waits, this module judges.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from .jsonrpc import ErrorResponse, Response

__all__ = [
    "OutcomeKind",
    "ToolOutcome",
    "classify",
    "classify_task",
    "to_tool_result",
]


class OutcomeKind(Enum):
    """The four outcomes of a ``tools/call`` (Proposition 3.7, (i)–(iv))."""

    OK = "ok"  # (i)  result with isError false
    TOOL_ERROR = "tool_error"  # (ii) result with isError true
    PROTOCOL_ERROR = "protocol_error"  # (iii) JSON-RPC error reply
    NO_ANSWER = "no_answer"  # (iv) timeout, server exited, garbled reply


@dataclass(frozen=True)
class ToolOutcome:
    """What came back from one ``tools/call``.

    ``content`` holds the result's content blocks (empty unless a result arrived),
    ``code``/``message`` the JSON-RPC error (PROTOCOL_ERROR), ``reason`` why no answer
    came (``"timeout"``, ``"server exited"``, ``"garbled reply"``).
    """

    kind: OutcomeKind
    tool: str
    content: tuple[dict[str, Any], ...] = ()
    structured: Any = None
    code: int | None = None
    message: str = ""
    reason: str = ""

    @property
    def text(self) -> str:
        """The text blocks of the content joined by newlines."""
        return "\n".join(b.get("text", "") for b in self.content if b.get("type") == "text")


def classify(tool: str, reply: Response | ErrorResponse, garbled: bool = False) -> ToolOutcome:
    """The outcome of ``tool``'s call from its ``reply``.

    ``garbled`` says the reply line could not be read (the client answered itself with an
    error): no answer. A result without a ``content`` list is garbled too.
    """
    if garbled:
        return ToolOutcome(OutcomeKind.NO_ANSWER, tool, reason="garbled reply")
    if isinstance(reply, ErrorResponse):
        return ToolOutcome(OutcomeKind.PROTOCOL_ERROR, tool, code=reply.code, message=reply.message)
    content = reply.result.get("content")
    if not isinstance(content, list):
        return ToolOutcome(OutcomeKind.NO_ANSWER, tool, reason="garbled reply")
    kind = OutcomeKind.TOOL_ERROR if reply.result.get("isError") is True else OutcomeKind.OK
    return ToolOutcome(
        kind,
        tool,
        tuple(b for b in content if isinstance(b, dict)),
        reply.result.get("structuredContent"),
    )


def classify_task(tool: str, task: Mapping[str, Any]) -> ToolOutcome | None:
    """The outcome of ``tool``'s call that ran as a task (tasks extension), from the task's
    state as ``tasks/get`` returns it; ``None`` while the task is still running.

    ``completed`` reads its inlined ``result`` like a direct reply (a tool error stays a tool
    error); ``failed`` is the protocol error it carries; ``cancelled`` is no answer. A
    terminal state without its payload, or an unknown status, is a garbled reply.
    """
    status = task.get("status")
    if status in ("working", "input_required"):
        return None
    if status == "completed" and isinstance(task.get("result"), dict):
        return classify(tool, Response(str(task.get("taskId")), task["result"]))
    error = task.get("error")
    if status == "failed" and isinstance(error, dict) and isinstance(error.get("code"), int):
        return ToolOutcome(
            OutcomeKind.PROTOCOL_ERROR, tool, code=error["code"], message=str(error.get("message"))
        )
    if status == "cancelled":
        return ToolOutcome(OutcomeKind.NO_ANSWER, tool, reason="task cancelled")
    return ToolOutcome(OutcomeKind.NO_ANSWER, tool, reason="garbled reply")


def _render(content: Iterable[Mapping[str, Any]]) -> str:
    """Content blocks as text for the model: text as is, other blocks as a short placeholder."""
    parts = []
    for block in content:
        kind = block.get("type")
        if kind == "text":
            parts.append(str(block.get("text", "")))
        elif kind == "resource_link" or kind == "resource":
            inner = block.get("resource", block)
            parts.append(f"[resource {inner.get('uri', '?')}]")
        else:
            parts.append(f"[{kind} content, {block.get('mimeType', 'unknown type')}]")
    return "\n".join(parts)


def to_tool_result(outcome: ToolOutcome, tool_use_id: str) -> dict[str, Any]:
    """Map any outcome to exactly one ``tool_result`` block for the model (total θ).

    (i) and (ii) carry the server's text with ``is_error`` from ``isError``; (iii) and
    (iv) are written by the client itself so the loop can always continue.
    """
    kind = outcome.kind
    if kind is OutcomeKind.OK:
        text, is_error = _render(outcome.content), False
    elif kind is OutcomeKind.TOOL_ERROR:
        text, is_error = _render(outcome.content) or "The tool reported an error.", True
    elif kind is OutcomeKind.PROTOCOL_ERROR:
        text, is_error = f"MCP error {outcome.code}: {outcome.message}", True
    else:
        text, is_error = f"No answer from the MCP server ({outcome.reason}).", True
    return {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": text,
        "is_error": is_error,
    }
