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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from protocol import PROTOCOL_VERSION, SUBPROTOCOL_MSGPACK, Codec
from protocol import messages as m
from protocol.payloads import WireModel

CLIENT_NAME = "hexhaven-tui 0.1"
RETRY_DELAYS = (0.5, 1.0, 2.0, 3.0, 5.0)
"""Seconds between reconnection attempts (the last one repeats)."""


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

    def __init__(self, url: str, seating: Seating, subprotocol: str = SUBPROTOCOL_MSGPACK) -> None:
        self.url = url
        self.seating = seating
        self.subprotocol = subprotocol
        self.game: str | None = seating.game
        self.token: str | None = seating.token
        self._ws: ClientConnection | None = None
        self._codec: Codec | None = None
        self.closing = False
        self._early: list[Any] = []
        self.created: m.GameCreated | None = None
        """The game this link created (``create`` seating)."""

    async def send(self, message: WireModel) -> bool:
        """Send a message; False (and nothing sent) while disconnected."""
        ws, codec = self._ws, self._codec
        if ws is None or codec is None:
            return False
        try:
            await ws.send(codec.encode(message))
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
        ws = await connect(self.url, subprotocols=[self.subprotocol])  # type: ignore[list-item]
        self._ws, self._codec = ws, Codec(ws.subprotocol)
        try:
            await self._greet(self._early.append, first=True)
        except BaseException:
            await ws.close()
            self._ws = self._codec = None
            raise

    async def run(self, deliver: Callable[[Any], None], status: Callable[[str, str], None]) -> None:
        """Take the seat (unless :meth:`open` did) and pass on every message until
        :meth:`close`, or until the server refuses the seat (:class:`SeatLost`). A dropped
        connection is reported (``status("lost", why)``) and retried with the seat's token
        or the game to watch; ``status("connected", url)`` says it is back."""
        for item in self._early:
            deliver(item)
        self._early.clear()
        attempt = 0
        first = self._ws is None
        while not self.closing:
            ws = self._ws
            try:
                if ws is None:
                    ws = await connect(self.url, subprotocols=[self.subprotocol])  # type: ignore[list-item]
                    self._ws, self._codec = ws, Codec(ws.subprotocol)
                    await self._greet(deliver, first)
                first = False
                attempt = 0
                status("connected", self.url)
                assert self._codec is not None
                async for frame in ws:
                    message = self._codec.read_server(frame)
                    if message is None:  # a type this client does not know
                        continue
                    self._note(message)
                    deliver(message)
                why = "the server closed the connection"
            except SeatLost:
                raise
            except (OSError, ConnectionClosed, InvalidHandshake, TimeoutError) as exc:
                if first and self.seating.mode == "create":
                    raise  # nothing was created: say so rather than retry forever
                why = str(exc) or type(exc).__name__
            finally:
                self._ws = self._codec = None
                if ws is not None:
                    with contextlib.suppress(Exception):
                        await ws.close()
            if self.closing:
                return
            delay = RETRY_DELAYS[min(attempt, len(RETRY_DELAYS) - 1)]
            status("lost", f"{why}; reconnecting in {delay:g} s")
            attempt += 1
            await asyncio.sleep(delay)

    def _note(self, message: Any) -> None:
        if isinstance(message, m.Joined):
            self.game = message.game
            if message.token is not None:
                self.token = message.token

    async def _request(self, message: WireModel, *answers: type[Any]) -> Any:
        """Send ``message`` and read until one of ``answers`` (or an error) arrives; what
        came before is returned too, to be delivered."""
        assert self._ws is not None and self._codec is not None
        await self._ws.send(self._codec.encode(message))
        seen: list[Any] = []
        while True:
            reply = self._codec.read_server(await self._ws.recv())
            if reply is None:
                continue
            seen.append(reply)
            if isinstance(reply, (*answers, m.Error)):
                return reply, seen

    async def _greet(self, deliver: Callable[[Any], None], first: bool) -> None:
        """The handshake, then the seat: on reconnecting, always the token (or the game
        to watch)."""
        hello = m.Hello(protocol=PROTOCOL_VERSION, client=CLIENT_NAME, views=True)
        reply, seen = await self._request(hello, m.Welcome)
        if isinstance(reply, m.Error):
            raise SeatLost(reply)
        s = self.seating
        if self.token is not None and self.game is not None:
            message: WireModel = m.Rejoin(game=self.game, token=self.token, history=True)
        elif s.mode == "watch" or (not first and self.token is None and self.game is not None):
            assert self.game is not None
            message = m.Watch(game=self.game, history=True)
        elif s.mode == "create":
            assert s.options is not None
            reply, seen = await self._request(m.CreateGame(options=s.options), m.GameCreated)
            for item in seen:
                deliver(item)
            if isinstance(reply, m.Error):
                raise SeatLost(reply)
            self.game = reply.game
            self.created = reply
            message = m.JoinGame(game=reply.game, name=s.name)
        elif s.invite is not None:
            message = m.JoinGame(invite=s.invite, name=s.name)
        else:
            message = m.JoinGame(game=s.game, name=s.name)
        reply, seen = await self._request(message, m.Joined)
        if (
            isinstance(reply, m.Error)
            and isinstance(message, m.JoinGame)
            and message.invite is not None
            and reply.code == m.ErrorCode.UNKNOWN_GAME
        ):
            # Not an invite code: perhaps a game id.
            message = m.JoinGame(game=message.invite, name=s.name)
            reply, seen = await self._request(message, m.Joined)
        for item in seen:
            self._note(item)
            deliver(item)
        if isinstance(reply, m.Error):
            raise SeatLost(reply)
        if first and s.mode == "create" and s.start_now:
            assert self.game is not None
            await self.send(m.StartGame(game=self.game))


async def wait_closed(link: Link) -> None:
    """Close a link, ignoring a connection already gone."""
    with contextlib.suppress(Exception):
        await link.close()


async def fetch_record(url: str, game: str, subprotocol: str = SUBPROTOCOL_MSGPACK) -> m.GameRecord:
    """A finished game's record from a server. Raises :class:`SeatLost` with the server's
    error (``unknown_game``, ``game_not_over``), or OSError and the websockets errors when
    the server cannot be reached."""
    async with connect(url, subprotocols=[subprotocol]) as ws:  # type: ignore[list-item]
        codec = Codec(ws.subprotocol)
        await ws.send(codec.encode(m.Hello(protocol=PROTOCOL_VERSION, client=CLIENT_NAME)))
        await ws.send(codec.encode(m.GetRecord(game=game)))
        while True:
            reply = codec.read_server(await ws.recv())
            if isinstance(reply, m.GameRecord):
                return reply
            if isinstance(reply, m.Error):
                raise SeatLost(reply)
