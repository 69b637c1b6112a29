"""Boards for play (boards.play): one seed one board, the fairness threshold kept, and a
clear error when no board can be had."""

from __future__ import annotations

import pytest

from boards.fairness import FairnessParams, FairnessScorer
from boards.play import BoardUnavailable, board_for_game, board_seed, fair_board
from boards.presets import load_preset


def test_one_seed_gives_one_board_and_seeds_differ() -> None:
    for kind in ("balanced", "fair"):
        first = board_for_game(kind, 11).board
        assert board_for_game(kind, 11).board == first
        assert board_for_game(kind, 12).board != first


def test_the_board_seed_is_not_the_game_seed() -> None:
    assert board_seed(11) != 11
    assert board_seed(11) == board_seed(11) != board_seed(12)


def test_a_fair_board_reports_its_fairness_and_clears_the_bar() -> None:
    chosen = fair_board(3, players=2, min_fairness=0.95)
    scorer = FairnessScorer(3, FairnessParams(players=2))
    b = chosen.board
    assert chosen.fairness == scorer.fairness(b.terrain, b.tokens, b.harbours) >= 0.95


def test_no_fair_board_within_the_tries_is_a_clear_error() -> None:
    with pytest.raises(BoardUnavailable, match=r"no random set-up of 3 reached fairness 0\.999"):
        fair_board(1, min_fairness=0.999, tries=3)


def test_presets_by_name() -> None:
    assert board_for_game("preset", 0, preset="balanced-183").board == load_preset("balanced-183")
    with pytest.raises(BoardUnavailable, match="no preset"):
        board_for_game("preset", 0, preset="nope")
    with pytest.raises(ValueError, match="unknown board kind"):
        board_for_game("hexagonal", 0)
