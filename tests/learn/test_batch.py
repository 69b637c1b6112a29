"""Batched stepping: arrays written in place, rewards, restarts, refusals, repeatability."""

from __future__ import annotations

import numpy as np
import pytest

from engine import view
from features import encoding
from learn.batch import BatchedGames, Rules, acting_seat


def _random_actions(batch: BatchedGames, rng: np.random.Generator) -> np.ndarray:
    return np.asarray([rng.choice(np.flatnonzero(row)) for row in batch.mask])


def test_rows_are_the_acting_seats_view_and_games_restart_when_they_end() -> None:
    batch = BatchedGames(6, Rules(players=3, victory_points=4), seed=1)
    batch.reset()
    obs_buffer = batch.obs
    rng = np.random.default_rng(1)
    enc = encoding(3, 3)
    ended = 0
    for step in range(4000):
        batch.step(_random_actions(batch, rng))
        assert batch.obs is obs_buffer  # rewritten in place
        for i in range(6):
            game = batch.games[i]
            seat = int(batch.seat[i])
            assert seat == acting_seat(game.state)
            assert batch.obs[i].tolist() == enc.encode_view(view(game.state, seat)), step
        won = batch.done & ~batch.truncated
        for i in np.flatnonzero(won).tolist():
            w = int(batch.winner[i])
            assert batch.rewards[i, w] == 1.0
            assert sorted(batch.rewards[i].tolist()) == [-1.0, -1.0, 1.0]
        assert not batch.rewards[~batch.done].any()
        ended += int(batch.done.sum())
        if ended >= 10:
            break
    assert ended >= 10
    assert batch.mask.any(axis=1).all()


def test_an_illegal_action_is_refused_before_any_game_moves() -> None:
    batch = BatchedGames(3, Rules(players=2), seed=2)
    batch.reset()
    rng = np.random.default_rng(2)
    actions = _random_actions(batch, rng)
    actions[1] = int(np.flatnonzero(batch.mask[1] == 0)[0])
    before = batch.obs.copy()
    with pytest.raises(ValueError, match=r"not legal for seat \d in game 1"):
        batch.step(actions)
    assert (batch.obs == before).all()
    assert all(g.state.actions_taken == 0 for g in batch.games)
    with pytest.raises(ValueError, match="shape"):
        batch.step(actions[:2])


def test_the_same_seed_plays_the_same_games() -> None:
    runs = []
    for _ in range(2):
        batch = BatchedGames(4, Rules(players=4), seed=9)
        batch.reset()
        rng = np.random.default_rng(9)
        for _ in range(300):
            batch.step(_random_actions(batch, rng))
        runs.append(batch.obs.copy())
    assert (runs[0] == runs[1]).all()
    with pytest.raises(ValueError, match="at least one game"):
        BatchedGames(0)
