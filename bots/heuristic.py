"""The ``heuristic`` bot: a rule-based player, the baseline the search bots are measured by.

It decides from what its seat may see (the view each prompt carries) and the prompt's legal
actions, by the rules the planned rollouts play (:func:`bots.playout.heuristic_move`, on a
state rebuilt from its view): placements by production weighted with dice probability,
resource variety and harbours; cities before settlements before development cards before
roads; the robber on the leader's best hex; bank and harbour trades toward its next build;
domestic offers accepted when they bring a build closer; discards of what it needs least.

It makes 1:1 offers too (:meth:`HeuristicAgent.offer`): when it would build nothing, it
offers everyone one card it holds beyond the needs of the build it is closest to for one
card that build lacks, at most :data:`OFFERS_PER_TURN` a turn, never the same swap twice a
turn, and none more that turn once an offer is declined by everyone. It confirms with the
seat that accepted with the fewest points, waits while answers are pending, and cancels
when nobody took it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from bots.playout import heuristic_move
from clients.sdk import Agent, Table
from engine.actions import (
    Action,
    BuyDevCard,
    CancelTrade,
    ConfirmTrade,
    EndTurn,
    MaritimeTrade,
    counts_of,
)
from engine.actions import OfferTrade as EngineOffer
from engine.constants import (
    CITY_COST,
    DEV_CARD_COST,
    N_DEV_KINDS,
    N_RESOURCES,
    ROAD_COST,
    SETTLEMENT_COST,
)
from engine.events import TradeClosed
from engine.rebuild import state_from_view
from engine.rules import is_legal
from engine.state import GameState, Phase
from engine.view import View
from protocol import messages as m
from protocol.payloads import (
    Cards,
    OfferTrade,
    ViewPayload,
    action_from_engine,
    action_to_engine,
    event_to_engine,
    view_to_engine,
)

CITY = CITY_COST
SETTLEMENT = SETTLEMENT_COST
ROAD = ROAD_COST
DEV_CARD = DEV_CARD_COST
OFFERS_PER_TURN = 2
"""How many 1:1 offers the ``heuristic`` player makes in a turn at most."""
NEAR = 2
"""It offers only toward a build that lacks at most this many cards."""
_SAVING = frozenset({"end_turn", "buy_dev_card", "maritime_trade"})
"""The main-phase choices that build nothing, before which the player may offer a trade."""


def next_build(has_settlement: bool, cities_left: int, settlements_left: int) -> tuple[int, ...]:
    """The price of the next thing worth saving for: a city while there is a settlement to
    upgrade and a city piece left, else a settlement while a piece is left, else a
    development card."""
    if cities_left and has_settlement:
        return CITY
    if settlements_left:
        return SETTLEMENT
    return DEV_CARD


def _one(r: int) -> Cards:
    """One card of resource ``r``."""
    return Cards.of(tuple(int(q == r) for q in range(N_RESOURCES)))


def _missing(hand: Sequence[int], cost: Sequence[int]) -> int:
    """How many cards ``hand`` lacks of ``cost``."""
    return sum(max(0, c - h) for h, c in zip(hand, cost, strict=True))


def state_of(view: View, seat: int) -> GameState:
    """The game ``view`` (``seat``'s) shows as an engine state, the hidden cards filled in
    with any guess that fits the counts: the player's rules read only what its seat sees."""
    none = (0,) * N_RESOURCES
    unknown = (0,) * (N_DEV_KINDS - 1)
    hands: list[Sequence[int]] = []
    development: list[Sequence[int]] = []
    for p in sorted(view.seats, key=lambda p: p.seat):
        if p.seat == seat:
            hands.append(view.hand or none)
            development.append(view.development or (0,) * N_DEV_KINDS)
        else:
            hands.append((p.resource_cards, *none[1:]))
            development.append((p.development_cards, *unknown))
    deck = (view.development_deck, *unknown)
    new = view.development_new or (0,) * N_DEV_KINDS
    return state_from_view(view, hands, development, deck, development_new=new)


def closest_build(
    hand: Sequence[int], upgradable: bool, cities_left: int, settlements_left: int, deck: int
) -> tuple[int, ...] | None:
    """The price of the build ``hand`` lacks fewest cards for, among those the seat may
    still make (a city, a settlement, a development card; on a tie in that order); None
    when it can pay for one already or may make none."""
    options = [
        cost
        for cost, possible in (
            (CITY, upgradable and cities_left > 0),
            (SETTLEMENT, settlements_left > 0),
            (DEV_CARD, deck > 0),
        )
        if possible
    ]
    if not options:
        return None
    best = min(options, key=lambda cost: _missing(hand, cost))
    return None if _missing(hand, best) == 0 else best


def swap_toward(
    hand: Sequence[int], cost: Sequence[int] | None, tried: set[tuple[int, int]]
) -> tuple[int, int] | None:
    """(give, want): one card held beyond ``cost``'s needs (the most spare) for one card it
    lacks (the most lacking), not among ``tried``; None without a build to save for, when
    it lacks more than :data:`NEAR` cards, or when nothing is spare."""
    if cost is None or _missing(hand, cost) > NEAR:
        return None
    spare = {r: hand[r] - cost[r] for r in range(N_RESOURCES) if hand[r] > cost[r]}
    lacking = {r: cost[r] - hand[r] for r in range(N_RESOURCES) if hand[r] < cost[r]}
    pairs = [(g, w) for g in spare for w in lacking if (g, w) not in tried]
    if not pairs:
        return None
    return max(pairs, key=lambda p: (spare[p[0]], lacking[p[1]], -p[0], -p[1]))


def state_swap(state: GameState, seat: int, tried: set[tuple[int, int]]) -> tuple[int, int] | None:
    """:func:`swap_toward` for ``seat`` of an engine state, toward its closest build."""
    hand = state.hand[seat * N_RESOURCES : (seat + 1) * N_RESOURCES]
    upgradable = any(state.vlevel[v] == 1 for v in state.pbuild[seat])
    cost = closest_build(
        hand, upgradable, state.cities_left[seat], state.settlements_left[seat], sum(state.deck)
    )
    return swap_toward(hand, cost, tried)


class HeuristicTrader:
    """The ``heuristic`` player's moves on an engine state with its 1:1 offers made as
    :class:`HeuristicAgent` makes them over the protocol (:func:`bots.playout.heuristic_move`
    alone never offers): for self-play on the engine, one object for every seat of a game."""

    def __init__(self, per_turn: int = OFFERS_PER_TURN) -> None:
        self.per_turn = per_turn
        self.turn = -1
        self.offers = 0
        self.declined = False
        self.tried: set[tuple[int, int]] = set()

    def move(self, state: GameState, seat: int, legal: list[Action], rnd: random.Random) -> Action:
        """``seat``'s move among ``legal``, or an offer before a move that builds nothing."""
        if state.turn != self.turn:
            self.turn, self.offers, self.declined = state.turn, 0, False
            self.tried.clear()
        if state.phase == Phase.TRADE and seat == state.current:  # our offer, answered
            confirms = [a for a in legal if isinstance(a, ConfirmTrade)]
            if confirms:
                points = state.victory_points
                return min(confirms, key=lambda a: (points(a.partner), a.partner))
            self.declined = True
            return next((a for a in legal if isinstance(a, CancelTrade)), legal[0])
        pick = heuristic_move(state, seat, legal, rnd)
        if (
            state.phase == Phase.MAIN
            and seat == state.current
            and isinstance(pick, (EndTurn, BuyDevCard, MaritimeTrade))
            and not self.declined
            and self.offers < self.per_turn
        ):
            offer = self._offer(state, seat)
            if offer is not None:
                return offer
        return pick

    def _offer(self, state: GameState, seat: int) -> EngineOffer | None:
        swap = state_swap(state, seat, self.tried)
        if swap is None:
            return None
        self.tried.add(swap)
        give, want = swap
        offer = EngineOffer(seat, counts_of(give), counts_of(want), None)
        if not is_legal(state, offer):
            return None
        self.offers += 1
        return offer


class HeuristicAgent(Agent):
    """Rule-based play from the seat's view (see the module docstring)."""

    name = "heuristic"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.turn = -1
        self.offers = 0  # offers made this turn
        self.declined = False  # an offer of this turn was declined by everyone
        self.tried: set[tuple[int, int]] = set()  # (give, want) offered this turn

    def on_event(self, event: Any, table: Table) -> None:
        closed = event_to_engine(event)
        if isinstance(closed, TradeClosed) and closed.reason == "declined":
            self.declined = self.declined or closed.seat == table.seat

    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        view = prompt.view or table.view
        if view is None or view.seat is None:
            return self.rng.choice(prompt.actions)
        if view.turn != self.turn:
            self.turn, self.offers, self.declined = view.turn, 0, False
            self.tried.clear()
        trade = view.trade
        if trade is not None and trade.offerer == view.seat:
            return self._as_offerer(view, prompt.actions)
        decision = Decision(view, prompt.actions, self.rng)
        pick = decision.best()
        if view.phase == "main" and view.current == view.seat and pick.kind in _SAVING:
            offer = self.offer(decision)
            if offer is not None:
                return offer
        return pick

    def offer(self, decision: Decision) -> OfferTrade | None:
        """A 1:1 offer toward the build the seat is closest to (see the module docstring),
        or None."""
        if self.declined or self.offers >= OFFERS_PER_TURN:
            return None
        swap = decision.swap(self.tried)
        if swap is None:
            return None
        self.tried.add(swap)
        self.offers += 1
        give, want = swap
        return OfferTrade(give=_one(give), get=_one(want))

    def _as_offerer(self, view: ViewPayload, actions: Sequence[Any]) -> Any | None:
        """With an offer of ours open: confirm with the seat that accepted with the fewest
        points (a counter-offer is not taken), wait (None) while answers are pending, else
        cancel."""
        trade = view.trade
        assert trade is not None
        confirms = [
            a
            for a in actions
            if a.kind == "confirm_trade" and trade.answers[a.partner] == "accepted"
        ]
        if confirms:
            points = {p.seat: p.points for p in view.seats}
            return min(confirms, key=lambda a: (points[a.partner], a.partner))
        if "pending" in trade.answers:
            return None
        return next(a for a in actions if a.kind == "cancel_trade")


class Decision:
    """One choice of the ``heuristic`` player: the policy's move
    (:func:`bots.playout.heuristic_move`) on the prompt's view rebuilt as an engine state."""

    def __init__(self, view: ViewPayload, actions: Sequence[Any], rng: random.Random) -> None:
        self.view = view
        self.actions = list(actions)
        self.rng = rng
        self.me = view.seat if view.seat is not None else 0
        self.hand = list(view.hand.counts()) if view.hand is not None else [0] * N_RESOURCES

    def best(self) -> Any:
        """The wire action the policy picks among the prompt's."""
        state = state_of(view_to_engine(self.view), self.me)
        legal = [action_to_engine(a, self.me) for a in self.actions]
        return action_from_engine(heuristic_move(state, self.me, legal, self.rng))

    def closest(self) -> tuple[int, ...] | None:
        """The price of the build the seat lacks fewest cards for (:func:`closest_build`)."""
        me = self.view.seats[self.me]
        upgradable = any(s == self.me for _, s in self.view.settlements)
        return closest_build(
            self.hand, upgradable, me.cities_left, me.settlements_left, self.view.development_deck
        )

    def swap(self, tried: set[tuple[int, int]]) -> tuple[int, int] | None:
        """The seat's 1:1 offer (:func:`swap_toward`) toward its closest build."""
        return swap_toward(self.hand, self.closest(), tried)
