"""The websocket server: its parts put together, its listening socket, and the order in
which it starts and stops.

:class:`HexhavenServer` holds the server's settings and its parts, each the owner of one
job in a module of its own:

- :mod:`server.router`: the connections (their addresses, sessions and close) and where
  their requests go; plain HTTP requests are answered by :mod:`server.plain_http`;
- :mod:`server.creation`: new games, under the caps on games and bot seats;
- :mod:`server.games`: the open games' rooms (:mod:`server.room`) and their tasks;
- :mod:`server.bot_launcher`: the bots that play bot seats and stand in for away people;
- :mod:`server.leases`: on PostgreSQL, which server process plays each game;
- :mod:`server.lobby`: on PostgreSQL, the lobby every process shares;
- :mod:`server.tasks`: every task the server runs, cancelled together when it stops.

The parts reach each other through the server. A game's state is changed by its room
alone: the other parts hand the room messages (:meth:`~server.room.GameRoom.submit`), or
have it open, launch its bots or hand the game over.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable

import structlog
from websockets.typing import Subprotocol

from protocol import SUBPROTOCOLS
from protocol.server_session import BURST, MAX_FRAME, RATE, frame_bytes
from server.bot_launcher import BotLauncher, bot_command
from server.connection import Connection, Timing, read_limit
from server.creation import GameMaker
from server.games import OpenGames
from server.leases import Leases
from server.limits import ServerLimits
from server.lobby import SharedLobby
from server.metrics import Census, ServerMetrics
from server.room import GameRoom
from server.router import SERVER_NAME, Proxies, Router, trusted_proxies
from server.store import Store
from server.tasks import Tasks
from server.tls import ServerTLS

__all__ = [
    "BURST",
    "MAX_FRAME",
    "RATE",
    "SERVER_NAME",
    "Connection",
    "HexhavenServer",
    "bot_command",
    "frame_bytes",
    "trusted_proxies",
]

_SUBPROTOCOLS = [Subprotocol(p) for p in SUBPROTOCOLS]
"""The subprotocols a websocket handshake may choose, as websockets takes them."""
BACKLOG = 2048
"""Connections the listening socket queues before they are accepted (a burst of players
arriving at once)."""


class HexhavenServer:
    """The lobby and its games. Use :meth:`running` to serve on a host and port.

    ``away_grace``: seconds a seat may stay disconnected before the server plays it;
    ``idle_timeout``: seconds a game with nobody connected may sit untouched before it is
    closed; ``proxies``: reverse proxies whose ``X-Forwarded-For`` names a client's address
    (:func:`trusted_proxies`); ``public_url``: how players reach this process, given to them
    in ``moved`` (None: the address it listens on); ``bot_launcher``, ``bot_workers`` and
    ``bot_search_seconds``: how bots are run (:class:`~server.bot_launcher.BotLauncher`,
    which raises ValueError for values it does not take)."""

    def __init__(
        self,
        store: Store | None = None,
        away_grace: float = 30.0,
        idle_timeout: float = 6 * 3600.0,
        limits: ServerLimits | None = None,
        proxies: Proxies = (),
        public_url: str | None = None,
        tls: ServerTLS | None = None,
        bot_workers: int | None = None,
        bot_launcher: str = "host",
        bot_search_seconds: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        timing: Timing | None = None,
    ) -> None:
        self._log = structlog.get_logger("hexhaven.server")
        """The server's log (a logger of each instance: configured when first used)."""
        self.bots = BotLauncher(self, bot_launcher, bot_workers, bot_search_seconds)
        """The bots that play bot seats and stand in for away people."""
        self.store = store if store is not None else Store()
        self.tls = tls
        """The certificate and key to serve ``wss://`` (and ``https://``) with; None: plain
        ``ws://``."""
        self.limits = limits if limits is not None else ServerLimits()
        """What one connection, one address and the whole server may ask of it."""
        self.timing = timing if timing is not None else Timing()
        """The connections' deadlines (handshake, close, keepalive, a frame's arrival)."""
        self.away_grace = away_grace
        """Seconds a seat may stay disconnected before the server plays it."""
        self.idle_timeout = idle_timeout
        """Seconds a game with nobody connected may sit untouched before it is closed."""
        self.clock = clock
        """The server's clock, in seconds: turn timers, grace periods, idleness, and each
        connection's rate, budgets, keepalive and deadlines."""
        self.url = ""
        """Where the server listens (``ws://HOST:PORT``), once it does."""
        self.tasks = Tasks()
        """Every task the server runs (cancelled together when it stops)."""
        self.lobby = SharedLobby(self.store)
        """On PostgreSQL, the public games of every process (``list_games``), and this
        process's entries among them."""
        self.games = OpenGames(self)
        """The rooms of the open games."""
        self.leases = Leases(self, public_url)
        """This process's hold on its games (PostgreSQL)."""
        self.maker = GameMaker(self)
        """Makes new games."""
        self.router = Router(self, proxies)
        """The connections, and where their requests go."""
        self.metrics = ServerMetrics(self)
        """``/metrics``: what the server reports of itself."""
        self.store.on_commit = self.metrics.committed

    @property
    def rooms(self) -> dict[str, GameRoom]:
        """The open games' rooms by id."""
        return self.games.rooms

    @contextlib.asynccontextmanager
    async def running(
        self, host: str = "127.0.0.1", port: int = 0
    ) -> AsyncIterator[asyncio.Server]:
        """Serve until the block exits; then close connections (1001), stop every room, and
        let the store's writer commit what is queued before it stops. Unfinished games in
        the store are resumed first: on SQLite every one (read at once: nothing else runs
        yet); on PostgreSQL those whose lease this process takes, as soon as it listens (see
        :meth:`server.leases.Leases.hold`)."""
        if not self.store.postgres:
            for stored in self.store.unfinished():
                self.games.resume(stored)
        loop = asyncio.get_running_loop()
        with self.metrics.collector_pauses():
            async with self.store.writing():
                listener = await loop.create_server(
                    self._connection,
                    host,
                    port,
                    ssl=self.tls.context if self.tls is not None else None,
                    backlog=BACKLOG,
                )
                try:
                    await self._listening(listener, host)
                    yield listener
                finally:
                    await self._stop(listener)

    async def _listening(self, listener: asyncio.Server, host: str) -> None:
        """The server listens on ``listener`` (at ``host``): its URL is known, the games held (on
        PostgreSQL: those whose leases this process takes) play on, and the background
        tasks start."""
        scheme = "ws" if self.tls is None else "wss"
        self.url = f"{scheme}://{host}:{self.port_of(listener)}"
        self._log.info("server.listening", url=self.url, page=f"http{self.url[2:]}/")
        if self.store.postgres:
            await self.leases.start(self.port_of(listener))
        else:
            for room in self.rooms.values():
                room.launch_bots()  # bots of games resumed from the store
        self.tasks.start(self._reap_idle(), "reaper")
        self.tasks.start(self._sweep(), "sweep")

    async def _stop(self, listener: asyncio.Server) -> None:
        """Stop serving: no more connections, the open ones closed (1001), the rooms and the
        bot host stopped, and on PostgreSQL this process's leases given up."""
        listener.close()
        await self.router.close_all()
        await self.tasks.cancel()
        await self.bots.close()
        if self.store.postgres:
            await self.leases.release()
        self._log.info("server.stopped")

    def _connection(self) -> Connection:
        """A new socket's connection (the listening socket's protocol factory)."""
        return Connection(
            self.router,
            subprotocols=_SUBPROTOCOLS,
            max_message=read_limit(self.limits.connection.max_frame),
            max_bytes=self.limits.outbox_bytes,
            clock=self.clock,
            timing=self.timing,
            metrics=self.metrics,
            turn=self.router.turn,
        )

    @staticmethod
    def port_of(listener: asyncio.Server) -> int:
        """The port ``listener`` (what :meth:`running` yields) listens on."""
        port: int = next(iter(listener.sockets)).getsockname()[1]
        return port

    # --- what the server reports ----------------------------------------------------------
    def census(self) -> Census:
        """The server's counts now (read by its metrics)."""
        games: dict[str, int] = {}
        actions = self.games.actions_closed
        waiting = 0
        for room in self.rooms.values():
            state = (
                "stopped"
                if room.stopped
                else "over"
                if room.over
                else "playing"
                if room.started
                else "lobby"
            )
            games[state] = games.get(state, 0) + 1
            actions += room.actions
            waiting += room.inbox.qsize()
        return Census(
            connections=sum(conn.session is not None for conn in self.router.connections),
            games=games,
            actions=actions,
            room_queue=waiting,
            store_queue=self.store.waiting(),
            store_reachable=self.store.reachable,
            bot_seats=self.bots.seats(),
            leases=self.leases.held,
        )

    async def _reap_idle(self) -> None:
        """Close games nobody has touched for ``idle_timeout`` with nobody connected, games
        not started yet that nobody (their creator included) has been connected to for the
        ``unstarted_seconds`` limit, and finished games once their players are gone. Closed
        games stay in the store; those not finished are not resumed after a restart."""
        shortest = min(self.idle_timeout, self.limits.unstarted_seconds)
        while True:
            await asyncio.sleep(min(60.0, max(0.05, shortest / 4)))
            now = self.clock()
            self.router.forget_idle_addresses()
            self.games.close_idle(now, self.idle_timeout, shortest)

    async def _sweep(self) -> None:
        """About once a second: each connection's deadlines and keepalive, and connections
        whose readers have stopped taking what waits for them for ``stalled_seconds`` cut off
        (:meth:`server.router.Router.sweep`)."""
        limit = self.limits.stalled_seconds
        while True:
            await asyncio.sleep(min(1.0, max(0.05, limit / 4)))
            self.router.sweep(self.clock(), limit)
