"""An MCP inspector inside the notebook (chapter 05, practice 01): pick a server, fill a form
built from a tool's ``inputSchema``, call it, and read the result beside its raw JSON-RPC.

The logic is plain functions, so a headless run (nbval, CI) and the tests use it without
widgets: :func:`form_spec` turns an input schema into :class:`FormField` rows,
:func:`form_arguments` turns the form's values back into the call's arguments,
:class:`InspectorSession` connects to a server (a course sample served over Streamable HTTP
in this process, so progress and log messages stream; a command over stdio; or a URL) and
turns one call into a :class:`~mcpmini.mcp.CallRecord` kept in its history, and
:func:`record_text` renders a record with its wire lines. :func:`inspector` is the widget
around them (``ipywidgets`` imported inside it only).

Rules of this module: everything the server sent is shown through :func:`_visible` (control
and bidi characters escaped) and then HTML-escaped by :func:`~mcpmini.course.report.live_html`;
a session ends every process and server thread it started in :meth:`InspectorSession.close`.
The inspector's own words (form lines, the widget's labels and report) are rows of
:data:`WORDS` in the learner's language; a result's lines are the runtime's
(:meth:`~mcpmini.mcp.CallRecord.lines`, the same as ``mcpmini call`` prints), English by the
project's convention for runtime output.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ...mcp import (
    SAMPLES,
    CallRecord,
    Client,
    HttpTransport,
    Notification,
    StdioTransport,
    Traced,
    Transport,
    inspect_call,
    notification_line,
    progress_of,
    serve_http,
)
from ...terminal import terminal_safe
from ..language import Text
from ..report import live_html

__all__ = [
    "COMMAND",
    "WORDS",
    "FieldKind",
    "FormField",
    "InspectorSession",
    "InspectorWidget",
    "form_arguments",
    "form_spec",
    "inspector",
    "record_text",
]


#: The inspector's own words (``{name}`` fields are formatted in).
WORDS: dict[str, Text] = {
    "required": Text("必須", "required"),
    "optional": Text("省略可", "optional"),
    "default": Text("既定 {value}", "default {value}"),
    "one_of": Text("{values} のどれか", "one of {values}"),
    "server": Text("サーバ", "server"),
    "command": Text("コマンド", "cmd"),
    "command_choice": Text("コマンド…", "command…"),
    "connect": Text("接続", "Connect"),
    "tool": Text("ツール", "tool"),
    "call": Text("呼び出す", "Call"),
    "progress": Text("進捗", "progress"),
    "not_connected": Text(
        "未接続: 見本のサーバを選ぶか、コマンドを書いてから「接続」を押します",
        "not connected: pick a sample server or type a command, then Connect",
    ),
    "connected": Text("{name} に接続: ツール {n} 個", "connected to {name}: {n} tools"),
    "no_call": Text("（まだ呼び出していません）", "(no call yet)"),
    "cannot_connect": Text("接続できません: {error}", "cannot connect: {error}"),
}


def _w(row: str, /, **fields: Any) -> str:
    return WORDS[row].lang().format(**fields)


def _visible(text: str) -> str:
    """``text`` with every control and bidi character shown escaped (``\\xNN``/``\\uNNNN``;
    newline and TAB kept as layout): :func:`mcpmini.terminal.terminal_safe`."""
    return terminal_safe(text)


class FieldKind(StrEnum):
    """Which control a schema property gets."""

    TEXT = "text"  # a string
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"  # a checkbox
    CHOICE = "choice"  # an ``enum``: a dropdown
    JSON = "json"  # an object, an array, or a property of no single type: JSON text


@dataclass(frozen=True)
class FormField:
    """One form control for one property of a tool's input schema.

    ``default`` is the schema's default (``None``: none); ``choices`` the ``enum`` values of
    a :attr:`FieldKind.CHOICE` field.
    """

    name: str
    kind: FieldKind
    required: bool = False
    default: Any = None
    choices: tuple[Any, ...] = ()
    description: str = ""

    def line(self) -> str:
        """The field in one line: name, kind, required, default, choices, description."""
        parts = [f"{self.name}: {self.kind.value}", _w("required" if self.required else "optional")]
        if self.default is not None:
            parts.append(_w("default", value=json.dumps(self.default, ensure_ascii=False)))
        if self.choices:
            parts.append(_w("one_of", values=", ".join(json.dumps(c) for c in self.choices)))
        if self.description:
            parts.append(self.description.splitlines()[0])
        return " | ".join(parts)


_KINDS = {
    "string": FieldKind.TEXT,
    "integer": FieldKind.INTEGER,
    "number": FieldKind.NUMBER,
    "boolean": FieldKind.BOOLEAN,
}


def _kind(prop: Mapping[str, Any]) -> FieldKind:
    if isinstance(prop.get("enum"), list) and prop["enum"]:
        return FieldKind.CHOICE
    kind = prop.get("type")
    if isinstance(kind, list):  # ["string", "null"]: the one non-null type, if there is one
        kinds = [k for k in kind if k != "null"]
        kind = kinds[0] if len(kinds) == 1 else None
    return _KINDS.get(kind, FieldKind.JSON) if isinstance(kind, str) else FieldKind.JSON


def form_spec(input_schema: Mapping[str, Any]) -> tuple[FormField, ...]:
    """The form for ``input_schema``: one :class:`FormField` per property, in the schema's
    order (required ones keep their place). A schema without properties gives no field."""
    properties = input_schema.get("properties")
    if not isinstance(properties, Mapping):
        return ()
    required = input_schema.get("required")
    needed = set(required) if isinstance(required, list) else set()
    out = []
    for name, prop in properties.items():
        prop = prop if isinstance(prop, Mapping) else {}
        kind = _kind(prop)
        out.append(
            FormField(
                str(name),
                kind,
                name in needed,
                prop.get("default"),
                tuple(prop["enum"]) if kind is FieldKind.CHOICE else (),
                str(prop.get("description") or ""),
            )
        )
    return tuple(out)


def _value(spec: FormField, raw: Any) -> Any:
    if spec.kind is FieldKind.JSON:
        try:
            return json.loads(raw) if isinstance(raw, str) else raw
        except json.JSONDecodeError as exc:
            raise ValueError(f"{spec.name}: not valid JSON ({exc.msg})") from None
    if spec.kind is FieldKind.INTEGER and isinstance(raw, float) and raw == int(raw):
        return int(raw)
    return raw


def form_arguments(fields: Sequence[FormField], values: Mapping[str, Any]) -> dict[str, Any]:
    """The call's arguments from the form's ``values`` (field name → what the control holds:
    text for text and JSON fields, numbers, booleans, a choice).

    An optional field left empty (``None`` or ``""``) is left out, so the server's default
    applies; JSON text is parsed. Raises ``ValueError`` for JSON text that does not parse.
    Validation against the schema is the server's (its ``-32602`` or ``isError`` is shown).
    """
    arguments: dict[str, Any] = {}
    for spec in fields:
        raw = values.get(spec.name)
        if raw is None or (raw == "" and not spec.required):
            continue
        arguments[spec.name] = _value(spec, raw)
    return arguments


def record_text(record: CallRecord, wire: bool = True, width: int = 160) -> str:
    """One call as text: the tool and arguments, the notifications that arrived while it
    ran, the rendered result, then (``wire``) the JSON-RPC lines both ways, each cut at
    ``width`` characters. Server text is escaped (see the module rules)."""
    lines = [f"→ {record.tool} {json.dumps(record.arguments, ensure_ascii=False)}"]
    lines.extend("  " + notification_line(n) for n in record.notifications)
    lines.extend(record.lines())
    if wire:
        lines.append("--- JSON-RPC ---")
        lines.extend(
            line if len(line) <= width else line[: width - 1] + "…" for line in record.wire
        )
    return _visible("\n".join(lines))


@dataclass
class InspectorSession:
    """A connected inspector: ``client`` over a traced transport, the server's ``tools``,
    and the ``history`` of calls (oldest first). Build one with :meth:`open`; call
    :meth:`close` (or use ``with``) to end what it started."""

    name: str
    client: Client
    tools: list[dict[str, Any]]
    history: list[CallRecord] = field(default_factory=list)
    _stack: contextlib.ExitStack = field(default_factory=contextlib.ExitStack, repr=False)

    @classmethod
    def open(
        cls, server: str | Sequence[str], mode: str = "auto", timeout: float = 30.0
    ) -> InspectorSession:
        """Connect to ``server``: a course sample's name (served over Streamable HTTP in
        this process), an ``http(s)://`` URL, or a command (a list) started over stdio.

        Raises ``ValueError`` for an unknown sample name, and what
        :meth:`~mcpmini.mcp.Client.connect` raises when the server cannot be reached.
        """
        stack = contextlib.ExitStack()
        inner: Transport
        try:
            if isinstance(server, str) and server.startswith(("http://", "https://")):
                name, inner = server, HttpTransport(server, timeout=timeout)
            elif isinstance(server, str):
                if server not in SAMPLES:
                    known = ", ".join(sorted(SAMPLES))
                    raise ValueError(f"unknown sample {server!r}; the samples are {known}")
                url = stack.enter_context(serve_http(SAMPLES[server]()))
                name, inner = server, HttpTransport(url, timeout=timeout)
            else:
                name, inner = " ".join(server), StdioTransport(list(server))
            client = Client(Traced(inner), mode=mode, timeout=timeout)
            stack.callback(client.close)
            client.connect()
            tools = client.list_tools()
        except BaseException:
            stack.close()
            raise
        return cls(name, client, tools, _stack=stack)

    def tool(self, name: str) -> dict[str, Any]:
        """The ``tools/list`` entry of ``name``. Raises ``KeyError`` when there is none."""
        for tool in self.tools:
            if tool.get("name") == name:
                return tool
        raise KeyError(name)

    def form(self, name: str) -> tuple[FormField, ...]:
        """The form for tool ``name`` (:func:`form_spec` of its input schema)."""
        schema = self.tool(name).get("inputSchema")
        return form_spec(schema if isinstance(schema, Mapping) else {})

    def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        on_notification: Callable[[Notification], None] | None = None,
    ) -> CallRecord:
        """Call tool ``name``; each notification goes to ``on_notification`` as it arrives.
        Returns the :class:`~mcpmini.mcp.CallRecord`, also appended to :attr:`history`.
        Never raises for what the server does."""
        try:
            schema = self.tool(name).get("outputSchema")
        except KeyError:
            schema = None  # not listed: the server will say what it thinks of the name
        record = inspect_call(
            self.client,
            name,
            arguments,
            schema if isinstance(schema, dict) else None,
            on_notification=on_notification,
        )
        self.history.append(record)
        return record

    def history_lines(self) -> list[str]:
        """One line per call so far: number, tool, arguments, headline."""
        return [
            _visible(
                f"{i}. {r.tool} {json.dumps(r.arguments, ensure_ascii=False)} → {r.headline()}"
            )
            for i, r in enumerate(self.history, 1)
        ]

    def close(self) -> None:
        """End the connection, and the server process or thread this session started."""
        self._stack.close()

    def __enter__(self) -> InspectorSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --- the widget ---------------------------------------------------------------------------

#: The server dropdown's value for "a command typed in the text box" (its label is a word).
COMMAND = "command…"


@dataclass
class InspectorWidget:
    """The inspector's widget (``widget``) and its parts, for a test or a notebook to drive:
    ``connect`` / ``call`` are the buttons, ``session`` the open :class:`InspectorSession`."""

    widget: Any
    controls: dict[str, Any]
    session: InspectorSession | None = None
    fields: tuple[FormField, ...] = ()
    inputs: dict[str, Any] = field(default_factory=dict)

    def report(self) -> str:
        """The call history and the last record, as the live report shows them."""
        if self.session is None:
            return _w("not_connected")
        lines = [_w("connected", name=self.session.name, n=len(self.session.tools))]
        lines.extend(self.session.history_lines() or [_w("no_call")])
        return "\n".join(lines)

    def close(self) -> None:
        """Close the session (ends the server it started)."""
        if self.session is not None:
            self.session.close()
            self.session = None


def _control(widgets: Any, spec: FormField) -> Any:
    label = spec.name + (" *" if spec.required else "")
    style = {"description_width": "initial"}
    if spec.kind is FieldKind.BOOLEAN:
        return widgets.Checkbox(value=bool(spec.default), description=label, indent=False)
    if spec.kind is FieldKind.CHOICE:
        options = [("", None)] if not spec.required else []
        options += [(json.dumps(c) if not isinstance(c, str) else c, c) for c in spec.choices]
        value = spec.default if spec.default in spec.choices else options[0][1]
        return widgets.Dropdown(options=options, value=value, description=label, style=style)
    if spec.kind in (FieldKind.INTEGER, FieldKind.NUMBER):
        cls = widgets.IntText if spec.kind is FieldKind.INTEGER else widgets.FloatText
        return cls(value=spec.default or 0, description=label, style=style)
    if spec.kind is FieldKind.JSON:
        text = json.dumps(spec.default) if spec.default is not None else ""
        return widgets.Textarea(value=text, description=label, placeholder="JSON", style=style)
    return widgets.Text(value=spec.default or "", description=label, style=style)


def inspector(server: str = "conformance", tool: str | None = None) -> InspectorWidget:
    """The inspector widget, connected to sample ``server`` (``""``: not connected) with
    ``tool`` selected (default: the first). Returns an :class:`InspectorWidget`; display its
    ``widget`` and print its ``report()`` (a headless run shows only the printed text).
    Call its ``close()`` when done."""
    import ipywidgets as widgets

    other = _w("command_choice")
    choices = [(name, name) for name in sorted(SAMPLES)] + [(other, COMMAND)]
    pick = widgets.Dropdown(
        options=choices, value=server or choices[0][1], description=_w("server")
    )
    command = widgets.Text(
        placeholder=f"{sys.executable} -m mcpmini serve add", description=_w("command")
    )
    connect = widgets.Button(description=_w("connect"))
    tools = widgets.Dropdown(options=[], description=_w("tool"))
    form = widgets.VBox([])
    run = widgets.Button(description=_w("call"), button_style="primary")
    progress = widgets.FloatProgress(value=0, min=0, max=1, description=_w("progress"))
    live = widgets.HTML()
    report = widgets.HTML()
    history = widgets.VBox([])
    controls = {
        "server": pick,
        "command": command,
        "connect": connect,
        "tool": tools,
        "form": form,
        "call": run,
        "progress": progress,
        "live": live,
        "history": history,
    }
    box = widgets.VBox(
        [
            widgets.HBox([pick, command, connect]),
            widgets.HBox([tools, run]),
            form,
            progress,
            live,
            report,
            history,
        ]
    )
    state = InspectorWidget(box, controls)

    def refresh() -> None:
        report.value = live_html(state.report())

    def build_form(_: Any = None) -> None:
        if state.session is None or not tools.value:
            state.fields, state.inputs, form.children = (), {}, ()
            return
        state.fields = state.session.form(tools.value)
        state.inputs = {f.name: _control(widgets, f) for f in state.fields}
        form.children = tuple(state.inputs.values())

    def do_connect(_: Any = None) -> None:
        state.close()
        target: str | list[str] = pick.value
        if pick.value == COMMAND:
            target = command.value.split()
        try:
            state.session = InspectorSession.open(target)
        except Exception as exc:  # shown, not raised: a widget callback has nowhere to raise to
            live.value = live_html(_w("cannot_connect", error=_visible(str(exc))))
            refresh()
            return
        names = [str(t.get("name")) for t in state.session.tools]
        tools.options = names
        tools.value = tool if tool in names else (names[0] if names else None)
        build_form()
        refresh()

    def arrived(note: Notification) -> None:
        step = progress_of(note)
        if step is not None and step.fraction is not None:
            progress.value = step.fraction
        live.value = live_html(_visible(notification_line(note)))

    def do_call(_: Any = None) -> None:
        if state.session is None or not tools.value:
            return
        progress.value = 0
        try:
            arguments = form_arguments(state.fields, {k: w.value for k, w in state.inputs.items()})
        except ValueError as exc:
            live.value = live_html(str(exc))
            return
        record = state.session.call(tools.value, arguments, on_notification=arrived)
        result = widgets.HTML(live_html(record_text(record, wire=False)))
        raw = widgets.HTML(live_html(_visible("\n".join(record.wire))))
        raw.layout = widgets.Layout(width="50%", overflow="auto")
        result.layout = widgets.Layout(width="50%")
        history.children = (widgets.HBox([result, raw]), *history.children)
        refresh()

    tools.observe(build_form, names="value")
    connect.on_click(do_connect)
    run.on_click(do_call)
    if server:
        do_connect()
    refresh()
    return state
