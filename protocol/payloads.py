"""What messages carry about a game: actions, events and views, and their conversion from
and to the engine's values.

On the wire, cards are objects by resource name (``{"brick": 1, "ore": 2}``, absent means
0), resources and development cards are names, and an action or event names its ``kind``.
Actions carry no seat: the server knows whose they are from the seat token.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields
from typing import TYPE_CHECKING, Annotated, Any, Generic, Literal, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field

import engine
from engine import actions as ea
from engine import events as ee
from engine.constants import HARBOUR_LAYOUT, DevCard, Resource


class WireModel(BaseModel):
    """Base of every protocol model: strict types, no unknown fields, immutable."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


Model = TypeVar("Model", bound=WireModel)
Value = TypeVar("Value")
_set_attribute = object.__setattr__
_set_fields_given = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
"""Setters of the slots every pydantic model has, called directly."""


class IdentityCache(Generic[Value]):
    """Values kept for objects by identity, without hashing them: ``values[id(obj)]`` is
    the value kept for ``obj``. Each object is held while its value is kept, so no other
    object can have its id meanwhile: an id found in ``values`` is that object's. Past
    ``limit`` objects, all are dropped."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.values: dict[int, Value] = {}
        self._held: list[object] = []

    def keep(self, obj: object, value: Value) -> Value:
        """Keep ``value`` for ``obj``; returns ``value``."""
        if len(self.values) >= self.limit:
            self.values.clear()
            self._held.clear()
        self._held.append(obj)
        self.values[id(obj)] = value
        return value


def assume_valid(cls: type[Model], values: dict[str, Any], given: set[str]) -> Model:
    """The ``cls`` that validating ``values`` would give, made without validating them: for
    values known to be valid, of exactly the types validation leaves (``values`` holds every
    field; ``given`` names the fields that were given rather than defaulted). A
    ``model_construct`` that does no work for aliases or defaults."""
    model = cls.__new__(cls)
    _set_attribute(model, "__dict__", values)
    _set_fields_given(model, given)
    _set_extra(model, None)
    _set_private(model, None)
    return model


ResourceName = Literal["brick", "lumber", "wool", "grain", "ore"]
DevCardName = Literal["knight", "victory_point", "road_building", "year_of_plenty", "monopoly"]
RESOURCE_NAMES: tuple[ResourceName, ...] = ("brick", "lumber", "wool", "grain", "ore")
DEV_CARD_NAMES: tuple[DevCardName, ...] = (
    "knight",
    "victory_point",
    "road_building",
    "year_of_plenty",
    "monopoly",
)
Count = Annotated[int, Field(ge=0, le=1000)]
Id = Annotated[int, Field(ge=0, le=100_000)]
SeatNo = Annotated[int, Field(ge=0, le=3)]


class Cards(WireModel):
    """Resource cards by name; a missing name is zero."""

    brick: Count = 0
    lumber: Count = 0
    wool: Count = 0
    grain: Count = 0
    ore: Count = 0

    @classmethod
    def of(cls, counts: tuple[int, ...] | list[int]) -> Cards:
        return _cards(tuple(counts))

    def counts(self) -> ea.Counts:
        return (self.brick, self.lumber, self.wool, self.grain, self.ore)


def _named(counts: tuple[int, ...] | list[int]) -> dict[str, int]:
    return dict(zip(RESOURCE_NAMES, counts, strict=True))


@functools.lru_cache(maxsize=4096)
def _cards(counts: tuple[int, ...]) -> Cards:
    """The (immutable, so shared) wire form of the hands met most often."""
    return Cards(**_named(counts))


class DevCards(WireModel):
    """Development cards by kind."""

    knight: Count = 0
    victory_point: Count = 0
    road_building: Count = 0
    year_of_plenty: Count = 0
    monopoly: Count = 0

    @classmethod
    def of(cls, counts: tuple[int, ...] | list[int]) -> DevCards:
        return cls(**dict(zip(DEV_CARD_NAMES, counts, strict=True)))


# ======================================================================================
# Actions (client -> server inside "act", server -> client inside "prompt")
# ======================================================================================


class PlaceSettlement(WireModel):
    """Set-up: a free settlement on an intersection."""

    kind: Literal["place_settlement"] = "place_settlement"
    vertex: Id


class PlaceRoad(WireModel):
    """Set-up: a free road touching the settlement just placed."""

    kind: Literal["place_road"] = "place_road"
    edge: Id


class RollDice(WireModel):
    kind: Literal["roll_dice"] = "roll_dice"


class Discard(WireModel):
    """Give back cards after a seven: any number up to what is still owed."""

    kind: Literal["discard"] = "discard"
    cards: Cards


class MoveRobber(WireModel):
    """Move the robber and rob ``victim`` (null when nobody there can be robbed)."""

    kind: Literal["move_robber"] = "move_robber"
    hex: Id
    victim: SeatNo | None = None


class BuildRoad(WireModel):
    kind: Literal["build_road"] = "build_road"
    edge: Id


class BuildSettlement(WireModel):
    kind: Literal["build_settlement"] = "build_settlement"
    vertex: Id


class BuildCity(WireModel):
    kind: Literal["build_city"] = "build_city"
    vertex: Id


class BuyDevCard(WireModel):
    kind: Literal["buy_dev_card"] = "buy_dev_card"


class PlayKnight(WireModel):
    kind: Literal["play_knight"] = "play_knight"


class PlayRoadBuilding(WireModel):
    kind: Literal["play_road_building"] = "play_road_building"


class PlayYearOfPlenty(WireModel):
    kind: Literal["play_year_of_plenty"] = "play_year_of_plenty"
    cards: Cards


class PlayMonopoly(WireModel):
    kind: Literal["play_monopoly"] = "play_monopoly"
    resource: ResourceName


class MaritimeTrade(WireModel):
    """Give ``ratio`` cards of ``give`` to the bank for one ``get`` (ratio: your best)."""

    kind: Literal["maritime_trade"] = "maritime_trade"
    give: ResourceName
    get: ResourceName
    ratio: Annotated[int, Field(ge=2, le=4)]


class OfferTrade(WireModel):
    """Offer other players ``give`` for ``get``; ``to``: the seats asked (null: everyone)."""

    kind: Literal["offer_trade"] = "offer_trade"
    give: Cards
    get: Cards
    to: list[SeatNo] | None = None


class AcceptTrade(WireModel):
    kind: Literal["accept_trade"] = "accept_trade"


class DeclineTrade(WireModel):
    kind: Literal["decline_trade"] = "decline_trade"


class CounterTrade(WireModel):
    """Answer the open offer with other terms, from your side: you give ``give``."""

    kind: Literal["counter_trade"] = "counter_trade"
    give: Cards
    get: Cards


class ConfirmTrade(WireModel):
    """The offerer completes the trade with a seat that accepted or countered."""

    kind: Literal["confirm_trade"] = "confirm_trade"
    partner: SeatNo


class CancelTrade(WireModel):
    kind: Literal["cancel_trade"] = "cancel_trade"


class EndTurn(WireModel):
    kind: Literal["end_turn"] = "end_turn"


ActionPayload = Annotated[
    PlaceSettlement
    | PlaceRoad
    | RollDice
    | Discard
    | MoveRobber
    | BuildRoad
    | BuildSettlement
    | BuildCity
    | BuyDevCard
    | PlayKnight
    | PlayRoadBuilding
    | PlayYearOfPlenty
    | PlayMonopoly
    | MaritimeTrade
    | OfferTrade
    | AcceptTrade
    | DeclineTrade
    | CounterTrade
    | ConfirmTrade
    | CancelTrade
    | EndTurn,
    Field(discriminator="kind"),
]
"""Any action a seat may send."""

ACTION_PAYLOADS: dict[type, type[WireModel]] = {
    kind: globals()[kind.__name__] for kind in ea.ACTION_TYPES
}
"""The wire model of each engine action type: the model of the same name, with the same
fields less the seat (a test keeps the two in step)."""


def _to_wire(value: Any, field_type: str) -> Any:
    if field_type == "Counts":
        return Cards.of(value)
    if field_type == "Resource":
        return RESOURCE_NAMES[value]
    if field_type == "DevCard":
        return DEV_CARD_NAMES[value]
    if field_type.startswith("Resource |"):
        return None if value is None else RESOURCE_NAMES[value]
    if field_type.startswith("DevCard |"):
        return None if value is None else DEV_CARD_NAMES[value]
    if isinstance(value, tuple) and field_type != "Counts":
        return [_plain(v) for v in value]
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def _from_wire(value: Any) -> Any:
    if isinstance(value, Cards):
        return value.counts()
    if isinstance(value, list):
        return tuple(value)
    return value


_PLAIN_FIELDS = frozenset(
    {"Seat", "Seat | None", "VertexId", "EdgeId", "HexId", "int", "bool", "str"}
)
"""Field types whose engine values go on the wire as they are."""

_Fields = tuple[tuple[str, str | None], ...]
"""A dataclass's fields to convert: each name, with its type (None: taken as it is)."""


