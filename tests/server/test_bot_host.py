"""The bot host: one process plays every bot seat of a server, each over its own
connection; the server starts it again if it dies, and it replaces a search worker that
dies."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from protocol import SUBPROTOCOL_JSON
from protocol import messages as m
from server.app import HexhavenServer
from server.room import GameRoom
from tests.server.client import Client
from tests.server.test_bots import game_with_me

WAIT = 180.0
"""Seconds a test waits for a condition before it fails (the machine may be loaded)."""


async def until(condition: Callable[[], bool], timeout: float = WAIT) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.05)


@asynccontextmanager
async def hosting() -> AsyncIterator[tuple[HexhavenServer, int]]:
    """A server on a free port whose bots play in its bot host, with two search workers
    and searches of 0.2 seconds at most."""
    srv = HexhavenServer(bot_workers=2, bot_search_seconds=0.2)
    async with srv.running("127.0.0.1", 0) as ws_server:
        yield srv, srv.port_of(ws_server)


def children(pid: int) -> list[int]:
    """The processes ``pid`` started that still run."""
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        out.extend(int(c) for c in (task / "children").read_text().split())
    return out


def cmdline(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
    except FileNotFoundError:
        return []


def workers(host: int) -> list[int]:
    """The host's search worker processes (multiprocessing's spawned children)."""
    return [p for p in children(host) if "--multiprocessing-fork" in cmdline(p)]


def connected(room: GameRoom) -> bool:
    """Whether every seat is held by a connection of its own player."""
    return all(s is not None and s.owners() for s in room.seats)


async def test_one_host_plays_the_bots_of_several_games_to_their_ends() -> None:
    """Three games of three bots each (random, heuristic, uct) are played to their ends by
    one host process at once; no seat is lost or started again."""
    bots = [
        m.BotSeat(kind="random"),
        m.BotSeat(kind="heuristic"),
        m.BotSeat(kind="uct", strength="easy"),
    ]
    with capture_logs() as logs:
        async with hosting() as (srv, port):
            me = await Client.open(port, SUBPROTOCOL_JSON)
            await me.hello()
            rooms: list[GameRoom] = []
            for _ in range(3):
                options = m.GameOptions(players=3, victory_points=4, bots=bots)
                await me.send(m.CreateGame(options=options))
                game = (await me.expect(m.GameCreated)).game
                await me.send(m.StartGame(game=game))
                rooms.append(srv.rooms[game])
            await until(lambda: all(connected(r) for r in rooms) or any(r.over for r in rooms))
            assert srv.bots.host is not None and srv.bots.host.seats() == 9
            assert srv.census().bot_seats == 9  # hexhaven_bot_seats on /metrics
            await until(lambda: all(r.over for r in rooms))
            assert all(r.state.winner is not None for r in rooms)
            for room in rooms:
                assert all(s is not None and s.launches == 0 for s in room.seats)
            assert srv.bots.host.starts == 1
            await until(lambda: srv.census().bot_seats == 0)  # every seat has ended
            await me.close()
    started = [e for e in logs if e["event"] == "bot_host.started"]
    assert len(started) == 1
    assert [e["code"] for e in logs if e["event"] == "bot.exited"] == [0] * 9
    assert not [e for e in logs if e["event"] in ("bot.failed", "bot_host.exited")]


async def test_a_killed_host_is_started_again_and_its_seats_rejoin_with_their_tokens(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """The host killed mid-game: the server starts another, which takes back the seats
    with their tokens, and the game is played to its end; the old host's search workers
    end with it. No token is ever on the command
    line of the host or its workers, nor in the server's logs or the host's."""
    issued: list[str] = []

    def token(n: int) -> str:
        issued.append(f"-secret{len(issued):025d}")
        return issued[-1]

    monkeypatch.setattr(secrets, "token_urlsafe", token)
    bots = [m.BotSeat(kind="heuristic"), m.BotSeat(kind="uct", strength="easy")]
    with capture_logs() as logs:
        async with hosting() as (srv, port):
            me, game = await game_with_me(port, bots, victory_points=4)
            room = srv.rooms[game]
            await until(lambda: connected(room))  # seat 0 acts first: the bots wait
            host = srv.bots.host
            assert host is not None and host.pid is not None
            first = host.pid
            for pid in [first, *children(first)]:
                argv = cmdline(pid)
                assert not any(t in arg for t in issued for arg in argv), argv
            old = workers(first)
            os.kill(first, signal.SIGKILL)
            await until(lambda: host.pid not in (None, first) and connected(room))
            assert host.starts == 2
            await until(lambda: not any(Path(f"/proc/{p}").exists() for p in old))
            over = await asyncio.wait_for(me.play_randomly(game, seed=8), WAIT)
            assert over.winner is not None
            for pid in [host.pid, *children(host.pid)]:  # the new host and its workers
                argv = cmdline(pid)
                assert not any(t in arg for t in issued for arg in argv), argv
            assert all(s is not None and s.launches == 0 for s in room.seats)
            await me.close()
    assert len(issued) >= 3
    out, err = capfd.readouterr()
    logged = f"{out}{err}{logs}"
    assert "agent.seated" in logged or "bot_host.started" in logged
    assert not any(t in logged for t in issued)


async def test_a_killed_search_worker_is_replaced_and_the_game_goes_on(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """A uct seat's search worker killed while the seat searches: the host replaces its
    workers, the seat answers in time (its search again, or the heuristic's move), never
    loses its seat, and the game is played to its end."""
    async with hosting() as (srv, port):
        me, game = await game_with_me(
            port, [m.BotSeat(kind="uct", strength="easy")], victory_points=4
        )
        room = srv.rooms[game]
        await until(lambda: connected(room))
        host = srv.bots.host
        assert host is not None and host.pid is not None
        killed: list[int] = []
        rnd_seed = 11
        while not room.over:
            message = await asyncio.wait_for(me.recv(), WAIT)
            if isinstance(message, m.GameOver):
                break
            if not isinstance(message, m.Prompt):
                continue
            if not killed:  # the bot searched before this prompt: its workers are up
                running = workers(host.pid)
                if running:
                    killed.append(running[0])
                    os.kill(running[0], signal.SIGKILL)
            action = message.actions[rnd_seed % len(message.actions)]
            rnd_seed = rnd_seed * 31 + 7
            await me.send(m.Act(game=game, state_id=message.state_id, action=action))
        await until(lambda: room.over)
        assert killed, "the uct seat never searched in a worker"
        after = workers(host.pid)
        assert after and killed[0] not in after  # a fresh pool took the dead worker's place
        assert host.starts == 1 and not room.away
        assert all(s is not None and s.launches == 0 for s in room.seats)
        await me.close()
    _, err = capfd.readouterr()
    assert "pool.worker_lost" in err
