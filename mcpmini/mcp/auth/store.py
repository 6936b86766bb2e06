"""Where credentials live between runs: one :class:`Record` per MCP server.

:class:`FileStore` keeps each record as one JSON file in a directory the caller passes in
(the CLI gives ``$XDG_CONFIG_HOME/mcpmini/tokens``). Rules of this module: the directory is
created ``0700`` and tightened to it, every file is written ``0600`` through a temporary file
and an atomic rename, a file that is not a valid record is ignored (never raised on), and
nothing here prints or logs a record.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

import orjson

from .metadata import canonical_resource
from .registration import ClientInfo
from .tokens import Token

__all__ = ["FileStore", "MemoryStore", "Record", "TokenStore", "tokens_dir"]


@dataclass(frozen=True)
class Record:
    """What is kept for one server: its issuer, the client there, the token, the DPoP key,
    and where its protected resource metadata was found (the hint for a later discovery)."""

    server: str
    issuer: str | None = None
    client: ClientInfo | None = None
    token: Token | None = None
    dpop_key: Mapping[str, Any] | None = field(default=None, repr=False)
    prm_url: str | None = None  # where the protected resource metadata was found
    grant: str | None = None  # the grant that got the token (a client_credentials login renews)

    def to_json(self) -> dict[str, Any]:
        return {
            "server": self.server,
            "issuer": self.issuer,
            "client": self.client.to_json() if self.client else None,
            "token": self.token.to_json() if self.token else None,
            "dpop_key": dict(self.dpop_key) if self.dpop_key else None,
            "prm_url": self.prm_url,
            "grant": self.grant,
        }

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> Record:
        client, token = obj.get("client"), obj.get("token")
        return Record(
            str(obj["server"]),
            obj.get("issuer"),
            ClientInfo.from_json(client) if isinstance(client, dict) else None,
            Token.from_json(token) if isinstance(token, dict) else None,
            obj.get("dpop_key") if isinstance(obj.get("dpop_key"), dict) else None,
            obj.get("prm_url") if isinstance(obj.get("prm_url"), str) else None,
            obj.get("grant") if isinstance(obj.get("grant"), str) else None,
        )


class TokenStore(Protocol):
    """Load, save, delete and list records (keys are canonical server URLs)."""

    def load(self, server: str) -> Record | None: ...

    def save(self, record: Record) -> None: ...

    def delete(self, server: str) -> bool: ...

    def records(self) -> list[Record]: ...


class MemoryStore:
    """A store that forgets at exit (tests, the conformance client)."""

    def __init__(self) -> None:
        self._records: dict[str, Record] = {}
        self._lock = threading.Lock()

    def load(self, server: str) -> Record | None:
        with self._lock:
            return self._records.get(canonical_resource(server))

    def save(self, record: Record) -> None:
        with self._lock:
            self._records[canonical_resource(record.server)] = record

    def delete(self, server: str) -> bool:
        with self._lock:
            return self._records.pop(canonical_resource(server), None) is not None

    def records(self) -> list[Record]:
        with self._lock:
            return list(self._records.values())


def tokens_dir(environ: Mapping[str, str]) -> Path:
    """The token directory: ``$XDG_CONFIG_HOME/mcpmini/tokens``, else
    ``$HOME/.config/mcpmini/tokens`` (``environ`` is passed in, never read here)."""
    base = environ.get("XDG_CONFIG_HOME") or str(Path(environ.get("HOME") or "~") / ".config")
    return Path(base).expanduser() / "mcpmini" / "tokens"


def _file_name(server: str) -> str:
    key = canonical_resource(server)
    parts = urlsplit(key)
    slug = re.sub(r"[^A-Za-z0-9.-]+", "_", f"{parts.netloc}{parts.path}").strip("_")[:60]
    return f"{slug}-{hashlib.sha256(key.encode()).hexdigest()[:12]}.json"


class FileStore:
    """Records as ``<dir>/<host_path>-<hash>.json``, owner-only (see the module rules)."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self._lock = threading.Lock()

    def _dir(self) -> Path:
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(self.directory, 0o700)
        return self.directory

    def path(self, server: str) -> Path:
        """The file that holds ``server``'s record."""
        return self.directory / _file_name(server)

    @staticmethod
    def _read(path: Path) -> Record | None:
        try:
            obj = orjson.loads(path.read_bytes())
            return Record.from_json(obj) if isinstance(obj, dict) else None
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def load(self, server: str) -> Record | None:
        with self._lock:
            return self._read(self.path(server))

    def save(self, record: Record) -> None:
        with self._lock:
            target = self._dir() / _file_name(record.server)
            tmp = target.with_suffix(f".tmp{os.getpid()}")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
            try:
                os.fchmod(fd, 0o600)
                os.write(fd, orjson.dumps(record.to_json(), option=orjson.OPT_INDENT_2))
            finally:
                os.close(fd)
            os.replace(tmp, target)

    def delete(self, server: str) -> bool:
        with self._lock:
            try:
                self.path(server).unlink()
                return True
            except FileNotFoundError:
                return False

    def records(self) -> list[Record]:
        with self._lock:
            if not self.directory.is_dir():
                return []
            found = (self._read(p) for p in sorted(self.directory.glob("*.json")))
            return [r for r in found if r is not None]
