"""The PettingZoo environment: the API, the cycle of seats, rewards and bad actions."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

from learn.aec import env, raw_env


# A dict of the observation and its action mask is PettingZoo's own way to give masks (its
# classic games do the same); its API test says it would rather have a plain array.
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.parametrize("players", [2, 3, 4])
def test_passes_pettingzoos_api_test(players: int) -> None:
    api_test(env(players=players), num_cycles=300)


def _play(e: raw_env, seed: int) -> dict[str, float]:
    """A random legal game to its end; the rewards each agent collected."""
    rng = np.random.default_rng(seed)
    e.reset(seed=seed)
    total = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        total[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.any()
        e.step(int(rng.choice(np.flatnonzero(mask))))
    return total


def test_the_winner_gets_win_and_the_others_loss() -> None:
    e = raw_env(players=3, victory_points=6)
    total = _play(e, seed=5)
    assert e.game_state.winner >= 0
    winner = f"seat_{e.game_state.winner}"
    assert total == {a: (1.0 if a == winner else -1.0) for a in e.possible_agents}


def test_shaped_points_add_up_to_the_final_points() -> None:
    e = raw_env(players=2, victory_points=5, points=0.1, win=0.0, loss=0.0)
    total = _play(e, seed=6)
    for q, agent in enumerate(e.possible_agents):
        assert total[agent] == pytest.approx(0.1 * e.game_state.victory_points(q))


def test_only_the_acting_agent_has_legal_actions() -> None:
    e = raw_env(players=4)
    e.reset(seed=1)
    acting = e.agent_selection
    for agent in e.agents:
        assert e.observe(agent)["action_mask"].any() == (agent == acting)


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    e = raw_env(players=2)
    e.reset(seed=2)
    agent = e.agent_selection
    before = e.observe(agent)["observation"].copy()
    illegal = int(np.flatnonzero(e.observe(agent)["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        e.step(illegal)
    assert e.agent_selection == agent
    assert (e.observe(agent)["observation"] == before).all()


def test_the_wrapped_environment_ends_the_game_on_an_illegal_action() -> None:
    e = env(players=2, illegal_reward=-5.0)
    e.reset(seed=3)
    agent = e.agent_selection
    illegal = int(np.flatnonzero(e.observe(agent)["action_mask"] == 0)[0])
    e.step(illegal)
    assert all(e.terminations.values())
    assert e.rewards[agent] == -5.0


def test_reset_with_a_seed_replays_the_same_game() -> None:
    a, b = raw_env(players=3), raw_env(players=3)
    _play(a, seed=11)
    _play(b, seed=11)
    assert a.game_state.actions_taken == b.game_state.actions_taken
    assert a.game_state.winner == b.game_state.winner
