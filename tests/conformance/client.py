"""The mcpmini client as the conformance suite's client-mode command: ``python client.py URL``.

The suite starts a mock server, sets ``MCP_CONFORMANCE_SCENARIO`` (and for some scenarios
``MCP_CONFORMANCE_CONTEXT`` and ``MCP_CONFORMANCE_PROTOCOL_VERSION``) and appends the URL.
Each scenario does what the suite expects of a client (reference: mcp-conformance.md §6),
through the public API only. The OAuth scenarios are not implemented: mcpmini has no OAuth
client, so they fail (honestly) with exit code 3.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any

from mcpmini.mcp import KNOWN_VERSIONS, Client, HttpTransport

VERSION = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION")
MODE = "modern" if VERSION is not None and VERSION >= "2026-07-28" else "legacy"


def defaults(params: Mapping[str, Any]) -> dict[str, Any]:
    """Accept an elicitation with every default of its schema (SEP-1034)."""
    props = (params.get("requestedSchema") or {}).get("properties") or {}
    return {
        "action": "accept",
        "content": {k: v["default"] for k, v in props.items() if "default" in v},
    }


HANDLERS: dict[str, Callable[[Mapping[str, Any]], Mapping[str, Any]]] = {
    "elicitation/create": defaults,
    "sampling/createMessage": lambda p: {
        "role": "assistant",
        "model": "mcpmini-stub",
        "content": {"type": "text", "text": ""},
    },
    "roots/list": lambda p: {"roots": []},
}
CAPABILITIES = {"elicitation": {}, "sampling": {}, "roots": {}}


def connect(url: str, mode: str = MODE, **kwargs: Any) -> Client:
    client = Client(
        HttpTransport(url, timeout=20), mode=mode, timeout=20, versions=KNOWN_VERSIONS, **kwargs
    )
    client.connect()
    return client


def stub_arguments(schema: Mapping[str, Any]) -> dict[str, Any]:
    by_type = {
        "string": "x",
        "integer": 0,
        "number": 0,
        "boolean": False,
        "object": {},
        "array": [],
    }
    props = schema.get("properties") or {}
    return {
        n: by_type.get((props.get(n) or {}).get("type"), "x") for n in schema.get("required", [])
    }


def valid_header_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tools whose ``x-mcp-header`` annotations are all valid (SEP-2243)."""
    kept = []
    for tool in tools:
        seen: set[str] = set()
        ok = True
        for prop in ((tool.get("inputSchema") or {}).get("properties") or {}).values():
            if not isinstance(prop, dict) or "x-mcp-header" not in prop:
                continue
            name = prop["x-mcp-header"]
            if (
                not isinstance(name, str)
                or not name
                or name.lower() in seen
                or any(c in name for c in " :")
                or not all(0x21 <= ord(c) < 0x7F for c in name)
                or prop.get("type") not in ("string", "integer", "boolean")
            ):
                ok = False
            seen.add(name.lower() if isinstance(name, str) else "")
        if ok:
            kept.append(tool)
    return kept


def main(url: str) -> int:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "initialize")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    if scenario.startswith("auth/") or scenario.startswith("sep-2640"):
        print(f"{scenario}: not implemented by mcpmini", file=sys.stderr)
        return 3
    mode = "legacy" if scenario == "json-schema-ref-no-deref" else MODE
    with connect(url, mode, capabilities=CAPABILITIES, handlers=HANDLERS) as client:
        tools = client.list_tools()
        if scenario in ("tools_call", "request-metadata", "http-standard-headers"):
            client.call_tool("add_numbers", {"a": 5, "b": 3})
        elif scenario == "sse-retry":
            client.call_tool("test_reconnection", {})
        elif scenario == "elicitation-sep1034-client-defaults":
            client.call_tool("test_client_elicitation_defaults", {})
        elif scenario == "json-schema-2020-12-preservation":
            focal = next(t for t in tools if t["name"] == "json_schema_2020_12_tool")
            client.call_tool("json_schema_echo", {"schema": focal["inputSchema"]})
        elif scenario == "http-invalid-tool-headers":
            for tool in valid_header_tools(tools):
                client.call_tool(tool["name"], stub_arguments(tool.get("inputSchema") or {}))
        elif scenario == "http-custom-headers":
            surfaced = {t["name"] for t in valid_header_tools(tools)}
            for call in context.get("toolCalls", []):
                if call["name"] in surfaced:
                    client.call_tool(call["name"], call.get("arguments") or {})
        elif scenario == "sep-2322-client-request-state":
            client.handlers["elicitation/create"] = lambda p: {
                "action": "accept",
                "content": {"confirmed": True},
            }
            for name in (
                "test_mrtr_echo_state",
                "test_mrtr_unrelated",
                "test_mrtr_no_state",
                "test_mrtr_no_result_type",
            ):
                client.call_tool(name, {})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[-1]))
