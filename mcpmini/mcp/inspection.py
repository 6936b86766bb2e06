"""What a ``tools/call`` showed, as a person reads it: the inspector's model, shared by
``mcpmini call`` and the course's inspector widget.

:func:`view_block` reads one content block (text, image, audio, resource link, embedded
resource, anything else) into a :class:`BlockView`: its kind, MIME type, decoded size, URI,
name, a text preview and the decoded bytes of binary data. :func:`check_structured` judges
``structuredContent`` against the tool's ``outputSchema`` (:class:`StructuredVerdict`).
:func:`notification_line` and :func:`progress_of` read the notifications a call received
while it ran, and :func:`progress_bar` draws one progress notification as text.
:func:`inspect_call` runs a call on a :class:`~.client.Client`, hands each notification to a
callback as it arrives, and returns a :class:`CallRecord`; :func:`inspect` is the one driver of
``mcpmini call`` after it connected — the log level, the tool's output schema, the call or any
other method, every wait within the one :class:`~mcpmini.deadline.Deadline` of the call —
returning a :class:`CallRecord` or a :class:`MethodRecord` for the caller to show;
:func:`exchange` is the same for the exact JSON of ``--json``.

Rules of this module:

1. Nothing here prints or escapes: every line it returns is plain text that may hold what
   the server sent, verbatim, and the caller escapes it at exactly one place before showing
   it (``cli.output.terminal_safe`` on a terminal, HTML escaping in a widget).
2. A line never holds a line break: multi-line text (a text block, a preview) is split into
   several lines first, tabs expanded, so one server string can never forge a line of ours.
3. A malformed block is shown with its problem (``problem``), never raised.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import json
import mimetypes
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from ..deadline import Deadline
from ..errors import RemoteProtocolError, TransportError
from .envelope import MetaKey
from .jsonrpc import ErrorResponse, Notification
from .methods import Method
from .outcome import OutcomeKind, ToolOutcome
from .schema import Validator

if TYPE_CHECKING:
    from .client import Client

__all__ = [
    "BlockView",
    "CallRecord",
    "MethodRecord",
    "Progress",
    "StructuredCheck",
    "StructuredVerdict",
    "call_meta",
    "check_structured",
    "exchange",
    "extension_for",
    "inspect",
    "inspect_call",
    "notification_line",
    "progress_bar",
    "progress_of",
    "record_call",
    "result_blocks",
    "view_block",
]

#: How many characters and lines of a text resource a preview shows.
PREVIEW_CHARS = 200
PREVIEW_LINES = 5
_BINARY = ("image", "audio")
#: MIME types servers send that ``mimetypes`` may not know (its table varies by system).
_EXTENSIONS = {
    "audio/wav": ".wav",
    "audio/x-wav": ".wav",
    "audio/wave": ".wav",
    "audio/mpeg": ".mp3",
    "audio/ogg": ".ogg",
    "audio/webm": ".weba",
    "audio/flac": ".flac",
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/gif": ".gif",
    "image/webp": ".webp",
    "image/svg+xml": ".svg",
}
_TOKENS = itertools.count(1)  # progress tokens, unique in this process


def _split(text: str) -> list[str]:
    """``text`` as lines split at ``\n`` (a ``\r`` before it dropped), tabs expanded (rule 2).

    Only ``\n`` ends a line: a lone ``\r`` (which would overwrite a line on a terminal) and
    the other characters ``str.splitlines`` would split at stay in the line, for the caller
    to escape.
    """
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r").expandtabs(8) for line in lines]


def _one_line(value: object) -> str:
    """A field shown inside one line: its line breaks folded to spaces (rule 2)."""
    return " ".join(_split(str(value)))


def _size(count: int) -> str:
    if count < 1024:
        return f"{count} bytes"
    if count < 1024 * 1024:
        return f"{count / 1024:.1f} KiB"
    return f"{count / (1024 * 1024):.1f} MiB"


def extension_for(mime_type: str | None) -> str:
    """The file extension (with its dot) for ``mime_type``; ``.bin`` when none is known."""
    if not mime_type:
        return ".bin"
    kind = mime_type.split(";")[0].strip().lower()
    found = _EXTENSIONS.get(kind) or mimetypes.guess_extension(kind, strict=False)
    return {".jpe": ".jpg"}.get(found or "", found or ".bin")


@dataclass(frozen=True)
class BlockView:
    """One content block as the inspector shows it.

    ``kind`` is the block's ``type`` as sent; ``size`` the decoded bytes of binary data
    (image, audio, blob) or the characters of text; ``data`` the decoded bytes (``None`` for
    text); ``preview`` the text or the start of it; ``problem`` what is wrong with the block
    (bad base64, a missing field), else ``None``.
    """

    index: int
    kind: str
    mime_type: str | None = None
    uri: str | None = None
    name: str | None = None
    size: int | None = None
    text: str | None = None
    data: bytes | None = None
    preview: tuple[str, ...] = ()
    truncated: bool = False
    annotations: Mapping[str, Any] = field(default_factory=dict)
    problem: str | None = None

    @property
    def binary(self) -> bool:
        """Whether the block carries bytes (image, audio, a blob resource) to save."""
        return self.data is not None

    def header(self) -> str:
        """The block's one line: index, kind, and what is known of it."""
        parts = [f"[{self.index}] {_one_line(self.kind)}"]
        if self.uri is not None:
            parts.append(_one_line(self.uri))
        if self.name is not None:
            parts.append(f"name={_one_line(self.name)}")
        if self.mime_type is not None:
            parts.append(_one_line(self.mime_type))
        if self.size is not None:
            text = self.kind == "text" or (self.kind == "resource" and self.data is None)
            parts.append(f"{self.size} chars" if text else _size(self.size))
        if self.annotations:
            pairs = ", ".join(
                f"{k}={_one_line(json.dumps(v))}" for k, v in self.annotations.items()
            )
            parts.append(f"annotations: {pairs}")
        if self.problem is not None:
            parts.append(f"PROBLEM: {self.problem}")
        return "  ".join(parts)

    def lines(self) -> list[str]:
        """The header, then the text (a text block) or its preview, indented."""
        body = _split(self.text) if self.kind == "text" and self.text is not None else []
        body = body or list(self.preview)
        if self.truncated:
            body.append("…")
        return [self.header(), *("    " + line for line in body)]


