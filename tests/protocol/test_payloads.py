"""Actions, events and views against the engine: every conversion of seeded random games is
exact, secret-preserving and survives both encodings, and the wire models stay in step with
the engine's dataclasses.

The expected wire values are derived here from the engine's enums (``Resource.ORE`` is
``"ore"``), not from the protocol's own name tables.
"""

from __future__ import annotations

import re
import typing
from dataclasses import asdict, dataclass, field, fields
from functools import cache
from typing import Any, cast

import pytest
from pydantic import TypeAdapter

from engine import (
    ACTION_TYPES,
    EVENT_TYPES,
    CounterTrade,
    DevCard,
    Discard,
    GameConfig,
    MaritimeTrade,
    MoveRobber,
    OfferTrade,
    PlayMonopoly,
    PlayYearOfPlenty,
    Resource,
    Terrain,
    View,
    legal_actions,
    seats_to_act,
    view,
)
from engine import events as ee
from engine.actions import Action
from engine.constants import HARBOUR_GENERIC
from engine.events import Event
from protocol import (
    SUBPROTOCOLS,
    Codec,
    action_from_engine,
    action_to_engine,
    event_from_engine,
    view_from_engine,
)
from protocol import messages as m
from protocol import payloads as p
from protocol.payloads import actions_from_engine
from tests.engine.randomplay import random_steps
from tests.protocol.exact import assert_exactly, revalidated

RESOURCES = [r.name.lower() for r in Resource]
DEV_CARDS = [d.name.lower() for d in DevCard]
CODECS = [Codec(name) for name in SUBPROTOCOLS]
SECRET_VIEW_FIELDS = frozenset(
    {"seat", "hand", "development", "development_new", "own_points", "trade_ratios"}
)


# ======================================================================================
# Seeded random games (listed actions plus domestic trades and multi-card discards)
# ======================================================================================


@dataclass(frozen=True)
class Snapshot:
    """What every recipient was shown at one moment, with the true hands."""

    views: dict[int | None, View]
    hands: tuple[tuple[int, ...], ...]


@dataclass
class GameLog:
    config: GameConfig
    actions: list[Action] = field(default_factory=list)
    events: list[list[Event]] = field(default_factory=list)
    snapshots: list[Snapshot] = field(default_factory=list)


GAMES: dict[str, tuple[GameConfig, int]] = {
    "standard": (GameConfig(), 1),
    "spiral-3p": (GameConfig(players=3, board_setup="spiral"), 2),
    "2p-8vp": (GameConfig(players=2, victory_points=8), 3),
    "radius4": (GameConfig(radius=4), 4),
}


@cache
def game_log(name: str) -> GameLog:
    config, seed = GAMES[name]
    log = GameLog(config)
    state = None
    for step in random_steps(config, seed, max_actions=4000):
        state = step.state
        log.actions.append(step.action)
        log.events.append(step.events)
        if step.index % 5 == 0 or state.offer is not None or state.is_over:
            recipients: list[int | None] = [None, *range(config.players)]
            log.snapshots.append(
                Snapshot(
                    views={q: view(state, q) for q in recipients},
                    hands=tuple(state.hand_of(q) for q in range(config.players)),
                )
            )
    assert state is not None and state.is_over, "every seeded game is played to the end"
    return log


def test_the_games_exercise_every_action_and_event() -> None:
    actions = {type(a) for name in GAMES for a in game_log(name).actions}
    events = {type(e) for name in GAMES for es in game_log(name).events for e in es}
    assert actions == set(ACTION_TYPES)
    assert events == set(EVENT_TYPES)
    offers = [a for name in GAMES for a in game_log(name).actions if isinstance(a, OfferTrade)]
    assert any(a.to is not None and len(a.to) > 1 for a in offers)
    assert any(sum(a.give) > 1 for a in offers)
    discards = [a for name in GAMES for a in game_log(name).actions if isinstance(a, Discard)]
    assert any(sum(a.cards) > 1 for a in discards)


# ======================================================================================
# The expected wire form of an engine value, from the engine's enums
# ======================================================================================


