"""Which server process plays each game, when several share one PostgreSQL database.

Each game is played by the one process holding its lease: taken for :data:`LEASE` seconds
by the database's clock, renewed every :data:`LEASE_RENEW`. A new game is stored with its
lease (:meth:`Leases.new_game`); at each renewal (:meth:`Leases.hold`) this process keeps
its leases, takes those lapsed (their process is gone) and resumes their games, and gives
up each game another process has taken meanwhile. The store fences every commit by the
leases (:attr:`server.store.Store.holder`): a game whose lease this process has lost is not
written, and its room hands it over (:meth:`Leases.lost`). A process that dies leaves its
games' leases to lapse; another takes them over within ``LEASE + LEASE_RENEW`` seconds. A
process that stops gives its leases up at once (:meth:`Leases.release`).

On SQLite one process holds the database and no lease is kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from typing import TYPE_CHECKING

import structlog

from protocol import messages as m
from protocol.messages import ErrorCode
from server.room import GameRoom
from server.store import Write, lease_taken

if TYPE_CHECKING:
    from server.app import HexhavenServer

__all__ = ["LEASE", "LEASE_RENEW", "LOBBY_SWEEP", "Leases"]

LEASE = 3.0
LEASE_RENEW = 1.0
"""On PostgreSQL each game is played by the one process holding its lease: taken for
:data:`LEASE` seconds, renewed every :data:`LEASE_RENEW`. A process that dies leaves its
games' leases to lapse; another takes them over within ``LEASE + LEASE_RENEW`` seconds."""
LOBBY_SWEEP = 60.0
"""On PostgreSQL each process takes out of the shared lobby, this often, the games whose
lease has lapsed this long (their process died while they were over or closing)."""


class Leases:
    """``server``'s hold on its games (PostgreSQL). ``public_url``: how players reach this
    process, given to them in ``moved`` (None: the address it listens on)."""

    def __init__(self, server: HexhavenServer, public_url: str | None = None) -> None:
        self._log = structlog.get_logger("hexhaven.server")
        """The server's log (a logger of each instance: configured when first used)."""
        self._server = server
        self.public_url = public_url
        """How players reach this process (None: the address it listens on)."""
        self.owner = ""
        """This process's name in the games' leases: ``HOST:PORT`` unless set, so a process
        restarted on its port takes its games back at once."""
        self.held = 0
        """Games whose leases this process held at its last renewal."""

    @property
    def reach(self) -> str:
        """Where players reach this process."""
        return self.public_url or self._server.url

    async def start(self, port: int) -> None:
        """The server listens on ``port``: every commit of the store is fenced by this
        process's leases from now on; its leases are taken (and their games resumed), and
        kept while the server runs."""
        server = self._server
        self.owner = self.owner or f"{socket.gethostname()}:{port}"
        server.store.holder = self.owner  # every commit is fenced by its leases
        await self.hold()
        server.tasks.start(self._keep(), "leases")

    def new_game(self, game_id: str) -> Write:
        """The lease of a game this process opens, stored before the game itself."""
        return lease_taken(game_id, self.owner, self.reach, LEASE)

    async def hold(self) -> None:
        """Renew this process's leases and take those lapsed (their process is gone); resume
        each game newly held, and give up each room whose game another process has taken
        (this one was cut off from the database longer than a lease)."""
        server = self._server
        store, rooms = server.store, server.rooms
        held = set(await store.call(store.claim, self.owner, self.reach, LEASE))
        self.held = len(held)
        for game in sorted(held - set(rooms)):
            stored = await store.call(store.take, game)
            if stored is None or stored.finished or game in rooms:
                continue
            room = server.games.resume(stored)
            room.launch_bots()
            self._log.info("game.taken", game=game, state_id=room.table.state_id)
        for game, room in list(rooms.items()):
            if game in held or room.over or room.stopped:
                continue
            lease = await store.call(store.lease, game)
            if lease is not None and lease[0] != self.owner and rooms.get(game) is room:
                self._give_up(room, lease[1])

    async def _keep(self) -> None:
        """Hold the leases every :data:`LEASE_RENEW` seconds while the server runs, keep
        this process's entries in the shared lobby up to date, and every
        :data:`LOBBY_SWEEP` seconds take out of it the games no process holds."""
        server = self._server
        store = server.store
        swept = time.monotonic()
        while True:
            await asyncio.sleep(LEASE_RENEW)
            try:
                await self.hold()
            except Exception:
                self._log.exception("lease.failure")
            server.lobby.publish(server.rooms.values(), server.games.reopened)
            if time.monotonic() - swept >= LOBBY_SWEEP:
                swept = time.monotonic()
                try:
                    await store.call(store.sweep_lobby, time.time() - LOBBY_SWEEP)
                except Exception:
                    self._log.exception("lobby.sweep_failure")

    def lost(self, game: str, url: str | None) -> None:
        """A commit's fence found that this process no longer holds ``game``'s lease (it
        was paused or cut off longer than the lease): given up as at a renewal (a room's
        ``on_lost``)."""
        room = self._server.rooms.get(game)
        if room is not None:
            self._give_up(room, url or self.reach)

    def _give_up(self, room: GameRoom, url: str) -> None:
        """Another process plays ``room``'s game now: the room hands it over, and it is
        closed here (its lobby entry is the other process's now)."""
        self._log.warning("game.lost", game=room.id, now_at=url)
        room.hand_over(url)
        self._server.games.close(room, unlist=False)

    async def elsewhere(self, game_id: str) -> m.Error:
        """Where an unfinished game this process does not play is: with the process
        holding its lease (``moved``, its URL in ``detail``), or with none for a moment (its
        process stopped; one takes it over within seconds: ask again)."""
        store = self._server.store
        lease = await store.call(store.lease, game_id)
        if lease is not None and lease[0] != self.owner and lease[2] > time.time():
            return m.Error(
                code=ErrorCode.MOVED,
                message=f"game {game_id!r} is played by another server: connect to {lease[1]} "
                "and ask again there",
                detail=lease[1],
                game=game_id,
            )
        return m.Error(
            code=ErrorCode.UNKNOWN_GAME,
            message=f"game {game_id!r} is between servers (the one playing it stopped); "
            "another takes it over within seconds: ask again",
            detail="moving",
            game=game_id,
        )

    async def release(self) -> None:
        """Give up every lease of this process (the server stops): its games are free for
        another process at once, or, if the database does not answer within a lease, once
        their leases lapse."""
        store = self._server.store
        with contextlib.suppress(Exception):
            async with asyncio.timeout(LEASE):
                await store.call(store.release_leases, self.owner)
