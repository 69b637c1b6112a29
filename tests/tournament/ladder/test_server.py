"""A small ladder through a real server: every seat its own process (a built-in bot, an
external program through the stdio bridge, a program that speaks the protocol itself)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from app.cli import main
from tournament.ladder.schedule import make_ladder_schedule
from tournament.ladder.store import open_store

REPO = Path(__file__).resolve().parents[3]


def test_a_ladder_through_a_server_with_external_entrants(
    server_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stdio = REPO / "examples" / "stdio" / "agent.py"
    minimal = REPO / "examples" / "python_minimal" / "agent.py"
    path = tmp_path / "server.toml"
    path.write_text(
        '[ladder]\nname = "served"\ngames = 4\nplayers = 2\nvictory_points = 4\nseed = 2\n'
        '[[entrant]]\nname = "heuristic"\nbot = "heuristic"\n'
        f'[[entrant]]\nname = "stdio"\ncommand = "{{python}} {stdio} {{seed}}"\n'
        'budget = "no search"\n'
        f'[[entrant]]\nname = "minimal"\nconnect = "{{python}} {minimal} {{url}} '
        '--invite {invite} --name {name} --seed 1"\nbudget = "no search"\n',
        encoding="utf-8",
    )
    db = str(tmp_path / "games.db")
    args = ["ladder", "run", str(path), "--server", server_url, "--workers", "2", "--db", db]
    code = main(args)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert f"server backend on {server_url}" in captured.out
    names = ["heuristic", "stdio", "minimal"]
    with open_store(db) as store:
        games = store.games("served")
    assert [g.index for g in games] == list(range(4))
    for game, planned in zip(games, make_ladder_schedule(3, 2, 4, seed=2), strict=True):
        assert game.backend == "server"
        assert game.labels == tuple(names[e] for e in planned.seating)
        assert game.winner is not None and game.points[game.winner] >= 4
        assert game.decisions is None and game.actions > 0  # not measured on a server
    played = {label for g in games for label in g.labels}
    assert played == set(names)


def test_through_a_server_a_program_that_never_answers_stops_the_run(
    server_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As in-process: a command whose file is not there makes no result on a server either."""
    path = tmp_path / "lost.toml"
    path.write_text(
        '[ladder]\nname = "lost"\ngames = 2\nplayers = 2\nvictory_points = 3\n'
        '[[entrant]]\nname = "random"\nbot = "random"\n'
        '[[entrant]]\nname = "lost"\ncommand = "{python} no/such/agent.py"\n'
        'budget = "none"\n',
        encoding="utf-8",
    )
    db = str(tmp_path / "games.db")
    args = ["ladder", "run", str(path), "--server", server_url, "--workers", "1", "--db", db]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "ended before it answered a single prompt" in err, err
    with open_store(db) as store:
        assert store.games("lost") == []


def test_through_a_server_a_block_plays_on_its_own_board(
    served: tuple[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from boards.presets import load_preset
    from engine import Board
    from protocol.payloads import board_from_payload

    url, server = served
    path = tmp_path / "preset.toml"
    path.write_text(
        '[ladder]\nname = "p"\ngames = 2\nplayers = 2\nvictory_points = 3\n'
        'board = "preset:balanced-229"\n'
        '[[entrant]]\nname = "h"\nbot = "heuristic"\n'
        '[[entrant]]\nname = "r"\nbot = "random"\n',
        encoding="utf-8",
    )
    db = str(tmp_path / "games.db")
    code = main(["ladder", "run", str(path), "--server", url, "--db", db])
    assert code == 0, capsys.readouterr().err
    options = [room.options for room in list(server.rooms.values())]  # the server's thread
    assert len(options) == 2  # holds them; they are frozen
    for game in options:
        assert game.board == "layout" and game.layout is not None
        board = Board.from_layout(**board_from_payload(game.layout))
        assert board == load_preset("balanced-229")


def test_a_server_that_cannot_be_reached_is_one_message_with_several_workers(
    tmp_path: Path,
) -> None:
    """Each worker's game fails to connect; one is reported, none left unread (which
    asyncio would print as a traceback at exit)."""
    import socket
    import subprocess

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    path = tmp_path / "unreached.toml"
    path.write_text(
        '[ladder]\nname = "u"\ngames = 4\nplayers = 2\n'
        '[[entrant]]\nname = "a"\nbot = "random"\n[[entrant]]\nname = "b"\nbot = "random"\n',
        encoding="utf-8",
    )
    url, db = f"ws://127.0.0.1:{port}", str(tmp_path / "g.db")
    command = ["ladder", "run", str(path), "--workers", "2", "--server", url, "--db", db]
    ran = subprocess.run(
        [sys.executable, "-m", "app.cli", *command],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 1
    assert f"cannot play on the server {url}" in ran.stderr
    assert "Traceback" not in ran.stderr and "never retrieved" not in ran.stderr