def _expected(value: Any, annotation: str) -> Any:
    """The JSON form of an engine field value of the given (string) annotation."""
    if value is None:
        return None
    base = annotation.removesuffix(" | None")
    if base == "Counts":
        return dict(zip(RESOURCES, value, strict=True))
    if base == "Resource":
        return Resource(value).name.lower()
    if base == "DevCard":
        return DevCard(value).name.lower()
    if base.startswith("tuple["):
        inner = base.removeprefix("tuple[").removesuffix("]").split(",")[0].strip()
        return [_expected(v, inner) for v in value]
    return value


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _expected_dump(value: Any, *, drop: frozenset[str] = frozenset()) -> dict[str, Any]:
    dump = {"kind": _snake(type(value).__name__)}
    for f in fields(value):
        if f.name not in drop:
            dump[f.name] = _expected(getattr(value, f.name), str(f.type))
    return dump


# ======================================================================================
# Actions
# ======================================================================================


def _payload(wire: p.WireModel) -> p.ActionPayload:
    """A converted action, typed as what ``act`` carries."""
    return cast(p.ActionPayload, wire)


@pytest.mark.parametrize("game", GAMES)
def test_every_action_converts_both_ways(game: str) -> None:
    codec = CODECS[0]
    for i, action in enumerate(game_log(game).actions):
        wire = action_from_engine(action)
        assert type(wire) is p.ACTION_PAYLOADS[type(action)]
        assert wire.model_dump(mode="json") == _expected_dump(action, drop=frozenset({"seat"}))
        back = action_to_engine(wire, action.seat)
        assert back == action
        assert type(back) is type(action)
        hash(back)  # engine actions stay hashable: no lists inside
        if i % 3 == 0:  # and the way the server receives it
            act = codec.decode_client(
                codec.encode(m.Act(game="g", state_id=i, action=_payload(wire)))
            )
            assert action_to_engine(act.action, action.seat) == action


TRADES: list[tuple[Action, dict[str, Any]]] = [
    (
        OfferTrade(2, (2, 0, 1, 0, 0), (0, 0, 0, 3, 1), (0, 1, 3)),
        {
            "give": {"brick": 2, "wool": 1},
            "get": {"grain": 3, "ore": 1},
            "to": [0, 1, 3],
        },
    ),
    (OfferTrade(0, (0, 4, 0, 0, 0), (1, 0, 0, 0, 0), None), {"give": {"lumber": 4}, "to": None}),
    (OfferTrade(1, (1, 1, 1, 1, 0), (0, 0, 0, 0, 2), (3,)), {"get": {"ore": 2}, "to": [3]}),
    (OfferTrade(1, (1, 0, 0, 0, 0), (0, 1, 0, 0, 0), ()), {"to": []}),
    (
        CounterTrade(3, (0, 0, 2, 2, 0), (1, 1, 0, 0, 0)),
        {"give": {"wool": 2, "grain": 2}, "get": {"brick": 1, "lumber": 1}},
    ),
    (Discard(1, (2, 1, 0, 3, 0)), {"cards": {"brick": 2, "lumber": 1, "grain": 3}}),
    (Discard(0, (0, 0, 0, 0, 10)), {"cards": {"ore": 10}}),
    (PlayYearOfPlenty(0, (0, 0, 2, 0, 0)), {"cards": {"wool": 2}}),
    (MaritimeTrade(1, Resource.ORE, Resource.BRICK, 2), {"give": "ore", "get": "brick"}),
    (PlayMonopoly(2, Resource.LUMBER), {"resource": "lumber"}),
    (MoveRobber(1, 7, None), {"hex": 7, "victim": None}),
    (MoveRobber(3, 18, 0), {"hex": 18, "victim": 0}),
]


@pytest.mark.parametrize(
    ("action", "expected"),
    TRADES,
    ids=[f"{type(a).__name__}-{i}" for i, (a, _) in enumerate(TRADES)],
)
def test_multi_card_and_targeted_actions(action: Action, expected: dict[str, Any]) -> None:
    wire = action_from_engine(action)
    dump = wire.model_dump(mode="json")
    for name, value in expected.items():
        if isinstance(value, dict):
            value = {r: value.get(r, 0) for r in RESOURCES}
        assert dump[name] == value, name
    if isinstance(action, OfferTrade):
        assert isinstance(wire, p.OfferTrade)
        assert wire.to is None or type(wire.to) is list  # a list on the wire
    for codec in CODECS:
        decoded = codec.decode_client(
            codec.encode(m.Act(game="g", state_id=0, action=_payload(wire)))
        )
        back = action_to_engine(decoded.action, action.seat)
        assert back == action
        if isinstance(back, OfferTrade):
            assert back.to is None or type(back.to) is tuple  # a tuple in the engine


