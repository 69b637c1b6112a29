"""The shipped boards are legal, balanced and fair."""

from __future__ import annotations

import pytest

from boards.balance import balance_of
from boards.errors import BoardFileError
from boards.fairness import FairnessScorer
from boards.files import load_board
from boards.options import BalanceOptions
from boards.presets import load_preset, preset_names
from boards.validate import board_violations
from engine.board import check_board


def test_presets_are_fair_balanced_boards() -> None:
    names = preset_names()
    assert len(names) == 5
    scorer = FairnessScorer(3)
    for name in names:
        board = load_preset(name)
        check_board(board)
        assert board_violations(board, BalanceOptions()) == []
        # The five best of seeds 0-299 by combined index (docs/boards.md).
        assert scorer.fairness(board.terrain, board.tokens, board.harbours) >= 0.945
        assert balance_of(board.terrain, board.tokens, board.harbours, 3).balance >= 0.81
        assert load_board(f"preset:{name}") == board


def test_unknown_preset() -> None:
    with pytest.raises(KeyError):
        load_preset("nope")
    with pytest.raises(BoardFileError):
        load_board("preset:nope")
