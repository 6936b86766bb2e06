"""Interop over Streamable HTTP with the official MCP SDK (mcp 2.3.x), both directions."""

from __future__ import annotations

import asyncio

import pytest

from mcpmini.mcp import Client, HttpTransport, OutcomeKind, add_server, serve_http

mcp = pytest.importorskip("mcp")
pytestmark = pytest.mark.slow


async def sdk_session(url: str, mode: str):
    from mcp import Client as SdkClient

    async with SdkClient(url, mode=mode) as client:
        tools = await client.list_tools()
        ok = await client.call_tool("add", {"a": 2, "b": 3})
        bad = await client.call_tool("add", {"a": 2, "b": "x"})
        return client.protocol_version, tools, ok, bad


@pytest.fixture(scope="module")
def mcpmini_url():
    with serve_http(add_server()) as url:
        yield url


@pytest.mark.parametrize(
    "mode, version",
    [("auto", "2026-07-28"), ("legacy", "2025-11-25"), ("2026-07-28", "2026-07-28")],
)
def test_the_official_sdk_client_calls_tools_on_the_mcpmini_http_server(mcpmini_url, mode, version):
    protocol, tools, ok, bad = asyncio.run(asyncio.wait_for(sdk_session(mcpmini_url, mode), 60))
    assert protocol == version
    assert [t.name for t in tools.tools] == ["add"]
    assert ok.is_error is False and ok.content[0].text == "5"
    assert bad.is_error is True


@pytest.fixture(scope="module", params=[False, True], ids=["stateful", "stateless"])
def sdk_url(request):
    from tests.peers.sdk_http_app import build

    with serve_http(build(stateless=request.param, json_response=False)) as url:
        yield url


@pytest.mark.parametrize(
    "mode, generation", [("auto", "modern"), ("modern", "modern"), ("legacy", "legacy")]
)
def test_the_mcpmini_http_client_calls_tools_on_the_official_sdk_http_server(
    sdk_url, mode, generation
):
    with Client(HttpTransport(sdk_url, timeout=20), mode=mode, timeout=20) as client:
        assert client.connect().generation == generation
        assert [t["name"] for t in client.list_tools()] == ["add"]
        ok = client.call_tool("add", {"a": 2, "b": 3})
        assert ok.kind is OutcomeKind.OK and float(ok.text) == 5.0
        assert client.call_tool("add", {"a": 2, "b": "x"}).kind is OutcomeKind.TOOL_ERROR
