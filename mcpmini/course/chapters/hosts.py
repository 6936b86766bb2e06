"""Notebook 02b: hosts, clients and servers (Definition 3.1) and the two transports, as tables
and a figure in the learner's language.

The notebook runs the real things (an agent loop with a stdio and a Streamable HTTP client,
HTTP sessions, two I/O-free endpoints standing in for two servers); this module turns what
they recorded into rows and labels. :func:`client_rows` reads each client of a finished run
(its transport, generation, the server's name and the ``tools/call`` requests it carried),
:func:`client_table` labels them and :func:`plot_host` draws Definition 3.1 from them;
:func:`session_table` reads an HTTP transport's exchanges, :func:`worker_table` the requests
dealt to two endpoints. Every word is a row of :data:`WORDS` (``pandas`` and ``matplotlib``
imported inside the functions that use them).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...mcp import Client
from ..language import Text
from ..plots import figure

__all__ = [
    "WORDS",
    "client_rows",
    "client_table",
    "limits_table",
    "plot_host",
    "session_table",
    "worker_table",
]

#: Every word of notebook 02b's tables and figure (``{name}`` fields are formatted in).
WORDS: dict[str, Text] = {
    "server": Text("サーバ", "server"),
    "transport": Text("トランスポート", "transport"),
    "generation": Text("世代", "generation"),
    "server_name": Text("サーバの名乗る名前", "server name"),
    "calls": Text("tools/call の数", "tools/call requests"),
    "called": Text("呼んだツール", "called tools"),
    "host": Text("ホスト（エージェントループ run）", "host (the agent loop run)"),
    "client_box": Text("クライアント {n}\n（{generation}）", "client {n}\n({generation})"),
    "server_box": Text("サーバ\n{name}", "server\n{name}"),
    "host_title": Text(
        "定義 3.1（いま動いた実行から）: サーバ 1 つにクライアント 1 つ",
        "Definition 3.1 (from the run above): 1 client per server",
    ),
    "same_message": Text(
        "2 つのトランスポートで同じデータ層のメッセージか: {same}",
        "the same data-layer message on both transports: {same}",
    ),
    "method": Text("HTTP のメソッド", "HTTP method"),
    "session_header": Text("セッションの番号のヘッダ", "session header"),
    "body": Text("本文の先頭", "start of the body"),
    "status": Text("HTTP の状態", "HTTP status"),
    "yes": Text("あり", "yes"),
    "no": Text("なし", "no"),
    "no_body": Text("（本文なし）", "(no body)"),
    "ended_session": Text(
        "終わったセッションへの要求 → HTTP {status}",
        "a request on the ended session → HTTP {status}",
    ),
    "request": Text("要求", "request"),
    "worker": Text("台", "worker"),
    "stateless": Text("状態なし {version}", "stateless {version}"),
    "handshake": Text("握手 {version}", "handshake {version}"),
    "bound": Text("上限", "bound"),
    "field": Text("設定", "setting"),
    "default": Text("既定値", "default"),
    "past_it": Text("超えたとき", "past it"),
    "max_sessions": Text(
        "セッションの数（直前に使われたセッションは追い出さない）",
        "sessions (one used a moment ago is never evicted)",
    ),
    "sessions_per_minute": Text(
        "1 つの送り元アドレスが 1 分間に開くセッション",
        "sessions one client address opens a minute",
    ),
    "max_calls_per_session": Text(
        "1 つのセッションで同時に動く呼び出し", "calls of one session running at once"
    ),
    "max_calls_per_address": Text(
        "1 つの送り元アドレスの全セッションで同時に動く呼び出し",
        "calls of all sessions of one client address running at once",
    ),
    "worker_threads": Text("呼び出しを動かすスレッド", "threads running the calls"),
    "max_tasks": Text(
        "匿名の呼び出し元が合わせて持てる生きたタスク（生存 {ttl} 分）",
        "live tasks of all anonymous callers together (each lives {ttl} min)",
    ),
    "max_tasks_per_caller": Text(
        "認証された呼び出し元 1 つが持てる生きたタスク（その呼び出し元だけに数える）",
        "live tasks of one authenticated caller (counted against that caller only)",
    ),
    "waits": Text("空くまで待つ", "waits for a free one"),
    "task_full": Text("エラー -32603（タスクを作れない）", "error -32603 (no task made)"),
}


def _w(row: str, /, **fields: Any) -> str:
    return WORDS[row].lang().format(**fields)


def client_rows(clients: Mapping[str, Client]) -> list[dict[str, Any]]:
    """One row per client of a finished run, by the name the host gave its server: the
    transport's class, the generation and server name it connected with, and the
    ``tools/call`` requests it sent. Each client's transport must be a ``Traced`` one."""
    rows = []
    for name, client in clients.items():
        transport: Any = client.transport
        sent = [e.json() for e in transport.trace.events if e.direction == "send"]
        calls = [m for m in sent if m.get("method") == "tools/call"]
        connection = client.connection
        rows.append(
            {
                "server": name,
                "transport": type(transport.inner).__name__,
                "generation": connection.generation if connection else None,
                "server_name": connection.server_info.get("name") if connection else None,
                "calls": len(calls),
                "called": sorted({m["params"]["name"] for m in calls}),
            }
        )
    return rows


