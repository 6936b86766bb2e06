"""The floor for any Python ASGI MCP server here: parse the JSON body, answer a fixed result.

No MCP at all: uvicorn, one JSON decode, one fixed JSON-RPC result (or, when the call asks for
progress, an event stream with one progress notification and the result). ``bench/http_load.py``
measures every real server against this app under the same load generator.
"""

from __future__ import annotations

import os
import time
from typing import Any

import orjson

RESULT = {"content": [{"type": "text", "text": "5"}], "isError": False}


async def _body(receive: Any) -> bytes:
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """ASGI entry point (`uvicorn tests.peers.bare_asgi:app`)."""
    if scope["type"] != "http":
        return
    request = orjson.loads(await _body(receive))
    reply = orjson.dumps({"jsonrpc": "2.0", "id": request.get("id"), "result": RESULT})
    token = ((request.get("params") or {}).get("_meta") or {}).get("progressToken")
    if token is None:
        headers = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": reply})
        return
    progress = orjson.dumps(
        {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": token, "progress": 1, "total": 1},
        }
    )
    headers = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    for event in (progress, reply):
        body = b"event: message\ndata: " + event + b"\n\n"
        await send({"type": "http.response.body", "body": body, "more_body": True})
    await send({"type": "http.response.body", "body": b""})


def spinning() -> Any:
    """The floor plus ``BARE_ASGI_SPIN_US`` microseconds of busy Python per request (a uvicorn
    factory): what any per-call work costs under load, kernel and wake-ups included, so that
    ``bench/http_load.py`` can show where a real server's time goes."""
    spin = float(os.environ.get("BARE_ASGI_SPIN_US", "0")) / 1e6

    async def spun(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = await _body(receive)
        end = time.perf_counter() + spin
        while time.perf_counter() < end:
            pass
        request = orjson.loads(body)
        reply = orjson.dumps({"jsonrpc": "2.0", "id": request.get("id"), "result": RESULT})
        headers = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": reply})

    return spun
