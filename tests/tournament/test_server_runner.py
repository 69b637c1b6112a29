"""The server runner's own connection comes back through the clients' one reconnect loop:
cut mid-game, it watches the game again and records its end."""

from __future__ import annotations

import asyncio

from protocol import messages as m
from server.app import HexhavenServer
from tests.agents.helpers import Proxy
from tournament.entrants import Entrant
from tournament.records import make_schedule
from tournament.server_runner import bot_command, server_game


async def test_a_cut_runner_connection_watches_its_game_again_to_the_end() -> None:
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server, Proxy(srv.port_of(ws_server)) as proxy:
        direct = f"ws://127.0.0.1:{srv.port_of(ws_server)}"
        entrant = Entrant("random", "random", "random", ())
        game = make_schedule(1, 2, 1, 3)[0]

        def command(seat: int, invite: str) -> list[str]:
            return bot_command(direct, invite, entrant, game.agent_seeds[seat])

        run = asyncio.create_task(
            server_game(
                f"ws://127.0.0.1:{proxy.port}",
                ["random", "random"],
                command,
                game,
                m.GameOptions(players=2, victory_points=4, private=True),
                check_names=[False, False],
            )
        )
        async with asyncio.timeout(120):
            while not any(room.state.actions_taken >= 20 for room in srv.rooms.values()):
                assert not run.done(), run
                await asyncio.sleep(0.02)
        proxy.cut()  # the runner's connection only: the bots play on
        record = await asyncio.wait_for(run, 180)
    assert proxy.connections == 2  # the first connection, and the one that came back
    assert record.winner is not None and record.points[record.winner] >= 4
    assert record.server_game is not None
    room = srv.rooms[record.server_game]
    assert room.state.is_over and 20 <= record.actions <= room.state.actions_taken
