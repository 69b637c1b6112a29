"""One reconnect loop for every client: connect, take the place, and come back after a loss.

:class:`Connections` is an async iterator in the shape of ``websockets``' ``async for ws in
connect(...)``: each time round it gives an open connection to run the client's
:class:`~protocol.client_session.ClientSession` on (hello, seat request, the game), and
between connections it decides from what the session learned whether to go on:

- the server said another one plays the game (``moved``): connect there at once, up to
  ``max_moves`` times in a row;
- the connection was lost once the place was taken, or the game is between servers: wait
  as the :class:`Reconnect` policy says (back-off doubling from ``first_delay`` up to
  ``max_delay``, or the policy's own ``delays``) and connect again, to the first address
  (which knows where the game is by then), rejoining with the seat's token;
- the place was refused: end the iteration if it was never lost before (the caller reads
  :attr:`ClientSession.refusal`), else raise :class:`ConnectionLost`;
- the policy's attempts or time ran out, or the connection was lost before any place was
  taken where one is needed: raise :class:`ConnectionLost`.

The SDK, the terminal client, the MCP seat and the arena's server runner use it; they differ
only in their policy. The loop owns each connection it gives: it tells the session the
connection is gone and closes it before deciding what comes next, so a caller never calls
:meth:`ClientSession.connection_lost` itself. The clock and the sleep are injectable.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import ssl
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

from clients.tls import connect_options
from protocol import messages as m
from protocol.client_session import ClientSession, JoinSeat, is_between_servers

MAX_MOVES: Final = 5
"""How many times in a row a client follows ``moved`` to the server that plays its game."""
PING_INTERVAL: Final = 20.0
"""Seconds between the websocket pings a client sends to check the line."""
PING_TIMEOUT: Final = 20.0
"""Seconds a ping may go unanswered before the connection counts as lost."""


@dataclass(frozen=True)
class Reconnect:
    """How a client comes back after losing its connection during a game: up to
    ``attempts`` tries in a row, waiting ``first_delay`` seconds before the first and twice
    as long before each next one (at most ``max_delay``), and never for more than
    ``give_up_after`` seconds since the connection was lost. Given ``delays``, the waits are
    those instead, the last repeating. A rejoin that succeeds starts the count afresh."""

    attempts: int | float = 8
    first_delay: float = 0.2
    max_delay: float = 5.0
    give_up_after: float = 120.0
    delays: tuple[float, ...] = ()

    def delay(self, attempt: int) -> float:
        """Seconds to wait before try number ``attempt`` (1, 2, ...)."""
        if self.delays:
            return float(self.delays[min(attempt, len(self.delays)) - 1])
        return float(min(self.max_delay, self.first_delay * 2 ** (attempt - 1)))


RECONNECT = Reconnect()
"""The policy the SDK and the MCP seat use unless told otherwise."""
FOREVER = Reconnect(attempts=math.inf, give_up_after=math.inf, delays=(0.5, 1.0, 2.0, 3.0, 5.0))
"""Never give up (the terminal client: a person watches it and can quit)."""


class ConnectionLost(Exception):
    """The connection was lost and the place could not be taken back: the policy's
    attempts or time ran out (``refusal`` None), the server refused the rejoin
    (``refusal``), or no place was taken yet to come back to (``seated`` False). The message
    says which, and the last error seen."""

    def __init__(
        self,
        message: str,
        *,
        game: str,
        attempts: int,
        refusal: m.Error | None = None,
        seated: bool = True,
    ) -> None:
        super().__init__(message)
        self.game = game
        self.attempts = attempts
        self.refusal = refusal
        self.seated = seated


@dataclass(frozen=True)
class Retry:
    """The loop is about to wait ``delay`` seconds before try number ``attempt`` to come
    back; ``why`` is the last error seen."""

    attempt: int
    delay: float
    why: str


Connector = Callable[..., Awaitable[ClientConnection]]
"""``websockets``' ``connect``, or a stand-in in tests: called with the URL and keywords."""


