"""The codec: every message survives both encodings, every bad frame gets its error code, and
no input makes decoding raise anything but :class:`ProtocolError`.

The sample messages built here (:func:`client_samples`, :func:`server_samples`) are also what
``test_schema`` validates against the generated JSON Schema.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from engine import (
    DevCard,
    GameConfig,
    GameState,
    Phase,
    Resource,
    legal_actions,
    seats_to_act,
    view,
)
from engine import events as ee
from protocol import (
    SUBPROTOCOL_JSON,
    SUBPROTOCOL_MSGPACK,
    SUBPROTOCOLS,
    Codec,
    ErrorCode,
    ProtocolError,
    action_from_engine,
    event_from_engine,
    view_from_engine,
)
from protocol import messages as m
from protocol import payloads as p
from protocol.table import Table
from tests.engine.randomplay import random_steps

Json = Any
"""A JSON-like value: what a frame unpacks to."""

# ======================================================================================
# Samples
# ======================================================================================


def action_samples() -> list[p.ActionPayload]:
    """One wire action of every kind (several with multi-card counts)."""
    return [
        p.PlaceSettlement(vertex=17),
        p.PlaceRoad(edge=0),
        p.RollDice(),
        p.Discard(cards=p.Cards(brick=2, grain=1, ore=3)),
        p.MoveRobber(hex=9, victim=None),
        p.MoveRobber(hex=4, victim=3),
        p.BuildRoad(edge=71),
        p.BuildSettlement(vertex=53),
        p.BuildCity(vertex=5),
        p.BuyDevCard(),
        p.PlayKnight(),
        p.PlayRoadBuilding(),
        p.PlayYearOfPlenty(cards=p.Cards(wool=1, ore=1)),
        p.PlayMonopoly(resource="grain"),
        p.MaritimeTrade(give="lumber", get="ore", ratio=3),
        p.OfferTrade(give=p.Cards(brick=2, wool=1), get=p.Cards(ore=3), to=[0, 2, 3]),
        p.OfferTrade(give=p.Cards(lumber=1), get=p.Cards(grain=1)),
        p.AcceptTrade(),
        p.DeclineTrade(),
        p.CounterTrade(give=p.Cards(grain=2), get=p.Cards(brick=1, lumber=1)),
        p.ConfirmTrade(partner=1),
        p.CancelTrade(),
        p.EndTurn(),
    ]


def engine_event_samples() -> list[Any]:
    """Engine events of many kinds, secrets both revealed and hidden."""
    return [
        ee.SettlementBuilt(seat=0, vertex=12, free=True),
        ee.StartingResources(seat=1, cards=(1, 0, 2, 0, 0)),
        ee.DiceRolled(seat=2, dice=(6, 1)),
        ee.Produced(
            gains=((1, 0, 0, 2, 0), (0, 0, 0, 0, 0), (0, 1, 0, 0, 3)),
            short=(Resource.ORE, Resource.LUMBER),
        ),
        ee.DiscardsOwed(owed=(0, 4, 0, 5)),
        ee.Discarded(seat=3, cards=(2, 0, 0, 2, 1)),
        ee.RobberMoved(seat=2, hex=5, victim=None),
        ee.Stolen(thief=1, victim=2, resource=Resource.WOOL),
        ee.Stolen(thief=1, victim=2, resource=None),
        ee.DevCardBought(seat=3, card=DevCard.VICTORY_POINT),
        ee.DevCardBought(seat=3, card=None),
        ee.DevCardPlayed(seat=0, card=DevCard.MONOPOLY),
        ee.MonopolyTaken(seat=0, resource=Resource.GRAIN, taken=(0, 2, 1, 0)),
        ee.MaritimeTraded(seat=1, give=Resource.ORE, count=2, get=Resource.BRICK),
        ee.TradeOffered(seat=0, give=(2, 0, 0, 0, 0), get=(0, 0, 1, 1, 0), to=(1, 3)),
        ee.TradeAnswered(seat=1, answer="counter", give=(0, 0, 1, 0, 0), get=(3, 0, 0, 0, 0)),
        ee.TradeAnswered(seat=3, answer="decline"),
        ee.TradeClosed(seat=0, reason="cancelled"),
        ee.LongestRoadChanged(holder=None, length=0),
        ee.GameWon(winner=2, points=(4, 5, 10, 3), victory_cards=(0, 1, 2, 0)),
    ]


@cache
def _game_snapshots() -> tuple[tuple[p.ViewPayload, ...], tuple[m.Prompt, ...]]:
    """Views (an open trade with a counter-offer, a spectator's, a finished game's) and
    prompts (listed legal actions) from a seeded random game."""
    views: list[p.ViewPayload] = []
    prompts: list[m.Prompt] = []
    state: GameState | None = None
    want_trade = want_spectator = want_prompt = True
    for step in random_steps(GameConfig(players=4), seed=3, max_actions=3000):
        state = step.state
        trade = state.offer is not None and any(c is not None for c in state.counters)
        if want_trade and trade:
            views.append(view_from_engine(view(state, state.current)))
            want_trade = False
        if want_spectator and state.turn > 10:
            views.append(view_from_engine(view(state, None)))
            want_spectator = False
        if want_prompt and state.phase == Phase.MAIN and state.turn > 12:
            seat = state.current
            actions = [action_from_engine(a) for a in legal_actions(state, seat)]
            if len(actions) > 3:
                prompts.append(
                    m.Prompt(game="g1", state_id=state.actions_taken, seat=seat, actions=actions)
                )
                want_prompt = False
    assert state is not None and state.is_over
    assert not (want_trade or want_spectator or want_prompt), "the seeded game changed"
    views.append(view_from_engine(view(state, state.winner)))
    return tuple(views), tuple(prompts)


def client_samples() -> list[p.WireModel]:
    """At least one of every client message; ``act`` with every action kind."""
    return [
        m.Hello(protocol=1, client="hexhaven-cli 0.1"),
        m.Hello(protocol=1),
        m.ListGames(),
        m.CreateGame(),
        m.CreateGame(
            options=m.GameOptions(
                players=3,
                victory_points=12,
                board="spiral",
                radius=4,
                turn_timer=45.5,
                bots=[m.BotSeat(kind="heuristic", strength="hard"), m.BotSeat()],
                private=True,
                name="Friday night",
            )
        ),
        m.JoinGame(game="g1", name="Ada", seat=2),
        m.JoinGame(invite="K7QX", name="Bob"),
        m.Rejoin(game="g1", token="t-" + "5b0d3c7e" * 4),
        m.Watch(game="g1"),
        m.Rejoin(game="g1", token="t-x", history=True),
        m.Watch(game="g1", history=True),
        m.GetRecord(game="g1"),
        m.ViewAt(game="g1", state_id=12),
        m.FindGame(invite="K7QMX3PD9H"),
        m.Leave(game="g1"),
        m.StartGame(game="g1"),
        *(
            m.Act(game="g1", state_id=i * 7, action=action)
            for i, action in enumerate(action_samples())
        ),
        m.Chat(game="g1", text="gg — ünïcode ✓"),
        m.Ping(),
        m.Ping(nonce=2**53),
    ]


def server_samples() -> list[p.WireModel]:
    """At least one of every server message, views and prompts from a real game."""
    views, prompts = _game_snapshots()
    events = [event_from_engine(e) for e in engine_event_samples()]
    return [
        m.Welcome(protocol=1, server="hexhaven 0.1.0"),
        m.GameList(games=[]),
        m.GameList(
            games=[
                m.GameSummary(
                    game="g1",
                    name="Friday",
                    players=4,
                    seated=2,
                    victory_points=10,
                    board="random",
                    started=False,
                ),
                m.GameSummary(
                    game="g2",
                    name="",
                    players=3,
                    seated=3,
                    victory_points=12,
                    board="spiral",
                    started=True,
                ),
            ]
        ),
        m.GameCreated(game="g1", invite=None, seed_hash="ab" * 32),
        m.GameCreated(game="g2", invite="K7QX", seed_hash="0f" * 32),
        m.Joined(game="g1", seat=3, token="t-secret"),
        m.Joined(game="g1", seat=None, token=None),
        m.Players(
            game="g1",
            players=[
                m.PlayerInfo(seat=0, name="Ada", bot=False, connected=True, away=False),
                m.PlayerInfo(seat=1, name="heuristic-1", bot=True, connected=True, away=False),
                m.PlayerInfo(seat=2, name="Bob", bot=False, connected=False, away=True),
            ],
        ),
        *(m.GameView(game="g1", view=v) for v in views),
        m.Events(game="g1", state_id=42, events=events),
        m.Events(game="g1", state_id=43, events=[]),
        *(m.Events(game="g1", state_id=44, events=events[:2], view=v) for v in views[:2]),
        m.Prompt(
            game="g1",
            state_id=44,
            seat=1,
            actions=[p.RollDice(), p.PlayKnight(), p.MoveRobber(hex=3, victim=0)],
            deadline=12.5,
        ),
        *prompts,
        m.ChatMessage(game="g1", seat=2, name="Bob", text="anyone have ore?"),
        m.ChatMessage(game="g1", seat=None, name="watcher", text="nice road"),
        m.GameFound(
            game="g1",
            summary=m.GameSummary(
                game="g1",
                name="Friday night",
                players=4,
                seated=2,
                victory_points=10,
                board="random",
                started=False,
            ),
        ),
        m.GameOver(game="g1", winner=2, points=[7, 8, 10, 4], seed=2**63 - 1),
        m.GameOver(game="g1", winner=None, points=[], seed=0),
        m.Error(code=ErrorCode.STALE_STATE, message="resend for state 17"),
        m.Error(code=ErrorCode.ILLEGAL_ACTION, message="cannot afford", detail="cannot_afford"),
        m.Pong(nonce=99),
        m.History(
            game="g1",
            batches=[
                m.HistoryBatch(state_id=42, events=events),
                m.HistoryBatch(state_id=43, events=[]),
            ],
            chat=[m.ChatAt(state_id=40, seat=None, name="watcher", text="hi")],
            more=True,
        ),
        m.History(game="g1", batches=[]),
        m.Clock(game="g1", state_id=44, seats=[m.SeatClock(seat=1, left=12.5)]),
        m.GameRecord(
            game="g1",
            options=m.GameOptions(players=2),
            seed=2**63 - 1,
            seed_hash="ab" * 32,
            seats=[
                m.SeatRecord(seat=0, name="Ada", bot=False),
                m.SeatRecord(seat=1, name="b", bot=True),
            ],
            actions=[m.RecordedAction(seat=0, action=a) for a in action_samples()],
            winner=0,
            points=[10, 4],
        ),
    ]


def _id(message: p.WireModel) -> str:
    tag = str(getattr(message, "type", "?"))
    action = getattr(message, "action", None)
    return f"{tag}-{action.kind}" if action is not None else tag


CLIENT_SAMPLES = client_samples()
SERVER_SAMPLES = server_samples()


def test_samples_cover_every_message_and_action_type() -> None:
    assert {type(s) for s in CLIENT_SAMPLES} == set(m.CLIENT_MESSAGES)
    assert {type(s) for s in SERVER_SAMPLES} == set(m.SERVER_MESSAGES)
    acts = {type(s.action) for s in CLIENT_SAMPLES if isinstance(s, m.Act)}
    assert acts == set(p.ACTION_PAYLOADS.values())


# ======================================================================================
# Round trips
# ======================================================================================


@pytest.fixture(params=SUBPROTOCOLS)
def codec(request: pytest.FixtureRequest) -> Codec:
    return Codec(request.param)


def _pack(codec: Codec, value: Json) -> bytes | str:
    """A frame holding any value, in the codec's encoding."""
    return msgpack.packb(value, use_bin_type=True) if codec.binary else json.dumps(value)


