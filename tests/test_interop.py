"""Interop with the official MCP SDK (mcp 2.3.x) in both directions, over real stdio."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest

from mcpmini.mcp import Client, OutcomeKind, StdioTransport

mcp = pytest.importorskip("mcp")

SDK_SERVER = [sys.executable, str(Path(__file__).parent / "peers" / "sdk_add_server.py")]


async def sdk_client_session(mode: str):
    from mcp import Client as SdkClient
    from mcp import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "mcpmini", "serve", "add"])
    started = time.monotonic()
    async with SdkClient(params, mode=mode) as client:
        connected = time.monotonic() - started
        tools = await client.list_tools()
        ok = await client.call_tool("add", {"a": 2, "b": 3})
        bad = await client.call_tool("add", {"a": 2, "b": "x"})
        return client.protocol_version, connected, tools, ok, bad


@pytest.mark.parametrize(
    "mode, version",
    [("auto", "2026-07-28"), ("legacy", "2025-11-25"), ("2026-07-28", "2026-07-28")],
)
def test_official_sdk_client_lists_and_calls_tools_on_an_mcpmini_server(mode, version):
    protocol, connect_seconds, tools, ok, bad = asyncio.run(sdk_client_session(mode))
    assert protocol == version
    assert [t.name for t in tools.tools] == ["add"]
    assert ok.is_error is False and ok.content[0].text == "5"
    assert bad.is_error is True
    # No 10-second discover fallback stall: our server answers server/discover at once.
    assert connect_seconds < 8


@pytest.mark.parametrize(
    "mode, generation", [("auto", "modern"), ("modern", "modern"), ("legacy", "legacy")]
)
def test_mcpmini_client_lists_and_calls_tools_on_an_official_sdk_server(mode, generation):
    with Client(StdioTransport(SDK_SERVER), mode=mode, timeout=20) as client:
        assert client.connect().generation == generation
        assert [t["name"] for t in client.list_tools()] == ["add"]
        ok = client.call_tool("add", {"a": 2, "b": 3})
        assert ok.kind is OutcomeKind.OK and float(ok.text) == 5.0
        # The SDK reports bad arguments and unknown tools as isError results.
        assert client.call_tool("add", {"a": 2, "b": "x"}).kind is OutcomeKind.TOOL_ERROR
        assert client.call_tool("mul", {"a": 1, "b": 2}).kind is OutcomeKind.TOOL_ERROR


@pytest.mark.parametrize("mode", ["modern", "legacy"])
def test_mcpmini_to_mcpmini_over_stdio_with_pipelining(mode):
    argv = [sys.executable, "-m", "mcpmini", "serve", "add"]
    with Client(StdioTransport(argv), mode=mode, timeout=20) as client:
        client.connect()
        replies = client.gather(
            [("tools/call", {"name": "add", "arguments": {"a": i, "b": 1}}) for i in range(100)]
        )
        assert [r.result["content"][0]["text"] for r in replies] == [str(i + 1) for i in range(100)]
