"""A minimal protocol client for server tests: real websockets, the real codec."""

from __future__ import annotations

import asyncio
import random
import ssl
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from clients.tls import connect_options
from engine import Event
from protocol import SUBPROTOCOL_MSGPACK, Codec
from protocol import messages as m
from protocol.payloads import WireModel, event_to_engine
from server.app import HexhavenServer

TIMEOUT = 60.0
"""How long a message may take before the test fails as hung: long enough for a loaded machine
to start bot processes and a database (no test waits it out when things work)."""


class ManualClock:
    """The games' clock for a test (``HexhavenServer(clock=...)``): seconds pass only when
    the test moves it, with :func:`advance`."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def advance(srv: HexhavenServer, clock: ManualClock, seconds: float) -> None:
    """Move the games' clock on; every waiting room plays what ran out before this returns."""
    clock.now += seconds
    for room in list(srv.rooms.values()):
        room.wake()


class Client:
    def __init__(self, ws: ClientConnection, codec: Codec) -> None:
        self.ws = ws
        self.codec = codec
        self.received: list[Any] = []

    @classmethod
    async def open(
        cls,
        port: int,
        subprotocol: str = SUBPROTOCOL_MSGPACK,
        headers: dict[str, str] | None = None,
        *,
        url: str | None = None,
        tls: ssl.SSLContext | None = None,
        path: str = "",
    ) -> Client:
        """A connection to the server on 127.0.0.1 at ``port``, or at ``url`` (``tls``
        verifies a ``wss://`` one)."""
        ws = await connect(
            url or f"ws://127.0.0.1:{port}{path}",
            subprotocols=[subprotocol],  # type: ignore[list-item]
            additional_headers=headers,
            **connect_options(url or "", tls),
        )
        return cls(ws, Codec(ws.subprotocol))

    async def hello(self) -> None:
        await self.send(m.Hello(protocol=1, client="test"))
        await self.expect(m.Welcome)

    async def send(self, message: WireModel) -> None:
        await self.ws.send(self.codec.encode(message))

    async def send_raw(self, frame: str | bytes) -> None:
        await self.ws.send(frame)

    async def recv(self) -> Any:
        async with asyncio.timeout(TIMEOUT):
            message = self.codec.decode_server(await self.ws.recv())
        self.received.append(message)
        return message

    async def expect(self, kind: type[Any]) -> Any:
        """The next message of this type; others received meanwhile are kept."""
        while True:
            message = await self.recv()
            if isinstance(message, kind):
                return message

    def events(self) -> list[Event]:
        """Every event received so far, in engine form (as this connection got it)."""
        return [
            event_to_engine(e) for x in self.received if isinstance(x, m.Events) for e in x.events
        ]

    def token(self) -> str:
        """The seat token this connection was given when it joined."""
        joined = next(x for x in self.received if isinstance(x, m.Joined))
        assert joined.token is not None, "joined as a spectator"
        return joined.token

    async def close(self) -> None:
        await self.ws.close()

    async def play_randomly(self, game: str, seed: int) -> m.GameOver:
        """Answer every prompt with a random listed action until the game is over."""
        rnd = random.Random(seed)
        last: m.Act | None = None
        while True:
            message = await self.recv()
            if isinstance(message, m.GameOver):
                return message
            if isinstance(message, m.Prompt):
                action = rnd.choice(message.actions)
                last = m.Act(game=game, state_id=message.state_id, action=action)
                await self.send(last)
            if isinstance(message, m.Error) and message.code == m.ErrorCode.RATE_LIMITED and last:
                await asyncio.sleep(0.05)  # over the rate limit: wait, then say it again
                await self.send(last)
