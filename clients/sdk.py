"""The Python SDK for players that are programs: connect, take a seat, answer prompts.

Subclass :class:`Agent` and implement :meth:`Agent.choose`; :func:`play` does the rest
(handshake, joining or rejoining with a token, answering every prompt with the state id it
was made for, pings, game over). Bots and outside agents use it alike.
"""

from __future__ import annotations

import asyncio
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
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
        """One action payload for the prompt (usually one of ``prompt.actions``), or None to
        send nothing yet (e.g. an offerer waiting for answers: a new prompt comes with each
        change). ``prompt.deadline`` is the time left, if the game has a turn timer."""

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
    name. Returns the game-over message, or None if the server closed the connection.

    ``agent.choose`` runs in a worker thread, so the connection keeps flowing (pings, events,
    new prompts) while it thinks. Its hooks are never called while it thinks: events that
    arrive meanwhile reach ``on_event`` after it has decided. A decision for a prompt that a
    newer prompt has replaced is dropped, and the newer one is asked instead."""
    log = structlog.get_logger("hexhaven.agent").bind(game=game, agent=agent.name)
    async with connect(url, subprotocols=[subprotocol]) as ws:  # type: ignore[list-item]
        codec = Codec(ws.subprotocol)
        inbox: asyncio.Queue[Any] = asyncio.Queue()

        async def send(message: WireModel) -> None:
            await ws.send(codec.encode(message))

        async def read() -> None:
            try:
                async for frame in ws:
                    inbox.put_nowait(codec.decode_server(frame))
            finally:
                inbox.put_nowait(_CLOSED)

        await send(
            m.Hello(protocol=PROTOCOL_VERSION, client=f"hexhaven-sdk {agent.name}", views=True)
        )
        if token is not None:
            await send(m.Rejoin(game=game, token=token))
        else:
            await send(m.JoinGame(game=None if invite else game, invite=invite, name=agent.name))
        session = _Session(agent, Table(game=game), send, inbox, log)
        reader = asyncio.create_task(read())
        try:
            while True:
                item = await inbox.get()
                if item is _CLOSED:
                    return None
                over = await session.handle(item)
                if over is not None or session.refused:
                    return over
        finally:
            reader.cancel()


_CLOSED: Any = object()
_NO_SEAT = {
    m.ErrorCode.UNKNOWN_GAME,
    m.ErrorCode.BAD_TOKEN,
    m.ErrorCode.SEAT_TAKEN,
    m.ErrorCode.GAME_FULL,
    m.ErrorCode.ALREADY_STARTED,
}


@dataclass(frozen=True)
class _Decided:
    """A decision the worker thread finished: the prompt it answers and the action (None:
    nothing to send yet)."""

    prompt: m.Prompt
    action: Any


class _Session:
    """The agent's side of one game: the table, the prompt being thought about, and what
    waits for the agent to be free."""

    def __init__(
        self,
        agent: Agent,
        table: Table,
        send: Callable[[WireModel], Awaitable[None]],
        inbox: asyncio.Queue[Any],
        log: Any,
    ) -> None:
        self.agent = agent
        self.table = table
        self.send = send
        self.inbox = inbox
        self.log = log
        self.thinking = False
        self.latest: tuple[m.Prompt, float] | None = None  # the prompt to answer next
        self.deferred: list[Callable[[], None]] = []  # hook calls held while it thinks
        self.last: m.Act | None = None
        self.answered: m.Prompt | None = None  # the prompt self.last answers
        self.refused = False  # the server refused us the seat
        self._tasks: set[asyncio.Future[None]] = set()

    async def handle(self, message: Any) -> m.GameOver | None:
        table = self.table
        match message:
            case _Decided():
                await self._decided(message)
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
                    self._hook(partial(self.agent.on_event, event, table))
            case m.Prompt() if message.seat == table.seat:
                if message.view is not None:
                    table.view = message.view
                    table.events.clear()
                self.latest = (message, time.monotonic())
                if not self.thinking:
                    self._think()
            case m.Error() if message.code == m.ErrorCode.RATE_LIMITED and self.last is not None:
                await asyncio.sleep(0.05)  # too fast for the server: wait, then resend
                await self.send(self.last)
            case m.Error():
                self.log.info("agent.refused", code=message.code, message=message.message)
                self._hook(partial(self.agent.on_error, message, table))
                if table.seat is None and message.code in _NO_SEAT:
                    self.refused = True  # the seat cannot be had: stop rather than wait
                    return None
                await self._fall_back(message)
            case m.GameOver():
                return message
        return None

    async def _fall_back(self, error: m.Error) -> None:
        """The server refused our act as illegal: answer that prompt with its first listed
        action instead (once), so that a confused agent never stalls its seat."""
        last = self.last
        if error.code != m.ErrorCode.ILLEGAL_ACTION or last is None or self.answered is None:
            return
        prompt = self.answered
        self.answered = None
        if self.latest is None and not self.thinking and prompt.actions:
            self.log.info("agent.default", state_id=prompt.state_id)
            self.last = m.Act(game=last.game, state_id=prompt.state_id, action=prompt.actions[0])
            await self.send(self.last)

    def _hook(self, call: Callable[[], None]) -> None:
        if self.thinking:
            self.deferred.append(call)
        else:
            call()

    def _think(self) -> None:
        """Ask the agent about the latest prompt in a worker thread."""
        assert self.latest is not None
        prompt, received = self.latest
        self.latest = None
        if prompt.deadline is not None:
            left = max(0.0, prompt.deadline - (time.monotonic() - received))
            prompt = prompt.model_copy(update={"deadline": left})
        t = self.table
        snapshot = Table(t.game, t.seat, t.token, t.view, list(t.events), list(t.players))
        self.thinking = True

        async def work() -> None:
            try:
                action = await asyncio.to_thread(self.agent.choose, prompt, snapshot)
            except Exception:
                self.log.exception("agent.failed", state_id=prompt.state_id)
                action = prompt.actions[0] if prompt.actions else None
            self.inbox.put_nowait(_Decided(prompt, action))

        task = asyncio.ensure_future(work())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _decided(self, decided: _Decided) -> None:
        self.thinking = False
        for call in self.deferred:
            call()
        self.deferred.clear()
        if self.latest is not None:  # a newer prompt replaced this one: think about that
            self._think()
            return
        if decided.action is not None:
            self.answered = decided.prompt
            self.last = m.Act(
                game=self.table.game, state_id=decided.prompt.state_id, action=decided.action
            )
            await self.send(self.last)
