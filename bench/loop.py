"""Agent-loop benchmark, side by side in one run; prints ratios.

1. Where a tool lives: ten tool-use turns of the loop against the same ``add`` done by an
   in-process :class:`~mcpmini.agent.Tool`, an in-process MCP ``Server`` (memory
   transport, full JSON-RPC encode/parse) and a stdio MCP server (a real subprocess).
   Reported per turn, with ratios to the in-process tool.
2. The sandbox: ``run_python("pass")`` in bubblewrap and without any isolation (limits
   only); the ratio is the price of isolation.
3. Context cost, measured: tokens of all requests of a 3-call run against 200 generated
   tools, definitions up front against tool search (deterministic; a ratio of sizes).

The sides alternate (A, B, A, B …) so a load change on the machine hits both; medians
are compared. Run: ``.venv/bin/python bench/loop.py [--repeat N]`` (default 5).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

from mcpmini.agent import AgentOptions, AlwaysToolModel, ScriptedModel, Tool, run, run_python
from mcpmini.mcp import Client, Server, StdioTransport, add_server, memory_pair

TURNS = 10


def _loop_with(options: AgentOptions, tool: str) -> float:
    start = time.perf_counter()
    r = run("add", AlwaysToolModel(tool, {"a": 1, "b": 2}), options)
    elapsed = time.perf_counter() - start
    assert r.turns == TURNS and r.model_calls == TURNS + 1
    return elapsed / TURNS


def tool_placement(repeat: int) -> None:
    add = Tool(
        "add",
        "Add two numbers",
        {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
        lambda i: str(i["a"] + i["b"]),
    )
    script = (
        "import sys; sys.modules['rfc3987_syntax'] = None\n"
        "from mcpmini.mcp.samples import add_server\n"
        "from mcpmini.mcp.transport import serve_stdio\n"
        "serve_stdio(add_server())\n"
    )
    stdio = Client(StdioTransport([sys.executable, "-c", script]), mode="modern")
    memory = Client(memory_pair(add_server()), mode="modern")  # connected once, like stdio
    sides: dict[str, Callable[[], float]] = {
        "in-process Tool": lambda: _loop_with(
            AgentOptions(tools=[add], allowed_tools=["add"], max_turns=TURNS), "add"
        ),
        "MCP Server (memory)": lambda: _loop_with(
            AgentOptions(
                mcp_servers={"calc": memory}, allowed_tools=["mcp__calc__add"], max_turns=TURNS
            ),
            "mcp__calc__add",
        ),
        "MCP server (stdio)": lambda: _loop_with(
            AgentOptions(
                mcp_servers={"calc": stdio}, allowed_tools=["mcp__calc__add"], max_turns=TURNS
            ),
            "mcp__calc__add",
        ),
    }
    try:
        times: dict[str, list[float]] = {name: [] for name in sides}
        for _ in range(repeat):
            for name, side in sides.items():
                times[name].append(side())
    finally:
        stdio.close()
        memory.close()
    base = statistics.median(times["in-process Tool"])
    print(f"1. one tool-use turn of the loop (median of {repeat} runs of {TURNS} turns)")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"   {name:<20} {med * 1e3:8.2f} ms/turn   {med / base:6.2f}x")


def sandbox(repeat: int) -> None:
    import warnings

    from mcpmini.agent import SandboxWarning

    warnings.simplefilter("ignore", SandboxWarning)  # the plain side is unisolated on purpose
    work = tempfile.mkdtemp(prefix="bench-loop-")
    isolated: list[float] = []
    plain: list[float] = []
    confined = False
    for _ in range(repeat):
        for flag, sink in ((True, isolated), (False, plain)):
            r = run_python("pass", work, isolate_network=flag, isolate=flag)
            assert r.ok, r.stderr
            sink.append(r.elapsed)
            confined = confined or r.isolated
    a, b = statistics.median(isolated), statistics.median(plain)
    print(
        f"2. sandbox start-up (median of {repeat}): bubblewrap {a * 1e3:.1f} ms, "
        f"plain {b * 1e3:.1f} ms, isolation costs {a / b:.2f}x"
        + ("" if confined else " (no bubblewrap here: the isolated side fell back to limits)")
    )


def _many_tools() -> Server:
    server = Server("many")
    for i in range(200):
        server.add_tool(
            lambda a=0: str(a),
            name=f"tool_{i}",
            description=f"Tool number {i}: does task {i} on the records of team {i % 7}.",
        )
    return server


def context_cost() -> None:
    uses = [
        [{"type": "tool_use", "id": f"u{k}", "name": f"mcp__many__tool_{k}", "input": {}}]
        for k in range(3)
    ]
    totals = {}
    for search in (False, True):
        r = run(
            "go",
            ScriptedModel([*uses, "done"]),
            AgentOptions(
                mcp_servers={"many": _many_tools()},
                tool_search=search,
                permission_mode="bypassPermissions",
            ),
        )
        totals[search] = sum(q.total_tokens for q in r.requests)
    print(
        f"3. 200 tools, 3 used, 4 requests: up front {totals[False]:,} tokens, "
        f"tool search {totals[True]:,} tokens, ratio {totals[True] / totals[False]:.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    n = parser.parse_args().repeat
    tool_placement(n)
    sandbox(n)
    context_cost()


if __name__ == "__main__":
    main()
