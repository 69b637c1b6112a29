"""The server session: the rules of a connection, applied to frames with no socket and a
clock the tests move by hand."""

from __future__ import annotations

import json

import msgpack
import pytest

from protocol import SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK, Codec, ErrorCode
from protocol import messages as m
from protocol.payloads import EndTurn, WireModel
from protocol.server_session import (
    BURST,
    MAX_FRAME,
    RATE,
    Allowance,
    Answer,
    Budgets,
    ForGame,
    GameMessage,
    JoinByInvite,
    Limits,
    Rate,
    Request,
    ServerSession,
    frame_bytes,
)

NAME = "hexhaven test"


class FakeClock:
    """Seconds that pass only when a test says so."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def new_session(
    subprotocol: str = SUBPROTOCOL_JSON,
    limits: Limits | None = None,
    clock: FakeClock | None = None,
) -> ServerSession:
    return ServerSession(
        subprotocol,
        clock=clock if clock is not None else FakeClock(),
        server_name=NAME,
        limits=limits if limits is not None else Limits(),
    )


def feed(session: ServerSession, message: WireModel) -> Answer | Request:
    """What the session gives back for a message, sent in the session's encoding."""
    return session.receive(Codec(session.subprotocol).encode(message))


def greeted(
    subprotocol: str = SUBPROTOCOL_JSON,
    limits: Limits | None = None,
    clock: FakeClock | None = None,
) -> ServerSession:
    """A session that has been welcomed (its hello spent one message of the budget)."""
    session = new_session(subprotocol, limits, clock)
    assert isinstance(feed(session, m.Hello(protocol=1)), Answer)
    assert session.greeted
    return session


def refusal(received: Answer | Request) -> m.Error:
    """The error a refused frame was answered with."""
    assert isinstance(received, Answer)
    assert isinstance(received.message, m.Error)
    return received.message


REQUESTS: list[WireModel] = [
    m.ListGames(),
    m.CreateGame(options=m.GameOptions(players=3, private=True)),
    m.GetRecord(game="g1"),
    m.FindGame(invite="AB12CD"),
    m.JoinGame(invite="AB12CD", name="ann"),
    m.JoinGame(game="g1", name="bob"),
    m.Rejoin(game="g1", token="t" * 20),
    m.Watch(game="g1"),
    m.Leave(game="g1"),
    m.StartGame(game="g1"),
    m.Act(game="g1", state_id=3, action=EndTurn()),
    m.Chat(game="g1", text="hi"),
    m.Ping(nonce=1),
]


# ======================================================================================
# Hello
# ======================================================================================


@pytest.mark.parametrize("message", REQUESTS, ids=lambda x: x.type)
def test_anything_before_hello_is_refused(message: WireModel) -> None:
    session = new_session()
    error = refusal(feed(session, message))
    assert error.code == ErrorCode.HELLO_FIRST
    assert error.message == "say hello first"
    assert not session.greeted


def test_an_unsupported_version_is_refused_and_leaves_the_session_ungreeted() -> None:
    session = new_session()
    error = refusal(feed(session, m.Hello(protocol=99, views=True)))
    assert error.code == ErrorCode.UNSUPPORTED_VERSION
    assert error.message == "this server speaks protocol [1], not 99"
    assert not session.greeted and not session.views
    assert refusal(feed(session, m.Ping(nonce=1))).code == ErrorCode.HELLO_FIRST


def test_hello_is_welcomed_and_records_views() -> None:
    session = new_session()
    received = feed(session, m.Hello(protocol=1, client="x", views=True))
    assert received == Answer(m.Welcome(protocol=m.PROTOCOL_VERSION, server=NAME))
    assert session.greeted and session.views
    # A later hello is welcomed again and replaces the choice of views...
    assert feed(session, m.Hello(protocol=1)) == Answer(m.Welcome(protocol=1, server=NAME))
    assert session.greeted and not session.views
    # ...but one of an unsupported version changes nothing.
    feed(session, m.Hello(protocol=1, views=True))
    assert refusal(feed(session, m.Hello(protocol=2))).code == ErrorCode.UNSUPPORTED_VERSION
    assert session.greeted and session.views


