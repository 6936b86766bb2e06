"""PKCE with S256 (RFC 7636) and the ``state`` value, through authlib."""

from __future__ import annotations

from dataclasses import dataclass, field

from authlib.common.security import generate_token
from authlib.oauth2.rfc7636 import create_s256_code_challenge

__all__ = ["Pkce"]


@dataclass(frozen=True)
class Pkce:
    """A fresh verifier (64 characters of the unreserved set), its S256 challenge, a state."""

    verifier: str = field(default_factory=lambda: generate_token(64), repr=False)
    state: str = field(default_factory=lambda: generate_token(32), repr=False)

    @property
    def challenge(self) -> str:
        return str(create_s256_code_challenge(self.verifier))

    method = "S256"
