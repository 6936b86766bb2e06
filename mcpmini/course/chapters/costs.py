"""The context-cost chapters: tool definitions (notebook 06), re-attached skills (09), turns (11).

Each proposition gets a plain function computing its numbers with the runtime, a drawer,
and, where the notebook has one, a widget: Proposition 3.8 (:func:`context_cost_lines`,
:func:`plot_context_cost`, :func:`context_cost_explorer`, measured with
:func:`measured_layer_rows`), Proposition 5.2 (:func:`reattach_lines`,
:func:`reattach_curve`, :func:`reattach_explorer`) and Proposition 7.1
(:func:`turns_curve`). ``ipywidgets`` and ``matplotlib`` are imported inside the builders.

Every word a learner reads (report lines, widget labels, titles, axes, legends) is one row of
:data:`WORDS`, a :class:`~mcpmini.course.language.Text` pair, so the lines and the figures
come out in the learner's language; numbers and formulas are the same in both.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from ..language import Text
from ..plots import figure
from ..report import live_html

__all__ = [
    "WORDS",
    "bridge_table",
    "cache_table",
    "context_cost_curve",
    "context_cost_explorer",
    "context_cost_lines",
    "cost_table",
    "description_cap_line",
    "measured_layer_lines",
    "measured_layer_rows",
    "measured_layer_table",
    "plot_context_cost",
    "plot_measured_layer",
    "plot_reattach_curve",
    "plot_turns_curve",
    "reattach_curve",
    "reattach_explorer",
    "reattach_lines",
    "request_sizes",
    "tool_layer_lines",
    "turns_curve",
]


#: Every fixed text of the cost chapters, one row each (``{name}`` fields are formatted in).
WORDS: dict[str, Text] = {
    # Proposition 3.8: the report lines
    "upfront_line": Text(
        "前もって全部    N·d       = {value}", "up front        N·d       = {value}"
    ),
    "deferred_line": Text(
        "遅延読み込み    N·m + u·d = {value}", "deferred        N·m + u·d = {value}"
    ),
    "difference_line": Text(
        "差                        = {value}   (= (N−u)(d−m) − u·m)",
        "difference                = {value}   (= (N−u)(d−m) − u·m)",
    ),
    "break_even_line": Text(
        "損益分岐点 u* = N(d−m)/d = {star}: u ≤ {most} なら遅延読み込みのほうが少ない",
        "break-even u* = N(d−m)/d = {star}: deferring wins for u ≤ {most}",
    ),
    "cheaper_line": Text("この値で少ないほう: {which}", "cheaper here: {which}"),
    "upfront": Text("前もって全部", "up front"),
    "deferred": Text("遅延読み込み", "deferred"),
    "equal": Text("どちらでもない（同じ）", "neither (equal)"),
    # Proposition 3.8: the figures
    "upfront_legend": Text("前もって全部  N·d", "up front  N·d"),
    "deferred_legend": Text("遅延読み込み  N·m + u·d", "deferred  N·m + u·d"),
    "break_even_legend": Text("損益分岐点 u* = {star}", "break-even u* = {star}"),
    "now_legend": Text("いまの u = {u}", "current u = {u}"),
    "cost_title": Text(
        "命題 3.8：ツール定義の置き方と文脈のコスト（N={n}, d={d}, m={m}）",
        "Proposition 3.8: where the tool definitions go, and the context cost "
        "(N={n}, d={d}, m={m})",
    ),
    "cost_x": Text("会話で使うツールの数 u", "tools used in the conversation, u"),
    "cost_y": Text("文脈に置かれるトークン数", "tokens placed in the context"),
    "measured_definitions": Text("tools/list（定義すべて）", "tools/list (every definition)"),
    "measured_names": Text("名前だけ", "names only"),
    "measured_title": Text(
        "実測：サーバのツール数とツール層の大きさ",
        "Measured: a server's tool count and the size of the tool layer",
    ),
    "measured_x": Text("サーバのツールの数 N", "tools on the server, N"),
    "measured_y": Text("推定トークン数", "estimated tokens"),
    # notebook 06's tables
    "mode": Text("方式", "mode"),
    "request": Text("要求", "request"),
    "system": Text("システム", "system"),
    "tools": Text("ツール層", "tools"),
    "messages": Text("メッセージ", "messages"),
    "total_tokens": Text("合計", "total"),
    "u_deferred": Text("遅延読み込み", "deferred"),
    "u_upfront": Text("前もって全部", "up front"),
    "definitions": Text("定義すべて", "definitions"),
    "names": Text("名前だけ", "names"),
    "d_per_tool": Text("1 つあたりの d", "d per tool"),
    "m_per_tool": Text("1 つあたりの m", "m per tool"),
    "measured_dm": Text(
        "実測の d = {d:.1f}、m = {m:.1f} トークン", "measured d = {d:.1f}, m = {m:.1f} tokens"
    ),
    "measured_costs": Text(
        "N = {n}、u = {u}: 前もって全部 {upfront:,.0f}、遅延読み込み {deferred:,.0f}、"
        "u* = {star:.1f}",
        "N = {n}, u = {u}: up front {upfront:,.0f}, deferred {deferred:,.0f}, u* = {star:.1f}",
    ),
    "msg": Text("メッセージ {n}", "msg{n}"),
    "request_n": Text("要求 {n}", "request {n}"),
    "layer_unchanged": Text("ツール層は変わらない", "tool layer unchanged"),
    "layer_changed": Text("ツール層が変わる", "tool layer changed"),
    "prop_3_8": Text(
        "命題 3.8: 1〜3 を長さの違う {general} 通り、長さが一定の {uniform} 通り、"
        "4 を会話 {conversations} 通りで確かめました",
        "Proposition 3.8: parts 1–3 checked on {general} cases of unequal sizes and "
        "{uniform} of uniform sizes, part 4 on {conversations} conversations",
    ),
    # the real Claude Code beside mcpmini (chapter 06's bridge tables)
    "ENABLE_TOOL_SEARCH": Text("ENABLE_TOOL_SEARCH", "ENABLE_TOOL_SEARCH"),
    "tool": Text("ツール", "tool"),
    "chars sent": Text("送られた文字数", "chars sent"),
    "result chars": Text("結果の文字数", "result chars"),
    "chars shown to the model": Text("モデルに見せた文字数", "chars shown to the model"),
    "(unset)": Text("（未設定）", "(unset)"),
    "deferred_value": Text("遅延", "deferred"),
    "sent": Text("送る", "sent"),
    "absent": Text("無い", "absent"),
    "saved": Text("保存して下見", "saved"),
    "refused": Text("拒否", "refused"),
    "layer_line": Text(
        "{label} 送った道具 {sent:>2}（MCP {mcp}）  遅延 {deferred:>2}  "
        "ツール層 {chars:>7,} 文字 ≈ {tokens:>6,} トークン",
        "{label} tools sent {sent:>2} (MCP {mcp})  deferred {deferred:>2}  "
        "tool layer {chars:>7,} chars ~ {tokens:>6,} tokens",
    ),
    "default_setting": Text("既定", "default"),
    "upfront_setting": Text("false", "false"),
    "sent_by_default": Text("既定で送られた道具: {names}", "sent by default: {names}"),
    # the description cap (notebooks 04, 06)
    "description_cap": Text(
        "文書: ツールの説明文はそれぞれ 2 KB で切られる。Claude Code {pin} で観察したこと: "
        "{cap:,} 文字を超えた分が切られ、末尾に「{mark}」が付く",
        "documented: each tool description is cut at 2 KB; observed in Claude Code {pin}: "
        "cut after {cap:,} characters, ending in '{mark}'",
    ),
    # Proposition 5.2
    "reattach_item": Text(
        "{name:<8} {status} {tokens:>6} / {original:>6} トークン",
        "{name:<8} {status} {tokens:>6} / {original:>6} tokens",
    ),
    "reattach_total": Text(
        "再添付 {total} トークン; 上界 min(k·a, A) = min({k}·{a}, {big_a}) = {bound}; "
        "落としたもの {dropped}",
        "attached {total} tokens; bound min(k·a, A) = min({k}·{a}, {big_a}) = {bound}; "
        "dropped {dropped}",
    ),
    "whole": Text("全文", "whole"),
    "cut": Text("切り詰め", "cut"),
    "dropped": Text("落とした", "dropped"),
    "body": Text("本文", "body"),
    "per_skill": Text("a（1 つあたり）", "a (per skill)"),
    "total": Text("A（合計）", "A (total)"),
    "reattach_bound_legend": Text("上界 min(k·a, A)", "bound min(k·a, A)"),
    "reattach_measured_legend": Text("reattach() の実測", "reattach(), measured"),
    "reattach_title": Text(
        "命題 5.2：圧縮のあとに再び添付されるスキルの量",
        "Proposition 5.2: how much of the skills is re-attached after compaction",
    ),
    "reattach_x": Text("呼び出した異なるスキルの数 k", "distinct skills invoked, k"),
    "reattach_y": Text("再添付されるトークン数", "tokens re-attached"),
    # Proposition 7.1
    "turns_bound_legend": Text("上界 T + 1", "bound T + 1"),
    "turns_measured_legend": Text("実測したモデルの呼び出し回数", "model calls, measured"),
    "turns_title": Text(
        "命題 7.1：いつもツールを呼ぶモデルと max_turns",
        "Proposition 7.1: a model that always calls a tool, and max_turns",
    ),
    "turns_x": Text("max_turns の値 T", "the value of max_turns, T"),
    "turns_y": Text("モデルの呼び出し回数", "model calls"),
}


def _w(row: str, /, **fields: Any) -> str:
    """Row ``row`` of :data:`WORDS` in the current language, formatted with ``fields``."""
    return WORDS[row].lang().format(**fields)


def _pad(text: str, width: int) -> str:
    """``text`` padded with spaces to ``width`` columns, a wide (Japanese) character counting
    as two, so columns line up in a monospaced report in either language."""
    columns = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    return text + " " * max(0, width - columns)


# --- notebook 06: up front vs deferred tool definitions (Proposition 3.8) ------------------


def context_cost_lines(n: int, u: int, d: float, m: float) -> list[str]:
    """Proposition 3.8 for N, u, d, m: both costs, the difference and the break-even point.

    Every number comes from :func:`mcpmini.agent.uniform_costs`. Raises ``ValueError``
    for u outside 0..N or sizes violating ``0 <= m <= d``, ``d > 0``.
    """
    from ...agent import max_deferred_uses, uniform_costs

    c = uniform_costs(n, u, d, m)
    cheaper = (
        "deferred" if c.deferred < c.upfront else "upfront" if c.upfront < c.deferred else "equal"
    )
    return [
        _w("upfront_line", value=f"{c.upfront:,.0f}"),
        _w("deferred_line", value=f"{c.deferred:,.0f}"),
        _w("difference_line", value=f"{c.difference:,.0f}"),
        _w("break_even_line", star=f"{c.break_even:.1f}", most=max_deferred_uses(n, d, m)),
        _w("cheaper_line", which=_w(cheaper)),
    ]


def context_cost_explorer(n: int = 200, u: int = 3, d: int = 300, m: int = 10) -> Any:
    """Sliders for N, u, d, m redrawing both cost curves and :func:`context_cost_lines`.

    Returns the ipywidgets box; the caller should also print :func:`context_cost_lines`
    for headless runs.
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt
    from IPython.display import display

    sn = widgets.IntSlider(value=n, min=1, max=500, description="N")
    su = widgets.IntSlider(value=u, min=0, max=n, description="u")
    # step 1: an IntSlider snaps its value to min + k·step, so min=1, step=10 turned 300 into 301
    sd = widgets.IntSlider(value=d, min=1, max=1000, step=1, description="d")
    sm = widgets.IntSlider(value=m, min=0, max=100, description="m")
    text = widgets.HTML()
    figure = widgets.Output()

    def refresh(_: Any = None) -> None:
        su.max = sn.value
        sm.max = min(100, sd.value)
        text.value = live_html(
            "\n".join(context_cost_lines(sn.value, su.value, sd.value, sm.value))
        )
        with figure:
            figure.clear_output(wait=True)
            fig = plot_context_cost(sn.value, sd.value, sm.value, su.value)
            display(fig)
            plt.close(fig)  # shown once, inside the Output widget

    for w in (sn, su, sd, sm):
        w.observe(refresh, names="value")
    refresh()
    return widgets.VBox([widgets.HBox([widgets.VBox([sn, su, sd, sm]), text]), figure])