def _refusal(codec: Codec, frame: bytes | str, *, server: bool = False) -> ProtocolError:
    decode = codec.decode_server if server else codec.decode_client
    with pytest.raises(ProtocolError) as info:
        decode(frame)
    return info.value


@pytest.mark.parametrize("message", CLIENT_SAMPLES, ids=_id)
def test_client_message_round_trip(codec: Codec, message: p.WireModel) -> None:
    frame = codec.encode(message)
    assert isinstance(frame, bytes if codec.subprotocol == SUBPROTOCOL_MSGPACK else str)
    decoded = codec.decode_client(frame)
    assert type(decoded) is type(message)
    assert decoded == message


@pytest.mark.parametrize("message", SERVER_SAMPLES, ids=_id)
def test_server_message_round_trip(codec: Codec, message: p.WireModel) -> None:
    frame = codec.encode(message)
    assert isinstance(frame, bytes if codec.subprotocol == SUBPROTOCOL_MSGPACK else str)
    decoded = codec.decode_server(frame)
    assert type(decoded) is type(message)
    assert decoded == message


def test_both_encodings_carry_the_same_content() -> None:
    binary, text = Codec(SUBPROTOCOL_MSGPACK), Codec(SUBPROTOCOL_JSON)
    for message in CLIENT_SAMPLES + SERVER_SAMPLES:
        from_msgpack = msgpack.unpackb(binary.encode(message), raw=False)
        from_json = json.loads(text.encode(message))
        assert from_msgpack == from_json == message.model_dump(mode="json")
        assert from_json["type"] == message.type  # type: ignore[attr-defined]


