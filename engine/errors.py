"""The engine's exceptions. :class:`EngineError` is the root of all of them."""

from __future__ import annotations


class EngineError(Exception):
    """Root of every error the engine raises."""


class BoardError(EngineError, ValueError):
    """A board or board specification is not legal; the message names what is wrong."""


class ConfigError(EngineError, ValueError):
    """A game configuration is not legal; the message names the bad option."""


class IllegalActionError(EngineError):
    """An action is not legal in the state it was given for; the state is unchanged.

    ``code`` is a stable, machine-readable reason (``"not_your_turn"``, ``"cannot_afford"``,
    ...); the message is a sentence a player can act on.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