@functools.cache
def _wire_fields(kind: type, skip: str = "") -> _Fields:
    """The fields of an engine action or event type to put on the wire, but ``skip``."""
    return tuple(
        (f.name, None if str(f.type) in _PLAIN_FIELDS else str(f.type))
        for f in fields(kind)
        if f.name != skip
    )


@functools.lru_cache(maxsize=8192)
def action_from_engine(action: engine.Action) -> ActionPayload:
    """The wire form of an engine action (its seat dropped). Wire models are immutable, so
    the forms of the actions met most often are kept and shared."""
    cls: type = type(action)
    model = ACTION_PAYLOADS[cls]
    values = {
        name: getattr(action, name) if kind is None else _to_wire(getattr(action, name), kind)
        for name, kind in _wire_fields(cls, "seat")
    }
    return cast("ActionPayload", model(**values))  # ACTION_PAYLOADS holds only these


_wire_actions: IdentityCache[ActionPayload] = IdentityCache(1 << 14)
"""The wire forms of the engine actions met so far: the listed actions are the engine's
interned ones, met again and again."""


def actions_from_engine(actions: Sequence[engine.Action]) -> list[ActionPayload]:
    """The wire forms of engine actions, in order: each the one :func:`action_from_engine`
    gives, found by the action's identity first (without hashing it)."""
    try:
        return list(map(_wire_actions.values.__getitem__, map(id, actions)))
    except KeyError:  # one met for the first time
        pass
    out = []
    for action in actions:
        wire = _wire_actions.values.get(id(action))
        if wire is None:
            wire = _wire_actions.keep(action, action_from_engine(action))
        out.append(wire)
    return out


