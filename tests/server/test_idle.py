"""Games left with nobody connected expire; they stay in the store, closed."""

from __future__ import annotations

import asyncio

from protocol import SUBPROTOCOL_JSON
from protocol import messages as m
from server.app import HexhavenServer
from server.store import Store
from server.verify import verify_game
from tests.server.client import Client


async def test_an_abandoned_game_expires_and_is_not_resumed() -> None:
    store = Store()
    srv = HexhavenServer(store, idle_timeout=0.2)
    async with srv.running("127.0.0.1", 0) as ws_server:
        port = srv.port_of(ws_server)
        host = await Client.open(port, SUBPROTOCOL_JSON)
        await host.hello()
        await host.send(m.CreateGame(options=m.GameOptions(players=2)))
        game = (await host.expect(m.GameCreated)).game
        await host.send(m.JoinGame(game=game, name="a"))
        await host.expect(m.Joined)
        await host.send(m.ListGames())
        assert [g.game for g in (await host.expect(m.GameList)).games] == [game]
        await host.close()

        async with asyncio.timeout(30):  # idle for 0.2 s, then closed
            while game in srv.rooms:
                await asyncio.sleep(0.02)
        other = await Client.open(port, SUBPROTOCOL_JSON)
        await other.hello()
        await other.send(m.ListGames())
        assert (await other.expect(m.GameList)).games == []
        await other.send(m.Watch(game=game))
        assert (await other.expect(m.Error)).code == m.ErrorCode.UNKNOWN_GAME
        await other.close()

    stored = store.load(game)
    assert stored is not None and stored.finished and stored.winner is None
    assert list(store.unfinished()) == []
    assert verify_game(stored).ok  # the seed still matches its hash
