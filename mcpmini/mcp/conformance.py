"""The fixture server of the official MCP conformance suite (``mcpmini serve conformance``).

Every tool, resource, prompt and method the suite's server scenarios call, under the names
and with the behaviour the suite checks (reference: ``mcp-conformance.md`` §3), on both
generations: the 2025-11-25 handshake (logging, subscriptions, sampling and elicitation sent
to the client during a call) and the 2026-07-28 stateless wire (``ttlMs`` / ``cacheScope``,
``MISSING_CLIENT_CAPABILITY`` for a missing client capability, and the SEP-2322 *input
required* results, whose ``requestState`` is signed so that a tampered state is refused).

The extra methods are ``on_<method>`` handlers; which generation has them comes from
:mod:`.methods`. Per-connection state (log level, subscriptions, client capabilities) lives in
the :class:`~mcpmini.mcp.server.ServerConnection` each handler receives, never on the server.

The suite is HTTP-only; the server also works over stdio, where a call cannot stream, so
progress and log messages are dropped and sampling fails as a tool error.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, ClassVar

import orjson

from ..errors import RemoteProtocolError
from .context import LOG_LEVELS, current_call
from .jsonrpc import ErrorCode, Request
from .methods import Method
from .server import Server, ServerConnection, runs_as_task
from .tasks import TASKS_EXTENSION, TaskCancelled, TaskSupport
from .versions import KNOWN_VERSIONS, Generation

__all__ = [
    "ConformanceServer",
    "conformance_server",
]

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5E"
    "rkJggg=="
)
WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
JSON_SCHEMA_2020_12: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}
_TEXT_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
_ELICIT_NAME = {
    "method": Method.ELICITATION_CREATE,
    "params": {"mode": "form", "message": "What is your name?", "requestedSchema": _TEXT_SCHEMA},
}
_ELICIT_CONTEXT = {
    "method": Method.ELICITATION_CREATE,
    "params": {
        "mode": "form",
        "message": "What context should the prompt use?",
        "requestedSchema": {
            "type": "object",
            "properties": {"context": {"type": "string"}},
            "required": ["context"],
        },
    },
}
_SAMPLE = {
    "method": Method.SAMPLING_CREATE_MESSAGE,
    "params": {
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}
        ],
        "maxTokens": 100,
    },
}
_ROOTS = {"method": Method.ROOTS_LIST, "params": {}}
_CONFIRM = {
    "method": Method.ELICITATION_CREATE,
    "params": {
        "mode": "form",
        "message": "Confirm?",
        "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
    },
}


_MRTR_PREFIX = "test_input_required_result_"
_NEEDS_SAMPLING: dict[str, Any] = {"requiredCapabilities": {"sampling": {}}}


def _text(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}]


def _user(content: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": content}


def _accepted(answer: Any, field: str | None = None) -> dict[str, Any] | None:
    """The content of an elicitation answer the user accepted (with a string ``field``), or
    ``None``."""
    if not isinstance(answer, dict) or answer.get("action") != "accept":
        return None
    content = answer.get("content")
    if not isinstance(content, dict) or (
        field is not None and not isinstance(content.get(field), str)
    ):
        return None
    return content


def _completed(result: Mapping[str, Any]) -> str:
    return f"Elicitation completed: action={result.get('action')}, content={result.get('content')}"


@dataclass(frozen=True)
class _Round:
    """One call of an input-required tool: its name, the answers sent, the verified state."""

    name: str
    answers: Mapping[str, Any]
    payload: Mapping[str, Any] | None
    caps: Mapping[str, Any]

    def has(self, *keys: str) -> bool:
        """True when the client answered every input named in ``keys``."""
        return all(isinstance(self.answers.get(k), dict) for k in keys)

    @property
    def done(self) -> dict[str, Any]:
        """The tool's final result."""
        return {"content": _text(f"{self.name} complete"), "isError": False}


# --- the prompts ---------------------------------------------------------------------------