def _generic_action_to_engine(payload: p.WireModel, seat: int) -> Action:
    """The engine action a wire action means, converted field by field from the model's
    fields (how the protocol converted it before it had a conversion for each model)."""
    kind = {model: k for k, model in p.ACTION_PAYLOADS.items()}[type(payload)]
    values: dict[str, Any] = {"seat": seat}
    for name in type(payload).model_fields:
        if name == "kind":
            continue
        value = getattr(payload, name)
        if name in ("resource", "give", "get") and isinstance(value, str):
            value = Resource(p.RESOURCE_NAMES.index(value))
        if isinstance(value, p.Cards):
            value = value.counts()
        elif isinstance(value, list):
            value = tuple(value)
        values[name] = value
    action: Action = kind(**values)
    return action


@pytest.mark.parametrize("game", GAMES)
def test_every_legal_action_converts_as_field_by_field(game: str) -> None:
    """Every action listed to every seat that must act, and every action played (domestic
    trades too), in every state of the game: the wire forms listed are those of
    action_from_engine, and each comes back as the generic conversion makes it, of the
    same types within."""
    config, seed = GAMES[game]
    for step in random_steps(config, seed, max_actions=4000):
        for seat in seats_to_act(step.state):
            listed = legal_actions(step.state, seat)
            wires = actions_from_engine(listed)
            assert wires == [action_from_engine(a) for a in listed]
            assert all(a is b for a, b in zip(wires, actions_from_engine(listed), strict=True))
            for action, wire in zip(listed, wires, strict=True):
                converted = action_to_engine(wire, seat)
                assert converted == action
                assert_exactly(converted, _generic_action_to_engine(wire, seat))
        played = action_from_engine(step.action)
        converted = action_to_engine(played, step.action.seat)
        assert_exactly(converted, _generic_action_to_engine(played, step.action.seat))


def test_a_kept_value_is_its_objects_until_all_are_dropped() -> None:
    kept: p.IdentityCache[str] = p.IdentityCache(3)
    objects = [object() for _ in range(4)]
    for i, obj in enumerate(objects[:3]):
        assert kept.keep(obj, f"v{i}") == f"v{i}"
    assert [kept.values.get(id(obj)) for obj in objects] == ["v0", "v1", "v2", None]
    kept.keep(objects[3], "v3")  # past the limit: the others are dropped
    assert kept.values == {id(objects[3]): "v3"}


def test_a_wire_offer_becomes_an_engine_offer() -> None:
    wire = p.OfferTrade(give=p.Cards(brick=1, ore=2), get=p.Cards(wool=3), to=[3, 0])
    assert action_to_engine(wire, 1) == OfferTrade(1, (1, 0, 0, 0, 2), (0, 0, 3, 0, 0), (3, 0))
    counter = p.CounterTrade(give=p.Cards(grain=2), get=p.Cards(lumber=1, brick=1))
    assert action_to_engine(counter, 2) == CounterTrade(2, (0, 0, 0, 2, 0), (1, 1, 0, 0, 0))
    trade = action_to_engine(p.MaritimeTrade(give="wool", get="grain", ratio=4), 0)
    assert trade == MaritimeTrade(0, Resource.WOOL, Resource.GRAIN, 4)
    assert isinstance(trade, MaritimeTrade) and type(trade.give) is Resource
    # The seat comes from the connection, never from the payload.
    assert action_to_engine(p.EndTurn(), 3).seat == 3


# ======================================================================================
# Events
# ======================================================================================


def _entitled(event: Event, seat: int | None) -> bool:
    if isinstance(event, ee.Stolen):
        return seat is not None and seat in (event.thief, event.victim)
    if isinstance(event, ee.DevCardBought):
        return seat == event.seat
    return True


