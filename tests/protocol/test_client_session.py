"""The client session: taking a place in a game and taking it back, fed frames by hand
with no socket."""

from __future__ import annotations

import json
from typing import Any

import msgpack
import pytest

from protocol import PROTOCOL_VERSION, SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK, Codec, ErrorCode
from protocol import messages as m
from protocol.client_session import (
    NO_SEAT,
    ClientSession,
    Goal,
    JoinSeat,
    NewGame,
    Phase,
    Received,
    ResumeSeat,
    WatchGame,
)
from protocol.codec import Frame, ProtocolError
from protocol.payloads import WireModel

GAME = "g1"
TOKEN = "tok-1"
WIRE = Codec(SUBPROTOCOL_JSON)
WELCOME = m.Welcome(protocol=PROTOCOL_VERSION, server="test server")
OPTIONS = m.GameOptions(players=3, private=True)
CREATED = m.GameCreated(game=GAME, invite="ABC123", seed_hash="00")


def new_session(goal: Goal, *, history: bool = False, views: bool = False) -> ClientSession:
    return ClientSession(
        goal, client="test client", subprotocol=SUBPROTOCOL_JSON, views=views, history=history
    )


def sent(frames: Any) -> list[Any]:
    """The client messages in frames the session gave to send."""
    return [WIRE.decode_client(frame) for frame in frames]


def feed(session: ClientSession, message: WireModel) -> Received:
    return session.receive(WIRE.encode(message))


def joined(seat: int | None = 1, token: str | None = TOKEN, host: bool = False) -> m.Joined:
    return m.Joined(game=GAME, seat=seat, token=token, host=host)


def welcomed(session: ClientSession) -> list[Any]:
    """Open a connection and welcome it: what the session sent, the hello first."""
    hello = sent(session.connect())
    return hello + sent(feed(session, WELCOME).send)


def phase(session: ClientSession) -> Phase:
    """The session's phase, read afresh (a feed changes it)."""
    return session.phase


def seated(session: ClientSession, message: m.Joined | None = None) -> None:
    welcomed(session)
    if isinstance(session.goal, NewGame):
        feed(session, CREATED)
    feed(session, message or joined())
    assert session.is_seated


# --- the first connection -------------------------------------------------------------


def test_the_hello_goes_first_and_the_join_only_once_welcomed() -> None:
    session = new_session(JoinSeat(name="Ana", game=GAME), views=True)
    assert phase(session) is Phase.CLOSED
    assert sent(session.connect()) == [
        m.Hello(protocol=PROTOCOL_VERSION, client="test client", views=True)
    ]
    assert phase(session) is Phase.GREETING
    received = feed(session, WELCOME)
    assert received.message == WELCOME  # passed on: the client may show the server's name
    assert sent(received.send) == [m.JoinGame(game=GAME, name="Ana")]
    assert session.phase is Phase.SEATING and not session.is_seated


def test_a_join_by_invite_asks_by_the_code() -> None:
    session = new_session(JoinSeat(name="Bo", game=GAME, invite="ABC123"))
    assert welcomed(session)[1:] == [m.JoinGame(invite="ABC123", name="Bo")]
    assert session.game is None  # known once joined


def test_joined_records_the_game_seat_token_and_host() -> None:
    session = new_session(JoinSeat(name="Bo", invite="ABC123"))
    welcomed(session)
    received = feed(session, joined(seat=2, host=True))
    assert received.message == joined(seat=2, host=True) and received.send == ()
    assert session.is_seated and session.phase is Phase.SEATED
    assert (session.game, session.seat, session.token, session.host) == (GAME, 2, TOKEN, True)
    assert session.refusal is None


def test_nothing_is_sent_before_the_welcome_whatever_comes() -> None:
    session = new_session(JoinSeat(name="Ana", game=GAME))
    session.connect()
    players = m.Players(game=GAME, players=[])
    assert feed(session, players) == Received(players)
    assert session.phase is Phase.GREETING


def test_a_resumed_seat_rejoins_with_its_token_from_the_first_connection() -> None:
    session = new_session(ResumeSeat(game=GAME, token=TOKEN), history=True)
    assert (session.game, session.token) == (GAME, TOKEN)
    assert welcomed(session)[1:] == [m.Rejoin(game=GAME, token=TOKEN, history=True)]


def test_a_watch_asks_to_watch_and_watches_again_after_a_loss() -> None:
    session = new_session(WatchGame(game=GAME), history=True)
    assert welcomed(session)[1:] == [m.Watch(game=GAME, history=True)]
    feed(session, joined(seat=None, token=None))
    assert session.is_seated and session.seat is None and session.token is None
    session.connection_lost()
    assert session.phase is Phase.CLOSED
    assert welcomed(session)[1:] == [m.Watch(game=GAME, history=True)]


# --- creating a game ------------------------------------------------------------------


