"""Interactive controls for the notebooks, each backed by a plain function.

A widget here is only a thin shell: the logic it shows lives in a plain function of the
same module (tested in ``tests/``), and every widget object can also give that
function's text, which a notebook prints so a headless run (CI, nbval) still shows
something meaningful.
``ipywidgets`` is imported inside the builders only, so importing this module is cheap.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from ..mcp import KNOWN_VERSIONS, Negotiation, negotiate_handshake, negotiate_per_request

__all__ = [
    "LIVE_LABEL",
    "STATIC_LABEL",
    "VersionComparison",
    "VersionPicker",
    "compare_versions",
    "context_cost_explorer",
    "context_cost_lines",
    "hook_gate_lab",
    "live_html",
    "matcher_playground",
    "negotiation_lines",
    "reattach_explorer",
    "reattach_lines",
    "report_text",
    "resolution_lines",
    "resolution_switch",
    "static_report",
    "version_picker",
]


LIVE_LABEL = "ウィジェットの報告（操作に合わせて更新）"
STATIC_LABEL = "最初の状態の報告（静的な文字。ウィジェットを動かしても変わりません）"


def live_html(text: str) -> str:
    """``text`` as the HTML a widget shows: escaped, preformatted, under :data:`LIVE_LABEL`.

    Escaping matters: matcher strings such as ``(?<tool>Notebook)Edit`` hold ``<``/``>``.
    """
    from html import escape

    return f"<b>{escape(LIVE_LABEL)}</b><pre>{escape(text)}</pre>"


def static_report(text: str) -> str:
    """``text`` under :data:`STATIC_LABEL`, for the ``print`` beside a widget (headless runs)."""
    return f"{STATIC_LABEL}\n{text}"


def report_text(widget: Any) -> str:
    """The live report a widget box currently shows, as plain text (for tests and checks).

    Walks ``widget``'s children for the HTML report made by :func:`live_html`. Raises
    ``LookupError`` when there is none.
    """
    from html import unescape

    stack = [widget]
    while stack:
        node = stack.pop(0)
        value = getattr(node, "value", None)
        if isinstance(value, str) and value.startswith("<b>") and "<pre>" in value:
            return unescape(value.split("<pre>", 1)[1].rsplit("</pre>", 1)[0])
        stack.extend(getattr(node, "children", ()))
    raise LookupError("the widget shows no report")


# --- notebook 03: the client's and the server's version sets (Proposition 3.4) ---------


@dataclass(frozen=True)
class VersionComparison:
    """Both negotiation models run on the same pair of version sets.

    ``common`` is ``C ∩ S`` (sorted); ``handshake`` and ``per_request`` are the
    :class:`~mcpmini.mcp.Negotiation` results of the two generations' rules.
    """

    client: tuple[str, ...]
    server: tuple[str, ...]
    common: tuple[str, ...]
    handshake: Negotiation
    per_request: Negotiation

    def text(self) -> str:
        """A plain-text report: the sets, each method's outcome and its message sequence."""
        out = [
            f"C = {{{', '.join(self.client)}}}",
            f"S = {{{', '.join(self.server)}}}",
            f"C ∩ S = {{{', '.join(self.common)}}}",
        ]
        for title, run in (
            ("handshake (2025-11-25)", self.handshake),
            ("per-request (2026-07-28)", self.per_request),
        ):
            verdict = f"agreed on {run.agreed}" if run.ok else "FAILED"
            out.append("")
            out.append(f"{title}: {verdict}, {run.requests} request(s)")
            out.extend("  " + line for line in negotiation_lines(run))
        return "\n".join(out)


def compare_versions(client: Collection[str], server: Collection[str]) -> VersionComparison:
    """Run :func:`negotiate_handshake` and :func:`negotiate_per_request` on ``(C, S)``.

    Both sides use their defaults (each offers its newest version). Returns a
    :class:`VersionComparison`. Raises ``ValueError`` when either set is empty.
    """
    handshake = negotiate_handshake(client, server)
    per_request = negotiate_per_request(client, server)
    common = tuple(sorted(set(client) & set(server)))
    return VersionComparison(handshake.client, handshake.server, common, handshake, per_request)