@pytest.mark.parametrize("game", GAMES)
def test_every_event_reaches_every_recipient_in_its_form(game: str) -> None:
    log = game_log(game)
    recipients: list[int | None] = [None, *range(log.config.players)]
    secrets = 0
    for i, events in enumerate(log.events):
        for seat in recipients:
            forms = [event_from_engine(e.for_seat(seat)) for e in events]
            for event, wire in zip(events, forms, strict=True):
                assert type(wire) is p.EVENT_PAYLOADS[type(event)]
                assert p.event_to_engine(wire) == event.for_seat(seat)  # and back again
                assert wire.model_dump(mode="json") == _expected_dump(event.for_seat(seat))
                if isinstance(event, ee.Stolen | ee.DevCardBought):
                    secret = "resource" if isinstance(event, ee.Stolen) else "card"
                    assert getattr(event, secret) is not None
                    shown = getattr(wire, secret)
                    if _entitled(event, seat):
                        enum = "Resource" if isinstance(event, ee.Stolen) else "DevCard"
                        assert shown is not None
                        assert shown == _expected(getattr(event, secret), enum)
                        secrets += 1
                    else:
                        assert shown is None
            for wire in forms:  # as validation would have made it of the engine's values
                assert_exactly(wire, revalidated(wire))
            message = m.Events(game="g", state_id=i + 1, events=forms)
            for codec in CODECS:
                assert codec.decode_server(codec.encode(message)) == message
    assert secrets > 0


# ======================================================================================
# Views
# ======================================================================================


def _cards(counts: tuple[int, ...] | None) -> p.Cards | None:
    return None if counts is None else p.Cards(**dict(zip(RESOURCES, counts, strict=True)))


def _dev_cards(counts: tuple[int, ...] | None) -> p.DevCards | None:
    return None if counts is None else p.DevCards(**dict(zip(DEV_CARDS, counts, strict=True)))


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def _card_paths(value: Any, path: str = "") -> set[str]:
    """Where in a dumped payload resource-card objects appear."""
    if isinstance(value, dict):
        if set(value) == set(RESOURCES):
            return {path}
        return {x for k, v in value.items() for x in _card_paths(v, f"{path}.{k}".lstrip("."))}
    if isinstance(value, list):
        return {x for i, v in enumerate(value) for x in _card_paths(v, f"{path}.{i}")}
    return set()


def _check_view(engine_view: View, payload: p.ViewPayload) -> None:
    """Every field of the payload against the engine view, names from the engine's enums."""
    board = engine_view.board
    assert payload.board.radius == board["radius"]
    assert payload.board.terrain == [Terrain(t).name.lower() for t in board["terrain"]]  # type: ignore[attr-defined]
    assert payload.board.tokens == list(board["tokens"])  # type: ignore[call-overload]
    assert payload.board.harbours == [
        "generic" if k == HARBOUR_GENERIC else Resource(k).name.lower()
        for k in board["harbours"]  # type: ignore[attr-defined]
    ]
    assert [s.model_dump() for s in payload.seats] == [asdict(s) for s in engine_view.seats]
    assert payload.bank == _cards(engine_view.bank)
    assert payload.hand == _cards(engine_view.hand)
    assert payload.trade_ratios == _cards(engine_view.trade_ratios)
    assert payload.development == _dev_cards(engine_view.development)
    assert payload.development_new == _dev_cards(engine_view.development_new)
    if engine_view.trade is None:
        assert payload.trade is None
    else:
        t = engine_view.trade
        assert payload.trade is not None
        assert payload.trade.offerer == t.offerer
        assert (payload.trade.give, payload.trade.get) == (_cards(t.give), _cards(t.get))
        assert payload.trade.answers == list(t.answers)
        assert [None if c is None else (c.give, c.get) for c in payload.trade.counters] == [
            None if c is None else (_cards(c[0]), _cards(c[1])) for c in t.counters
        ]
    special = {"board", "seats", "trade", "bank", "hand", "trade_ratios"}
    special |= {"development", "development_new"}
    for f in fields(engine_view):
        if f.name not in special:
            assert getattr(payload, f.name) == _plain(getattr(engine_view, f.name)), f.name


