"""The server's side of one connection, sans-I/O: frames in, answers and requests out.

A :class:`ServerSession` holds the rules of a connection: hello first, the protocol version,
the frame size limit, the rate budget, the budgets of the requests that cost the server work
or memory (:class:`Budgets`, spent both by the connection and by every connection from its
address), decoding, ping and the welcome. The server feeds it
each frame with :meth:`ServerSession.receive` and gets back either an :class:`Answer` to
send to that connection (a refusal, the welcome, a pong) or a request to route (the
lobby's, or one for a game). Every refusal is an ``error`` message and the connection
stays open. Time comes from an injected clock; nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from protocol import messages as m
from protocol.codec import Codec, Frame, ProtocolError
from protocol.messages import PROTOCOL_VERSION, SUPPORTED_VERSIONS, ErrorCode
from protocol.payloads import WireModel

MAX_FRAME = 64 * 1024
"""Frames larger than this (in bytes) are refused with ``too_large``."""
RATE = 500.0
"""Messages per second a connection may send on average..."""
BURST = 1000.0
"""...and in a burst."""

Clock = Callable[[], float]
"""Seconds on a monotonic clock."""


@dataclass(frozen=True, slots=True)
class Limits:
    """What one connection may send: frames of at most ``max_frame`` bytes, ``rate``
    messages a second on average and ``burst`` at once."""

    max_frame: int = MAX_FRAME
    rate: float = RATE
    burst: float = BURST


@dataclass(frozen=True, slots=True)
class Rate:
    """A budget: ``per_minute`` on average, at most ``burst`` at once."""

    per_minute: float
    burst: float


@dataclass(frozen=True, slots=True)
class Budgets:
    """How often the requests that cost the server work or memory may come: one set for
    each connection, another for all connections from one address. A request past either
    is refused with ``limit_reached``, its ``detail`` the budget's name, and costs
    nothing."""

    history: Rate = Rate(per_minute=20, burst=5)
    """``watch`` or ``rejoin`` with ``history``, and ``get_record``."""
    views: Rate = Rate(per_minute=60, burst=10)
    """``watch`` or ``rejoin`` without ``history`` (each answered with the game's view)."""
    replay_views: Rate = Rate(per_minute=600, burst=60)
    """``view_at``: a finished game's views, one for each step of its replay."""
    reopens: Rate = Rate(per_minute=4, burst=2)
    """Games played out and closed, opened again for a ``watch`` or ``rejoin`` with
    ``history`` (spent besides ``history``)."""
    boards: Rate = Rate(per_minute=4, burst=2)
    """``create_game`` whose board is searched or drawn off the event loop (``balanced``,
    ``fair``, or ``random`` on a larger island; spent besides ``creates``)."""
    game_lists: Rate = Rate(per_minute=60, burst=10)
    """``list_games``."""
    creates: Rate = Rate(per_minute=10, burst=5)
    """``create_game``."""
    joins: Rate = Rate(per_minute=20, burst=10)
    """``join_game``, by game id or by invite code (a guess at a code costs one)."""
    chat: Rate = Rate(per_minute=30, burst=10)
    """``chat``."""

    def scaled(self, factor: float) -> Budgets:
        """These budgets with every rate and burst ``factor`` times as large."""
        return Budgets(
            **{
                name: Rate(rate.per_minute * factor, rate.burst * factor)
                for name, rate in ((n, getattr(self, n)) for n in BUDGET_NAMES)
            }
        )


REFUSALS_KEPT = 16
"""Budget refusals a session keeps to give again (see :meth:`ServerSession.charge`)."""
BUDGET_NAMES = (
    "history",
    "views",
    "replay_views",
    "reopens",
    "boards",
    "game_lists",
    "creates",
    "joins",
    "chat",
)
"""The budgets of :class:`Budgets`, by the names refusals give in ``detail``."""
_SAYS = {
    "history": "requests for a game's history or record",
    "views": "requests to watch or rejoin a game",
    "replay_views": "views of a finished game's replay",
    "reopens": "finished games opened again",
    "boards": "new games on searched or drawn boards",
    "game_lists": "game lists",
    "creates": "new games",
    "joins": "attempts to join a game",
    "chat": "chat lines",
}


class Allowance:
    """What is left of a set of :class:`Budgets` now, on a clock: one token bucket per
    budget, full at first."""

    def __init__(self, budgets: Budgets, clock: Clock) -> None:
        self.budgets = budgets
        self._clock = clock
        now = clock()
        self._left: dict[str, tuple[float, float]] = {
            name: (getattr(budgets, name).burst, now) for name in BUDGET_NAMES
        }

    def available(self, name: str) -> float:
        """How many requests budget ``name`` allows at once now."""
        rate: Rate = getattr(self.budgets, name)
        left, when = self._left[name]
        now = self._clock()
        left = min(rate.burst, left + max(0.0, now - when) * rate.per_minute / 60.0)
        self._left[name] = (left, now)
        return left

    def spend(self, name: str) -> None:
        """Spend one request of budget ``name`` (check :meth:`available` first)."""
        left, when = self._left[name]
        self._left[name] = (left - 1, when)

    def is_full(self) -> bool:
        """Whether every budget is back to its burst (nothing to remember)."""
        return all(self.available(n) >= getattr(self.budgets, n).burst for n in BUDGET_NAMES)


def budget_of(message: object) -> str | None:
    """The budget a client message spends, if any."""
    match message:
        case m.Watch(history=True) | m.Rejoin(history=True) | m.GetRecord():
            return "history"
        case m.Watch() | m.Rejoin():
            return "views"
        case m.ViewAt():
            return "replay_views"
        case m.ListGames():
            return "game_lists"
        case m.CreateGame():
            return "creates"
        case m.JoinGame() | m.FindGame():
            return "joins"
        case m.Chat():
            return "chat"
    return None


@dataclass(frozen=True, slots=True)
class Answer:
    """A message the session answers the connection with itself; nothing to route."""

    message: m.Error | m.Welcome | m.Pong


@dataclass(frozen=True, slots=True)
class JoinByInvite:
    """A ``join_game`` that names no game: route it by ``invite``, the code as given,
    stripped and in capitals (empty when the message had none)."""

    invite: str
    message: m.JoinGame


GameMessage = m.JoinGame | m.Rejoin | m.Watch | m.Leave | m.StartGame | m.Act | m.Chat | m.ViewAt
"""A client message for one game's room."""


@dataclass(frozen=True, slots=True)
class ForGame:
    """A message for the room of game ``game``."""

    game: str
    message: GameMessage


Request = m.ListGames | m.CreateGame | m.GetRecord | m.FindGame | JoinByInvite | ForGame
"""What a greeted connection asks of the server: the lobby's four requests as decoded (a
``find_game``'s code stripped and in capitals), a
join by invite, or a message for one game."""


def frame_bytes(frame: Frame, limit: int = MAX_FRAME) -> int:
    """A frame's size in bytes, a text frame's as UTF-8 (what came over the wire). A text
    frame of more than ``limit`` characters is over the limit whatever its encoding; its
    length in characters is returned without encoding it."""
    if isinstance(frame, bytes):
        return len(frame)
    if len(frame) > limit:  # at least one byte a character: too large already
        return len(frame)
    return len(frame.encode("utf-8", errors="surrogatepass"))


class ServerSession:
    """The rules of one client connection, as the server applies them.

    Built with the connection's subprotocol (None for the default, msgpack) or its
    :class:`Codec`, a clock, the name the welcome gives, and the connection's limits. The
    rate budget starts full at the time of construction.
    """

    def __init__(
        self,
        codec: Codec | str | None = None,
        *,
        clock: Clock,
        server_name: str,
        limits: Limits = Limits(),
        budgets: Budgets = Budgets(),
        shared: Allowance | None = None,
    ) -> None:
        """``budgets`` are this connection's own; ``shared`` is the allowance of every
        connection from its address (None: none). Raises :class:`ValueError` for a
        subprotocol this protocol does not have."""
        self.codec = codec if isinstance(codec, Codec) else Codec(codec)
        self.limits = limits
        self.allowance = Allowance(budgets, clock)
        self.shared = shared
        self.server_name = server_name
        self.greeted = False
        """Whether a hello of a supported version has been answered with a welcome."""
        self.views = False
        """Whether the last accepted hello asked for views with every prompt."""
        self.event_views = False
        """Whether the last accepted hello asked for views with every ``events``."""
        self._clock = clock
        self._refusals: dict[tuple[str, str, str | None], m.Error] = {}
        """The budgets' refusals made lately, given again as the same objects (a sender
        keeps their encoding)."""
        self._tokens = limits.burst
        self._last = clock()

    @property
    def subprotocol(self) -> str:
        return self.codec.subprotocol

    def receive(self, frame: Frame) -> Answer | Request:
        """Take one frame. Every frame spends one message of the rate budget, then must fit
        the size limit, decode, and (unless it is a hello) follow a welcome; a frame that
        breaks a rule is answered with the ``error`` saying which (``rate_limited``,
        ``too_large``, the codec's code, ``unsupported_version``, ``hello_first``) and
        changes nothing else. A hello is answered with the welcome, a ping with its pong;
        anything else is returned as a :class:`Request` for the server to route."""
        if not self._spend():
            return _refuse(ErrorCode.RATE_LIMITED, "too many messages; slow down")
        limit = self.limits.max_frame
        if frame_bytes(frame, limit) > limit:
            return _refuse(ErrorCode.TOO_LARGE, f"frames are limited to {limit} bytes")
        try:
            message = self.codec.decode_client(frame)
        except ProtocolError as exc:
            return Answer(exc.to_message())
        if isinstance(message, m.Hello):
            return self._hello(message)
        if not self.greeted:
            return _refuse(ErrorCode.HELLO_FIRST, "say hello first")
        if type(message) is m.Act:  # the commonest message, which spends no budget
            return ForGame(game=message.game, message=message)
        budget = budget_of(message)
        if budget is not None:
            refusal = self.charge(budget, getattr(message, "game", None))
            if refusal is not None:
                return Answer(refusal)
        match message:
            case m.Ping(nonce=nonce):
                return Answer(m.Pong(nonce=nonce))
            case m.ListGames() | m.CreateGame() | m.GetRecord():
                return message
            case m.FindGame():
                return m.FindGame(invite=message.invite.strip().upper())
            case m.JoinGame(game=None):
                return JoinByInvite(invite=(message.invite or "").strip().upper(), message=message)
            case _:
                return ForGame(game=message.game, message=message)

    def backoff(self) -> float:
        """Seconds until the message rate has refilled a tenth of its burst (at least one
        message; 0 when it holds that now). A server that waits this long after a
        ``rate_limited`` before reading on makes a flood wait in its own socket, at no cost
        to anyone else, and refuses one frame in a tenth of a burst rather than most."""
        rate = self.limits.rate
        now = self._clock()
        tokens = min(self.limits.burst, self._tokens + (now - self._last) * rate)
        target = max(1.0, self.limits.burst / 10)
        return 0.0 if tokens >= target else (target - tokens) / rate

    def encode(self, message: WireModel) -> Frame:
        """The frame for a message to this connection, in its encoding."""
        return self.codec.encode(message)

    def _hello(self, hello: m.Hello) -> Answer:
        if hello.protocol not in SUPPORTED_VERSIONS:
            return _refuse(
                ErrorCode.UNSUPPORTED_VERSION,
                f"this server speaks protocol {sorted(SUPPORTED_VERSIONS)}, not {hello.protocol}",
            )
        self.greeted = True
        self.views = hello.views
        self.event_views = hello.event_views
        return Answer(m.Welcome(protocol=PROTOCOL_VERSION, server=self.server_name))

    def charge(self, name: str, game: str | None = None) -> m.Error | None:
        """Spend one request of budget ``name`` from the connection's allowance and its
        address's; the refusal (spending nothing) when either has none left. The session
        charges each message's own budget (:func:`budget_of`) itself; the server charges
        those it learns a request needs only once it looks (``reopens``, ``boards``)."""
        for allowance, whose in ((self.allowance, "one connection"), (self.shared, "one address")):
            if allowance is not None and allowance.available(name) < 1:
                key = (name, whose, game)
                refusal = self._refusals.get(key)
                if refusal is None:  # made once: a flood of one request is refused alike
                    if len(self._refusals) >= REFUSALS_KEPT:
                        self._refusals.clear()
                    rate: Rate = getattr(allowance.budgets, name)
                    refusal = self._refusals[key] = m.Error(
                        code=ErrorCode.LIMIT_REACHED,
                        message=f"too many {_SAYS[name]}: {rate.per_minute:g} a minute "
                        f"from {whose}, {rate.burst:g} at once (limit {name}); wait and "
                        "try again",
                        detail=name,
                        game=game,
                    )
                return refusal
        self.allowance.spend(name)
        if self.shared is not None:
            self.shared.spend(name)
        return None

    def _spend(self) -> bool:
        """Spend one message of the rate budget, refilled at ``rate`` a second up to
        ``burst``; False (and nothing spent) when less than one message is left."""
        now = self._clock()
        self._tokens = min(self.limits.burst, self._tokens + (now - self._last) * self.limits.rate)
        self._last = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True


def _refuse(code: ErrorCode, sentence: str) -> Answer:
    return Answer(m.Error(code=code, message=sentence))
