"""The set-up settlements by flat Monte Carlo (``setup_rollouts``)."""

from __future__ import annotations

import random
import time

from bots.playout import resource_dots, rollout, setup_move, spot_worth
from engine import rules
from engine.actions import Action
from engine.state import GameState, Phase

_SETUP_SETTLEMENT = int(Phase.SETUP_SETTLEMENT)
_SETUP_PHASES = (_SETUP_SETTLEMENT, int(Phase.SETUP_ROAD))

SETUP_SPOTS = 8
"""How many set-up spots :func:`setup_wins` weighs."""


def setup_wins(
    state: GameState,
    seat: int,
    rollouts: int,
    keep: int,
    rnd: random.Random,
    deadline: float | None = None,
) -> dict[Action, int]:
    """Flat Monte Carlo over the seat's set-up settlement (``setup_rollouts``): the ``keep``
    spots of most worth (:func:`bots.playout.spot_worth`, best first) are each placed,
    every seat's remaining set-up is played by the ``heuristic`` player's rules
    (:func:`bots.playout.setup_move`), then up to ``rollouts`` games are played on from
    there by the planned policy with its chores. The seat's wins for each spot. The spots
    take turns, so a ``time.monotonic()`` deadline leaves them evenly sampled. Raises
    ValueError unless a set-up settlement is due."""
    if state.phase != _SETUP_SETTLEMENT:
        raise ValueError(f"setup_wins places set-up settlements, not in phase {state.phase}")
    dots = resource_dots(state, seat)
    table = state.acts[seat].place_settlement
    spots = sorted(
        rules.setup_settlement_spots(state), key=lambda v: (-spot_worth(state, dots, v), v)
    )[:keep]
    candidates: list[Action] = [table[v] for v in spots]
    starts: list[tuple[Action, GameState]] = []
    for action in candidates:
        start = state.copy()
        rules.advance(start, action)
        while start.phase in _SETUP_PHASES:
            rules.advance(start, setup_move(start, rnd))
        starts.append((action, start))
    wins = {action: 0 for action, _ in starts}
    for _ in range(rollouts):
        if deadline is not None and time.monotonic() >= deadline:
            break
        for action, start in starts:
            game = start.copy()
            game.rng = rnd.getrandbits(64)
            if rollout(game, rnd, True, planned=True, chores=True) == seat:
                wins[action] += 1
    return wins