def _decode(data: object) -> tuple[bytes | None, str | None]:
    if not isinstance(data, str):
        return None, "no base64 data"
    try:
        return base64.b64decode(data, validate=True), None
    except (binascii.Error, ValueError):
        return None, "data is not valid base64"


def _preview(text: str) -> tuple[tuple[str, ...], bool]:
    lines = _split(text[:PREVIEW_CHARS])
    cut = len(text) > PREVIEW_CHARS or len(lines) > PREVIEW_LINES
    return tuple(lines[:PREVIEW_LINES]), cut


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _resource(index: int, block: Mapping[str, Any], annotations: Mapping[str, Any]) -> BlockView:
    inner = block.get("resource")
    if not isinstance(inner, Mapping):
        return BlockView(index, "resource", annotations=annotations, problem="no resource object")
    view = BlockView(
        index,
        "resource",
        uri=_str(inner.get("uri")),
        name=_str(inner.get("name")),
        mime_type=_str(inner.get("mimeType")),
        annotations=annotations,
    )
    if isinstance(inner.get("text"), str):
        text = inner["text"]
        preview, cut = _preview(text)
        return replace(view, size=len(text), preview=preview, truncated=cut)
    if "blob" in inner:
        data, problem = _decode(inner.get("blob"))
        size = len(data) if data is not None else None
        return replace(view, size=size, data=data, problem=problem)
    return replace(view, problem="neither text nor blob")


def view_block(index: int, block: Mapping[str, Any]) -> BlockView:
    """Read content block number ``index`` (rule 3: never raises for a malformed block)."""
    kind = block.get("type")
    kind = kind if isinstance(kind, str) else "?"
    raw = block.get("annotations")
    annotations: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    if kind == "text":
        text = block.get("text")
        if not isinstance(text, str):
            return BlockView(index, kind, annotations=annotations, problem="no text")
        return BlockView(index, kind, size=len(text), text=text, annotations=annotations)
    if kind in _BINARY:
        data, problem = _decode(block.get("data"))
        return BlockView(
            index,
            kind,
            mime_type=_str(block.get("mimeType")),
            size=len(data) if data is not None else None,
            data=data,
            annotations=annotations,
            problem=problem,
        )
    if kind == "resource_link":
        size = block.get("size")
        description = _str(block.get("description"))
        return BlockView(
            index,
            kind,
            mime_type=_str(block.get("mimeType")),
            uri=_str(block.get("uri")),
            name=_str(block.get("name")),
            preview=tuple(_split(description)) if description else (),
            annotations=annotations,
            size=size if isinstance(size, int) and not isinstance(size, bool) else None,
            problem=None if isinstance(block.get("uri"), str) else "no uri",
        )
    if kind == "resource":
        return _resource(index, block, annotations)
    shown = json.dumps(dict(block), ensure_ascii=False, sort_keys=True)
    preview, cut = _preview(shown)
    return BlockView(index, kind, preview=preview, truncated=cut, problem="unknown content type")