def test_a_new_game_is_created_then_sat_in() -> None:
    session = new_session(NewGame(OPTIONS, name="Ana"))
    assert welcomed(session)[1:] == [m.CreateGame(options=OPTIONS)]
    assert session.phase is Phase.CREATING
    received = feed(session, CREATED)
    assert received.message == CREATED
    # With its invite code: the game is private, and a new connection is not its creator.
    assert sent(received.send) == [m.JoinGame(game=GAME, invite=CREATED.invite, name="Ana")]
    assert session.created == CREATED and session.game == GAME
    assert feed(session, joined(seat=0, host=True)).send == ()  # not asked to start it
    assert session.is_seated and session.host


def test_a_new_game_to_start_is_started_once_its_seat_is_taken() -> None:
    session = new_session(NewGame(OPTIONS, name="Ana", start=True))
    welcomed(session)
    feed(session, CREATED)
    assert sent(feed(session, joined(seat=0, host=True)).send) == [m.StartGame(game=GAME)]
    session.connection_lost()  # back with the token; the game is not started twice
    assert welcomed(session)[1:] == [m.Rejoin(game=GAME, token=TOKEN)]
    assert feed(session, joined(seat=0)).send == ()


def test_a_new_game_without_a_name_is_watched() -> None:
    """The arena's connection: it creates the game and follows it, seatless."""
    session = new_session(NewGame(OPTIONS))
    welcomed(session)
    assert sent(feed(session, CREATED).send) == [m.Watch(game=GAME)]


def test_a_game_created_but_not_yet_sat_in_is_joined_on_the_next_connection() -> None:
    session = new_session(NewGame(OPTIONS, name="Ana"))
    welcomed(session)
    feed(session, CREATED)
    session.connection_lost()
    # Not created again: joined, with the invite code it was given.
    assert welcomed(session)[1:] == [m.JoinGame(game=GAME, invite="ABC123", name="Ana")]


@pytest.mark.parametrize("code", [ErrorCode.BAD_OPTIONS, ErrorCode.RATE_LIMITED])
def test_a_refused_create_ends_the_attempt(code: ErrorCode) -> None:
    session = new_session(NewGame(OPTIONS, name="Ana"))
    welcomed(session)
    error = m.Error(code=code, message="no")
    assert feed(session, error) == Received(error)
    assert session.is_refused and session.refusal == error and session.created is None


# --- after a loss ---------------------------------------------------------------------


@pytest.mark.parametrize("history", [False, True])
def test_a_new_connection_asks_for_the_seat_back_with_its_token(history: bool) -> None:
    session = new_session(JoinSeat(name="Bo", invite="ABC123"), history=history)
    seated(session)
    session.connection_lost()
    assert not session.is_seated
    hello, *rest = welcomed(session)
    assert isinstance(hello, m.Hello)
    assert rest == [m.Rejoin(game=GAME, token=TOKEN, history=history)]
    feed(session, joined())
    assert session.is_seated


def test_the_codec_follows_the_connections_subprotocol() -> None:
    session = ClientSession(JoinSeat(name="Ana", game=GAME), client="c")
    assert session.subprotocol == SUBPROTOCOL_MSGPACK
    (frame,) = session.connect()
    assert isinstance(frame, bytes) and msgpack.unpackb(frame)["type"] == "hello"
    (frame,) = session.connect(SUBPROTOCOL_JSON)
    assert isinstance(frame, str) and json.loads(frame)["type"] == "hello"


# --- refusals -------------------------------------------------------------------------


def test_an_unknown_invite_code_is_tried_once_as_a_game_id() -> None:
    session = new_session(JoinSeat(name="Bo", invite="g1", invite_or_game=True))
    welcomed(session)
    unknown = m.Error(code=ErrorCode.UNKNOWN_GAME, message="no game has that invite code")
    received = feed(session, unknown)
    assert received.message is None  # answered by the session: nothing to show
    assert sent(received.send) == [m.JoinGame(game="g1", name="Bo")]
    assert phase(session) is Phase.SEATING and not session.is_refused
    again = m.Error(code=ErrorCode.UNKNOWN_GAME, message="there is no game 'g1'", game="g1")
    assert feed(session, again) == Received(again)
    assert session.refusal == again and phase(session) is Phase.REFUSED


def test_the_game_id_that_worked_is_the_one_rejoined() -> None:
    session = new_session(JoinSeat(name="Bo", invite="g1", invite_or_game=True))
    welcomed(session)
    feed(session, m.Error(code=ErrorCode.UNKNOWN_GAME, message="no such invite"))
    feed(session, joined())
    session.connection_lost()
    assert welcomed(session)[1:] == [m.Rejoin(game=GAME, token=TOKEN)]


def test_without_the_fallback_an_unknown_invite_code_is_a_refusal() -> None:
    session = new_session(JoinSeat(name="Bo", invite="ABC123"))
    welcomed(session)
    unknown = m.Error(code=ErrorCode.UNKNOWN_GAME, message="no game has that invite code")
    assert feed(session, unknown) == Received(unknown)
    assert session.refusal == unknown


