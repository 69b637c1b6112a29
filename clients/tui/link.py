"""The terminal client's connection to a server: the handshake, taking a seat, and
reconnecting by itself with the seat token when the connection drops.

A :class:`Link` runs inside the UI's event loop (it never blocks it): it hands every server
message to ``deliver`` and reports the connection's state to ``status``. How it takes its
place is a :class:`Seating`: create a game and sit in it, join by invite code or game id,
rejoin with a token, or watch.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from clients.tls import connect_options
from protocol import PROTOCOL_VERSION, SUBPROTOCOL_MSGPACK, Codec
from protocol import messages as m
from protocol.client_session import (
    ClientSession,
    Goal,
    JoinSeat,
    NewGame,
    ResumeSeat,
    WatchGame,
    is_between_servers,
)
from protocol.payloads import WireModel

CLIENT_NAME = "hexhaven-tui 0.1"
RETRY_DELAYS = (0.5, 1.0, 2.0, 3.0, 5.0)
"""Seconds between reconnection attempts (the last one repeats)."""


class SeatLost(Exception):
    """The server refused the seat for good (unknown game, bad token, game full...)."""

    def __init__(self, error: m.Error) -> None:
        super().__init__(error.message)
        self.error = error


class _Moved(Exception):
    """The server said another server plays the game, at ``url``."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.url = url


MAX_MOVES = 5
"""How many times in a row a link follows ``moved`` to the server that plays the game."""


@dataclass(frozen=True)
class Seating:
    """How to take a place in a game.

    ``create`` (with ``options``): create a game and take a seat in it; ``start`` the game
    at once when ``start_now``. ``join``: take a seat by ``invite`` code or ``game`` id.
    ``rejoin``: the seat of ``token`` in ``game``. ``watch``: follow ``game`` as a
    spectator."""

    mode: str
    name: str = "you"
    game: str | None = None
    invite: str | None = None
    token: str | None = None
    options: m.GameOptions | None = None
    start_now: bool = False


class Transport(Protocol):
    """What the UI needs of a connection (a :class:`Link`, or a fake in tests)."""

    async def run(
        self, deliver: Callable[[Any], None], status: Callable[[str, str], None]
    ) -> None: ...

    async def send(self, message: WireModel) -> bool: ...


