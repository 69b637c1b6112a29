"""Scores for a position where a rollout stops short of the end (``rollout_turns``)."""

from __future__ import annotations

import math

from engine.constants import DICE_DOTS
from engine.state import GameState


def _production(state: GameState, seat: int) -> int:
    """The dice dots a seat's buildings touch, cities twice, the robber's hex not at all."""
    tokens = state.board.tokens
    hexes = state.topo.vertex_hexes
    robber = state.robber
    vlevel = state.vlevel
    dots = 0
    for v in state.pbuild[seat]:
        level = vlevel[v]
        for h in hexes[v]:
            if h != robber:
                dots += level * DICE_DOTS.get(tokens[h], 0)
    return dots


def position_rewards(state: GameState) -> list[float]:
    """Each seat's share of a position cut short: a softmax over the seats' scores, victory
    points (hidden ones included) plus production, the dice dots the seat's buildings touch
    (cities twice, the robber's hex not at all) over 12."""
    scores = [state.victory_points(q) + _production(state, q) / 12.0 for q in range(state.n)]
    top = max(scores)
    weights = [math.exp(x - top) for x in scores]
    total = sum(weights)
    return [w / total for w in weights]