@pytest.mark.parametrize("subprotocol", [SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK])
def test_ping_gets_its_pong(subprotocol: str) -> None:
    session = greeted(subprotocol)
    assert feed(session, m.Ping(nonce=42)) == Answer(m.Pong(nonce=42))
    assert feed(session, m.Ping()) == Answer(m.Pong(nonce=0))


# ======================================================================================
# Size
# ======================================================================================


def test_a_text_frame_is_measured_in_utf8_bytes() -> None:
    limit = 300
    session = greeted(limits=Limits(max_frame=limit))

    def chat(size: int) -> str:
        """A chat frame of ``size`` bytes, 80 of its characters two bytes each."""
        frame = '{"type": "chat", "game": "g1", "text": "' + "é" * 80 + '"}'
        return frame[:-2] + "a" * (size - len(frame.encode())) + '"}'

    # Fewer characters than the limit, but one byte more.
    wide = chat(limit + 1)
    assert len(wide) < limit and len(wide.encode()) == limit + 1
    error = refusal(session.receive(wide))
    assert error.code == ErrorCode.TOO_LARGE
    assert error.message == f"frames are limited to {limit} bytes"
    # Exactly at the limit is read.
    fits = chat(limit)
    assert len(fits.encode()) == limit
    text = json.loads(fits)["text"]
    assert session.receive(fits) == ForGame(game="g1", message=m.Chat(game="g1", text=text))