def cost_table(n: int, d: float, m: float, us: Sequence[int]) -> Any:
    """Proposition 3.8 for each u of ``us``: both costs (a ``pandas.DataFrame``, columns in
    the learner's language), from :func:`mcpmini.agent.uniform_costs`."""
    import pandas as pd

    from ...agent import uniform_costs

    rows = []
    for u in us:
        c = uniform_costs(n, u, d, m)
        rows.append({"u": u, _w("u_deferred"): c.deferred, _w("u_upfront"): c.upfront})
    return pd.DataFrame(rows).set_index("u")


def request_sizes(runs: Mapping[str, Any]) -> Any:
    """The size of every model request of each run (``mode`` → a
    :class:`~mcpmini.agent.RunResult`; ``upfront`` / ``deferred`` named in the learner's
    language) as a ``pandas.DataFrame``: system, tool layer, messages and total tokens."""
    import pandas as pd

    return pd.DataFrame(
        [
            {
                _w("mode"): _w(mode),
                _w("request"): q.index,
                _w("system"): q.system_tokens,
                _w("tools"): q.tools_tokens,
                _w("messages"): q.messages_tokens,
                _w("total_tokens"): q.total_tokens,
            }
            for mode, r in runs.items()
            for q in r.requests
        ]
    )


def measured_layer_table(rows: Sequence[tuple[int, int, int]]) -> Any:
    """:func:`measured_layer_rows` as a ``pandas.DataFrame`` with the sizes per tool."""
    import pandas as pd

    return pd.DataFrame(
        [
            {
                "N": n,
                _w("definitions"): defs,
                _w("names"): names,
                _w("d_per_tool"): round(defs / n, 1),
                _w("m_per_tool"): round(names / n, 1),
            }
            for n, defs, names in rows
        ]
    )


