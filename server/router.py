"""The server's websocket connections and the routing of their requests.

Each accepted socket is a :class:`~server.connection.Connection` (websockets' sans-I/O
protocol on an asyncio transport): what it reads is handed here message by message, and
what is sent to it is written to its socket at the end of the event loop's turn. Its
:class:`~protocol.server_session.ServerSession` holds the connection's rules (hello first,
version, frame size, rate, decoding, ping) and answers what breaks them; the router gives
each connection its address and session when its handshake is done, and routes the
session's requests: ``list_games`` to the lobby, ``create_game`` to the game maker
(:mod:`server.creation`), ``get_record`` to the store, and every message for a game to that
game's room (handled at once when the room is idle, else queued). A game no room holds is
looked for in the store: over and closed, opened again for those who watch it with its
history, or (PostgreSQL) played by another process. The router also holds every connection
open, for the server's sweep and for its shutdown.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import ipaddress
from collections.abc import Awaitable, Iterable
from typing import TYPE_CHECKING

import structlog
from websockets import http11
from websockets.frames import CloseCode
from websockets.server import ServerProtocol

from protocol import messages as m
from protocol.codec import Frame
from protocol.messages import ErrorCode
from protocol.payloads import WireModel
from protocol.server_session import (
    Allowance,
    Answer,
    ForGame,
    GameMessage,
    JoinByInvite,
    Request,
    ServerSession,
)
from server import plain_http
from server.connection import CLOSE_TIMEOUT, Connection, Turn
from server.lobby import Entry, page
from server.room import Disconnected
from server.store import Listed, game_record, is_played_out

if TYPE_CHECKING:
    from server.app import HexhavenServer

__all__ = ["SERVER_NAME", "Proxies", "Router", "trusted_proxies"]

SERVER_NAME = "hexhaven 0.1.0"
"""The server's name in its ``welcome``."""


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


