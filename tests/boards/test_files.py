"""Reading boards (boards.files.load_board) and writing the board lab's files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from boards.errors import BoardFileError, OutputError
from boards.files import board_json, check_output, load_board, write_output
from boards.search import SearchResult, search, search_board
from engine import GameConfig, new_game
from engine.board import random_board
from engine.rng import Rng
from tests.boards.layouts import good_board


@pytest.mark.parametrize("kind", ["random", "spiral"])
@pytest.mark.parametrize("seed", [0, 7, 123])
def test_a_seeded_board_is_the_one_a_game_with_that_seed_plays(kind: str, seed: int) -> None:
    config = GameConfig(board_setup="spiral" if kind == "spiral" else "random")
    played = new_game(config, seed).board
    board = load_board(f"{kind}:{seed}")
    assert board.radius == played.radius == 3
    assert board.terrain == played.terrain
    assert board.tokens == played.tokens
    assert board.harbours == played.harbours


def test_a_seeded_board_of_a_larger_radius_is_the_games_too() -> None:
    played = new_game(GameConfig(board_setup="random", radius=4), 5).board
    assert load_board("random:5:4") == played
    # the board lab used to draw it from stream 0 instead: a different island
    assert random_board(Rng(5), 4) != played


def test_bad_seeded_boards_are_named() -> None:
    with pytest.raises(BoardFileError, match="seed and radius are integers"):
        load_board("random:x")
    with pytest.raises(BoardFileError, match=r"random:1:2: board radius must be at least 3"):
        load_board("random:1:2")


def _search_file(tmp_path: Path) -> tuple[Path, SearchResult]:
    result = search(60, 3, seed=2, workers=1)
    path = tmp_path / "fair.json"
    path.write_text(result.to_json())
    return path, result


def test_a_search_output_gives_its_best_board_or_board_n(tmp_path: Path) -> None:
    path, result = _search_file(tmp_path)
    best, worst = result.fairest[0].index, result.least_fair[0].index
    assert best != worst
    assert load_board(str(path)) == search_board(2, best)
    assert load_board(f"{path}#{worst}") == search_board(2, worst)
    # a single entry of the output is a board file too
    entry = tmp_path / "entry.json"
    entry.write_text(json.dumps(json.loads(path.read_text())["least_fair"][1]))
    assert load_board(str(entry)) == search_board(2, result.least_fair[1].index)


def test_a_search_output_names_what_it_keeps(tmp_path: Path) -> None:
    path, result = _search_file(tmp_path)
    kept = sorted(s.index for s in (*result.fairest, *result.least_fair))
    missing = next(i for i in range(100) if i not in kept)
    with pytest.raises(BoardFileError) as info:
        load_board(f"{path}#{missing}")
    message = str(info.value)
    assert f"keeps no board #{missing}" in message
    assert ", ".join(f"#{i}" for i in kept) in message
    with pytest.raises(BoardFileError, match="after the # give the index"):
        load_board(f"{path}#best")


def test_a_single_board_refuses_an_entry_number(tmp_path: Path) -> None:
    single = tmp_path / "b.json"
    single.write_text(board_json(good_board()))
    with pytest.raises(BoardFileError, match="a single board, not board search's output"):
        load_board(f"{single}#3")
    # a file really named with a # reads as it is
    hashed = tmp_path / "b#3"
    hashed.write_text(board_json(good_board()))
    assert load_board(str(hashed)) == good_board()


def test_output_into_a_missing_folder_or_onto_a_folder(tmp_path: Path) -> None:
    target = tmp_path / "nope" / "b.json"
    with pytest.raises(OutputError) as info:
        write_output(target, "x")
    assert str(info.value) == f"cannot write {target}: the folder {target.parent} does not exist"
    assert not target.parent.exists()
    with pytest.raises(OutputError, match="it is a folder"):
        check_output(tmp_path)
    (tmp_path / "plain").write_text("")
    with pytest.raises(OutputError, match=r"plain is not a folder"):
        check_output(tmp_path / "plain" / "b.json")
    write_output(tmp_path / "b.bin", b"\x00\x01")
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01"


def test_a_failed_write_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno
    import os

    def full(self: Path, data: str, *args: Any, **kwargs: Any) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))  # a disk that is full

    monkeypatch.setattr(Path, "write_text", full)
    target = tmp_path / "b.json"
    with pytest.raises(OutputError, match=r"^cannot write .*b\.json: no space left on device$"):
        write_output(target, "x")
