"""The SDK keeps the connection going while an agent thinks."""

from __future__ import annotations

import asyncio
import random
import threading
from typing import Any

from clients.sdk import Agent, Table, play
from protocol import messages as m
from server.app import HexhavenServer
from tests.server.client import Client


class SlowAgent(Agent):
    """Random play; its first decision waits until the test's event loop releases it, and
    it records whether a hook ever ran while it was thinking."""

    name = "slow"

    def __init__(self, release: threading.Event) -> None:
        self.release = release
        self.rnd = random.Random(3)
        self.thinking = False
        self.overlaps = 0
        self.decisions = 0
        self.events = 0

    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        self.thinking = True
        try:
            if self.decisions == 0:
                assert self.release.wait(10), "the event loop never released the agent"
            self.decisions += 1
            return self.rnd.choice(prompt.actions)
        finally:
            self.thinking = False

    def on_event(self, event: Any, table: Table) -> None:
        self.events += 1
        self.overlaps += self.thinking


async def test_the_event_loop_runs_while_the_agent_thinks() -> None:
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        port = srv.port_of(ws_server)
        host = await Client.open(port)
        await host.hello()
        options = m.GameOptions(players=2, victory_points=5, bots=[m.BotSeat(kind="random")])
        await host.send(m.CreateGame(options=options))
        created = await host.expect(m.GameCreated)
        release = threading.Event()
        agent = SlowAgent(release)
        game = asyncio.create_task(play(agent, f"ws://127.0.0.1:{port}", created.game))
        while srv.rooms[created.game].seated < 1:
            await asyncio.sleep(0.01)
        await host.send(m.StartGame(game=created.game))
        await asyncio.sleep(0.3)  # runs only if the agent's thinking leaves the loop free
        assert agent.decisions == 0 and not game.done()
        release.set()
        over = await asyncio.wait_for(game, 60)
        assert over is not None and over.winner is not None
        assert agent.decisions > 10 and agent.events > 10
        assert agent.overlaps == 0  # hooks never ran during a decision
        await host.close()
