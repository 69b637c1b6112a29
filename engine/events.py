"""Events: what an action did, in order, with the outcome of any chance recorded.

Every event has a public form. Events that carry a secret (the stolen card, the drawn
development card) give each recipient its own form through :meth:`for_seat`: the seats
entitled to the secret get it, everyone else (and spectators, ``seat=None``) gets the event
with the secret replaced by ``None``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.actions import Counts
from engine.constants import DevCard, EdgeId, HexId, Resource, Seat, VertexId


class _Public:
    """Mixin for events with no secret: every recipient gets the event itself."""

    __slots__ = ()

    def for_seat(self, seat: Seat | None) -> Event:
        return self  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class SettlementBuilt(_Public):
    seat: Seat
    vertex: VertexId
    free: bool


@dataclass(frozen=True, slots=True)
class RoadBuilt(_Public):
    seat: Seat
    edge: EdgeId
    free: bool


@dataclass(frozen=True, slots=True)
class CityBuilt(_Public):
    seat: Seat
    vertex: VertexId


@dataclass(frozen=True, slots=True)
class StartingResources(_Public):
    """What a second set-up settlement paid."""

    seat: Seat
    cards: Counts


@dataclass(frozen=True, slots=True)
class DiceRolled(_Public):
    seat: Seat
    dice: tuple[int, int]

    @property
    def total(self) -> int:
        return self.dice[0] + self.dice[1]


@dataclass(frozen=True, slots=True)
class Produced(_Public):
    """Production of a roll: cards gained per seat, and resources the bank could not pay."""

    gains: tuple[Counts, ...]
    short: tuple[Resource, ...]


@dataclass(frozen=True, slots=True)
class DiscardsOwed(_Public):
    """A seven: how many cards each seat must give back."""

    owed: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Discarded(_Public):
    seat: Seat
    cards: Counts


@dataclass(frozen=True, slots=True)
class RobberMoved(_Public):
    seat: Seat
    hex: HexId
    victim: Seat | None


@dataclass(frozen=True, slots=True)
class Stolen:
    """A card taken by the robber. The resource is known to thief and victim only."""

    thief: Seat
    victim: Seat
    resource: Resource | None

    def for_seat(self, seat: Seat | None) -> Event:
        if seat == self.thief or seat == self.victim:
            return self
        return replace(self, resource=None)


@dataclass(frozen=True, slots=True)
class DevCardBought:
    """A development card drawn. Its kind is known to the buyer only."""

    seat: Seat
    card: DevCard | None

    def for_seat(self, seat: Seat | None) -> Event:
        return self if seat == self.seat else replace(self, card=None)


@dataclass(frozen=True, slots=True)
class DevCardPlayed(_Public):
    seat: Seat
    card: DevCard


@dataclass(frozen=True, slots=True)
class YearOfPlentyTaken(_Public):
    seat: Seat
    cards: Counts


@dataclass(frozen=True, slots=True)
class MonopolyTaken(_Public):
    """``taken[s]`` is how many cards of ``resource`` seat ``s`` handed over."""

    seat: Seat
    resource: Resource
    taken: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MaritimeTraded(_Public):
    seat: Seat
    give: Resource
    count: int
    get: Resource


@dataclass(frozen=True, slots=True)
class TradeOffered(_Public):
    seat: Seat
    give: Counts
    get: Counts
    to: tuple[Seat, ...]


@dataclass(frozen=True, slots=True)
class TradeAnswered(_Public):
    """An answer to the open offer: ``accept``, ``decline`` or ``counter`` (with the
    counter's terms from the answering seat's side)."""

    seat: Seat
    answer: str
    give: Counts | None = None
    get: Counts | None = None


@dataclass(frozen=True, slots=True)
class TradeCompleted(_Public):
    """``offerer`` gave ``give`` to ``partner`` and received ``get``."""

    offerer: Seat
    partner: Seat
    give: Counts
    get: Counts


@dataclass(frozen=True, slots=True)
class TradeClosed(_Public):
    """The open offer ended without a trade: ``cancelled`` or ``declined`` by everyone."""

    seat: Seat
    reason: str


@dataclass(frozen=True, slots=True)
class LongestRoadChanged(_Public):
    holder: Seat | None
    length: int


@dataclass(frozen=True, slots=True)
class LargestArmyChanged(_Public):
    holder: Seat | None
    knights: int


@dataclass(frozen=True, slots=True)
class TurnStarted(_Public):
    seat: Seat
    turn: int


@dataclass(frozen=True, slots=True)
class GameWon(_Public):
    """The game is over: final points of every seat, hidden victory cards included."""

    winner: Seat
    points: tuple[int, ...]
    victory_cards: tuple[int, ...]


Event = (
    SettlementBuilt
    | RoadBuilt
    | CityBuilt
    | StartingResources
    | DiceRolled
    | Produced
    | DiscardsOwed
    | Discarded
    | RobberMoved
    | Stolen
    | DevCardBought
    | DevCardPlayed
    | YearOfPlentyTaken
    | MonopolyTaken
    | MaritimeTraded
    | TradeOffered
    | TradeAnswered
    | TradeCompleted
    | TradeClosed
    | LongestRoadChanged
    | LargestArmyChanged
    | TurnStarted
    | GameWon
)

EVENT_TYPES: tuple[type, ...] = Event.__args__

PUBLIC_EVENT_TYPES: frozenset[type] = frozenset(
    kind for kind in EVENT_TYPES if getattr(kind, "for_seat", None) is _Public.for_seat
)
"""The event types without a secret: ``for_seat`` gives every recipient the event itself."""
