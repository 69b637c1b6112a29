"""The heuristic bot plays legal, purposeful games from its seat's view alone."""

from __future__ import annotations

import pytest

from bots import make_agent
from bots.heuristic import HeuristicAgent
from bots.random_player import RandomAgent
from engine import GameConfig
from tournament.local import play_local


def test_heuristic_beats_three_random_players() -> None:
    wins = 0
    for seed in range(20):
        agents = [
            HeuristicAgent(seed),
            RandomAgent(seed + 1),
            RandomAgent(seed + 2),
            RandomAgent(seed + 3),
        ]
        state = play_local(agents, GameConfig(), seed).state
        assert state.is_over
        wins += state.winner == 0
    assert wins >= 16  # a quarter would be chance


@pytest.mark.parametrize("players", [2, 3, 4])
def test_heuristic_tables_finish_briskly(players: int) -> None:
    for seed in range(5):
        agents = [HeuristicAgent(seed * 10 + q) for q in range(players)]
        state = play_local(agents, GameConfig(players=players), seed).state
        assert state.is_over, "every move was legal and the game reached a winner"
        assert state.turn < 300


def test_heuristic_on_a_larger_spiral_board() -> None:
    agents = [HeuristicAgent(q) for q in range(3)]
    state = play_local(agents, GameConfig(players=3, board_setup="spiral", radius=4), 3).state
    assert state.is_over


def test_kinds_are_made_by_name() -> None:
    assert isinstance(make_agent("heuristic", 1), HeuristicAgent)
    assert isinstance(make_agent("random", 1), RandomAgent)
    with pytest.raises(ValueError, match="known kinds"):
        make_agent("oracle")
