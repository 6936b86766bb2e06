"""Notebook 02b's tables and figure: read from real clients and real replies, labelled in one
language at a time."""

from __future__ import annotations

import pytest

from mcpmini.course import Lang, use
from mcpmini.course.chapters import hosts, scaleout
from mcpmini.mcp import Client, Traced, add_server, memory_pair


def _japanese(text: str) -> bool:
    return any("\u3040" <= ch <= "\u9fff" for ch in text)


def test_each_client_is_read_from_its_own_trace():
    client = Client(Traced(memory_pair(add_server())), mode="modern")
    client.connect()
    client.call_tool("add", {"a": 1, "b": 2})
    client.call_tool("add", {"a": 3, "b": 4})
    idle = Client(Traced(memory_pair(add_server())), mode="legacy")
    idle.connect()
    rows = hosts.client_rows({"calc": client, "idle": idle})
    assert [(r["server"], r["generation"], r["calls"], r["called"]) for r in rows] == [
        ("calc", "modern", 2, ["add"]),
        ("idle", "legacy", 0, []),
    ]
    assert rows[0]["server_name"] == "add-server"


@pytest.mark.parametrize("lang", [Lang.JA, Lang.EN])
def test_the_tables_and_the_figure_speak_one_language(lang):
    client = Client(Traced(memory_pair(add_server())), mode="modern")
    client.connect()
    with use(lang):
        rows = hosts.client_rows({"calc": client})
        table = hosts.client_table(rows).to_string()
        workers = hosts.worker_table([("stateless", "2026-07-28", "tools/call #1", 0, 200)])
        phases = scaleout.phase_table(scaleout.RECORDED_STATELESS).to_string()
        balancing = scaleout.balancing_table(scaleout.RECORDED_SESSIONS).to_string()
        lines = "\n".join(scaleout.load_lines(scaleout.RECORDED_LOAD))
        fig = hosts.plot_host(rows)
        title = fig.axes[0].get_title()
    for text in (table, workers.to_string(), phases, balancing, lines, title):
        assert _japanese(text) == (lang is Lang.JA), text
    assert "12597" in lines and "0.91" in lines


def test_a_phase_counts_calls_answers_and_which_backend_answered():
    replies = [
        (200, "127.0.0.1:8001", {"content": [{"type": "text", "text": "1"}]}),
        (200, "127.0.0.1:8002", {"content": [{"type": "text", "text": "2"}]}),
        (502, "", None),
    ]
    row = scaleout.phase_row("both", replies, 0, [8001, 8002])
    assert row == {"phase": "both", "calls": 3, "ok": 2, "correct": 2, "answered_by": (-1, 0, 1)}
    with use(Lang.EN):
        assert scaleout.phase_table([row]).iloc[0, -1] == "?, backend 0, backend 1"


def test_the_tools_line_names_what_is_missing():
    with use(Lang.EN):
        assert scaleout.tools_line([]) == "nginx and wrk: installed"
        assert "wrk missing" in scaleout.tools_line(["wrk"])
