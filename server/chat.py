"""A room's chat: the lines it keeps for those who arrive later, and the limits on who may
say how much.

A game's players always chat; its spectators do if the game allows it, and all of them
together say at most ``chat_per_game`` lines. Each speaker (a seat, or one spectator's
connection) says at most ``chat_per_speaker`` lines a minute, half of them at once, by the
room's clock, on top of each connection's own ``chat`` budget (the server's limits,
:class:`~server.limits.ServerLimits`).
"""

from __future__ import annotations

from collections.abc import Callable

from protocol import messages as m
from protocol.server_session import Allowance, Budgets, Rate

__all__ = ["CHAT_KEPT", "CHAT_PER_GAME", "CHAT_PER_SPEAKER", "RoomChat"]

CHAT_KEPT = 200
"""Chat lines a room keeps for the ``history`` of late comers."""
CHAT_PER_GAME = 2000
"""Spectators' chat lines a game takes by default (the server's ``chat_per_game`` limit)."""
CHAT_PER_SPEAKER = 20
"""Chat lines a minute one speaker may say in a game by default (the server's
``chat_per_speaker`` limit)."""


class RoomChat:
    """One room's chat, on the room's ``clock`` (seconds)."""

    def __init__(
        self,
        clock: Callable[[], float],
        limit: int = CHAT_PER_GAME,
        rate: int = CHAT_PER_SPEAKER,
    ) -> None:
        self._now = clock
        self.limit = limit
        """Chat lines the game takes from its spectators, all together; later ones are
        refused."""
        self.rate = rate
        """Chat lines a minute each speaker may say here, half of them at once; past it the
        line is refused."""
        self.spectator_lines = 0
        """Spectators' chat lines said in this room since the server started."""
        self.lines: list[m.ChatAt] = []
        """The last :data:`CHAT_KEPT` lines said in this room since the server started."""
        self._speakers: dict[object, Allowance] = {}
        """Each speaker's chat allowance (its ``chat`` budget)."""

    def refusal(self, speaker: object, spectator: bool) -> tuple[str, str] | None:
        """Why ``speaker`` (a ``spectator``'s connection, or a seat) may not say a line now:
        the sentence and the limit's name; or None, and the line is counted."""
        if spectator and self.spectator_lines >= self.limit:
            return (
                f"this game has had its {self.limit} lines of spectators' chat "
                "(limit chat_per_game); its players still chat",
                "chat_per_game",
            )
        if not self._may_speak(speaker):
            rate = self.rate
            return (
                f"too many chat lines from you in this game: {rate} a minute, "
                f"{max(1, rate // 2)} at once (limit chat_per_speaker); wait a moment",
                "chat_per_speaker",
            )
        if spectator:
            self.spectator_lines += 1
        return None

    def said(self, line: m.ChatAt) -> None:
        """Keep ``line`` for those who arrive later."""
        self.lines = [*self.lines[-(CHAT_KEPT - 1) :], line]

    def forget(self, speaker: object) -> None:
        """``speaker`` (a connection) has left: its allowance goes."""
        self._speakers.pop(speaker, None)

    def _may_speak(self, speaker: object) -> bool:
        """Spend one line of ``speaker``'s chat allowance (``rate`` a minute, refilled by
        the room's clock, half of it at once); False, spending nothing, when none is
        left."""
        allowance = self._speakers.get(speaker)
        if allowance is None:
            rate = Rate(per_minute=self.rate, burst=max(1, self.rate // 2))
            allowance = self._speakers[speaker] = Allowance(Budgets(chat=rate), self._now)
        if allowance.available("chat") < 1:
            return False
        allowance.spend("chat")
        return True