class Router:
    """The connections of ``server`` and their requests: every connection's
    :class:`~server.connection.Host`. ``proxies``: the reverse proxies whose
    ``X-Forwarded-For`` names a client's address (:func:`trusted_proxies`); with none, a
    connection's address is its socket's peer."""

    def __init__(self, server: HexhavenServer, proxies: Proxies = ()) -> None:
        self._log = structlog.get_logger("hexhaven.server")
        """The server's log (a logger of each instance: configured when first used)."""
        self._server = server
        self.proxies = proxies
        """Reverse proxies whose ``X-Forwarded-For`` names the client's address."""
        self.connections: set[Connection] = set()
        """Every socket accepted and not closed yet (its websocket handshake done or not)."""
        self.turn = Turn()
        """Where the connections' frames wait for the end of the event loop's turn."""
        self._addresses: dict[str, Allowance] = {}
        """The budgets of the addresses with a connection open or spent recently."""
        self._all_closed: asyncio.Future[None] | None = None
        """While the server stops: done once every connection has closed."""

    def accepted(self, conn: Connection) -> None:
        """``conn`` has its socket: it is swept and closed with the others from now on (a
        socket whose TLS handshake fails never gets this far, nor is told it closed)."""
        self.connections.add(conn)

    async def close_all(self) -> None:
        """Begin every connection's closing handshake (1001: the server is going away), and
        wait up to :data:`~server.connection.CLOSE_TIMEOUT` for them to finish; drop the
        rest."""
        for conn in list(self.connections):
            conn.close(CloseCode.GOING_AWAY)
        if self.connections:
            self._all_closed = asyncio.get_running_loop().create_future()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(CLOSE_TIMEOUT):
                    await self._all_closed
        for conn in list(self.connections):
            conn.log.warning("conn.close_timeout", opened=conn.session is not None)
            conn.cut_off()

    def sweep(self, now: float, stalled: float) -> None:
        """Each connection's deadlines and keepalive at ``now`` (:meth:`Connection.tick`),
        and connections whose readers have taken nothing of what waits for them for
        ``stalled`` seconds cut off (a stopped reader under the byte bound would otherwise
        hold its buffer until the keepalive gives up on it)."""
        for conn in list(self.connections):
            conn.tick(now)
            if not conn.closing and conn.stalled(now, stalled):
                conn.log.warning("conn.stalled", bytes=conn.waiting)
                conn.cut_off()

    def forget_idle_addresses(self) -> None:
        """Drop the budgets of addresses that have spent nothing lately (a fresh budget is
        the same)."""
        for address, allowance in list(self._addresses.items()):
            if allowance.is_full():
                del self._addresses[address]

    # --- one connection ---------------------------------------------------------------------
    def respond(self, protocol: ServerProtocol, request: http11.Request) -> http11.Response | None:
        """Answer a plain HTTP request (:func:`server.plain_http.respond`); None for a
        websocket handshake."""
        server = self._server
        return plain_http.respond(protocol, request, server.store.reachable, server.metrics)

    def opened(self, conn: Connection, request: http11.Request) -> ServerSession:
        """``conn``'s handshake is done: its address (what the per-address budgets count)
        and its session."""
        address = _address_of(conn.peer, request, self.proxies)
        conn.address = address
        shared = self._addresses.get(address)
        if shared is None:
            shared = Allowance(self._server.limits.address_budgets, self._server.clock)
            self._addresses[address] = shared
        session = ServerSession(
            conn.subprotocol,
            clock=self._server.clock,
            server_name=SERVER_NAME,
            limits=self._server.limits.connection,
            budgets=self._server.limits.budgets,
            shared=shared,
        )
        conn.log.info("conn.open", subprotocol=conn.subprotocol)
        return session

    def closed(self, conn: Connection) -> None:
        """``conn``'s socket closed: the rooms it spoke to are told."""
        self.connections.discard(conn)
        if conn.session is not None:
            for game_id in conn.rooms:
                room = self._server.rooms.get(game_id)
                if room is not None:
                    room.submit(conn, Disconnected())
            conn.log.info("conn.closed")
        closing = self._all_closed
        if closing is not None and not self.connections and not closing.done():
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
            self._log.exception("conn.failure", conn=conn.id, message_type=_message_type(received))
            conn.send(m.Error(code=ErrorCode.INTERNAL, message="the server failed on that message"))
        return False

    def _dispatch(self, conn: Connection, request: Request) -> None:
        if type(request) is ForGame:  # the commonest, an act among them
            self._to_room(conn, request.game, request.message)
            return
        match request:
            case m.ListGames():
                if not self._server.store.postgres:
                    conn.send(self._game_list(request))
                    return
                games = self._server.lobby.current()
                if games is not None:
                    conn.send(self._shared_list(games, request))
                else:
                    self._answer_later(conn, request.type, self._read_lobby(request))
            case m.CreateGame():
                self._server.maker.create(conn, request.options)
            case m.GetRecord():
                self._answer_later(conn, request.type, self._record(request.game))
            case m.FindGame():
                game_id = self._server.games.invites.get(request.invite)
                room = self._server.rooms.get(game_id) if game_id is not None else None
                if room is not None:
                    conn.send(m.GameFound(game=room.id, summary=room.summary()))
                elif self._server.store.postgres:
                    self._answer_later(conn, request.type, self._found_elsewhere(request))
                else:
                    conn.send(_no_invite())
            case JoinByInvite():
                game_id = self._server.games.invites.get(request.invite)
                if game_id is not None:
                    self._to_room(conn, game_id, request.message)
                elif self._server.store.postgres:
                    self._answer_later(conn, request.message.type, self._invited(conn, request))
                else:
                    conn.send(_no_invite())
            case ForGame():
                self._to_room(conn, request.game, request.message)

    def _game_list(self, request: m.ListGames) -> m.GameList:
        """A page of this process's public games, in the order they were opened."""
        listed = self._server.games.listed
        return page(
            ((n, room.summary) for n, room in listed.items() if room.invite is None), request
        )

    def _shared_list(self, games: list[Listed], request: m.ListGames) -> m.GameList:
        """A page of the shared lobby's games (PostgreSQL), this process's own as they are
        now (those it has closed since left out)."""

        def entries() -> Iterable[Entry]:
            after = -1 if request.after is None else request.after
            for listed in games[bisect.bisect_right(games, after, key=_number) :]:
                room = self._server.rooms.get(listed.summary.game)
                if room is not None and room.invite is None:
                    yield listed.number, room.summary
                elif room is None and listed.owner != self._server.leases.owner:
                    yield listed.number, listed.summary

        return page(entries(), request)

    async def _read_lobby(self, request: m.ListGames) -> m.GameList:
        """A page of the shared lobby, read again first if the copy is too old."""
        return self._shared_list(await self._server.lobby.read(), request)

    async def _invited(self, conn: Connection, request: JoinByInvite) -> m.Error | None:
        """A join by an invite code this process did not know (PostgreSQL): refused as
        :meth:`_find_invite` says, or, the game being this process's after all, sent to its
        room (None: nothing to answer here)."""
        found = await self._find_invite(request.invite)
        if isinstance(found, m.Error):
            return found
        if conn.is_open:
            self._to_room(conn, found, request.message)
        return None

    async def _found_elsewhere(self, request: m.FindGame) -> WireModel:
        """A ``find_game`` for an invite code this process did not know (PostgreSQL)."""
        found = await self._find_invite(request.invite)
        if isinstance(found, m.Error):
            return found
        room = self._server.rooms.get(found)
        return _no_invite() if room is None else m.GameFound(game=found, summary=room.summary())

    async def _find_invite(self, invite: str) -> str | m.Error:
        """Where the game of an invite code this process did not know is: found in the
        store, it is played by another process (``moved``) or between two (``unknown_game``,
        ``moving``); or it is this process's after all (its id)."""
        game_id = await self._server.store.call(self._server.store.invited, invite)
        if game_id is None:
            return _no_invite()
        if self._server.games.invites.get(invite) == game_id:  # taken over here meanwhile
            return game_id
        return await self._server.leases.elsewhere(game_id)

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
                self._log.exception("conn.failure", conn=conn.id, message_type=kind)
                conn.send(
                    m.Error(code=ErrorCode.INTERNAL, message="the server failed on that message")
                )

        self._server.tasks.start(send(), f"answer-{kind}")

    async def _not_open(
        self, game_id: str, conn: Connection | None = None, message: GameMessage | None = None
    ) -> m.Error | None:
        """Why no room holds ``game_id``: never made, or closed (its ``detail``: ``over``,
        played out, or ``unfinished``, left). A game played out is opened again instead
        for ``conn``'s ``message`` when that watches or rejoins it with its history (the
        history budget paid for it): None, the room answers."""
        stored = await self._server.store.call(self._server.store.load, game_id)
        if stored is None:
            return m.Error(
                code=ErrorCode.UNKNOWN_GAME, message=f"there is no game {game_id!r}", game=game_id
            )
        if is_played_out(stored):
            if conn is not None and isinstance(message, m.Watch | m.Rejoin) and message.history:
                if game_id not in self._server.rooms:
                    refusal = self._reopen_refusal(conn, game_id)
                    if refusal is not None:
                        return refusal
                room = await self._server.games.reopen(stored)
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
        if not stored.finished and self._server.store.postgres:
            return await self._server.leases.elsewhere(game_id)
        return m.Error(
            code=ErrorCode.UNKNOWN_GAME,
            message=f"game {game_id!r} was closed unfinished, after everyone had left it",
            detail="unfinished",
            game=game_id,
        )

    async def _record(self, game_id: str) -> WireModel:
        """A finished game's record; a game still played (or abandoned) is refused without
        a word of it."""
        stored = await self._server.store.call(self._server.store.load, game_id)
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
        room = self._server.rooms.get(game_id)
        if room is None:
            self._answer_later(conn, message.type, self._not_open(game_id, conn, message))
            return
        conn.rooms.add(game_id)
        room.submit(conn, message)

    def _reopen_refusal(self, conn: Connection, game_id: str) -> m.Error | None:
        """Why a played-out game may not be opened again for ``conn`` now (the server's
        ``reopened`` cap, or the ``reopens`` budget, which this spends), or None."""
        cap = self._server.limits.reopened
        if len(self._server.games.reopened) >= cap:
            return m.Error(
                code=ErrorCode.LIMIT_REACHED,
                message=f"the server has {cap} finished games open for those watching them "
                "(limit reopened); try again in a few minutes, or read its record (get_record)",
                detail="reopened",
                game=game_id,
            )
        return conn.charge("reopens", game_id)
