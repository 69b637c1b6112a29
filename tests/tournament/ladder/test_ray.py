"""A small ladder end to end on a local Ray instance: the games run as Ray tasks and the
driver stores them, exactly as on the process backend."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.cli import main
from tournament.ladder.schedule import make_ladder_schedule
from tournament.ladder.store import open_store

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def local_ray() -> Iterator[None]:
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def test_a_ladder_on_ray_stores_every_planned_game(
    local_ray: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ray.toml"
    agent = REPO / "examples" / "stdio" / "agent.py"
    path.write_text(
        '[ladder]\nname = "on-ray"\ngames = 6\nplayers = 3\nvictory_points = 5\nseed = 4\n'
        '[[entrant]]\nname = "random"\nbot = "random"\n'
        '[[entrant]]\nname = "heuristic"\nbot = "heuristic"\n'
        '[[entrant]]\nname = "uct-20"\nbot = "uct"\nparams = { rollouts = 20 }\n'
        f'[[entrant]]\nname = "stdio"\ncommand = "{sys.executable} {agent}"\nbudget = "none"\n',
        encoding="utf-8",
    )
    db = str(tmp_path / "games.db")
    code = main(["ladder", "run", str(path), "--backend", "ray", "--workers", "2", "--db", db])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "ray backend" in out and "6 game(s) played" in out
    import ray

    assert ray.is_initialized(), "a Ray instance the caller started is left running"
    schedule = make_ladder_schedule(4, 3, 6, seed=4)
    names = ["random", "heuristic", "uct-20", "stdio"]
    with open_store(db) as store:
        games = store.games("on-ray")
    assert [g.index for g in games] == list(range(6))
    for game, planned in zip(games, schedule, strict=True):
        assert game.backend == "ray"
        assert game.labels == tuple(names[e] for e in planned.seating)
        assert game.decisions is not None and min(game.decisions) > 0