_RESOURCES_BY_NAME = {name: Resource(i) for i, name in enumerate(RESOURCE_NAMES)}
_Convert = Callable[[Any], Any]


def _seats(value: list[int] | None) -> tuple[int, ...] | None:
    return None if value is None else tuple(value)


_FROM_WIRE: dict[str, _Convert] = {
    "Counts": Cards.counts,
    "Resource": _RESOURCES_BY_NAME.__getitem__,
    "tuple[Seat, ...] | None": _seats,
}
"""How a wire value becomes the engine's, by the engine field's type (others are taken as
they are)."""
_TO_ENGINE: dict[type, tuple[type, tuple[tuple[str, _Convert | None], ...]]] = {
    model: (kind, tuple((f.name, _FROM_WIRE.get(str(f.type))) for f in fields(kind)[1:]))
    for kind, model in ACTION_PAYLOADS.items()
}
"""Each wire action model's engine action type, and that type's fields after the seat,
each with its conversion."""


def action_to_engine(payload: WireModel, seat: int) -> engine.Action:
    """The engine action a seat means by a wire action. Names become enum values."""
    kind, wire_fields = _TO_ENGINE[type(payload)]
    values: list[Any] = [seat]
    for name, convert in wire_fields:
        value = getattr(payload, name)
        values.append(value if convert is None else convert(value))
    action: engine.Action = kind(*values)
    return action


# ======================================================================================
# Events (server -> client inside "events"), each already in its recipient's form
# ======================================================================================


def _event_model(cls: type) -> type[WireModel]:
    """The wire model of an engine event dataclass: its fields, names for enums, Cards for
    count vectors, plus a literal ``kind``."""
    from pydantic import create_model

    kind = _snake(cls.__name__)
    spec: dict[str, Any] = {"kind": (Literal[kind], kind)}
    for f in fields(cls):
        spec[f.name] = (_EVENT_FIELD_TYPES[str(f.type)], ...)
    model: type[WireModel] = create_model(
        cls.__name__, __base__=WireModel, __doc__=cls.__doc__, **spec
    )
    return model


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")


_EVENT_FIELD_TYPES: dict[str, Any] = {
    "Seat": SeatNo,
    "Seat | None": SeatNo | None,
    "VertexId": Id,
    "EdgeId": Id,
    "HexId": Id,
    "int": int,
    "bool": bool,
    "str": str,
    "Counts": Cards,
    "Counts | None": Cards | None,
    "Resource": ResourceName,
    "Resource | None": ResourceName | None,
    "DevCard": DevCardName,
    "DevCard | None": DevCardName | None,
    "tuple[int, int]": list[int],
    "tuple[int, ...]": list[int],
    "tuple[Seat, ...]": list[SeatNo],
    "tuple[Counts, ...]": list[Cards],
    "tuple[Resource, ...]": list[ResourceName],
}

