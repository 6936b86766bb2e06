"""Context-cost formulas and measurements (Propositions 3.8 and 5.2), and token estimates.

The course never calls a real tokenizer (it runs offline), so :func:`estimate_tokens`
is a documented heuristic: about four characters per token for ASCII text and one
token per character for everything else (Japanese text tokenizes far more densely).
"""

from __future__ import annotations

__all__ = ["estimate_tokens"]


def estimate_tokens(text: str) -> int:
    """Estimate the number of tokens in ``text``.

    ASCII characters count 1/4 token each (rounded up over the whole text), every
    other character counts one token. Returns 0 for the empty string.
    """
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    other = len(text) - ascii_chars
    return -(-ascii_chars // 4) + other
