"""Views with events for connections that ask (``hello`` with ``event_views``), none for the
rest, and a finished game's views at any earlier state (``view_at``)."""

from __future__ import annotations

import asyncio

from protocol import SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK
from protocol import messages as m
from protocol.options import game_config
from protocol.payloads import action_to_engine
from protocol.table import Table, seat_view
from tests.server.client import Client


async def _greeted(
    port: int, *, event_views: bool, subprotocol: str = SUBPROTOCOL_MSGPACK
) -> Client:
    c = await Client.open(port, subprotocol)
    await c.send(m.Hello(protocol=1, client="test", event_views=event_views))
    await c.expect(m.Welcome)
    return c


async def test_events_carry_the_view_after_them_only_for_connections_that_asked(
    server_port: int,
) -> None:
    # Seat 1 asks for views with events in JSON, seat 2 in msgpack; seats 0 and 3 do not.
    asks = [False, True, True, False]
    protocols = [SUBPROTOCOL_MSGPACK, SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK, SUBPROTOCOL_JSON]
    clients = [
        await _greeted(server_port, event_views=a, subprotocol=s)
        for a, s in zip(asks, protocols, strict=True)
    ]
    host = clients[0]
    await host.send(m.CreateGame(options=m.GameOptions(players=4)))
    game = (await host.expect(m.GameCreated)).game
    for i, c in enumerate(clients):
        await c.send(m.JoinGame(game=game, name=f"p{i}"))
        assert (await c.expect(m.Joined)).seat == i
    watcher = await _greeted(server_port, event_views=True)
    await watcher.send(m.Watch(game=game))
    await watcher.expect(m.GameView)
    early = await _greeted(server_port, event_views=False)
    await early.send(m.Watch(game=game))
    await early.expect(m.GameView)
    await host.send(m.StartGame(game=game))
    # A replay is for finished games only.
    await watcher.send(m.ViewAt(game=game, state_id=0))
    assert (await watcher.expect(m.Error)).code == m.ErrorCode.GAME_NOT_OVER

    await asyncio.gather(*(c.play_randomly(game, seed=70 + i) for i, c in enumerate(clients)))
    await watcher.expect(m.GameOver)
    await early.expect(m.GameOver)
    await host.send(m.GetRecord(game=game))
    record = await host.expect(m.GameRecord)

    table = Table(game, game_config(record.options), record.seed)
    states = [table.state.copy()]
    for recorded in record.actions:
        table.act(recorded.seat, action_to_engine(recorded.action, recorded.seat))
        states.append(table.state.copy())

    told = 0
    for seat, (c, asked) in enumerate(zip(clients, asks, strict=True)):
        events = [x for x in c.received if isinstance(x, m.Events)]
        assert events and events[-1].state_id == len(record.actions)
        for e in events:
            if asked:
                assert e.view == seat_view(states[e.state_id], seat)
                told += 1
            else:
                assert e.view is None
    assert told > 100
    for w, asked in ((watcher, True), (early, False)):
        for e in (x for x in w.received if isinstance(x, m.Events)):
            assert e.view == (seat_view(states[e.state_id], None) if asked else None)

    # The finished game, step by step, in each asker's own form.
    end = len(record.actions)
    for step in (0, 1, 7, 49, 50, 51, end // 2, end - 1, end):
        await clients[2].send(m.ViewAt(game=game, state_id=step))
        assert (await clients[2].expect(m.GameView)).view == seat_view(states[step], 2)
        await watcher.send(m.ViewAt(game=game, state_id=step))
        assert (await watcher.expect(m.GameView)).view == seat_view(states[step], None)
    await watcher.send(m.ViewAt(game=game, state_id=end + 1))
    past = await watcher.expect(m.Error)
    assert past.code == m.ErrorCode.BAD_MESSAGE and str(end) in past.message
    stranger = await _greeted(server_port, event_views=False)
    await stranger.send(m.ViewAt(game=game, state_id=3))
    assert (await stranger.expect(m.Error)).code == m.ErrorCode.NOT_A_PLAYER
    for c in (*clients, watcher, early, stranger):
        await c.close()


async def test_a_replay_past_its_budget_is_refused(server_port: int) -> None:
    c = await _greeted(server_port, event_views=False)
    refused = None
    for i in range(200):
        await c.send(m.ViewAt(game="nogame", state_id=i))
    for _ in range(200):
        reply = await c.expect(m.Error)
        if reply.code == m.ErrorCode.LIMIT_REACHED:
            refused = reply
            break
    assert refused is not None and refused.detail == "replay_views"
    await c.close()