EVENT_PAYLOADS: dict[type, type[WireModel]] = {cls: _event_model(cls) for cls in ee.EVENT_TYPES}
"""The wire model of each engine event type."""


def _cards_or_none(counts: ea.Counts | None) -> Cards | None:
    return None if counts is None else Cards.of(counts)


def _name_or_none(names: tuple[str, ...]) -> Callable[[int | None], str | None]:
    def name(value: int | None) -> str | None:
        return None if value is None else names[value]

    return name


_EVENT_TO_WIRE: dict[str, _Convert] = {
    "Counts": Cards.of,
    "Counts | None": _cards_or_none,
    "Resource": RESOURCE_NAMES.__getitem__,
    "Resource | None": _name_or_none(RESOURCE_NAMES),
    "DevCard": DEV_CARD_NAMES.__getitem__,
    "DevCard | None": _name_or_none(DEV_CARD_NAMES),
    "tuple[int, int]": list,
    "tuple[int, ...]": list,
    "tuple[Seat, ...]": list,
    "tuple[Counts, ...]": lambda value: [Cards.of(v) for v in value],
    "tuple[Resource, ...]": lambda value: [RESOURCE_NAMES[v] for v in value],
}
"""How an engine event's value goes on the wire, by the field's type (the types of
_EVENT_FIELD_TYPES not here go as they are)."""
_EVENT_FORMS = {
    cls: (
        model,
        str(model.model_fields["kind"].default),
        tuple((f.name, _EVENT_TO_WIRE.get(str(f.type))) for f in fields(cls)),
        frozenset(f.name for f in fields(cls)),
    )
    for cls, model in EVENT_PAYLOADS.items()
}
"""Each engine event type's wire model, kind, fields with their conversions, and the
fields it gives the model."""


_KEPT_EVENTS = 4096
"""Wire forms kept for each event type (all of a type's are dropped when there are more)."""
_event_forms: dict[type, tuple[Callable[[Any], Any], dict[Any, WireModel]]] = {
    cls: (operator.attrgetter(*(f.name for f in fields(cls))), {}) for cls in EVENT_PAYLOADS
}
"""For each engine event type: what compares its events (their values, as the dataclass's
equality compares them), and the wire forms made so far by those values."""


def event_from_engine(event: engine.Event) -> WireModel:
    """The wire form of an engine event, as given (redact with ``event.for_seat`` first).
    Wire models are immutable, so the forms of the events met most often are kept and
    shared: equal events get the same form. The engine's values are taken as valid (the
    engine makes only those)."""
    values_of, kept = _event_forms[type(event)]
    key = values_of(event)
    wire = kept.get(key)
    if wire is None:
        if len(kept) >= _KEPT_EVENTS:
            kept.clear()
        wire = kept[key] = _event_form(event)
    return wire


def _event_form(event: engine.Event) -> WireModel:
    model, kind, conversions, given = _EVENT_FORMS[type(event)]
    values: dict[str, Any] = {"kind": kind}
    for name, convert in conversions:
        value = getattr(event, name)
        values[name] = value if convert is None else convert(value)
    return assume_valid(model, values, set(given))


def _event_field_from_wire(value: Any, field_type: str) -> Any:
    if value is None:
        return None
    if field_type == "tuple[Resource, ...]":
        return tuple(Resource(RESOURCE_NAMES.index(v)) for v in value)
    if field_type.startswith("Resource"):
        return Resource(RESOURCE_NAMES.index(value))
    if field_type.startswith("DevCard"):
        return DevCard(DEV_CARD_NAMES.index(value))
    if field_type == "tuple[Counts, ...]":
        return tuple(c.counts() for c in value)
    return _from_wire(value)


def event_to_engine(payload: WireModel) -> engine.Event:
    """The engine event a wire event stands for (in the form its recipient got)."""
    kind = _ENGINE_EVENTS[type(payload)]
    values = {
        f.name: _event_field_from_wire(getattr(payload, f.name), str(f.type)) for f in fields(kind)
    }
    event: engine.Event = kind(**values)
    return event


_ENGINE_EVENTS = {model: kind for kind, model in EVENT_PAYLOADS.items()}

if TYPE_CHECKING:
    EventPayload = WireModel