def client_table(rows: Sequence[Mapping[str, Any]]) -> Any:
    """:func:`client_rows` as a ``pandas.DataFrame`` with the columns in the learner's
    language."""
    import pandas as pd

    keys = ("server", "transport", "generation", "server_name", "calls", "called")
    return pd.DataFrame([{_w(k): row[k] for k in keys} for row in rows])


def plot_host(rows: Sequence[Mapping[str, Any]], ax: Any = None, dpi: int = 72) -> Any:
    """Definition 3.1 drawn from :func:`client_rows`: the host as a large frame, one client
    per server inside it, each joined to its server by its transport. Returns the figure."""
    from matplotlib.patches import Rectangle

    fig, ax = figure(ax, (8, 3.4), dpi)
    height = len(rows) * 2 + 0.8
    ax.set_xlim(0, 10)
    ax.set_ylim(0, height)
    ax.axis("off")

    def box(x: float, y: float, w: float, h: float, text: str, color: str) -> None:
        ax.add_patch(Rectangle((x, y), w, h, facecolor=color, edgecolor="black"))
        if text:
            ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=9)

    # the host is the large frame; its clients are drawn inside it
    box(0.2, 0.2, 5.6, height - 0.4, "", "#dde8f5")
    ax.text(0.45, height - 0.55, _w("host"), ha="left", va="center", fontsize=10)
    for i, row in enumerate(rows):
        y = (len(rows) - 1 - i) * 2 + 0.6  # client 1 at the top
        box(2.9, y, 2.6, 0.9, _w("client_box", n=i + 1, generation=row["generation"]), "#f5ecd5")
        box(7.4, y, 2.4, 0.9, _w("server_box", name=row["server_name"]), "#dff2dd")
        ax.annotate(
            "", xy=(7.4, y + 0.45), xytext=(5.5, y + 0.45), arrowprops={"arrowstyle": "<->"}
        )
        ax.text(6.45, y + 0.6, row["transport"], ha="center", fontsize=8)
    ax.set_title(_w("host_title"))
    return fig


def session_table(exchanges: Iterable[Any]) -> Any:
    """The HTTP exchanges of a transport (``HttpTransport(record=True).exchanges``) as a
    ``pandas.DataFrame``: method, whether the session header was sent, where the body
    names its method, and the HTTP status."""
    import pandas as pd

    rows = []
    for x in exchanges:
        body = x.request_body.decode().strip()
        start = body[body.find('"method"') :][:30] if body else _w("no_body")
        sent = any(k == "mcp-session-id" for k, _ in x.request_headers)
        rows.append(
            {
                _w("method"): x.method,
                _w("session_header"): _w("yes" if sent else "no"),
                _w("body"): start,
                _w("status"): x.status,
            }
        )
    return pd.DataFrame(rows)


def limits_table() -> Any:
    """The bounds of the HTTP server (:class:`~mcpmini.mcp.http.HttpLimits`) and of the task
    table (:class:`~mcpmini.mcp.tasks.TaskTable`), read from their defaults, as a
    ``pandas.DataFrame``: what is bounded, the setting, its default, the answer past it."""
    import pandas as pd

    from ...mcp.http import HttpLimits
    from ...mcp.tasks import TaskTable

    limits, tasks = HttpLimits(), TaskTable()
    http = [
        ("max_sessions", "HTTP 503"),
        ("sessions_per_minute", "HTTP 429"),
        ("max_calls_per_session", "HTTP 429"),
        ("max_calls_per_address", "HTTP 429"),
        ("worker_threads", _w("waits")),
    ]
    rows = [(_w(name), name, getattr(limits, name), past) for name, past in http]
    ttl = tasks.ttl_ms / 60_000
    rows += [
        (_w("max_tasks", ttl=f"{ttl:g}"), "max_tasks", tasks.max_tasks, _w("task_full")),
        (
            _w("max_tasks_per_caller"),
            "max_tasks_per_caller",
            tasks.max_tasks_per_caller,
            _w("task_full"),
        ),
    ]
    columns = [_w("bound"), _w("field"), _w("default"), _w("past_it")]
    return pd.DataFrame(rows, columns=columns)


def worker_table(rows: Sequence[tuple[str, str, str, int, int]]) -> Any:
    """Requests dealt to I/O-free endpoints, one ``(generation, version, request, worker,
    HTTP status)`` tuple each (``generation``: ``"stateless"`` or ``"handshake"``), as a
    ``pandas.DataFrame`` labelled in the learner's language."""
    import pandas as pd

    return pd.DataFrame(
        [
            {
                _w("generation"): _w(generation, version=version),
                _w("request"): request,
                _w("worker"): worker,
                "HTTP": status,
            }
            for generation, version, request, worker, status in rows
        ]
    )
