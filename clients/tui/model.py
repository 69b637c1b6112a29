"""What the terminal client knows of its game, kept from the server's messages alone.

The server sends a full view when a seat joins, starts or reconnects, and with every prompt
to this seat (the client says ``views`` in its hello); between those it sends events.
:class:`LiveView` is the last full view with the events since laid over it, each event
changing exactly what it says (a settlement built on a vertex, cards produced, a road
paid for), so the board and the panels follow the bots' moves as they happen; the next
full view replaces it. :class:`GameModel` folds every server message into the live view,
the players, the prompt to answer, the game log and the chat. Nothing here decides what
is legal: that is the prompt's list.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from clients.narrate import Narrator, cards_text
from clients.tui.board import RESOURCE_OF_TERRAIN, BoardPicture, harbour_label
from engine import events as ev
from engine.constants import (
    CITY_COST,
    DEV_CARD_COST,
    HARBOUR_LAYOUT,
    N_DEV_KINDS,
    N_RESOURCES,
    ROAD_COST,
    SETTLEMENT_COST,
    SPECIAL_CARD_POINTS,
    DevCard,
)
from engine.topology import topology
from protocol import messages as m
from protocol.payloads import (
    DEV_CARD_NAMES,
    RESOURCE_NAMES,
    DevCards,
    ViewPayload,
    event_to_engine,
)

ANSWER_OF = {"accept": "accepted", "decline": "declined", "counter": "countered"}


def _dev_list(cards: DevCards | None) -> list[int] | None:
    if cards is None:
        return None
    return [getattr(cards, name) for name in DEV_CARD_NAMES]


@dataclass
class SeatLive:
    """What everyone sees of one seat, kept up to date."""

    seat: int
    points: int
    cards: int
    dev_cards: int
    knights: int
    roads_left: int
    settlements_left: int
    cities_left: int
    road_length: int
    longest_road: bool
    largest_army: bool
    discards_owed: int


@dataclass
class TradeLive:
    """The open domestic offer: the offerer's terms and each seat's answer (``not_asked``,
    ``pending``, ``accepted``, ``declined``, ``countered``)."""

    offerer: int
    give: list[int]
    get: list[int]
    answers: list[str]
    counters: list[tuple[list[int], list[int]] | None]


@dataclass
class LiveView:
    """The game as this client's seat (or a spectator) sees it now."""

    seat: int | None
    state_id: int
    players: int
    victory_points: int
    radius: int
    terrain: list[str]
    tokens: list[int]
    harbours: list[str]
    phase: str
    turn: int
    current: int
    to_act: list[int]
    dice: tuple[int, int] | None
    robber: int
    settlements: dict[int, int]
    cities: dict[int, int]
    roads: dict[int, int]
    bank: list[int]
    deck: int
    dev_card_played: bool
    free_roads: int
    seats: list[SeatLive]
    trade: TradeLive | None
    winner: int | None
    hand: list[int] | None
    development: list[int] | None
    """Every development card held, those bought this turn included."""
    development_new: list[int] | None
    own_points: int | None
    ratios: list[int] | None
    final_points: list[int] | None = None
    victory_cards: list[int] | None = None
    setup_roads: int = 0
    harbour_layout: int = HARBOUR_LAYOUT

    @classmethod
    def from_payload(cls, v: ViewPayload) -> LiveView:
        trade = None
        if v.trade is not None:
            t = v.trade
            trade = TradeLive(
                offerer=t.offerer,
                give=list(t.give.counts()),
                get=list(t.get.counts()),
                answers=list(t.answers),
                counters=[
                    None if c is None else (list(c.give.counts()), list(c.get.counts()))
                    for c in t.counters
                ],
            )
        return cls(
            seat=v.seat,
            state_id=v.state_id,
            players=v.players,
            victory_points=v.victory_points,
            radius=v.board.radius,
            terrain=list(v.board.terrain),
            tokens=list(v.board.tokens),
            harbours=list(v.board.harbours),
            phase=v.phase,
            turn=v.turn,
            current=v.current,
            to_act=list(v.to_act),
            dice=None if v.dice is None else (v.dice[0], v.dice[1]),
            robber=v.robber,
            settlements={x[0]: x[1] for x in v.settlements},
            cities={x[0]: x[1] for x in v.cities},
            roads={x[0]: x[1] for x in v.roads},
            bank=list(v.bank.counts()),
            deck=v.development_deck,
            dev_card_played=v.dev_card_played,
            free_roads=v.free_roads,
            seats=[
                SeatLive(
                    seat=p.seat,
                    points=p.points,
                    cards=p.resource_cards,
                    dev_cards=p.development_cards,
                    knights=p.knights,
                    roads_left=p.roads_left,
                    settlements_left=p.settlements_left,
                    cities_left=p.cities_left,
                    road_length=p.longest_road,
                    longest_road=p.has_longest_road,
                    largest_army=p.has_largest_army,
                    discards_owed=p.discards_owed,
                )
                for p in v.seats
            ],
            trade=trade,
            winner=v.winner,
            hand=None if v.hand is None else list(v.hand.counts()),
            development=_dev_list(v.development),
            development_new=_dev_list(v.development_new),
            own_points=v.own_points,
            ratios=None if v.trade_ratios is None else list(v.trade_ratios.counts()),
            final_points=None if v.final_points is None else list(v.final_points),
            victory_cards=None if v.victory_cards is None else list(v.victory_cards),
            setup_roads=len(v.roads) if v.phase.startswith("setup") else 0,
            harbour_layout=v.board.harbour_layout,
        )

    def picture(self) -> BoardPicture:
        return BoardPicture(
            radius=self.radius,
            terrain=self.terrain,
            tokens=self.tokens,
            harbours=self.harbours,
            harbour_layout=self.harbour_layout,
            robber=self.robber,
            settlements=self.settlements,
            cities=self.cities,
            roads=self.roads,
        )

    # --- events ---------------------------------------------------------------------------
    def _cards(self, seat: int, counts: Sequence[int], sign: int, *, bank: bool = True) -> None:
        """``seat`` gains (sign +1) or gives up (-1) ``counts``; the bank the opposite."""
        self.seats[seat].cards += sign * sum(counts)
        if seat == self.seat and self.hand is not None:
            for r in range(N_RESOURCES):
                self.hand[r] += sign * counts[r]
        if bank:
            for r in range(N_RESOURCES):
                self.bank[r] -= sign * counts[r]

    def _points(self, seat: int, delta: int) -> None:
        self.seats[seat].points += delta
        if seat == self.seat and self.own_points is not None:
            self.own_points += delta

    def apply(self, event: ev.Event) -> None:
        """Lay one event (in this client's form) over the view."""
        match event:
            case ev.SettlementBuilt(seat=seat, vertex=vertex, free=free):
                self.settlements[vertex] = seat
                self.seats[seat].settlements_left -= 1
                self._points(seat, 1)
                if not free:
                    self._cards(seat, SETTLEMENT_COST, -1)
                if self.phase.startswith("setup"):
                    self.phase = "setup_road"
                    self.current = seat
                    self.to_act = [seat]
            case ev.RoadBuilt(seat=seat, edge=edge, free=free):
                self.roads[edge] = seat
                self.seats[seat].roads_left -= 1
                if not free:
                    self._cards(seat, ROAD_COST, -1)
                elif self.phase.startswith("setup"):
                    self.setup_roads += 1
                    order = [*range(self.players), *reversed(range(self.players))]
                    if self.setup_roads < len(order):
                        self.phase = "setup_settlement"
                        self.current = order[self.setup_roads]
                        self.to_act = [self.current]
                elif self.free_roads:
                    self.free_roads -= 1
                    if not self.free_roads:  # road building may come before the roll
                        self.phase = "main" if self.dice is not None else "pre_roll"
            case ev.CityBuilt(seat=seat, vertex=vertex):
                self.settlements.pop(vertex, None)
                self.cities[vertex] = seat
                self.seats[seat].settlements_left += 1
                self.seats[seat].cities_left -= 1
                self._points(seat, 1)
                self._cards(seat, CITY_COST, -1)
            case ev.StartingResources(seat=seat, cards=cards):
                self._cards(seat, cards, +1)
            case ev.DiceRolled(dice=dice):
                self.dice = (dice[0], dice[1])
                self.phase = "main"
            case ev.Produced(gains=gains):
                for q, g in enumerate(gains):
                    self._cards(q, g, +1)
            case ev.DiscardsOwed(owed=owed):
                for q, k in enumerate(owed):
                    self.seats[q].discards_owed = k
                self.phase = "discard"
                self.to_act = [q for q, k in enumerate(owed) if k]
            case ev.Discarded(seat=seat, cards=cards):
                self._cards(seat, cards, -1)
                s = self.seats[seat]
                s.discards_owed = max(0, s.discards_owed - sum(cards))
                self.to_act = [s.seat for s in self.seats if s.discards_owed]
                if not self.to_act:
                    self.phase = "move_robber"
                    self.to_act = [self.current]
            case ev.RobberMoved(hex=hex_id):
                self.robber = hex_id
                self.phase = "main" if self.dice is not None else "pre_roll"
            case ev.Stolen(thief=thief, victim=victim, resource=resource):
                self.seats[thief].cards += 1
                self.seats[victim].cards -= 1
                if resource is not None and self.hand is not None:
                    if self.seat == thief:
                        self.hand[resource] += 1
                    elif self.seat == victim:
                        self.hand[resource] -= 1
            case ev.DevCardBought(seat=seat, card=card):
                self._cards(seat, DEV_CARD_COST, -1)
                self.seats[seat].dev_cards += 1
                self.deck -= 1
                if seat == self.seat and card is not None:
                    if self.development is not None:
                        self.development[card] += 1
                    if self.development_new is not None:
                        self.development_new[card] += 1
                    if card == DevCard.VICTORY_POINT and self.own_points is not None:
                        self.own_points += 1
            case ev.DevCardPlayed(seat=seat, card=card):
                self.seats[seat].dev_cards -= 1
                self.dev_card_played = True
                if card == DevCard.KNIGHT:
                    self.seats[seat].knights += 1
                    self.phase = "move_robber"
                elif card == DevCard.ROAD_BUILDING:
                    self.phase = "road_building"
                    self.free_roads = 2
                if seat == self.seat and self.development is not None:
                    self.development[card] -= 1
            case ev.YearOfPlentyTaken(seat=seat, cards=cards):
                self._cards(seat, cards, +1)
            case ev.MonopolyTaken(seat=seat, resource=resource, taken=taken):
                counts = [0] * N_RESOURCES
                for q, k in enumerate(taken):
                    counts[resource] = k
                    self._cards(q, counts, -1, bank=False)
                counts[resource] = sum(taken)
                self._cards(seat, counts, +1, bank=False)
            case ev.MaritimeTraded(seat=seat, give=give, count=count, get=get):
                counts = [0] * N_RESOURCES
                counts[give] = count
                self._cards(seat, counts, -1)
                counts = [0] * N_RESOURCES
                counts[get] = 1
                self._cards(seat, counts, +1)
            case ev.TradeOffered(seat=seat, give=give, get=get, to=to):
                self.trade = TradeLive(
                    offerer=seat,
                    give=list(give),
                    get=list(get),
                    answers=["pending" if q in to else "not_asked" for q in range(self.players)],
                    counters=[None] * self.players,
                )
                self.phase = "trade"
                self.to_act = [seat, *to]
            case ev.TradeAnswered(seat=seat, answer=answer, give=give, get=get):
                if self.trade is not None:
                    self.trade.answers[seat] = ANSWER_OF.get(answer, answer)
                    if give is not None and get is not None:
                        self.trade.counters[seat] = (list(give), list(get))
                if seat in self.to_act:
                    self.to_act.remove(seat)
            case ev.TradeCompleted(offerer=offerer, partner=partner, give=give, get=get):
                self._cards(offerer, give, -1, bank=False)
                self._cards(offerer, get, +1, bank=False)
                self._cards(partner, get, -1, bank=False)
                self._cards(partner, give, +1, bank=False)
                self._close_trade()
            case ev.TradeClosed():
                self._close_trade()
            case ev.LongestRoadChanged(holder=holder, length=length):
                self._award("longest_road", holder)
                if holder is not None:
                    self.seats[holder].road_length = length
            case ev.LargestArmyChanged(holder=holder):
                self._award("largest_army", holder)
            case ev.TurnStarted(seat=seat, turn=turn):
                self.current = seat
                self.turn = turn
                self.to_act = [seat]
                self.dice = None
                self.phase = "pre_roll"
                self.dev_card_played = False
                self.free_roads = 0
                if self.development_new is not None:
                    self.development_new = [0] * N_DEV_KINDS
            case ev.GameWon(winner=winner, points=points, victory_cards=cards):
                self.winner = winner
                self.final_points = list(points)
                self.victory_cards = list(cards)
                self.phase = "game_over"
                self.to_act = []

    def _close_trade(self) -> None:
        self.trade = None
        self.phase = "main"
        self.to_act = [self.current]

    def _award(self, which: str, holder: int | None) -> None:
        for s in self.seats:
            if getattr(s, which) and s.seat != holder:
                setattr(s, which, False)
                self._points(s.seat, -SPECIAL_CARD_POINTS)
        if holder is not None and not getattr(self.seats[holder], which):
            setattr(self.seats[holder], which, True)
            self._points(holder, SPECIAL_CARD_POINTS)


