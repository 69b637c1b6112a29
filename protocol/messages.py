"""Every message of the Hexhaven protocol, one pydantic model each, discriminated on ``type``.

A session: the client sends ``hello`` with the protocol version; the server answers
``welcome`` (or an ``error`` with code ``unsupported_version``). In the lobby the client lists,
creates, joins (receiving its secret seat ``token``), rejoins with a token, or watches games.
In a game the server sends the full ``view`` on joining or reconnecting, ``events`` as they
happen (each recipient gets the form it is entitled to), and a ``prompt`` to every seat that
must act, with the legal actions and the ``state_id`` they are valid for; the seat answers
with ``act``. Domestic trading is acts too (offer, accept, decline, counter, confirm, cancel).
``game_over`` reveals the seed. Anything refused gets an ``error`` with a stable code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import StrEnum
from typing import Annotated, Any, Literal, cast, get_args

from pydantic import AfterValidator, Field

from protocol.payloads import ActionPayload, BoardPayload, EventPayload, ViewPayload, WireModel

PROTOCOL_VERSION = 1
SUPPORTED_VERSIONS = frozenset({1})
SUBPROTOCOL_MSGPACK = "hexhaven.v1.msgpack"
SUBPROTOCOL_JSON = "hexhaven.v1.json"
SUBPROTOCOLS = (SUBPROTOCOL_MSGPACK, SUBPROTOCOL_JSON)
"""Offered in this order: msgpack in binary frames is the default, JSON in text frames."""

GameId = Annotated[str, Field(min_length=1, max_length=64)]
Token = Annotated[str, Field(min_length=1, max_length=128)]
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
"""Terminal escape sequences: CSI (colours, cursor moves), OSC (titles, links), and the
two-character ones."""
_UNSEEN = dict.fromkeys(
    [
        *range(0x00, 0x20),
        0x7F,
        *range(0x80, 0xA0),
        0x061C,
        0x200E,
        0x200F,
        *range(0x202A, 0x202F),
        *range(0x2066, 0x206A),
    ]
)
"""Control characters (NUL, escape, C1...) and the marks and overrides of bidirectional
text: stripped from what people type, so no one can recolour, move or reverse another's
screen."""


def strip_controls(text: str) -> str:
    """``text`` without terminal escape sequences, control characters and bidirectional
    overrides; a newline or tab becomes a space. Raises ValueError when nothing is left."""
    cleaned = _ANSI.sub("", text).replace("\n", " ").replace("\t", " ").translate(_UNSEEN)
    if not cleaned.strip():
        raise ValueError("has nothing to show once control characters are taken out")
    return cleaned


Name = Annotated[str, Field(min_length=1, max_length=32), AfterValidator(strip_controls)]
SeatNo = Annotated[int, Field(ge=0, le=3)]


def same_name(a: str, b: str) -> bool:
    """Whether two names read alike: the same letters, case and runs of spaces aside."""
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def unique_name(name: str, taken: Iterable[str]) -> str:
    """``name`` without spaces around it, or when a name in ``taken`` reads alike
    (:func:`same_name`), that with the first free number after it: ``"Ana (2)"``, cut to
    fit 32 characters. The server names each seat of a game this way, so no two seats of a
    game read alike."""
    others = list(taken)
    name = name.strip() or name
    if not any(same_name(name, t) for t in others):
        return name
    number = 2
    while True:
        suffix = f" ({number})"
        candidate = name[: 32 - len(suffix)].rstrip() + suffix
        if not any(same_name(candidate, t) for t in others):
            return candidate
        number += 1


class ErrorCode(StrEnum):
    """Stable error codes; the message beside one says what to do about it."""

    BAD_FRAME = "bad_frame"  # not decodable in the connection's encoding
    BAD_MESSAGE = "bad_message"  # decodable, but not the shape of any message
    UNKNOWN_TYPE = "unknown_type"  # no message has this ``type``
    UNSUPPORTED_VERSION = "unsupported_version"
    HELLO_FIRST = "hello_first"  # anything before the handshake
    UNKNOWN_GAME = "unknown_game"
    BAD_TOKEN = "bad_token"
    SEAT_TAKEN = "seat_taken"
    INVITE_REQUIRED = "invite_required"  # a private game seats only holders of its invite code
    GAME_FULL = "game_full"
    NOT_A_PLAYER = "not_a_player"  # a spectator or a stranger acting
    NOT_HOST = "not_host"
    ALREADY_STARTED = "already_started"
    NOT_STARTED = "not_started"
    STALE_STATE = "stale_state"  # the action names an old state_id
    ILLEGAL_ACTION = "illegal_action"  # ``detail`` holds the engine's reason code
    BAD_OPTIONS = "bad_options"
    TOO_LARGE = "too_large"
    RATE_LIMITED = "rate_limited"
    GAME_NOT_OVER = "game_not_over"  # a game's record is public only once it is over
    LIMIT_REACHED = "limit_reached"  # a budget or a cap of the server; ``detail`` names it
    MOVED = "moved"  # another server process plays the game; ``detail`` is its URL
    INTERNAL = "internal"


# ======================================================================================
# Client -> server
# ======================================================================================


class Hello(WireModel):
    """Opens a session. ``protocol`` is the version the client speaks; with ``views`` every
    prompt to this connection also carries the seat's current view (handy for programs);
    with ``event_views`` every ``events`` message carries the recipient's view after them
    (for clients that draw the game rather than keep it from the events)."""

    type: Literal["hello"] = "hello"
    protocol: int
    client: Annotated[str, Field(max_length=64)] = ""
    views: bool = False
    event_views: bool = False


BOT_KINDS: dict[str, tuple[str, ...]] = {
    "random": (),
    "heuristic": (),
    "uct": ("easy", "quick", "medium", "hard"),
    "expert": ("expert", "fast", "pure"),
}
"""The bot kinds a server launches for empty seats, with the strengths each offers (the
``uct`` search bot, and the ``expert`` bot's learned value network searched; docs/bots.md
describes each strength)."""


class BotSeat(WireModel):
    """A seat to fill with a bot: its kind and strength (bot-defined, e.g. ``"medium"``)."""

    kind: Annotated[str, Field(min_length=1, max_length=32)] = "heuristic"
    strength: Annotated[str, Field(max_length=32)] | None = None


class BalanceRules(WireModel):
    """The constraints of a ``balanced`` board (docs/boards.md). ``separate_brick_lumber``
    null means the radius's default (kept on the standard island only); null bounds are no
    bound. 6 and 8 are always kept apart."""

    separate_terrain: bool = True
    separate_brick_lumber: bool | None = None
    spread_reds: bool = True
    distinct_tokens: bool = True
    max_pips: Annotated[int, Field(ge=1, le=20)] | None = 11
    min_pips: Annotated[int, Field(ge=1, le=20)] | None = None
    max_token_sum: Annotated[int, Field(ge=3, le=40)] | None = None


BoardKind = Literal["random", "spiral", "balanced", "fair", "preset", "layout"]


OFFER_WINDOW = 20.0
"""Seconds the seats asked by an offer have to answer it, unless a game's options say."""