# --- structured content -----------------------------------------------------------------


class StructuredVerdict(StrEnum):
    """What ``structuredContent`` came to against the tool's ``outputSchema``."""

    VALID = "valid"  # present and valid against the output schema
    INVALID = "invalid"  # present and not valid: the server broke its own schema
    MISSING = "missing"  # the tool declares an output schema, the result has none
    UNCHECKED = "unchecked"  # present, but the tool declares no output schema
    BAD_SCHEMA = "bad schema"  # the tool's output schema is not a valid JSON Schema
    SKIPPED = "skipped"  # a tool error: its structured content is not checked
    ABSENT = "absent"  # neither a schema nor structured content


@dataclass(frozen=True)
class StructuredCheck:
    """The verdict on structured content, with ``problems`` (``path: message``) when
    invalid and the content itself."""

    verdict: StructuredVerdict
    problems: tuple[str, ...] = ()
    content: Any = None

    def lines(self) -> list[str]:
        """Nothing for :attr:`StructuredVerdict.ABSENT`; else the verdict, the content as
        indented JSON and each problem."""
        if self.verdict is StructuredVerdict.ABSENT:
            return []
        out = [f"structured content: {self.verdict.value}"]
        if self.content is not None:
            shown = json.dumps(self.content, ensure_ascii=False, indent=2, sort_keys=True)
            out.extend("    " + line for line in _split(shown))
        out.extend(f"    problem: {_one_line(p)}" for p in self.problems)
        return out


def check_structured(
    structured: Any, output_schema: Mapping[str, Any] | None, is_error: bool = False
) -> StructuredCheck:
    """Judge ``structured`` (``None``: the result had none) against ``output_schema``.

    The specification: a tool with an output schema must return conforming structured
    content, and a client should validate it; a tool error is not checked (as the SDKs do).
    Never raises (an invalid schema is :attr:`StructuredVerdict.BAD_SCHEMA`).
    """
    if is_error:
        verdict = StructuredVerdict.SKIPPED if structured is not None else StructuredVerdict.ABSENT
        return StructuredCheck(verdict, content=structured)
    if output_schema is None:
        if structured is None:
            return StructuredCheck(StructuredVerdict.ABSENT)
        return StructuredCheck(StructuredVerdict.UNCHECKED, content=structured)
    if structured is None:
        return StructuredCheck(StructuredVerdict.MISSING)
    try:
        validator = Validator(output_schema)
    except Exception as exc:  # jsonschema.SchemaError, or a schema that is not even a mapping
        message = getattr(exc, "message", None) or type(exc).__name__
        return StructuredCheck(StructuredVerdict.BAD_SCHEMA, (str(message),), structured)
    problems = tuple(validator.errors(structured))
    verdict = StructuredVerdict.INVALID if problems else StructuredVerdict.VALID
    return StructuredCheck(verdict, problems, structured)


# --- notifications ----------------------------------------------------------------------


@dataclass(frozen=True)
class Progress:
    """One ``notifications/progress``: ``progress`` out of ``total`` (``None``: unknown)."""

    token: Any
    progress: float
    total: float | None = None
    message: str | None = None

    @property
    def fraction(self) -> float | None:
        """``progress / total`` clamped to [0, 1], ``None`` without a positive total."""
        if self.total is None or self.total <= 0:
            return None
        return max(0.0, min(1.0, self.progress / self.total))


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def progress_of(notification: Notification) -> Progress | None:
    """The :class:`Progress` a notification carries; ``None`` for any other notification
    or a progress notification without a numeric ``progress``."""
    if notification.method != Method.NOTIFICATIONS_PROGRESS:
        return None
    params = notification.params or {}
    done = _number(params.get("progress"))
    if done is None:
        return None
    message = params.get("message")
    return Progress(
        params.get("progressToken"),
        done,
        _number(params.get("total")),
        message if isinstance(message, str) else None,
    )