# ======================================================================================
# Sentences
# ======================================================================================


def hex_name(terrain: Sequence[str], tokens: Sequence[int], hex_id: int) -> str:
    """``"grain 6"``; ``"desert"``."""
    name = RESOURCE_OF_TERRAIN[terrain[hex_id]]
    return f"{name} {tokens[hex_id]}" if tokens[hex_id] else name


COMPASS = ("east", "north-east", "north", "north-west", "west", "south-west", "south", "south-east")
"""Directions on the screen, counter-clockwise from east in steps of 45 degrees."""


def compass(dx: float, dy: float) -> str:
    """The nearest of the eight directions to a vector (y up)."""
    return COMPASS[round(math.atan2(dy, dx) / (math.pi / 4)) % 8]


class PlaceNames:
    """Names of places on one board that a person can find on the map. A place is named by
    the hexes around it; a place on the coast with one hex beside it is named by its side of
    that hex, since the hex alone names up to three of them."""

    def __init__(
        self,
        radius: int,
        terrain: Sequence[str],
        tokens: Sequence[int],
        harbours: Sequence[str],
        harbour_layout: int = HARBOUR_LAYOUT,
    ) -> None:
        self.topo = topology(radius)
        self.harbour_slots = self.topo.harbour_slots_of(harbour_layout)
        self.terrain = list(terrain)
        self.tokens = list(tokens)
        self.harbour_at: dict[int, str] = {}
        for slot, e in enumerate(self.harbour_slots):
            if slot < len(harbours):
                for v in self.topo.edge_vertices[e]:
                    self.harbour_at[v] = harbours[slot]

        self.hex_names = self._hex_names()

    def hex(self, hex_id: int) -> str:
        """``"grain 6"``; a name two hexes share says where on the island each lies:
        ``"grain 6 at 2 o'clock"`` (and if need be ``"..., on the coast"``)."""
        return self.hex_names[hex_id]

    def _hex_names(self) -> list[str]:
        """Each hex's name; where two share one, told apart by the clock position, then
        by inland or coast."""
        topo = self.topo
        coast = max(topo.hex_ring)
        names = [hex_name(self.terrain, self.tokens, h) for h in range(topo.n_hexes)]
        seen = Counter(names)
        names = [n if seen[n] == 1 else f"{n} {self._clock(h)}" for h, n in enumerate(names)]
        seen = Counter(names)
        ring = ["inland" if r < coast else "on the coast" for r in topo.hex_ring]
        return [n if seen[n] == 1 else f"{n}, {ring[h]}" for h, n in enumerate(names)]

    def _centre(self, hex_id: int) -> tuple[float, float]:
        xy = self.topo.vertex_xy
        corners = self.topo.hex_vertices[hex_id]
        return (
            sum(xy[v][0] for v in corners) / len(corners),
            sum(xy[v][1] for v in corners) / len(corners),
        )

    def _clock(self, hex_id: int) -> str:
        """Where a hex lies from the island's middle, as on a clock face."""
        x, y = self._centre(hex_id)
        if self.topo.hex_ring[hex_id] == 0:
            return "in the middle"
        hour = round((90 - math.degrees(math.atan2(y, x))) / 30) % 12
        return f"at {hour or 12} o'clock"

    def _side(self, hex_id: int, vertices: Sequence[int]) -> str:
        """Which way ``vertices`` (a corner, or both ends of a side) lie from the hex's
        centre."""
        xy = self.topo.vertex_xy
        cx, cy = self._centre(hex_id)
        px = sum(xy[v][0] for v in vertices) / len(vertices)
        py = sum(xy[v][1] for v in vertices) / len(vertices)
        return compass(px - cx, py - cy)

    def vertex(self, v: int) -> str:
        """The hexes around an intersection: ``"grain 6 / ore 5 / wool 9"``, or
        ``"the north corner of grain 6"`` on the coast, with its harbour if it has one."""
        hexes = self.topo.vertex_hexes[v]
        if len(hexes) == 1:
            text = f"the {self._side(hexes[0], (v,))} corner of {self.hex(hexes[0])}"
        else:
            text = " / ".join(self.hex(h) for h in hexes)
        harbour = self.harbour_at.get(v)
        return text + (f" ({harbour_label(harbour)} harbour)" if harbour else "")

    def edge(self, e: int) -> str:
        """Where a path runs: ``"between grain 6 and ore 5"``, or ``"on the north-west
        side of grain 6"`` on the coast."""
        a, b = self.topo.edge_vertices[e]
        shared = sorted(set(self.topo.vertex_hexes[a]) & set(self.topo.vertex_hexes[b]))
        if len(shared) == 1:
            return f"on the {self._side(shared[0], (a, b))} side of {self.hex(shared[0])}"
        return "between " + " and ".join(self.hex(h) for h in shared)