def measured_layer_lines(
    rows: Sequence[tuple[int, int, int]], n: int = 200, u: int = 3
) -> list[str]:
    """The measured d and m at N = ``n`` (a row of ``rows``) put into Proposition 3.8 with
    ``u`` tools used: two lines. Raises ``StopIteration`` when no row has N = ``n``."""
    from ...agent import break_even, uniform_costs

    defs, names = next((r[1], r[2]) for r in rows if r[0] == n)
    d, m = defs / n, names / n
    c = uniform_costs(n, u, d, m)
    return [
        _w("measured_dm", d=d, m=m),
        _w(
            "measured_costs",
            n=n,
            u=u,
            upfront=c.upfront,
            deferred=c.deferred,
            star=break_even(n, d, m),
        ),
    ]


def cache_table(hits: Sequence[Sequence[bool]]) -> Any:
    """Which cache breakpoints hit, per request (:func:`mcpmini.agent.cache_hits`): ✓ or ✗
    under the tool layer, the system prompt and each message, in the learner's language."""
    import pandas as pd

    width = max(len(h) for h in hits)
    labels = [_w("tools"), _w("system")] + [_w("msg", n=i) for i in range(1, width - 1)]
    return pd.DataFrame(
        [[("✓" if h[i] else "✗") if i < len(h) else "" for i in range(width)] for h in hits],
        columns=labels[:width],
        index=[_w("request_n", n=k + 1) for k in range(len(hits))],
    )


