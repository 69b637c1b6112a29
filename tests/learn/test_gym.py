"""The Gymnasium environments: the API, the registry, opponents, seats and rewards."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import hexhaven
from engine import view
from features import encoding
from learn.gym_env import HexhavenEnv, HexhavenVectorEnv


def _random_episode(
    env: HexhavenEnv, rng: np.random.Generator, seed: int | None = None
) -> tuple[float, dict[str, object]]:
    _, info = env.reset(seed=seed)
    total = 0.0
    while True:
        legal = np.flatnonzero(info["action_mask"])
        assert legal.size, "the learner is never asked with nothing to do"
        _, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        total += float(reward)
        if terminated or truncated:
            return total, info


@pytest.mark.parametrize("players", [2, 4])
def test_passes_gymnasiums_env_checker(players: int) -> None:
    check_env(HexhavenEnv(players=players), skip_render_check=True)


def test_made_from_the_registry_after_import() -> None:
    assert hexhaven.register()
    env = gymnasium.make(hexhaven.ENV_ID, players=3, opponents=["random"])
    obs, info = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    assert info["action_mask"].shape == (env.action_space.n,)  # type: ignore[attr-defined]
    vec = gymnasium.make_vec(hexhaven.ENV_ID, num_envs=5, players=3)
    assert isinstance(vec.unwrapped, HexhavenVectorEnv)
    obs, _ = vec.reset(seed=1)
    assert obs.shape == (5, *env.observation_space.shape)  # type: ignore[misc]


def test_the_learner_plays_every_seat_in_turn_and_is_rewarded_for_winning() -> None:
    env = HexhavenEnv(players=3, victory_points=5)
    rng = np.random.default_rng(0)
    seats, results = [], []
    for k in range(6):
        total, info = _random_episode(env, rng, seed=7 if k == 0 else None)
        seats.append(info["seat"])
        results.append((total, info["winner"] == info["seat"]))
    assert seats == [0, 1, 2, 0, 1, 2]
    assert all(total == (1.0 if won else -1.0) for total, won in results)


def test_a_fixed_seat_and_a_policy_opponent() -> None:
    calls: list[int] = []

    def first_legal(obs: np.ndarray, mask: np.ndarray) -> int:
        assert obs.shape == (1437,)
        calls.append(1)
        return int(np.flatnonzero(mask)[0])

    env = HexhavenEnv(opponents=[first_legal], seat=1, players=2, victory_points=4)
    _, info = _random_episode(env, np.random.default_rng(1), seed=2)
    assert info["seat"] == 1
    assert calls


def test_a_bot_opponent_plays_through_the_game_table() -> None:
    env = HexhavenEnv(opponents=["heuristic"], players=2, victory_points=4, seat=0)
    total, _ = _random_episode(env, np.random.default_rng(2), seed=3)
    assert env.match is not None and env.match.table is not None
    assert env.match.seats[1].decisions > 0
    assert total in (-1.0, 1.0)


def test_an_illegal_action_is_penalised_and_changes_nothing() -> None:
    env = HexhavenEnv(players=2, illegal=-0.5)
    obs, info = env.reset(seed=4)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    again, reward, terminated, truncated, info2 = env.step(illegal)
    assert reward == -0.5 and info2["illegal"]
    assert not terminated and not truncated
    assert (again == obs).all() and (info2["action_mask"] == info["action_mask"]).all()
    with pytest.raises(ValueError, match="outside"):
        env.step(10_000)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"opponents": ["random", "random"], "players": 2}, "need 1 opponents"),
        ({"opponents": ["nobody"]}, "unknown bot kind"),
        ({"seat": 4, "players": 4}, "not one of the 4 seats"),
        ({"rules": None, "colour": 3}, "colour"),
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises((ValueError, TypeError), match=message):
        HexhavenEnv(**kwargs)  # type: ignore[arg-type]


def test_the_vector_restarts_a_game_in_the_step_that_ends_it() -> None:
    vec = HexhavenVectorEnv(4, players=2, victory_points=3)
    obs, info = vec.reset(seed=5)
    rng = np.random.default_rng(5)
    ended = 0
    for _ in range(3000):
        mask = info["action_mask"]
        actions = [int(rng.choice(np.flatnonzero(row))) for row in mask]
        obs, rewards, terminated, truncated, info = vec.step(actions)
        assert vec.observation_space.contains(obs)
        done = terminated | truncated
        if done.any():
            assert (info["_final_obs"] == done).all()
            assert set(rewards[terminated].tolist()) <= {-1.0, 1.0}
            ended += int(done.sum())
        assert mask.shape == (4, vec.games.index.size) and info["action_mask"].any(1).all()
        if ended >= 8:
            break
    assert ended >= 8
    with pytest.raises(ValueError, match="one action per game"):
        vec.step([0, 0])


def test_any_built_in_bot_spec_is_an_opponent() -> None:
    env = HexhavenEnv(opponents=["uct:strength=easy", "heuristic"], players=3, seat=0)
    obs, info = env.reset(seed=6)
    assert env.observation_space.contains(obs) and info["action_mask"].any()
    assert env.match is not None and env.match.table is not None
    kinds = [type(s.agent).__name__ for s in env.match.seats]
    assert kinds == ["_Learner", "UCTAgent", "HeuristicAgent"]
    env.close()
    env.close()  # again: nothing left to stop


def test_every_observation_is_the_learners_view_encoded() -> None:
    """The environments keep the board and the pieces they wrote while nothing is built:
    every step's observation is still exactly the seat's view, encoded afresh."""
    env = HexhavenEnv(players=3, victory_points=6, opponents=["random"])
    vec = HexhavenVectorEnv(2, players=2, victory_points=5)
    enc3, enc2 = encoding(3, 3), encoding(3, 2)
    rng = np.random.default_rng(8)
    obs, info = env.reset(seed=8)
    vobs, vinfo = vec.reset(seed=8)
    for _ in range(1500):
        match = env.match
        assert match is not None
        assert obs.tolist() == enc3.encode_view(view(match.state, match.seat))
        for i, m in enumerate(vec.matches):
            assert vobs[i].tolist() == enc2.encode_view(view(m.state, m.seat))
        obs, _, terminated, truncated, info = env.step(
            int(rng.choice(np.flatnonzero(info["action_mask"])))
        )
        if terminated or truncated:
            obs, info = env.reset()
        actions = [int(rng.choice(np.flatnonzero(row))) for row in vinfo["action_mask"]]
        vobs, _, _, _, vinfo = vec.step(actions)
