"""What one seat believes about the cards it cannot see, for the search bots.

A :class:`HandTracker` follows the events its seat receives (in that seat's form, see
:meth:`engine.Event.for_seat`) and keeps, for every other seat, a probability distribution
over that seat's resource hand, plus the development cards it has not seen. It draws complete
hidden information consistent with all that (:meth:`HandTracker.sample`), which
:func:`engine.rebuild.state_from_view` turns into a game to search (determinization).

How each event changes the beliefs (checked against :mod:`engine.rules`):

- production, starting resources, year of plenty: known cards are added.
- paid builds (not ``free``), buying a development card, discards, maritime trades, completed
  domestic trades: known cards leave; a hand that could not pay them is dropped and the rest
  renormalised. A domestic offer shows the offerer holds what it gives; an accept shows the
  answering seat holds what the offerer asked for; a counter-offer shows the counter's
  ``give`` is held.
- monopoly: ``taken[s]`` is exactly how many of the resource seat ``s`` held (it is always 0
  for the seat that played the card, which tells nothing about it).
- a steal: exact when the tracker's seat is the thief or the victim. Otherwise the victim
  loses card ``r`` from hand ``h`` with probability ``h[r] / |h|`` and the thief gains ``r``
  with the victim's marginal probability of losing it.

Approximations:

- Seats are independent. A steal between two other seats correlates thief and victim; that
  link is forgotten, so learning the thief's card later (say, by what it builds) does not
  sharpen the victim's hand. The true hands always keep a positive probability; only the
  joint law is looser than the exact one.
- A hand is also dropped when it holds more of a resource than is in circulation outside the
  bank and the tracker's own hand. Joint circulation across opponents is enforced only when
  sampling.
- A seat whose hand is unknown (joining mid-game, or a count that disagrees with a view) is
  uniform over the hands of its size that fit in circulation: uniform over hands, not over
  deals of cards. Knights played before joining are known from the view; other cards played
  then are counted (:meth:`HandTracker.unknown_played`) but not their kinds, and cards an
  opponent bought in the turn the tracker joined are not known as new.
- Development cards the tracker has not seen are exchangeable: every opponent's held cards
  are a uniform draw, without replacement, from the unseen pool. Nothing is inferred from
  which cards an opponent did not play.
- Cards an opponent bought this turn are treated like its other cards: a sample marks a
  uniformly chosen subset of its drawn cards, of that size, as new.
- Victory point cards: an opponent never holds enough to have won at the last moment the
  rules checked (after each of its own actions and at the start of its turn), so its victory
  cards plus its public points at that moment stay below the target. The tracker follows
  those points from the events; for a seat it joined mid-game it uses the points in the view.
"""

from __future__ import annotations

import bisect
import random
from dataclasses import dataclass
from itertools import accumulate

from engine import (
    CityBuilt,
    DevCardBought,
    DevCardPlayed,
    DiceRolled,
    Discarded,
    DiscardsOwed,
    Event,
    GameWon,
    LargestArmyChanged,
    LongestRoadChanged,
    MaritimeTraded,
    MonopolyTaken,
    Produced,
    RoadBuilt,
    RobberMoved,
    SettlementBuilt,
    StartingResources,
    Stolen,
    TradeAnswered,
    TradeClosed,
    TradeCompleted,
    TradeOffered,
    TurnStarted,
    View,
    YearOfPlentyTaken,
)
from engine.constants import (
    BANK_PER_RESOURCE,
    CITY_COST,
    DEV_CARD_COST,
    DEV_DECK,
    N_DEV_KINDS,
    N_RESOURCES,
    ROAD_COST,
    SETTLEMENT_COST,
    SPECIAL_CARD_POINTS,
    DevCard,
    Seat,
)

Hand = tuple[int, int, int, int, int]
Dist = dict[Hand, float]

EMPTY: Hand = (0, 0, 0, 0, 0)
PROGRESS_KINDS = (DevCard.ROAD_BUILDING, DevCard.YEAR_OF_PLENTY, DevCard.MONOPOLY)
"""The kinds a card played before the tracker joined can be, apart from knights (whose
count every view shows); victory point cards are never played."""
HAND_RETRIES = 50
"""Independent draws of the opponents' hands before a sample draws them one after another
within what is left in circulation, and as many of those before it accepts a draw that
exceeds circulation."""
DEVELOPMENT_RETRIES = 50
"""Draws of the development cards before excess victory cards are swapped away by force."""


