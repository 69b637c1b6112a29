"""Events told in plain sentences, from one seat's point of view, with places named by the
hexes around them."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from functools import singledispatch

from engine import events as ev
from engine.constants import HARBOUR_LAYOUT, N_RESOURCES, DevCard, Resource, Seat
from engine.topology import topology

RESOURCE_OF_TERRAIN: dict[str, str] = {
    "hills": "brick",
    "forest": "lumber",
    "pasture": "wool",
    "fields": "grain",
    "mountains": "ore",
    "desert": "desert",
}
"""The resource each terrain (as the protocol names it) produces."""


def harbour_label(kind: str) -> str:
    """``"3:1"`` for a generic harbour, ``"2:1 ore"`` for a resource harbour."""
    return "3:1" if kind == "generic" else f"2:1 {kind}"


def plural(n: int, word: str) -> str:
    """``"1 card"``, ``"2 cards"``."""
    return f"{n} {word}" + ("" if n == 1 else "s")


def cards_text(counts: Sequence[int]) -> str:
    """``(0, 2, 0, 1, 0)`` -> ``"2 lumber, 1 grain"``; ``"nothing"`` when empty."""
    parts = [f"{c} {Resource(r).name.lower()}" for r, c in enumerate(counts) if c]
    return ", ".join(parts) if parts else "nothing"


def _card_name(card: DevCard) -> str:
    return card.name.lower().replace("_", " ")


class Narrator:
    """Turns events into sentences for a viewer (a seat, or None for a spectator)."""

    def __init__(self, names: Sequence[str], viewer: Seat | None = None) -> None:
        self.names = list(names)
        self.viewer = viewer

    def who(self, seat: Seat | None) -> str:
        if seat is None:
            return "nobody"
        return "you" if seat == self.viewer else self.names[seat]

    def verb(self, seat: Seat, verb: str) -> str:
        """The verb agreeing with :meth:`who` ("you hold", "Ana holds")."""
        return verb if seat == self.viewer else verb + "s"

    def whose(self, seat: Seat) -> str:
        """The possessive of :meth:`who` ("your", "Ana's")."""
        return "your" if seat == self.viewer else f"{self.names[seat]}'s"

    def capital(self, line: str) -> str:
        """The line with a capital letter, unless it starts with a player's name, which is
        kept as the player wrote it ("heuristic-1 rolled", "You rolled")."""
        for seat, name in enumerate(self.names):
            if seat == self.viewer:
                continue  # told as "you"
            rest = line[len(name) :] if line.startswith(name) else None
            if rest is not None and not rest[:1].isalnum():
                return line
        return line[:1].upper() + line[1:]

    def describe(self, event: ev.Event) -> str | None:
        """A sentence for the event, or None for events not worth a line."""
        return _describe(event, self)


@singledispatch
def _describe(event: object, n: Narrator) -> str | None:
    return None


@_describe.register
def _(e: ev.SettlementBuilt, n: Narrator) -> str:
    return f"{n.who(e.seat)} built a settlement on intersection {e.vertex}"


@_describe.register
def _(e: ev.RoadBuilt, n: Narrator) -> str:
    return f"{n.who(e.seat)} built a road on path {e.edge}" + (" (free)" if e.free else "")


@_describe.register
def _(e: ev.CityBuilt, n: Narrator) -> str:
    return f"{n.who(e.seat)} built a city on intersection {e.vertex}"


@_describe.register
def _(e: ev.StartingResources, n: Narrator) -> str:
    return f"{n.who(e.seat)} took {cards_text(e.cards)} from the second settlement"


@_describe.register
def _(e: ev.DiceRolled, n: Narrator) -> str:
    return f"{n.who(e.seat)} rolled {e.total} ({e.dice[0]}+{e.dice[1]})"


@_describe.register
def _(e: ev.Produced, n: Narrator) -> str:
    parts = [f"{n.who(q)} got {cards_text(g)}" for q, g in enumerate(e.gains) if any(g)]
    text = "; ".join(parts) if parts else "nobody produced anything"
    if e.short:
        text += " (the bank ran short of " + ", ".join(r.name.lower() for r in e.short) + ")"
    return text


@_describe.register
def _(e: ev.DiscardsOwed, n: Narrator) -> str:
    parts = [f"{n.who(q)} {k}" for q, k in enumerate(e.owed) if k]
    return "discards owed: " + ", ".join(parts)


@_describe.register
def _(e: ev.Discarded, n: Narrator) -> str:
    return f"{n.who(e.seat)} discarded {cards_text(e.cards)}"


@_describe.register
def _(e: ev.RobberMoved, n: Narrator) -> str:
    text = f"{n.who(e.seat)} moved the robber to hex {e.hex}"
    return text + (f" to rob {n.who(e.victim)}" if e.victim is not None else "")


@_describe.register
def _(e: ev.Stolen, n: Narrator) -> str:
    card = f"1 {e.resource.name.lower()}" if e.resource is not None else "a card"
    return f"{n.who(e.thief)} stole {card} from {n.who(e.victim)}"


@_describe.register
def _(e: ev.DevCardBought, n: Narrator) -> str:
    card = f"a {_card_name(e.card)}" if e.card is not None else "a development card"
    return f"{n.who(e.seat)} bought {card}"


@_describe.register
def _(e: ev.DevCardPlayed, n: Narrator) -> str:
    return f"{n.who(e.seat)} played a {_card_name(e.card)}"


@_describe.register
def _(e: ev.YearOfPlentyTaken, n: Narrator) -> str:
    return f"{n.who(e.seat)} took {cards_text(e.cards)} from the bank"


@_describe.register
def _(e: ev.MonopolyTaken, n: Narrator) -> str:
    text = f"{n.who(e.seat)} took {sum(e.taken)} {e.resource.name.lower()} by monopoly"
    losses = [f"{k} from {n.who(q)}" for q, k in enumerate(e.taken) if k and q != e.seat]
    return text + (": " + ", ".join(losses) if losses else " (nobody had any)")


@_describe.register
def _(e: ev.MaritimeTraded, n: Narrator) -> str:
    return (
        f"{n.who(e.seat)} traded {e.count} {e.give.name.lower()} "
        f"to the bank for 1 {e.get.name.lower()}"
    )


@_describe.register
def _(e: ev.TradeOffered, n: Narrator) -> str:
    to = ", ".join(n.who(q) for q in e.to)
    offers = n.verb(e.seat, "offer")
    return f"{n.who(e.seat)} {offers} {cards_text(e.give)} for {cards_text(e.get)} to {to}"


@_describe.register
def _(e: ev.TradeAnswered, n: Narrator) -> str:
    if e.answer == "counter" and e.give is not None and e.get is not None:
        counters = n.verb(e.seat, "counter")
        return f"{n.who(e.seat)} {counters}: {cards_text(e.give)} for {cards_text(e.get)}"
    return f"{n.who(e.seat)} {n.verb(e.seat, e.answer)}"


@_describe.register
def _(e: ev.TradeCompleted, n: Narrator) -> str:
    return (
        f"{n.who(e.offerer)} traded {cards_text(e.give)} "
        f"to {n.who(e.partner)} for {cards_text(e.get)}"
    )


@_describe.register
def _(e: ev.TradeClosed, n: Narrator) -> str:
    if e.reason == "declined":
        return f"nobody took {n.whose(e.seat)} offer"
    if e.reason == "cancelled":
        return f"{n.who(e.seat)} withdrew {'your' if e.seat == n.viewer else 'the'} offer"
    return f"{n.whose(e.seat)} offer is off ({e.reason})"


@_describe.register
def _(e: ev.LongestRoadChanged, n: Narrator) -> str:
    if e.holder is None:
        return "nobody holds the longest road now"
    return f"{n.who(e.holder)} {n.verb(e.holder, 'hold')} the longest road ({e.length})"


@_describe.register
def _(e: ev.LargestArmyChanged, n: Narrator) -> str:
    if e.holder is None:
        return "nobody holds the largest army now"
    return f"{n.who(e.holder)} {n.verb(e.holder, 'hold')} the largest army ({e.knights})"


@_describe.register
def _(e: ev.TurnStarted, n: Narrator) -> str:
    return f"-- turn {e.turn}: {n.who(e.seat)} --"


@_describe.register
def _(e: ev.GameWon, n: Narrator) -> str:
    scores = ", ".join(f"{n.who(q)} {p}" for q, p in enumerate(e.points))
    return f"{n.who(e.winner)} won! Final points: {scores}"


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
