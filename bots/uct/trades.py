"""Trade-optimistic moves (Algorithm 2): builds that 1:1 trades would pay for, and the
trades taken as done in the search."""

from __future__ import annotations

from collections.abc import Sequence

from engine import rules
from engine.actions import (
    Action,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    CancelTrade,
    ConfirmTrade,
)
from engine.constants import CITY_COST, DEV_CARD_COST, ROAD_COST, SETTLEMENT_COST
from engine.state import GameState, Phase
from engine.view import View

_MAIN = int(Phase.MAIN)
PRICES: dict[type, tuple[int, ...]] = {
    BuildCity: CITY_COST,
    BuildSettlement: SETTLEMENT_COST,
    BuildRoad: ROAD_COST,
    BuyDevCard: DEV_CARD_COST,
}


def optimistic_moves(state: GameState, seat: int) -> list[Action]:
    """Builds the seat cannot afford now but has as many cards as the price for, where the
    board allows them (Algorithm 2, GETTRADEOPTIMISTICMOVES)."""
    if state.phase != _MAIN or state.current != seat:
        return []
    t = state.acts[seat]
    b = seat * 5
    hand = state.hand[b : b + 5]
    size = sum(hand)
    out: list[Action] = []

    def short(price: tuple[int, ...]) -> bool:
        return size >= sum(price) and any(h < c for h, c in zip(hand, price, strict=True))

    if short(CITY_COST) and state.cities_left[seat]:
        out.extend(t.build_city[v] for v in state.pbuild[seat] if state.vlevel[v] == 1)
    if short(SETTLEMENT_COST) and state.settlements_left[seat]:
        out.extend(t.build_settlement[v] for v in rules.settlement_spots(state, seat))
    if short(ROAD_COST) and state.roads_left[seat]:
        out.extend(t.build_road[e] for e in rules.road_spots(state, seat))
    if short(DEV_CARD_COST) and any(state.deck):
        out.append(t.buy_dev)
    return out


def missing(hand: Sequence[int], price: Sequence[int]) -> tuple[list[int], list[int]]:
    """(cards lacking for the price, spare cards beyond it), each a list of resources."""
    lack = [r for r in range(5) for _ in range(max(0, price[r] - hand[r]))]
    spare = [r for r in range(5) for _ in range(max(0, hand[r] - price[r]))]
    return lack, spare


def assume_trades(state: GameState, seat: int, price: Sequence[int]) -> bool:
    """Make the seat able to pay ``price`` by 1:1 swaps of spare cards for lacking ones,
    with the opponent holding most of the lacking card (else the bank). False if
    impossible. Deterministic, so that one tree node always stands for one state."""
    b = seat * 5
    hand = state.hand
    lack, spare = missing(hand[b : b + 5], price)
    if len(spare) < len(lack):
        return False
    spare.sort(key=lambda r: (-(hand[b + r] - price[r]), r))  # the most plentiful first
    partners = [q for q in range(state.n) if q != seat]
    for want, give in zip(lack, spare, strict=False):
        q = max(partners, key=lambda q: (hand[q * 5 + want], -q))
        if hand[q * 5 + want]:
            hand[q * 5 + want] -= 1
            hand[q * 5 + give] += 1
        elif state.bank[want]:
            state.bank[want] -= 1
            state.bank[give] += 1
        else:
            return False
        hand[b + want] += 1
        hand[b + give] -= 1
    return True


def offerer_move(view: View, seat: int) -> Action | None:
    """The offerer's move while its offer is open: confirm with the seat that accepted
    with the fewest points; wait (None) while answers are pending; else withdraw.
    Counter-offers are not taken."""
    trade = view.trade
    assert trade is not None
    accepted = [q for q, a in enumerate(trade.answers) if a == "accepted"]
    if accepted:
        points = {p.seat: p.points for p in view.seats}
        return ConfirmTrade(seat, min(accepted, key=lambda q: (points[q], q)))
    if "pending" in trade.answers:
        return None
    return CancelTrade(seat)