@pytest.mark.parametrize("game", GAMES)
def test_every_view_shows_its_recipient_its_own_hand_only(game: str) -> None:
    log = game_log(game)
    seen_trade = seen_over = False
    for k, snap in enumerate(log.snapshots):
        public: dict[str, Any] | None = None
        for seat, engine_view in snap.views.items():
            payload = view_from_engine(engine_view)
            _check_view(engine_view, payload)
            assert p.view_to_engine(payload) == engine_view  # and back again
            assert payload.seat == seat
            dump = payload.model_dump(mode="json")
            paths = _card_paths(dump)
            allowed = {"bank", "trade.give", "trade.get"}
            allowed |= {f"trade.counters.{i}.{s}" for i in range(4) for s in ("give", "get")}
            if seat is None:
                for name in SECRET_VIEW_FIELDS - {"seat"}:
                    assert dump[name] is None, name
            else:
                assert payload.hand == _cards(snap.hands[seat])
                allowed |= {"hand", "trade_ratios"}
                assert {"hand", "trade_ratios"} <= paths
            assert paths <= allowed, paths - allowed
            # Apart from the recipient's own fields, every recipient sees the same game.
            shared = {k: v for k, v in dump.items() if k not in SECRET_VIEW_FIELDS}
            if public is None:
                public = shared
            assert shared == public
            seen_trade |= payload.trade is not None
            seen_over |= payload.final_points is not None
            if k % 4 == 0 or payload.trade is not None or payload.final_points is not None:
                message = m.GameView(game="g", view=payload)
                for codec in CODECS:
                    assert codec.decode_server(codec.encode(message)) == message
    assert seen_trade and seen_over


# ======================================================================================
# Drift guard: the wire models follow the engine's dataclasses
# ======================================================================================


def _kind(model: type[p.WireModel]) -> str:
    annotation = model.model_fields["kind"].annotation
    (literal,) = typing.get_args(annotation)
    assert model.model_fields["kind"].default == literal
    return str(literal)


def test_every_engine_action_has_a_wire_model() -> None:
    assert set(p.ACTION_PAYLOADS) == set(ACTION_TYPES)
    assert len(set(p.ACTION_PAYLOADS.values())) == len(ACTION_TYPES)


@pytest.mark.parametrize("action_type", ACTION_TYPES, ids=lambda t: t.__name__)
def test_action_model_fields_are_the_engine_fields_less_seat(action_type: type) -> None:
    model = p.ACTION_PAYLOADS[action_type]
    engine_fields = {f.name for f in fields(action_type)}
    assert "seat" in engine_fields
    assert set(model.model_fields) == engine_fields - {"seat"} | {"kind"}
    assert _kind(model) == _snake(action_type.__name__)


def test_every_engine_event_has_a_wire_model() -> None:
    assert set(p.EVENT_PAYLOADS) == set(EVENT_TYPES)
    assert len(set(p.EVENT_PAYLOADS.values())) == len(EVENT_TYPES)


@pytest.mark.parametrize("event_type", EVENT_TYPES, ids=lambda t: t.__name__)
def test_event_model_fields_are_the_engine_fields(event_type: type) -> None:
    model = p.EVENT_PAYLOADS[event_type]
    assert set(model.model_fields) == {f.name for f in fields(event_type)} | {"kind"}
    assert _kind(model) == _snake(event_type.__name__)


@pytest.mark.parametrize(
    ("models", "union"),
    [
        (list(p.ACTION_PAYLOADS.values()), p.ActionPayload),
        (list(p.EVENT_PAYLOADS.values()), p.EventPayload),
    ],
    ids=["actions", "events"],
)
def test_kinds_are_unique_and_all_in_the_union(models: list[type[p.WireModel]], union: Any) -> None:
    kinds = [_kind(model) for model in models]
    assert len(set(kinds)) == len(kinds)
    mapping = TypeAdapter(union).json_schema()["discriminator"]["mapping"]
    assert set(mapping) == set(kinds)


def test_wire_names_are_the_engine_enum_names() -> None:
    assert list(p.RESOURCE_NAMES) == RESOURCES
    assert list(p.DEV_CARD_NAMES) == DEV_CARDS
    assert list(p.Cards.model_fields) == RESOURCES
    assert list(p.DevCards.model_fields) == DEV_CARDS
    assert p.Cards.of((1, 2, 3, 4, 5)).counts() == (1, 2, 3, 4, 5)
    assert p.Cards.of((0, 0, 0, 0, 7)) == p.Cards(ore=7)
    assert p.DevCards.of((0, 1, 0, 0, 0)) == p.DevCards(victory_point=1)
