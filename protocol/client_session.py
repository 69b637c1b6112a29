"""A client's side of a connection, sans-I/O: frames in, messages and frames out.

A :class:`ClientSession` holds the rules a client follows to take its place in a game: the
``hello`` first (with the protocol version), then, once welcomed, the request for its
place (a :data:`Goal`: join by game id or invite code, resume a seat with its token, watch,
or create a game and sit in it or watch it), and on every new connection after a loss the
same place again: the seat by its token, or the watch. It decodes what the server sends,
keeps what it learned (game, seat, token, host, the game it created) and tells a refusal
that ends the attempt (:data:`NO_SEAT`) from an error that does not.

The SDK, the terminal client and the arena drive one each: they open connections, move
frames, and decide whether to connect again after a loss. Nothing here does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, assert_never

from protocol import messages as m
from protocol.codec import Codec, Frame
from protocol.messages import PROTOCOL_VERSION, SUBPROTOCOL_MSGPACK, ErrorCode
from protocol.payloads import WireModel

NO_SEAT: Final = frozenset(
    {
        ErrorCode.UNSUPPORTED_VERSION,
        ErrorCode.UNKNOWN_GAME,
        ErrorCode.BAD_TOKEN,
        ErrorCode.SEAT_TAKEN,
        ErrorCode.GAME_FULL,
        ErrorCode.INVITE_REQUIRED,
        ErrorCode.ALREADY_STARTED,
    }
)
"""The error codes that mean the place asked for cannot be had: answering a seat request
(join, rejoin, watch), they end the attempt, since asking again would be refused again."""


def is_no_seat(error: m.Error) -> bool:
    """Whether ``error``, answering a seat request, means the place cannot be had."""
    return error.code in NO_SEAT


def is_between_servers(error: m.Error | None) -> bool:
    """Whether a refused seat request says the game's server stopped and another takes it
    over in a moment (``unknown_game``, ``detail`` ``moving``): asking again is worth it."""
    return error is not None and error.code == ErrorCode.UNKNOWN_GAME and error.detail == "moving"


@dataclass(frozen=True, slots=True)
class JoinSeat:
    """Take a seat under ``name``, in game ``game`` or by ``invite`` code (the invite wins
    when both are given). With ``invite_or_game``, an invite code the server does not know
    (``unknown_game``) is tried once more as a game id."""

    name: str
    game: str | None = None
    invite: str | None = None
    invite_or_game: bool = False

    def __post_init__(self) -> None:
        """Raises :class:`ValueError` when neither a game nor an invite code is given."""
        if not self.game and not self.invite:
            raise ValueError("a join names a game or an invite code")


@dataclass(frozen=True, slots=True)
class ResumeSeat:
    """Come back to the seat of ``token`` in game ``game``."""

    game: str
    token: str


@dataclass(frozen=True, slots=True)
class WatchGame:
    """Follow game ``game`` as a spectator."""

    game: str


@dataclass(frozen=True, slots=True)
class NewGame:
    """Create a game with ``options``, then take a seat in it under ``name`` (None: watch
    it instead). With ``start``, start it as soon as the place is taken."""

    options: m.GameOptions
    name: str | None = None
    start: bool = False


Goal = JoinSeat | ResumeSeat | WatchGame | NewGame
"""The place a client wants in a game."""


class Phase(StrEnum):
    """Where a session is on its current connection."""

    CLOSED = "closed"
    """No connection (none yet, or the last was lost)."""
    GREETING = "greeting"
    """``hello`` sent; waiting for ``welcome``."""
    CREATING = "creating"
    """``create_game`` sent; waiting for ``game_created``."""
    SEATING = "seating"
    """The seat request (join, rejoin or watch) sent; waiting for ``joined``."""
    SEATED = "seated"
    """``joined`` received: the place is taken on this connection."""
    REFUSED = "refused"
    """The server refused the place (:attr:`ClientSession.refusal`); nothing more to ask
    on this connection."""


@dataclass(frozen=True, slots=True)
class Received:
    """What one received frame comes to: the ``message`` for the client (None for a type
    this client does not know, or an answer the session took care of itself), and the
    frames to ``send`` now, in order."""

    message: Any | None
    send: tuple[Frame, ...] = ()


class ClientSession:
    """The rules of a client's connections for one place in one game.

    Built with the :data:`Goal`, the ``client`` name the hello gives, the subprotocol to
    offer, whether prompts should carry ``views``, whether ``events`` should carry them
    (``event_views``), and whether a rejoin or a watch asks for
    the ``history`` so far. The session lives across connections: call :meth:`connect` for
    each new one, :meth:`receive` for each frame, :meth:`connection_lost` when it ends.
    """

    def __init__(
        self,
        goal: Goal,
        *,
        client: str,
        subprotocol: str = SUBPROTOCOL_MSGPACK,
        views: bool = False,
        event_views: bool = False,
        history: bool = False,
    ) -> None:
        """Raises :class:`ValueError` for a subprotocol this protocol does not have."""
        self.goal = goal
        self.client = client
        self.codec = Codec(subprotocol)
        self.subprotocol = subprotocol
        """The subprotocol to offer when connecting."""
        self.views = views
        self.event_views = event_views
        self.history = history
        self.phase = Phase.CLOSED
        self.game: str | None = None
        """The game, once known: from the goal, the game created, or ``joined``."""
        self.seat: int | None = None
        """The seat taken (None: none yet, or watching)."""
        self.token: str | None = None
        """The seat's token, the seat itself: a new connection rejoins with it."""
        self.host = False
        """Whether the last ``joined`` said this connection may start the game."""
        self.created: m.GameCreated | None = None
        """The game this session created (a :class:`NewGame` goal)."""
        self.refusal: m.Error | None = None
        """The error that ended the attempt on the last connection, if one did."""
        self._asked: m.JoinGame | m.Rejoin | m.Watch | None = None
        self._fell_back = False
        self._start_pending = False
        match goal:
            case ResumeSeat(game=game, token=token):
                self.game, self.token = game, token
            case WatchGame(game=game):
                self.game = game
            case JoinSeat(game=game, invite=None):
                self.game = game

    @property
    def is_seated(self) -> bool:
        """Whether the place is taken on the current connection."""
        return self.phase is Phase.SEATED

    @property
    def is_refused(self) -> bool:
        """Whether the server refused the place on the last connection."""
        return self.refusal is not None

    def connect(self, subprotocol: str | None = None) -> list[Frame]:
        """A new connection is open, speaking ``subprotocol`` (None: the one offered): the
        frames to send first (the hello). What the session learned before is kept, so the
        seat request that follows the welcome resumes the seat by its token, or watches
        again. Raises :class:`ValueError` for a subprotocol this protocol does not have."""
        self.codec = Codec(subprotocol or self.subprotocol)
        self.phase = Phase.GREETING
        self.refusal = None
        self._asked = None
        self._fell_back = False
        hello = m.Hello(
            protocol=PROTOCOL_VERSION,
            client=self.client,
            views=self.views,
            event_views=self.event_views,
        )
        return [self.codec.encode(hello)]

    def connection_lost(self) -> None:
        """The current connection is gone; :attr:`refusal` stays readable until the next
        :meth:`connect`."""
        self.phase = Phase.CLOSED
        self._asked = None

    def encode(self, message: WireModel) -> Frame:
        """The frame for a message of the client's own (an act, a chat line, a start)."""
        return self.codec.encode(message)

    def receive(self, frame: Frame) -> Received:
        """Take one frame from the server. A ``welcome`` is followed by the seat request
        (or the ``create_game``), a ``game_created`` by the seat request for that game, a
        ``joined`` is noted (game, seat, token, host) and, for a :class:`NewGame` with
        ``start``, followed by ``start_game``. Before the place is taken, a refused hello
        or ``create_game`` ends the attempt whatever its code, a refused seat request when
        its code is in :data:`NO_SEAT` (an unknown invite code is first tried as a game id
        when the goal allows it), and so does ``moved`` (:attr:`moved_to`); other errors change
        nothing. A message of a type this
        client does not know is dropped. Raises
        :class:`~protocol.codec.ProtocolError` for a frame that is no server message."""
        message = self.codec.read_server(frame)
        if message is None:
            return Received(None)
        send: list[WireModel] = []
        match message:
            case m.Welcome() if self.phase is Phase.GREETING:
                send.append(self._request())
            case m.GameCreated() if self.phase is Phase.CREATING:
                self.created = message
                self.game = message.game
                self._start_pending = isinstance(self.goal, NewGame) and self.goal.start
                send.append(self._request())
            case m.Joined():
                self._joined(message, send)
            case m.Error() if self.phase in (Phase.GREETING, Phase.CREATING):
                self._refused(message)
            case m.Error() if self.phase is Phase.SEATING:
                retry = self._invite_as_game(message)
                if retry is not None:
                    self._asked = retry
                    return Received(None, (self.codec.encode(retry),))
                if is_no_seat(message) or message.code == ErrorCode.MOVED:
                    self._refused(message)
        return Received(message, tuple(self.codec.encode(s) for s in send))

    def _request(self) -> WireModel:
        """The next request once welcomed: the seat request, or the game to create first."""
        created, history = self.created, self.history
        request: m.JoinGame | m.Rejoin | m.Watch
        match self.goal:
            case _ if self.token is not None and self.game is not None:
                request = m.Rejoin(game=self.game, token=self.token, history=history)
            case ResumeSeat(game=game, token=token):
                request = m.Rejoin(game=game, token=token, history=history)
            case WatchGame(game=game):
                request = m.Watch(game=game, history=history)
            case NewGame(options=options) if created is None:
                self.phase = Phase.CREATING
                return m.CreateGame(options=options)
            case NewGame(name=name):
                assert created is not None
                if name is None:
                    request = m.Watch(game=created.game, history=history)
                else:
                    request = m.JoinGame(game=created.game, invite=created.invite, name=name)
            case JoinSeat(name=name, invite=str(invite)) if invite:
                request = m.JoinGame(invite=invite, name=name)
            case JoinSeat(name=name, game=game):
                request = m.JoinGame(game=game, name=name)
            case unreachable:
                assert_never(unreachable)
        self.phase = Phase.SEATING
        self._asked = request
        return request

    def _invite_as_game(self, error: m.Error) -> m.JoinGame | None:
        """The join by game id to try when ``error`` says the invite code asked with is
        unknown and the goal allows it (once a connection); else None."""
        asked, goal = self._asked, self.goal
        if (
            error.code != ErrorCode.UNKNOWN_GAME
            or self._fell_back
            or not isinstance(goal, JoinSeat)
            or not goal.invite_or_game
            or not isinstance(asked, m.JoinGame)
            or asked.invite is None
        ):
            return None
        self._fell_back = True
        return m.JoinGame(game=asked.invite, name=asked.name)

    def _joined(self, joined: m.Joined, send: list[WireModel]) -> None:
        self.game, self.seat, self.host = joined.game, joined.seat, joined.host
        if joined.token is not None:
            self.token = joined.token
        if self.phase in (Phase.SEATING, Phase.SEATED):
            self.phase = Phase.SEATED
        if self._start_pending:
            self._start_pending = False
            send.append(m.StartGame(game=joined.game))

    def _refused(self, error: m.Error) -> None:
        self.phase = Phase.REFUSED
        self.refusal = error

    @property
    def moved_to(self) -> str | None:
        """The URL of the server that plays the game, when the last refusal said the game
        is played there (``moved``): connect there and ask again."""
        refusal = self.refusal
        if refusal is None or refusal.code != ErrorCode.MOVED or not refusal.detail:
            return None
        return refusal.detail
