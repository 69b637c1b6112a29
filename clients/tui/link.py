"""The terminal client's connection to a server: the handshake, taking a seat, and
reconnecting by itself with the seat token when the connection drops.

A :class:`Link` runs inside the UI's event loop (it never blocks it): it hands every server
message to ``deliver`` and reports the connection's state to ``status``. How it takes its
place is a :class:`Seating`: create a game and sit in it, join by invite code or game id,
rejoin with a token, or watch.
"""

from __future__ import annotations

import contextlib
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from clients.reconnect import FOREVER, ConnectionLost, Connections, Retry
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


class SeatLost(Exception):
    """The server refused the seat for good (unknown game, bad token, game full...)."""

    def __init__(self, error: m.Error) -> None:
        super().__init__(error.message)
        self.error = error


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
        self._connections: Connections | None = None
        self._status: Callable[[str, str], None] | None = None
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

    def _loop(self, *, retry_first: bool) -> Connections:
        """The reconnect loop of this link: it never gives up (a person watches and can
        quit), and it says each wait on the status line."""

        def waiting(retry: Retry) -> None:
            if self._status is not None:
                self._status("lost", f"{retry.why}; reconnecting in {retry.delay:g} s")

        return Connections(
            self.url,
            self.session,
            policy=FOREVER,
            tls=self.tls,
            retry_first=retry_first,
            needs_seat=False,
            on_retry=waiting,
        )

    async def open(self) -> None:
        """Connect and take the seat now, before the UI runs (so a refusal is reported
        at once); what arrives is kept for :meth:`run`. Raises :class:`SeatLost`, or
        OSError and the websockets errors when the server cannot be reached."""
        connections = self._connections = self._loop(retry_first=False)
        try:
            async for ws in connections:
                self._ws, self.at = ws, connections.url
                if await self._greet(ws, self._early.append):
                    return
                self._ws = None  # moved: the loop goes to the server that plays the game
        except BaseException:
            self._ws = None
            await connections.aclose()
            raise
        raise SeatLost(self._refusal())

    def _refusal(self) -> m.Error:
        refusal = self.session.refusal
        assert refusal is not None, "the loop ends only on a refusal"
        return refusal

    async def run(self, deliver: Callable[[Any], None], status: Callable[[str, str], None]) -> None:
        """Take the seat (unless :meth:`open` did) and pass on every message until
        :meth:`close`, or until the server refuses the seat (:class:`SeatLost`). A dropped
        connection is reported (``status("lost", why)``) and retried with the seat's token
        or the game to watch; ``status("connected", url)`` says it is back."""
        for item in self._early:
            deliver(item)
        self._early.clear()
        self._status = status
        first = self._connections is None
        connections = self._connections or self._loop(retry_first=self.seating.mode != "create")
        self._connections = connections
        try:
            while not self.closing:
                ws = self._ws
                try:
                    if ws is None:
                        ws = self._ws = await anext(connections)
                        self.at = connections.url
                        if self.closing:
                            return  # closed while it waited to come back
                        if not await self._greet(ws, deliver):
                            continue  # moved: straight to the server that plays it
                    first = False
                    status("connected", self.at)
                    async for frame in ws:
                        message = await self._receive(ws, frame)
                        if message is not None:
                            deliver(message)
                    connections.lost("the server closed the connection")
                except SeatLost as lost:
                    if first or not is_between_servers(lost.error):
                        raise
                    connections.lost(lost.error.message)  # its server stopped; another takes it
                except (OSError, ConnectionClosed, InvalidHandshake, TimeoutError) as exc:
                    if first and self.seating.mode == "create":
                        raise  # nothing was created: say so rather than retry forever
                    connections.lost(str(exc) or type(exc).__name__)
                finally:
                    self._ws = None
        except StopAsyncIteration:
            raise SeatLost(self._refusal()) from None
        except ConnectionLost as lost:
            raise SeatLost(lost.refusal or self._refusal()) from lost
        finally:
            await connections.aclose()

    async def _receive(self, ws: ClientConnection, frame: str | bytes) -> Any:
        """Feed a frame to the session and send what it answers; the message to deliver,
        or None."""
        received = self.session.receive(frame)
        for out in received.send:
            await ws.send(out)
        return received.message

    async def _greet(self, ws: ClientConnection, deliver: Callable[[Any], None]) -> bool:
        """The handshake, then the seat (on reconnecting, always the token, or the game to
        watch), delivering what arrives until the seat is taken: True once it is, False for
        a ``moved`` the reconnect loop follows. Raises :class:`SeatLost` on any other error
        before then."""
        session = self.session
        for out in session.connect(ws.subprotocol):
            await ws.send(out)
        while not session.is_seated:
            message = await self._receive(ws, await ws.recv())
            connections = self._connections
            if session.moved_to is not None and connections and connections.will_follow:
                return False
            if message is not None:
                deliver(message)
            if session.refusal is not None:
                raise SeatLost(session.refusal)
            if isinstance(message, m.Error):
                raise SeatLost(message)  # the UI takes any error before its seat as final
        return True


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
