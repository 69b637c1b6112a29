"""Scores for a position where a rollout stops short of the end (``rollout_turns``): by
points and production (:func:`position_rewards`), or by the value network
(:func:`network_rewards`)."""

from __future__ import annotations

import math
from collections.abc import Callable

from bots.value.load import network, numpy_form
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


def network_rewards(weights: str, players: int) -> Callable[[GameState, int], list[float]]:
    """A scorer of positions cut short by the value network (``weights``, a file, or the
    one shipped for ``players`` seats): ``score(state, seat)`` is each seat's chance to win
    as the network reads ``seat``'s view of ``state`` (nothing hidden from that seat
    counts), by absolute seat. ValueError if there is no such network."""
    net = network(weights, players)
    fast = numpy_form(net)
    read = net.state_win if fast is None else fast.state_win

    def score(state: GameState, seat: int) -> list[float]:
        relative = read(state, seat)
        return [relative[(q - seat) % players] for q in range(players)]

    return score