class GameOptions(WireModel):
    """How a new game is set up.

    ``board``: ``random`` (the official random set-up), ``spiral`` (the rulebook's variable
    set-up), ``balanced`` (a constraint model's board keeping ``balance``), ``fair`` (a random
    set-up whose simulated-placement fairness reaches ``min_fairness``), ``preset`` (the
    shipped board named ``preset``) or ``layout`` (the board given in ``layout``). The server
    fills ``layout`` in for ``balanced``, ``fair`` and ``preset`` when it creates the game, so
    a stored game always carries its board.

    ``setup_edition`` is how a ``random`` or ``spiral`` board is dealt from the game's seed:
    the server sets 2 (numbers drawn uniformly over the legal layouts, harbours on the
    printed frame's slots) on every game it creates; a game without it (stored before) has
    the first edition (6s and 8s laid first-fit, harbours on the evenly spaced slots).
    """

    players: Annotated[int, Field(ge=2, le=4)] = 4
    victory_points: Annotated[int, Field(ge=3, le=20)] = 10
    board: BoardKind = "random"
    radius: Annotated[int, Field(ge=3, le=8)] = 3
    balance: BalanceRules | None = None
    """Constraints of a ``balanced`` board; null for the defaults."""
    min_fairness: Annotated[float, Field(ge=0, le=0.99)] | None = None
    """The fairness a ``fair`` board reaches; null for the server's default (0.95)."""
    preset: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    layout: BoardPayload | None = None
    turn_timer: Annotated[float, Field(gt=0, le=3600)] | None = None
    """Seconds each seat has to act; null for no timer."""
    offer_window: Annotated[float, Field(ge=5, le=600)] = OFFER_WINDOW
    """Seconds the seats asked by a domestic offer have to answer it; one who has not
    answered when it closes has declined (so an offer never stops the game)."""
    bots: list[BotSeat] = Field(default_factory=list)
    """Seats filled with bots when the game starts (at most players - 1)."""
    private: bool = False
    """Private games are joined by invite code and not listed in the lobby."""
    spectator_chat: bool = False
    """Whether spectators may chat in the game (players always may)."""
    name: Annotated[str, Field(max_length=64)] = ""
    setup_edition: Literal[1, 2] = 1