class Discarding:
    """The discards after a seven still being made, for telling each seat's in one line:
    per seat, the cards it still owes and those it has given back so far."""

    def __init__(self) -> None:
        self.owed: dict[int, int] = {}
        self.given: dict[int, list[int]] = {}

    def owe(self, owed: Sequence[int]) -> None:
        """A seven: each seat owes so many cards."""
        self.owed = {q: k for q, k in enumerate(owed) if k}
        self.given = {q: [0] * N_RESOURCES for q in self.owed}

    def give(self, seat: int, cards: Sequence[int]) -> list[int] | None:
        """``seat`` gave back ``cards``: all it gave once it owes no more (or when it was
        not known to owe), else None."""
        if seat not in self.owed:
            return list(cards)
        given = self.given[seat]
        for r in range(N_RESOURCES):
            given[r] += cards[r]
        self.owed[seat] -= sum(cards)
        if self.owed[seat] > 0:
            return None
        del self.owed[seat], self.given[seat]
        return given


class TableNarrator(Narrator):
    """The project's narrator, naming places by the hexes around them. With a
    :class:`Discarding` (kept from one message to the next), a seat's discards after a
    seven are told in one line once it has given back all it owes (the rules let a seat
    give them one card at a time)."""

    def __init__(
        self,
        names: Sequence[str],
        viewer: int | None,
        places: PlaceNames,
        discarding: Discarding | None = None,
    ) -> None:
        super().__init__(names, viewer)
        self.places = places
        self.discarding = discarding

    def describe(self, event: ev.Event) -> str | None:
        match event:
            case ev.SettlementBuilt(seat=seat, vertex=vertex, free=free):
                return f"{self.who(seat)} built a settlement at {self.places.vertex(vertex)}"
            case ev.CityBuilt(seat=seat, vertex=vertex):
                return f"{self.who(seat)} built a city at {self.places.vertex(vertex)}"
            case ev.RoadBuilt(seat=seat, edge=edge, free=free):
                text = f"{self.who(seat)} built a road {self.places.edge(edge)}"
                return text + (" (free)" if free else "")
            case ev.RobberMoved(seat=seat, hex=hex_id, victim=victim):
                text = f"{self.who(seat)} moved the robber to {self.places.hex(hex_id)}"
                return text + (f" to rob {self.who(victim)}" if victim is not None else "")
            case ev.DiscardsOwed(owed=owed) if self.discarding is not None:
                self.discarding.owe(owed)
            case ev.Discarded(seat=seat, cards=cards) if self.discarding is not None:
                given = self.discarding.give(seat, cards)
                return None if given is None else f"{self.who(seat)} discarded {cards_text(given)}"
        return super().describe(event)

    def roll(self, rolled: ev.DiceRolled, produced: ev.Produced | None) -> str:
        """``"Ana rolled 8 (5+3): you got 2 ore; Bo got 1 wool"``."""
        text = f"{self.who(rolled.seat)} rolled {rolled.total} ({rolled.dice[0]}+{rolled.dice[1]})"
        if produced is None:
            return text
        gains = [
            f"{self.who(q)} got {cards_text(g)}" for q, g in enumerate(produced.gains) if any(g)
        ]
        text += ": " + ("; ".join(gains) if gains else "nobody produced anything")
        if produced.short:
            text += (
                " (the bank ran short of " + ", ".join(r.name.lower() for r in produced.short) + ")"
            )
        return text

    def batch(self, events: Sequence[ev.Event]) -> list[str]:
        """Sentences for the events of one action, a roll and its production told together."""
        lines: list[str] = []
        i = 0
        while i < len(events):
            e = events[i]
            if isinstance(e, ev.DiceRolled):
                nxt = events[i + 1] if i + 1 < len(events) else None
                produced = nxt if isinstance(nxt, ev.Produced) else None
                lines.append(self.roll(e, produced))
                i += 2 if produced is not None else 1
                continue
            line = self.describe(e)
            if line:
                lines.append(line)
            i += 1
        return [self.capital(line) for line in lines]