def _prompt_messages(name: str, args: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The messages of the prompt fixture ``name`` (all but the input-required one)."""
    if name == "test_simple_prompt":
        return [_user({"type": "text", "text": "This is a simple prompt for testing."})]
    if name == "test_prompt_with_arguments":
        text = f"Prompt with arguments: arg1='{args['arg1']}', arg2='{args['arg2']}'"
        return [_user({"type": "text", "text": text})]
    if name == "test_prompt_with_embedded_resource":
        resource = {
            "uri": args["resourceUri"],
            "mimeType": "text/plain",
            "text": "Embedded resource content for testing.",
        }
        return [
            _user({"type": "resource", "resource": resource}),
            _user({"type": "text", "text": "Please process the embedded resource above."}),
        ]
    return [  # test_prompt_with_image
        _user({"type": "image", "data": PNG, "mimeType": "image/png"}),
        _user({"type": "text", "text": "Please analyze the image above."}),
    ]


# --- the tools (registered in this order: the suite calls tools[0] with {}) ----------------


def test_simple_text() -> list[dict[str, Any]]:
    """Returns a simple text response."""
    return _text("This is a simple text response for testing.")


def test_image_content() -> list[dict[str, Any]]:
    """Returns a small PNG image."""
    return [{"type": "image", "data": PNG, "mimeType": "image/png"}]


def test_audio_content() -> list[dict[str, Any]]:
    """Returns a short WAV clip."""
    return [{"type": "audio", "data": WAV, "mimeType": "audio/wav"}]


def test_embedded_resource() -> list[dict[str, Any]]:
    """Returns an embedded text resource."""
    return [
        {
            "type": "resource",
            "resource": {
                "uri": "test://embedded-resource",
                "mimeType": "text/plain",
                "text": "This is an embedded resource content.",
            },
        }
    ]


def test_multiple_content_types() -> list[dict[str, Any]]:
    """Returns text, an image and an embedded resource."""
    return [
        {"type": "text", "text": "Multiple content types test:"},
        {"type": "image", "data": PNG, "mimeType": "image/png"},
        {
            "type": "resource",
            "resource": {
                "uri": "test://mixed-content-resource",
                "mimeType": "application/json",
                "text": '{"test":"data","value":123}',
            },
        },
    ]


def test_tool_with_logging() -> str:
    """Sends three log messages while it runs."""
    call = current_call()
    for text in ("Tool execution started", "Tool processing data", "Tool execution completed"):
        call.log("info", text)
    return "Tool with logging executed successfully"


def test_tool_with_progress() -> str:
    """Sends progress 0, 50 and 100 out of 100 before its result."""
    call = current_call()
    for done in (0, 50, 100):
        call.progress(done, 100)
    return f"Progress completed (token {call.progress_token})"


def test_error_handling() -> str:
    """Always fails (a tool error, not a protocol error)."""
    raise RuntimeError("This tool intentionally returns an error for testing")


def test_sampling(prompt: str) -> str:
    """Asks the client's model to complete the prompt (sampling).

    Args:
        prompt: the text to send to the model
    """
    result = current_call().request(
        Method.SAMPLING_CREATE_MESSAGE,
        {
            "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
            "maxTokens": 100,
        },
    )
    content = result.get("content")
    text = content.get("text") if isinstance(content, dict) else None
    return f"LLM response: {text}"


def test_elicitation(message: str) -> str:
    """Asks the user for input through the client (elicitation).

    Args:
        message: what to ask the user
    """
    response = {"type": "string", "description": "User's response"}
    result = current_call().request(
        Method.ELICITATION_CREATE,
        {
            "mode": "form",
            "message": message,
            "requestedSchema": {
                "type": "object",
                "properties": {"response": response},
                "required": ["response"],
            },
        },
    )
    return f"User response: action={result.get('action')}, content={result.get('content')}"


_DEFAULTS_FORM = {
    "type": "object",
    "required": [],
    "properties": {
        "name": {"type": "string", "description": "Name", "default": "John Doe"},
        "age": {"type": "integer", "description": "Age", "default": 30},
        "score": {"type": "number", "description": "Score", "default": 95.5},
        "status": {
            "type": "string",
            "description": "Status",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "description": "Verified", "default": True},
    },
}


def test_elicitation_sep1034_defaults() -> str:
    """Elicits a form whose fields carry default values (SEP-1034)."""
    result = current_call().request(
        Method.ELICITATION_CREATE,
        {
            "mode": "form",
            "message": "Please review the defaults",
            "requestedSchema": _DEFAULTS_FORM,
        },
    )
    return _completed(result)


_OPTIONS = ["option1", "option2", "option3"]
_TITLED = [{"const": o, "title": o.title()} for o in _OPTIONS]
_ENUMS_FORM = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": _OPTIONS},
        "titledSingle": {"type": "string", "oneOf": _TITLED},
        "legacyEnum": {"type": "string", "enum": _OPTIONS, "enumNames": ["One", "Two", "Three"]},
        "untitledMulti": {"type": "array", "items": {"type": "string", "enum": _OPTIONS}},
        "titledMulti": {"type": "array", "items": {"anyOf": _TITLED}},
    },
}


def test_elicitation_sep1330_enums() -> str:
    """Elicits a form with the five enum shapes of SEP-1330."""
    result = current_call().request(
        Method.ELICITATION_CREATE,
        {"mode": "form", "message": "Please pick options", "requestedSchema": _ENUMS_FORM},
    )
    return _completed(result)


def test_missing_capability() -> str:
    """Needs the client's sampling capability (2026-07-28: an error without it)."""
    return "The client declared sampling"


def test_streaming_elicitation() -> str:
    """On the stateless wire this tool does not elicit (no requests inside a response)."""
    return "No elicitation on the stateless wire"


def test_logging_tool() -> str:
    """Logs only when the request asked for a log level."""
    current_call().log("info", "test_logging_tool ran")
    return "Logging tool executed"


def test_x_mcp_header(region: str = "") -> str:
    """Echoes a region that also travels in the Mcp-Param-Region header."""
    return f"Region: {region}"


# --- the tasks extension's fixtures (SEP-2663) -----------------------------------------------


def greet(name: str) -> str:
    """Greets by name, at once (never a task).

    Args:
        name: who to greet
    """
    return f"Hello, {name}!"


def _pause(seconds: float) -> None:
    """Wait ``seconds``, reporting progress each second; raise :class:`TaskCancelled` when the
    call is cancelled meanwhile."""
    call = current_call()
    steps = max(math.ceil(seconds), 1)
    for step in range(steps):
        if call.cancelled.wait(seconds / steps):
            raise TaskCancelled("cancelled")
        call.progress(step + 1, steps)


def slow_compute(seconds: float, label: str = "") -> str:
    """Computes for the given number of seconds (a task when the client supports tasks).

    Args:
        seconds: how long the computation takes
        label: a name echoed in the result
    """
    _pause(seconds)
    return f"Computed {label or 'result'} in {seconds:g}s"


def failing_job() -> str:
    """Runs for about a second, then fails with a tool error (only as a task)."""
    _pause(1)
    raise RuntimeError("The job failed (a tool error, reported in the result)")


def protocol_error_job() -> str:
    """Fails with a protocol error (a task then ends as failed)."""
    raise RemoteProtocolError("The job hit an internal failure", ErrorCode.INTERNAL_ERROR)


def _confirm_form(message: str) -> dict[str, Any]:
    return {
        "mode": "form",
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {"confirm": {"type": "boolean"}, "name": {"type": "string"}},
            "required": ["confirm"],
        },
    }