def bridge_table(rows: Sequence[Mapping[str, Any]]) -> Any:
    """Rows of :func:`~mcpmini.course.chapters.claude_code.mcp_tool_rows` or
    ``large_result_rows`` as a ``pandas.DataFrame``: the column names and the values that are
    words (sent, deferred, saved…) in the learner's language; names, numbers and the
    ``mcpmini`` / ``Claude Code`` columns' identifiers as they are."""
    import pandas as pd

    values = {
        "deferred": "deferred_value",
        "sent": "sent",
        "absent": "absent",
        "saved": "saved",
        "refused": "refused",
        "whole": "whole",
        "(unset)": "(unset)",
    }

    def cell(value: Any) -> Any:
        return _w(values[value]) if isinstance(value, str) and value in values else value

    return pd.DataFrame(
        [{(_w(k) if k in WORDS else k): cell(v) for k, v in row.items()} for row in rows]
    )


def tool_layer_lines(answer: Any) -> list[str]:
    """The first request's tool layer as Claude Code sent it, for ``ENABLE_TOOL_SEARCH`` unset
    and ``false`` (the ``mcp_tools`` example's :class:`~.claude_code.Answer`): how many tools,
    how many of them MCP tools, how many deferred, and the layer's size (4 characters ≈ 1
    token); then the tools sent by default."""
    lines = []
    for key, label in (("default", "default_setting"), ("upfront", "upfront_setting")):
        seen = answer.value[key]
        chars = sum(seen["tool_chars"].values())
        lines.append(
            _w(
                "layer_line",
                label=_pad(_w(label), 8),
                sent=len(seen["tools"]),
                mcp=sum(1 for t in seen["tools"] if t.startswith("mcp__")),
                deferred=len(seen["deferred"]),
                chars=chars,
                tokens=chars // 4,
            )
        )
    lines.append(_w("sent_by_default", names=", ".join(answer.value["default"]["tools"])))
    return lines