def test_the_default_limit_counts_bytes_of_a_text_frame() -> None:
    session = greeted()
    wide = '{"type": "ping", "nonce": 4, "pad": "' + "é" * (MAX_FRAME // 2) + '"}'
    assert len(wide) < MAX_FRAME < len(wide.encode())
    assert refusal(session.receive(wide)).message == f"frames are limited to {MAX_FRAME} bytes"
    padded = '{"type": "ping", "nonce": 4}'
    padded += " " * (MAX_FRAME - len(padded))
    assert session.receive(padded) == Answer(m.Pong(nonce=4))


def test_a_binary_frame_over_the_limit_is_refused_and_changes_nothing() -> None:
    session = new_session(SUBPROTOCOL_MSGPACK, limits=Limits(max_frame=64))
    hello = msgpack.packb({"type": "hello", "protocol": 1, "client": "c" * 60})
    assert len(hello) > 64
    assert refusal(session.receive(hello)).code == ErrorCode.TOO_LARGE
    assert not session.greeted


def test_frame_bytes() -> None:
    assert frame_bytes(b"\x00" * 10) == 10
    assert frame_bytes("é" * 10) == 20
    assert frame_bytes("\ud800") == 3  # a lone surrogate is measured, not an error
    # Over the limit in characters: over it in bytes too, so not encoded.
    assert frame_bytes("é" * 11, limit=10) == 11


# ======================================================================================
# Bad frames
# ======================================================================================


@pytest.mark.parametrize(
    ("subprotocol", "frame", "code"),
    [
        (SUBPROTOCOL_MSGPACK, b"\xc1\xff\x00", ErrorCode.BAD_FRAME),
        (SUBPROTOCOL_MSGPACK, "{}", ErrorCode.BAD_FRAME),
        (SUBPROTOCOL_MSGPACK, msgpack.packb([1, 2, 3]), ErrorCode.BAD_MESSAGE),
        (SUBPROTOCOL_MSGPACK, msgpack.packb({"type": "nope"}), ErrorCode.UNKNOWN_TYPE),
        (SUBPROTOCOL_JSON, "{not json", ErrorCode.BAD_FRAME),
        (SUBPROTOCOL_JSON, b"{}", ErrorCode.BAD_FRAME),
        (SUBPROTOCOL_JSON, '{"protocol": 1}', ErrorCode.BAD_MESSAGE),
        (SUBPROTOCOL_JSON, '{"type": "hello", "protocol": "one"}', ErrorCode.BAD_MESSAGE),
        (SUBPROTOCOL_JSON, '{"type": "hello", "protocol": 1, "views": [1]}', ErrorCode.BAD_MESSAGE),
        (SUBPROTOCOL_JSON, '{"type": "hello", "protocol": 1, "extra": 1}', ErrorCode.BAD_MESSAGE),
    ],
)
def test_a_bad_frame_is_refused_and_changes_nothing(
    subprotocol: str, frame: str | bytes, code: ErrorCode
) -> None:
    fresh = new_session(subprotocol)
    assert refusal(fresh.receive(frame)).code == code
    assert not fresh.greeted and not fresh.views
    session = greeted(subprotocol)
    assert refusal(session.receive(frame)).code == code
    assert session.greeted and not session.views
    assert feed(session, m.Ping(nonce=5)) == Answer(m.Pong(nonce=5))


def test_a_refusal_names_the_game_its_frame_named() -> None:
    session = greeted()
    error = refusal(session.receive('{"type": "act", "game": "g1", "state_id": "x"}'))
    assert error.code == ErrorCode.BAD_MESSAGE
    assert error.game == "g1"


# ======================================================================================
# Rate
# ======================================================================================


def test_the_rate_limit_refuses_past_the_burst_until_the_clock_refills_it() -> None:
    clock = FakeClock(50.0)
    session = greeted(limits=Limits(rate=4.0, burst=3.0), clock=clock)  # the hello spent 1
    assert feed(session, m.Ping(nonce=1)) == Answer(m.Pong(nonce=1))
    assert feed(session, m.Ping(nonce=2)) == Answer(m.Pong(nonce=2))
    error = refusal(feed(session, m.Ping(nonce=3)))
    assert error.code == ErrorCode.RATE_LIMITED
    assert error.message == "too many messages; slow down"
    # Half a message's worth of time is not enough; the other half is.
    clock.advance(0.125)
    assert refusal(feed(session, m.Ping(nonce=4))).code == ErrorCode.RATE_LIMITED
    clock.advance(0.125)
    assert feed(session, m.Ping(nonce=5)) == Answer(m.Pong(nonce=5))
    assert refusal(feed(session, m.Ping(nonce=6))).code == ErrorCode.RATE_LIMITED
    # A long pause refills the budget to the burst and no further.
    clock.advance(3600.0)
    for nonce in range(3):
        assert feed(session, m.Ping(nonce=nonce)) == Answer(m.Pong(nonce=nonce))
    assert refusal(feed(session, m.Ping(nonce=9))).code == ErrorCode.RATE_LIMITED


def test_every_frame_spends_the_budget_even_refused_ones() -> None:
    clock = FakeClock()
    session = new_session(limits=Limits(rate=1.0, burst=2.0), clock=clock)
    assert refusal(session.receive("{not json")).code == ErrorCode.BAD_FRAME
    assert refusal(feed(session, m.Ping())).code == ErrorCode.HELLO_FIRST
    # The budget is spent: even a hello is refused, and does not greet.
    assert refusal(feed(session, m.Hello(protocol=1))).code == ErrorCode.RATE_LIMITED
    assert not session.greeted
    clock.advance(1.0)
    assert isinstance(feed(session, m.Hello(protocol=1)), Answer)
    assert session.greeted


def test_the_default_budget_is_the_burst_then_the_rate() -> None:
    clock = FakeClock()
    session = greeted(clock=clock)
    for nonce in range(int(BURST) - 1):
        assert feed(session, m.Ping(nonce=nonce)) == Answer(m.Pong(nonce=nonce))
    assert refusal(feed(session, m.Ping())).code == ErrorCode.RATE_LIMITED
    clock.advance(1 / RATE)
    assert feed(session, m.Ping(nonce=7)) == Answer(m.Pong(nonce=7))
    assert refusal(feed(session, m.Ping())).code == ErrorCode.RATE_LIMITED


# ======================================================================================
# Requests
# ======================================================================================


@pytest.mark.parametrize("subprotocol", [SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK])
def test_lobby_requests_come_out_decoded(subprotocol: str) -> None:
    session = greeted(subprotocol)
    for message in [
        m.ListGames(),
        m.CreateGame(options=m.GameOptions(players=3, private=True, name="friday")),
        m.GetRecord(game="g1"),
        m.FindGame(invite="AB12CD"),
    ]:
        received = feed(session, message)
        assert received == message and type(received) is type(message)
    found = feed(session, m.FindGame(invite=" ab12cd "))
    assert found == m.FindGame(invite="AB12CD")  # the code as the lobby keeps it


@pytest.mark.parametrize("subprotocol", [SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK])
def test_game_messages_come_out_with_their_game(subprotocol: str) -> None:
    session = greeted(subprotocol)
    messages: list[GameMessage] = [
        m.JoinGame(game="g1", name="bob", seat=2),
        m.Rejoin(game="g1", token="t" * 20, history=True),
        m.Watch(game="g1"),
        m.Leave(game="g1"),
        m.StartGame(game="g1"),
        m.Act(game="g1", state_id=3, action=EndTurn()),
        m.Chat(game="g1", text="hi"),
        m.ViewAt(game="g1", state_id=7),
    ]
    for message in messages:
        assert feed(session, message) == ForGame(game="g1", message=message)


def test_a_join_without_a_game_comes_out_by_invite() -> None:
    session = greeted()
    join = m.JoinGame(invite=" ab12cd ", name="ann")
    assert feed(session, join) == JoinByInvite(invite="AB12CD", message=join)
    anonymous = m.JoinGame(name="ann")
    assert feed(session, anonymous) == JoinByInvite(invite="", message=anonymous)


# ======================================================================================
# Encoding
# ======================================================================================


@pytest.mark.parametrize("subprotocol", [SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK])
def test_outgoing_messages_are_encoded_for_the_connection(subprotocol: str) -> None:
    session = new_session(subprotocol)
    frame = session.encode(m.Pong(nonce=3))
    assert isinstance(frame, bytes if subprotocol == SUBPROTOCOL_MSGPACK else str)
    assert Codec(subprotocol).decode_server(frame) == m.Pong(nonce=3)


def test_a_session_takes_a_codec_or_a_subprotocol() -> None:
    codec = Codec(SUBPROTOCOL_JSON)
    assert ServerSession(codec, clock=FakeClock(), server_name=NAME).codec is codec
    assert ServerSession(None, clock=FakeClock(), server_name=NAME).subprotocol == (
        SUBPROTOCOL_MSGPACK
    )
    with pytest.raises(ValueError, match="unknown subprotocol"):
        ServerSession("hexhaven.v0.xml", clock=FakeClock(), server_name=NAME)


# --- budgets of costly requests ----------------------------------------------------------


def _budgeted(clock: FakeClock, budgets: Budgets, shared: Allowance | None = None) -> ServerSession:
    session = ServerSession(
        SUBPROTOCOL_JSON, clock=clock, server_name=NAME, budgets=budgets, shared=shared
    )
    assert isinstance(feed(session, m.Hello(protocol=1)), Answer)
    return session


def _refused_by(answer: Answer | Request) -> str | None:
    """The budget that refused a request (None: it went through)."""
    if isinstance(answer, Answer) and isinstance(answer.message, m.Error):
        assert answer.message.code == ErrorCode.LIMIT_REACHED
        return answer.message.detail
    return None


def _refusal(answer: Answer | Request) -> m.Error:
    assert isinstance(answer, Answer) and isinstance(answer.message, m.Error)
    return answer.message


@pytest.mark.parametrize(
    ("budget", "message"),
    [
        ("history", m.Watch(game="g1", history=True)),
        ("history", m.Rejoin(game="g1", token="t", history=True)),
        ("history", m.GetRecord(game="g1")),
        ("views", m.Watch(game="g1")),
        ("views", m.Rejoin(game="g1", token="t")),
        ("game_lists", m.ListGames()),
        ("creates", m.CreateGame()),
        ("joins", m.JoinGame(invite="ABCDEFGHJK", name="x")),
        ("joins", m.JoinGame(game="g1", name="x")),
        ("chat", m.Chat(game="g1", text="hi")),
    ],
)
def test_a_costly_request_past_its_budget_is_refused_until_the_budget_refills(
    budget: str, message: WireModel
) -> None:
    clock = FakeClock()
    session = _budgeted(clock, Budgets(**{budget: Rate(per_minute=6, burst=2)}))
    assert [_refused_by(feed(session, message)) for _ in range(3)] == [None, None, budget]
    refusal = _refusal(feed(session, message))
    assert f"(limit {budget})" in refusal.message
    assert refusal.game == getattr(message, "game", None)
    clock.advance(9.9)  # one request comes back every 10 s
    assert _refused_by(feed(session, message)) == budget
    clock.advance(0.1)
    assert _refused_by(feed(session, message)) is None
    assert _refused_by(feed(session, message)) == budget


def test_cheap_requests_spend_no_budget() -> None:
    session = _budgeted(FakeClock(), Budgets(history=Rate(1, 1), chat=Rate(1, 1)))
    for _ in range(20):
        assert _refused_by(feed(session, m.Ping(nonce=1))) is None
        assert isinstance(feed(session, m.Act(game="g1", state_id=0, action=EndTurn())), ForGame)


def test_the_server_charges_a_budget_it_learns_a_request_needs() -> None:
    clock = FakeClock()
    address = Allowance(Budgets(boards=Rate(per_minute=60, burst=3)), clock)
    session = _budgeted(clock, Budgets(boards=Rate(per_minute=60, burst=2)), shared=address)
    assert [session.charge("boards") for _ in range(2)] == [None, None]
    refusal = session.charge("boards", "g1")
    assert refusal is not None
    assert refusal.detail == "boards" and refusal.game == "g1"
    assert address.available("boards") == 1  # the refusal spent nothing


def test_connections_from_one_address_share_its_budget() -> None:
    clock = FakeClock()
    address = Allowance(Budgets(game_lists=Rate(per_minute=60, burst=3)), clock)
    first, second = (_budgeted(clock, Budgets(), shared=address) for _ in range(2))
    results = [_refused_by(feed(s, m.ListGames())) for s in (first, second, first, second)]
    assert results == [None, None, None, "game_lists"]
    assert "from one address" in _refusal(feed(first, m.ListGames())).message
    # A refusal by the address spends nothing of the connection's own budget.
    assert first.allowance.available("game_lists") == Budgets().game_lists.burst - 2


def test_budgets_scale_and_know_when_they_are_full() -> None:
    clock = FakeClock()
    doubled = Budgets().scaled(2)
    assert doubled.chat == Rate(Budgets().chat.per_minute * 2, Budgets().chat.burst * 2)
    allowance = Allowance(Budgets(chat=Rate(per_minute=60, burst=2)), clock)
    assert allowance.is_full()
    allowance.spend("chat")
    assert not allowance.is_full()
    clock.advance(1.0)
    assert allowance.is_full()


def test_the_backoff_says_when_a_tenth_of_the_burst_is_back() -> None:
    clock = FakeClock()
    session = new_session(limits=Limits(rate=100, burst=20), clock=clock)
    assert session.backoff() == 0.0
    for _ in range(20):
        feed(session, m.Ping(nonce=1))
    assert session.backoff() == pytest.approx(0.02)  # two messages, at 100 a second
    clock.advance(0.015)
    assert session.backoff() == pytest.approx(0.005)
    clock.advance(0.005)
    assert session.backoff() == 0.0