def confirm_delete(filename: str) -> str:
    """Asks the user to confirm, then deletes the file (pretend).

    Args:
        filename: the file to delete
    """
    answer = current_call().request(Method.ELICITATION_CREATE, _confirm_form(f"Delete {filename}?"))
    content = _accepted(answer)
    if content is not None and content.get("confirm") is True:
        return f"Deleted {filename}"
    return f"Kept {filename}"


def multi_input() -> str:
    """Asks two questions at once (two input requests pending together)."""
    call = current_call()
    forms = [_confirm_form(f"Question {n} of 2: confirm?") for n in (1, 2)]
    with ThreadPoolExecutor(2, "mcpmini-multi-input") as pool:
        answers = list(pool.map(lambda form: call.request(Method.ELICITATION_CREATE, form), forms))
    names = [str((_accepted(a) or {}).get("name", "?")) for a in answers]
    return "Answers: " + ", ".join(names)


_TASK_TOOLS: list[tuple[Callable[..., object], TaskSupport]] = [
    (greet, TaskSupport.FORBIDDEN),
    (slow_compute, TaskSupport.OPTIONAL),
    (failing_job, TaskSupport.REQUIRED),
    (protocol_error_job, TaskSupport.OPTIONAL),
    (confirm_delete, TaskSupport.OPTIONAL),
    (multi_input, TaskSupport.OPTIONAL),
]
_TOOL_WITH_TASK = "test_tool_with_task"

