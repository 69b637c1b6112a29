"""The commands of docs/agents.md's "Bring your catanatron bot": the example player seated by
``hexhaven bot`` on a real server, and catanatron's VictoryPointPlayer in the arena."""

from __future__ import annotations

from pathlib import Path

import pytest

from clients.cli import main
from tests.agents.helpers import (
    AgentProcess,
    Served,
    doc_command,
    open_game,
    start_and_watch,
    wait_seated,
)


async def test_the_example_player_plays_a_game_through_hexhaven_bot(
    served: Served, tmp_path: Path
) -> None:
    host, created = await open_game(served.port)
    argv = doc_command("hexhaven bot", url=served.url, code=str(created.invite))
    proc = await AgentProcess.start(argv, tmp_path, "catanatron")
    try:
        await wait_seated(served, created.game, 1)
        over = await start_and_watch(host, created.game)
        assert await proc.exit_code() == 0, proc.err
    finally:
        await proc.stop()
    assert over.winner is not None
    room = served.server.rooms[created.game]
    assert room.state.is_over and not room.away  # it played its seat to the end itself
    assert "catanatron.fallback" not in proc.err  # every choice was a playable action
    await host.close()


def test_the_arena_command_takes_a_catanatron_player(capsys: pytest.CaptureFixture[str]) -> None:
    argv = doc_command("hexhaven arena")
    assert main(argv[3:]) == 0  # after "python -m clients.cli"
    out = capsys.readouterr().out
    entrant = "catanatron:player=catanatron.players.search:VictoryPointPlayer"
    assert entrant in out and "heuristic" in out