else:
    EventPayload = Annotated[
        functools.reduce(operator.or_, EVENT_PAYLOADS.values()), Field(discriminator="kind")
    ]
"""Any event, told to one recipient."""


# ======================================================================================
# Views (server -> client inside "view")
# ======================================================================================


class PlayerPayload(WireModel):
    """What everyone sees of one seat."""

    seat: SeatNo
    points: int
    resource_cards: int
    development_cards: int
    knights: int
    roads_left: int
    settlements_left: int
    cities_left: int
    longest_road: int
    has_longest_road: bool
    has_largest_army: bool
    discards_owed: int


class CounterPayload(WireModel):
    give: Cards
    get: Cards


class TradePayload(WireModel):
    """The open domestic offer and each seat's answer (``not_asked``, ``pending``,
    ``accepted``, ``declined``, ``countered``); ``counters[s]`` is seat s's counter-offer."""

    offerer: SeatNo
    give: Cards
    get: Cards
    answers: list[str]
    counters: list[CounterPayload | None]


TerrainName = Literal["hills", "forest", "pasture", "fields", "mountains", "desert"]
HarbourName = Literal["brick", "lumber", "wool", "grain", "ore", "generic"]
_TERRAIN_NAMES: tuple[TerrainName, ...] = (
    "hills",
    "forest",
    "pasture",
    "fields",
    "mountains",
    "desert",
)
_HARBOUR_NAMES: tuple[HarbourName, ...] = (*RESOURCE_NAMES, "generic")


class BoardPayload(WireModel):
    """The island: terrain and number token per hex id (0 on deserts), harbour kind per
    harbour slot (a resource name for 2:1, ``generic`` for 3:1). Ids are the engine's for
    this radius (docs/engine.md). ``reds_may_touch`` marks a board that lets a 6 or an 8
    lie beside another (a variant; false for the boards the rules allow).
    ``harbour_layout`` says which coast edges the harbour slots are: 2, the printed frame's
    (every new board), or 1, evenly spaced from the coast's first edge past due east (boards
    of games stored before; a board without the field has this layout)."""

    radius: int
    terrain: list[TerrainName]
    tokens: list[int]
    harbours: list[HarbourName]
    reds_may_touch: bool = False
    harbour_layout: Literal[1, 2] = 1


def board_to_payload(board: Mapping[str, Any]) -> BoardPayload:
    """The wire form of a board given as the engine describes it (``Board.to_dict()``)."""
    return BoardPayload(
        radius=board["radius"],
        terrain=[_TERRAIN_NAMES[t] for t in board["terrain"]],
        tokens=list(board["tokens"]),
        harbours=[_HARBOUR_NAMES[k] for k in board["harbours"]],
        reds_may_touch=bool(board.get("reds_may_touch", False)),
        harbour_layout=board.get("harbour_layout", HARBOUR_LAYOUT),
    )


def board_from_payload(payload: BoardPayload) -> dict[str, Any]:
    """The engine's description of a board (what ``Board.from_layout`` takes) from its wire
    form."""
    board: dict[str, Any] = {
        "radius": payload.radius,
        "terrain": [_TERRAIN_NAMES.index(t) for t in payload.terrain],
        "tokens": list(payload.tokens),
        "harbours": [_HARBOUR_NAMES.index(k) for k in payload.harbours],
        "harbour_layout": payload.harbour_layout,
    }
    if payload.reds_may_touch:
        board["reds_may_touch"] = True
    return board


class ViewPayload(WireModel):
    """The game as one seat (or a spectator, ``seat`` null) may see it."""

    seat: SeatNo | None
    state_id: int
    players: int
    victory_points: int
    board: BoardPayload
    phase: str
    turn: int
    current: SeatNo
    to_act: list[SeatNo]
    dice: list[int] | None
    robber: int
    settlements: list[list[int]]  # [vertex, seat]
    cities: list[list[int]]
    roads: list[list[int]]  # [edge, seat]
    bank: Cards
    development_deck: int
    dev_card_played: bool
    free_roads: int
    seats: list[PlayerPayload]
    trade: TradePayload | None
    winner: SeatNo | None
    hand: Cards | None
    development: DevCards | None
    development_new: DevCards | None
    own_points: int | None
    trade_ratios: Cards | None
    final_points: list[int] | None
    victory_cards: list[int] | None


_PLAYER_FIELDS = tuple(f.name for f in fields(engine.PlayerView))
"""The fields of a seat in a view (each a number or a flag: copied as they are)."""