@dataclass(frozen=True, slots=True)
class Sample:
    """Complete hidden information, as :func:`engine.rebuild.state_from_view` takes it.

    ``hands`` and ``development`` hold every seat's resource and development cards by kind
    (the tracker's own exact), ``deck`` the development deck by kind, and
    ``development_new`` the cards the current seat bought this turn, by kind."""

    hands: tuple[Hand, ...]
    development: tuple[tuple[int, ...], ...]
    development_new: tuple[int, ...]
    deck: tuple[int, ...]


# --- operations on one distribution ------------------------------------------------------


def _normalised(d: Dist) -> Dist:
    """``d`` scaled to sum to 1, zero entries dropped (empty if nothing is left)."""
    total = sum(d.values())
    if total <= 0.0:
        return {}
    scale = 1.0 / total
    return {h: p * scale for h, p in d.items() if p > 0.0}


def _shifted(d: Dist, c: tuple[int, ...]) -> Dist:
    """Every hand plus the cards ``c``."""
    c0, c1, c2, c3, c4 = c
    return {(a + c0, b + c1, w + c2, g + c3, o + c4): p for (a, b, w, g, o), p in d.items()}


def _paid(d: Dist, c: tuple[int, ...]) -> Dist:
    """The hands that hold ``c``, with ``c`` taken out, renormalised."""
    c0, c1, c2, c3, c4 = c
    return _normalised(
        {
            (a - c0, b - c1, w - c2, g - c3, o - c4): p
            for (a, b, w, g, o), p in d.items()
            if a >= c0 and b >= c1 and w >= c2 and g >= c3 and o >= c4
        }
    )


def _holding(d: Dist, c: tuple[int, ...]) -> Dist:
    """The hands that hold at least ``c``, renormalised."""
    c0, c1, c2, c3, c4 = c
    return _normalised(
        {
            h: p
            for h, p in d.items()
            if h[0] >= c0 and h[1] >= c1 and h[2] >= c2 and h[3] >= c3 and h[4] >= c4
        }
    )


def _capped(d: Dist, cap: tuple[int, ...]) -> Dist:
    """The hands holding at most ``cap`` of each resource, renormalised."""
    k0, k1, k2, k3, k4 = cap
    if all(h[0] <= k0 and h[1] <= k1 and h[2] <= k2 and h[3] <= k3 and h[4] <= k4 for h in d):
        return d
    return _normalised(
        {
            h: p
            for h, p in d.items()
            if h[0] <= k0 and h[1] <= k1 and h[2] <= k2 and h[3] <= k3 and h[4] <= k4
        }
    )


def _plus_one(h: Hand, r: int, delta: int) -> Hand:
    return (
        h[0] + delta * (r == 0),
        h[1] + delta * (r == 1),
        h[2] + delta * (r == 2),
        h[3] + delta * (r == 3),
        h[4] + delta * (r == 4),
    )


def _lose_random(d: Dist, size: int) -> tuple[Dist, list[float]]:
    """A card drawn uniformly from the hand: the hands after, and the chance of each
    resource being the one drawn."""
    out: Dist = {}
    marginal = [0.0] * N_RESOURCES
    inv = 1.0 / size
    for h, p in d.items():
        for r in range(N_RESOURCES):
            if h[r]:
                q = p * h[r] * inv
                marginal[r] += q
                nh = _plus_one(h, r, -1)
                out[nh] = out.get(nh, 0.0) + q
    return out, marginal


def _gain_random(d: Dist, chances: list[float]) -> Dist:
    """One card gained, resource ``r`` with probability ``chances[r]``."""
    out: Dist = {}
    for h, p in d.items():
        for r in range(N_RESOURCES):
            q = chances[r]
            if q > 0.0:
                nh = _plus_one(h, r, 1)
                out[nh] = out.get(nh, 0.0) + p * q
    return out


