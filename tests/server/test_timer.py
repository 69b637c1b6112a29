"""Seats that do not act in time are played with the engine's default action, and marked
away after repeated timeouts or a disconnection; the game always finishes."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable

import pytest
from structlog.testing import capture_logs

import engine
from engine import SettlementBuilt
from protocol import SUBPROTOCOL_MSGPACK
from protocol import messages as m
from protocol.payloads import action_from_engine
from server.app import HexhavenServer
from server.away import PROCESS_WAIT
from server.bot_launcher import BotLauncher
from tests.server.client import Client, ManualClock, advance


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
    with capture_logs() as logs:
        await back.send(m.Rejoin(game=game, token=token))
        assert (await back.expect(m.Joined)).seat == 2
        # Back in person: the stand-in is sent away, the seat is connected and not away.
        roster = await back.expect(m.Players)
        assert [(p.connected, p.away) for p in roster.players if p.seat == 2] == [(True, False)]
        assert slot.standin is None
        over = await back.play_randomly(game, 7)
    # A seat handed back is the normal course: its stand-in is stopped, not failed.
    assert any(e["event"] == "bot.stand_in_stopped" for e in logs)
    assert not [e for e in logs if e["event"] == "bot.failed"], logs
    assert not [e for e in logs if e["log_level"] in ("error", "critical")], logs
    assert any(isinstance(x, m.Prompt) for x in back.received)
    await back.close()
    results = await asyncio.gather(*players)
    assert all(r == over for r in results)
    for c in clients[:2]:
        await c.close()


async def prompt_for(c: Client, seat: int) -> m.Prompt:
    while True:
        message = await c.recv()
        if isinstance(message, m.Prompt) and message.seat == seat:
            return message


TIMER = 60.0


async def test_the_timer_is_per_action_and_a_timeout_leaves_the_next_one_whole(
    clocked: tuple[HexhavenServer, ManualClock, int],
) -> None:
    srv, clock, port = clocked
    game, clients = await table(port, m.GameOptions(players=3, turn_timer=TIMER))
    first, _, silent = clients
    # Seat 0 takes half its time over its first settlement; its road still gets the whole
    # timer, not what was left of the first.
    placing = await first.expect(m.Prompt)
    assert placing.deadline == TIMER
    advance(srv, clock, TIMER / 2)
    await first.send(m.Act(game=game, state_id=placing.state_id, action=placing.actions[0]))
    road = await first.expect(m.Prompt)
    assert (road.state_id, road.deadline) == (placing.state_id + 1, TIMER)
    await first.send(m.Act(game=game, state_id=road.state_id, action=road.actions[0]))

    # Seat 2 says nothing: its settlement runs out and is played, and its road (due at
    # once after, by the same seat) again gets the whole timer rather than none.
    others = [asyncio.create_task(c.play_randomly(game, i)) for i, c in enumerate(clients[:2])]
    settlement = await prompt_for(silent, 2)
    assert settlement.deadline == TIMER
    advance(srv, clock, TIMER - 1)  # not yet out of time
    advance(srv, clock, 1)
    its_road = await prompt_for(silent, 2)
    assert (its_road.state_id, its_road.deadline) == (settlement.state_id + 1, TIMER)
    played = [e for e in silent.events() if isinstance(e, SettlementBuilt) and e.seat == 2]
    assert len(played) == 1  # by the server, for the silent seat
    await silent.send(m.Act(game=game, state_id=its_road.state_id, action=its_road.actions[0]))
    over = await silent.play_randomly(game, 3)
    assert await asyncio.gather(*others) == [over, over]
    for c in clients:
        await c.close()


async def test_a_seat_is_away_after_timeouts_in_a_row_not_after_any_two(
    clocked: tuple[HexhavenServer, ManualClock, int],
) -> None:
    srv, clock, port = clocked
    game, clients = await table(port, m.GameOptions(players=3, turn_timer=TIMER))
    others = [asyncio.create_task(c.play_randomly(game, i)) for i, c in enumerate(clients[:2])]
    seat2 = clients[2]
    # Seat 2's set-up: settlement (let run out), road (played), settlement (let run out),
    # then its second road's prompt: one timeout, an action, one timeout: not away.
    for n in range(1, 4):
        prompt = await prompt_for(seat2, 2)
        if n == 2:
            await seat2.send(m.Act(game=game, state_id=prompt.state_id, action=prompt.actions[0]))
        else:
            advance(srv, clock, TIMER)
    await prompt_for(seat2, 2)
    rosters = [x for x in seat2.received if isinstance(x, m.Players)]
    assert not any(p.away for x in rosters for p in x.players if p.seat == 2)
    assert srv.rooms[game].away_policy.timeouts[2] == 1
    # This one runs out too: two in a row, and the seat is away.
    advance(srv, clock, TIMER)
    assert 2 in srv.rooms[game].away
    roster = await seat2.expect(m.Players)  # and everyone is told
    assert [p.away for p in roster.players if p.seat == 2] == [True]
    for task in others:
        task.cancel()
    await asyncio.gather(*others, return_exceptions=True)
    for c in clients:
        await c.close()


def _launches_held(
    monkeypatch: pytest.MonkeyPatch, clock: ManualClock
) -> tuple[HexhavenServer, list[tuple[str, str, str, str, bool]]]:
    """A server on ``clock`` whose bot processes are recorded, not started: the test plays
    them."""
    launched: list[tuple[str, str, str, str, bool]] = []
    monkeypatch.setattr(BotLauncher, "launch", lambda self, *args: launched.append(args))
    return HexhavenServer(clock=clock), launched


async def _gone_away(srv: HexhavenServer, clock: ManualClock, game: str, seat: int) -> None:
    """Once the room knows ``seat`` disconnected, let its grace period run out."""
    room = srv.rooms[game]
    async with asyncio.timeout(10):
        while room.away_policy.disconnected_at.get(seat) is None:
            await asyncio.sleep(0.01)
    advance(srv, clock, srv.away_grace)
    assert seat in room.away


async def _due(srv: HexhavenServer, game: str, seat: int) -> None:
    room = srv.rooms[game]
    async with asyncio.timeout(30):
        while seat not in engine.seats_to_act(room.state):
            await asyncio.sleep(0.01)


async def test_an_away_seat_waits_for_its_stand_in_instead_of_playing_defaults(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The others play on at once; when the game reaches the away seat it waits for the
    stand-in started for it, which then makes that seat's moves itself."""
    clock = ManualClock()
    srv, launched = _launches_held(monkeypatch, clock)
    async with srv.running("127.0.0.1", 0) as ws_server:
        port = srv.port_of(ws_server)
        game, clients = await table(port, m.GameOptions(players=3))
        room = srv.rooms[game]
        await clients[2].close()
        await _gone_away(srv, clock, game, 2)
        (_, token, kind, name, for_away) = launched[-1]
        assert (kind, name, for_away) == ("heuristic", "p2-bot", True)
        players = [asyncio.create_task(c.play_randomly(game, i)) for i, c in enumerate(clients[:2])]
        await _due(srv, game, 2)
        taken = room.state.actions_taken
        advance(srv, clock, PROCESS_WAIT - 1)  # the seat's move is due: the server waits
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
    clock = ManualClock()
    srv, launched = _launches_held(monkeypatch, clock)
    async with srv.running("127.0.0.1", 0) as ws_server:
        game, clients = await table(srv.port_of(ws_server), m.GameOptions(players=3))
        room = srv.rooms[game]
        await clients[2].close()
        await _gone_away(srv, clock, game, 2)
        players = [asyncio.create_task(c.play_randomly(game, i)) for i, c in enumerate(clients[:2])]
        await _due(srv, game, 2)
        taken = room.state.actions_taken
        advance(srv, clock, PROCESS_WAIT)  # it did not come: the server plays the seat
        assert room.state.actions_taken > taken
        overs = await asyncio.gather(*players)
        assert overs[0] == overs[1] and launched
        for c in clients[:2]:
            await c.close()


