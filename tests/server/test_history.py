"""What a connection learns of the past: the ``history`` after a rejoin or a late watch
(each seat's own form: hidden cards stay hidden), a finished game's ``game_record`` (never
an unfinished one), and the ``clock`` of every seat that must act."""

from __future__ import annotations

import asyncio
from typing import Any

from clients.tui.replay import ReplayGame
from engine import DevCardBought, Stolen
from protocol import SUBPROTOCOL_MSGPACK
from protocol import messages as m
from protocol.payloads import event_to_engine
from server.app import HexhavenServer
from server.store import Store
from tests.server.client import Client
from tests.server.test_play import seated_game


async def history_of(c: Client) -> tuple[list[m.HistoryBatch], list[m.ChatAt]]:
    """Every batch and chat line of the ``history`` messages that follow."""
    batches: list[m.HistoryBatch] = []
    chat: list[m.ChatAt] = []
    while True:
        h = await c.expect(m.History)
        batches.extend(h.batches)
        chat.extend(h.chat)
        if not h.more:
            return batches, chat


def live(c: Client) -> list[tuple[int, list[Any]]]:
    return [(e.state_id, e.events) for e in c.received if isinstance(e, m.Events)]


async def test_rejoining_and_late_watchers_get_the_past_in_their_own_form(
    server_port: int,
) -> None:
    game, clients = await seated_game(server_port, SUBPROTOCOL_MSGPACK)
    tokens = [c.token() for c in clients]
    watcher = await Client.open(server_port)
    await watcher.hello()
    await watcher.send(m.Watch(game=game))
    await watcher.expect(m.GameView)
    await clients[1].send(m.Chat(game=game, text="good luck"))
    await asyncio.gather(*(c.play_randomly(game, seed=30 + i) for i, c in enumerate(clients)))
    await watcher.expect(m.GameOver)

    # A second connection on seat 2 (with its token), and a late watcher, ask for history.
    again = await Client.open(server_port)
    await again.hello()
    await again.send(m.Rejoin(game=game, token=tokens[2], history=True))
    assert (await again.expect(m.Joined)).seat == 2
    await again.expect(m.GameView)
    seat_batches, seat_chat = await history_of(again)
    late = await Client.open(server_port)
    await late.hello()
    await late.send(m.Watch(game=game, history=True))
    await late.expect(m.GameView)
    spectator_batches, _ = await history_of(late)

    # Exactly what each received live, action by action.
    assert [(b.state_id, b.events) for b in seat_batches] == live(clients[2])
    assert [(b.state_id, b.events) for b in spectator_batches] == live(watcher)
    assert len(seat_batches) > 200  # it came in several messages
    assert [(c.seat, c.name, c.text) for c in seat_chat] == [(1, "p1", "good luck")]

    # Hidden information stays hidden: other seats' drawn cards and stolen cards.
    def hidden(batches: list[m.HistoryBatch], seat: int | None) -> tuple[int, int]:
        shown = secret = 0
        for b in batches:
            for e in map(event_to_engine, b.events):
                if isinstance(e, DevCardBought):
                    mine = e.seat == seat
                    assert (e.card is not None) == mine, e
                    shown, secret = shown + mine, secret + (not mine)
                if isinstance(e, Stolen):
                    assert (e.resource is not None) == (seat in (e.thief, e.victim)), e
        return shown, secret

    shown, secret = hidden(seat_batches, 2)
    assert secret > 0, "the others bought development cards: a real check"
    assert hidden(spectator_batches, None) == (0, shown + secret)
    for c in (*clients, watcher, again, late):
        await c.close()


async def test_no_history_unless_asked(server_port: int) -> None:
    game, clients = await seated_game(server_port, SUBPROTOCOL_MSGPACK, players=2)
    tokens = [c.token() for c in clients]
    await clients[0].expect(m.Prompt)
    again = await Client.open(server_port)
    await again.hello()
    await again.send(m.Rejoin(game=game, token=tokens[0]))
    await again.expect(m.GameView)
    await again.send(m.Ping(nonce=7))
    await again.expect(m.Pong)
    assert not any(isinstance(x, m.History) for x in again.received)
    for c in (*clients, again):
        await c.close()


async def test_a_finished_games_record_replays_and_an_unfinished_one_is_refused() -> None:
    store = Store()
    srv = HexhavenServer(store)
    async with srv.running("127.0.0.1", 0) as ws_server:
        port = srv.port_of(ws_server)
        asker = await Client.open(port)
        await asker.hello()
        await asker.send(m.GetRecord(game="nosuchgame"))
        assert (await asker.expect(m.Error)).code == m.ErrorCode.UNKNOWN_GAME

        game, clients = await seated_game(port, SUBPROTOCOL_MSGPACK, players=2)
        await asker.send(m.GetRecord(game=game))
        refused = await asker.expect(m.Error)
        assert refused.code == m.ErrorCode.GAME_NOT_OVER
        assert not any(isinstance(x, m.GameRecord) for x in asker.received)

        overs = await asyncio.gather(
            *(c.play_randomly(game, seed=i) for i, c in enumerate(clients))
        )
        await asker.send(m.GetRecord(game=game))
        record = await asker.expect(m.GameRecord)
        assert record.seed == overs[0].seed and record.winner == overs[0].winner
        assert record.points == overs[0].points
        last = max(e.state_id for e in clients[0].received if isinstance(e, m.Events))
        assert len(record.actions) == last
        assert [s.name for s in record.seats] == ["p0", "p1"]
        tokens = [c.token() for c in clients]
        encoded = record.model_dump_json()
        assert all(t not in encoded for t in tokens)
        replayed = ReplayGame(record)
        assert replayed.over and replayed.view(replayed.length).winner == record.winner

        # An abandoned game is not over either.
        other, more = await seated_game(port, SUBPROTOCOL_MSGPACK, players=2)
        store.abandon_game(other)
        await asker.send(m.GetRecord(game=other))
        assert (await asker.expect(m.Error)).code == m.ErrorCode.GAME_NOT_OVER
        for c in (asker, *clients, *more):
            await c.close()
    store.close()


async def test_every_seat_sees_the_clock_of_whoever_must_act(server_port: int) -> None:
    clients = [await Client.open(server_port) for _ in range(2)]
    for c in clients:
        await c.hello()
    await clients[0].send(m.CreateGame(options=m.GameOptions(players=2, turn_timer=60)))
    game = (await clients[0].expect(m.GameCreated)).game
    for i, c in enumerate(clients):
        await c.send(m.JoinGame(game=game, name=f"p{i}"))
        await c.expect(m.Joined)
    await clients[0].send(m.StartGame(game=game))
    clock = await clients[1].expect(m.Clock)  # seat 0 places first; seat 1 sees its time
    assert [c.seat for c in clock.seats] == [0] and 0 < clock.seats[0].left <= 60
    watcher = await Client.open(server_port)
    await watcher.hello()
    await watcher.send(m.Watch(game=game))
    assert [c.seat for c in (await watcher.expect(m.Clock)).seats] == [0]
    for c in (*clients, watcher):
        await c.close()
