"""A state rebuilt from one seat's view and the true hidden cards is the real game as far
as any seat can tell: the same views, the same legal actions, and the same future."""

from __future__ import annotations

import pytest

from engine import GameConfig, GameState, Phase, apply, legal_actions, new_game, view
from engine.rebuild import config_of, state_from_view
from tests.engine.randomplay import random_steps

GAMES = [
    (GameConfig(), 11),
    (GameConfig(players=3, board_setup="spiral"), 12),
    (GameConfig(players=2, victory_points=8), 13),
    (GameConfig(radius=4), 14),
]


def _rebuilt(state: GameState, seat: int) -> GameState:
    n = state.n
    return state_from_view(
        view(state, seat),
        [state.hand_of(q) for q in range(n)],
        [state.dev_of(q) for q in range(n)],
        tuple(state.deck),
        development_new=tuple(state.dev_new),
        seed=state.seed,
    )


def _same_game(a: GameState, b: GameState) -> None:
    for q in [None, *range(a.n)]:
        assert view(a, q) == view(b, q)
    assert sorted(map(repr, legal_actions(a))) == sorted(map(repr, legal_actions(b)))


@pytest.mark.parametrize(("config", "seed"), GAMES)
def test_a_state_rebuilt_from_any_seats_view_plays_on_like_the_real_one(
    config: GameConfig, seed: int
) -> None:
    steps = list(random_steps(config, seed, max_actions=3000))
    assert steps[-1].state.is_over
    checked = 0
    states = {}
    # Replay to keep copies at sampled points (the steps share one mutated state).
    live = new_game(config, seed)
    rare = (Phase.SETUP_ROAD, Phase.DISCARD, Phase.MOVE_ROBBER, Phase.ROAD_BUILDING, Phase.TRADE)
    for i, step in enumerate(steps):
        if i % 7 == 0 or live.phase in rare:
            states[i] = live.copy()
        apply(live, step.action)
    for i, before in states.items():
        seat = i % config.players
        rebuilt = _rebuilt(before, seat)
        rebuilt.rng = before.rng  # the same dice to come
        _same_game(before, rebuilt)
        real = before.copy()
        for step in steps[i : i + 12]:
            assert apply(real, step.action) == apply(rebuilt, step.action)
            _same_game(real, rebuilt)
        checked += 1
    assert checked > 100


def test_the_config_comes_from_the_view_and_is_shared() -> None:
    steps = list(random_steps(GameConfig(players=3), 5, max_actions=40))
    state = steps[-1].state
    config = config_of(view(state, 1))
    assert config.board == state.board and config.players == 3
    assert config_of(view(state, 2)) is config


def test_a_guess_that_contradicts_the_view_is_refused() -> None:
    steps = list(random_steps(GameConfig(), 6, max_actions=200))
    state = steps[-1].state
    n = state.n
    hands = [state.hand_of(q) for q in range(n)]
    devs = [state.dev_of(q) for q in range(n)]
    wrong = [(*h[:4], h[4] + 1) for h in hands]
    with pytest.raises(ValueError, match="holds"):
        state_from_view(view(state, 0), wrong, devs, tuple(state.deck))
    deck = (*state.deck[:4], state.deck[4] + 1)
    with pytest.raises(ValueError, match="deck"):
        state_from_view(view(state, 0), hands, devs, deck)