class ListGames(WireModel):
    """Ask for the public games, oldest first, a page at a time: at most ``limit`` games
    after ``after`` (the ``next`` of the page before; none: from the first)."""

    type: Literal["list_games"] = "list_games"
    after: Annotated[int, Field(ge=0)] | None = None
    limit: Annotated[int, Field(ge=1, le=100)] = 50


class CreateGame(WireModel):
    type: Literal["create_game"] = "create_game"
    options: GameOptions = GameOptions()


class JoinGame(WireModel):
    """Take a seat (the lowest free one unless ``seat`` is given), by game id or invite."""

    type: Literal["join_game"] = "join_game"
    game: GameId | None = None
    invite: Annotated[str, Field(min_length=1, max_length=32)] | None = None
    seat: SeatNo | None = None
    name: Name


class Rejoin(WireModel):
    """Resume a seat with its token, from any connection. With ``history``, the events so
    far follow the view (``history``), in this seat's form."""

    type: Literal["rejoin"] = "rejoin"
    game: GameId
    token: Token
    history: bool = False


class Watch(WireModel):
    """Follow a game as a spectator. With ``history``, the events so far follow the view
    (``history``), in a spectator's form."""

    type: Literal["watch"] = "watch"
    game: GameId
    history: bool = False


class Leave(WireModel):
    type: Literal["leave"] = "leave"
    game: GameId


class StartGame(WireModel):
    """The host starts the game; the seats still empty go to the game's bots (refused while
    more seats are empty than the game has bots)."""

    type: Literal["start_game"] = "start_game"
    game: GameId


class Act(WireModel):
    """Take an action for your seat, chosen for the state ``state_id``."""

    type: Literal["act"] = "act"
    game: GameId
    state_id: Annotated[int, Field(ge=0)]
    action: ActionPayload


class Chat(WireModel):
    """A line for everyone at the game (spectators may chat where the host allowed it);
    terminal escapes, control characters and bidirectional overrides are taken out."""

    type: Literal["chat"] = "chat"
    game: GameId
    text: Annotated[str, Field(min_length=1, max_length=500), AfterValidator(strip_controls)]


class Ping(WireModel):
    type: Literal["ping"] = "ping"
    nonce: Annotated[int, Field(ge=0, le=2**53)] = 0


class GetRecord(WireModel):
    """Ask for a finished game's record (``game_record``), to replay it. Refused with
    ``unknown_game``, or ``game_not_over`` while it is played (or if it was abandoned)."""

    type: Literal["get_record"] = "get_record"
    game: GameId