def _summary(message: dict[str, Any]) -> str:
    """The fields of one model message that matter for the negotiation, in wire order."""
    if "method" in message:
        params = message.get("params") or {}
        if "protocolVersion" in params:
            detail = f" protocolVersion={params['protocolVersion']}"
        else:
            meta = params.get("_meta") or {}
            versions = [v for k, v in meta.items() if k.endswith("protocolVersion")]
            detail = f" _meta.protocolVersion={versions[0]}" if versions else ""
        rid = f"#{message['id']} " if "id" in message else ""
        return f"{rid}{message['method']}{detail}"
    if "error" in message:
        error = message["error"]
        return f"#{message['id']} error {error['code']} data={json.dumps(error.get('data'))}"
    result = message.get("result", {})
    if "protocolVersion" in result:
        return f"#{message['id']} result protocolVersion={result['protocolVersion']}"
    return f"#{message['id']} result ({result.get('resultType', 'ok')})"


def negotiation_lines(run: Negotiation) -> list[str]:
    """One line per message of ``run``: ``C→S …`` / ``S→C …``, or ``C ✕ disconnect: …``."""
    lines = []
    for sender, message in run.messages:
        if "disconnect" in message:
            lines.append(f"C ✕ disconnect: {message['disconnect']}")
            continue
        arrow = "C→S" if sender == "client" else "S→C"
        lines.append(f"{arrow} {_summary(message)}")
    return lines


@dataclass
class VersionPicker:
    """The version-set widget of notebook 03 and the plain function behind it.

    ``widget`` is the ipywidgets box to display; ``client_boxes`` / ``server_boxes`` are
    its checkboxes (one per version of the universe); :meth:`report` is the text the
    box shows for the currently ticked sets.
    """

    widget: Any
    client_boxes: list[Any]
    server_boxes: list[Any]

    def ticked(self) -> tuple[list[str], list[str]]:
        """The versions currently ticked for C and for S."""
        return (
            [b.description for b in self.client_boxes if b.value],
            [b.description for b in self.server_boxes if b.value],
        )

    def report(self) -> str:
        """:meth:`VersionComparison.text` for the ticked sets, or a hint when one is empty."""
        c, s = self.ticked()
        if not c or not s:
            return "Tick at least one version on each side (C and S must not be empty)."
        return compare_versions(c, s).text()


