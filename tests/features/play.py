"""Seeded random games over the action index: positions of every phase, offers and
counter-offers included."""

from __future__ import annotations

import random
from collections.abc import Iterator

from engine import GameConfig, GameState, advance, new_game, seats_to_act
from engine.state import Phase
from features import action_index

OFFERS_PER_TURN = 2
"""Random play makes at most this many offers a turn (the index has 60 of them, and a
uniform choice would otherwise keep offering)."""


def positions(players: int, seed: int, games: int = 1) -> Iterator[tuple[GameState, int]]:
    """``(state, seat)`` before each action of ``games`` random games: the state (changed
    in place afterwards: copy what must be kept) and the seat about to act. Each action is a
    uniformly random index of the mask of a random seat that owes one."""
    index = action_index(3, players)
    offer = range(index.start["offer"], index.start["offer"] + 60)
    rng = random.Random(seed)
    for g in range(games):
        state = new_game(GameConfig(players=players), seed * 1000 + g)
        offers: dict[int, int] = {}
        while not state.is_over and state.actions_taken < 3000:
            seats = list(seats_to_act(state))
            rng.shuffle(seats)
            for seat in seats:
                legal = [i for i, bit in enumerate(index.mask(state, seat)) if bit]
                if state.phase == Phase.MAIN and offers.get(state.turn, 0) >= OFFERS_PER_TURN:
                    legal = [i for i in legal if i not in offer]
                if legal:
                    break
            else:
                raise AssertionError(f"nobody can act at {state.actions_taken}")
            yield state, seat
            choice = rng.choice(legal)
            if choice in offer:
                offers[state.turn] = offers.get(state.turn, 0) + 1
            advance(state, index.state_action(state, seat, choice))
