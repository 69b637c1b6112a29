"""``hexhaven demo``: a match between simple greedy players, told in the terminal.

The players here are a plain rule of thumb (build the dearest thing you can, trade toward a
city or settlement, otherwise end the turn); the real bots come with the bots issue.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from clients.narrate import Narrator, cards_text
from engine import (
    Action,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    EndTurn,
    GameConfig,
    GameState,
    MaritimeTrade,
    Phase,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    apply,
    default_action,
    legal_actions,
    new_game,
    seats_to_act,
)
from engine.constants import CITY_COST, SETTLEMENT_COST, Terrain
from engine.rules import settlement_spots

NAMES = ("Ana", "Bo", "Cy", "Di")
_ORDER: tuple[type, ...] = (
    BuildCity,
    BuildSettlement,
    PlayYearOfPlenty,
    PlayMonopoly,
    PlayKnight,
    PlayRoadBuilding,
    BuyDevCard,
)


def greedy_action(state: GameState, seat: int, rnd: random.Random) -> Action:
    """A rule-of-thumb move for ``seat``, which must be one of the seats to act."""
    options = legal_actions(state, seat)
    if not any(isinstance(a, (EndTurn, BuildRoad, MaritimeTrade)) for a in options):
        # Set-up, discards, robber and the rest: the engine's own reasonable default.
        return default_action(state, seat)
    for kind in _ORDER:
        picks = [a for a in options if isinstance(a, kind)]
        if picks:
            return rnd.choice(picks)
    roads = [a for a in options if isinstance(a, BuildRoad)]
    if roads and (not settlement_spots(state, seat) or state.phase == Phase.ROAD_BUILDING):
        return rnd.choice(roads)
    trade = _useful_trade(state, seat, options)
    if trade is not None:
        return trade
    end = [a for a in options if isinstance(a, EndTurn)]
    return end[0] if end else rnd.choice(options)


def _useful_trade(state: GameState, seat: int, options: list[Action]) -> Action | None:
    """A maritime trade that brings a city or settlement closer, giving only surplus."""
    hand = state.hand_of(seat)
    target = CITY_COST if state.settlements_left[seat] < 4 else SETTLEMENT_COST
    missing = [r for r in range(5) if hand[r] < target[r]]
    for a in options:
        if (
            isinstance(a, MaritimeTrade)
            and a.get in missing
            and hand[a.give] - a.ratio >= target[a.give]
        ):
            return a
    return None


def play_demo(
    seed: int,
    config: GameConfig,
    out: Callable[[str], None] = print,
    *,
    quiet: bool = False,
    max_actions: int = 20000,
) -> GameState:
    """Play one greedy match to the end and tell it through ``out``; returns the final state."""
    state = new_game(config, seed)
    names = NAMES[: config.players]
    narrator = Narrator(names)
    rnd = random.Random(seed)
    out(
        f"Hexhaven demo: {config.players} greedy players, seed {seed}, first to "
        f"{config.victory_points} points"
    )
    if not quiet:
        for ring in range(state.board.radius):
            hexes = [h for h, k in enumerate(state.topo.hex_ring) if k == ring]
            cells = [
                f"{h}:{Terrain(state.board.terrain[h]).name.lower()}"
                + (f"/{state.board.tokens[h]}" if state.board.tokens[h] else "")
                for h in hexes
            ]
            out(f"ring {ring}: " + "  ".join(cells))
    for _ in range(max_actions):
        if state.is_over:
            break
        seat = seats_to_act(state)[0]
        for event in apply(state, greedy_action(state, seat, rnd)):
            line = narrator.describe(event)
            if line and not quiet:
                out(line)
    if state.is_over:
        points = ", ".join(f"{names[q]} {state.victory_points(q)}" for q in range(state.n))
        out(f"{names[state.winner]} won on turn {state.turn}. Points: {points}")
    else:
        out(f"No winner after {max_actions} actions.")
    for q in range(state.n):
        out(f"  {names[q]}: hand {cards_text(state.hand_of(q))}")
    return state