def _figure(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def progress_bar(progress: Progress, width: int = 30) -> str:
    """One progress line: a bar of ``width`` cells when the total is known, the counts, the
    percentage and the server's message (one line, rule 2)."""
    counts = _figure(progress.progress)
    fraction = progress.fraction
    if fraction is None:
        text = f"progress {counts}"
    else:
        filled = round(fraction * width)
        bar = "█" * filled + "░" * (width - filled)
        assert progress.total is not None
        text = f"{bar} {counts}/{_figure(progress.total)} ({fraction:.0%})"
    if progress.message:
        text += f"  {_one_line(progress.message)}"
    return text


def _task_line(task: Mapping[str, Any]) -> str:
    """``task ID: STATUS (statusMessage)``, plus the methods an ``input_required`` task
    asks for."""
    line = f"task {task.get('taskId', '?')}: {task.get('status', '?')}"
    message = task.get("statusMessage")
    if isinstance(message, str):
        line += f" ({message})"
    asked = task.get("inputRequests")
    if isinstance(asked, Mapping) and asked:
        methods = sorted({str(r.get("method")) for r in asked.values() if isinstance(r, Mapping)})
        line += " asks " + ", ".join(methods)
    return _one_line(line)


def notification_line(notification: Notification) -> str:
    """One line for a notification: a log message as ``log LEVEL [logger]: data``, progress
    as its counts, a task's state (tasks extension) as ``task ID: STATUS (message)``, any
    other as its method and params (compact JSON)."""
    params = notification.params or {}
    if notification.method == Method.NOTIFICATIONS_MESSAGE:
        data = params.get("data")
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        logger = params.get("logger")
        where = f" [{_one_line(logger)}]" if isinstance(logger, str) else ""
        return f"log {_one_line(params.get('level', '?'))}{where}: {_one_line(text)}"
    if notification.method == Method.NOTIFICATIONS_TASKS:
        return _task_line(params)
    progress = progress_of(notification)
    if progress is not None:
        return "progress " + progress_bar(progress, width=0).lstrip(" ")
    shown = json.dumps(params, ensure_ascii=False, sort_keys=True) if params else ""
    return _one_line(f"notification {notification.method} {shown}".rstrip())


# --- one call ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CallRecord:
    """One ``tools/call`` as the inspector shows it: what was asked, what came back, what
    arrived while it ran, and the wire lines both ways (when the transport is traced)."""

    tool: str
    arguments: Mapping[str, Any]
    outcome: ToolOutcome
    blocks: tuple[BlockView, ...]
    structured: StructuredCheck
    notifications: tuple[Notification, ...] = ()
    wire: tuple[str, ...] = ()

    @property
    def is_error(self) -> bool:
        """Whether the result was marked ``isError: true``."""
        return self.outcome.kind is OutcomeKind.TOOL_ERROR

    def headline(self) -> str:
        """The outcome in one line: ``ok: N blocks``, ``tool_error (isError: true)…``,
        ``protocol_error CODE: message`` or ``no_answer: reason``."""
        kind = self.outcome.kind
        if kind is OutcomeKind.PROTOCOL_ERROR:
            return f"protocol_error {self.outcome.code}: {_one_line(self.outcome.message)}"
        if kind is OutcomeKind.NO_ANSWER:
            return f"no_answer: {_one_line(self.outcome.reason)}"
        count = len(self.blocks)
        blocks = f"{count} content block{'s' if count != 1 else ''}"
        if kind is OutcomeKind.TOOL_ERROR:
            return f"tool_error (isError: true) — {blocks}"
        return f"ok: {blocks}"

    def lines(self) -> list[str]:
        """The headline, every block, then the structured-content verdict."""
        out = [self.headline()]
        for block in self.blocks:
            out.extend(block.lines())
        out.extend(self.structured.lines())
        return out

    def text(self) -> str:
        """:meth:`lines` joined (unescaped: rule 1)."""
        return "\n".join(self.lines())


def record_call(
    tool: str,
    arguments: Mapping[str, Any],
    outcome: ToolOutcome,
    output_schema: Mapping[str, Any] | None = None,
    notifications: Sequence[Notification] = (),
    wire: Sequence[str] = (),
) -> CallRecord:
    """The :class:`CallRecord` of a finished call (pure: no I/O)."""
    blocks = tuple(view_block(i, b) for i, b in enumerate(outcome.content))
    answered = outcome.kind in (OutcomeKind.OK, OutcomeKind.TOOL_ERROR)
    structured = (
        check_structured(outcome.structured, output_schema, outcome.kind is OutcomeKind.TOOL_ERROR)
        if answered
        else StructuredCheck(StructuredVerdict.ABSENT)
    )
    return CallRecord(
        tool, dict(arguments), outcome, blocks, structured, tuple(notifications), tuple(wire)
    )


def call_meta(client: Client, log_level: str | None = "info") -> dict[str, Any]:
    """The ``_meta`` an inspected ``tools/call`` carries: a fresh progress token, and on the
    2026-07-28 generation (whose log level travels in each request) ``log_level``."""
    meta: dict[str, Any] = {"progressToken": f"inspect-{next(_TOKENS)}"}
    if log_level is not None and client.conn.version is not None:
        meta[MetaKey.LOG_LEVEL.value] = log_level
    return meta


def inspect_call(
    client: Client,
    tool: str,
    arguments: Mapping[str, Any] | None = None,
    output_schema: Mapping[str, Any] | None = None,
    on_notification: Callable[[Notification], None] | None = None,
    log_level: str | None = "info",
    timeout: float | None = None,
    *,
    deadline: Deadline | None = None,
) -> CallRecord:
    """Call ``tool`` on a connected ``client`` and return its :class:`CallRecord`.

    The request carries a progress token, and on the 2026-07-28 generation the log level
    (``log_level``; ``None`` asks for no log messages) in ``_meta``. Each notification that
    arrives while the call is pending goes to ``on_notification`` at once and into the
    record. When ``client.transport`` is a :class:`~.trace.Traced`, the record holds the
    wire lines of this call. The call ends by ``deadline`` (default ``timeout`` from now).
    Never raises for what the server does (see :meth:`~.client.Client.tool_outcome`); an
    exception of ``on_notification`` propagates.
    """
    arguments = dict(arguments or {})
    received: list[Notification] = []
    before = client.on_notification

    def arrived(notification: Notification) -> None:
        received.append(notification)
        if on_notification is not None:
            on_notification(notification)

    trace = getattr(client.transport, "trace", None)
    start = len(trace.events) if trace is not None else 0
    meta = call_meta(client, log_level)
    client.on_notification = arrived
    try:
        try:
            request_id = client.send_tool_call(tool, arguments, meta)
        except TransportError as exc:  # the server is gone before the call
            outcome = ToolOutcome(OutcomeKind.NO_ANSWER, tool, reason=f"server exited ({exc})")
        else:
            outcome = client.tool_outcome(tool, request_id, timeout, deadline=deadline)
    finally:
        client.on_notification = before
    wire = tuple(trace.lines()[start:]) if trace is not None else ()
    return record_call(tool, arguments, outcome, output_schema, received, wire)


# --- the whole inspection (``mcpmini call``) ---------------------------------------------


@dataclass(frozen=True)
class MethodRecord:
    """Any method but ``tools/call`` as the inspector shows it: the ``result`` object, or the
    server's error (``code``, ``message``); ``blocks`` the contents of a ``resources/read``
    or ``prompts/get`` result as block views (``None`` for other methods)."""

    method: str
    result: Mapping[str, Any] | None = None
    code: int | None = None
    message: str = ""
    blocks: tuple[BlockView, ...] | None = None

    @property
    def is_error(self) -> bool:
        """Whether the server answered with an error."""
        return self.code is not None

    def lines(self) -> list[str]:
        """The error line, the blocks, or for ``tools/list`` one line per tool (``name:
        first line of its description``); empty for a result shown as JSON."""
        if self.code is not None:
            return [f"error {self.code}: {_one_line(self.message)}"]
        if self.blocks is not None:
            return [line for block in self.blocks for line in block.lines()]
        if self.method != Method.TOOLS_LIST or self.result is None:
            return []
        out = []
        for tool in self.result.get("tools") or []:
            if isinstance(tool, Mapping):
                first = str(tool.get("description") or "").splitlines()[:1]
                out.append(_one_line(f"{tool.get('name')}: {first[0] if first else ''}"))
        return out


def result_blocks(method: str, result: Mapping[str, Any]) -> tuple[BlockView, ...] | None:
    """The contents of a ``resources/read`` or ``prompts/get`` result as block views, else
    ``None``."""
    if method == Method.RESOURCES_READ:
        items = result.get("contents")
        if isinstance(items, list):
            blocks = [{"type": "resource", "resource": c} for c in items if isinstance(c, dict)]
            return tuple(view_block(i, b) for i, b in enumerate(blocks))
    if method == Method.PROMPTS_GET:
        messages = result.get("messages")
        if isinstance(messages, list):
            contents = [m["content"] for m in messages if isinstance(m, dict) and "content" in m]
            return tuple(view_block(i, b) for i, b in enumerate(contents))
    return None


def _set_log_level(client: Client, level: str | None, deadline: Deadline) -> None:
    """On the handshake generation, ``logging/setLevel`` when asked and the server logs (on
    2026-07-28 the level travels in each request's ``_meta``)."""
    from .versions import Generation

    connection = client.connection
    if level is None or connection is None or connection.generation is not Generation.LEGACY:
        return
    if "logging" in connection.capabilities:
        try:
            client.request(Method.LOGGING_SET_LEVEL, {"level": level}, deadline=deadline)
        except RemoteProtocolError:
            pass  # the server keeps its own level; its messages still show


def _output_schema(client: Client, tool: str, deadline: Deadline) -> Mapping[str, Any] | None:
    """The ``outputSchema`` ``tools/list`` gives for ``tool`` (``None``: none, or no list)."""
    try:
        tools = client.list_tools(deadline=deadline)
    except RemoteProtocolError:
        return None
    found = next((t for t in tools if isinstance(t, dict) and t.get("name") == tool), None)
    schema = found.get("outputSchema") if found is not None else None
    return schema if isinstance(schema, dict) else None


def inspect(
    client: Client,
    method: str,
    params: Mapping[str, Any] | None = None,
    *,
    tool: str | None = None,
    deadline: Deadline,
    log_level: str | None = None,
    on_notification: Callable[[Notification], None] | None = None,
) -> CallRecord | MethodRecord:
    """Run ``method`` on a connected ``client`` as ``mcpmini call`` shows it, every wait
    within ``deadline``.

    ``tools/call`` (``tool`` names it, ``params`` are its arguments): the tool's output
    schema from ``tools/list``, then :func:`inspect_call` — a :class:`CallRecord`. Any other
    method: a :class:`MethodRecord` (the server's error is data there). ``log_level`` is
    asked for first on the handshake generation (``logging/setLevel``) and sent with the
    call on 2026-07-28. Raises :class:`~mcpmini.errors.TimedOut` and
    :class:`~mcpmini.errors.TransportError` for a wait that cannot end in an answer (a
    ``tools/call`` never raises: its outcome says it), ``ValueError`` for ``tools/call``
    without a ``tool``.
    """
    _set_log_level(client, log_level, deadline)
    if method == Method.TOOLS_CALL:
        if tool is None:
            raise ValueError("tools/call needs a tool name")
        schema = _output_schema(client, tool, deadline)
        return inspect_call(
            client,
            tool,
            params,
            schema,
            on_notification=on_notification,
            log_level=log_level or "info",
            deadline=deadline,
        )
    try:
        result = client.request(method, params or None, deadline=deadline)
    except RemoteProtocolError as exc:
        return MethodRecord(method, code=exc.code, message=exc.message)
    return MethodRecord(method, result, blocks=result_blocks(method, result))


def exchange(
    client: Client,
    method: str,
    params: Mapping[str, Any] | None = None,
    *,
    tool: str | None = None,
    deadline: Deadline,
    log_level: str | None = None,
) -> tuple[dict[str, Any], bool]:
    """The exact answer ``mcpmini call --json`` prints, and whether it is an error: the result
    object, ``{"error": {code, message, data}}``, or for a task the task's final state as
    ``tasks/get`` gave it (followed within ``deadline``, cancelled when it passes: then
    :class:`~mcpmini.errors.TimedOut` propagates). Raises ``ValueError`` for ``tools/call``
    without a ``tool``."""
    if method == Method.TOOLS_CALL:
        if tool is None:
            raise ValueError("tools/call needs a tool name")
        request_id = client.send_tool_call(tool, params, call_meta(client, log_level or "info"))
    else:
        request_id = client.send_request(method, params or None)
    reply = client.wait_for(request_id, deadline=deadline)
    if isinstance(reply, ErrorResponse):
        error = {"code": reply.code, "message": reply.message, "data": reply.data}
        return {"error": error}, True
    result = dict(reply.result)
    if result.get("resultType") == "task":
        task = client.follow_task(result, deadline=deadline)
        inner = task.get("result")
        return task, not (isinstance(inner, dict) and inner.get("isError") is not True)
    return result, result.get("isError") is True
