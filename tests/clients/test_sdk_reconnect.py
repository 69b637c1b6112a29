"""The SDK comes back after a lost connection, and gives up clearly when it cannot."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path
from typing import Any

import pytest

from clients.sdk import Agent, ConnectionLost, Reconnect, Table, play
from protocol import messages as m
from server.app import HexhavenServer
from tests.agents.helpers import Proxy
from tests.server.client import Client
from tests.server.test_restart import free_port, server_process


class Counting(Agent):
    """Random play that counts its decisions and the prompts' state ids."""

    name = "counting"

    def __init__(self) -> None:
        self.rnd = random.Random(5)
        self.states: list[int] = []
        self.seat: int | None = None

    def on_seated(self, table: Table) -> None:
        self.seat = table.seat

    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        self.states.append(prompt.state_id)
        return self.rnd.choice(prompt.actions)


async def _game(port: int) -> tuple[Client, str]:
    """A host and a new two-seat game to 5 points with a server-launched random bot."""
    host = await Client.open(port)
    await host.hello()
    options = m.GameOptions(players=2, victory_points=5, bots=[m.BotSeat(kind="random")])
    await host.send(m.CreateGame(options=options))
    created = await host.expect(m.GameCreated)
    return host, created.game


async def _cut_at(srv: HexhavenServer, game: str, proxy: Proxy, actions: int) -> None:
    room = srv.rooms[game]
    async with asyncio.timeout(60):
        while room.state.actions_taken < actions:
            await asyncio.sleep(0.01)
    proxy.cut()


async def test_a_cut_connection_is_made_again_and_the_seat_rejoined() -> None:
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server, Proxy(srv.port_of(ws_server)) as proxy:
        host, game = await _game(srv.port_of(ws_server))
        agent = Counting()
        url = f"ws://127.0.0.1:{proxy.port}"
        task = asyncio.create_task(play(agent, url, game, reconnect=Reconnect(first_delay=0.05)))
        while srv.rooms[game].seated < 1:
            await asyncio.sleep(0.01)
        await host.send(m.StartGame(game=game))
        for actions in (15, 40):  # cut twice: each rejoin starts the count afresh
            await _cut_at(srv, game, proxy, actions)
            cut_at = srv.rooms[game].state.actions_taken
        over = await asyncio.wait_for(task, 120)
        room = srv.rooms[game]
        assert over is not None and over.winner is not None and room.state.is_over
        assert proxy.connections == 3  # the first connection and two rejoins
        assert max(agent.states) > cut_at  # it went on deciding after the last cut
        assert not room.away  # back within the grace period: nobody stood in for it
        await host.close()


async def test_play_gives_up_after_its_attempts_with_a_clear_error() -> None:
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        host, game = await _game(srv.port_of(ws_server))
        agent = Counting()
        policy = Reconnect(attempts=3, first_delay=0.05, max_delay=0.1)
        async with Proxy(srv.port_of(ws_server)) as proxy:
            url = f"ws://127.0.0.1:{proxy.port}"
            task = asyncio.create_task(play(agent, url, game, reconnect=policy))
            while srv.rooms[game].seated < 1:
                await asyncio.sleep(0.01)
            await host.send(m.StartGame(game=game))
            await _cut_at(srv, game, proxy, 10)
        # The proxy is closed: every try to connect again is refused.
        with pytest.raises(ConnectionLost) as lost:
            await asyncio.wait_for(task, 30)
        assert lost.value.attempts == 3 and lost.value.game == game
        assert "could not rejoin game" in str(lost.value) and "3 tries" in str(lost.value)
        assert not srv.rooms[game].state.is_over
        await host.close()


async def test_play_gives_up_when_its_time_runs_out() -> None:
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        host, game = await _game(srv.port_of(ws_server))
        policy = Reconnect(attempts=1000, first_delay=0.05, max_delay=0.05, give_up_after=0.5)
        async with Proxy(srv.port_of(ws_server)) as proxy:
            task = asyncio.create_task(
                play(Counting(), f"ws://127.0.0.1:{proxy.port}", game, reconnect=policy)
            )
            while srv.rooms[game].seated < 1:
                await asyncio.sleep(0.01)
            await host.send(m.StartGame(game=game))
            await _cut_at(srv, game, proxy, 10)
            lost_at = time.monotonic()
        with pytest.raises(ConnectionLost) as lost:
            await asyncio.wait_for(task, 30)
        assert 0 < lost.value.attempts < 1000
        assert time.monotonic() - lost_at < 10
        await host.close()


async def test_without_a_policy_a_lost_connection_ends_play() -> None:
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        host, game = await _game(srv.port_of(ws_server))
        async with Proxy(srv.port_of(ws_server)) as proxy:
            task = asyncio.create_task(
                play(Counting(), f"ws://127.0.0.1:{proxy.port}", game, reconnect=None)
            )
            while srv.rooms[game].seated < 1:
                await asyncio.sleep(0.01)
            await host.send(m.StartGame(game=game))
            await _cut_at(srv, game, proxy, 10)
            with pytest.raises(ConnectionLost) as lost:
                await asyncio.wait_for(task, 30)
        assert proxy.connections == 1 and lost.value.attempts == 0
        await host.close()


async def test_the_first_connection_failing_is_not_retried() -> None:
    with pytest.raises(OSError):
        await play(Counting(), "ws://127.0.0.1:9", "nosuchgame")


async def test_both_seats_come_back_after_the_server_restarts(tmp_path: Path) -> None:
    """The server is killed mid-game and started again on its database: each SDK agent
    reconnects, rejoins with its token and the game is played to the end."""
    db, port = tmp_path / "games.db", free_port()
    url = f"ws://127.0.0.1:{port}"
    policy = Reconnect(first_delay=0.2, max_delay=1.0, attempts=40, give_up_after=60)
    agents = [Counting(), Counting()]
    async with server_process(db, port) as first:
        host = await Client.open(port)
        await host.hello()
        await host.send(m.CreateGame(options=m.GameOptions(players=2, victory_points=5)))
        game = (await host.expect(m.GameCreated)).game
        tasks = [asyncio.create_task(play(a, url, game, reconnect=policy)) for a in agents]
        async with asyncio.timeout(30):
            while any(a.seat is None for a in agents):
                await asyncio.sleep(0.02)
            await host.send(m.StartGame(game=game))
            while sum(len(a.states) for a in agents) < 30:
                await asyncio.sleep(0.02)
        first.kill()  # a crash: no goodbye to anyone
        first.wait()
        before = max(max(a.states) for a in agents)
        await host.close()
    async with server_process(db, port):
        overs = await asyncio.wait_for(asyncio.gather(*tasks), 120)
    assert all(o is not None and o.winner is not None for o in overs)
    assert overs[0] == overs[1]
    assert max(max(a.states) for a in agents) > before  # play went on after the restart