def test_wire_form_of_an_offer_is_cards_by_name() -> None:
    act = m.Act(
        game="g1",
        state_id=13,
        action=p.OfferTrade(give=p.Cards(brick=2), get=p.Cards(ore=1, wool=3), to=[1, 2]),
    )
    zero = dict.fromkeys(p.RESOURCE_NAMES, 0)
    assert json.loads(Codec(SUBPROTOCOL_JSON).encode(act)) == {
        "type": "act",
        "game": "g1",
        "state_id": 13,
        "action": {
            "kind": "offer_trade",
            "give": {**zero, "brick": 2},
            "get": {**zero, "ore": 1, "wool": 3},
            "to": [1, 2],
        },
    }
    # Missing resource names count zero on the way in.
    frame = json.dumps(
        {
            "type": "act",
            "game": "g1",
            "state_id": 13,
            "action": {"kind": "offer_trade", "give": {"brick": 2}, "get": {"ore": 1, "wool": 3}},
        }
    )
    decoded = Codec(SUBPROTOCOL_JSON).decode_client(frame)
    assert decoded.action == p.OfferTrade(
        give=p.Cards(brick=2), get=p.Cards(ore=1, wool=3), to=None
    )


def test_default_subprotocol_is_msgpack() -> None:
    for codec in (Codec(), Codec(None)):
        assert codec.subprotocol == SUBPROTOCOL_MSGPACK
        assert isinstance(codec.encode(m.Ping()), bytes)
    assert SUBPROTOCOLS[0] == SUBPROTOCOL_MSGPACK
    assert isinstance(Codec(SUBPROTOCOL_JSON).encode(m.Ping()), str)