def description_cap_line() -> str:
    """What happens to a long tool description, documented and observed, in one line: the
    cap is the runtime's (:data:`mcpmini.config.DESCRIPTION_CAP`, checked against the pinned
    Claude Code :data:`mcpmini.oracle.binary.PIN`), never typed here."""
    from ...config.inventory import DESCRIPTION_CAP, DESCRIPTION_CUT_MARK
    from ...oracle.binary import PIN

    return _w("description_cap", pin=PIN, cap=DESCRIPTION_CAP, mark=DESCRIPTION_CUT_MARK)


# --- notebook 06: tool definitions up front vs deferred (Proposition 3.8, Example 3.9) ----


def context_cost_curve(
    n: int, d: float, m: float, u_max: int | None = None
) -> list[tuple[int, float, float]]:
    """``(u, up-front, deferred)`` for u = 0…u_max (default N), from :mod:`mcpmini.agent.cost`."""
    from ...agent import uniform_costs

    top = n if u_max is None else min(u_max, n)
    rows = []
    for u in range(top + 1):
        c = uniform_costs(n, u, d, m)
        rows.append((u, c.upfront, c.deferred))
    return rows


def plot_context_cost(
    n: int, d: float, m: float, u: int | None = None, ax: Any = None, dpi: int = 100
) -> Any:
    """Both costs against u with the break-even line u* = N(d − m)/d; return the figure."""

    from ...agent import break_even

    fig, ax = figure(ax, (6.5, 3.8), dpi)
    rows = context_cost_curve(n, d, m)
    us = [r[0] for r in rows]
    ax.plot(us, [r[1] for r in rows], label=_w("upfront_legend"))
    ax.plot(us, [r[2] for r in rows], label=_w("deferred_legend"))
    star = break_even(n, d, m)
    ax.axvline(
        star, color="grey", linestyle="--", label=_w("break_even_legend", star=f"{star:.1f}")
    )
    if u is not None:
        ax.plot([u], [n * m + u * d], "o", color="C1", label=_w("now_legend", u=u))
    ax.set_title(_w("cost_title", n=n, d=f"{d:g}", m=f"{m:g}"))
    ax.set_xlabel(_w("cost_x"))
    ax.set_ylabel(_w("cost_y"))
    ax.legend(fontsize=9)
    fig.tight_layout()
    return fig


