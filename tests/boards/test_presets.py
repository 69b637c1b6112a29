"""The shipped boards are legal, balanced and fair."""

from __future__ import annotations

from pathlib import Path

import pytest

from boards.balance import balance_of
from boards.errors import BoardFileError
from boards.fairness import FairnessScorer
from boards.files import load_board
from boards.options import BalanceOptions
from boards.presets import RETIRED, load_preset, preset_names
from boards.validate import board_violations
from engine.board import check_board
from engine.constants import HARBOUR_LAYOUT

ROOT = Path(__file__).resolve().parents[2]


# What the shipped boards score, rounded as docs/boards.md and `hexhaven board presets` give it:
# the five best of seeds 0-299 by combined index (the mean of the two).
SCORES = {
    "balanced-183": (0.970, 0.842),
    "balanced-227": (0.995, 0.813),
    "balanced-229": (0.948, 0.862),
    "balanced-247": (0.951, 0.868),
    "balanced-71": (0.966, 0.850),
}


def test_presets_are_fair_balanced_boards() -> None:
    assert preset_names() == sorted(SCORES)
    scorer = FairnessScorer(3)
    for name, (fairness, balance) in SCORES.items():
        board = load_preset(name)
        check_board(board)
        assert board.harbour_layout == HARBOUR_LAYOUT
        assert board_violations(board, BalanceOptions()) == []
        got = scorer.fairness(board.terrain, board.tokens, board.harbours)
        assert round(got, 3) == fairness
        assert round(balance_of(board.terrain, board.tokens, board.harbours, 3).balance, 3) == (
            balance
        )
        assert load_board(f"preset:{name}") == board


def test_the_docs_give_the_presets_scores() -> None:
    fairness = sorted(f for f, _ in SCORES.values())
    balance = sorted(b for _, b in SCORES.values())
    text = " ".join((ROOT / "docs" / "boards.md").read_text().split())
    ranges = f"fairness {fairness[0]:.3f}-{fairness[-1]:.3f}, balance {balance[0]:.3f}-"
    assert f"({ranges}{balance[-1]:.3f})" in text
    f, b = SCORES["balanced-227"]
    assert f"`preset:balanced-227`: fairness {f:.3f}, balance {b:.3f}." in text


@pytest.mark.parametrize("name", sorted(RETIRED))
def test_a_preset_no_longer_shipped_is_refused_naming_those_there_are(name: str) -> None:
    with pytest.raises(KeyError) as info:
        load_preset(name)
    message = str(info.value.args[0])
    assert "no longer shipped" in message and all(n in message for n in preset_names())
    with pytest.raises(BoardFileError, match="balanced-183, balanced-227"):
        load_board(f"preset:{name}")


def test_unknown_preset() -> None:
    with pytest.raises(KeyError):
        load_preset("nope")
    with pytest.raises(BoardFileError):
        load_board("preset:nope")
