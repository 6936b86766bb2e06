"""The hub's plug-ins (imported by ``jupyterhub`` only, never by the rest of mcpmini): the
authenticator — the roster's accounts, each with its first-login token as password; no
sign-up — and the spawner that starts each learner's server as their own OS account.

Rules of this module: a login succeeds only for a name in the accounts file whose token
matches (compared in constant time); the file is read at each login, so a re-run of
``make hub`` that adds learners needs no hub restart for their tokens. :class:`LearnerSpawner`
starts a server only as the OS account the hub's config maps the hub user to (never as the
hub's own user, never as an account it was not given), with umask ``077``.
"""

from __future__ import annotations

import hmac
import json
import os
from typing import Any

from traitlets import Dict, Unicode

try:
    from jupyterhub.auth import Authenticator
    from jupyterhub.spawner import LocalProcessSpawner, set_user_setuid
except ImportError:  # no hub installed (`make hub` installs it): importable, not usable
    Authenticator = LocalProcessSpawner = object
    set_user_setuid = None

__all__ = ["LearnerSpawner", "TokenAuthenticator"]


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


class LearnerSpawner(LocalProcessSpawner):  # type: ignore[misc]
    """Each learner's server as their own OS account (see the module rules): JupyterHub's
    ``LocalProcessSpawner`` with the hub name mapped to the account ``make hub`` created,
    and a umask that keeps every new file the learner's alone."""

    accounts = Dict(help="hub user name → OS account, written by prepare_hub").tag(config=True)

    def _account(self) -> str:
        account = self.accounts.get(self.user.name)
        if not isinstance(account, str) or not account:
            raise RuntimeError(f"no OS account for {self.user.name}: run make hub again")
        return account

    def make_preexec_fn(self, name: str) -> Any:
        become = set_user_setuid(self._account())

        def preexec() -> None:
            os.umask(0o077)
            become()

        return preexec

    def user_env(self, env: dict[str, str]) -> dict[str, str]:
        import pwd

        entry = pwd.getpwnam(self._account())
        env.update(USER=entry.pw_name, HOME=entry.pw_dir, SHELL=entry.pw_shell or "/bin/bash")
        return env
