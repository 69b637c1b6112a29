"""Actions: small immutable values, each naming the seat that takes it.

Resource amounts are count vectors ``(brick, lumber, wool, grain, ore)``. Actions that
:func:`engine.rules.legal_actions` lists are interned per board radius and seat
(:func:`engine.tables.action_tables`), so listing them allocates nothing; equal actions
built by hand compare equal to the interned ones.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from itertools import combinations_with_replacement

from engine.constants import (
    N_RESOURCES,
    YEAR_OF_PLENTY_CARDS,
    EdgeId,
    HexId,
    Resource,
    Seat,
    VertexId,
)

Counts = tuple[int, int, int, int, int]


def counts_of(*resources: int) -> Counts:
    """A count vector holding one of each resource given (repeats add up)."""
    c = [0] * N_RESOURCES
    for r in resources:
        c[r] += 1
    return (c[0], c[1], c[2], c[3], c[4])


@dataclass(frozen=True, slots=True)
class PlaceSettlement:
    """Set-up: place a free settlement."""

    seat: Seat
    vertex: VertexId


@dataclass(frozen=True, slots=True)
class PlaceRoad:
    """Set-up: place a free road touching the settlement just placed."""

    seat: Seat
    edge: EdgeId


@dataclass(frozen=True, slots=True)
class RollDice:
    """Roll the two dice (the outcome comes from the game's RNG)."""

    seat: Seat


@dataclass(frozen=True, slots=True)
class Discard:
    """Give back cards after a seven. Any amount up to what is owed; ``legal_actions`` lists
    one card at a time."""

    seat: Seat
    cards: Counts


@dataclass(frozen=True, slots=True)
class MoveRobber:
    """Move the robber to another hex and steal from ``victim`` (None when nobody there can
    be robbed)."""

    seat: Seat
    hex: HexId
    victim: Seat | None


@dataclass(frozen=True, slots=True)
class BuildRoad:
    """Build a road (paid, or free while playing road building)."""

    seat: Seat
    edge: EdgeId


@dataclass(frozen=True, slots=True)
class BuildSettlement:
    seat: Seat
    vertex: VertexId


@dataclass(frozen=True, slots=True)
class BuildCity:
    """Upgrade one of the seat's settlements."""

    seat: Seat
    vertex: VertexId


@dataclass(frozen=True, slots=True)
class BuyDevCard:
    seat: Seat


@dataclass(frozen=True, slots=True)
class PlayKnight:
    """Play a knight (before or after rolling); the robber move follows."""

    seat: Seat


@dataclass(frozen=True, slots=True)
class PlayRoadBuilding:
    """Play road building; up to two free roads follow."""

    seat: Seat


@dataclass(frozen=True, slots=True)
class PlayYearOfPlenty:
    """Play year of plenty, taking these cards (two, or all the bank has if fewer)."""

    seat: Seat
    cards: Counts


@dataclass(frozen=True, slots=True)
class PlayMonopoly:
    seat: Seat
    resource: Resource


@dataclass(frozen=True, slots=True)
class MaritimeTrade:
    """Trade ``ratio`` cards of ``give`` to the bank for one ``get``."""

    seat: Seat
    give: Resource
    get: Resource
    ratio: int


@dataclass(frozen=True, slots=True)
class OfferTrade:
    """Offer other players ``give`` for ``get``; ``to`` is who may answer (None: everyone).
    Not listed by ``legal_actions``; ``is_legal`` checks any offer."""

    seat: Seat
    give: Counts
    get: Counts
    to: tuple[Seat, ...] | None = None


@dataclass(frozen=True, slots=True)
class AcceptTrade:
    """Accept the open offer as it stands."""

    seat: Seat


@dataclass(frozen=True, slots=True)
class DeclineTrade:
    seat: Seat


@dataclass(frozen=True, slots=True)
class CounterTrade:
    """Answer the open offer with other terms; ``give`` and ``get`` are from the answering
    seat's side. Not listed by ``legal_actions``."""

    seat: Seat
    give: Counts
    get: Counts


@dataclass(frozen=True, slots=True)
class ConfirmTrade:
    """The offerer completes the trade with a seat that accepted or countered (on the
    counter's terms)."""

    seat: Seat
    partner: Seat


@dataclass(frozen=True, slots=True)
class CancelTrade:
    """The offerer withdraws the open offer."""

    seat: Seat


@dataclass(frozen=True, slots=True)
class EndTurn:
    seat: Seat


Action = (
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
    | EndTurn
)

ACTION_TYPES: tuple[type, ...] = Action.__args__


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_counts(x: object) -> bool:
    return isinstance(x, tuple) and len(x) == N_RESOURCES and all(_is_int(c) and c >= 0 for c in x)


_SHAPES: dict[str, tuple[Callable[[object], bool], str]] = {
    "Seat": (_is_int, "a seat number"),
    "VertexId": (_is_int, "an intersection id"),
    "EdgeId": (_is_int, "a path id"),
    "HexId": (_is_int, "a hex id"),
    "Resource": (_is_int, "a resource (0-4)"),
    "int": (_is_int, "an int"),
    "Counts": (_is_counts, "five non-negative card counts"),
    "Seat | None": (lambda x: x is None or _is_int(x), "a seat number or None"),
    "tuple[Seat, ...] | None": (
        lambda x: x is None or (isinstance(x, tuple) and all(_is_int(q) for q in x)),
        "a tuple of seat numbers or None",
    ),
}
_FIELD_SHAPES = {
    kind: tuple((f.name, *_SHAPES[str(f.type)]) for f in fields(kind)) for kind in ACTION_TYPES
}


def shape_error(action: object) -> str | None:
    """Why ``action`` is not a well-formed action (a field of the wrong type), or None.

    Only the shape: whether the action is legal in a game is :func:`engine.rules.check`'s.
    """
    spec = _FIELD_SHAPES.get(type(action))
    if spec is None:
        return f"{type(action).__name__} is not an action of this game"
    for name, ok, what in spec:
        value = getattr(action, name)
        if not ok(value):
            return f"{type(action).__name__}.{name} must be {what}, not {value!r}"
    return None


YEAR_OF_PLENTY_CHOICES: tuple[Counts, ...] = tuple(
    counts_of(*pair)
    for pair in combinations_with_replacement(range(N_RESOURCES), YEAR_OF_PLENTY_CARDS)
)
