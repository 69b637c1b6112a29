"""The Python SDK for players that are programs: connect, take a seat, answer prompts.

Subclass :class:`Agent` and implement :meth:`Agent.choose`; :func:`play` does the rest
(handshake, joining or rejoining with a token, answering every prompt with the state id it
was made for, pings, game over). Bots and outside agents use it alike.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

import structlog
from websockets.asyncio.client import connect

from protocol import PROTOCOL_VERSION, SUBPROTOCOL_MSGPACK, Codec
from protocol import messages as m
from protocol.payloads import ViewPayload, WireModel


@dataclass
class Table:
    """What an agent knows of its game: its seat, the latest full view (every prompt brings
    the current one) and the events since."""

    game: str
    seat: int | None = None
    token: str | None = None
    view: ViewPayload | None = None
    events: list[Any] = field(default_factory=list)
    players: list[m.PlayerInfo] = field(default_factory=list)


class Agent(ABC):
    """A player. Implement :meth:`choose`; the hooks are optional."""

    name = "agent"

    @abstractmethod
    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        """One action payload for the prompt (usually one of ``prompt.actions``)."""

    def on_event(self, event: Any, table: Table) -> None:  # noqa: B027 (an optional hook)
        """Called for every event, in order, in this seat's form."""

    def on_error(self, error: m.Error, table: Table) -> None:  # noqa: B027 (an optional hook)
        """Called when the server refuses something this agent sent."""


async def play(
    agent: Agent,
    url: str,
    game: str,
    *,
    token: str | None = None,
    invite: str | None = None,
    subprotocol: str = SUBPROTOCOL_MSGPACK,
) -> m.GameOver | None:
    """Play one game to its end: rejoin with ``token``, or join ``game`` (or ``invite``) by
    name. Returns the game-over message, or None if the server closed the connection."""
    log = structlog.get_logger("hexhaven.agent").bind(game=game, agent=agent.name)
    table = Table(game=game)
    async with connect(url, subprotocols=[subprotocol]) as ws:  # type: ignore[list-item]
        codec = Codec(ws.subprotocol)

        async def send(message: WireModel) -> None:
            await ws.send(codec.encode(message))

        await send(
            m.Hello(protocol=PROTOCOL_VERSION, client=f"hexhaven-sdk {agent.name}", views=True)
        )
        if token is not None:
            await send(m.Rejoin(game=game, token=token))
        else:
            await send(m.JoinGame(game=None if invite else game, invite=invite, name=agent.name))
        last: m.Act | None = None
        async for frame in ws:
            message = codec.decode_server(frame)
            match message:
                case m.Joined():
                    table.game, table.seat, table.token = message.game, message.seat, message.token
                case m.GameView():
                    table.view = message.view
                    table.events.clear()
                case m.Players():
                    table.players = list(message.players)
                case m.Events():
                    for event in message.events:
                        table.events.append(event)
                        agent.on_event(event, table)
                case m.Prompt() if message.seat == table.seat:
                    if message.view is not None:
                        table.view = message.view
                        table.events.clear()
                    action = agent.choose(message, table)
                    last = m.Act(game=table.game, state_id=message.state_id, action=action)
                    await send(last)
                case m.Error() if message.code == m.ErrorCode.RATE_LIMITED and last is not None:
                    await asyncio.sleep(0.05)  # too fast for the server: wait, then resend
                    await send(last)
                case m.Error():
                    log.info("agent.refused", code=message.code, message=message.message)
                    agent.on_error(message, table)
                case m.GameOver():
                    return message
    return None
