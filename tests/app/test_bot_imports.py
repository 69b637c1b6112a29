"""A bot's process loads what playing needs: ``hexhaven bot`` and ``hexhaven bot-host``
play a seat to its end without the terminal UI, the board lab's solver, the ladder or the
server."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest
from pydantic import SecretStr

from protocol import SUBPROTOCOL_JSON
from protocol import messages as m
from protocol.bot_host import HostSeat, from_host, line
from server.app import HexhavenServer
from tests.server.client import Client

UNNEEDED = ("textual", "ortools", "tournament", "server", "storage", "clients.tui")
REPORT = (
    "import atexit, json, os, sys; "
    "atexit.register(lambda: open(os.environ['MODULES_OUT'], 'w').write("
    "json.dumps(sorted(sys.modules)))); "
    "from app.cli import main; sys.exit(main(sys.argv[1:]))"
)
"""Run the ``hexhaven`` command with the arguments given, and at exit write the names of
the modules it loaded to the file ``MODULES_OUT`` names."""


@pytest.mark.parametrize("command", ["bot", "bot-host"])
async def test_a_bot_process_plays_without_loading_what_it_does_not_need(
    command: str, tmp_path: Path
) -> None:
    out = tmp_path / "modules.json"
    srv = HexhavenServer(bot_workers=1)
    async with srv.running("127.0.0.1", 0) as ws_server:
        port = srv.port_of(ws_server)
        url = f"ws://127.0.0.1:{port}"
        me = await Client.open(port, SUBPROTOCOL_JSON)
        await me.hello()
        options = m.GameOptions(players=2, victory_points=5, bots=[m.BotSeat(kind="random")])
        await me.send(m.CreateGame(options=options))
        game = (await me.expect(m.GameCreated)).game
        await me.send(m.JoinGame(game=game, name="me"))
        token = (await me.expect(m.Joined)).token
        assert token is not None
        await me.send(m.StartGame(game=game))
        await me.expect(m.Prompt)  # seat 0 acts first; it is the bot's to play from here
        await me.close()
        args = [f"--url={url}"]
        if command == "bot":
            args += [f"--game={game}", "--token-file=-", "--kind=random"]
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            REPORT,
            command,
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env={**os.environ, "MODULES_OUT": str(out)},
        )
        assert proc.stdin is not None and proc.stdout is not None
        try:
            async with asyncio.timeout(180):
                if command == "bot":
                    output, _ = await proc.communicate(f"{token}\n".encode())
                    assert f"random: game {game} over" in output.decode()
                else:
                    secret = SecretStr(token)
                    seat = HostSeat(id="1", game=game, token=secret, kind="random", name="me")
                    proc.stdin.write(line(seat))
                    ended = from_host(await proc.stdout.readline())
                    assert (ended.id, ended.code) == ("1", 0)  # played to the end
                    proc.stdin.close()
                await proc.wait()
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        assert proc.returncode == 0
        assert srv.rooms[game].over
    loaded = json.loads(out.read_text())
    assert "clients.sdk" in loaded and "bots.random_player" in loaded
    assert not [n for n in loaded if any(n == u or n.startswith(f"{u}.") for u in UNNEEDED)]
