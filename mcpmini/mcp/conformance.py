"""The fixture server of the official MCP conformance suite (``mcpmini serve conformance``).

Every tool, resource, prompt and method the suite's server scenarios call, under the names
and with the behaviour the suite checks (reference: ``mcp-conformance.md`` §3), on both
generations: the 2025-11-25 handshake (logging, subscriptions, sampling and elicitation sent
to the client during a call) and the 2026-07-28 stateless wire (``ttlMs`` / ``cacheScope``,
``-32021`` for a missing client capability, and the SEP-2322 *input required* results, whose
``requestState`` is signed so that a tampered state is refused).

The suite is HTTP-only; the server also works over stdio, where a call cannot stream, so
progress and log messages are dropped and sampling fails as a tool error.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import orjson

from ..errors import RemoteProtocolError
from .context import current_call
from .jsonrpc import ErrorCode, Request
from .server import CAPABILITIES_KEY, Server
from .versions import KNOWN_VERSIONS

__all__ = [
    "MISSING_CAPABILITY",
    "ConformanceServer",
    "conformance_server",
]

#: 2026-07-28: the request needs a client capability it did not declare.
MISSING_CAPABILITY = -32021

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
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
    "method": "elicitation/create",
    "params": {"mode": "form", "message": "What is your name?", "requestedSchema": _TEXT_SCHEMA},
}
_ELICIT_CONTEXT = {
    "method": "elicitation/create",
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
    "method": "sampling/createMessage",
    "params": {
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}
        ],
        "maxTokens": 100,
    },
}
_ROOTS = {"method": "roots/list", "params": {}}
_CONFIRM = {
    "method": "elicitation/create",
    "params": {
        "mode": "form",
        "message": "Confirm?",
        "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
    },
}


def _text(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}]


class ConformanceServer(Server):
    """A :class:`Server` with the suite's fixtures and the extra methods they need.

    ``state_key`` signs ``requestState`` (HMAC-SHA256); every worker serving one URL must
    share it, so it is a parameter, not a per-process secret.
    """

    def __init__(self, state_key: bytes = b"mcpmini-conformance-fixture") -> None:
        super().__init__("mcpmini-conformance", "0.1.0", versions=KNOWN_VERSIONS)
        self.state_key = state_key
        self.log_level = "info"
        self.client_capabilities: Mapping[str, Any] = {}
        self.subscriptions: set[str] = set()
        self._register()

    # --- listing and capabilities -------------------------------------------------------

    def tool_definitions(self) -> list[dict[str, Any]]:
        """Registration order: the suite calls ``tools[0]`` with ``{}``."""
        return [tool.definition() for tool in self.tools.values()]

    def capabilities(self) -> dict[str, Any]:
        """Legacy: tools, subscribable resources, prompts, logging, completions; modern: no
        logging or subscriptions (those methods are gone from the stateless wire)."""
        if self.generation == "modern":
            return {"tools": {}, "resources": {}, "prompts": {}, "completions": {}}
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
        """The payload of a ``requestState``; raises ``-32602`` when it was tampered with."""
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

    def _legacy_only(self, req: Request) -> None:
        if self.generation == "modern":
            raise RemoteProtocolError(
                f"Method not found: {req.method}", ErrorCode.METHOD_NOT_FOUND, req.id
            )

    def _initialize(self, req: Request, params: dict[str, Any]) -> Any:
        reply = super()._initialize(req, params)
        caps = params.get("capabilities")
        self.client_capabilities = caps if isinstance(caps, dict) else {}
        return reply

    def _set_level(self, req: Request, params: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        self._legacy_only(req)
        level = params.get("level")
        from .context import LOG_LEVELS

        if level not in LOG_LEVELS:
            raise RemoteProtocolError(
                f"Invalid params: level must be one of {LOG_LEVELS}",
                ErrorCode.INVALID_PARAMS,
                req.id,
            )
        self.log_level = str(level)
        return {}, False

    def _subscribe(self, req: Request, params: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        self._legacy_only(req)
        uri = params.get("uri")
        if not isinstance(uri, str):
            raise RemoteProtocolError(
                "Invalid params: uri must be a string", ErrorCode.INVALID_PARAMS, req.id
            )
        if req.method == "resources/subscribe":
            self.subscriptions.add(uri)
        else:
            self.subscriptions.discard(uri)
        return {}, False

    def _complete(self, req: Request, params: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        return {"completion": {"values": [], "total": 0, "hasMore": False}}, False

    def _templates(self, req: Request, params: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        return {
            "resourceTemplates": [
                {
                    "uriTemplate": "test://template/{id}/data",
                    "name": "template",
                    "description": "A resource template with one id",
                    "mimeType": "application/json",
                }
            ]
        }, True

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

    def _resources_list(self, req: Request, params: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        items = [
            {
                "uri": uri,
                "name": r["name"],
                "description": f"The {r['name']} fixture",
                "mimeType": r["mimeType"],
            }
            for uri, r in self._RESOURCES.items()
        ]
        return {"resources": items}, True

    def _resources_read(self, req: Request, params: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        uri = params.get("uri")
        if isinstance(uri, str) and uri in self._RESOURCES:
            entry = {k: v for k, v in self._RESOURCES[uri].items() if k != "name"}
            return {"contents": [{"uri": uri, **entry}]}, True
        if isinstance(uri, str) and uri.startswith("test://template/") and uri.endswith("/data"):
            ident = uri[len("test://template/") : -len("/data")]
            text = orjson.dumps(
                {"id": ident, "templateTest": True, "data": f"Data for ID: {ident}"}
            ).decode()
            return {"contents": [{"uri": uri, "mimeType": "application/json", "text": text}]}, True
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

    def _prompts_list(self, req: Request, params: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        return {
            "prompts": [
                {"name": n, "description": d, "arguments": a} for n, (d, a) in self._PROMPTS.items()
            ]
        }, True

    def _prompts_get(self, req: Request, params: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        name = params.get("name")
        args = params.get("arguments") or {}
        if name not in self._PROMPTS or not isinstance(args, dict):
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

        def user(content: dict[str, Any]) -> dict[str, Any]:
            return {"role": "user", "content": content}

        if name == "test_simple_prompt":
            messages = [user({"type": "text", "text": "This is a simple prompt for testing."})]
        elif name == "test_prompt_with_arguments":
            messages = [
                user(
                    {
                        "type": "text",
                        "text": f"Prompt with arguments: arg1='{args['arg1']}', "
                        f"arg2='{args['arg2']}'",
                    }
                )
            ]
        elif name == "test_prompt_with_embedded_resource":
            messages = [
                user(
                    {
                        "type": "resource",
                        "resource": {
                            "uri": args["resourceUri"],
                            "mimeType": "text/plain",
                            "text": "Embedded resource content for testing.",
                        },
                    }
                ),
                user({"type": "text", "text": "Please process the embedded resource above."}),
            ]
        elif name == "test_prompt_with_image":
            messages = [
                user({"type": "image", "data": PNG, "mimeType": "image/png"}),
                user({"type": "text", "text": "Please analyze the image above."}),
            ]
        else:
            responses = params.get("inputResponses")
            answer = responses.get("user_context") if isinstance(responses, dict) else None
            if not (
                isinstance(answer, dict)
                and answer.get("action") == "accept"
                and isinstance(answer.get("content"), dict)
            ):
                return self._input_required({"user_context": _ELICIT_CONTEXT}), False
            context = answer["content"].get("context", "")
            messages = [user({"type": "text", "text": f"Use this context: {context}"})]
        return {"description": self._PROMPTS[name][0], "messages": messages}, False

    # --- input required (SEP-2322) ------------------------------------------------------

    @staticmethod
    def _accepted_name(answer: Any) -> bool:
        return (
            isinstance(answer, dict)
            and answer.get("action") == "accept"
            and isinstance(answer.get("content"), dict)
            and isinstance(answer["content"].get("name"), str)
        )

    def _input_required(
        self, requests: Mapping[str, Any], state: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        out: dict[str, Any] = {"resultType": "input_required", "inputRequests": dict(requests)}
        if state is not None:
            out["requestState"] = self.sign(state)
        return out

    def _mrtr(self, req: Request, name: str, params: dict[str, Any]) -> dict[str, Any]:
        responses = params.get("inputResponses")
        answers: dict[str, Any] = responses if isinstance(responses, dict) else {}
        state = params.get("requestState")
        payload = self.verify(state, req) if state is not None else None
        if payload is not None and payload.get("tool") != name:
            raise RemoteProtocolError(
                "Invalid or expired requestState", ErrorCode.INVALID_PARAMS, req.id
            )
        done = {"content": _text(f"{name} complete"), "isError": False}
        if name == "test_input_required_result_elicitation":
            if self._accepted_name(answers.get("user_name")):
                return {
                    "content": _text(f"Hello, {answers['user_name']['content']['name']}!"),
                    "isError": False,
                }
            return self._input_required({"user_name": _ELICIT_NAME})
        if name == "test_input_required_result_sampling":
            return (
                done
                if isinstance(answers.get("capital_question"), dict)
                else self._input_required({"capital_question": _SAMPLE})
            )
        if name == "test_input_required_result_list_roots":
            return (
                done
                if isinstance(answers.get("roots"), dict)
                else self._input_required({"roots": _ROOTS})
            )
        if name in (
            "test_input_required_result_request_state",
            "test_input_required_result_tampered_state",
        ):
            if payload is not None and isinstance(answers.get("confirm"), dict):
                return done
            return self._input_required({"confirm": _CONFIRM}, {"tool": name, "round": 1})
        if name == "test_input_required_result_multiple_inputs":
            wanted = {"user_name": _ELICIT_NAME, "capital_question": _SAMPLE, "roots": _ROOTS}
            if payload is not None and all(isinstance(answers.get(k), dict) for k in wanted):
                return done
            return self._input_required(wanted, {"tool": name, "round": 1})
        if name == "test_input_required_result_multi_round":
            round_ = payload.get("round", 0) if payload is not None else 0
            if round_ >= 2 and isinstance(answers.get("step2"), dict):
                return done
            if round_ == 1 and isinstance(answers.get("step1"), dict):
                return self._input_required({"step2": _CONFIRM}, {"tool": name, "round": 2})
            return self._input_required({"step1": _ELICIT_NAME}, {"tool": name, "round": 1})
        # test_input_required_result_capabilities: ask only for what the client can answer
        caps = self._client_caps(params)
        wanted = {}
        if "sampling" in caps:
            wanted["capital_question"] = _SAMPLE
        if "elicitation" in caps:
            wanted["user_name"] = _ELICIT_NAME
        if "roots" in caps:
            wanted["roots"] = _ROOTS
        if not wanted:
            raise RemoteProtocolError(
                "The client declared none of sampling, elicitation or roots",
                MISSING_CAPABILITY,
                req.id,
                {"requiredCapabilities": {"sampling": {}}},
            )
        if all(isinstance(answers.get(k), dict) for k in wanted):
            return done
        return self._input_required(wanted)

    def _client_caps(self, params: Mapping[str, Any]) -> Mapping[str, Any]:
        if self.generation == "modern":
            meta = params.get("_meta")
            caps = meta.get(CAPABILITIES_KEY) if isinstance(meta, dict) else None
            return caps if isinstance(caps, dict) else {}
        return self.client_capabilities

    def _tools_call(self, req: Request, params: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        name = params.get("name")
        if name == "test_missing_capability" and "sampling" not in self._client_caps(params):
            raise RemoteProtocolError(
                "This tool needs the client's sampling capability",
                MISSING_CAPABILITY,
                req.id,
                {"requiredCapabilities": {"sampling": {}}},
            )
        if isinstance(name, str) and name.startswith("test_input_required_result_"):
            if self.generation != "modern":
                raise RemoteProtocolError(
                    f"{name} needs the 2026-07-28 wire", ErrorCode.INVALID_PARAMS, req.id
                )
            return self._mrtr(req, name, params), False
        return super()._tools_call(req, params)

    _METHODS: ClassVar[dict[str, Callable[..., tuple[dict[str, Any], bool]]]] = {
        **Server._METHODS,
        "logging/setLevel": _set_level,
        "resources/subscribe": _subscribe,
        "resources/unsubscribe": _subscribe,
        "completion/complete": _complete,
        "resources/templates/list": _templates,
        "resources/list": _resources_list,
        "resources/read": _resources_read,
        "prompts/list": _prompts_list,
        "prompts/get": _prompts_get,
        "tools/call": _tools_call,
    }

    # --- tools --------------------------------------------------------------------------

    def _register(self) -> None:
        tool = self.tool

        @tool()
        def test_simple_text() -> list[dict[str, Any]]:
            """Returns a simple text response."""
            return _text("This is a simple text response for testing.")

        @tool()
        def test_image_content() -> list[dict[str, Any]]:
            """Returns a small PNG image."""
            return [{"type": "image", "data": PNG, "mimeType": "image/png"}]

        @tool()
        def test_audio_content() -> list[dict[str, Any]]:
            """Returns a short WAV clip."""
            return [{"type": "audio", "data": WAV, "mimeType": "audio/wav"}]

        @tool()
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

        @tool()
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

        @tool()
        def test_tool_with_logging() -> str:
            """Sends three log messages while it runs."""
            call = current_call()
            for text in (
                "Tool execution started",
                "Tool processing data",
                "Tool execution completed",
            ):
                call.log("info", text)
            return "Tool with logging executed successfully"

        @tool()
        def test_tool_with_progress() -> str:
            """Sends progress 0, 50 and 100 out of 100 before its result."""
            call = current_call()
            for done in (0, 50, 100):
                call.progress(done, 100)
            return f"Progress completed (token {call.progress_token})"

        @tool()
        def test_error_handling() -> str:
            """Always fails (a tool error, not a protocol error)."""
            raise RuntimeError("This tool intentionally returns an error for testing")

        @tool()
        def test_sampling(prompt: str) -> str:
            """Asks the client's model to complete the prompt (sampling).

            Args:
                prompt: the text to send to the model
            """
            result = current_call().request(
                "sampling/createMessage",
                {
                    "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
                    "maxTokens": 100,
                },
            )
            content = result.get("content")
            text = content.get("text") if isinstance(content, dict) else None
            return f"LLM response: {text}"

        @tool()
        def test_elicitation(message: str) -> str:
            """Asks the user for input through the client (elicitation).

            Args:
                message: what to ask the user
            """
            result = current_call().request(
                "elicitation/create",
                {
                    "mode": "form",
                    "message": message,
                    "requestedSchema": {
                        "type": "object",
                        "properties": {
                            "response": {"type": "string", "description": "User's response"}
                        },
                        "required": ["response"],
                    },
                },
            )
            return f"User response: action={result.get('action')}, content={result.get('content')}"

        @tool()
        def test_elicitation_sep1034_defaults() -> str:
            """Elicits a form whose fields carry default values (SEP-1034)."""
            result = current_call().request(
                "elicitation/create",
                {
                    "mode": "form",
                    "message": "Please review the defaults",
                    "requestedSchema": {
                        "type": "object",
                        "required": [],
                        "properties": {
                            "name": {
                                "type": "string",
                                "description": "Name",
                                "default": "John Doe",
                            },
                            "age": {"type": "integer", "description": "Age", "default": 30},
                            "score": {"type": "number", "description": "Score", "default": 95.5},
                            "status": {
                                "type": "string",
                                "description": "Status",
                                "enum": ["active", "inactive", "pending"],
                                "default": "active",
                            },
                            "verified": {
                                "type": "boolean",
                                "description": "Verified",
                                "default": True,
                            },
                        },
                    },
                },
            )
            return f"Elicitation completed: action={result.get('action')}, content={result.get('content')}"

        @tool()
        def test_elicitation_sep1330_enums() -> str:
            """Elicits a form with the five enum shapes of SEP-1330."""
            options = ["option1", "option2", "option3"]
            titled = [{"const": o, "title": o.title()} for o in options]
            result = current_call().request(
                "elicitation/create",
                {
                    "mode": "form",
                    "message": "Please pick options",
                    "requestedSchema": {
                        "type": "object",
                        "properties": {
                            "untitledSingle": {"type": "string", "enum": options},
                            "titledSingle": {"type": "string", "oneOf": titled},
                            "legacyEnum": {
                                "type": "string",
                                "enum": options,
                                "enumNames": ["One", "Two", "Three"],
                            },
                            "untitledMulti": {
                                "type": "array",
                                "items": {"type": "string", "enum": options},
                            },
                            "titledMulti": {"type": "array", "items": {"anyOf": titled}},
                        },
                    },
                },
            )
            return f"Elicitation completed: action={result.get('action')}, content={result.get('content')}"

        @tool()
        def test_missing_capability() -> str:
            """Needs the client's sampling capability (2026-07-28: -32021 without it)."""
            return "The client declared sampling"

        @tool()
        def test_streaming_elicitation() -> str:
            """On the stateless wire this tool does not elicit (no requests inside a response)."""
            return "No elicitation on the stateless wire"

        @tool()
        def test_logging_tool() -> str:
            """Logs only when the request asked for a log level."""
            current_call().log("info", "test_logging_tool ran")
            return "Logging tool executed"

        @tool(
            input_schema={
                "type": "object",
                "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
            }
        )
        def test_x_mcp_header(region: str = "") -> str:
            """Echoes a region that also travels in the Mcp-Param-Region header."""
            return f"Region: {region}"

        self.add_tool(
            lambda **kwargs: "ok",
            "json_schema_2020_12_tool",
            "A tool whose input schema uses JSON Schema 2020-12 keywords",
            JSON_SCHEMA_2020_12,
        )
        for name in (
            "elicitation",
            "sampling",
            "list_roots",
            "request_state",
            "multiple_inputs",
            "multi_round",
            "tampered_state",
            "capabilities",
        ):
            self.add_tool(
                lambda **kwargs: "unreachable",
                f"test_input_required_result_{name}",
                f"Input-required fixture ({name.replace('_', ' ')}), 2026-07-28 only",
                {"type": "object", "properties": {}},
            )


def conformance_server() -> ConformanceServer:
    """A fresh conformance fixture server."""
    return ConformanceServer()
