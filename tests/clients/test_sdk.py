"""The SDK keeps the connection going while an agent thinks."""

from __future__ import annotations

import asyncio
import random
import threading
from typing import Any

from clients.sdk import Agent, Table, play
from protocol import messages as m
from protocol.payloads import BuildCity
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


async def _against_a_random_bot(
    srv: HexhavenServer, port: int, agent: Agent
) -> tuple[Client, asyncio.Task[m.GameOver | None]]:
    """A two-seat game to 5 points: ``agent`` plays one seat through :func:`play`, a
    server-launched random bot the other. Returns the host and the started game's task."""
    host = await Client.open(port)
    await host.hello()
    options = m.GameOptions(players=2, victory_points=5, bots=[m.BotSeat(kind="random")])
    await host.send(m.CreateGame(options=options))
    created = await host.expect(m.GameCreated)
    game = asyncio.create_task(play(agent, f"ws://127.0.0.1:{port}", created.game))
    while srv.rooms[created.game].seated < 1:
        await asyncio.sleep(0.01)
    await host.send(m.StartGame(game=created.game))
    return host, game


async def test_the_event_loop_runs_while_the_agent_thinks() -> None:
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        release = threading.Event()
        agent = SlowAgent(release)
        host, game = await _against_a_random_bot(srv, srv.port_of(ws_server), agent)
        async with asyncio.timeout(30):  # this loop runs only if the thinking leaves it free
            while not agent.thinking:
                await asyncio.sleep(0.01)
        assert agent.decisions == 0 and not game.done()
        release.set()
        over = await asyncio.wait_for(game, 180)
        assert over is not None and over.winner is not None
        assert agent.decisions > 10 and agent.events > 10
        assert agent.overlaps == 0  # hooks never ran during a decision
        await host.close()


class OnceWrong(Agent):
    """Random play, except that its first main-phase answer is a city it cannot pay for."""

    name = "once-wrong"

    def __init__(self) -> None:
        self.rnd = random.Random(4)
        self.wrong = False
        self.errors: list[m.Error] = []

    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        view = prompt.view
        if not self.wrong and view is not None and view.phase == "main":
            self.wrong = True
            return BuildCity(vertex=0)
        return self.rnd.choice(prompt.actions)

    def on_error(self, error: m.Error, table: Table) -> None:
        self.errors.append(error)


async def test_a_refused_answer_is_replaced_by_a_listed_action() -> None:
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        agent = OnceWrong()
        host, game = await _against_a_random_bot(srv, srv.port_of(ws_server), agent)
        over = await asyncio.wait_for(game, 180)  # no turn timer: a stalled seat never ends
        assert over is not None and over.winner is not None
        # A discard answered as the other seat's discard lands is stale: harmless, and
        # asked again; the one wrong answer is the only other refusal.
        codes = [e.code for e in agent.errors if e.code != m.ErrorCode.STALE_STATE]
        assert agent.wrong and codes == [m.ErrorCode.ILLEGAL_ACTION]
        await host.close()


async def test_a_refused_seat_ends_play_instead_of_waiting() -> None:
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        url = f"ws://127.0.0.1:{srv.port_of(ws_server)}"
        agent = OnceWrong()
        over = await asyncio.wait_for(play(agent, url, "nosuchgame", token="x"), 10)
        assert over is None
        assert [e.code for e in agent.errors] in (
            [m.ErrorCode.UNKNOWN_GAME],
            [m.ErrorCode.BAD_TOKEN],
        )
