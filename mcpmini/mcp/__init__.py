"""§3 of the article: the Model Context Protocol.

JSON-RPC messages and ids (:mod:`.jsonrpc`), both protocol generations (:mod:`.versions`),
the method catalogue (:mod:`.methods`), tool schemas (:mod:`.schema`), the sans-I/O server
(:mod:`.server`: the ``Server`` app and one ``ServerConnection`` per peer) and client
(:mod:`.client`), tool-call outcomes (:mod:`.outcome`), what a call showed (:mod:`.inspection`),
the transports that move their lines (:mod:`.transport`), Streamable HTTP (:mod:`.http` sans-I/O,
:mod:`.asgi` for any ASGI server), what a running tool may send (:mod:`.context`), traces
(:mod:`.trace`), the tasks extension's state machine and task table (:mod:`.tasks`), the
example servers (:mod:`.samples`) and the conformance fixtures (:mod:`.conformance`).
"""

from __future__ import annotations

from .asgi import (
    McpAsgi,
    asgi_app,
    serve_http,
)
from .client import (
    Client,
    ClientConnection,
    ClientMode,
    ClientState,
    Connection,
)
from .conformance import (
    ConformanceServer,
    conformance_server,
)
from .context import (
    LOG_LEVELS,
    NO_CALL,
    CallContext,
    current_call,
    in_call,
)
from .http import (
    HttpEndpoint,
    HttpLimits,
    HttpReply,
    HttpRequest,
)
from .http_client import (
    HttpExchange,
    HttpTransport,
)
from .inspection import (
    BlockView,
    CallRecord,
    Progress,
    StructuredCheck,
    StructuredVerdict,
    call_meta,
    check_structured,
    inspect_call,
    notification_line,
    progress_bar,
    progress_of,
    record_call,
    view_block,
)
from .jsonrpc import (
    ErrorCode,
    ErrorResponse,
    JsonId,
    Message,
    Notification,
    PendingTable,
    Request,
    Response,
    encode,
    error_reply,
    parse_line,
    parse_object,
    to_dict,
)
from .methods import (
    METHODS,
    Method,
    MethodSpec,
)
from .outcome import (
    OutcomeKind,
    ToolOutcome,
    to_tool_result,
)
from .samples import (
    CITIES,
    ORDERS,
    SAMPLES,
    add_server,
    orders_server,
    weather_server,
)
from .schema import (
    Validator,
    check_schema,
    docstring_parts,
    schema_from_function,
)
from .server import (
    Prompt,
    Resource,
    Server,
    ServerConnection,
    Tool,
)
from .tasks import (
    TASKS_EXTENSION,
    TaskStatus,
    TaskSupport,
    TaskTable,
    UnknownTask,
)
from .trace import (
    Trace,
    Traced,
    TraceEvent,
)
from .transport import (
    MAX_LINE,
    LineBuffer,
    MemoryTransport,
    StdioTransport,
    Transport,
    memory_pair,
    serve_stdio,
)
from .versions import (
    GENERATIONS,
    KNOWN_VERSIONS,
    LEGACY,
    META_PREFIX,
    MODERN,
    Generation,
    is_modern,
)

__all__ = [
    "CITIES",
    "GENERATIONS",
    "KNOWN_VERSIONS",
    "LEGACY",
    "LOG_LEVELS",
    "MAX_LINE",
    "META_PREFIX",
    "METHODS",
    "MODERN",
    "NO_CALL",
    "ORDERS",
    "SAMPLES",
    "TASKS_EXTENSION",
    "BlockView",
    "CallContext",
    "CallRecord",
    "Client",
    "ClientConnection",
    "ClientMode",
    "ClientState",
    "ConformanceServer",
    "Connection",
    "ErrorCode",
    "ErrorResponse",
    "Generation",
    "HttpEndpoint",
    "HttpExchange",
    "HttpLimits",
    "HttpReply",
    "HttpRequest",
    "HttpTransport",
    "JsonId",
    "LineBuffer",
    "McpAsgi",
    "MemoryTransport",
    "Message",
    "Method",
    "MethodSpec",
    "Notification",
    "OutcomeKind",
    "PendingTable",
    "Progress",
    "Prompt",
    "Request",
    "Resource",
    "Response",
    "Server",
    "ServerConnection",
    "StdioTransport",
    "StructuredCheck",
    "StructuredVerdict",
    "TaskStatus",
    "TaskSupport",
    "TaskTable",
    "Tool",
    "ToolOutcome",
    "Trace",
    "TraceEvent",
    "Traced",
    "Transport",
    "UnknownTask",
    "Validator",
    "add_server",
    "asgi_app",
    "call_meta",
    "check_schema",
    "check_structured",
    "conformance_server",
    "current_call",
    "docstring_parts",
    "encode",
    "error_reply",
    "in_call",
    "inspect_call",
    "is_modern",
    "memory_pair",
    "notification_line",
    "orders_server",
    "parse_line",
    "parse_object",
    "progress_bar",
    "progress_of",
    "record_call",
    "schema_from_function",
    "serve_http",
    "serve_stdio",
    "to_dict",
    "to_tool_result",
    "view_block",
    "weather_server",
]
