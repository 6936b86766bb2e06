"""Hook handlers as frozen dataclasses, and how each kind is executed.

A handler is data: :class:`CommandHandler`, :class:`HttpHandler`, :class:`McpToolHandler`,
:class:`ModelHandler`, or :class:`CallbackHandler` around a plain Python callable with the
Agent SDK signature ``(input_data, tool_use_id, context)``. :func:`execute` runs one handler
once and returns an :class:`Execution`: raw facts (exit code, capped output, timeout, start
error, callback value). Turning those facts into an outcome is :mod:`mcpmini.hooks.outcomes`'
job.

Rules of this module:

* Every handler has a ``type`` (:class:`~mcpmini.hooks.options.HandlerType`) and one
  ``options`` (:class:`~mcpmini.hooks.options.HandlerOptions`, ``None`` fields inheriting the
  group's); nothing else carries a timeout, ``onFailure``, ``if``, ``once`` or ``async``.
* :func:`as_handler` is the one place a bare callable becomes a handler; past it, code sees
  only the :data:`Handler` union.
* :func:`execute` never raises for a failing hook: start errors, timeouts, exit codes and
  exceptions raised by a callback or a peer are data in the :class:`Execution`.

Command handlers run through :func:`mcpmini.process.run`, the one subprocess runner: when
the handler returns, times out or fails, everything it started is ended (its process group
and any child that left it with ``setsid`` or ``nohup``; under the sub-reaper launcher even one
that also cleared ``MCPMINI_PROCESS_RUN``), so nothing survives the hook.
stdout and stderr are drained by one selector loop and kept up to :data:`OUTPUT_CAP` bytes
each; the rest is read and discarded so a chatty hook can never fill the pipe and stall.
Non-UTF-8 bytes are decoded with replacement.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from .. import process
from .options import HandlerOptions, HandlerType

if TYPE_CHECKING:
    from ..mcp import Client

__all__ = [
    "OUTPUT_CAP",
    "CallbackHandler",
    "CommandHandler",
    "Execution",
    "Handler",
    "HandlerLike",
    "HttpHandler",
    "McpToolHandler",
    "ModelHandler",
    "as_handler",
    "describe",
    "execute",
    "handler_type",
]

OUTPUT_CAP = 1_000_000  # bytes kept per stream; the rest is drained and dropped
_PLUGIN_VARS = ("CLAUDE_PROJECT_DIR", "CLAUDE_PLUGIN_ROOT", "CLAUDE_PLUGIN_DATA")
_NO_OPTIONS = HandlerOptions()


@dataclass(frozen=True)
class CommandHandler:
    """``{"type": "command"}``: a shell command, or ``command`` + ``args`` run without a shell."""

    command: str
    args: tuple[str, ...] | None = None
    shell: str | None = None
    options: HandlerOptions = field(default=_NO_OPTIONS, kw_only=True)
    type: ClassVar[HandlerType] = HandlerType.COMMAND

    def identity(self) -> tuple[Any, ...] | None:
        """What makes two settings-file copies 'the same handler' (they run once)."""
        return ("command", self.command, self.args, self.shell)


@dataclass(frozen=True)
class HttpHandler:
    """``{"type": "http"}``: POST the input JSON to ``url``; the reply is read like stdout."""

    url: str
    headers: tuple[tuple[str, str], ...] = ()
    allowed_env_vars: tuple[str, ...] = ()
    options: HandlerOptions = field(default=_NO_OPTIONS, kw_only=True)
    type: ClassVar[HandlerType] = HandlerType.HTTP

    def identity(self) -> tuple[Any, ...] | None:
        return ("http", self.url)


@dataclass(frozen=True)
class McpToolHandler:
    """``{"type": "mcp_tool"}``: call ``tool`` on an already connected MCP ``server``."""

    server: str
    tool: str
    input: Mapping[str, Any] = field(default_factory=dict)
    options: HandlerOptions = field(default=_NO_OPTIONS, kw_only=True)
    type: ClassVar[HandlerType] = HandlerType.MCP_TOOL

    def identity(self) -> tuple[Any, ...] | None:
        return ("mcp_tool", self.server, self.tool, json.dumps(dict(self.input), sort_keys=True))


@dataclass(frozen=True)
class ModelHandler:
    """``{"type": "prompt"|"agent"}``: needs a model, so it is parsed but never run offline.

    Raises ``ValueError`` when ``kind`` is not ``prompt`` or ``agent``.
    """

    kind: HandlerType
    prompt: str
    model: str | None = None
    options: HandlerOptions = field(default=_NO_OPTIONS, kw_only=True)

    def __post_init__(self) -> None:
        kind = HandlerType(self.kind)
        if kind not in (HandlerType.PROMPT, HandlerType.AGENT):
            raise ValueError(f"a model handler is a prompt or agent handler, not {kind}")
        object.__setattr__(self, "kind", kind)

    @property
    def type(self) -> HandlerType:
        return self.kind

    def identity(self) -> tuple[Any, ...] | None:
        return (self.kind.value, self.prompt, self.model)


@dataclass(frozen=True)
class CallbackHandler:
    """A Python callable ``(input_data, tool_use_id, context) -> dict`` (sync or async).

    Its return value is read as the hook's JSON output. Callbacks are never deduplicated
    and ``once`` does not apply to them (``identity`` is ``None``).
    """

    function: Callable[..., Any]
    options: HandlerOptions = field(default=_NO_OPTIONS, kw_only=True)
    type: ClassVar[HandlerType] = HandlerType.CALLBACK

    def identity(self) -> tuple[Any, ...] | None:
        return None


Handler = CommandHandler | HttpHandler | McpToolHandler | ModelHandler | CallbackHandler
HandlerLike = Handler | Callable[..., Any]  # what a HookMatcher accepts in code
_HANDLER_CLASSES = (CommandHandler, HttpHandler, McpToolHandler, ModelHandler, CallbackHandler)


def as_handler(value: HandlerLike) -> Handler:
    """``value`` as a :data:`Handler`: handlers unchanged, a callable wrapped in a
    :class:`CallbackHandler`. The one place a callable becomes a handler. Raises
    ``TypeError`` for anything else."""
    if isinstance(value, _HANDLER_CLASSES):
        return value
    if callable(value):
        return CallbackHandler(value)
    raise TypeError(f"not a hook handler: {value!r}")


@dataclass(frozen=True)
class Execution:
    """Raw facts of one handler execution (no interpretation yet).

    ``exit_code`` is ``None`` when no process exit code exists (not started, HTTP, callback).
    ``start_error`` says why it could not start; ``timed_out`` that it was cut off;
    ``error`` any other failure (a callback raised, an HTTP status, an MCP tool error);
    ``value`` is a callback's return value; ``stdout`` the text read like hook stdout.
    """

    kind: str
    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""
    stdout_bytes: int = 0
    truncated: bool = False
    timed_out: bool = False
    start_error: str | None = None
    error: str | None = None
    value: Any = None
    started: float = 0.0
    finished: float = 0.0

    @property
    def duration(self) -> float:
        """Seconds from start to end."""
        return self.finished - self.started


def handler_type(handler: HandlerLike) -> HandlerType:
    """The ``type`` of a handler (:attr:`HandlerType.CALLBACK` for a Python callable)."""
    return as_handler(handler).type


def describe(handler: HandlerLike) -> str:
    """A short human label: the command, URL, server/tool or callable name."""
    handler = as_handler(handler)
    if isinstance(handler, CommandHandler):
        return " ".join([handler.command, *(handler.args or ())])
    if isinstance(handler, HttpHandler):
        return f"POST {handler.url}"
    if isinstance(handler, McpToolHandler):
        return f"mcp_tool {handler.server}/{handler.tool}"
    if isinstance(handler, ModelHandler):
        return f"{handler.kind}: {handler.prompt[:40]}"
    fn = handler.function
    return f"callback {getattr(fn, '__qualname__', repr(fn))}"


def _substitute(text: str, env: Mapping[str, str]) -> str:
    for name in _PLUGIN_VARS:
        if name in env:
            text = text.replace("${" + name + "}", env[name])
    return text


def run_process(
    argv: list[str],
    stdin: bytes,
    *,
    env: Mapping[str, str],
    cwd: str | None,
    timeout: float,
    cap: int = OUTPUT_CAP,
) -> Execution:
    """Run ``argv`` through :func:`mcpmini.process.run`, feeding ``stdin``; return what happened.

    stdout and stderr are kept up to ``cap`` bytes each (the rest is drained and dropped).
    When the hook exits, or ``timeout`` seconds pass, everything it started is ended.
    Never raises for a failing command: start errors, timeouts and exit codes are data.
    """
    started = time.perf_counter()
    done = process.run(argv, stdin=stdin, env=env, cwd=cwd, timeout=timeout, cap=cap, reaper=True)
    finished = time.perf_counter()
    if done.start_error is not None:
        return Execution(
            "command", start_error=done.start_error, started=started, finished=finished
        )
    if done.timed_out:
        return Execution(
            "command",
            timed_out=True,
            started=started,
            finished=finished,
            stdout_bytes=done.stdout_bytes,
        )
    return Execution(
        "command",
        exit_code=done.exit_code,
        stdout=done.stdout.decode("utf-8", errors="replace"),
        stderr=done.stderr.decode("utf-8", errors="replace"),
        stdout_bytes=done.stdout_bytes,
        truncated=done.truncated,
        started=started,
        finished=finished,
    )


def _run_command(
    h: CommandHandler, body: bytes, env: Mapping[str, str], cwd: str | None, timeout: float
) -> Execution:
    if h.args is not None:
        argv = [_substitute(h.command, env), *(_substitute(a, env) for a in h.args)]
    else:
        argv = [h.shell or "sh", "-c", _substitute(h.command, env)]
    return run_process(argv, body, env=env, cwd=cwd, timeout=timeout)


_VAR = re.compile(r"\$\{(\w+)\}|\$(\w+)")


def _run_http(h: HttpHandler, body: bytes, env: Mapping[str, str], timeout: float) -> Execution:
    started = time.perf_counter()
    allowed = set(h.allowed_env_vars)

    def expand(value: str) -> str:
        return _VAR.sub(
            lambda m: env.get(m[1] or m[2], "") if (m[1] or m[2]) in allowed else "", value
        )

    headers = {"Content-Type": "application/json", **{k: expand(v) for k, v in h.headers}}
    request = urllib.request.Request(h.url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            text = reply.read(OUTPUT_CAP + 1).decode("utf-8", errors="replace")
            return Execution(
                "http",
                exit_code=None,
                stdout=text[:OUTPUT_CAP],
                truncated=len(text) > OUTPUT_CAP,
                started=started,
                finished=time.perf_counter(),
            )
    except urllib.error.HTTPError as exc:
        error = f"HTTP {exc.code}"
    except TimeoutError:
        return Execution("http", timed_out=True, started=started, finished=time.perf_counter())
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError):
            return Execution("http", timed_out=True, started=started, finished=time.perf_counter())
        return Execution(
            "http",
            start_error=f"connection failed: {reason}",
            started=started,
            finished=time.perf_counter(),
        )
    return Execution("http", error=error, started=started, finished=time.perf_counter())


def _fill(value: Any, payload: Mapping[str, Any]) -> Any:
    """Substitute ``${a.b}`` paths of the hook input inside string values."""
    if isinstance(value, str):

        def look(m: re.Match[str]) -> str:
            node: Any = payload
            for part in m[1].split("."):
                node = node.get(part, "") if isinstance(node, Mapping) else ""
            return node if isinstance(node, str) else json.dumps(node)

        return re.sub(r"\$\{([\w.]+)\}", look, value)
    if isinstance(value, Mapping):
        return {k: _fill(v, payload) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, payload) for v in value]
    return value


def _run_mcp(
    h: McpToolHandler, payload: Mapping[str, Any], clients: Mapping[str, Any], timeout: float
) -> Execution:
    started = time.perf_counter()
    client = clients.get(h.server)
    if client is None:
        return Execution(
            "mcp_tool",
            start_error=f"MCP server {h.server!r} is not connected",
            started=started,
            finished=time.perf_counter(),
        )
    from ..mcp import to_tool_result  # the runtime's total map outcome -> tool_result

    try:
        outcome = client.call_tool(h.tool, _fill(dict(h.input), payload), timeout=timeout)
        result = to_tool_result(outcome, "hook")
    except Exception as exc:  # a broken peer is a hook failure, not a crash of the runner
        return Execution(
            "mcp_tool",
            error=f"{type(exc).__name__}: {exc}",
            started=started,
            finished=time.perf_counter(),
        )
    text = result.get("content", "")
    text = text if isinstance(text, str) else json.dumps(text)
    error = "tool error" if result.get("is_error") else None
    return Execution(
        "mcp_tool", stdout=text, error=error, started=started, finished=time.perf_counter()
    )


def _run_callback(
    cb: Callable[..., Any], payload: Mapping[str, Any], tool_use_id: str | None, timeout: float
) -> Execution:
    started = time.perf_counter()
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            value = cb(dict(payload), tool_use_id, {"signal": None})
            if inspect.isawaitable(value):
                value = asyncio.run(asyncio.wait_for(_awaited(value), timeout))
            box["value"] = value
        except TimeoutError:
            box["timeout"] = True
        except Exception as exc:  # a raising callback is a failed hook
            box["error"] = f"{type(exc).__name__}: {exc}"

    worker = threading.Thread(target=target, daemon=True)  # a sync hang cannot be interrupted
    worker.start()
    worker.join(timeout)
    finished = time.perf_counter()
    if worker.is_alive() or box.get("timeout"):
        return Execution("callback", timed_out=True, started=started, finished=finished)
    return Execution(
        "callback",
        value=box.get("value"),
        error=box.get("error"),
        started=started,
        finished=finished,
    )


async def _awaited(value: Any) -> Any:
    return await value


def execute(
    handler: Handler,
    payload: Mapping[str, Any],
    *,
    tool_use_id: str | None,
    env: Mapping[str, str],
    cwd: str | None,
    timeout: float,
    mcp_clients: Mapping[str, Client] | None = None,
    body: bytes | None = None,
) -> Execution:
    """Run ``handler`` once on ``payload`` (the hook input) and return the raw facts.

    ``body`` is ``payload`` already serialized as UTF-8 JSON, when the caller has it.
    ``timeout`` is the resolved limit in seconds (the handler's own options are not read
    here; the runner resolves them). Never raises for a failing hook.
    """
    if body is None:
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    if isinstance(handler, CommandHandler):
        return _run_command(handler, body, env, cwd, timeout)
    if isinstance(handler, HttpHandler):
        return _run_http(handler, body, env, timeout)
    if isinstance(handler, McpToolHandler):
        return _run_mcp(handler, payload, mcp_clients or {}, timeout)
    if isinstance(handler, ModelHandler):
        now = time.perf_counter()
        return Execution(
            handler.kind.value,
            start_error=f"{handler.kind} hooks need a model; "
            "mcpmini runs them only with a model adapter",
            started=now,
            finished=now,
        )
    return _run_callback(handler.function, payload, tool_use_id, timeout)