class Link:
    """A connection that keeps its seat: see the module docstring."""

    def __init__(
        self,
        url: str,
        seating: Seating,
        subprotocol: str = SUBPROTOCOL_MSGPACK,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        """``tls`` verifies ``wss://`` servers (None: the system's trust store). Raises
        :class:`ValueError` for a join that names neither a game nor an invite code, or a
        subprotocol the protocol does not have."""
        self.url = url
        """Where the link first connects, and connects again after a loss."""
        self.at = url
        """Where it is connected: ``url``, or the server that plays the game (``moved``)."""
        self.seating = seating
        self.subprotocol = subprotocol
        self.tls = tls
        self.session = ClientSession(
            _goal(seating),
            client=CLIENT_NAME,
            subprotocol=subprotocol,
            event_views=True,
            history=True,
        )
        """The rules of taking the seat and taking it back (sans-I/O)."""
        self._ws: ClientConnection | None = None
        self.closing = False
        self._early: list[Any] = []

    @property
    def game(self) -> str | None:
        """The game, once known."""
        return self.session.game

    @property
    def token(self) -> str | None:
        """The seat's token, once seated."""
        return self.session.token

    @property
    def created(self) -> m.GameCreated | None:
        """The game this link created (``create`` seating)."""
        return self.session.created

    async def send(self, message: WireModel) -> bool:
        """Send a message; False (and nothing sent) while disconnected."""
        ws = self._ws
        if ws is None:
            return False
        try:
            await ws.send(self.session.encode(message))
        except ConnectionClosed:
            return False
        return True

    async def close(self) -> None:
        self.closing = True
        if self._ws is not None:
            await self._ws.close()

    async def open(self) -> None:
        """Connect and take the seat now, before the UI runs (so a refusal is reported
        at once); what arrives is kept for :meth:`run`. Raises :class:`SeatLost`, or
        OSError and the websockets errors when the server cannot be reached."""
        moves = 0
        while True:
            ws = await self._connect()
            self._ws = ws
            try:
                await self._greet(ws, self._early.append, follow=moves < MAX_MOVES)
                return
            except _Moved as moved:
                self.at, moves = moved.url, moves + 1  # the game is played there: ask there
            except BaseException:
                await ws.close()
                self._ws = None
                self.session.connection_lost()
                raise
            await ws.close()
            self._ws = None
            self.session.connection_lost()

    async def _connect(self) -> ClientConnection:
        return await connect(
            self.at,
            subprotocols=[self.subprotocol],  # type: ignore[list-item]
            **connect_options(self.at, self.tls),
        )

    async def run(self, deliver: Callable[[Any], None], status: Callable[[str, str], None]) -> None:
        """Take the seat (unless :meth:`open` did) and pass on every message until
        :meth:`close`, or until the server refuses the seat (:class:`SeatLost`). A dropped
        connection is reported (``status("lost", why)``) and retried with the seat's token
        or the game to watch; ``status("connected", url)`` says it is back."""
        for item in self._early:
            deliver(item)
        self._early.clear()
        attempt = moves = 0
        first = self._ws is None
        while not self.closing:
            ws = self._ws
            sent_on = False
            try:
                if ws is None:
                    ws = await self._connect()
                    self._ws = ws
                    await self._greet(ws, deliver, follow=moves < MAX_MOVES)
                first = False
                attempt = moves = 0
                status("connected", self.at)
                async for frame in ws:
                    message = await self._receive(ws, frame)
                    if message is not None:
                        deliver(message)
                why = "the server closed the connection"
            except _Moved as moved:
                self.at, moves = moved.url, moves + 1  # the game is played there: ask there
                why, sent_on = f"the game is played at {moved.url}", True
            except SeatLost as lost:
                if first or not is_between_servers(lost.error):
                    raise
                why = lost.error.message  # its server stopped; another takes it over
            except (OSError, ConnectionClosed, InvalidHandshake, TimeoutError) as exc:
                if first and self.seating.mode == "create":
                    raise  # nothing was created: say so rather than retry forever
                why = str(exc) or type(exc).__name__
            finally:
                self._ws = None
                self.session.connection_lost()
                if ws is not None:
                    with contextlib.suppress(Exception):
                        await ws.close()
            if self.closing:
                return
            if sent_on:
                continue  # straight to the server that plays it
            self.at = self.url  # after a loss, ask the first address where the game is now
            delay = RETRY_DELAYS[min(attempt, len(RETRY_DELAYS) - 1)]
            status("lost", f"{why}; reconnecting in {delay:g} s")
            attempt += 1
            await asyncio.sleep(delay)

    async def _receive(self, ws: ClientConnection, frame: str | bytes) -> Any:
        """Feed a frame to the session and send what it answers; the message to deliver,
        or None."""
        received = self.session.receive(frame)
        for out in received.send:
            await ws.send(out)
        return received.message

    async def _greet(
        self, ws: ClientConnection, deliver: Callable[[Any], None], *, follow: bool = True
    ) -> None:
        """The handshake, then the seat (on reconnecting, always the token, or the game to
        watch), delivering what arrives until the seat is taken. Raises :class:`SeatLost`
        on any error before then, but ``moved`` when ``follow`` (:class:`_Moved`)."""
        session = self.session
        for out in session.connect(ws.subprotocol):
            await ws.send(out)
        while not session.is_seated:
            message = await self._receive(ws, await ws.recv())
            moved = session.moved_to
            if moved is not None and follow:
                raise _Moved(moved)
            if message is not None:
                deliver(message)
            if session.refusal is not None:
                raise SeatLost(session.refusal)
            if isinstance(message, m.Error):
                raise SeatLost(message)  # the UI takes any error before its seat as final


def _goal(seating: Seating) -> Goal:
    """The client session's goal for a seating: a token with its game is always the seat
    back."""
    s = seating
    if s.token is not None and s.game is not None:
        return ResumeSeat(game=s.game, token=s.token)
    match s.mode:
        case "watch":
            assert s.game is not None, "watching needs a game"
            return WatchGame(game=s.game)
        case "create":
            assert s.options is not None, "creating needs its options"
            return NewGame(options=s.options, name=s.name, start=s.start_now)
        case _:
            return JoinSeat(name=s.name, game=s.game, invite=s.invite, invite_or_game=True)


async def wait_closed(link: Link) -> None:
    """Close a link, ignoring a connection already gone."""
    with contextlib.suppress(Exception):
        await link.close()


async def fetch_record(
    url: str,
    game: str,
    subprotocol: str = SUBPROTOCOL_MSGPACK,
    tls: ssl.SSLContext | None = None,
) -> m.GameRecord:
    """A finished game's record from a server (``tls`` verifies a ``wss://`` one; None:
    the system's trust store). Raises :class:`SeatLost` with the server's error
    (``unknown_game``, ``game_not_over``), or OSError and the websockets errors when the
    server cannot be reached."""
    async with connect(
        url,
        subprotocols=[subprotocol],  # type: ignore[list-item]
        **connect_options(url, tls),
    ) as ws:
        codec = Codec(ws.subprotocol)
        await ws.send(codec.encode(m.Hello(protocol=PROTOCOL_VERSION, client=CLIENT_NAME)))
        await ws.send(codec.encode(m.GetRecord(game=game)))
        while True:
            reply = codec.read_server(await ws.recv())
            if isinstance(reply, m.GameRecord):
                return reply
            if isinstance(reply, m.Error):
                raise SeatLost(reply)