_TOOLS: list[Callable[..., object]] = [
    test_simple_text,
    test_image_content,
    test_audio_content,
    test_embedded_resource,
    test_multiple_content_types,
    test_tool_with_logging,
    test_tool_with_progress,
    test_error_handling,
    test_sampling,
    test_elicitation,
    test_elicitation_sep1034_defaults,
    test_elicitation_sep1330_enums,
    test_missing_capability,
    test_streaming_elicitation,
    test_logging_tool,
]
_REGION_SCHEMA = {
    "type": "object",
    "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
}


class ConformanceServer(Server):
    """A :class:`Server` with the suite's fixtures and the extra methods they need.

    ``state_key`` signs ``requestState`` (HMAC-SHA256); every worker serving one URL must
    share it, so it is a parameter, not a per-process secret.
    """

    def __init__(self, state_key: bytes = b"mcpmini-conformance-fixture") -> None:
        super().__init__("mcpmini-conformance", "0.1.0", versions=KNOWN_VERSIONS)
        self.state_key = state_key
        self._register()

    def _register(self) -> None:
        for fn in _TOOLS:
            self.add_tool(fn)
        self.add_tool(test_x_mcp_header, input_schema=_REGION_SCHEMA)
        for fn, support in _TASK_TOOLS:
            self.add_tool(fn, task=support)
        self.add_tool(
            lambda **kwargs: "unreachable",
            _TOOL_WITH_TASK,
            "Asks for a name (input required), then greets in a task (tasks extension only)",
            {"type": "object", "properties": {}},
            task=TaskSupport.REQUIRED,
        )
        self.add_tool(
            lambda **kwargs: "ok",
            "json_schema_2020_12_tool",
            "A tool whose input schema uses JSON Schema 2020-12 keywords",
            JSON_SCHEMA_2020_12,
        )
        for name in self._MRTR_STEPS:
            self.add_tool(
                lambda **kwargs: "unreachable",
                _MRTR_PREFIX + name,
                f"Input-required fixture ({name.replace('_', ' ')}), 2026-07-28 only",
                {"type": "object", "properties": {}},
            )

    # --- listing and capabilities -------------------------------------------------------

    def tool_definitions(self) -> list[dict[str, Any]]:
        """Registration order: the suite calls ``tools[0]`` with ``{}``."""
        return [tool.definition() for tool in self.tools.values()]

    def capabilities(self, generation: Generation) -> dict[str, Any]:
        """Legacy: tools, subscribable resources, prompts, logging, completions; modern: no
        logging or subscriptions (those methods are gone from the stateless wire)."""
        if generation is Generation.MODERN:
            return {
                "tools": {},
                "resources": {},
                "prompts": {},
                "completions": {},
                "extensions": {TASKS_EXTENSION: {}},
            }
        return {
            "tools": {},
            "resources": {"subscribe": True},
            "prompts": {},
            "logging": {},
            "completions": {},
        }

    # --- state signing for input-required results ---------------------------------------

    def sign(self, payload: Mapping[str, Any]) -> str:
        """An opaque ``requestState`` carrying ``payload``, signed with ``state_key``."""
        body = base64.urlsafe_b64encode(orjson.dumps(payload)).decode()
        mac = hmac.new(self.state_key, body.encode(), hashlib.sha256).hexdigest()
        return f"v1.{body}.{mac}"

    def verify(self, state: Any, req: Request) -> dict[str, Any]:
        """The payload of a ``requestState``; raises ``INVALID_PARAMS`` when it was tampered
        with."""
        try:
            version, body, mac = str(state).split(".")
            good = hmac.new(self.state_key, body.encode(), hashlib.sha256).hexdigest()
            if version != "v1" or not hmac.compare_digest(mac, good):
                raise ValueError("bad signature")
            payload = orjson.loads(base64.urlsafe_b64decode(body.encode()))
            if not isinstance(payload, dict):
                raise ValueError("bad payload")
            return payload
        except ValueError:
            raise RemoteProtocolError(
                "Invalid or expired requestState", ErrorCode.INVALID_PARAMS, req.id
            ) from None

    # --- method handlers ----------------------------------------------------------------

    def on_logging_set_level(
        self, conn: ServerConnection, req: Request, params: dict[str, Any]
    ) -> dict[str, Any]:
        """``logging/setLevel``: the connection's least severe level."""
        level = params.get("level")
        if level not in LOG_LEVELS:
            raise RemoteProtocolError(
                f"Invalid params: level must be one of {LOG_LEVELS}",
                ErrorCode.INVALID_PARAMS,
                req.id,
            )
        conn.log_level = str(level)
        return {}

    @staticmethod
    def _uri(req: Request, params: Mapping[str, Any]) -> str:
        uri = params.get("uri")
        if not isinstance(uri, str):
            raise RemoteProtocolError(
                "Invalid params: uri must be a string", ErrorCode.INVALID_PARAMS, req.id
            )
        return uri

    def on_resources_subscribe(
        self, conn: ServerConnection, req: Request, params: dict[str, Any]
    ) -> dict[str, Any]:
        """``resources/subscribe``: add the URI to the connection's subscriptions."""
        conn.subscriptions.add(self._uri(req, params))
        return {}

    def on_resources_unsubscribe(
        self, conn: ServerConnection, req: Request, params: dict[str, Any]
    ) -> dict[str, Any]:
        """``resources/unsubscribe``: drop the URI from the connection's subscriptions."""
        conn.subscriptions.discard(self._uri(req, params))
        return {}

    def on_completion_complete(
        self, conn: ServerConnection, req: Request, params: dict[str, Any]
    ) -> dict[str, Any]:
        """``completion/complete``: no completions."""
        return {"completion": {"values": [], "total": 0, "hasMore": False}}

    def on_resources_templates_list(
        self, conn: ServerConnection, req: Request, params: dict[str, Any]
    ) -> dict[str, Any]:
        """``resources/templates/list``: one template with an id."""
        return {
            "resourceTemplates": [
                {
                    "uriTemplate": "test://template/{id}/data",
                    "name": "template",
                    "description": "A resource template with one id",
                    "mimeType": "application/json",
                }
            ]
        }

    _RESOURCES: ClassVar[dict[str, dict[str, str]]] = {
        "test://static-text": {
            "name": "static-text",
            "mimeType": "text/plain",
            "text": "This is the content of the static text resource.",
        },
        "test://static-binary": {"name": "static-binary", "mimeType": "image/png", "blob": PNG},
        "test://watched-resource": {
            "name": "watched-resource",
            "mimeType": "text/plain",
            "text": "Watched resource content",
        },
    }

    def on_resources_list(
        self, conn: ServerConnection, req: Request, params: dict[str, Any]
    ) -> dict[str, Any]:
        """``resources/list``: the three fixtures."""
        items = [
            {
                "uri": uri,
                "name": r["name"],
                "description": f"The {r['name']} fixture",
                "mimeType": r["mimeType"],
            }
            for uri, r in self._RESOURCES.items()
        ]
        return {"resources": items}

    def on_resources_read(
        self, conn: ServerConnection, req: Request, params: dict[str, Any]
    ) -> dict[str, Any]:
        """``resources/read``: a fixture, or the template ``test://template/{id}/data``."""
        uri = params.get("uri")
        if isinstance(uri, str) and uri in self._RESOURCES:
            entry = {k: v for k, v in self._RESOURCES[uri].items() if k != "name"}
            return {"contents": [{"uri": uri, **entry}]}
        if isinstance(uri, str) and uri.startswith("test://template/") and uri.endswith("/data"):
            ident = uri[len("test://template/") : -len("/data")]
            text = orjson.dumps(
                {"id": ident, "templateTest": True, "data": f"Data for ID: {ident}"}
            ).decode()
            return {"contents": [{"uri": uri, "mimeType": "application/json", "text": text}]}
        raise RemoteProtocolError(
            f"Resource not found: {uri}", ErrorCode.INVALID_PARAMS, req.id, {"uri": uri}
        )

    _PROMPTS: ClassVar[dict[str, tuple[str, list[dict[str, Any]]]]] = {
        "test_simple_prompt": ("A prompt without arguments", []),
        "test_prompt_with_arguments": (
            "A prompt with two required arguments",
            [
                {"name": "arg1", "description": "First argument", "required": True},
                {"name": "arg2", "description": "Second argument", "required": True},
            ],
        ),
        "test_prompt_with_embedded_resource": (
            "A prompt embedding a resource",
            [
                {
                    "name": "resourceUri",
                    "description": "URI of the resource to embed",
                    "required": True,
                }
            ],
        ),
        "test_prompt_with_image": ("A prompt with an image", []),
        "test_input_required_result_prompt": ("A prompt that first asks the client for input", []),
    }

    def on_prompts_list(
        self, conn: ServerConnection, req: Request, params: dict[str, Any]
    ) -> dict[str, Any]:
        """``prompts/list``: the five fixtures."""
        return {
            "prompts": [
                {"name": n, "description": d, "arguments": a} for n, (d, a) in self._PROMPTS.items()
            ]
        }

    def on_prompts_get(
        self, conn: ServerConnection, req: Request, params: dict[str, Any]
    ) -> dict[str, Any]:
        """``prompts/get``: a fixture; the input-required one first asks for context."""
        name = params.get("name")
        args = params.get("arguments") or {}
        if not isinstance(name, str) or name not in self._PROMPTS or not isinstance(args, dict):
            raise RemoteProtocolError(f"Unknown prompt: {name}", ErrorCode.INVALID_PARAMS, req.id)
        missing = [
            a["name"] for a in self._PROMPTS[name][1] if a["required"] and a["name"] not in args
        ]
        if missing:
            raise RemoteProtocolError(
                f"Invalid params: missing prompt arguments {missing}",
                ErrorCode.INVALID_PARAMS,
                req.id,
            )
        if name == "test_input_required_result_prompt":
            responses = params.get("inputResponses")
            answer = responses.get("user_context") if isinstance(responses, dict) else None
            content = _accepted(answer)
            if content is None:
                return self._input_required({"user_context": _ELICIT_CONTEXT})
            context = content.get("context", "")
            messages = [_user({"type": "text", "text": f"Use this context: {context}"})]
        else:
            messages = _prompt_messages(name, args)
        return {"description": self._PROMPTS[name][0], "messages": messages}

    def on_tools_call(
        self, conn: ServerConnection, req: Request, params: dict[str, Any]
    ) -> dict[str, Any]:
        """``tools/call``: the capability and input-required fixtures, then the tools."""
        name = params.get("name")
        caps = conn.client_capabilities_of(params)
        if name == "test_missing_capability" and "sampling" not in caps:
            raise RemoteProtocolError(
                "This tool needs the client's sampling capability",
                ErrorCode.MISSING_CLIENT_CAPABILITY,
                req.id,
                _NEEDS_SAMPLING,
            )
        if isinstance(name, str) and name.startswith(_MRTR_PREFIX):
            if conn.generation is not Generation.MODERN:
                raise RemoteProtocolError(
                    f"{name} needs the 2026-07-28 wire", ErrorCode.INVALID_PARAMS, req.id
                )
            return self._mrtr(req, name, params, caps)
        if name == _TOOL_WITH_TASK:
            return self._greet_in_task(conn, req, params)
        return super().on_tools_call(conn, req, params)

    def _greet_in_task(
        self, conn: ServerConnection, req: Request, params: dict[str, Any]
    ) -> dict[str, Any]:
        """SEP-2663 with SEP-2322: ask for the name synchronously (input required), then hand
        the greeting to a task; the task's result carries the name gathered before it."""
        runs_as_task(conn, req, params, TaskSupport.REQUIRED)  # raises without the extension
        responses = params.get("inputResponses")
        answer = responses.get("user_name") if isinstance(responses, dict) else None
        content = _accepted(answer, "name")
        if content is None:
            return self._input_required({"user_name": _ELICIT_NAME})
        greeting = {"content": _text(f"Hello, {content['name']}!"), "isError": False}
        return self.start_task(req, lambda: greeting, owner=conn.caller)

    # --- input required (SEP-2322) ------------------------------------------------------

    def _input_required(
        self, requests: Mapping[str, Any], state: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        out: dict[str, Any] = {"resultType": "input_required", "inputRequests": dict(requests)}
        if state is not None:
            out["requestState"] = self.sign(state)
        return out

    def _mrtr(
        self, req: Request, name: str, params: dict[str, Any], caps: Mapping[str, Any]
    ) -> dict[str, Any]:
        step = self._MRTR_STEPS.get(name.removeprefix(_MRTR_PREFIX))
        if step is None:
            raise RemoteProtocolError(f"Unknown tool: {name}", ErrorCode.INVALID_PARAMS, req.id)
        responses = params.get("inputResponses")
        state = params.get("requestState")
        payload = self.verify(state, req) if state is not None else None
        if payload is not None and payload.get("tool") != name:
            raise RemoteProtocolError(
                "Invalid or expired requestState", ErrorCode.INVALID_PARAMS, req.id
            )
        answers = responses if isinstance(responses, dict) else {}
        return step(self, req, _Round(name, answers, payload, caps))

    def _ask_name(self, req: Request, r: _Round) -> dict[str, Any]:
        content = _accepted(r.answers.get("user_name"), "name")
        if content is not None:
            return {"content": _text(f"Hello, {content['name']}!"), "isError": False}
        return self._input_required({"user_name": _ELICIT_NAME})

    def _ask_sample(self, req: Request, r: _Round) -> dict[str, Any]:
        return (
            r.done
            if r.has("capital_question")
            else self._input_required({"capital_question": _SAMPLE})
        )

    def _ask_roots(self, req: Request, r: _Round) -> dict[str, Any]:
        return r.done if r.has("roots") else self._input_required({"roots": _ROOTS})

    def _ask_confirm(self, req: Request, r: _Round) -> dict[str, Any]:
        if r.payload is not None and r.has("confirm"):
            return r.done
        return self._input_required({"confirm": _CONFIRM}, {"tool": r.name, "round": 1})

    def _ask_three(self, req: Request, r: _Round) -> dict[str, Any]:
        wanted = {"user_name": _ELICIT_NAME, "capital_question": _SAMPLE, "roots": _ROOTS}
        if r.payload is not None and r.has(*wanted):
            return r.done
        return self._input_required(wanted, {"tool": r.name, "round": 1})

    def _ask_twice(self, req: Request, r: _Round) -> dict[str, Any]:
        round_ = r.payload.get("round", 0) if r.payload is not None else 0
        if round_ >= 2 and r.has("step2"):
            return r.done
        if round_ == 1 and r.has("step1"):
            return self._input_required({"step2": _CONFIRM}, {"tool": r.name, "round": 2})
        return self._input_required({"step1": _ELICIT_NAME}, {"tool": r.name, "round": 1})

    def _ask_what_client_can(self, req: Request, r: _Round) -> dict[str, Any]:
        """Ask only for what the client declared it can answer."""
        offered = {
            "sampling": ("capital_question", _SAMPLE),
            "elicitation": ("user_name", _ELICIT_NAME),
            "roots": ("roots", _ROOTS),
        }
        wanted = dict(v for cap, v in offered.items() if cap in r.caps)
        if not wanted:
            raise RemoteProtocolError(
                "The client declared none of sampling, elicitation or roots",
                ErrorCode.MISSING_CLIENT_CAPABILITY,
                req.id,
                _NEEDS_SAMPLING,
            )
        return r.done if r.has(*wanted) else self._input_required(wanted)

    #: tool name after ``test_input_required_result_`` → its step (registration order).
    _MRTR_STEPS: ClassVar[
        dict[str, Callable[[ConformanceServer, Request, _Round], dict[str, Any]]]
    ] = {
        "elicitation": _ask_name,
        "sampling": _ask_sample,
        "list_roots": _ask_roots,
        "request_state": _ask_confirm,
        "multiple_inputs": _ask_three,
        "multi_round": _ask_twice,
        "tampered_state": _ask_confirm,
        "capabilities": _ask_what_client_can,
    }


def conformance_server() -> ConformanceServer:
    """A fresh conformance fixture server."""
    return ConformanceServer()