def _uniform(size: int, cap: tuple[int, ...] | list[int]) -> Dist:
    """Every hand of ``size`` cards with at most ``cap`` of each resource, equally likely
    (ignoring the cap if no hand fits it)."""
    hands: list[Hand] = []
    k0, k1, k2, k3, k4 = (min(c, size) for c in cap)
    for a in range(k0 + 1):
        for b in range(min(k1, size - a) + 1):
            for w in range(min(k2, size - a - b) + 1):
                for g in range(min(k3, size - a - b - w) + 1):
                    o = size - a - b - w - g
                    if o <= k4:
                        hands.append((a, b, w, g, o))
    if not hands:
        return _uniform(size, (size,) * N_RESOURCES)
    p = 1.0 / len(hands)
    return dict.fromkeys(hands, p)


def _counts(cards: list[int]) -> Hand:
    return (cards[0], cards[1], cards[2], cards[3], cards[4])


def _tally(cards: list[int]) -> list[int]:
    """Count vector (by kind) of a list of development card kinds."""
    out = [0] * N_DEV_KINDS
    for c in cards:
        out[c] += 1
    return out


# --- the tracker -------------------------------------------------------------------------


class HandTracker:
    """Beliefs of one seat about the others' hands and the unseen development cards.

    Build it from the seat's view, feed it every event in the seat's form
    (:meth:`observe`) and each fresh view (:meth:`resync`)."""

    def __init__(self, view: View) -> None:
        """Raises ValueError for a spectator's view. Opponents holding cards when the
        tracker starts are unknown: uniform over the hands of their size."""
        if view.seat is None or view.hand is None or view.development is None:
            raise ValueError("a hand tracker needs a seat's view, not a spectator's")
        n = view.players
        self.seat: Seat = view.seat
        self.players = n
        self.target = view.victory_points
        self._own = list(view.hand)
        self._own_dev = list(view.development)
        self._own_new = [0] * N_DEV_KINDS
        self._bank = list(view.bank)
        self._deck = view.development_deck
        self._dist: list[Dist] = [{EMPTY: 1.0} for _ in range(n)]
        self._sizes = [-1] * n  # -1: not yet known, so the resync below resets every seat
        self._dev_counts = [0] * n
        self._played = [0] * N_DEV_KINDS  # cards played by anyone, by kind
        self._unknown_played = 0
        self._bought = [0] * n
        self._points = [p.points for p in view.seats]
        self._cap_points = list(self._points)
        self._road_holder: Seat | None = None
        self._army_holder: Seat | None = None
        self._current = view.current
        self._offer_get: Hand | None = None
        self._over = False
        self._caps: Hand = self._circulation_caps()
        self._tables: list[tuple[list[Hand], list[float]] | None] = [None] * n
        self.resync(view)

    # --- queries ---------------------------------------------------------------------------
    def distribution(self, seat: Seat) -> dict[Hand, float]:
        """The belief about ``seat``'s hand: hand -> probability, summing to 1 (a single
        sure hand for the tracker's own seat)."""
        if seat == self.seat:
            return {_counts(self._own): 1.0}
        return dict(self._dist[seat])

    def expected(self, seat: Seat) -> tuple[float, ...]:
        """Expected count of each resource in ``seat``'s hand."""
        if seat == self.seat:
            return tuple(float(c) for c in self._own)
        out = [0.0] * N_RESOURCES
        for h, p in self._dist[seat].items():
            for r in range(N_RESOURCES):
                out[r] += p * h[r]
        return tuple(out)

    def hand_size(self, seat: Seat) -> int:
        """How many resource cards ``seat`` holds (public)."""
        return sum(self._own) if seat == self.seat else self._sizes[seat]

    def development_count(self, seat: Seat) -> int:
        """How many development cards ``seat`` holds (public)."""
        return sum(self._own_dev) if seat == self.seat else self._dev_counts[seat]

    def unseen_development(self) -> tuple[int, ...]:
        """By kind: the full deck minus the tracker's own cards (held or played) and minus
        every card seen played. These are in the deck or in opponents' hands, apart from
        :meth:`unknown_played` cards played before the tracker joined."""
        return tuple(
            max(0, DEV_DECK[k] - self._own_dev[k] - self._played[k]) for k in range(N_DEV_KINDS)
        )

    def unknown_played(self) -> int:
        """Progress cards played before the tracker joined, of kinds it never saw (0 for a
        tracker that followed the game from the start). They are part of
        :meth:`unseen_development` but in neither the deck nor a hand."""
        return self._unknown_played

    def bought_this_turn(self, seat: Seat) -> int:
        """Development cards ``seat`` bought this turn (not playable until its next)."""
        return self._bought[seat]

    # --- following the game ------------------------------------------------------------------
    def observe(self, event: Event) -> None:
        """Update the beliefs with one event, in this seat's form, in game order."""
        match event:
            case Produced(gains=gains):
                for q, g in enumerate(gains):
                    if any(g):
                        self._gain(q, g)
                        self._bank_change(g, -1)
            case StartingResources(seat=q, cards=c) | YearOfPlentyTaken(seat=q, cards=c):
                self._gain(q, c)
                self._bank_change(c, -1)
            case SettlementBuilt(seat=q, free=free):
                if not free:
                    self._pay(q, SETTLEMENT_COST)
                    self._bank_change(SETTLEMENT_COST, 1)
                self._points[q] += 1
            case RoadBuilt(seat=q, free=free):
                if not free:
                    self._pay(q, ROAD_COST)
                    self._bank_change(ROAD_COST, 1)
            case CityBuilt(seat=q):
                self._pay(q, CITY_COST)
                self._bank_change(CITY_COST, 1)
                self._points[q] += 1
            case DevCardBought(seat=q, card=card):
                self._pay(q, DEV_CARD_COST)
                self._bank_change(DEV_CARD_COST, 1)
                self._deck = max(0, self._deck - 1)
                self._bought[q] += 1
                if q == self.seat:
                    kind = 0 if card is None else int(card)  # None only for a foreign form
                    self._own_dev[kind] += 1
                    self._own_new[kind] += 1
                else:
                    self._dev_counts[q] += 1
            case DevCardPlayed(seat=q, card=card):
                self._played[card] += 1
                if q == self.seat:
                    self._own_dev[card] = max(0, self._own_dev[card] - 1)
                else:
                    self._dev_counts[q] = max(0, self._dev_counts[q] - 1)
            case Discarded(seat=q, cards=c):
                self._pay(q, c)
                self._bank_change(c, 1)
            case MaritimeTraded(seat=q, give=give, count=k, get=get):
                paid = [0] * N_RESOURCES
                paid[give] = k
                got = [0] * N_RESOURCES
                got[get] = 1
                self._pay(q, paid)
                self._gain(q, got)
                self._bank_change(paid, 1)
                self._bank_change(got, -1)
            case MonopolyTaken(seat=q, resource=r, taken=taken):
                self._monopoly(q, int(r), taken)
            case Stolen(thief=thief, victim=victim, resource=r):
                self._steal(thief, victim, None if r is None else int(r))
            case TradeOffered(seat=q, give=give, get=get):
                self._require(q, give)
                self._offer_get = get
            case TradeAnswered(seat=q, answer=answer, give=give):
                if answer == "accept" and self._offer_get is not None:
                    self._require(q, self._offer_get)
                elif answer == "counter" and give is not None:
                    self._require(q, give)
            case TradeCompleted(offerer=a, partner=b, give=give, get=get):
                self._pay(a, give)
                self._pay(b, get)
                self._gain(a, get)
                self._gain(b, give)
                self._offer_get = None
            case TradeClosed():
                self._offer_get = None
            case LongestRoadChanged(holder=holder):
                self._road_holder = self._move_award(self._road_holder, holder)
            case LargestArmyChanged(holder=holder):
                self._army_holder = self._move_award(self._army_holder, holder)
            case TurnStarted(seat=q):
                self._current = q
                self._bought = [0] * self.players
                self._own_new = [0] * N_DEV_KINDS
                self._offer_get = None
            case GameWon():
                self._over = True
            case DiceRolled() | DiscardsOwed() | RobberMoved():
                pass  # nothing about the cards beyond what the counts show
        self._cap_points[self._current] = self._points[self._current]
        self._apply_caps()

    def resync(self, view: View) -> None:
        """Take the public facts of a fresh view of this seat: the own cards, the bank, the
        deck size, points. An opponent whose card count disagrees with the belief (missed
        events) becomes unknown again with the right count. Raises ValueError for another
        seat's view."""
        if view.seat != self.seat or view.hand is None or view.development is None:
            raise ValueError(f"this tracker follows seat {self.seat}, not {view.seat}")
        self._own = list(view.hand)
        self._own_dev = list(view.development)
        if view.development_new is not None and view.current == self.seat:
            self._own_new = list(view.development_new)
            self._bought[self.seat] = sum(view.development_new)
        self._bank = list(view.bank)
        self._deck = view.development_deck
        self._current = view.current
        self._caps = self._circulation_caps()
        for p in view.seats:
            q = p.seat
            self._points[q] = p.points
            if p.has_longest_road:
                self._road_holder = q
            if p.has_largest_army:
                self._army_holder = q
            if q == self.seat:
                continue
            if p.resource_cards != self._sizes[q]:
                self._reset(q, p.resource_cards)
            self._dev_counts[q] = p.development_cards
        if not any(p.has_longest_road for p in view.seats):
            self._road_holder = None
        if not any(p.has_largest_army for p in view.seats):
            self._army_holder = None
        self._cap_points[self._current] = self._points[self._current]
        self._played[DevCard.KNIGHT] = sum(p.knights for p in view.seats)
        pool = self.unseen_development()
        held = sum(self._dev_counts[q] for q in range(self.players) if q != self.seat)
        progress = sum(pool[k] for k in PROGRESS_KINDS)
        self._unknown_played = max(0, min(progress, sum(pool) - self._deck - held))
        self._over = view.winner is not None
        self._apply_caps()

    # --- sampling ------------------------------------------------------------------------------
    def sample(self, rng: random.Random) -> Sample:
        """Hidden information drawn from the beliefs (see :class:`Sample`).

        Opponents' hands come independently from their distributions, redrawn while some
        resource exceeds what is in circulation; after :data:`HAND_RETRIES` tries each is
        drawn in turn from its hands that fit in what the others left (close to, not
        exactly, the conditional law). Their development cards come from the unseen pool
        without replacement, redrawn while one would hold enough victory cards to have won;
        after :data:`DEVELOPMENT_RETRIES` tries the excess victory cards are swapped for
        other cards of the deck or of opponents with room for them."""
        return Sample(self._sample_hands(rng), *self._sample_development(rng))

    def is_consistent(self, sample: Sample) -> bool:
        """True when ``sample`` agrees with everything the tracker knows: own cards exact,
        every opponent's hand possible and of its size, no resource beyond circulation,
        public development card counts and deck size, the unseen pool split between deck
        and opponents, and no opponent with enough victory cards to have won."""
        n = self.players
        if len(sample.hands) != n or len(sample.development) != n:
            return False
        me = self.seat
        if list(sample.hands[me]) != self._own or list(sample.development[me]) != self._own_dev:
            return False
        for q in range(n):
            if q != me and sample.hands[q] not in self._dist[q]:
                return False
        if not self._fits_circulation(sample.hands):
            return False
        if sum(sample.deck) != self._deck:
            return False
        if any(sum(sample.development[q]) != self._dev_counts[q] for q in range(n) if q != me):
            return False
        pool = self.unseen_development()
        rest = [
            pool[k] - sample.deck[k] - sum(sample.development[q][k] for q in range(n) if q != me)
            for k in range(N_DEV_KINDS)
        ]
        if min(rest) < 0 or sum(rest) != self._unknown_played:
            return False
        if any(rest[k] for k in range(N_DEV_KINDS) if k not in PROGRESS_KINDS):
            return False
        if any(not self._vp_ok(q, sample.development[q]) for q in range(n) if q != me):
            return False
        new = sample.development_new
        held = sample.development[self._current]
        return sum(new) == self._bought[self._current] and all(
            new[k] <= held[k] for k in range(N_DEV_KINDS)
        )

    def _sample_hands(self, rng: random.Random) -> tuple[Hand, ...]:
        hands: list[Hand] = []
        for _ in range(HAND_RETRIES):
            hands = [self._draw_hand(q, rng) for q in range(self.players)]
            if self._fits_circulation(hands):
                return tuple(hands)
        for _ in range(HAND_RETRIES):
            fitted = self._draw_within_circulation(rng)
            if fitted is not None:
                return fitted
        return tuple(hands)

    def _draw_within_circulation(self, rng: random.Random) -> tuple[Hand, ...] | None:
        """Opponents in random order, each drawn from its hands that fit in what the ones
        before left in circulation (None at a dead end)."""
        own = _counts(self._own)
        left = [BANK_PER_RESOURCE - self._bank[r] - own[r] for r in range(N_RESOURCES)]
        hands: list[Hand] = [own] * self.players
        order = [q for q in range(self.players) if q != self.seat]
        rng.shuffle(order)
        for q in order:
            l0, l1, l2, l3, l4 = left
            fits = [
                (h, p)
                for h, p in self._dist[q].items()
                if h[0] <= l0 and h[1] <= l1 and h[2] <= l2 and h[3] <= l3 and h[4] <= l4
            ]
            if not fits:
                return None
            h = rng.choices([h for h, _ in fits], [p for _, p in fits])[0]
            hands[q] = h
            for r in range(N_RESOURCES):
                left[r] -= h[r]
        return tuple(hands)

    def _draw_hand(self, q: Seat, rng: random.Random) -> Hand:
        if q == self.seat:
            return _counts(self._own)
        table = self._tables[q]
        if table is None:
            d = self._dist[q]
            keys = list(d)
            table = keys, list(accumulate(d[h] for h in keys))
            self._tables[q] = table
        keys, cum = table
        i = bisect.bisect_right(cum, rng.random() * cum[-1])
        return keys[min(i, len(keys) - 1)]

    def _fits_circulation(self, hands: tuple[Hand, ...] | list[Hand]) -> bool:
        return all(
            sum(h[r] for h in hands) <= BANK_PER_RESOURCE - self._bank[r]
            for r in range(N_RESOURCES)
        )

    def _sample_development(
        self, rng: random.Random
    ) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...], tuple[int, ...]]:
        me = self.seat
        pool = self.unseen_development()
        cards = [k for k in range(N_DEV_KINDS) for _ in range(pool[k])]
        held: list[list[int]] = []
        for attempt in range(DEVELOPMENT_RETRIES + 1):
            rest = self._drop_unknown_played(cards, rng)
            rng.shuffle(rest)
            held = []
            for q in range(self.players):
                k = 0 if q == me else min(self._dev_counts[q], len(rest))
                held.append(rest[:k])
                del rest[:k]
            bad = [
                q for q in range(self.players) if q != me and not self._vp_ok(q, _tally(held[q]))
            ]
            if not bad:
                break
            if attempt == DEVELOPMENT_RETRIES:
                self._make_room(held, rest, rng)
        deck = tuple(_tally(rest))
        development = tuple(
            tuple(self._own_dev) if q == me else tuple(_tally(held[q])) for q in range(self.players)
        )
        cur = self._current
        if cur == me:
            new = tuple(self._own_new)
        else:
            k = min(self._bought[cur], len(held[cur]))
            new = tuple(_tally(rng.sample(held[cur], k)))
        return development, new, deck

    def _drop_unknown_played(self, cards: list[int], rng: random.Random) -> list[int]:
        """The pool without :meth:`unknown_played` progress cards chosen at random."""
        u = self._unknown_played
        if not u:
            return cards[:]
        progress = [i for i, k in enumerate(cards) if k in PROGRESS_KINDS]
        gone = set(rng.sample(progress, min(u, len(progress))))
        return [k for i, k in enumerate(cards) if i not in gone]

    def _make_room(self, held: list[list[int]], rest: list[int], rng: random.Random) -> None:
        """Swap each victory card an opponent may not hold for a random other card of the
        deck or of an opponent with room for one more victory card. This always succeeds
        when some deal respects every limit (the true one does)."""
        vp = DevCard.VICTORY_POINT
        seats = [q for q in range(self.players) if q != self.seat]
        limit = {q: self._vp_limit(q) for q in seats}
        for q in seats:
            while held[q].count(vp) > limit[q]:
                spots = [(rest, j) for j, k in enumerate(rest) if k != vp]
                for o in seats:
                    if o != q and held[o].count(vp) < limit[o]:
                        spots.extend((held[o], j) for j, k in enumerate(held[o]) if k != vp)
                if not spots:
                    return
                other, j = rng.choice(spots)
                i = held[q].index(vp)
                held[q][i], other[j] = other[j], held[q][i]

    def _vp_limit(self, q: Seat) -> int:
        """The most victory cards opponent ``q`` can hold (see the module docstring)."""
        if self._over:
            return DEV_DECK[DevCard.VICTORY_POINT]
        return max(0, self.target - 1 - self._cap_points[q])

    def _vp_ok(self, q: Seat, development: tuple[int, ...] | list[int]) -> bool:
        return development[DevCard.VICTORY_POINT] <= self._vp_limit(q)

    # --- updates -----------------------------------------------------------------------------
    def _set(self, q: Seat, d: Dist) -> None:
        self._dist[q] = d
        self._tables[q] = None

    def _reset(self, q: Seat, size: int) -> None:
        """Forget ``q``'s hand: uniform over the hands of ``size`` in circulation."""
        self._sizes[q] = size
        self._set(q, _uniform(size, self._caps))

    def _circulation_caps(self) -> Hand:
        own = self._own
        bank = self._bank
        return _counts([max(0, BANK_PER_RESOURCE - bank[r] - own[r]) for r in range(N_RESOURCES)])

    def _apply_caps(self) -> None:
        """Drop opponents' hands holding more of a resource than is in circulation outside
        the bank and the own hand (a belief with no hand left is kept: events were missed)."""
        caps = self._caps = self._circulation_caps()
        for q in range(self.players):
            if q != self.seat:
                d = _capped(self._dist[q], caps)
                if d and d is not self._dist[q]:
                    self._set(q, d)

    def _bank_change(self, cards: tuple[int, ...] | list[int], sign: int) -> None:
        for r in range(N_RESOURCES):
            self._bank[r] = max(0, self._bank[r] + sign * cards[r])

    def _gain(self, q: Seat, cards: tuple[int, ...] | list[int]) -> None:
        if q == self.seat:
            for r in range(N_RESOURCES):
                self._own[r] += cards[r]
            return
        self._sizes[q] += sum(cards)
        self._set(q, _shifted(self._dist[q], tuple(cards)))

    def _pay(self, q: Seat, cards: tuple[int, ...] | list[int]) -> None:
        if q == self.seat:
            for r in range(N_RESOURCES):
                self._own[r] = max(0, self._own[r] - cards[r])
            return
        self._sizes[q] = max(0, self._sizes[q] - sum(cards))
        d = _paid(self._dist[q], tuple(cards))
        if d:
            self._set(q, d)
        else:  # the belief could not pay: events were missed; start afresh
            self._reset(q, self._sizes[q])

    def _require(self, q: Seat, cards: tuple[int, ...] | list[int]) -> None:
        """``q`` is known to hold at least ``cards`` (kept as is if no hand does)."""
        if q != self.seat:
            d = _holding(self._dist[q], tuple(cards))
            if d:
                self._set(q, d)

    def _monopoly(self, q: Seat, r: int, taken: tuple[int, ...]) -> None:
        total = 0
        for s, t in enumerate(taken):
            if s == q:
                continue  # always 0 for the player of the card: says nothing about it
            total += t
            if s == self.seat:
                self._own[r] = max(0, self._own[r] - t)
                continue
            self._sizes[s] = max(0, self._sizes[s] - t)
            kept = _normalised(
                {_plus_one(h, r, -t): p for h, p in self._dist[s].items() if h[r] == t}
            )
            if kept:
                self._set(s, kept)
            else:  # missed events: forget the rest, but not that it has none of ``r``
                cap = list(self._caps)
                cap[r] = 0
                self._set(s, _uniform(self._sizes[s], cap))
        got = [0] * N_RESOURCES
        got[r] = total
        self._gain(q, got)

    def _steal(self, thief: Seat, victim: Seat, r: int | None) -> None:
        if r is not None:
            card = [0] * N_RESOURCES
            card[r] = 1
            self._pay(victim, card)
            self._gain(thief, card)
            return
        if thief == self.seat or victim == self.seat:
            return  # not this seat's form of the event; a resync will repair the counts
        size = self._sizes[victim]
        if size <= 0:
            return
        d, chances = _lose_random(self._dist[victim], size)
        self._sizes[victim] = size - 1
        self._set(victim, _normalised(d))
        self._sizes[thief] += 1
        gained = _capped(_gain_random(self._dist[thief], chances), self._caps)
        self._set(thief, _normalised(gained))

    def _move_award(self, old: Seat | None, new: Seat | None) -> Seat | None:
        if old is not None:
            self._points[old] -= SPECIAL_CARD_POINTS
        if new is not None:
            self._points[new] += SPECIAL_CARD_POINTS
        return new