@pytest.mark.parametrize("name", ["hexhaven.v2.msgpack", "json", "", "HEXHAVEN.V1.JSON"])
def test_unknown_subprotocol_is_a_value_error(name: str) -> None:
    with pytest.raises(ValueError, match="subprotocol"):
        Codec(name)


# ======================================================================================
# The msgpack frames of events and prompts: put together from packed parts, the same bytes
# ======================================================================================


def _packed_whole(message: p.WireModel) -> bytes:
    """The msgpack frame of any message, packed from its whole dump."""
    frame: bytes = msgpack.packb(message.model_dump(mode="json"), use_bin_type=True)
    return frame


TABLE_GAMES = {
    "standard": (GameConfig(), 11),
    "spiral-3p": (GameConfig(players=3, board_setup="spiral"), 12),
    "2p-8vp": (GameConfig(players=2, victory_points=8), 13),
    "radius4": (GameConfig(radius=4), 14),
}


def table_messages(config: GameConfig, seed: int) -> Iterator[p.WireModel]:
    """Every message a table makes in a seeded random game with domestic trades: each
    recipient's events (every seat's and the spectators'), game over, each acting seat's
    prompt bare, with a deadline and with its view, and every 97 actions the history and a
    welcome."""
    table = Table(f"game-{seed}-ü", config, seed)
    for step in random_steps(config, seed, max_actions=3000):
        for seat in seats_to_act(table.state):
            yield table.prompt(seat)
            yield table.prompt(seat, 12.25 + step.index)
            if step.index % 7 == 0:
                yield table.prompt(seat, 0.0, with_view=True)
        told = {id(message): message for _, message in table.act(step.action.seat, step.action)}
        yield from told.values()
        if step.index % 97 == 0:
            yield from table.history(step.action.seat)
            yield from table.welcome(None, history=True)
    assert table.over


@pytest.mark.parametrize("game", TABLE_GAMES)
def test_every_message_of_a_game_packs_as_its_whole_dump(game: str) -> None:
    codec = Codec(SUBPROTOCOL_MSGPACK)
    kinds: set[type] = set()
    for message in table_messages(*TABLE_GAMES[game]):
        kinds.add(type(message))
        assert codec.encode(message) == _packed_whole(message), message
    assert {m.Events, m.Prompt, m.GameOver, m.History, m.GameView} <= kinds


@pytest.mark.parametrize("message", SERVER_SAMPLES + CLIENT_SAMPLES, ids=_id)
def test_every_sample_packs_as_its_whole_dump(message: p.WireModel) -> None:
    assert Codec(SUBPROTOCOL_MSGPACK).encode(message) == _packed_whole(message)


_EVENT_PAYLOADS = [event_from_engine(e) for e in engine_event_samples()]


@settings(max_examples=200, deadline=None)
@given(
    game=st.text(min_size=1, max_size=64, alphabet=st.characters(exclude_categories=["Cs"])),
    state_id=st.integers(min_value=-(2**63) - 2, max_value=2**64 + 2),
    seat=st.integers(0, 3),
    actions=st.lists(st.sampled_from(action_samples()), max_size=40),
    events=st.lists(st.sampled_from(_EVENT_PAYLOADS), max_size=40),
    deadline=st.none() | st.floats() | st.integers(0, 10**6),
    with_view=st.booleans(),
)
def test_events_and_prompts_pack_as_their_whole_dump(
    game: str,
    state_id: int,
    seat: int,
    actions: list[p.ActionPayload],
    events: list[p.WireModel],
    deadline: float | None,
    with_view: bool,
) -> None:
    codec = Codec(SUBPROTOCOL_MSGPACK)
    view = _game_snapshots()[0][0] if with_view else None
    prompt = m.Prompt(
        game=game,
        state_id=state_id,
        seat=seat,
        actions=actions,
        deadline=deadline,
        view=view,
    )
    told = m.Events(game=game, state_id=state_id, events=events)
    for message in (prompt, told):
        try:
            whole = _packed_whole(message)
        except OverflowError:  # a state_id past 64 bits: no frame either way
            with pytest.raises(OverflowError):
                codec.encode(message)
        else:
            assert codec.encode(message) == whole


# ======================================================================================
# Refusals
# ======================================================================================


@pytest.mark.parametrize(
    "frame",
    [
        b"",
        b"\xc1",  # never used in msgpack
        b"\x92\x01",  # an array of two holding one
        b"\x81\xa4typ",  # a map cut short
        msgpack.packb({"type": "ping"}) + b"\x00",  # trailing data
        msgpack.packb({1: "ping"}),  # integer map keys
        b"\xde\xff\xff",  # a map claiming 65535 entries
        bytes(range(256)),
    ],
)
def test_garbage_bytes_are_bad_frames(frame: bytes) -> None:
    codec = Codec(SUBPROTOCOL_MSGPACK)
    assert _refusal(codec, frame).code == ErrorCode.BAD_FRAME
    assert _refusal(codec, frame, server=True).code == ErrorCode.BAD_FRAME


