"""A small ladder through a real server: every seat its own process (a built-in bot, an
external program through the stdio bridge, a program that speaks the protocol itself)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bots.ladder.schedule import make_ladder_schedule
from bots.ladder.store import open_store
from clients.cli import main

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
        f'[[entrant]]\nname = "stdio"\ncommand = "{sys.executable} {stdio} {{seed}}"\n'
        'budget = "no search"\n'
        f'[[entrant]]\nname = "minimal"\nconnect = "{sys.executable} {minimal} {{url}} '
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