def version_picker(
    universe: Sequence[str] = KNOWN_VERSIONS,
    client: Collection[str] = ("2024-11-05", "2026-07-28"),
    server: Collection[str] = ("2024-11-05", "2025-03-26"),
) -> VersionPicker:
    """Checkboxes for C and S over ``universe`` with a live report of both methods.

    Returns a :class:`VersionPicker`; display its ``widget`` and print its ``report()``
    (a headless run shows only the printed text). While a set is empty the report says
    so instead of negotiating. Raises ``ValueError`` when an initial version is not in
    ``universe``.
    """
    import ipywidgets as widgets

    versions = sorted(set(universe))
    unknown = (set(client) | set(server)) - set(versions)
    if unknown:
        raise ValueError(f"versions {sorted(unknown)} are not in the universe {versions}")

    def boxes(picked: Collection[str]) -> list[Any]:
        return [
            widgets.Checkbox(
                value=v in picked, description=v, indent=False, layout=widgets.Layout(width="auto")
            )
            for v in versions
        ]

    c_boxes, s_boxes = boxes(client), boxes(server)
    output = widgets.HTML()
    box = widgets.VBox(
        [
            widgets.HBox(
                [
                    widgets.VBox([widgets.Label("client C"), *c_boxes]),
                    widgets.VBox([widgets.Label("server S"), *s_boxes]),
                ]
            ),
            output,
        ]
    )
    picker = VersionPicker(box, c_boxes, s_boxes)

    def refresh(_: Any = None) -> None:
        output.value = live_html(picker.report())

    for checkbox in c_boxes + s_boxes:
        checkbox.observe(refresh, names="value")
    refresh()
    return picker


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
    from ..skills import reattach

    r = reattach(
        [(f"skill{i + 1}", n) for i, n in enumerate(sizes)],
        per_skill_tokens=per_skill_tokens,
        total_tokens=total_tokens,
    )
    lines = [
        f"{x.name:<8} {x.status.value:<7} {x.tokens:>6} / {x.original_tokens:>6} tokens"
        for x in r.items
    ]
    bound = min(len(sizes) * per_skill_tokens, total_tokens)
    lines.append(
        f"attached {r.total_tokens} tokens; bound min(k·a, A) = "
        f"min({len(sizes)}·{per_skill_tokens}, {total_tokens}) = {bound}; "
        f"dropped {len(r.dropped)}"
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
    body = widgets.IntSlider(
        value=max(sizes, default=6000), min=0, max=12000, step=500, description="body"
    )
    a = widgets.IntSlider(
        value=per_skill_tokens, min=0, max=10000, step=500, description="a (per skill)"
    )
    big_a = widgets.IntSlider(
        value=total_tokens, min=0, max=50000, step=1000, description="A (total)"
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


# --- notebook 10: whole entry vs field merge (Proposition 6.2, Example 6.3) ----------------


def resolution_lines(sources: Any, name: str, mode: str = "whole") -> list[str]:
    """The definition of server ``name`` under ``mode`` "whole" or "merge", field by field.

    ``sources`` is anything :func:`mcpmini.config.resolve_mcp_servers` accepts. Each
    line is ``field = value   ← source``. Raises ``KeyError`` when no source defines
    ``name`` and ``ValueError`` for another mode.
    """
    from ..config import merge_fields, resolve_mcp_servers

    if mode == "whole":
        won = resolve_mcp_servers(sources)[name]
        fields = [(k, v, won.source) for k, v in won.value.items()]
    elif mode == "merge":
        merged = merge_fields(sources)[name]
        fields = [(k, f.value, f.source) for k, f in merged.fields.items()]
    else:
        raise ValueError(f"mode must be 'whole' or 'merge', got {mode!r}")
    return [f"{k:<8} = {json.dumps(v, ensure_ascii=False):<45} ← {src}" for k, v, src in fields]


def resolution_switch(sources: Any, name: str) -> Any:
    """Toggle buttons switching :func:`resolution_lines` between whole entry and merge."""
    import ipywidgets as widgets

    toggle = widgets.ToggleButtons(options=[("whole entry", "whole"), ("field merge", "merge")])
    out = widgets.HTML()

    def refresh(_: Any = None) -> None:
        out.value = live_html("\n".join(resolution_lines(sources, name, toggle.value)))

    toggle.observe(refresh, names="value")
    refresh()
    return widgets.VBox([toggle, out])


# --- notebook 06: up front vs deferred tool definitions (Proposition 3.8) ------------------


def context_cost_lines(n: int, u: int, d: float, m: float) -> list[str]:
    """Proposition 3.8 for N, u, d, m: both costs, the difference and the break-even point.

    Every number comes from :func:`mcpmini.agent.uniform_costs`. Raises ``ValueError``
    for u outside 0..N or sizes violating ``0 <= m <= d``, ``d > 0``.
    """
    from ..agent import max_deferred_uses, uniform_costs

    c = uniform_costs(n, u, d, m)
    return [
        f"up front  N·d         = {c.upfront:,.0f}",
        f"deferred  N·m + u·d   = {c.deferred:,.0f}",
        f"difference            = {c.difference:,.0f}   (= (N−u)(d−m) − u·m)",
        (
            f"break-even u* = N(d−m)/d = {c.break_even:.1f}: deferring wins for "
            f"u ≤ {max_deferred_uses(n, d, m)}"
        ),
        "cheaper here: "
        + (
            "deferred"
            if c.deferred < c.upfront
            else "up front"
            if c.upfront < c.deferred
            else "neither (equal)"
        ),
    ]


def context_cost_explorer(n: int = 200, u: int = 3, d: int = 300, m: int = 10) -> Any:
    """Sliders for N, u, d, m redrawing both cost curves and :func:`context_cost_lines`.

    Returns the ipywidgets box; the caller should also print :func:`context_cost_lines`
    for headless runs.
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt
    from IPython.display import display

    from .plots import plot_context_cost

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


# --- notebook 07: matcher playground and hook-settings lab (chapter 4) ------------------


def matcher_playground(matcher: str = "Edit|Write", name: str = "NotebookEdit") -> Any:
    """Two text boxes (matcher, tool name) showing :func:`hooklab.explain_matcher` live.

    Returns the ipywidgets box; print ``explain_matcher(matcher, name).text()`` too for
    headless runs.
    """
    import ipywidgets as widgets

    from .hooklab import explain_matcher

    box_matcher = widgets.Text(value=matcher, description="matcher")
    box_name = widgets.Text(value=name, description="tool name")
    out = widgets.HTML()

    def refresh(_: Any = None) -> None:
        out.value = live_html(explain_matcher(box_matcher.value, box_name.value).text())

    for w in (box_matcher, box_name):
        w.observe(refresh, names="value")
    refresh()
    return widgets.VBox([box_matcher, box_name, out])


def hook_gate_lab(
    exit_code: int | str = 2,
    stdout: str = "",
    on_failure: str = "continue",
    rule: str = "allow Write",
    mode: str = "default",
) -> Any:
    """Controls for one PreToolUse hook (exit code, stdout, onFailure) and the permission
    setup (one rule set, a mode); shows :func:`hooklab.simulate_hook` and draws the path
    through the gate. Returns the ipywidgets box; print ``simulate_hook(...).text()`` too.
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt
    from IPython.display import display

    from ..permissions import PermissionMode
    from .hooklab import EXIT_CHOICES, RULE_SETS, simulate_hook
    from .plots import plot_gate_path

    code = widgets.Dropdown(options=list(EXIT_CHOICES), value=exit_code, description="exit")
    text = widgets.Text(
        value=stdout, description="stdout", placeholder='{"hookSpecificOutput": {...}}'
    )
    failure = widgets.ToggleButtons(
        options=["continue", "block"], value=on_failure, description="onFailure"
    )
    rules = widgets.Dropdown(options=list(RULE_SETS), value=rule, description="rules")
    modes = widgets.Dropdown(
        options=[m.value for m in PermissionMode], value=mode, description="mode"
    )
    report = widgets.HTML()
    figure = widgets.Output()

    def refresh(_: Any = None) -> None:
        sim = simulate_hook(
            code.value, text.value, failure.value, RULE_SETS[rules.value], modes.value
        )
        report.value = live_html(sim.text())
        with figure:
            figure.clear_output(wait=True)
            fig = plot_gate_path(sim.gate)
            display(fig)
            plt.close(fig)

    for w in (code, text, failure, rules, modes):
        w.observe(refresh, names="value")
    refresh()
    return widgets.VBox(
        [widgets.HBox([widgets.VBox([code, text, failure, rules, modes]), report]), figure]
    )


# --- notebooks/ccaf: exam mode (the CCA-F question bank) -------------------------------


def exam_mode(
    count: int = 20,
    seed: int = 0,
    minutes: float | None = None,
    tasks: Sequence[str] | None = None,
    session: Any = None,
    record: bool = True,
) -> Any:
    """An exam over the CCA-F bank: one item at a time, answer, flag for review, a timer,
    then the report (scaled score with the 720 line, percent per task statement, and the
    rebuttal of every wrong option chosen).

    ``session`` may be a :class:`~mcpmini.course.quiz.ExamSession` to show (otherwise one
    is drawn with ``count``, ``seed``, ``minutes`` and ``tasks``). With ``record`` the
    graded report is added to the learner's progress (``mcpmini progress``). Returns the ipywidgets
    box; its ``session`` attribute is the session, so a headless run can print
    ``box.session.finish().lines()``.
    """
    import html

    import ipywidgets as widgets

    from .quiz import ExamSession, load_bank

    exam = session if session is not None else ExamSession(load_bank(), count, seed, minutes, tasks)
    state = {"at": 0, "loading": False}
    header = widgets.HTML()
    body = widgets.HTML()
    single = widgets.RadioButtons(options=[], layout=widgets.Layout(width="auto"))
    multi = widgets.SelectMultiple(options=[], rows=6, layout=widgets.Layout(width="90%"))
    flag = widgets.Checkbox(description="見直す (flag for review)")
    back = widgets.Button(description="◀ 前へ")
    ahead = widgets.Button(description="次へ ▶")
    review = widgets.Button(description="見直しへ")
    done = widgets.Button(description="終了して採点", button_style="primary")
    result = widgets.HTML()
    # a ticking timer without threads: the browser advances Play once a second and each
    # tick reaches the kernel, which redraws the status line (and grades at time-out)
    ticker = widgets.Play(
        value=0,
        min=0,
        max=max(1, int(exam.budget_s)),
        interval=1000,
        show_repeat=False,
        playing=True,
        description="timer",
    )

    def item() -> Any:
        return exam.items[state["at"]]

    def show(_: Any = None) -> None:
        it = item()
        header.value = (
            f"<b>{state['at'] + 1} / {len(exam.items)}</b> — {it.task} — "
            f"{html.escape(exam.status())}"
        )
        body.value = f"<p>{html.escape(it.scenario)}</p><p><b>{html.escape(it.stem)}</b></p>"
        labels = [(f"{o.id}. {o.text}", o.id) for o in it.options]
        chosen = exam.answers.get(it.id, [])
        state["loading"] = True  # setting the options must not count as answering
        single.layout.display = "none" if it.pick > 1 else None
        multi.layout.display = None if it.pick > 1 else "none"
        single.options, multi.options = labels, labels
        single.value = chosen[0] if chosen and it.pick == 1 else None
        multi.value = tuple(chosen) if it.pick > 1 else ()
        flag.value = it.id in exam.flagged
        state["loading"] = False

    def tick(_: Any = None) -> None:
        it = item()
        header.value = (
            f"<b>{state['at'] + 1} / {len(exam.items)}</b> — {it.task} — "
            f"{html.escape(exam.status())}"
        )
        if exam.time_left() <= 0 and exam.report is None:
            header.value += " — <b>時間切れ：採点しました</b>"
            finish(None)

    def save(_: Any = None) -> None:
        if state["loading"]:
            return
        it = item()
        picked = list(multi.value) if it.pick > 1 else ([single.value] if single.value else [])
        exam.answer(it.id, picked)
        header.value = (
            f"<b>{state['at'] + 1} / {len(exam.items)}</b> — {it.task} — "
            f"{html.escape(exam.status())}"
        )

    def move(step: int) -> None:
        state["at"] = (state["at"] + step) % len(exam.items)
        show()

    def to_flagged(_: Any) -> None:
        marked = [n for n, it in enumerate(exam.items) if it.id in exam.flagged]
        later = [n for n in marked if n > state["at"]] or marked
        if later:
            state["at"] = later[0]
            show()

    def finish(_: Any) -> None:
        ticker.playing = False
        report = exam.finish()
        result.value = "<pre>" + html.escape("\n".join(report.lines())) + "</pre>"
        if record:
            import os

            from .progress import progress_path, record_quiz

            path = progress_path(os.environ)
            if path is not None:
                record_quiz(path, report)

    def mark(change: Any) -> None:
        if not state["loading"]:
            exam.flag(item().id, bool(change["new"]))

    for w in (single, multi):
        w.observe(save, names="value")
    flag.observe(mark, names="value")
    ticker.observe(tick, names="value")
    back.on_click(lambda _: move(-1))
    ahead.on_click(lambda _: move(1))
    review.on_click(to_flagged)
    done.on_click(finish)
    show()
    box = widgets.VBox(
        [
            header,
            body,
            single,
            multi,
            flag,
            widgets.HBox([back, ahead, review, done]),
            result,
            ticker,
        ]
    )
    box.session = exam
    return box