@pytest.mark.parametrize(
    "frame", ["", "{", "not json", '{"type": "ping"} {}', "{'type': 'ping'}", "[" * 100_000]
)
def test_garbage_text_is_a_bad_frame(frame: str) -> None:
    codec = Codec(SUBPROTOCOL_JSON)
    assert _refusal(codec, frame).code == ErrorCode.BAD_FRAME
    assert _refusal(codec, frame, server=True).code == ErrorCode.BAD_FRAME


@pytest.mark.parametrize(
    ("frame", "place"),
    [
        ('{"type": "watch", "game": "\\ud800"}', "game"),
        ('{"type": "join_game", "game": "g", "name": "a\\udfffb"}', "name"),
        ('{"type": "chat", "game": "g", "text": ["x", {"\\udc00": 1}]}', "text.1."),
        ('{"type": "ping", "nonce": 1, "\\ud83d": 2}', "'"),
    ],
)
def test_text_that_cannot_be_encoded_is_a_bad_message(frame: str, place: str) -> None:
    """A JSON escape for half a surrogate pair decodes to a string no frame can carry
    back (the refusal would name it): refused, naming where it is, and naming no game."""
    refusal = _refusal(Codec(SUBPROTOCOL_JSON), frame)
    assert refusal.code == ErrorCode.BAD_MESSAGE and refusal.game is None
    assert f"the text at {place}" in refusal.message and "unpaired surrogate" in refusal.message
    refusal.to_message().model_dump_json().encode("utf-8")  # the refusal itself can be sent


def test_a_whole_surrogate_pair_is_text_like_any_other() -> None:
    decoded = Codec(SUBPROTOCOL_JSON).decode_client('{"type": "watch", "game": "\\ud83d\\ude00"}')
    assert decoded == m.Watch(game="\U0001f600")


def test_the_wrong_kind_of_frame_is_a_bad_frame() -> None:
    binary, text = Codec(SUBPROTOCOL_MSGPACK), Codec(SUBPROTOCOL_JSON)
    ping_bytes, ping_text = binary.encode(m.Ping()), text.encode(m.Ping())
    assert isinstance(ping_bytes, bytes) and isinstance(ping_text, str)
    for server in (False, True):
        error = _refusal(binary, ping_text, server=server)  # JSON text on msgpack
        assert error.code == ErrorCode.BAD_FRAME
        assert "binary" in error.message
        for frame in (ping_bytes, ping_text.encode()):  # any bytes on JSON
            error = _refusal(text, frame, server=server)
            assert error.code == ErrorCode.BAD_FRAME
            assert "text" in error.message


@pytest.mark.parametrize("value", [[], [{"type": "ping"}], 5, -1, "ping", None, True, 2.5])
def test_a_value_that_is_not_an_object_is_a_bad_message(codec: Codec, value: Json) -> None:
    assert _refusal(codec, _pack(codec, value)).code == ErrorCode.BAD_MESSAGE
    assert _refusal(codec, _pack(codec, value), server=True).code == ErrorCode.BAD_MESSAGE


@pytest.mark.parametrize(
    "value",
    [{}, {"nonce": 1}, {"Type": "ping"}, {"type": 5}, {"type": None}, {"type": ["ping"]}],
)
def test_a_missing_or_non_string_type_is_a_bad_message(codec: Codec, value: Json) -> None:
    error = _refusal(codec, _pack(codec, value))
    assert error.code == ErrorCode.BAD_MESSAGE
    assert "type" in error.message


@pytest.mark.parametrize("tag", ["teleport", "", "PING", "roll_dice", "dice_rolled", "x" * 300])
def test_an_unknown_type_is_unknown_type(codec: Codec, tag: str) -> None:
    error = _refusal(codec, _pack(codec, {"type": tag}))
    assert error.code == ErrorCode.UNKNOWN_TYPE
    assert len(error.message) < 200  # a long type is not echoed whole
    assert _refusal(codec, _pack(codec, {"type": tag}), server=True).code == (
        ErrorCode.UNKNOWN_TYPE
    )


def _one_of_each(samples: list[p.WireModel]) -> list[p.WireModel]:
    firsts: dict[type, p.WireModel] = {}
    for sample in samples:
        firsts.setdefault(type(sample), sample)
    return list(firsts.values())


@pytest.mark.parametrize("message", _one_of_each(SERVER_SAMPLES), ids=_id)
def test_a_server_message_sent_by_a_client_is_unknown_type(
    codec: Codec, message: p.WireModel
) -> None:
    error = _refusal(codec, codec.encode(message))
    assert error.code == ErrorCode.UNKNOWN_TYPE


@pytest.mark.parametrize("message", _one_of_each(CLIENT_SAMPLES), ids=_id)
def test_a_client_message_sent_by_the_server_is_unknown_type(
    codec: Codec, message: p.WireModel
) -> None:
    assert _refusal(codec, codec.encode(message), server=True).code == ErrorCode.UNKNOWN_TYPE


def _act(action: Json, state_id: Json = 5) -> dict[str, Json]:
    return {"type": "act", "game": "g1", "state_id": state_id, "action": action}


