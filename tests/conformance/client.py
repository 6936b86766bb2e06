"""The mcpmini client as the conformance suite's client-mode command: ``python client.py URL``.

The suite starts a mock server, sets ``MCP_CONFORMANCE_SCENARIO`` (and for some scenarios
``MCP_CONFORMANCE_CONTEXT`` and ``MCP_CONFORMANCE_PROTOCOL_VERSION``) and appends the URL.
Each scenario does what the suite expects of a client (reference: mcp-conformance.md §6),
through the public API only. The ``auth/*`` scenarios run :class:`mcpmini.mcp.auth.OAuth`
with a headless user agent (the suite's authorization server redirects at once) and what the
scenario's context gives (a pre-registered client, a private key, a workload JWT, an ID
token); then they list the tools and call the first one, as the official SDK client does.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any

from mcpmini.mcp import KNOWN_VERSIONS, Client, HttpTransport
from mcpmini.mcp.auth import Grant, HeadlessAgent, OAuth, OAuthOptions

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


def connect(url: str, mode: str = MODE, auth: OAuth | None = None, **kwargs: Any) -> Client:
    client = Client(
        HttpTransport(url, timeout=20, auth=auth),
        mode=mode,
        timeout=20,
        versions=KNOWN_VERSIONS,
        **kwargs,
    )
    client.connect()
    return client


CIMD_URL = "https://conformance-test.local/client-metadata.json"


def oauth_options(scenario: str, context: Mapping[str, Any]) -> OAuthOptions:
    """The client's side of each auth scenario, from the scenario's context."""
    common: dict[str, Any] = {
        "client_name": "mcpmini-conformance",
        "client_id": context.get("client_id"),
        "client_secret": context.get("client_secret"),
        "client_metadata_url": CIMD_URL,
    }
    if scenario.startswith("auth/client-credentials"):
        return OAuthOptions(
            **common,
            grant=Grant.CLIENT_CREDENTIALS,
            private_key_pem=context.get("private_key_pem"),
            signing_alg=context.get("signing_algorithm", "ES256"),
        )
    if scenario == "auth/wif-jwt-bearer":
        return OAuthOptions(**common, grant=Grant.JWT_BEARER, assertion=context.get("valid_jwt"))
    if scenario in ("auth/enterprise-managed-authorization", "auth/cross-app-access-complete-flow"):
        return OAuthOptions(
            **common,
            grant=Grant.TOKEN_EXCHANGE,
            idp_token_endpoint=context.get("idp_token_endpoint"),
            idp_id_token=context.get("idp_id_token"),
            idp_client_id=context.get("idp_client_id"),
        )
    return OAuthOptions(**common)


def run_auth(url: str, scenario: str, context: Mapping[str, Any]) -> int:
    """Connect with OAuth, list the tools, call the first one; 1 when a step failed."""
    auth = OAuth(url, oauth_options(scenario, context), agent=HeadlessAgent())
    with connect(url, MODE, auth=auth, capabilities=CAPABILITIES, handlers=HANDLERS) as client:
        tools = client.list_tools()
        if tools:
            client.call_tool(tools[0]["name"], {})
    return 0


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
    if scenario.startswith("auth/"):
        return run_auth(url, scenario, context)
    if scenario.startswith("sep-2640"):
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