GOALS: list[Goal] = [
    JoinSeat(name="Bo", game=GAME),
    JoinSeat(name="Bo", invite="ABC123"),
    ResumeSeat(game=GAME, token=TOKEN),
    WatchGame(game=GAME),
    NewGame(OPTIONS, name="Ana"),
]


def seating(goal: Goal) -> ClientSession:
    """A session whose seat request is sent and unanswered."""
    session = new_session(goal)
    welcomed(session)
    if isinstance(goal, NewGame):
        feed(session, CREATED)
    assert session.phase is Phase.SEATING
    return session


@pytest.mark.parametrize("goal", GOALS, ids=lambda g: type(g).__name__)
@pytest.mark.parametrize("code", sorted(NO_SEAT))
def test_each_no_seat_refusal_ends_the_attempt(code: ErrorCode, goal: Goal) -> None:
    session = seating(goal)
    error = m.Error(code=code, message="no", game=GAME)
    assert feed(session, error) == Received(error)  # passed on, nothing sent
    assert session.is_refused and session.refusal == error
    assert session.phase is Phase.REFUSED and not session.is_seated
    assert feed(session, WELCOME).send == ()  # nothing more is asked on this connection


@pytest.mark.parametrize("code", sorted(set(ErrorCode) - NO_SEAT - {ErrorCode.MOVED}))
def test_other_errors_while_seating_do_not_end_it(code: ErrorCode) -> None:
    session = seating(JoinSeat(name="Bo", game=GAME))
    error = m.Error(code=code, message="not now")
    assert feed(session, error) == Received(error)
    assert not session.is_refused and session.phase is Phase.SEATING
    feed(session, joined())
    assert session.is_seated


def test_moved_ends_the_attempt_here_and_says_where_to_ask() -> None:
    session = seating(ResumeSeat(game=GAME, token="t"))
    moved = m.Error(code=ErrorCode.MOVED, message="elsewhere", detail="ws://b:1", game=GAME)
    assert feed(session, moved) == Received(moved)
    assert session.is_refused and session.moved_to == "ws://b:1"
    assert session.connect() and session.moved_to is None  # a new connection asks afresh
    feed(session, WELCOME)
    feed(session, m.Error(code=ErrorCode.UNKNOWN_GAME, message="no", game=GAME))
    assert session.is_refused and session.moved_to is None


@pytest.mark.parametrize("code", sorted(NO_SEAT))
def test_once_seated_no_error_ends_anything(code: ErrorCode) -> None:
    session = new_session(JoinSeat(name="Bo", game=GAME))
    seated(session)
    feed(session, m.Error(code=code, message="that is refused", game=GAME))
    assert session.is_seated and not session.is_refused


def test_a_refused_hello_ends_the_attempt() -> None:
    session = new_session(JoinSeat(name="Bo", game=GAME))
    session.connect()
    error = m.Error(code=ErrorCode.UNSUPPORTED_VERSION, message="this server speaks [2]")
    assert feed(session, error) == Received(error)
    assert session.refusal == error and session.phase is Phase.REFUSED


def test_a_new_connection_forgets_the_last_refusal() -> None:
    session = seating(ResumeSeat(game=GAME, token=TOKEN))
    feed(session, m.Error(code=ErrorCode.BAD_TOKEN, message="no"))
    session.connection_lost()
    assert session.is_refused  # still readable once the connection is gone
    assert welcomed(session)[1:] == [m.Rejoin(game=GAME, token=TOKEN)]
    assert not session.is_refused and session.phase is Phase.SEATING


# --- decoding -------------------------------------------------------------------------


@pytest.mark.parametrize("phase", ["greeting", "seating", "seated"])
def test_unknown_message_types_are_skipped(phase: str) -> None:
    session = new_session(JoinSeat(name="Bo", game=GAME))
    session.connect()
    if phase != "greeting":
        feed(session, WELCOME)
    if phase == "seated":
        feed(session, joined())
    before = session.phase
    frame: Frame = json.dumps({"type": "weather", "game": GAME, "rain": True})
    assert session.receive(frame) == Received(None)
    assert session.phase is before


def test_fields_a_newer_server_adds_are_dropped() -> None:
    session = seating(JoinSeat(name="Bo", game=GAME))
    frame = json.dumps({**joined().model_dump(mode="json"), "colour": "red"})
    assert session.receive(frame).message == joined()


def test_a_frame_that_is_no_message_raises() -> None:
    session = seating(JoinSeat(name="Bo", game=GAME))
    with pytest.raises(ProtocolError):
        session.receive("not json")
    with pytest.raises(ProtocolError):
        session.receive(b"\x93")  # a binary frame on a JSON connection


def test_a_join_needs_a_game_or_an_invite_code() -> None:
    with pytest.raises(ValueError, match="game or an invite"):
        JoinSeat(name="Bo")


def test_an_unknown_subprotocol_is_refused() -> None:
    with pytest.raises(ValueError, match="subprotocol"):
        ClientSession(WatchGame(game=GAME), client="c", subprotocol="hexhaven.v0.xml")
