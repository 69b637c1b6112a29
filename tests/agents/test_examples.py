"""The example agents of examples/ play whole games through a real server, started with the
command lines docs/agents.md shows."""

from __future__ import annotations

import asyncio
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from protocol import messages as m
from server.store import hash_token
from tests.agents.helpers import (
    OVER_LINE,
    REPO,
    SEAT_LINE,
    AgentProcess,
    Proxy,
    Served,
    cut_when,
    doc_command,
    open_game,
    play_seat,
    start_and_watch,
    wait_seated,
)

JS = REPO / "examples" / "js"


def seat_line(served: Served, game: str, token_file: Path) -> str:
    """What an example prints when the server seats it: the seat, the game and the file
    that keeps its token (as docs/agents.md shows). The file holds the seat's token, and
    only its owner may read it."""
    room = served.server.rooms[game]
    [(seat, slot)] = [(i, s) for i, s in enumerate(room.seats) if s is not None and not s.bot]
    assert hash_token(token_file.read_text().strip()) == slot.token_hash
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    return SEAT_LINE.format(seat=seat, game=game, file=token_file)


async def test_the_minimal_python_agent_joins_by_invite_and_rejoins_after_a_cut(
    served: Served, tmp_path: Path
) -> None:
    host, created = await open_game(served.port)
    token_file = tmp_path / "seat.token"
    async with Proxy(served.port) as proxy:
        argv = doc_command(
            "python3 examples/python_minimal/agent.py",
            url=f"ws://127.0.0.1:{proxy.port}",
            code=str(created.invite),
            token_file=str(token_file),
        )
        proc = await AgentProcess.start(argv, tmp_path, "python_minimal")
        try:
            await wait_seated(served, created.game, 1)
            cut = asyncio.create_task(cut_when(served, created.game, proxy, 20))
            over = await start_and_watch(host, created.game)
            assert cut.done()  # the agent's connection dropped mid-game
            assert await proc.exit_code() == 0, proc.err
        finally:
            await proc.stop()
    assert over.winner is not None
    assert proxy.connections >= 2  # it came back through the proxy
    assert "connection lost" in proc.err
    assert seat_line(served, created.game, token_file) in proc.err
    assert f"game over: winner {over.winner}, points {over.points}" in proc.out
    room = served.server.rooms[created.game]
    assert room.state.is_over and not room.away  # nobody had to stand in for it
    await host.close()


def _node_modules() -> None:
    """Install the JavaScript example's packages from its lockfile, once."""
    if (JS / "node_modules" / "ws").is_dir() and (JS / "node_modules" / "@msgpack").is_dir():
        return
    argv = doc_command("npm ci --prefix examples/js")
    result = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr


@pytest.mark.skipif(
    shutil.which("node") is None or shutil.which("npm") is None,
    reason="Node.js and npm are not installed",
)
async def test_the_javascript_agent_takes_its_seat_with_a_token_file(
    served: Served, tmp_path: Path
) -> None:
    await asyncio.to_thread(_node_modules)
    host, created = await open_game(served.port, bot="random", private=False)
    await host.send(m.JoinGame(game=created.game, name="js"))
    joined = await host.expect(m.Joined)
    token_file = tmp_path / "seat.token"
    token_file.write_text(f"{joined.token}\n")
    argv = doc_command(
        "node examples/js/agent.js",
        url=served.url,
        game=created.game,
        token_file=str(token_file),
    )
    assert str(joined.token) not in " ".join(argv)
    proc = await AgentProcess.start(argv, tmp_path, "js")
    try:
        over = await start_and_watch(host, created.game)
        assert await proc.exit_code() == 0, proc.err
    finally:
        await proc.stop()
    assert over.winner is not None
    assert f"game over: winner {over.winner}, points [{', '.join(map(str, over.points))}]" in (
        proc.out
    )
    assert f"seed {over.seed}" in proc.out  # read exactly, past 2**53
    assert seat_line(served, created.game, token_file) in proc.err
    room = served.server.rooms[created.game]
    assert room.state.is_over and not room.away
    await host.close()


async def test_the_sdk_agent_plays_a_whole_game(served: Served, tmp_path: Path) -> None:
    host, created = await open_game(served.port)
    token_file = tmp_path / "seat.token"
    argv = doc_command(
        "python3 examples/python_sdk/agent.py",
        url=served.url,
        code=str(created.invite),
        token_file=str(token_file),
    )
    over, proc = await play_seat(served, host, created.game, argv, tmp_path, "python_sdk")
    assert over.winner is not None
    assert seat_line(served, created.game, token_file) in proc.err
    assert OVER_LINE.format(winner=over.winner, points=over.points, seed=over.seed) in proc.out
    room = served.server.rooms[created.game]
    assert room.state.is_over and not room.away
    await host.close()
