"""Seat tokens: a seat's secret is made here, kept only as its hash, and compared by hash.

A token is handed out once (``joined``, or to a bot process the server starts) and never
kept: the rooms and the store keep the hash of it (:func:`hash_token`), so whoever reads
the database or the server's memory cannot take a seat with what they find, and a token
presented to ``rejoin`` is compared by its hash in constant time (:func:`token_matches`).
"""

from __future__ import annotations

import hashlib
import secrets

__all__ = ["hash_token", "new_token", "token_matches"]


def new_token() -> str:
    """A fresh seat token: 24 random bytes, URL-safe base64 (32 characters)."""
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    """The hash a seat is kept by: the SHA-256 of the token's UTF-8 bytes, in hex (64
    ASCII characters). Any string hashes, whatever its characters or length."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def token_matches(token_hash: str, token: str) -> bool:
    """Whether ``token`` is the token of ``token_hash``, compared in constant time. Never
    raises: a string of any characters or length is simply not the token."""
    presented = hash_token(token).encode("ascii")
    return secrets.compare_digest(presented, token_hash.encode("utf-8", "surrogatepass"))