def measured_layer_rows(ns: Sequence[int] = (10, 25, 50, 100, 200)) -> list[tuple[int, int, int]]:
    """``(N, tools/list definitions, names only)`` measured on real generated servers."""
    from ...agent import measure_tool_layer

    return [(s.n, s.definitions, s.names) for s in map(measure_tool_layer, ns)]


def plot_measured_layer(
    rows: Sequence[tuple[int, int, int]], ax: Any = None, dpi: int = 100
) -> Any:
    """Measured definition and name sizes against N; return the figure."""

    fig, ax = figure(ax, (6.5, 3.8), dpi)
    ns = [r[0] for r in rows]
    ax.plot(ns, [r[1] for r in rows], "o-", label=_w("measured_definitions"))
    ax.plot(ns, [r[2] for r in rows], "s-", label=_w("measured_names"))
    ax.set_title(_w("measured_title"))
    ax.set_xlabel(_w("measured_x"))
    ax.set_ylabel(_w("measured_y"))
    ax.legend(fontsize=9)
    fig.tight_layout()
    return fig


# --- notebook 09: re-attachment after compaction (Proposition 5.2) -----------------------


def reattach_lines(
    sizes: Sequence[int], per_skill_tokens: int = 5000, total_tokens: int = 25000
) -> list[str]:
    """What comes back after compaction when skills of ``sizes`` tokens were invoked.

    ``sizes`` are body sizes in invocation order (oldest first), one distinct skill each
    (named ``skill1``…). Returns one line per skill, newest first, plus a total line that
    sets the attached total beside the bound ``min(k·a, A)``. Raises ``ValueError`` for a
    negative size or cap.
    """
    from ...skills import reattach

    r = reattach(
        [(f"skill{i + 1}", n) for i, n in enumerate(sizes)],
        per_skill_tokens=per_skill_tokens,
        total_tokens=total_tokens,
    )
    lines = [
        _w(
            "reattach_item",
            name=x.name,
            status=_pad(_w(x.status.value), 8),
            tokens=x.tokens,
            original=x.original_tokens,
        )
        for x in r.items
    ]
    bound = min(len(sizes) * per_skill_tokens, total_tokens)
    lines.append(
        _w(
            "reattach_total",
            total=r.total_tokens,
            k=len(sizes),
            a=per_skill_tokens,
            big_a=total_tokens,
            bound=bound,
            dropped=len(r.dropped),
        )
    )
    return lines


def reattach_explorer(
    sizes: Sequence[int] = (6000,) * 7, per_skill_tokens: int = 5000, total_tokens: int = 25000
) -> Any:
    """Sliders for k, the body size and both caps, with :func:`reattach_lines` live.

    Returns the ipywidgets box; the caller should also print :func:`reattach_lines`
    for headless runs.
    """
    import ipywidgets as widgets

    k = widgets.IntSlider(value=len(sizes), min=0, max=12, description="k")
    style = {"description_width": "initial"}
    body = widgets.IntSlider(
        value=max(sizes, default=6000),
        min=0,
        max=12000,
        step=500,
        description=_w("body"),
        style=style,
    )
    a = widgets.IntSlider(
        value=per_skill_tokens,
        min=0,
        max=10000,
        step=500,
        description=_w("per_skill"),
        style=style,
    )
    big_a = widgets.IntSlider(
        value=total_tokens, min=0, max=50000, step=1000, description=_w("total"), style=style
    )
    out = widgets.HTML()

    def refresh(_: Any = None) -> None:
        out.value = live_html(
            "\n".join(reattach_lines([body.value] * k.value, a.value, big_a.value))
        )

    for w in (k, body, a, big_a):
        w.observe(refresh, names="value")
    refresh()
    return widgets.VBox([k, body, a, big_a, out])