def view_from_engine(view: engine.View) -> ViewPayload:
    """The wire form of an engine view."""
    board: dict[str, Any] = dict(view.board)
    trade = None
    if view.trade is not None:
        t = view.trade
        trade = TradePayload(
            offerer=t.offerer,
            give=Cards.of(t.give),
            get=Cards.of(t.get),
            answers=list(t.answers),
            counters=[
                None if c is None else CounterPayload(give=Cards.of(c[0]), get=Cards.of(c[1]))
                for c in t.counters
            ],
        )
    return ViewPayload(
        seat=view.seat,
        state_id=view.state_id,
        players=view.players,
        victory_points=view.victory_points,
        board=board_to_payload(board),
        phase=view.phase,
        turn=view.turn,
        current=view.current,
        to_act=list(view.to_act),
        dice=None if view.dice is None else list(view.dice),
        robber=view.robber,
        settlements=[list(x) for x in view.settlements],
        cities=[list(x) for x in view.cities],
        roads=[list(x) for x in view.roads],
        bank=Cards.of(view.bank),
        development_deck=view.development_deck,
        dev_card_played=view.dev_card_played,
        free_roads=view.free_roads,
        seats=[PlayerPayload(**{k: getattr(p, k) for k in _PLAYER_FIELDS}) for p in view.seats],
        trade=trade,
        winner=view.winner,
        hand=None if view.hand is None else Cards.of(view.hand),
        development=None if view.development is None else DevCards.of(view.development),
        development_new=None if view.development_new is None else DevCards.of(view.development_new),
        own_points=view.own_points,
        trade_ratios=None if view.trade_ratios is None else Cards.of(view.trade_ratios),
        final_points=None if view.final_points is None else list(view.final_points),
        victory_cards=None if view.victory_cards is None else list(view.victory_cards),
    )


def view_to_engine(payload: ViewPayload) -> engine.View:
    """The engine view a wire view stands for (the inverse of :func:`view_from_engine`)."""
    b = payload.board
    trade = None
    if payload.trade is not None:
        t = payload.trade
        trade = engine.TradeView(
            offerer=t.offerer,
            give=t.give.counts(),
            get=t.get.counts(),
            answers=tuple(t.answers),
            counters=tuple(
                None if c is None else (c.give.counts(), c.get.counts()) for c in t.counters
            ),
        )

    def dev(cards: DevCards | None) -> ea.Counts | None:
        if cards is None:
            return None
        return (
            cards.knight,
            cards.victory_point,
            cards.road_building,
            cards.year_of_plenty,
            cards.monopoly,
        )

    def pairs(items: list[list[int]]) -> tuple[tuple[int, int], ...]:
        return tuple((x[0], x[1]) for x in items)

    return engine.View(
        seat=payload.seat,
        state_id=payload.state_id,
        players=payload.players,
        victory_points=payload.victory_points,
        board=board_from_payload(b),
        phase=payload.phase,
        turn=payload.turn,
        current=payload.current,
        to_act=tuple(payload.to_act),
        dice=None if payload.dice is None else (payload.dice[0], payload.dice[1]),
        robber=payload.robber,
        settlements=pairs(payload.settlements),
        cities=pairs(payload.cities),
        roads=pairs(payload.roads),
        bank=payload.bank.counts(),
        development_deck=payload.development_deck,
        dev_card_played=payload.dev_card_played,
        free_roads=payload.free_roads,
        seats=tuple(engine.PlayerView(**p.model_dump()) for p in payload.seats),
        trade=trade,
        winner=payload.winner,
        hand=None if payload.hand is None else payload.hand.counts(),
        development=dev(payload.development),
        development_new=dev(payload.development_new),
        own_points=payload.own_points,
        trade_ratios=None if payload.trade_ratios is None else payload.trade_ratios.counts(),
        final_points=None if payload.final_points is None else tuple(payload.final_points),
        victory_cards=None if payload.victory_cards is None else tuple(payload.victory_cards),
    )


__all__ = [
    "ACTION_PAYLOADS",
    "DEV_CARD_NAMES",
    "EVENT_PAYLOADS",
    "RESOURCE_NAMES",
    "ActionPayload",
    "BoardPayload",
    "Cards",
    "DevCards",
    "EventPayload",
    "PlayerPayload",
    "TradePayload",
    "ViewPayload",
    "WireModel",
    "action_from_engine",
    "action_to_engine",
    "actions_from_engine",
    "assume_valid",
    "event_to_engine",
    "view_to_engine",
    "event_from_engine",
    "view_from_engine",
]
