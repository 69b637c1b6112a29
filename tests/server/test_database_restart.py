"""A PostgreSQL server that restarts under a running Hexhaven server: the game under way
waits while the database is gone, goes on once it is back and finishes with every action
stored, and new games open again; Hexhaven itself is never restarted, and its ``/healthz``
says meanwhile that the database is gone."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs

from protocol import SUBPROTOCOL_MSGPACK
from protocol import messages as m
from server.app import HexhavenServer
from server.store import Store
from tests.server.client import Client
from tests.server.test_metrics import get, scrape
from tests.server.test_play import seated_game
from tests.server.test_store_writer import until


class Postgres:
    """A PostgreSQL server of a test's own, in a data folder with a short path (its socket
    lives there), started and stopped by the test; stopped at the end if still running."""

    def __init__(self) -> None:
        self.data = Path(tempfile.mkdtemp(prefix="pg"))
        self.server: Any = None

    def start(self) -> str:
        """Start it (on the same data); its URL."""
        with warnings.catch_warnings():  # platformdirs: no XDG_RUNTIME_DIR in CI
            warnings.simplefilter("ignore")
            import pgserver

            self.server = pgserver.get_server(self.data, cleanup_mode="stop")
        url: str = self.server.get_uri()
        return url

    def stop(self) -> None:
        server, self.server = self.server, None
        if server is not None:
            server.cleanup()


@pytest.fixture
def postgres() -> Iterator[Postgres]:
    pg = Postgres()
    try:
        yield pg
    finally:
        pg.stop()
        shutil.rmtree(pg.data, ignore_errors=True)


async def test_a_database_restart_mid_game_pauses_the_game_and_it_finishes(
    postgres: Postgres,
) -> None:
    store = Store(postgres.start())
    srv = HexhavenServer(store)
    with capture_logs() as logs:
        async with srv.running("127.0.0.1", 0) as ws_server:
            port = srv.port_of(ws_server)
            game, players = await seated_game(port, SUBPROTOCOL_MSGPACK, players=2)
            # Before anyone moves (a game played out meanwhile would hold no lease): its
            # lease is counted at the next renewal, within a second.
            async with asyncio.timeout(30):
                while (await scrape(port))[("hexhaven_leases_held", ())] != 1:
                    await asyncio.sleep(0.05)
            playing = [
                asyncio.create_task(c.play_randomly(game, seed=i)) for i, c in enumerate(players)
            ]
            room = srv.rooms[game]
            await until(lambda: room.table.state_id >= 10)
            await asyncio.to_thread(postgres.stop)  # the database server stops
            await until(lambda: any(e["event"] == "store.disconnected" for e in logs))
            status, _, said = await asyncio.to_thread(get, port, "/healthz")
            assert status == 503 and "database" in said
            assert (await scrape(port))[("hexhaven_store_reachable", ())] == 0
            await asyncio.to_thread(postgres.start)  # and comes back
            overs = await asyncio.gather(*playing)
            assert overs[0] == overs[1] and overs[0].winner is not None
            async with asyncio.timeout(30):  # healthy again once the database is back
                while (await asyncio.to_thread(get, port, "/healthz"))[0] != 200:
                    await asyncio.sleep(0.05)
            newcomer = await Client.open(port, SUBPROTOCOL_MSGPACK)
            await newcomer.hello()
            await newcomer.send(m.CreateGame(options=m.GameOptions(players=2)))
            assert isinstance(await newcomer.expect(m.GameCreated), m.GameCreated)
            for c in (*players, newcomer):
                await c.close()
    stored = store.load(game)
    store.close()
    assert stored is not None and stored.finished
    assert len(stored.actions) == room.table.state_id
    assert [p.action for p in room.table.played] == list(stored.actions)
    events = [e["event"] for e in logs]
    assert "store.reconnected" in events
    assert not [e for e in events if e in ("store.write_failed", "room.stopped")]


async def test_a_server_stopped_while_its_database_is_gone_stops_without_it(
    postgres: Postgres,
) -> None:
    """The writer waits for a lost database only while the server runs: asked to stop, it
    gives up the writes it holds (their games resume from what was stored) and the server
    stops at once, not after the writer's drain timeout."""
    store = Store(postgres.start())
    srv = HexhavenServer(store)
    with capture_logs() as logs:
        async with asyncio.timeout(30):  # the drain timeout is 60 s
            async with srv.running("127.0.0.1", 0) as ws_server:
                game, players = await seated_game(
                    srv.port_of(ws_server), SUBPROTOCOL_MSGPACK, players=2
                )
                await asyncio.to_thread(postgres.stop)
                await players[0].send(m.Chat(game=game, text="anyone there?"))
                await until(lambda: any(e["event"] == "store.disconnected" for e in logs))
    events = [e["event"] for e in logs]
    assert "server.stopped" in events and "store.drain_timeout" not in events
    assert any(e["event"] == "store.write_failed" and e["game"] == game for e in logs)
    store.close()
