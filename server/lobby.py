"""The lobby: pages of the public games (``list_games``), and on PostgreSQL the lobby that
every process on the database shares.

There, each process keeps its own public games' entries in the ``lobby`` table (through
the store's writer: listed with the game, brought up to date as its seats fill and it
starts, taken out when it closes here) and reads the whole table at most once per
:data:`LOBBY_FRESH` seconds, or once more after it opened a game: every ``list_games`` in
between is answered from that copy, so a crowd asking for the lobby costs the database
nothing more.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from protocol import messages as m
from server.store import Listed, Store, Write, game_listed, game_unlisted

if TYPE_CHECKING:
    from server.room import GameRoom

__all__ = ["LOBBY_FRESH", "Entry", "SharedLobby", "page"]

LOBBY_FRESH = 1.0
"""Seconds a copy of the shared lobby is answered from before it is read again."""


Entry = tuple[int, m.GameSummary | Callable[[], m.GameSummary]]
"""A game in a lobby: its number, and its summary (or what makes it, when it is shown)."""


def page(games: Iterable[Entry], request: m.ListGames) -> m.GameList:
    """The page ``request`` asks for of ``games``, given in the order of their numbers: at
    most ``request.limit`` after ``request.after``, and the ``next`` of the page after it
    (None on the last)."""
    after = -1 if request.after is None else request.after
    found: list[m.GameSummary] = []
    last = None
    for number, summary in games:
        if number <= after:
            continue
        if len(found) == request.limit:
            return m.GameList(games=found, next=last)
        found.append(summary if isinstance(summary, m.GameSummary) else summary())
        last = number
    return m.GameList(games=found)


class SharedLobby:
    """The public games of every live process on one PostgreSQL database, as read last,
    and this process's entries among them. ``clock`` (monotonic seconds) decides when a
    copy is too old."""

    def __init__(
        self,
        store: Store,
        fresh: float = LOBBY_FRESH,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._fresh = fresh
        self._clock = clock
        self._games: list[Listed] = []
        self._read_at = float("-inf")
        self._changes = 0
        """Games this process opened (:meth:`changed`)."""
        self._read_changes = -1
        """:attr:`_changes` when the copy was read."""
        self._reading = asyncio.Lock()
        self._entries: dict[str, tuple[int, bool]] = {}
        """This process's games as their entries in the lobby say: (seats taken, started)."""

    def listed(self, room: GameRoom) -> Write:
        """The entry of ``room``, a new public game of this process, to be stored with it;
        the next answer reads the lobby again (:meth:`changed`)."""
        self._entries[room.id] = (room.seated, room.started)
        self.changed()
        return game_listed(room.summary())

    def publish(self, rooms: Iterable[GameRoom], reopened: set[str]) -> None:
        """Queue the entries of this process's public games (of ``rooms``, those not
        ``reopened`` after they were played out) whose seats or state changed since they
        were last written."""
        for room in rooms:
            if room.invite is not None or room.stopped or room.id in reopened:
                continue
            now = (room.seated, room.started)
            if self._entries.get(room.id) != now:
                self._entries[room.id] = now
                self._store.queue(game_listed(room.summary()))  # a failure: the writer logs it

    def unlist(self, game: str, write: bool = True) -> None:
        """``game`` is closed here: it has no entry of this process any more, and with
        ``write`` its entry leaves the lobby (not when another process plays it now)."""
        if self._entries.pop(game, None) is not None and write:
            self._store.queue(game_unlisted(game))

    def changed(self) -> None:
        """This process opened a public game: the next answer reads the lobby again (after
        the game's writes, so its creator finds it there)."""
        self._changes += 1

    def current(self) -> list[Listed] | None:
        """The copy, if it is fresh enough to answer from; else None (:meth:`read`)."""
        if self._read_changes != self._changes or self._clock() - self._read_at >= self._fresh:
            return None
        return self._games

    async def read(self) -> list[Listed]:
        """A fresh copy: the one there is, or one read now (callers at the same moment
        share one read). Raises what the store raises."""
        async with self._reading:
            games = self.current()
            if games is not None:
                return games
            changes, began = self._changes, self._clock()
            games = await self._store.call(self._store.lobby, time.time())
            self._games, self._read_at, self._read_changes = games, began, changes
            return games