class FindGame(WireModel):
    """Ask what game an invite code opens, before taking a seat in it: answered with
    ``game_found`` (its id and its lobby summary: whether it has started, how many seats are
    taken), or ``unknown_game`` for a code no game has. A guess at a code costs one of the
    ``joins`` budget, as a ``join_game`` by code does."""

    type: Literal["find_game"] = "find_game"
    invite: Annotated[str, Field(min_length=1, max_length=32)]


class ViewAt(WireModel):
    """Ask for the game as this connection's seat saw it (a spectator: as the spectators
    did) at state ``state_id`` of a finished game, to replay it: answered with a ``view``.
    Refused with ``game_not_over`` while the game is played, ``not_a_player`` from a
    connection that neither sits in the game nor watches it, and ``bad_message`` for a
    state the game never reached."""

    type: Literal["view_at"] = "view_at"
    game: GameId
    state_id: Annotated[int, Field(ge=0)]


ClientMessage = Annotated[
    Hello
    | ListGames
    | CreateGame
    | JoinGame
    | Rejoin
    | Watch
    | Leave
    | StartGame
    | Act
    | Chat
    | Ping
    | GetRecord
    | ViewAt
    | FindGame,
    Field(discriminator="type"),
]


# ======================================================================================
# Server -> client
# ======================================================================================


class Welcome(WireModel):
    type: Literal["welcome"] = "welcome"
    protocol: int
    server: str


class GameSummary(WireModel):
    """A game in the lobby list."""

    game: GameId
    name: str
    players: int
    seated: int
    victory_points: int
    board: str
    started: bool


class GameList(WireModel):
    """A page of the public games; ``next`` is the ``after`` of the next page, or null on
    the last."""

    type: Literal["game_list"] = "game_list"
    games: list[GameSummary]
    next: int | None = None


class GameCreated(WireModel):
    """A new game: its id, the invite code for private games, and the SHA-256 of its seed
    (revealed at the end, so anyone can check the dice)."""

    type: Literal["game_created"] = "game_created"
    game: GameId
    invite: str | None
    seed_hash: str


class Joined(WireModel):
    """Your place in a game: a seat with its secret token, or a spectator (both null).
    Keep the token: it is the seat, and ``rejoin`` takes it back from any connection.
    ``seed_hash`` is the hash published at creation, which the seed at the end must match.
    ``host``: this connection may start the game (the game has not started yet).
    ``invite``: a private game's invite code, to a seat (its holders may invite others)."""

    type: Literal["joined"] = "joined"
    game: GameId
    seat: SeatNo | None
    token: Token | None
    seed_hash: str | None = None
    host: bool = False
    invite: str | None = None


class PlayerInfo(WireModel):
    """Who sits where."""

    seat: SeatNo
    name: str
    bot: bool
    connected: bool
    away: bool
    """Timed out or disconnected: a bot plays the seat until its owner comes back."""


class Players(WireModel):
    """Who sits where, and whether the game has started (a lobby has not)."""

    type: Literal["players"] = "players"
    game: GameId
    players: list[PlayerInfo]
    started: bool = False


class GameView(WireModel):
    """The full view of the game for the recipient (on joining, reconnecting, starting)."""

    type: Literal["view"] = "view"
    game: GameId
    view: ViewPayload


class Events(WireModel):
    """What the last action caused, in order, in the recipient's form; the game is now at
    ``state_id``."""

    type: Literal["events"] = "events"
    game: GameId
    state_id: int
    events: list[EventPayload]
    view: ViewPayload | None = None
    """The recipient's view at ``state_id``, after these events, for connections that
    asked for it in ``hello`` (``event_views``)."""


class Prompt(WireModel):
    """Your seat must act: the listed actions are legal at ``state_id`` (domestic offers and
    counter-offers are not listed but may be sent). ``deadline`` is seconds left, or null."""

    type: Literal["prompt"] = "prompt"
    game: GameId
    state_id: int
    seat: SeatNo
    actions: list[ActionPayload]
    deadline: float | None = None
    view: ViewPayload | None = None
    """The seat's view at ``state_id``, for connections that asked for it in ``hello``."""