BAD_CLIENT_MESSAGES: list[tuple[str, dict[str, Json], str]] = [
    # (case, message, the field path the error names)
    ("state_id as a string", _act({"kind": "end_turn"}, state_id="5"), "state_id"),
    ("state_id as a bool", _act({"kind": "end_turn"}, state_id=True), "state_id"),
    ("state_id as a float", _act({"kind": "end_turn"}, state_id=5.0), "state_id"),
    ("negative state_id", _act({"kind": "end_turn"}, state_id=-1), "state_id"),
    ("edge as a string", _act({"kind": "build_road", "edge": "x"}), "action.edge"),
    ("vertex as a bool", _act({"kind": "build_city", "vertex": False}), "action.vertex"),
    ("seat as a bool", {"type": "join_game", "game": "g1", "name": "Ada", "seat": True}, "seat"),
    ("nonce as a bool", {"type": "ping", "nonce": True}, "nonce"),
    ("protocol as a string", {"type": "hello", "protocol": "1"}, "protocol"),
    ("missing protocol", {"type": "hello"}, "protocol"),
    (
        "missing state_id",
        {"type": "act", "game": "g1", "action": {"kind": "roll_dice"}},
        "state_id",
    ),
    ("missing name", {"type": "join_game", "game": "g1"}, "name"),
    ("missing edge", _act({"kind": "build_road"}), "action.edge"),
    ("extra field", {"type": "ping", "nonce": 1, "colour": "red"}, "colour"),
    ("an action naming its seat", _act({"kind": "end_turn", "seat": 0}), "action.seat"),
    ("extra card name", _act({"kind": "discard", "cards": {"gold": 1}}), "action.cards.gold"),
    ("negative discard", _act({"kind": "discard", "cards": {"brick": -1}}), "action.cards.brick"),
    (
        "negative offer",
        _act({"kind": "offer_trade", "give": {"wool": -2}, "get": {"ore": 1}}),
        "action.give.wool",
    ),
    (
        "cards as a list",
        _act({"kind": "counter_trade", "give": [1, 0, 0, 0, 0], "get": {}}),
        "action.give",
    ),
    ("seat 4", {"type": "join_game", "game": "g1", "name": "Ada", "seat": 4}, "seat"),
    ("partner 4", _act({"kind": "confirm_trade", "partner": 4}), "action.partner"),
    ("victim 4", _act({"kind": "move_robber", "hex": 3, "victim": 4}), "action.victim"),
    (
        "offer to seat 4",
        _act({"kind": "offer_trade", "give": {"brick": 1}, "get": {"ore": 1}, "to": [0, 4]}),
        "action.to.1",
    ),
    ("unknown resource", _act({"kind": "play_monopoly", "resource": "gold"}), "action.resource"),
    (
        "ratio 5",
        _act({"kind": "maritime_trade", "give": "ore", "get": "wool", "ratio": 5}),
        "action.ratio",
    ),
    ("unknown action kind", _act({"kind": "fly"}), "action"),
    ("action without kind", _act({"edge": 3}), "action"),
    ("empty game id", {"type": "watch", "game": ""}, "game"),
    ("long chat", {"type": "chat", "game": "g1", "text": "x" * 501}, "text"),
    ("radius 2", {"type": "create_game", "options": {"radius": 2}}, "options.radius"),
    (
        "bot kind",
        {"type": "create_game", "options": {"bots": [{"kind": 1}]}},
        "options.bots.0.kind",
    ),
    # The field path keeps field names that happen to equal a message type ("players").
    ("nine players", {"type": "create_game", "options": {"players": 9}}, "options.players"),
]


@pytest.mark.parametrize(
    ("message", "path"),
    [(message, path) for _, message, path in BAD_CLIENT_MESSAGES],
    ids=[case for case, _, _ in BAD_CLIENT_MESSAGES],
)
def test_a_badly_shaped_message_names_the_field(
    codec: Codec, message: dict[str, Json], path: str
) -> None:
    error = _refusal(codec, _pack(codec, message))
    assert error.code == ErrorCode.BAD_MESSAGE
    assert error.message.startswith(f"{message['type']} message at {path}: "), error.message


BAD_SERVER_MESSAGES: list[tuple[str, dict[str, Json], str]] = [
    (
        "prompt seat 4",
        {"type": "prompt", "game": "g", "state_id": 1, "seat": 4, "actions": []},
        "seat",
    ),
    (
        "prompt action",
        {"type": "prompt", "game": "g", "state_id": 1, "seat": 0, "actions": [{"kind": "x"}]},
        "actions.0",
    ),
    ("error code", {"type": "error", "code": "oops", "message": "m"}, "code"),
    # Field names equal to a message type ("events") are kept, event kinds are not.
    (
        "event dice",
        {
            "type": "events",
            "game": "g",
            "state_id": 1,
            "events": [{"kind": "dice_rolled", "seat": 0, "dice": ["a", 1]}],
        },
        "events.0.dice.0",
    ),
]