class Connections:
    """The connections of one client session: see the module docstring.

    ``url`` is the first address, and the one asked again after a loss. ``policy`` (None:
    never come back) says how to wait and when to give up. ``retry_first``: a first
    connection that cannot be made is retried as after a loss (else its error is raised as
    it is). ``needs_seat``: a connection lost before any seat was taken ends the loop with
    :class:`ConnectionLost` (else it is made again, as for a watch). ``log`` gives the
    logger to write ``<events>.moved``, ``.connection_lost``, ``.reconnecting``,
    ``.gave_up`` and ``.rejoin_refused`` to (None: no log lines); ``on_retry`` is told of
    each wait. ``clock``, ``sleep`` and ``connector`` stand in for the monotonic clock,
    ``asyncio.sleep`` and ``websockets``' ``connect``."""

    def __init__(
        self,
        url: str,
        session: ClientSession,
        *,
        policy: Reconnect | None = RECONNECT,
        tls: ssl.SSLContext | None = None,
        ping_interval: float | None = PING_INTERVAL,
        ping_timeout: float | None = PING_TIMEOUT,
        max_moves: int = MAX_MOVES,
        retry_first: bool = False,
        needs_seat: bool = True,
        log: Callable[[], Any] | None = None,
        events: str = "client",
        on_retry: Callable[[Retry], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        connector: Connector = connect,
    ) -> None:
        self.entry = url
        """Where the loop connects first, and again after a loss."""
        self.url = url
        """Where the current (or next) connection goes: the entry, or where ``moved`` said."""
        self.session = session
        """The session the connections are for (a caller may put a fresh one in its place)."""
        self.policy = policy
        self.tls = tls
        self.ping_interval = ping_interval
        self.ping_timeout = ping_timeout
        self.max_moves = max_moves
        self.retry_first = retry_first
        self.needs_seat = needs_seat
        self._log = log
        self._events = events
        self._on_retry = on_retry
        self._clock = clock
        self._sleep = sleep
        self._connector = connector
        self.ws: ClientConnection | None = None
        """The connection given last, until the loop takes it back."""
        self.moves = 0
        """``moved`` followed in a row."""
        self.attempts = 0
        """Tries to come back since the loss (0: not coming back)."""
        self.lost_at: float | None = None
        """When the connection was lost, while coming back."""
        self.error = ""
        """The last error seen while coming back."""
        self._why: str | None = None
        self._started = False

    def __aiter__(self) -> Connections:
        return self

    @property
    def will_follow(self) -> bool:
        """Whether a ``moved`` answered now would be followed."""
        return self.moves < self.max_moves

    def lost(self, why: str) -> None:
        """Say why the connection given last ended (logged, and named when giving up)."""
        self._why = why

    async def aclose(self) -> None:
        """Take back the connection given last, if any: the session is told it is gone."""
        ws, self.ws = self.ws, None
        if ws is not None:
            self.session.connection_lost()
            with contextlib.suppress(Exception):
                await ws.close()

    async def __anext__(self) -> ClientConnection:
        """The next connection to run the session on, open. Raises
        :class:`StopAsyncIteration` when the place was refused before it was ever lost,
        :class:`ConnectionLost` when it cannot be taken back, and the first connection's
        error (``OSError``, a ``websockets`` error, ``TimeoutError``) unless
        ``retry_first``."""
        if not self._started:
            self._started = True
            if not self.retry_first:
                return await self._open()
        elif await self._after():
            try:
                return await self._open()  # where ``moved`` said, at once
            except (OSError, WebSocketException, TimeoutError) as exc:
                if self.lost_at is None and not self.retry_first:
                    raise  # never connected to the game: nothing to come back to
                self._unreached(exc)
        while True:
            await self._back_off()
            try:
                return await self._open()
            except (OSError, WebSocketException, TimeoutError) as exc:
                self._unreached(exc)

    async def _open(self) -> ClientConnection:
        ws = await self._connector(
            self.url,
            subprotocols=[self.session.subprotocol],
            ping_interval=self.ping_interval,
            ping_timeout=self.ping_timeout,
            **connect_options(self.url, self.tls),
        )
        self.ws = ws
        self._why = None
        return ws

    def _unreached(self, exc: BaseException) -> None:
        """A connection could not be made: count it as lost, and ask the first address."""
        self.error = f"{type(exc).__name__}: {exc}"
        self.url, self.moves = self.entry, 0  # the server it was sent to is gone
        if self.lost_at is None:
            self.lost_at = self._clock()

    async def _after(self) -> bool:
        """Decide what follows the connection given last: True to follow ``moved`` at
        once, False to connect again after :meth:`_back_off`; or raise."""
        session = self.session
        seated = session.is_seated
        why = self._why or self._close_reason()
        await self.aclose()
        if seated:
            self.lost_at, self.attempts, self.moves = None, 0, 0  # it was back: a fresh count
        moved = session.moved_to
        if moved is not None and self.will_follow:
            self.moves += 1  # another server plays the game: ask there
            self._write("info", "moved", url=moved)
            self.url = moved
            return True
        refusal = session.refusal
        if refusal is not None and is_between_servers(refusal):
            self.error = "the game is between servers"  # taken over within seconds: again
            if self.lost_at is None:
                self.lost_at = self._clock()
            return False
        game = session.game or ""
        if refusal is not None:
            if self.lost_at is None:
                raise StopAsyncIteration  # refused before it was ever taken: nothing lost
            self._write("error", "rejoin_refused", code=str(refusal.code))
            raise ConnectionLost(
                f"lost the connection to {self.url}, and the server refused the rejoin of "
                f"game {game}: {refusal.code}: {refusal.message}",
                game=game,
                attempts=self.attempts,
                refusal=refusal,
            )
        if session.token is None and self.needs_seat:
            goal = session.goal
            where = (
                f"game {game}"
                if game or not isinstance(goal, JoinSeat)
                else f"the game of invite code {goal.invite}"
            )
            raise ConnectionLost(
                f"lost the connection to {self.url} before taking a seat in {where}",
                game=game,
                attempts=0,
                seated=False,
            )
        if self.lost_at is None:
            self.lost_at = self._clock()
            self._write("warning", "connection_lost", reason=why)
        self.error = why
        self.url = self.entry  # after a loss, ask the first address where the game is now
        return False

    async def _back_off(self) -> None:
        """Wait before the next try as the policy says; raise :class:`ConnectionLost`
        when it says to give up. Nothing to wait for when nothing was lost."""
        if self.lost_at is None:
            return
        self.attempts += 1
        policy = self.policy
        waited = self._clock() - self.lost_at
        if policy is None or self.attempts > policy.attempts or waited >= policy.give_up_after:
            tries = self.attempts - 1
            self._write("error", "gave_up", attempts=tries, seconds=round(waited, 1))
            game = self.session.game or ""
            raise ConnectionLost(
                f"lost the connection to {self.url} and could not rejoin game {game} "
                f"({tries} tries in {waited:.1f} s; last error: {self.error})",
                game=game,
                attempts=tries,
            )
        delay = max(0.0, min(policy.delay(self.attempts), policy.give_up_after - waited))
        self._write("warning", "reconnecting", attempt=self.attempts, delay=round(delay, 2))
        if self._on_retry is not None:
            self._on_retry(Retry(self.attempts, delay, self.error))
        await self._sleep(delay)

    def _close_reason(self) -> str:
        ws = self.ws
        if ws is None or ws.close_code is None:
            return "the server closed the connection"
        return f"closed by the server ({ws.close_code} {ws.close_reason})".strip()

    def _write(self, level: str, event: str, **fields: Any) -> None:
        if self._log is not None:
            getattr(self._log(), level)(f"{self._events}.{event}", **fields)
