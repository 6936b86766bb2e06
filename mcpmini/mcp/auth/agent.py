"""The user agent of the authorization code grant: who opens the authorization URL and brings
back the redirect.

* :class:`HeadlessAgent` fetches the URL itself and reads the redirect's ``Location`` — for
  an authorization server that decides without a person (the conformance suite, a test);
* :class:`LoopbackAgent` is the person's browser (RFC 8252 §7.3): it listens on a loopback
  port, shows the URL (and opens a browser when asked) and waits, bounded, for the redirect.

Rules of this module: redirects are followed at most ``max_redirects`` times, every wait has a
deadline, the listening socket is closed on every path out, and the callback page says nothing
about the code it received. Any local process can reach a loopback port, so a callback whose
``state`` is not the one the authorization URL carries (constant-time comparison) is answered
``400`` and ignored, and the wait goes on: a forged callback cannot end the user's login.
"""

from __future__ import annotations

import contextlib
import secrets
import socket
import time
import webbrowser
from collections.abc import Callable
from typing import Protocol
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx

from .errors import AuthError, AuthErrorKind

__all__ = ["HeadlessAgent", "LoopbackAgent", "UserAgent"]

_PAGE = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nConnection: close\r\n\r\n"
    b"<!doctype html><title>mcpmini</title><p>Authorization received. "
    b"You can close this window.</p>"
)
_NOT_FOUND = b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
_NOT_OURS = (
    b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
    b"Connection: close\r\n\r\nThis is not the login mcpmini is waiting for.\n"
)


def _state_of(url: str) -> str | None:
    values = parse_qs(urlsplit(url).query).get("state")
    return values[0] if values else None


class UserAgent(Protocol):
    """Opens an authorization URL; returns the URL the server redirected back to."""

    @property
    def redirect_uri(self) -> str: ...

    def authorize(self, url: str) -> str: ...


def _same_endpoint(location: str, redirect_uri: str) -> bool:
    a, b = urlsplit(location), urlsplit(redirect_uri)
    return (a.scheme, a.netloc, a.path) == (b.scheme, b.netloc, b.path)


class HeadlessAgent:
    """Follows the authorization URL's redirects without a browser."""

    def __init__(
        self,
        redirect_uri: str = "http://127.0.0.1:33418/callback",
        max_redirects: int = 5,
        timeout: float = 10.0,
    ) -> None:
        self._redirect_uri = redirect_uri
        self.max_redirects = max_redirects
        self.timeout = timeout

    @property
    def redirect_uri(self) -> str:
        return self._redirect_uri

    def authorize(self, url: str) -> str:
        """The redirect back to :attr:`redirect_uri`. Raises :class:`AuthError` (kind
        ``authorization``) for a page that wants a person, an error status, or too many
        redirects."""
        with httpx.Client(timeout=self.timeout, follow_redirects=False) as http:
            current = url
            for _ in range(self.max_redirects + 1):
                try:
                    reply = http.get(current)
                except httpx.HTTPError as exc:
                    raise AuthError(
                        f"cannot open the authorization URL: {type(exc).__name__}",
                        AuthErrorKind.AUTHORIZATION,
                    ) from None
                location: str | None = reply.headers.get("location")
                if not reply.is_redirect or not location:
                    raise AuthError(
                        f"the authorization server answered HTTP {reply.status_code} without "
                        "redirecting back (it needs a browser: use `mcpmini auth login`)",
                        AuthErrorKind.AUTHORIZATION,
                    )
                location = urljoin(current, location)
                if _same_endpoint(location, self._redirect_uri):
                    return location
                current = location
        raise AuthError(
            f"the authorization server redirected more than {self.max_redirects} times",
            AuthErrorKind.AUTHORIZATION,
        )


class LoopbackAgent:
    """A browser and a one-shot listener on ``127.0.0.1:port`` (0: any free port).

    Raises :class:`AuthError` (kind ``authorization``) when the port cannot be listened on.
    """

    def __init__(
        self,
        port: int = 0,
        notify: Callable[[str], None] = print,
        open_browser: bool = True,
        timeout: float = 300.0,
    ) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            self._sock.bind(("127.0.0.1", port))
            self._sock.listen(8)
        except OSError as exc:
            self._sock.close()
            raise AuthError(
                f"cannot listen on 127.0.0.1:{port} for the redirect: {exc.strerror}",
                AuthErrorKind.AUTHORIZATION,
            ) from None
        self.port = self._sock.getsockname()[1]
        self.notify = notify
        self.open_browser = open_browser
        self.timeout = timeout

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}/callback"

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> LoopbackAgent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def authorize(self, url: str) -> str:
        """Show ``url``, wait for the browser's redirect to ``/callback``; its full URL.

        Only a callback carrying the ``state`` of ``url`` ends the wait (when ``url`` has
        one); any other is answered ``400`` and the wait goes on. Raises :class:`AuthError`
        (kind ``authorization``) when none comes within ``timeout``.
        """
        self.notify(f"Open this URL in a browser to log in:\n  {url}")
        if self.open_browser:
            with contextlib.suppress(Exception):
                webbrowser.open(url)
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AuthError(
                    f"no redirect reached {self.redirect_uri} within {self.timeout:g} s",
                    AuthErrorKind.AUTHORIZATION,
                )
            self._sock.settimeout(left)
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            target = self._serve(conn, deadline, _state_of(url))
            if target is not None:
                return f"http://127.0.0.1:{self.port}{target}"

    @staticmethod
    def _serve(conn: socket.socket, deadline: float, state: str | None) -> str | None:
        with conn:
            conn.settimeout(max(0.1, min(10.0, deadline - time.monotonic())))
            data = b""
            try:
                while b"\r\n" not in data and len(data) < 16384:
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    data += chunk
            except OSError:
                return None
            parts = data.split(b"\r\n", 1)[0].decode("latin-1").split()
            if len(parts) < 2 or parts[0] != "GET" or not parts[1].startswith("/callback"):
                with contextlib.suppress(OSError):
                    conn.sendall(_NOT_FOUND)
                return None
            if state is not None and not secrets.compare_digest(
                (_state_of(parts[1]) or "").encode(), state.encode()
            ):
                with contextlib.suppress(OSError):
                    conn.sendall(_NOT_OURS)
                return None  # not the redirect of this login: keep waiting
            with contextlib.suppress(OSError):
                conn.sendall(_PAGE)
            return parts[1]
