"""The terminal client's link through the one reconnect loop: a cut connection is made
again and the seat taken back with its token, the status line saying so."""

from __future__ import annotations

import asyncio
from typing import Any

from clients.tui.link import Link, Seating
from protocol import messages as m
from server.app import HexhavenServer
from tests.agents.helpers import Proxy
from tests.server.client import Client


async def _wait(condition: Any, seconds: float = 30.0) -> None:
    async with asyncio.timeout(seconds):
        while not condition():
            await asyncio.sleep(0.01)


async def test_a_cut_link_comes_back_to_its_seat_through_the_reconnect_loop() -> None:
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server, Proxy(srv.port_of(ws_server)) as proxy:
        host = await Client.open(srv.port_of(ws_server))
        await host.hello()
        await host.send(m.CreateGame(options=m.GameOptions(players=2, victory_points=5)))
        game = (await host.expect(m.GameCreated)).game
        link = Link(f"ws://127.0.0.1:{proxy.port}", Seating("join", name="Ana", game=game))
        await link.open()
        token = link.token
        delivered: list[Any] = []
        statuses: list[tuple[str, str]] = []
        task = asyncio.create_task(link.run(delivered.append, lambda *s: statuses.append(s)))
        try:
            await _wait(lambda: [s for s, _ in statuses] == ["connected"])
            proxy.cut()
            await _wait(lambda: [s for s, _ in statuses] == ["connected", "lost", "connected"])
            assert "reconnecting in 0.5 s" in statuses[1][1]
            await _wait(lambda: sum(isinstance(d, m.Joined) for d in delivered) == 2)
            rejoined = [d for d in delivered if isinstance(d, m.Joined)]
            assert {j.seat for j in rejoined} == {0} and link.token == token
            assert proxy.connections == 2 and link.session.is_seated
            await _wait(lambda: srv.rooms[game].seated == 1)
        finally:
            await link.close()
            await asyncio.wait_for(task, 10)
            await host.close()
