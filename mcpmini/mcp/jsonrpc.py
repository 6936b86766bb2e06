"""JSON-RPC 2.0 messages as MCP uses them, with no I/O.

A line of text becomes one of four frozen dataclasses through :func:`parse_line`, and a
dataclass becomes a line through :func:`encode`. JSON is read and written with
:mod:`orjson` (several times faster than the standard library on the hot path of every call;
integers beyond 64 bits are read as floats and so refused as ids).

Rules of this module:

* Anything that breaks JSON-RPC 2.0 or MCP's stricter id rule (no ``null`` ids) raises
  :class:`RemoteProtocolError` carrying the code the peer should hear back.
* Every error code on the wire is an :class:`ErrorCode` member; no other module writes one
  as a number.
* :func:`error_reply` is the single place where an exception becomes a wire error. It
  decides by type: a :class:`~mcpmini.errors.ProtocolError` keeps its code, message, data
  and HTTP status hint; anything else is ``INTERNAL_ERROR`` with the class name only, never
  a traceback or a text that might leak local paths.

:class:`PendingTable` is the sender's table of outstanding requests. It matches replies
to requests by id in whatever order they arrive (Proposition 3.3). The course's models of
the id rules of both generations (exercise 9.2) live in ``mcpmini.course.chapters.ids``.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import orjson

from ..errors import LocalProtocolError, ProtocolError, RemoteProtocolError

__all__ = [
    "ErrorCode",
    "ErrorResponse",
    "JsonId",
    "Message",
    "Notification",
    "PendingTable",
    "Request",
    "Response",
    "encode",
    "error_reply",
    "parse_line",
    "parse_object",
    "to_dict",
]

JsonId = int | str


class ErrorCode(IntEnum):
    """Error codes used on the wire (JSON-RPC 2.0 plus MCP's own)."""

    PARSE_ERROR = -32700
    INVALID_REQUEST = -32600
    METHOD_NOT_FOUND = -32601
    INVALID_PARAMS = -32602
    INTERNAL_ERROR = -32603
    #: 2026-07-28 (SEP-2243): an ``Mcp-*`` HTTP header disagrees with the body.
    HEADER_MISMATCH = -32020
    #: 2026-07-28: the request needs a client capability the client did not declare.
    MISSING_CLIENT_CAPABILITY = -32021
    #: 2026-07-28: the request's ``_meta`` names a protocol version the server lacks.
    UNSUPPORTED_PROTOCOL_VERSION = -32022


@dataclass(frozen=True)
class Request:
    """A request: expects exactly one reply carrying the same ``id``."""

    id: JsonId
    method: str
    params: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Notification:
    """A notification: has no id, and the receiver must not reply."""

    method: str
    params: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Response:
    """A successful reply."""

    id: JsonId
    result: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ErrorResponse:
    """An error reply. ``id`` is ``None`` only when the request's id could not be read.

    ``status_hint`` is not on the wire: the HTTP status the protocol error that caused this
    reply suggests (``None``: no opinion, as for an internal error or a parsed reply).
    """

    id: JsonId | None
    code: int
    message: str
    data: Any = None
    status_hint: int | None = field(default=None, compare=False, repr=False)


Message = Request | Notification | Response | ErrorResponse


def _valid_id(value: Any) -> bool:
    # bool is a subclass of int in Python, so it must be excluded explicitly.
    return (isinstance(value, int) and not isinstance(value, bool)) or isinstance(value, str)


def parse_line(line: str | bytes) -> Message:
    """Parse one line of a stdio stream into a message.

    Returns the message. Raises :class:`RemoteProtocolError` with ``code``
    ``PARSE_ERROR`` for bytes that are not UTF-8 or not JSON, ``INVALID_REQUEST`` for
    JSON that is not a single JSON-RPC 2.0 object (a batch array, a wrong or missing
    ``jsonrpc``, a missing ``method``, an id that is null, boolean, float or an object),
    and ``INVALID_PARAMS`` for ``params`` that is not an object. The exception's ``id``
    is set whenever a valid id could be read, so the error reply can carry it.
    """
    try:
        obj = orjson.loads(line)
    except ValueError as exc:  # orjson.JSONDecodeError, also for nesting deeper than 1024
        raise RemoteProtocolError(f"Parse error: {exc}", ErrorCode.PARSE_ERROR) from None
    return parse_object(obj)


def parse_object(obj: object) -> Message:
    """Validate an already-decoded JSON value as one message (see :func:`parse_line`)."""
    if isinstance(obj, list):
        raise RemoteProtocolError(
            "Invalid Request: batches (JSON arrays) are not supported by MCP",
            ErrorCode.INVALID_REQUEST,
        )
    if not isinstance(obj, dict):
        raise RemoteProtocolError(
            f"Invalid Request: expected a JSON object, got {type(obj).__name__}",
            ErrorCode.INVALID_REQUEST,
        )
    has_id = "id" in obj
    raw_id = obj.get("id")
    good_id = raw_id if has_id and _valid_id(raw_id) else None
    if obj.get("jsonrpc") != "2.0":
        raise RemoteProtocolError(
            'Invalid Request: "jsonrpc" must be the string "2.0"',
            ErrorCode.INVALID_REQUEST,
            good_id,
        )
    if "method" in obj:
        method = obj["method"]
        if not isinstance(method, str):
            raise RemoteProtocolError(
                'Invalid Request: "method" must be a string', ErrorCode.INVALID_REQUEST, good_id
            )
        if has_id and not _valid_id(raw_id):
            raise RemoteProtocolError(
                f"Invalid Request: id must be a string or an integer, got {json.dumps(raw_id)}",
                ErrorCode.INVALID_REQUEST,
            )
        params = obj.get("params")
        if params is not None and not isinstance(params, dict):
            raise RemoteProtocolError(
                '"params" must be an object in MCP', ErrorCode.INVALID_PARAMS, good_id
            )
        if has_id:
            return Request(typing.cast(JsonId, raw_id), method, params)
        return Notification(method, params)
    if "result" in obj or "error" in obj:
        return _parse_reply(obj, has_id, raw_id)
    raise RemoteProtocolError(
        'Invalid Request: missing "method"', ErrorCode.INVALID_REQUEST, good_id
    )


def _parse_reply(obj: dict[str, Any], has_id: bool, raw_id: Any) -> Message:
    if "result" in obj and "error" in obj:
        raise RemoteProtocolError(
            "Invalid Response: has both result and error", ErrorCode.INVALID_REQUEST
        )
    if "result" in obj:
        if not has_id or not _valid_id(raw_id):
            raise RemoteProtocolError(
                "Invalid Response: a result needs a string or integer id",
                ErrorCode.INVALID_REQUEST,
            )
        result = obj["result"]
        if not isinstance(result, dict):
            raise RemoteProtocolError(
                "Invalid Response: result must be an object", ErrorCode.INVALID_REQUEST, raw_id
            )
        return Response(raw_id, result)
    error = obj["error"]
    if raw_id is not None and not _valid_id(raw_id):
        raise RemoteProtocolError("Invalid Response: bad id", ErrorCode.INVALID_REQUEST)
    if (
        not isinstance(error, dict)
        or not isinstance(error.get("code"), int)
        or isinstance(error.get("code"), bool)
        or not isinstance(error.get("message"), str)
    ):
        raise RemoteProtocolError(
            "Invalid Response: error needs an integer code and a string message",
            ErrorCode.INVALID_REQUEST,
            raw_id,
        )
    return ErrorResponse(raw_id, error["code"], error["message"], error.get("data"))


def to_dict(message: Message) -> dict[str, Any]:
    """The JSON object for ``message`` (the dataclass as it travels on the wire)."""
    if isinstance(message, Request):
        out: dict[str, Any] = {"jsonrpc": "2.0", "id": message.id, "method": message.method}
        if message.params is not None:
            out["params"] = message.params
        return out
    if isinstance(message, Notification):
        out = {"jsonrpc": "2.0", "method": message.method}
        if message.params is not None:
            out["params"] = message.params
        return out
    if isinstance(message, Response):
        return {"jsonrpc": "2.0", "id": message.id, "result": message.result}
    error: dict[str, Any] = {"code": int(message.code), "message": message.message}
    if message.data is not None:
        error["data"] = message.data
    return {"jsonrpc": "2.0", "id": message.id, "error": error}


_OPTIONS = orjson.OPT_APPEND_NEWLINE | orjson.OPT_NON_STR_KEYS


def encode(message: Message) -> bytes:
    """One line of UTF-8 JSON, newline-terminated, for a stdio stream.

    Non-ASCII text is written as UTF-8, not escaped; JSON never contains a raw newline,
    so the line framing is safe. Raises ``TypeError`` for a value JSON cannot hold.
    """
    return orjson.dumps(to_dict(message), option=_OPTIONS)


def error_reply(exc: BaseException, id: JsonId | None = None) -> ErrorResponse:
    """Turn an exception into the error reply the peer should get.

    This is the only place where exceptions become wire errors. A
    :class:`~mcpmini.errors.ProtocolError` keeps its code, message, data, HTTP status hint
    and (when it has one) id; anything else becomes ``INTERNAL_ERROR`` with only the
    exception's class name, never a traceback or a message that might leak local paths.
    """
    if isinstance(exc, ProtocolError):
        return ErrorResponse(
            exc.id if exc.id is not None else id, exc.code, exc.message, exc.data, exc.status_hint
        )
    return ErrorResponse(id, ErrorCode.INTERNAL_ERROR, f"Internal error ({type(exc).__name__})")


class PendingTable:
    """The sender's table of outstanding requests (id → request).

    ``allocate()`` hands out integer ids that were never used on this table, which
    satisfies both generations' rules. ``add()`` refuses a request whose id equals an
    outstanding one (that would break the injectivity Proposition 3.3 needs).
    ``resolve()`` matches a reply to its request whatever the arrival order.
    """

    def __init__(self, start: int = 1) -> None:
        self._next = start
        self._pending: dict[JsonId, Request] = {}

    def allocate(self) -> int:
        """Return a fresh integer id (never used before on this table)."""
        value = self._next
        self._next += 1
        while value in self._pending:  # a caller may have added explicit integer ids
            value = self._next
            self._next += 1
        return value

    def add(self, request: Request) -> None:
        """Record ``request`` as outstanding.

        Raises :class:`LocalProtocolError` (``INVALID_REQUEST``) when its id equals the id
        of a request that is still outstanding.
        """
        if request.id in self._pending:
            raise LocalProtocolError(
                f"id {request.id!r} is already used by an outstanding request",
                ErrorCode.INVALID_REQUEST,
                request.id,
            )
        self._pending[request.id] = request

    def resolve(self, reply: Response | ErrorResponse) -> Request:
        """Remove and return the request that ``reply`` answers.

        An error reply with a ``null`` id answers the single outstanding request when
        there is exactly one. Raises :class:`RemoteProtocolError` when the reply's id
        matches no outstanding request (or a null id is ambiguous).
        """
        if reply.id is None:
            if len(self._pending) == 1:
                (only,) = self._pending
                return self._pending.pop(only)
            raise RemoteProtocolError(
                f"error reply with null id while {len(self._pending)} requests are outstanding",
                ErrorCode.INVALID_REQUEST,
            )
        try:
            return self._pending.pop(reply.id)
        except KeyError:
            raise RemoteProtocolError(
                f"reply id {reply.id!r} matches no outstanding request",
                ErrorCode.INVALID_REQUEST,
                reply.id,
            ) from None

    def discard(self, id: JsonId) -> Request | None:
        """Forget an outstanding request (after a timeout); return it, or ``None``."""
        return self._pending.pop(id, None)

    def outstanding(self) -> dict[JsonId, Request]:
        """A copy of the outstanding requests, by id."""
        return dict(self._pending)

    def __len__(self) -> int:
        return len(self._pending)

    def __contains__(self, id: object) -> bool:
        return id in self._pending