async def _until(check: Callable[[], bool]) -> None:
    """Wait until ``check()`` holds (the server's messages arrive meanwhile)."""
    async with asyncio.timeout(20):
        while not check():
            await asyncio.sleep(0.01)


async def test_an_offer_nobody_answers_is_declined_when_its_window_closes(
    clocked: tuple[HexhavenServer, ManualClock, int],
) -> None:
    """No turn timer: the seats asked by an offer have its window to answer; when it
    closes, each that said nothing has declined, the offer closes and the turn goes on.
    Nobody is marked away for it, and everyone is shown the window on the clock."""
    srv, clock, port = clocked
    window = 12.0
    game, clients = await table(port, m.GameOptions(players=3, offer_window=window))
    readers = [asyncio.create_task(_drain(c)) for c in clients]
    room = srv.rooms[game]
    rnd = random.Random(4)
    try:
        # Play until the seat on turn may trade and holds a card to offer.
        while True:
            state = room.table.state
            seat = engine.seats_to_act(state)[0]
            if state.phase == engine.Phase.MAIN and any(state.hand_of(seat)):
                break
            action = rnd.choice(engine.legal_actions(state, seat))
            sid = state.actions_taken
            await clients[seat].send(
                m.Act(game=game, state_id=sid, action=action_from_engine(action))
            )
            await _until(lambda: room.table.state_id > sid)  # noqa: B023 (awaited here)
        hand = state.hand_of(seat)
        give = [0] * 5
        give[max(range(5), key=hand.__getitem__)] = 1
        get = [0] * 5
        get[(give.index(1) + 1) % 5] = 1
        offer = engine.OfferTrade(seat, tuple(give), tuple(get), None)  # type: ignore[arg-type]
        sid = state.actions_taken
        await clients[seat].send(m.Act(game=game, state_id=sid, action=action_from_engine(offer)))
        asked = [q for q in range(3) if q != seat]

        def prompted(q: int) -> m.Prompt | None:
            return next(
                (
                    x
                    for x in clients[q].received
                    if isinstance(x, m.Prompt) and x.state_id == sid + 1
                ),
                None,
            )

        await _until(lambda: all(prompted(q) is not None for q in asked))
        assert [prompted(q).deadline for q in asked] == [window, window]  # type: ignore[union-attr]
        await _until(
            lambda: any(
                isinstance(x, m.Clock) and x.state_id == sid + 1 for x in clients[seat].received
            )
        )
        shown = next(
            x for x in clients[seat].received if isinstance(x, m.Clock) and x.state_id == sid + 1
        )
        assert sorted((c.seat, c.left) for c in shown.seats) == [(q, window) for q in asked]

        advance(srv, clock, window - 1)
        assert room.table.state_id == sid + 1  # still open
        advance(srv, clock, 1)
        closed = clients[seat].events
        await _until(lambda: any(isinstance(e, engine.TradeClosed) for e in closed()))
        assert room.table.state.phase == engine.Phase.MAIN
        told = [e for e in clients[seat].events() if isinstance(e, engine.TradeAnswered)]
        assert sorted(e.seat for e in told if e.answer == "decline") == asked
        assert not room.away and not room.away_policy.timeouts.get(asked[0])
        await _until(
            lambda: any(
                isinstance(x, m.Prompt) and x.state_id == room.table.state_id
                for x in clients[seat].received
            )
        )
    finally:
        for task in readers:
            task.cancel()
    for c in clients:
        await c.close()


async def _drain(c: Client) -> None:
    while True:
        await c.recv()