@pytest.mark.parametrize(
    ("message", "path"),
    [(message, path) for _, message, path in BAD_SERVER_MESSAGES],
    ids=[case for case, _, _ in BAD_SERVER_MESSAGES],
)
def test_a_badly_shaped_server_message_names_the_field(
    codec: Codec, message: dict[str, Json], path: str
) -> None:
    error = _refusal(codec, _pack(codec, message), server=True)
    assert error.code == ErrorCode.BAD_MESSAGE
    assert error.message.startswith(f"{message['type']} message at {path}: "), error.message


def _with_new_fields(node: Json) -> Json:
    """The data with a field no model has added to every object in it, as a newer server
    might send."""
    if isinstance(node, dict):
        return {**{k: _with_new_fields(v) for k, v in node.items()}, "added_later": [1]}
    if isinstance(node, list):
        return [_with_new_fields(v) for v in node]
    return node


@pytest.mark.parametrize("message", SERVER_SAMPLES, ids=_id)
def test_a_client_drops_fields_a_newer_server_adds(codec: Codec, message: p.WireModel) -> None:
    """Every object of every server message, nested ones (views, events, actions) too."""
    grown = _with_new_fields(message.model_dump(mode="json"))
    assert codec.decode_server(_pack(codec, grown)) == message


def test_a_clients_read_loop_skips_a_type_it_does_not_know(codec: Codec) -> None:
    assert codec.read_server(_pack(codec, {"type": "weather", "game": "g"})) is None
    assert codec.read_server(codec.encode(m.Pong(nonce=2))) == m.Pong(nonce=2)
    with pytest.raises(ProtocolError) as info:  # a known type badly shaped is still an error
        codec.read_server(_pack(codec, {"type": "pong", "nonce": "two"}))
    assert info.value.code == ErrorCode.BAD_MESSAGE


def test_a_new_field_does_not_hide_a_real_problem() -> None:
    codec = Codec(SUBPROTOCOL_JSON)
    bad = {"type": "prompt", "game": "g", "state_id": 1, "seat": 4, "actions": [], "new": 1}
    error = _refusal(codec, json.dumps(bad), server=True)
    assert error.code == ErrorCode.BAD_MESSAGE and "at seat" in error.message
    # The server itself stays strict: a client's unknown field is refused.
    ping = json.dumps({"type": "ping", "nonce": 1, "new": 1})
    assert _refusal(codec, ping).code == ErrorCode.BAD_MESSAGE


def test_several_problems_are_counted() -> None:
    codec = Codec(SUBPROTOCOL_JSON)
    error = _refusal(codec, json.dumps({"type": "join_game", "seat": "x", "extra": 1}))
    assert error.code == ErrorCode.BAD_MESSAGE
    assert error.message.endswith("(and 2 more problems)"), error.message


def test_a_refusal_names_the_game_its_message_named(codec: Codec) -> None:
    """So a client in several games knows which one a badly shaped message was for."""
    act = {"type": "act", "game": "g7Qx", "state_id": 3, "action": {"kind": "end_turn"}}
    bad_field = {**act, "action": {"kind": "build_city", "vertex": "3"}}
    for message, code in (
        (bad_field, ErrorCode.BAD_MESSAGE),
        ({**act, "seat": 0}, ErrorCode.BAD_MESSAGE),  # a field no act has
        ({**act, "type": "teleport"}, ErrorCode.UNKNOWN_TYPE),
    ):
        error = _refusal(codec, _pack(codec, message))
        assert (error.code, error.to_message().game) == (code, "g7Qx")
    for game in (7, "", "x" * 65):  # no game id: not named back
        assert _refusal(codec, _pack(codec, {**bad_field, "game": game})).game is None


def test_a_protocol_error_becomes_an_error_message(codec: Codec) -> None:
    error = ProtocolError(ErrorCode.STALE_STATE, "resend for state 17")
    assert isinstance(error, Exception)
    assert str(error) == "resend for state 17"
    reply = error.to_message()
    assert isinstance(reply, m.Error)
    assert (reply.code, reply.message, reply.detail) == (
        ErrorCode.STALE_STATE,
        "resend for state 17",
        None,
    )
    # A refusal from the codec goes back to the client as an error it can decode.
    refusal = _refusal(codec, _pack(codec, {"type": "teleport"}))
    reply = refusal.to_message()
    assert reply.code == refusal.code == ErrorCode.UNKNOWN_TYPE
    assert reply.message == refusal.message
    assert codec.decode_server(codec.encode(reply)) == reply


# ======================================================================================
# Fuzz: decoding raises ProtocolError and nothing else
# ======================================================================================

