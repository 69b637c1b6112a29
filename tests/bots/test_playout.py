"""Rollouts draw their random choices as ``random.Random.choice`` does, in both builds."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bots.playout import choice, rollout
from engine import EndTurn
from tests.engine.positions import assert_conserved, config, setup_game


@given(seed=st.integers(0, 2**64), size=st.integers(1, 300), draws=st.integers(1, 5))
def test_choice_draws_what_random_choice_draws(seed: int, size: int, draws: int) -> None:
    items = [EndTurn(seat) for seat in range(size)]
    ours = random.Random(seed)
    theirs = random.Random(seed)
    for _ in range(draws):
        assert choice(ours, items) is theirs.choice(items)
    assert ours.getstate() == theirs.getstate()


def test_choice_from_nothing_is_an_index_error() -> None:
    rnd = random.Random(1)
    before = rnd.getstate()
    with pytest.raises(IndexError):
        choice(rnd, [])
    assert rnd.getstate() == before


def test_a_rollout_is_a_function_of_its_seed() -> None:
    for seed in range(3):
        ends = []
        for _ in range(2):
            state = setup_game(config(), seed)
            rnd = random.Random(seed)
            state.rng = rnd.getrandbits(64)
            winner = rollout(state, rnd, prune=True)
            assert winner == state.winner and state.is_over
            assert_conserved(state)
            ends.append((winner, state.actions_taken, tuple(state.hand), rnd.random()))
        assert ends[0] == ends[1]