# --- notebook 09: re-attached total against k (Proposition 5.2 (2)) ------------------------


def reattach_curve(
    body_tokens: int = 6000,
    per_skill_tokens: int = 5000,
    total_tokens: int = 25000,
    k_max: int = 10,
) -> list[tuple[int, int, int]]:
    """``(k, attached, min(k·a, A))`` for k = 0…k_max skills of ``body_tokens`` each.

    ``attached`` comes from :func:`mcpmini.skills.reattach`, the bound from the formula.
    """
    from ...skills import reattach

    rows = []
    for k in range(k_max + 1):
        r = reattach(
            [(f"s{i}", body_tokens) for i in range(k)],
            per_skill_tokens=per_skill_tokens,
            total_tokens=total_tokens,
        )
        rows.append((k, r.total_tokens, min(k * per_skill_tokens, total_tokens)))
    return rows


def plot_reattach_curve(
    rows: Sequence[tuple[int, int, int]], ax: Any = None, dpi: int = 100
) -> Any:
    """Draw the attached total and the bound min(k·a, A) against k; return the figure."""

    fig, ax = figure(ax, (6, 3.6), dpi)
    ks = [r[0] for r in rows]
    ax.plot(ks, [r[2] for r in rows], "--", color="grey", label=_w("reattach_bound_legend"))
    ax.plot(ks, [r[1] for r in rows], "o-", label=_w("reattach_measured_legend"))
    ax.set_title(_w("reattach_title"))
    ax.set_xlabel(_w("reattach_x"))
    ax.set_ylabel(_w("reattach_y"))
    ax.legend()
    fig.tight_layout()
    return fig


# --- notebook 11: model calls against max_turns (Proposition 7.1) -----------------------------


def turns_curve(limits: Sequence[int] = tuple(range(9))) -> list[tuple[int, int, str]]:
    """``(T, model calls, stop reason)`` for an always-call-a-tool model, one run per T.

    Each run is a real :func:`mcpmini.agent.run` against the in-process ``add`` server.
    """
    from ...agent import AgentOptions, AlwaysToolModel, run
    from ...mcp import add_server

    rows = []
    for t in limits:
        r = run(
            "keep adding",
            AlwaysToolModel("mcp__calc__add", {"a": 1, "b": 1}),
            AgentOptions(
                mcp_servers={"calc": add_server()}, allowed_tools=["mcp__calc__add"], max_turns=t
            ),
        )
        rows.append((t, r.model_calls, r.stop_reason.value))
    return rows


def plot_turns_curve(rows: Sequence[tuple[int, int, str]], ax: Any = None, dpi: int = 100) -> Any:
    """Measured model calls against T with the bound T + 1; return the figure."""

    fig, ax = figure(ax, (6, 3.6), dpi)
    ts = [r[0] for r in rows]
    ax.plot(ts, [t + 1 for t in ts], "--", color="grey", label=_w("turns_bound_legend"))
    ax.plot(ts, [r[1] for r in rows], "o", label=_w("turns_measured_legend"))
    ax.set_title(_w("turns_title"))
    ax.set_xlabel(_w("turns_x"))
    ax.set_ylabel(_w("turns_y"))
    ax.legend(fontsize=9)
    fig.tight_layout()
    return fig
