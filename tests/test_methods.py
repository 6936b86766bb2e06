"""The MCP method catalogue: one row per method, and no method name or error code elsewhere."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import mcpmini
from mcpmini.mcp import METHODS, ConformanceServer, ErrorCode, Generation, Method, Server
from mcpmini.mcp.methods import Sender, Target, method_spec

ROOT = Path(mcpmini.__file__).parent
MCP_DIR = ROOT / "mcp"
# Looks like an MCP method name: a known family, then a slash (``notifications/…``), or a
# bare name of the table. MIME types and URIs do not match.
FAMILY = re.compile(
    r"^(notifications|tools|resources|prompts|logging|completion|sampling|elicitation|roots|"
    r"server|tasks)/[A-Za-z/_]+$"
)
CLI_DIR = ROOT / "cli"
# Where a reserved ``io.modelcontextprotocol/`` name may be spelled: the envelope catalogue and
# the prefix's own definition. The course's teaching model of Prop. 3.4 still builds its own
# envelope (owned by the course; to read ``mcp.envelope``).
ENVELOPE_HOMES = {"mcp/envelope.py", "mcp/versions.py", "course/chapters/negotiation.py"}


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def test_every_method_has_exactly_one_row_named_by_its_enum_member():
    assert list(METHODS) == [m.value for m in Method]
    assert all(spec.method is Method(name) for name, spec in METHODS.items())
    assert method_spec("tools/call") is METHODS[Method.TOOLS_CALL]
    assert method_spec("tools/unknown") is None


def test_the_rows_say_what_each_method_is():
    call = METHODS["tools/call"]
    assert (call.target, call.target.param, call.streams, call.lists) == (
        Target.TOOL,
        "name",
        True,
        False,
    )
    assert METHODS["resources/read"].target.param == "uri"
    assert METHODS["tools/list"].lists and METHODS["tools/list"].cached
    assert METHODS["server/discover"].generations == {Generation.MODERN}
    assert METHODS["notifications/progress"].notification
    assert METHODS["sampling/createMessage"].sender is Sender.SERVER
    assert call.handler == "on_tools_call"
    assert METHODS["logging/setLevel"].handler == "on_logging_set_level"


def test_a_listing_method_is_cached_and_no_notification_lists_or_streams():
    for spec in METHODS.values():
        assert not spec.lists or spec.cached, spec.name
        assert not spec.notification or not (spec.lists or spec.streams or spec.target)


def test_the_stateless_route_removed_exactly_the_handshake_only_methods():
    removed = {name for name, spec in METHODS.items() if spec.removed_stateless}
    assert removed == {
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "notifications/initialized",
    }


def test_the_fixture_server_answers_every_request_a_client_may_send():
    missing = [
        spec.name
        for spec in METHODS.values()
        if spec.answered_by_server
        and spec.method is not Method.INITIALIZE  # the connection's handshake answers it
        and not callable(getattr(ConformanceServer, spec.handler, None))
    ]
    assert missing == []
    handlers = {name for name in dir(ConformanceServer) if name.startswith("on_")}
    assert handlers <= {spec.handler for spec in METHODS.values()}
    assert {n for n in dir(Server) if n.startswith("on_")} <= handlers


def _method_literals(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    skip = _docstrings(tree)
    return [
        f"{path.name}:{node.lineno} {node.value}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in skip
        and (node.value in METHODS or FAMILY.match(node.value))
    ]


def test_no_mcp_or_cli_module_but_the_table_spells_a_method_name():
    # issue 27: the client, the HTTP client and the CLI read the table too
    named = []
    for path in sorted([*MCP_DIR.rglob("*.py"), *CLI_DIR.glob("*.py")]):
        if path.name == "methods.py":
            continue
        named += _method_literals(path)
    assert named == []


def _envelope_keys(path: Path) -> list[str]:
    """Reserved names spelled out: an ``io.modelcontextprotocol/…`` literal (outside
    docstrings) or ``META_PREFIX + …``."""
    tree = ast.parse(path.read_text())
    skip = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        literal = (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in skip
            and node.value.startswith("io.modelcontextprotocol/")
        )
        built = (
            isinstance(node, ast.BinOp)
            and isinstance(node.left, ast.Name)
            and node.left.id == "META_PREFIX"
        )
        if literal or built:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_every_reserved_meta_key_is_spelled_in_the_envelope_catalogue_only():
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        if str(path.relative_to(ROOT)) not in ENVELOPE_HOMES:
            found += _envelope_keys(path)
    assert found == []


def test_the_envelope_key_check_finds_a_key(tmp_path):
    sample = ROOT / "mcp" / "envelope.py"
    assert len(_envelope_keys(sample)) >= 6  # the catalogue itself spells every key


def test_the_method_literal_check_finds_a_literal(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('"""Mentions tools/call in prose."""\nX = "tools/call"\nY = "roots/list"\n')
    assert _method_literals(sample) == ["sample.py:2 tools/call", "sample.py:3 roots/list"]


def _error_code_literals(path: Path) -> list[str]:
    """Negative integer literals in JSON-RPC's error range (-32768 … -32000), except
    ``ErrorCode``'s and the 2026 negotiation model's (a teaching model moving to the course)."""
    tree = ast.parse(path.read_text())
    allowed: set[int] = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.ClassDef) and node.name == "ErrorCode") or (
            isinstance(node, ast.FunctionDef) and node.name == "negotiate_per_request"
        ):
            allowed |= {id(n) for n in ast.walk(node)}
    return [
        f"{path.relative_to(path.parents[1])}:{node.lineno} -{node.operand.value}"
        for node in ast.walk(tree)
        if isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) is int
        and 32000 <= node.operand.value <= 32768
        and id(node) not in allowed
    ]


def test_no_module_writes_an_error_code_as_a_number():
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        found += _error_code_literals(path)
    assert found == []


def test_the_error_code_check_finds_a_number(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    sample = pkg / "sample.py"
    sample.write_text("class ErrorCode:\n    A = -32600\n\nX = -32021\nLIMIT = 32_000\n")
    assert _error_code_literals(sample) == ["pkg/sample.py:4 -32021"]


@pytest.mark.parametrize("code", list(ErrorCode))
def test_every_error_code_is_in_the_json_rpc_range(code):
    assert -32768 <= code <= -32000


# --- "How to add an MCP method" (ARCHITECTURE.md), followed literally ------------------------

# What the section says to write: Method members and their rows in methods.py (a plain
# method, and one naming its target, so the Mcp-Name rule is exercised too) …
NEW_MEMBERS = '    EXAMPLE_ECHO = "example/echo"\n    NOTES_READ = "notes/read"\n'
NEW_ROWS = (
    "    MethodSpec(M.EXAMPLE_ECHO),\n    MethodSpec(M.NOTES_READ, target=Target.RESOURCE),\n"
)
# … and the handlers, on_<member name in lower case>, on the server that answers them.
PROGRAM = """
import importlib.util, json, sys