# ======================================================================================
# The model
# ======================================================================================


@dataclass
class LogLine:
    """A line of the game log: ``kind`` is ``event``, ``turn``, ``chat``, ``you`` (about
    this seat), ``error`` or ``info``."""

    kind: str
    text: str


@dataclass
class GameModel:
    """Everything the client shows, from the messages it received."""

    game: str | None = None
    seat: int | None = None
    token: str | None = None
    spectator: bool = False
    invite: str | None = None
    seed_hash: str | None = None
    players: list[m.PlayerInfo] = field(default_factory=list)
    view: LiveView | None = None
    prompt: m.Prompt | None = None
    prompt_at: float = 0.0
    log: list[LogLine] = field(default_factory=list)
    over: m.GameOver | None = None
    started: bool = False
    may_start: bool = False
    """Whether the server says this connection may start the game (its host)."""
    """Whether the game has started: the players list says so (and a view past the first
    state, a clock, a prompt, events or the end imply it)."""
    last_error: m.Error | None = None
    narrated: int = 0
    """The state id the log has told the game up to."""
    clock: dict[int, float] = field(default_factory=dict)
    """Seat -> when (``now``) its time to act runs out, from the last ``clock``."""
    now: Callable[[], float] = time.monotonic
    """The clock that measures deadlines and how long the game has waited (a test's own)."""
    moved_at: float | None = None
    """When (``now``) the game last moved: a view, events or a prompt came."""
    _pending_chat: list[m.ChatAt] = field(default_factory=list)
    _discarding: Discarding = field(default_factory=Discarding)
    _told_winner: bool = False

    def name(self, seat: int) -> str:
        for p in self.players:
            if p.seat == seat:
                return p.name
        return f"seat {seat}"

    def names(self) -> list[str]:
        n = self.view.players if self.view is not None else len(self.players)
        return [self.name(q) for q in range(n)]

    def player(self, seat: int) -> m.PlayerInfo | None:
        return next((p for p in self.players if p.seat == seat), None)

    def narrator(self) -> TableNarrator | None:
        if self.view is None:
            return None
        v = self.view
        places = PlaceNames(v.radius, v.terrain, v.tokens, v.harbours, v.harbour_layout)
        return TableNarrator(self.names(), self.seat, places, self._discarding)

    def deadline_left(self) -> float | None:
        """Seconds left to answer the prompt, if the game has a turn timer."""
        if self.prompt is None or self.prompt.deadline is None:
            return None
        return max(0.0, self.prompt.deadline - (self.now() - self.prompt_at))

    def waited(self) -> float:
        """Seconds since the game last moved (0 before it has)."""
        return 0.0 if self.moved_at is None else max(0.0, self.now() - self.moved_at)

    def time_left(self, seat: int) -> float | None:
        """Seconds ``seat`` has left to act, if it must act in a game with a turn timer."""
        if seat == self.seat and self.prompt is not None and self.prompt.deadline is not None:
            return self.deadline_left()
        deadline = self.clock.get(seat)
        return None if deadline is None else max(0.0, deadline - self.now())

    def _history(self, message: m.History) -> list[LogLine]:
        """The log lines of the actions (and chat) this client has not told yet."""
        out: list[LogLine] = []
        narrator = self.narrator()
        since = self.narrated
        self._pending_chat.extend(c for c in message.chat if c.state_id >= since)
        for batch in message.batches:
            out.extend(self._chat_before(batch.state_id))
            if batch.state_id <= self.narrated or narrator is None:
                continue
            events = [event_to_engine(e) for e in batch.events]
            out.extend(log_lines(narrator, events))
            self._told_winner |= any(isinstance(e, ev.GameWon) for e in events)
            self.narrated = batch.state_id
        if not message.more:
            out.extend(self._chat_before(None))
        self.log.extend(out)
        return out

    def _chat_before(self, state_id: int | None) -> list[LogLine]:
        """The kept chat lines said before the game reached ``state_id`` (all: None)."""
        said = [c for c in self._pending_chat if state_id is None or c.state_id < state_id]
        self._pending_chat = [c for c in self._pending_chat if c not in said]
        return [LogLine("chat", f"{self._speaker(c.seat, c.name)}: {c.text}") for c in said]

    def _speaker(self, seat: int | None, name: str) -> str:
        return "you" if seat is not None and seat == self.seat else name

    def _say(self, kind: str, text: str) -> LogLine:
        line = LogLine(kind, text)
        self.log.append(line)
        return line

    def handle(self, message: Any) -> list[LogLine]:
        """Fold one server message in; returns the log lines it added."""
        out: list[LogLine] = []
        if isinstance(message, m.GameView | m.Events | m.Prompt):
            self.moved_at = self.now()
        match message:
            case m.GameCreated():
                self.game, self.invite, self.seed_hash = (
                    message.game,
                    message.invite,
                    message.seed_hash,
                )
            case m.Joined():
                self.game, self.seat, self.token = message.game, message.seat, message.token
                self.spectator = message.seat is None
                self.may_start = message.host
                if message.seed_hash is not None:
                    self.seed_hash = message.seed_hash
            case m.Players():
                self.players = sorted(message.players, key=lambda p: p.seat)
                if message.started:
                    self.started = True
            case m.GameView():
                self.view = LiveView.from_payload(message.view)
                if self.prompt is not None and self.prompt.state_id != message.view.state_id:
                    self.prompt = None
                if message.view.state_id > 0:
                    self.started = True
            case m.Events():
                self.started = True
                engine_events = [event_to_engine(e) for e in message.events]
                if self.view is not None:
                    for e in engine_events:
                        self.view.apply(e)
                    self.view.state_id = message.state_id
                if self.prompt is not None and self.prompt.state_id != message.state_id:
                    self.prompt = None
                self.clock.clear()  # the next clock says who is on it now
                narrator = self.narrator()
                if narrator is not None and message.state_id > self.narrated:
                    for line in log_lines(narrator, engine_events):
                        self.log.append(line)
                        out.append(line)
                    self._told_winner |= any(isinstance(e, ev.GameWon) for e in engine_events)
                self.narrated = max(self.narrated, message.state_id)
            case m.History():
                out.extend(self._history(message))
            case m.Clock():
                self.started = True  # clocks run in a started game only
                now = self.now()
                self.clock = {c.seat: now + c.left for c in message.seats}
            case m.Prompt():
                if message.seat == self.seat:
                    self.started = True
                    self.prompt = message
                    self.prompt_at = self.now()
                    if message.view is not None:
                        self.view = LiveView.from_payload(message.view)
            case m.ChatMessage():
                who = self._speaker(message.seat, message.name)
                out.append(self._say("chat", f"{who}: {message.text}"))
            case m.GameOver():
                again = self.over is not None  # told again after a reconnection
                self.over = message
                self.started = True
                self.prompt = None
                if self.view is not None:
                    self.view.winner = message.winner
                    self.view.final_points = list(message.points)
                    self.view.phase = "game_over"
                    self.view.to_act = []
                names = self.names()
                winner = (
                    "nobody"
                    if message.winner is None
                    else ("you" if message.winner == self.seat else names[message.winner])
                )
                if not again:  # the winner and the points were told with the last action
                    head = "Game over." if self._told_winner else f"Game over: {winner} won."
                    out.append(self._say("turn", f"{head} The seed was {message.seed}."))
            case m.Error():
                self.last_error = message
                out.append(self._say("error", f"refused: {message.message}"))
        return out


def log_lines(narrator: TableNarrator, events: Sequence[ev.Event]) -> list[LogLine]:
    """The log lines of one action's events (in the narrator's viewer's form)."""
    out = []
    for text in narrator.batch(events):
        kind = "turn" if text.startswith("-- ") else "event"
        if narrator.viewer is not None and kind == "event" and _about_you(text):
            kind = "you"
        out.append(LogLine(kind, text))
    return out


def _about_you(text: str) -> bool:
    lowered = f" {text.lower()} "
    return any(w in lowered for w in (" you ", " you;", " you,", " you.", " your "))


def card_names(counts: Sequence[int]) -> str:
    """``"2 brick, 1 ore"`` (``"nothing"`` when empty)."""
    return cards_text(counts)


def dev_names(counts: Sequence[int]) -> str:
    parts = [f"{c} {DEV_CARD_NAMES[k].replace('_', ' ')}" for k, c in enumerate(counts) if c]
    return ", ".join(parts) if parts else "none"


__all__ = [
    "RESOURCE_NAMES",
    "GameModel",
    "LiveView",
    "LogLine",
    "PlaceNames",
    "SeatLive",
    "TableNarrator",
    "TradeLive",
    "card_names",
    "dev_names",
    "hex_name",
    "log_lines",
]