class ChatMessage(WireModel):
    type: Literal["chat_message"] = "chat_message"
    game: GameId
    seat: SeatNo | None
    name: str
    text: str


class GameOver(WireModel):
    """The end: final points (hidden victory cards included), the winner, and the seed the
    game was played with, which hashes to the ``seed_hash`` published at creation."""

    type: Literal["game_over"] = "game_over"
    game: GameId
    winner: SeatNo | None
    points: list[int]
    seed: int


class Error(WireModel):
    """A refusal: ``code`` is stable, ``message`` says what to do; ``detail`` refines the
    code (the engine's reason for an illegal action); ``game`` is the game the refused
    message named, when it named one the server could tell (for a client in several)."""

    type: Literal["error"] = "error"
    code: Annotated[ErrorCode, Field(strict=False)]  # a code string on the wire
    message: str
    detail: str | None = None
    game: str | None = None


class Pong(WireModel):
    type: Literal["pong"] = "pong"
    nonce: int = 0


class HistoryBatch(WireModel):
    """The events of one past action, in the recipient's form; the game was then at
    ``state_id``."""

    state_id: int
    events: list[EventPayload]


class ChatAt(WireModel):
    """A chat line said when the game was at ``state_id``."""

    state_id: int
    seat: SeatNo | None
    name: str
    text: str


class History(WireModel):
    """The game so far, for a connection that rejoined or watches with ``history``: the
    events of every action up to the view just sent, oldest first, in the recipient's form
    (what it would have received as ``events``), and (in the first) the chat of this
    server's run. A long game comes in several messages; ``more`` says another follows."""

    type: Literal["history"] = "history"
    game: GameId
    batches: list[HistoryBatch]
    chat: list[ChatAt] = Field(default_factory=list)
    more: bool = False


class SeatClock(WireModel):
    seat: SeatNo
    left: float
    """Seconds the seat had left to act when the ``clock`` was sent."""


class Clock(WireModel):
    """Sent to everyone at each prompt of a game with a turn timer: the seats that must
    act at ``state_id`` and the time each has left."""

    type: Literal["clock"] = "clock"
    game: GameId
    state_id: int
    seats: list[SeatClock]


class SeatRecord(WireModel):
    """Who played a seat: their name, and whether a bot played it."""

    seat: SeatNo
    name: str
    bot: bool


class RecordedAction(WireModel):
    """One action of a game's record, with the seat that took it."""

    seat: SeatNo
    action: ActionPayload


class GameFound(WireModel):
    """The game an invite code opens (after ``find_game``): its id and its summary."""

    type: Literal["game_found"] = "game_found"
    game: GameId
    summary: GameSummary


class GameRecord(WireModel):
    """A finished game, all anyone needs to replay it: its options (with its board), the
    seed (which hashes to ``seed_hash``), the seats and every action in order."""

    type: Literal["game_record"] = "game_record"
    game: GameId
    options: GameOptions
    seed: int
    seed_hash: str
    seats: list[SeatRecord]
    actions: list[RecordedAction]
    winner: SeatNo | None
    points: list[int]


ServerMessage = Annotated[
    Welcome
    | GameList
    | GameCreated
    | Joined
    | Players
    | GameView
    | Events
    | Prompt
    | ChatMessage
    | GameOver
    | Error
    | Pong
    | History
    | Clock
    | GameRecord
    | GameFound,
    Field(discriminator="type"),
]


def _members(union: Any) -> tuple[type[WireModel], ...]:
    """The message models of an ``Annotated`` union of them, in its order."""
    return cast(tuple[type[WireModel], ...], get_args(get_args(union)[0]))


CLIENT_MESSAGES = _members(ClientMessage)
"""Every message a client may send (the members of :data:`ClientMessage`)."""
SERVER_MESSAGES = _members(ServerMessage)
"""Every message a server may send (the members of :data:`ServerMessage`)."""
