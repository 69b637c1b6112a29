"""The games this process has open: their rooms by id and by invite code, the order they
were opened in (``list_games`` pages by it), who created each, and each room's task.

A room is opened here (:meth:`OpenGames.add`) with the server's settings and hooks, and its
task is started; a task that fails is started again on the same room a few times
(:data:`ROOM_RESTARTS`). A game is closed here (:meth:`OpenGames.close`): its room leaves,
its task is cancelled and its bots are ended. Games played out are opened again for those
who watch them (:meth:`OpenGames.reopen`), and games nobody uses are closed
(:meth:`OpenGames.close_idle`).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import structlog

from server.connection import Connection
from server.room import GameRoom
from server.store import StoredGame, game_abandoned

if TYPE_CHECKING:
    from server.app import HexhavenServer

__all__ = ["ROOM_RESTARTS", "OpenGame", "OpenGames", "is_open"]

ROOM_RESTARTS = 3
"""How many times a room's task that failed is started again before its game is closed."""

OpenGame = tuple[str, str, bool, int]
"""A game not over as the caps count it: its creator's connection id and address (empty
for a game resumed after a restart), whether it has started, and its bot seats (those it
asked for, and its stand-ins running)."""


def is_open(peer: object) -> bool:
    """Whether ``peer`` (a room's creating connection, or None) is still connected."""
    return isinstance(peer, Connection) and not peer.lost