edited, role = sys.argv[1], sys.argv[2]


class EditedCatalogue:  # the package as it would be with methods.py edited, nothing else
    def find_spec(self, name, path=None, target=None):
        if name == "mcpmini.mcp.methods":
            return importlib.util.spec_from_file_location(name, edited)
        return None


sys.meta_path.insert(0, EditedCatalogue())
from mcpmini.errors import RemoteProtocolError
from mcpmini.mcp import Client, ErrorCode, HttpTransport, Server, StdioTransport
from mcpmini.mcp import serve_http, serve_stdio


class Notes(Server):
    def on_example_echo(self, conn, req, params):
        return {"echo": params.get("text")}

    def on_notes_read(self, conn, req, params):
        uri = params.get("uri")
        if not isinstance(uri, str):
            raise RemoteProtocolError("notes/read needs a uri", ErrorCode.INVALID_PARAMS, req.id)
        return {"text": "note " + uri}


if role == "serve":
    serve_stdio(Notes("notes"))
    sys.exit(0)


def calls(client):
    client.connect()
    out = [client.request("example/echo", {"text": "hi"}).get("echo")]
    out.append(client.request("notes/read", {"uri": "notes://1"}).get("text"))
    try:
        client.request("notes/read", {})
    except RemoteProtocolError as exc:
        out.append(exc.code)
    return out


results = {}
for mode in ("modern", "legacy"):
    with Client(StdioTransport([sys.executable, __file__, edited, "serve"]), mode=mode) as c:
        results["stdio " + mode] = calls(c)
    with serve_http(Notes("notes")) as url, Client(HttpTransport(url), mode=mode) as c:
        results["http " + mode] = calls(c)
print(json.dumps(results))
"""


def _edited_catalogue() -> str:
    """methods.py with the new members after the last one and the new rows after the last."""
    source = (MCP_DIR / "methods.py").read_text()
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    members = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Method")
    rows = next(
        n
        for n in tree.body
        if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", None) == "_ROWS"
    )
    closing = rows.end_lineno - 1  # the line of the list's "]"
    assert lines[closing].strip() == "]"
    lines.insert(closing, NEW_ROWS)
    lines.insert(members.end_lineno, NEW_MEMBERS)
    return "".join(lines)


def test_a_method_added_as_architecture_md_says_is_served_over_stdio_and_http(tmp_path):
    # Bug (issue 27): a method added as documented (a row with a target) was refused by
    # mcpmini's own HTTP server when mcpmini's HTTP client sent it without its target param:
    # the two sides derived Mcp-Name differently. Both now read http.target_name.
    doc = (ROOT.parent / "ARCHITECTURE.md").read_text()
    section = doc.split("**An MCP method.**", 1)[1].split("\n**", 1)[0]
    assert "mcpmini/mcp/methods.py" in section and "on_<member name in lower case>" in section
    edited = tmp_path / "methods.py"
    edited.write_text(_edited_catalogue())
    program = tmp_path / "program.py"
    program.write_text(PROGRAM)
    done = subprocess.run(
        [sys.executable, str(program), str(edited), "client"],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT.parent,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(done.stdout)
    expected = ["hi", "note notes://1", ErrorCode.INVALID_PARAMS]
    assert results == {
        "stdio modern": expected,
        "http modern": expected,
        "stdio legacy": expected,
        "http legacy": expected,
    }
