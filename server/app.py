"""The websocket server: the listening socket, the lobby, and the rooms' tasks.

Each accepted socket is a :class:`~server.connection.Connection` (websockets' sans-I/O
protocol on an asyncio transport): what it reads is handed here message by message, and
what is sent to it is written to its socket at the end of the event loop's turn. Its
:class:`~protocol.server_session.ServerSession` holds the connection's rules (hello first,
version, frame size, rate, decoding, ping) and answers what breaks them; this module only
routes the session's requests. Messages for a game go to that game's room (handled at once
when the room is idle, else queued), so only the room touches its state.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import ipaddress
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable

import structlog
from websockets import http11
from websockets.frames import CloseCode
from websockets.server import ServerProtocol
from websockets.typing import Subprotocol

from protocol import SUBPROTOCOLS
from protocol import messages as m
from protocol.codec import Frame
from protocol.messages import ErrorCode
from protocol.payloads import WireModel
from protocol.server_session import (
    BURST,
    MAX_FRAME,
    RATE,
    Allowance,
    Answer,
    ForGame,
    GameMessage,
    JoinByInvite,
    Request,
    ServerSession,
    frame_bytes,
)
from server import plain_http
from server.bot_launcher import BotLauncher, bot_command
from server.connection import CLOSE_TIMEOUT, Connection, Timing, Turn, read_limit
from server.creation import GameMaker
from server.games import OpenGames
from server.leases import Leases
from server.limits import ServerLimits
from server.lobby import Entry, SharedLobby, page
from server.metrics import Census, ServerMetrics
from server.room import Disconnected, GameRoom
from server.store import (
    Listed,
    Store,
    game_record,
    is_played_out,
)
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

_log = structlog.get_logger("hexhaven.server")

SERVER_NAME = "hexhaven 0.1.0"


Proxies = tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]


def trusted_proxies(addresses: Iterable[str]) -> Proxies:
    """Reverse proxies (addresses or networks, ``10.0.0.0/8``) whose ``X-Forwarded-For``
    the server believes. Raises ValueError naming an entry that is neither."""
    out = []
    for text in addresses:
        try:
            out.append(ipaddress.ip_network(text.strip(), strict=False))
        except ValueError:
            raise ValueError(f"{text!r} is not an IP address or network") from None
    return tuple(out)


def _is_proxy(address: str, proxies: Proxies) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in net for net in proxies)


def _address_of(peer: str, request: http11.Request, proxies: Proxies = ()) -> str:
    """The client's IP address: the socket's ``peer`` ("" when the socket does not say),
    or when that is a trusted proxy, the address the proxies say they were reached from: in
    ``X-Forwarded-For``, the last address that is not itself a trusted proxy (a client can
    write anything at the start of that header, but not what its own proxy appends)."""
    if not proxies or not _is_proxy(peer, proxies):
        return peer
    hops = [
        hop.strip()
        for header in request.headers.get_all("X-Forwarded-For")
        for hop in header.split(",")
    ]
    for hop in reversed(hops):
        try:
            ipaddress.ip_address(hop)
        except ValueError:
            return peer  # a garbled chain: count the proxy, not a made-up client
        if not _is_proxy(hop, proxies):
            return hop
    return hops[0] if hops else peer


def _message_type(request: Request) -> str:
    """The ``type`` of the client message a request came from (for the log)."""
    match request:
        case JoinByInvite() | ForGame():
            return request.message.type
        case _:
            return request.type


def _number(listed: Listed) -> int:
    return listed.number


def _no_invite() -> m.Error:
    return m.Error(code=ErrorCode.UNKNOWN_GAME, message="no game has that invite code")


class HexhavenServer:
    """The lobby and its games. Use :meth:`running` to serve on a host and port."""

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
        self.bots = BotLauncher(self, bot_launcher, bot_workers, bot_search_seconds)
        """The bots that play bot seats and stand in for away people."""
        self.store = store if store is not None else Store()
        self.tls = tls
        """The certificate and key to serve ``wss://`` (and ``https://``) with; None: plain
        ``ws://``."""
        self.proxies = proxies
        """Reverse proxies whose ``X-Forwarded-For`` names the client's address
        (:func:`trusted_proxies`); with none, a connection's address is its socket's peer."""
        self.limits = limits if limits is not None else ServerLimits()
        """What one connection, one address and the whole server may ask of it."""
        self.timing = timing if timing is not None else Timing()
        """The connections' deadlines (handshake, close, keepalive, a frame's arrival)."""
        self._addresses: dict[str, Allowance] = {}
        """The budgets of the addresses with a connection open or spent recently."""
        self.lobby = SharedLobby(self.store)
        """On PostgreSQL, the public games of every process (``list_games``), and this
        process's entries among them."""
        self.away_grace = away_grace
        """Seconds a seat may stay disconnected before the server plays it."""
        self.idle_timeout = idle_timeout
        """Seconds a game with nobody connected may sit untouched before it is closed."""
        self.clock = clock
        """The server's clock, in seconds: turn timers, grace periods, idleness, and each
        connection's rate, budgets, keepalive and deadlines."""
        self.games = OpenGames(self)
        """The rooms of the open games."""
        self.leases = Leases(self, public_url)
        """This process's hold on its games (PostgreSQL)."""
        self.maker = GameMaker(self)
        """Makes new games."""
        self.tasks = Tasks()
        """Every task the server runs (cancelled together when it stops)."""
        self.log = structlog.get_logger("hexhaven.server")
        self.url = ""
        self._connections: set[Connection] = set()
        """Every socket accepted and not closed yet (its websocket handshake done or not)."""
        self._turn = Turn()
        """Where the connections' frames wait for the end of the event loop's turn."""
        self._all_closed: asyncio.Future[None] | None = None
        """While the server stops: done once every connection has closed."""
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
        self.log.info("server.listening", url=self.url, page=f"http{self.url[2:]}/")
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
        await self._close_connections()
        await self.tasks.cancel()
        await self.bots.close()
        if self.store.postgres:
            await self.leases.release()
        self.log.info("server.stopped")

    def _connection(self) -> Connection:
        """A new socket's connection (the listening socket's protocol factory)."""
        return Connection(
            self,
            subprotocols=_SUBPROTOCOLS,
            max_message=read_limit(self.limits.connection.max_frame),
            max_bytes=self.limits.outbox_bytes,
            clock=self.clock,
            timing=self.timing,
            metrics=self.metrics,
            turn=self._turn,
        )

    def accepted(self, conn: Connection) -> None:
        """``conn`` has its socket: it is swept and closed with the others from now on (a
        socket whose TLS handshake fails never gets this far, nor is told it closed)."""
        self._connections.add(conn)

    async def _close_connections(self) -> None:
        """Begin every connection's closing handshake (1001: the server is going away), and
        wait up to :data:`~server.connection.CLOSE_TIMEOUT` for them to finish; drop the
        rest."""
        for conn in list(self._connections):
            conn.close(CloseCode.GOING_AWAY)
        if self._connections:
            self._all_closed = asyncio.get_running_loop().create_future()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(CLOSE_TIMEOUT):
                    await self._all_closed
        for conn in list(self._connections):
            conn.log.warning("conn.close_timeout", opened=conn.session is not None)
            conn.cut_off()

    @staticmethod
    def port_of(listener: asyncio.Server) -> int:
        """The port ``listener`` (what :meth:`running` yields) listens on."""
        port: int = next(iter(listener.sockets)).getsockname()[1]
        return port

    # --- what the server reports ----------------------------------------------------------
    def respond(self, protocol: ServerProtocol, request: http11.Request) -> http11.Response | None:
        """Answer a plain HTTP request (:func:`server.plain_http.respond`); None for a
        websocket handshake."""
        return plain_http.respond(protocol, request, self.store.reachable, self.metrics)

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
            connections=sum(conn.session is not None for conn in self._connections),
            games=games,
            actions=actions,
            room_queue=waiting,
            store_queue=self.store.waiting(),
            store_reachable=self.store.reachable,
            bot_seats=self.bots.seats(),
            leases=self.leases.held,
        )

    # --- one connection ---------------------------------------------------------------------
    def opened(self, conn: Connection, request: http11.Request) -> ServerSession:
        """``conn``'s handshake is done: its address (what the per-address budgets count)
        and its session."""
        address = _address_of(conn.peer, request, self.proxies)
        conn.address = address
        shared = self._addresses.get(address)
        if shared is None:
            shared = Allowance(self.limits.address_budgets, self.clock)
            self._addresses[address] = shared
        session = ServerSession(
            conn.subprotocol,
            clock=self.clock,
            server_name=SERVER_NAME,
            limits=self.limits.connection,
            budgets=self.limits.budgets,
            shared=shared,
        )
        conn.log.info("conn.open", subprotocol=conn.subprotocol)
        return session

    def closed(self, conn: Connection) -> None:
        """``conn``'s socket closed: the rooms it spoke to are told."""
        self._connections.discard(conn)
        if conn.session is not None:
            for game_id in conn.rooms:
                room = self.rooms.get(game_id)
                if room is not None:
                    room.submit(conn, Disconnected())
            conn.log.info("conn.closed")
        closing = self._all_closed
        if closing is not None and not self._connections and not closing.done():
            closing.set_result(None)

    def received(self, conn: Connection, frame: Frame) -> bool:
        """Handle one message; True when it was refused for the message rate (the
        connection then reads nothing more until the rate allows the next)."""
        session = conn.session
        assert session is not None
        received = session.receive(frame)
        if isinstance(received, Answer):
            conn.send(received.message)
            refusal = received.message
            return isinstance(refusal, m.Error) and refusal.code == ErrorCode.RATE_LIMITED
        try:
            self._dispatch(conn, received)
        except Exception:
            self.log.exception("conn.failure", conn=conn.id, message_type=_message_type(received))
            conn.send(m.Error(code=ErrorCode.INTERNAL, message="the server failed on that message"))
        return False

    def _dispatch(self, conn: Connection, request: Request) -> None:
        if type(request) is ForGame:  # the commonest, an act among them
            self._to_room(conn, request.game, request.message)
            return
        match request:
            case m.ListGames():
                if not self.store.postgres:
                    conn.send(self._game_list(request))
                    return
                games = self.lobby.current()
                if games is not None:
                    conn.send(self._shared_list(games, request))
                else:
                    self._answer_later(conn, request.type, self._read_lobby(request))
            case m.CreateGame():
                self.maker.create(conn, request.options)
            case m.GetRecord():
                self._answer_later(conn, request.type, self._record(request.game))
            case JoinByInvite():
                game_id = self.games.invites.get(request.invite)
                if game_id is not None:
                    self._to_room(conn, game_id, request.message)
                elif self.store.postgres:
                    self._answer_later(conn, request.message.type, self._invited(conn, request))
                else:
                    conn.send(_no_invite())
            case ForGame():
                self._to_room(conn, request.game, request.message)

    def _game_list(self, request: m.ListGames) -> m.GameList:
        """A page of this process's public games, in the order they were opened."""
        return page(
            ((n, room.summary) for n, room in self.games.listed.items() if room.invite is None),
            request,
        )

    def _shared_list(self, games: list[Listed], request: m.ListGames) -> m.GameList:
        """A page of the shared lobby's games (PostgreSQL), this process's own as they are
        now (those it has closed since left out)."""

        def entries() -> Iterable[Entry]:
            after = -1 if request.after is None else request.after
            for listed in games[bisect.bisect_right(games, after, key=_number) :]:
                room = self.rooms.get(listed.summary.game)
                if room is not None and room.invite is None:
                    yield listed.number, room.summary
                elif room is None and listed.owner != self.leases.owner:
                    yield listed.number, listed.summary

        return page(entries(), request)

    async def _read_lobby(self, request: m.ListGames) -> m.GameList:
        """A page of the shared lobby, read again first if the copy is too old."""
        return self._shared_list(await self.lobby.read(), request)

    async def _invited(self, conn: Connection, request: JoinByInvite) -> m.Error | None:
        """Where the game of an invite code this process does not know is (PostgreSQL):
        found in the store, it is played by another process (``moved``) or between two
        (``unknown_game``, ``moving``); or it is this process's after all, and the join
        goes to its room (None: nothing to answer here)."""
        game_id = await self.store.call(self.store.invited, request.invite)
        if game_id is None:
            return _no_invite()
        if self.games.invites.get(request.invite) == game_id:  # taken over here meanwhile
            if conn.is_open:
                self._to_room(conn, game_id, request.message)
            return None
        return await self.leases.elsewhere(game_id)

    def _answer_later(
        self, conn: Connection, kind: str, answer: Awaitable[WireModel | None]
    ) -> None:
        """Send ``conn`` the answer to a message of type ``kind`` once the store has read it
        (a task of the server's; None: nothing to send; a failure is logged and answered
        ``internal``)."""

        async def send() -> None:
            try:
                message = await answer
                if message is not None:
                    conn.send(message)
            except Exception:
                self.log.exception("conn.failure", conn=conn.id, message_type=kind)
                conn.send(
                    m.Error(code=ErrorCode.INTERNAL, message="the server failed on that message")
                )

        self.tasks.start(send(), f"answer-{kind}")

    async def _not_open(
        self, game_id: str, conn: Connection | None = None, message: GameMessage | None = None
    ) -> m.Error | None:
        """Why no room holds ``game_id``: never made, or closed (its ``detail``: ``over``,
        played out, or ``unfinished``, left). A game played out is opened again instead
        for ``conn``'s ``message`` when that watches or rejoins it with its history (the
        history budget paid for it): None, the room answers."""
        stored = await self.store.call(self.store.load, game_id)
        if stored is None:
            return m.Error(
                code=ErrorCode.UNKNOWN_GAME, message=f"there is no game {game_id!r}", game=game_id
            )
        if is_played_out(stored):
            if conn is not None and isinstance(message, m.Watch | m.Rejoin) and message.history:
                if game_id not in self.rooms:
                    refusal = self._reopen_refusal(conn, game_id)
                    if refusal is not None:
                        return refusal
                room = await self.games.reopen(stored)
                if not conn.closing:
                    conn.rooms.add(game_id)
                    room.submit(conn, message)
                return None
            return m.Error(
                code=ErrorCode.UNKNOWN_GAME,
                message=f"game {game_id!r} is over and closed; its record is public (get_record)",
                detail="over",
                game=game_id,
            )
        if not stored.finished and self.store.postgres:
            return await self.leases.elsewhere(game_id)
        return m.Error(
            code=ErrorCode.UNKNOWN_GAME,
            message=f"game {game_id!r} was closed unfinished, after everyone had left it",
            detail="unfinished",
            game=game_id,
        )

    async def _record(self, game_id: str) -> WireModel:
        """A finished game's record; a game still played (or abandoned) is refused without
        a word of it."""
        stored = await self.store.call(self.store.load, game_id)
        if stored is None:
            return m.Error(
                code=ErrorCode.UNKNOWN_GAME,
                message=f"there is no game {game_id!r}",
                game=game_id,
            )
        if not is_played_out(stored):
            return m.Error(
                code=ErrorCode.GAME_NOT_OVER,
                message=f"game {game_id!r} is not over; its record is public once it ends",
                game=game_id,
            )
        return game_record(stored)

    def _to_room(self, conn: Connection, game_id: str, message: GameMessage) -> None:
        room = self.rooms.get(game_id)
        if room is None:
            self._answer_later(conn, message.type, self._not_open(game_id, conn, message))
            return
        conn.rooms.add(game_id)
        room.submit(conn, message)

    def _reopen_refusal(self, conn: Connection, game_id: str) -> m.Error | None:
        """Why a played-out game may not be opened again for ``conn`` now (the server's
        ``reopened`` cap, or the ``reopens`` budget, which this spends), or None."""
        cap = self.limits.reopened
        if len(self.games.reopened) >= cap:
            return m.Error(
                code=ErrorCode.LIMIT_REACHED,
                message=f"the server has {cap} finished games open for those watching them "
                "(limit reopened); try again in a few minutes, or read its record (get_record)",
                detail="reopened",
                game=game_id,
            )
        return conn.charge("reopens", game_id)

    async def _reap_idle(self) -> None:
        """Close games nobody has touched for ``idle_timeout`` with nobody connected, games
        not started yet that nobody (their creator included) has been connected to for the
        ``unstarted_seconds`` limit, and finished games once their players are gone. Closed
        games stay in the store; those not finished are not resumed after a restart."""
        shortest = min(self.idle_timeout, self.limits.unstarted_seconds)
        while True:
            await asyncio.sleep(min(60.0, max(0.05, shortest / 4)))
            now = self.clock()
            for address, allowance in list(self._addresses.items()):
                if allowance.is_full():  # nothing spent lately: a fresh one is the same
                    del self._addresses[address]
            self.games.close_idle(now, self.idle_timeout, shortest)

    async def _sweep(self) -> None:
        """About once a second: each connection's deadlines and keepalive
        (:meth:`Connection.tick`), and connections whose readers have taken nothing of
        what waits for them for ``stalled_seconds`` cut off (a stopped reader under the
        byte bound would otherwise hold its buffer until the keepalive gives up on it)."""
        limit = self.limits.stalled_seconds
        while True:
            await asyncio.sleep(min(1.0, max(0.05, limit / 4)))
            now = self.clock()
            for conn in list(self._connections):
                conn.tick(now)
                if not conn.closing and conn.stalled(now, limit):
                    conn.log.warning("conn.stalled", bytes=conn.waiting)
                    conn.cut_off()