class OpenGames:
    """The rooms of ``server``'s open games."""

    def __init__(self, server: HexhavenServer) -> None:
        self._log = structlog.get_logger("hexhaven.server")
        """The server's log (a logger of each instance: configured when first used)."""
        self._server = server
        self.rooms: dict[str, GameRoom] = {}
        """The open games by id."""
        self.invites: dict[str, str] = {}
        """The open private games' ids by invite code."""
        self.creators: dict[str, tuple[str, str]] = {}
        """Each open game's creator: (connection id, address)."""
        self.listed: dict[int, GameRoom] = {}
        """The open games by the number of their opening (``list_games`` pages by it)."""
        self._opened = 0
        """Rooms opened since the server started (the last one's number)."""
        self.reopened: set[str] = set()
        """Games played out and closed, opened again for those who watch them."""
        self._tasks: dict[str, asyncio.Task[None]] = {}
        """Each open room's task."""
        self._failures: dict[str, int] = {}
        """How many times each game's room task has failed."""
        self.actions_closed = 0
        """Actions played in games closed since the server started."""

    def add(self, room: GameRoom, creator: Connection | None = None) -> None:
        """Open ``room`` (stored already, or restored from the store) made by ``creator``'s
        connection (None: resumed): it takes the server's settings and hooks, and its task
        starts."""
        server = self._server
        if creator is not None:
            self.creators[room.id] = (creator.id, creator.address)
        policy = room.away_policy
        policy.grace = server.away_grace
        policy.launcher = server.bots.launch
        policy.may_stand_in = server.bots.may_stand_in
        policy.stop_bot = server.bots.stop
        room.chat.limit = server.limits.chat_per_game
        room.chat.rate = server.limits.chat_per_speaker
        room.on_stop = server.bots.end
        room.on_empty = self._emptied
        room.on_lost = server.leases.lost
        self.rooms[room.id] = room
        self._opened += 1
        if room.id not in self.reopened:
            self.listed[self._opened] = room
        if room.invite is not None:
            self.invites[room.invite] = room.id
        self._start(room)

    def resume(self, stored: StoredGame, room: GameRoom | None = None) -> GameRoom:
        """Open a room for a stored game, at the state its actions lead to (``room``, if
        it is restored already)."""
        if room is None:
            room = GameRoom.restore(stored, self._server.store, self._server.clock)
        self.add(room)
        return room

    async def reopen(self, stored: StoredGame) -> GameRoom:
        """A room for a game played out and closed, for those who watch or rejoin it with
        its history (its actions replayed off the event loop; nothing of it changes any
        more). Nobody's lobby lists it; the reaper closes it again once they are gone."""
        room = self.rooms.get(stored.id)
        if room is not None:
            return room
        restored = await asyncio.to_thread(GameRoom.restore, stored, self._server.store)
        room = self.rooms.get(stored.id)  # reopened meanwhile for someone else
        if room is not None:
            return room
        self.reopened.add(stored.id)
        self.resume(stored, restored)
        return restored

    def _start(self, room: GameRoom) -> None:
        task = self._server.tasks.start(room.run(), f"room-{room.id}")
        self._tasks[room.id] = task
        task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task[None]) -> None:
        """A room's task ends only when its game is closed (cancelled). Any other end is a
        failure: logged with its traceback, and the room's task is started again on the
        same state and queue, up to :data:`ROOM_RESTARTS` times; then its game is closed."""
        if task.cancelled():
            return
        game = task.get_name().removeprefix("room-")
        room = self.rooms.get(game)
        failures = self._failures.get(game, 0) + 1
        self._failures[game] = failures
        self._log.error("room.task_failed", game=game, failures=failures, exc_info=task.exception())
        if room is None or self._tasks.get(game) is not task:
            return
        if failures > ROOM_RESTARTS:
            self.close(room)
            return
        self._start(room)

    def close(self, room: GameRoom, unlist: bool = True) -> None:
        """Close ``room`` here: a game not over is abandoned in the store (unless it
        stopped: it resumes after a restart), its task is cancelled and its bots ended; with
        ``unlist``, it leaves the shared lobby too (PostgreSQL)."""
        server = self._server
        if not room.over and not room.stopped:  # a stopped game resumes after a restart
            server.store.queue(game_abandoned(room.id))  # a failure is the writer's to log
        server.lobby.unlist(room.id, unlist)
        self.rooms.pop(room.id, None)
        self.reopened.discard(room.id)
        self.creators.pop(room.id, None)
        for number, listed in list(self.listed.items()):
            if listed is room:
                del self.listed[number]
        if room.invite is not None:
            self.invites.pop(room.invite, None)
        task = self._tasks.pop(room.id, None)
        if task is not None:
            task.cancel()
        server.bots.end(room.id)
        self.actions_closed += room.actions
        self._log.info("game.closed", game=room.id, finished=room.over)

    def _emptied(self, game: str, by_creator: bool) -> None:
        """Everyone left ``game``'s lobby (a room says so; ``by_creator``: its creator's
        connection was the last): close it once the room is done with the message, unless
        someone arrived meanwhile or its creator's connection, not the one that left, is
        still there (a program that made the game for its agents waits for others). Its
        place under the caps on games not started is free at once."""

        def close() -> None:
            room = self.rooms.get(game)
            if room is None or room.started or room.seated or room.spectators:
                return
            if not by_creator and is_open(room.host_peer):
                return
            if not room.inbox.empty():
                return  # someone is arriving
            self._log.info("game.left_empty", game=game)
            self.close(room)

        asyncio.get_running_loop().call_soon(close)

    def open_games(self) -> list[OpenGame]:
        """Each game not over, as the caps on games and bot seats count it."""
        standins = self._server.bots.standins
        return [
            (
                *self.creators.get(room.id, ("", "")),
                room.started,
                len(room.options.bots) + standins.get(room.id, 0),
            )
            for room in self.rooms.values()
            if not room.over
        ]

    def close_idle(self, now: float, idle_timeout: float, unstarted: float) -> None:
        """Close the games nobody is connected to (nor arriving at): finished ones at once,
        started ones untouched for ``idle_timeout`` seconds, and games not started that
        nobody, their creator included, has been connected to for ``unstarted`` seconds.
        Closed games stay in the store; those not finished are not resumed after a
        restart."""
        for room in list(self.rooms.values()):
            if room.connected() or not room.inbox.empty():  # or someone is arriving
                continue
            idle = now - room.last_active
            if room.started or room.over:
                if room.over or idle > idle_timeout:
                    self.close(room)
            elif idle > unstarted and not is_open(room.host_peer):
                self._log.info("game.unstarted_expired", game=room.id, idle=round(idle))
                self.close(room)
