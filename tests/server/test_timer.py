"""Seats that do not act in time are played with the engine's default action, and marked
away after repeated timeouts or a disconnection; the game always finishes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

import engine
from engine import SettlementBuilt
from protocol import SUBPROTOCOL_MSGPACK
from protocol import messages as m
from server.app import HexhavenServer
from tests.server.client import Client


@pytest.fixture
async def quick_server() -> AsyncIterator[int]:
    srv = HexhavenServer(away_grace=0.3)
    async with srv.running("127.0.0.1", 0) as ws_server:
        yield srv.port_of(ws_server)


async def table(port: int, options: m.GameOptions) -> tuple[str, list[Client]]:
    clients = [await Client.open(port, SUBPROTOCOL_MSGPACK) for _ in range(options.players)]
    for c in clients:
        await c.hello()
    await clients[0].send(m.CreateGame(options=options))
    game = (await clients[0].expect(m.GameCreated)).game
    for i, c in enumerate(clients):
        await c.send(m.JoinGame(game=game, name=f"p{i}"))
        await c.expect(m.Joined)
    await clients[0].send(m.StartGame(game=game))
    for c in clients:  # the game has started once everyone has its second view
        while sum(isinstance(x, m.GameView) for x in c.received) < 2:
            await c.recv()
    return game, clients


async def listen_until_over(c: Client) -> m.GameOver:
    while True:
        message = await c.recv()
        if isinstance(message, m.GameOver):
            return message


async def test_a_silent_seat_times_out_and_is_played(quick_server: int) -> None:
    game, clients = await table(quick_server, m.GameOptions(players=3, turn_timer=0.2))
    silent = clients[2]
    overs = await asyncio.gather(
        clients[0].play_randomly(game, 1),
        clients[1].play_randomly(game, 2),
        listen_until_over(silent),
    )
    assert overs[0] == overs[1] == overs[2]
    prompts = [x for x in silent.received if isinstance(x, m.Prompt)]
    bad = [p for p in prompts if p.deadline is None or p.deadline > 0.2 + 1e-6]
    assert prompts and not bad, bad[:3]
    away = [x for x in silent.received if isinstance(x, m.Players)]
    assert any(p.away for x in away for p in x.players if p.seat == 2)
    for c in clients:
        await c.close()


async def test_a_disconnected_seat_is_played_after_the_grace_period(quick_server: int) -> None:
    game, clients = await table(quick_server, m.GameOptions(players=3))
    await clients[2].close()  # gone for good; no timer in this game
    overs = await asyncio.gather(
        clients[0].play_randomly(game, 1), clients[1].play_randomly(game, 2)
    )
    assert overs[0] == overs[1]
    marks = [x for x in clients[0].received if isinstance(x, m.Players)]
    assert any(p.away and not p.connected for x in marks for p in x.players if p.seat == 2)
    for c in clients[:2]:
        await c.close()


@pytest.fixture
async def quick_srv() -> AsyncIterator[tuple[HexhavenServer, int]]:
    srv = HexhavenServer(away_grace=0.3)
    async with srv.running("127.0.0.1", 0) as ws_server:
        yield srv, srv.port_of(ws_server)


async def test_an_away_seat_is_played_by_a_bot_until_its_owner_returns(
    quick_srv: tuple[HexhavenServer, int],
) -> None:
    srv, port = quick_srv
    game, clients = await table(port, m.GameOptions(players=3))
    token = clients[2].token()
    async with asyncio.timeout(10):
        while not srv.rooms[game].started:
            await asyncio.sleep(0.01)
    await clients[2].close()
    slot = srv.rooms[game].seats[2]
    assert slot is not None

    # Seat 2 goes away and a stand-in bot process connects with its own token (the others
    # hold their moves meanwhile, so the game waits at the start).
    async with asyncio.timeout(30):
        while slot.standin is None:
            await asyncio.sleep(0.02)
    players = [asyncio.create_task(c.play_randomly(game, i)) for i, c in enumerate(clients[:2])]
    # The stand-in plays the seat: its set-up placements come from it, not from the server.
    watcher = clients[0]
    async with asyncio.timeout(30):
        while not any(isinstance(e, SettlementBuilt) and e.seat == 2 for e in watcher.events()):
            await asyncio.sleep(0.02)
    assert not players[0].done()

    back = await Client.open(port, SUBPROTOCOL_MSGPACK)
    await back.hello()
    await back.send(m.Rejoin(game=game, token=token))
    assert (await back.expect(m.Joined)).seat == 2
    # Back in person: the stand-in is sent away, the seat is connected and not away.
    roster = await back.expect(m.Players)
    assert [(p.connected, p.away) for p in roster.players if p.seat == 2] == [(True, False)]
    assert slot.standin is None
    over = await back.play_randomly(game, 7)
    assert any(isinstance(x, m.Prompt) for x in back.received)
    await back.close()
    results = await asyncio.gather(*players)
    assert all(r == over for r in results)
    for c in clients[:2]:
        await c.close()


async def test_the_timer_is_per_action_and_a_timeout_leaves_the_next_one_whole(
    quick_server: int,
) -> None:
    timer = 0.6
    game, clients = await table(quick_server, m.GameOptions(players=3, turn_timer=timer))
    first, _, silent = clients
    # Seat 0 takes half its time over its first settlement; its road still gets the whole
    # timer, not what was left of the first.
    placing = await first.expect(m.Prompt)
    await asyncio.sleep(timer / 2)
    await first.send(m.Act(game=game, state_id=placing.state_id, action=placing.actions[0]))
    road = await first.expect(m.Prompt)
    assert road.state_id == placing.state_id + 1
    assert road.deadline is not None and road.deadline > 0.8 * timer
    await first.send(m.Act(game=game, state_id=road.state_id, action=road.actions[0]))

    # Seat 2 says nothing: its settlement times out and is played, and its road (due at
    # once after, by the same seat) again gets the whole timer rather than none.
    overs = await asyncio.gather(
        first.play_randomly(game, 1), clients[1].play_randomly(game, 2), listen_until_over(silent)
    )
    assert overs[0] == overs[2]
    mine = [x for x in silent.received if isinstance(x, m.Prompt) and x.seat == 2]
    assert [p.deadline is not None and p.deadline > 0.8 * timer for p in mine[:2]] == [True, True]
    assert mine[1].state_id == mine[0].state_id + 1  # the road right after the settlement
    for c in clients:
        await c.close()


async def test_a_seat_is_away_after_timeouts_in_a_row_not_after_any_two(
    quick_server: int,
) -> None:
    game, clients = await table(quick_server, m.GameOptions(players=3, turn_timer=0.3))
    others = [asyncio.create_task(c.play_randomly(game, i)) for i, c in enumerate(clients[:2])]
    seat2 = clients[2]
    # Seat 2's set-up: settlement (let run out), road (played), settlement (let run out),
    # then its second road's prompt: one timeout, an action, one timeout: not away.
    prompts = 0
    while prompts < 4:
        message = await seat2.recv()
        if not isinstance(message, m.Prompt) or message.seat != 2:
            continue
        prompts += 1
        if prompts == 2:
            await seat2.send(m.Act(game=game, state_id=message.state_id, action=message.actions[0]))
    rosters = [x for x in seat2.received if isinstance(x, m.Players)]
    assert not any(p.away for x in rosters for p in x.players if p.seat == 2)
    for task in others:
        task.cancel()
    await asyncio.gather(*others, return_exceptions=True)
    for c in clients:
        await c.close()


def _launches_held(
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[HexhavenServer, list[tuple[str, str, str, str]]]:
    """A server whose bot processes are recorded, not started: the test plays them."""
    launched: list[tuple[str, str, str, str]] = []
    monkeypatch.setattr(HexhavenServer, "_launch_bot", lambda self, *args: launched.append(args))
    return HexhavenServer(away_grace=0.2), launched


async def test_an_away_seat_waits_for_its_stand_in_instead_of_playing_defaults(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The others play on at once; when the game reaches the away seat it waits for the
    stand-in started for it, which then makes that seat's moves itself."""
    srv, launched = _launches_held(monkeypatch)
    async with srv.running("127.0.0.1", 0) as ws_server:
        port = srv.port_of(ws_server)
        game, clients = await table(port, m.GameOptions(players=3))
        room = srv.rooms[game]
        await clients[2].close()
        players = [asyncio.create_task(c.play_randomly(game, i)) for i, c in enumerate(clients[:2])]
        async with asyncio.timeout(10):
            while 2 not in engine.seats_to_act(room.state) or 2 not in room.away:
                await asyncio.sleep(0.01)
        (_, token, kind, name) = launched[-1]
        assert (kind, name) == ("heuristic", "p2-bot")
        taken = room.state.actions_taken
        await asyncio.sleep(0.5)  # the seat's move is due: the server waits for the stand-in
        assert room.state.actions_taken == taken and not any(p.done() for p in players)

        stand_in = await Client.open(port, SUBPROTOCOL_MSGPACK)
        await stand_in.hello()
        await stand_in.send(m.Rejoin(game=game, token=token))
        assert (await stand_in.expect(m.Joined)).seat == 2
        over = await stand_in.play_randomly(game, 9)
        assert any(isinstance(x, m.Prompt) for x in stand_in.received)  # it played the seat
        assert await asyncio.gather(*players) == [over, over]
        for c in (*clients[:2], stand_in):
            await c.close()


async def test_a_stand_in_that_never_comes_leaves_the_seat_to_the_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import server.room

    monkeypatch.setattr(server.room, "PROCESS_WAIT", 0.3)
    srv, launched = _launches_held(monkeypatch)
    async with srv.running("127.0.0.1", 0) as ws_server:
        game, clients = await table(srv.port_of(ws_server), m.GameOptions(players=3))
        await clients[2].close()
        async with asyncio.timeout(60):  # waited PROCESS_WAIT, then played by defaults
            overs = await asyncio.gather(
                *(c.play_randomly(game, i) for i, c in enumerate(clients[:2]))
            )
        assert overs[0] == overs[1] and launched
        for c in clients[:2]:
            await c.close()
