"""The commands of docs/agents.md's "Bring your catanatron bot": the example player seated by
``hexhaven bot`` on a real server, and catanatron's VictoryPointPlayer in the arena."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli import main
from tests.agents.helpers import (
    Served,
    doc_command,
    open_game,
    play_seat,
)


async def test_the_example_player_plays_a_game_through_hexhaven_bot(
    served: Served, tmp_path: Path
) -> None:
    host, created = await open_game(served.port)
    argv = doc_command("hexhaven bot", url=served.url, code=str(created.invite))
    over, proc = await play_seat(served, host, created.game, argv, tmp_path, "catanatron")
    assert over.winner is not None
    room = served.server.rooms[created.game]
    assert room.state.is_over and not room.away  # it played its seat to the end itself
    assert "catanatron.fallback" not in proc.err  # every choice was a playable action
    await host.close()


def test_the_arena_command_takes_a_catanatron_player(capsys: pytest.CaptureFixture[str]) -> None:
    argv = doc_command("hexhaven arena")
    assert main(argv[3:]) == 0  # after "python -m app.cli"
    out = capsys.readouterr().out
    entrant = "catanatron:player=catanatron.players.search:VictoryPointPlayer"
    assert entrant in out and "heuristic" in out
