"""The Python SDK for players that are programs: connect, take a seat, answer prompts.

Subclass :class:`Agent` and implement :meth:`Agent.choose`; :func:`play` does the rest
(handshake, joining or rejoining with a token, answering every prompt with the state id it
was made for, pings, coming back after a lost connection, turn timers, game over). Bots and
outside agents use it alike.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import structlog
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from clients.reconnect import (
    PING_INTERVAL,
    PING_TIMEOUT,
    RECONNECT,
    ConnectionLost,
    Connections,
    Reconnect,
)
from clients.tls import Where, trusting
from protocol import SUBPROTOCOL_MSGPACK, ProtocolError
from protocol import messages as m
from protocol.client_session import (
    ClientSession,
    Goal,
    JoinSeat,
    ResumeSeat,
)
from protocol.codec import Frame
from protocol.payloads import ViewPayload, WireModel

__all__ = [
    "PING_INTERVAL",
    "PING_TIMEOUT",
    "RECONNECT",
    "Agent",
    "ConnectionLost",
    "Reconnect",
    "SeatDeclined",
    "Table",
    "play",
]


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

    def on_seated(self, table: Table) -> None:  # noqa: B027 (an optional hook)
        """Called once the seat and the game's first view are known, before any prompt.
        Raising declines the seat: :func:`play` leaves the game and raises
        :class:`SeatDeclined` with the reason."""

    def on_event(self, event: Any, table: Table) -> None:  # noqa: B027 (an optional hook)
        """Called for every event, in order, in this seat's form."""

    def on_error(self, error: m.Error, table: Table) -> None:  # noqa: B027 (an optional hook)
        """Called when the server refuses something this agent sent."""


class SeatDeclined(Exception):
    """The agent declined its seat (its :meth:`Agent.on_seated` raised); the message is
    the agent's reason."""


async def play(
    agent: Agent,
    url: str,
    game: str | None = None,
    *,
    token: str | None = None,
    invite: str | None = None,
    subprotocol: str = SUBPROTOCOL_MSGPACK,
    reconnect: Reconnect | None = RECONNECT,
    ping_interval: float | None = PING_INTERVAL,
    ping_timeout: float | None = PING_TIMEOUT,
    cafile: Where | None = None,
    tls: ssl.SSLContext | None = None,
) -> m.GameOver | None:
    """Play one game to its end: join by ``invite`` code (``play(agent, url,
    invite=CODE)``), come back to a seat of ``game`` with its ``token`` (``play(agent, url,
    GAME, token=TOKEN)``), or join ``game`` by its id. A coroutine: run it with
    ``asyncio.run``. Returns the game-over message, or None if the server refused the seat.
    Raises ``ValueError`` before connecting if given neither ``invite`` nor ``game``, or a
    ``token`` without its ``game`` (an empty string counts as not given).

    A ``wss://`` server is verified with the system's trust store (``SSL_CERT_FILE`` and
    ``SSL_CERT_DIR`` may name it, as in Python's ssl), or with the CA certificates in
    ``cafile`` alone, or as the context ``tls`` says (:mod:`clients.tls` makes them).
    Raises :class:`clients.tls.TrustError` (a ``ValueError``) for a ``cafile`` that cannot
    be read or holds no certificate, ``ValueError`` when given both ``cafile`` and
    ``tls``, and ``ssl.SSLCertVerificationError`` (an ``OSError``) for a server whose
    certificate is not trusted.

    A connection lost once the seat is taken (closed, cut, or silent to pings for
    ``ping_interval + ping_timeout`` seconds) is made again and the seat rejoined with its
    token, as ``reconnect`` allows (None: never); the server then sends the view and, if
    the seat owes an action, the prompt again. Where several server processes share the
    games, a server that does not play the game answers ``moved`` with the URL of the one
    that does, which the SDK follows; after a loss it asks ``url`` again (which knows where
    the game is by then), and a game between servers is asked for again as ``reconnect``
    allows. Raises :class:`ConnectionLost` when that
    fails, :class:`SeatDeclined` when the agent's :meth:`Agent.on_seated` refuses the game,
    and ``OSError`` or a ``websockets`` error if the server cannot be reached at first.

    ``agent.choose`` runs in a worker thread, so the connection keeps flowing (pings, events,
    new prompts) while it thinks. Its hooks are never called while it thinks: events that
    arrive meanwhile reach ``on_event`` after it has decided. A decision for a prompt that a
    newer prompt has replaced is dropped, and the newer one is asked instead."""
    if token is not None and not game:
        raise ValueError("play: a token comes back to a seat of a game: give the game too")
    if not invite and not game:
        raise ValueError("play: give an invite code, or a game (with a token to rejoin)")
    if cafile is not None:
        if tls is not None:
            raise ValueError("play: give a cafile or a TLS context, not both")
        tls = trusting(cafile)
    log = structlog.get_logger("hexhaven.agent").bind(agent=agent.name)
    if game:
        log = log.bind(game=game)  # until the server seats us: then game and seat
    goal: Goal
    if token is not None:
        assert game  # checked above
        goal = ResumeSeat(game=game, token=token)
    else:
        goal = JoinSeat(name=agent.name, game=None if invite else game, invite=invite or None)
    client = ClientSession(
        goal, client=f"hexhaven-sdk {agent.name}", subprotocol=subprotocol, views=True
    )
    session = _Session(agent, Table(game=game or "", token=token), log, client)
    connections = Connections(
        url,
        client,
        policy=reconnect,
        tls=tls,
        ping_interval=ping_interval,
        ping_timeout=ping_timeout,
        log=lambda: session.log,
        events="agent",
    )
    try:
        async for ws in connections:
            outcome = await session.run(ws)
            if isinstance(outcome, m.GameOver):
                return outcome
            if outcome is not _REFUSED:
                connections.lost(str(outcome))
        return None  # the server refused the seat
    finally:
        await connections.aclose()
        await session.close()


