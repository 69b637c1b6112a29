"""Events told in plain sentences, from one seat's point of view."""

from __future__ import annotations

from collections.abc import Sequence
from functools import singledispatch

from engine import events as ev
from engine.constants import DevCard, Resource, Seat


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
