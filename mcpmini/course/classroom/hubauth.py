"""The hub's authenticator (imported by ``jupyterhub`` only, never by the rest of mcpmini):
the roster's accounts, each with its first-login token as password; no sign-up.

Rules of this module: a login succeeds only for a name in the accounts file whose token
matches (compared in constant time); the file is read at each login, so a re-run of
``make hub`` that adds learners needs no hub restart for their tokens.
"""

from __future__ import annotations

import hmac
import json
from typing import Any

from traitlets import Unicode

try:
    from jupyterhub.auth import Authenticator
except ImportError:  # no hub installed (`make hub` installs it): importable, not usable
    Authenticator = object

__all__ = ["TokenAuthenticator"]


class TokenAuthenticator(Authenticator):  # type: ignore[misc]
    """Log in with a roster name and its token (see the module rules)."""

    accounts_file = Unicode(help="accounts.json written by prepare_hub").tag(config=True)

    async def authenticate(self, handler: Any, data: dict[str, str]) -> str | None:
        name = str(data.get("username", "")).strip()
        given = str(data.get("password", ""))
        try:
            with open(self.accounts_file, encoding="utf-8") as fh:
                tokens = json.load(fh).get("tokens", {})
        except (OSError, ValueError):
            return None
        want = tokens.get(name) if isinstance(tokens, dict) else None
        if isinstance(want, str) and hmac.compare_digest(want.encode(), given.encode()):
            return name
        return None