_REFUSED: Any = object()


@dataclass(frozen=True)
class _Received:
    """A frame the connection numbered ``link`` received."""

    link: int
    frame: Frame


@dataclass(frozen=True)
class _Closed:
    """The connection numbered ``link`` closed, for ``reason``."""

    link: int
    reason: str


@dataclass(frozen=True)
class _Decided:
    """A decision the worker thread finished: the prompt it answers and the action (None:
    nothing to send yet)."""

    prompt: m.Prompt
    action: Any


class _Session:
    """The agent's side of one game, across its connections: the client session (the
    rules of taking and keeping the seat), the table, the prompt being thought about, and
    what waits for the agent to be free."""

    def __init__(self, agent: Agent, table: Table, log: Any, client: ClientSession) -> None:
        self.agent = agent
        self.client = client
        self.table = table
        self.log = log
        self.inbox: asyncio.Queue[Any] = asyncio.Queue()
        self.ws: ClientConnection | None = None
        self.link = 0  # the number of the current connection
        self.rejoined = False  # the server seated us on the current connection
        self.thinking = False
        self.latest: tuple[m.Prompt, float] | None = None  # the prompt to answer next
        self.deferred: list[Callable[[], None]] = []  # hook calls held while it thinks
        self.last: m.Act | None = None
        self.answered: m.Prompt | None = None  # the prompt self.last answers
        self.checked = False  # on_seated has been asked
        self._tasks: set[asyncio.Future[None]] = set()

    async def run(self, ws: ClientConnection) -> Any:
        """Take the seat on a fresh connection and play on it until the game is over (the
        game-over message), the seat is refused (``_REFUSED``) or the connection closes
        (why, as a string)."""
        self.link += 1
        link = self.link
        self.ws = ws
        self.rejoined = False
        client = self.client

        async def read() -> None:
            reason = "closed by the server"
            try:
                async for frame in ws:
                    self.inbox.put_nowait(_Received(link, frame))
                if ws.close_code is not None:
                    reason = f"closed by the server ({ws.close_code} {ws.close_reason})".strip()
            except ConnectionClosed as exc:
                reason = str(exc)
            finally:
                self.inbox.put_nowait(_Closed(link, reason))

        reader = asyncio.ensure_future(read())
        try:
            for frame in client.connect(ws.subprotocol):  # the hello
                await self._send_frame(frame)
            while True:
                item = await self.inbox.get()
                if isinstance(item, _Closed | _Received) and item.link != link:
                    continue  # an older connection's, seen late
                if isinstance(item, _Closed):
                    return item.reason
                if isinstance(item, _Received):
                    try:
                        received = client.receive(item.frame)
                    except ProtocolError as exc:
                        return f"the server sent a frame that is no message: {exc}"
                    for frame in received.send:  # the seat request, once welcomed
                        await self._send_frame(frame)
                    if received.message is None:  # a type this SDK does not know
                        continue
                    item = received.message
                over = await self.handle(item)
                if over is not None:
                    return over
                if client.is_refused:
                    return _REFUSED
        finally:
            self.ws = None  # the reconnect loop tells the client session it is gone
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)

    async def send(self, message: WireModel) -> None:
        """Send on the current connection; nothing if it is gone (the reader notices)."""
        ws = self.ws
        if ws is None:
            return
        try:
            await ws.send(self.client.encode(message))
        except ConnectionClosed:
            self.log.info("agent.unsent", type=message.type)  # type: ignore[attr-defined]

    async def _send_frame(self, frame: Frame) -> None:
        """Send a frame of the client session's on the current connection; nothing if it
        is gone (the reader notices)."""
        ws = self.ws
        if ws is None:
            return
        with contextlib.suppress(ConnectionClosed):
            await ws.send(frame)

    async def close(self) -> None:
        """Stop waiting for a decision in progress (its thread finishes on its own)."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def handle(self, message: Any) -> m.GameOver | None:
        table = self.table
        match message:
            case _Decided():
                await self._decided(message)
            case m.Joined():
                client = self.client
                table.game, table.seat, table.token = client.game or "", client.seat, client.token
                self.rejoined = True
                # Every later line names the game and the seat; none names the token (a
                # secret: the agent's owner has it from the table, never from a log).
                self.log = self.log.bind(game=message.game, seat=message.seat)
                self.log.info("agent.seated")
            case m.GameView():
                table.view = message.view
                table.events.clear()
                if self.rejoined and not self.checked:
                    self.checked = True
                    await self._check_seat()
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
                if self.client.is_refused:
                    return None  # the seat cannot be had: run() stops rather than wait
                await self._fall_back(message)
            case m.GameOver():
                return message
        return None

    async def _check_seat(self) -> None:
        """Ask the agent whether it takes the seat; leave the game if not."""
        try:
            self.agent.on_seated(self.table)
        except Exception as exc:
            self.log.error("agent.declined", reason=str(exc))
            await self.send(m.Leave(game=self.table.game))
            raise SeatDeclined(str(exc)) from exc

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
        latest = self.latest
        if latest is not None:
            if latest[0].state_id != decided.prompt.state_id:
                self._think()  # a newer prompt replaced this one: think about that
                return
            self.latest = None  # the same prompt again (sent on a rejoin): this answers it
        if decided.action is not None:
            self.answered = decided.prompt
            self.last = m.Act(
                game=self.table.game, state_id=decided.prompt.state_id, action=decided.action
            )
            await self.send(self.last)
