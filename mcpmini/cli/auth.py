"""``mcpmini auth login|logout|list``: OAuth logins to remote MCP servers, kept per server.

Records live in ``$XDG_CONFIG_HOME/mcpmini/tokens`` (else ``~/.config/mcpmini/tokens``),
one ``0600`` file per server in a ``0700`` folder (:class:`mcpmini.mcp.auth.FileStore`).
``mcpmini call --url``, ``mcpmini tools`` and the loop's HTTP servers use and refresh them.

Rules of this module: no token, secret or code is ever printed; ``login`` shows the
authorization URL and waits, bounded by ``--timeout``, on a loopback port for the browser's
redirect (``--headless`` follows an authorization server that redirects without a person). A
client secret need not be an argument (every local user can read a process's arguments): it
is read from ``--client-secret-file`` or ``$MCPMINI_CLIENT_SECRET`` (an option beats the
environment; the two options together are refused).
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from ..deadline import Deadline
from ..errors import McpminiError, UsageError
from .output import echo, print_json

__all__ = ["add"]

#: The environment variable a client secret may come from instead of an argument.
SECRET_ENV = "MCPMINI_CLIENT_SECRET"


def add(sub: Any) -> None:
    p = sub.add_parser("auth", help="log in to remote MCP servers (OAuth 2.1)")
    auth = p.add_subparsers(dest="auth_command", metavar="ACTION")
    login = auth.add_parser(
        "login",
        help="authorize mcpmini at an MCP server and keep the token",
        description="Discover the server's authorization server, register (or use --client-id), "
        "open the authorization URL and keep the token for later calls.",
    )
    login.add_argument("url", help="the MCP server, e.g. https://example.com/mcp")
    login.add_argument("--client-id", help="a pre-registered client id (no registration then)")
    login.add_argument(
        "--client-secret",
        help="the pre-registered client's secret (visible in the process list: prefer "
        f"--client-secret-file or ${SECRET_ENV})",
    )
    login.add_argument(
        "--client-secret-file",
        metavar="FILE",
        help="read the client's secret from FILE (its first line)",
    )
    login.add_argument("--scope", help="the scopes to ask for (space-separated)")
    login.add_argument(
        "--grant",
        choices=["authorization_code", "client_credentials"],
        default="authorization_code",
        help="client_credentials: the client itself, no person (needs --client-id and "
        "--client-secret; renewed by itself when the token expires)",
    )
    login.add_argument("--port", type=int, default=0, help="the loopback redirect port (0: any)")
    login.add_argument(
        "--no-browser", action="store_true", help="only print the URL, open no browser"
    )
    login.add_argument(
        "--headless",
        action="store_true",
        help="follow the authorization URL's redirect without a browser",
    )
    login.add_argument(
        "--timeout", type=float, default=300.0, metavar="S", help="seconds to wait for the login"
    )
    login.set_defaults(handler=_cmd_login)
    logout = auth.add_parser("logout", help="forget the login of a server (or --all)")
    logout.add_argument("url", nargs="?", help="the MCP server")
    logout.add_argument("--all", action="store_true", help="forget every login")
    logout.set_defaults(handler=_cmd_logout)
    listing = auth.add_parser("list", help="the servers mcpmini holds a login for")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(handler=_cmd_list)
    p.set_defaults(handler=lambda args: _usage(p))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _store() -> Any:
    from ..mcp.auth import FileStore, tokens_dir

    return FileStore(tokens_dir(os.environ))


def _cmd_login(args: argparse.Namespace) -> int:
    import httpx

    from ..mcp import Client, HttpTransport
    from ..mcp.auth import Grant, HeadlessAgent, LoopbackAgent, OAuth, OAuthOptions

    if not args.url.startswith(("http://", "https://")):
        raise UsageError(f"{args.url!r} is not an http:// or https:// URL")
    secret = _client_secret(args)
    machine = args.grant == "client_credentials"
    if machine and not (args.client_id and secret):
        raise UsageError(
            "--grant client_credentials needs --client-id and a client secret "
            f"(--client-secret-file FILE, ${SECRET_ENV} or --client-secret)"
        )
    options = OAuthOptions(
        grant=Grant(args.grant),
        client_id=args.client_id,
        client_secret=secret,
        scope=args.scope,
    )
    store = _store()
    old = store.load(args.url)
    if old is not None and old.token is not None:  # a new login replaces the old token
        from dataclasses import replace

        store.save(replace(old, token=None))
    agent: Any
    if machine:
        agent = None
    elif args.headless:
        agent = HeadlessAgent(timeout=min(args.timeout, 30.0))
    else:
        agent = LoopbackAgent(
            args.port,
            notify=lambda text: echo(text, err=True, layout=True),
            open_browser=not args.no_browser,
            timeout=args.timeout,
        )
    # One deadline for the whole login: discovery, registration, the person's wait, the token.
    deadline = Deadline.after(args.timeout, label=f"--timeout {args.timeout:g} s")
    auth = OAuth(args.url, options, store, agent, deadline=deadline)
    transport = HttpTransport(
        args.url, timeout=args.timeout, open_stream=False, auth=auth, deadline=deadline
    )
    try:
        with Client(transport, timeout=args.timeout) as client:
            client.connect(deadline)
        if auth.record.token is None:  # the server answered without asking: log in anyway
            with httpx.Client(timeout=deadline.left()) as http:
                auth.login()(http)
    except McpminiError:
        if transport.auth_error is not None:
            raise transport.auth_error from None
        raise
    except httpx.HTTPError as exc:  # the login's own requests: the transport's failure kinds
        raise transport.failure(exc) from None
    finally:
        if isinstance(agent, LoopbackAgent):
            agent.close()
    record = auth.record
    if record.token is None:
        echo(f"{args.url} did not ask for a login; nothing stored", err=True)
        return 1
    scopes = " ".join(record.token.scopes) or "(none)"
    echo(f"logged in to {args.url} (issuer {record.issuer}, scopes {scopes})")
    return 0


def _client_secret(args: argparse.Namespace) -> str | None:
    """The client secret from ``--client-secret-file`` or ``--client-secret`` (at most one of
    them), else ``$MCPMINI_CLIENT_SECRET`` (an option given beats the environment, as usual);
    ``None``: none given. Raises ``UsageError`` for both options or a file that cannot be read
    or is empty."""
    given = [
        name
        for name, value in (
            ("--client-secret-file", args.client_secret_file),
            ("--client-secret", args.client_secret),
        )
        if value is not None
    ]
    if len(given) > 1:
        raise UsageError("give the client secret once: --client-secret-file or --client-secret")
    if args.client_secret_file is not None:
        try:
            with open(args.client_secret_file, encoding="utf-8") as fh:
                secret = fh.readline().strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"--client-secret-file {args.client_secret_file}: {exc}") from None
        if not secret:
            raise UsageError(f"--client-secret-file {args.client_secret_file} is empty")
        return secret
    if args.client_secret is not None:
        return str(args.client_secret)
    return os.environ.get(SECRET_ENV) or None


def _cmd_logout(args: argparse.Namespace) -> int:
    store = _store()
    if args.all == bool(args.url):
        raise UsageError("give a server URL or --all")
    targets = [r.server for r in store.records()] if args.all else [args.url]
    gone = [t for t in targets if store.delete(t)]
    for server in gone:
        echo(f"logged out of {server}")
    if not gone and not args.all:
        echo(f"no login stored for {args.url}", err=True)
        return 1
    return 0


def _expires(at: float | None) -> str:
    if at is None:
        return "no expiry"
    left = at - time.time()
    return "expired" if left <= 0 else f"in {int(left // 60)} min"


def _cmd_list(args: argparse.Namespace) -> int:
    rows = []
    for record in _store().records():
        token = record.token
        rows.append(
            {
                "server": record.server,
                "issuer": record.issuer,
                "client_id": record.client.client_id if record.client else None,
                "token_type": token.token_type if token else None,
                "scopes": list(token.scopes) if token else [],
                "expires_at": token.expires_at if token else None,
                "refreshable": bool(token and token.refresh_token),
            }
        )
    if args.json:
        print_json(rows)
        return 0
    if not rows:
        echo("no logins stored", err=True)
        return 0
    for row in rows:
        state = (
            f"{row['token_type']}, {_expires(row['expires_at'])}"
            + (", refreshable" if row["refreshable"] else "")
            if row["token_type"]
            else "no token"
        )
        scopes = " ".join(row["scopes"]) or "-"
        echo(f"{row['server']}  issuer {row['issuer']}  scopes {scopes}  ({state})")
    return 0
