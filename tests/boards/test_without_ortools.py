"""Without OR-Tools (the ``boards`` extra) everything but balanced boards works, and asking
for one says in one line how to add it."""

from __future__ import annotations

import sys

import pytest

from app.boards import main
from boards.errors import ORTOOLS_HINT
from boards.play import BoardUnavailable, board_for_game
from engine import ConfigError
from protocol import messages as m
from protocol.options import with_board


@pytest.fixture
def no_ortools(monkeypatch: pytest.MonkeyPatch) -> None:
    """Imports of OR-Tools fail as they do where it is not installed."""
    for name in [n for n in sys.modules if n == "ortools" or n.startswith("ortools.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "ortools", None)
    monkeypatch.delitem(sys.modules, "boards.constraint", raising=False)


@pytest.mark.usefixtures("no_ortools")
def test_board_generate_says_how_to_add_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "--seed", "7"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "pip install '.[boards]'" in err
    assert main(["generate", "--count"]) == 2
    assert ORTOOLS_HINT in capsys.readouterr().err


@pytest.mark.usefixtures("no_ortools")
def test_a_balanced_game_is_refused_with_the_hint() -> None:
    with pytest.raises(BoardUnavailable, match=r"pip install '\.\[boards\]'"):
        board_for_game("balanced", 1)
    with pytest.raises(ConfigError, match=r"pip install '\.\[boards\]'"):
        with_board(m.GameOptions(board="balanced"), 1)


@pytest.mark.usefixtures("no_ortools")
def test_other_boards_need_no_ortools() -> None:
    assert board_for_game("preset", 1, preset="balanced-227").board.radius == 3
    assert with_board(m.GameOptions(board="fair", min_fairness=0.5), 1).layout is not None
    assert "boards.constraint" not in sys.modules
