"""Whole games run to the end through the checked path, from several set-ups."""

from __future__ import annotations

import random

import pytest

from engine import GameConfig, apply, is_legal, legal_actions, new_game, seats_to_act


@pytest.mark.parametrize(
    "config",
    [
        GameConfig(),
        GameConfig(players=3, board_setup="spiral"),
        GameConfig(players=2, victory_points=8),
        GameConfig(radius=4),
    ],
    ids=["standard", "spiral-3p", "2p-8vp", "radius4"],
)
def test_random_game_reaches_a_winner(config: GameConfig) -> None:
    state = new_game(config, seed=11)
    rnd = random.Random(11)
    for _ in range(20000):
        if state.is_over:
            break
        actions = legal_actions(state)
        assert actions, "a running game always offers an action"
        action = rnd.choice(actions)
        assert action.seat in seats_to_act(state)
        assert is_legal(state, action)
        apply(state, action)
    assert state.is_over
    assert state.victory_points(state.winner) >= config.victory_points