_ANY_CODE = frozenset({ErrorCode.BAD_FRAME, ErrorCode.BAD_MESSAGE, ErrorCode.UNKNOWN_TYPE})
_TAGS = [
    str(model.model_fields["type"].default) for model in m.CLIENT_MESSAGES + m.SERVER_MESSAGES
] + ["build_road", "offer_trade", "discard", "dice_rolled"]
_FIELD_NAMES = [
    "type",
    "kind",
    "game",
    "state_id",
    "action",
    "edge",
    "cards",
    "brick",
    "ore",
    "give",
    "get",
    "to",
    "options",
    "players",
    "bots",
    "seat",
    "name",
    "nonce",
    "protocol",
    "text",
]
_json_keys = st.sampled_from(_FIELD_NAMES) | st.text(max_size=6)
_json_leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats()
    | st.text(max_size=10)
    | st.sampled_from(_TAGS)
)
JSON_VALUES = st.recursive(
    _json_leaves,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_json_keys, inner, max_size=6),
    max_leaves=40,
)
_msgpack_leaves = (
    _json_leaves
    | st.binary(max_size=8)
    | st.builds(msgpack.ExtType, st.integers(0, 127), st.binary(max_size=8))
)
MSGPACK_VALUES = st.recursive(
    _msgpack_leaves,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(_json_keys | st.binary(max_size=4), inner, max_size=6)
    ),
    max_leaves=40,
)
_FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _decodes_or_refuses(codec: Codec, frame: bytes | str) -> None:
    for decode, kinds in (
        (codec.decode_client, m.CLIENT_MESSAGES),
        (codec.decode_server, m.SERVER_MESSAGES),
    ):
        try:
            message = decode(frame)
        except ProtocolError as error:
            assert error.code in _ANY_CODE
            assert isinstance(error.message, str) and error.message
        else:
            assert isinstance(message, kinds)


@_FUZZ
@given(st.binary(max_size=300))
def test_fuzz_any_bytes_on_msgpack(frame: bytes) -> None:
    _decodes_or_refuses(Codec(SUBPROTOCOL_MSGPACK), frame)


@_FUZZ
@given(st.text(max_size=300))
def test_fuzz_any_text_on_json(frame: str) -> None:
    _decodes_or_refuses(Codec(SUBPROTOCOL_JSON), frame)


@_FUZZ
@given(JSON_VALUES)
def test_fuzz_json_like_values(value: Json) -> None:
    _decodes_or_refuses(Codec(SUBPROTOCOL_MSGPACK), msgpack.packb(value, use_bin_type=True))
    _decodes_or_refuses(Codec(SUBPROTOCOL_JSON), json.dumps(value))


@_FUZZ
@given(MSGPACK_VALUES)
def test_fuzz_msgpack_only_values(value: Json) -> None:
    _decodes_or_refuses(Codec(SUBPROTOCOL_MSGPACK), msgpack.packb(value, use_bin_type=True))


_VALID_DUMPS = [s.model_dump(mode="json") for s in CLIENT_SAMPLES + SERVER_SAMPLES]


def _near_valid(dump: dict[str, Json], data: st.DataObject) -> Json:
    """A copy of ``dump`` with one field (at any depth) replaced, removed or added."""
    value: Json = json.loads(json.dumps(dump))  # a deep copy
    node = value
    while True:
        keys = sorted(node) if isinstance(node, dict) else list(range(len(node)))
        children = [k for k in keys if isinstance(node[k], dict | list) and node[k]]
        if not children or data.draw(st.booleans()):
            break
        node = node[data.draw(st.sampled_from(children))]
    if isinstance(node, dict):
        key = data.draw(st.sampled_from(sorted(node)) | _json_keys)
        if key in node and data.draw(st.booleans()):
            del node[key]
        else:
            node[key] = data.draw(JSON_VALUES)
    else:
        node[data.draw(st.integers(0, len(node) - 1))] = data.draw(JSON_VALUES)
    return value


@_FUZZ
@given(st.sampled_from(_VALID_DUMPS), st.data())
def test_fuzz_near_valid_messages(dump: dict[str, Json], data: st.DataObject) -> None:
    """A valid message with one field (at any depth) replaced, removed or added."""
    value = _near_valid(dump, data)
    _decodes_or_refuses(Codec(SUBPROTOCOL_MSGPACK), msgpack.packb(value, use_bin_type=True))
    _decodes_or_refuses(Codec(SUBPROTOCOL_JSON), json.dumps(value))


_UNIONS: tuple[TypeAdapter[Any], TypeAdapter[Any]] = (
    TypeAdapter(m.ClientMessage),
    TypeAdapter(m.ServerMessage),
)


@_FUZZ
@given(st.sampled_from(_VALID_DUMPS), st.data())
def test_a_message_decodes_as_the_union_of_all_messages_validates_it(
    dump: dict[str, Json], data: st.DataObject
) -> None:
    """The codec validates a message with its type's own model: it makes what the union
    makes, fields given included, and refuses what the union refuses."""
    value = _near_valid(dump, data) if data.draw(st.booleans()) else dump
    for codec in (Codec(SUBPROTOCOL_MSGPACK), Codec(SUBPROTOCOL_JSON)):
        frame = _pack(codec, value)
        for decode, union in zip((codec.decode_client, codec.decode_server), _UNIONS, strict=True):
            try:
                expected = union.validate_python(value)
            except ValidationError:
                expected = None
            try:
                got = decode(frame)
            except ProtocolError:
                got = None
            if expected is None:  # a client may drop a newer server's fields: no refusal
                assert got is None or decode == codec.decode_server
                continue
            assert type(got) is type(expected) and got == expected
            assert got.model_fields_set == expected.model_fields_set
