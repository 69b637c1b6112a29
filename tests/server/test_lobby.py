"""Seats before the start: a lost connection keeps its seat for its owner's rejoin (and is
played by the server after the grace period if the game starts without them); `leave`
gives the seat up. A connection that arrives after the end is told the game is over."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from protocol import messages as m
from server.app import HexhavenServer
from server.bot_launcher import BotLauncher
from tests.server.client import Client, ManualClock, advance


@pytest.fixture
async def port() -> AsyncIterator[int]:
    srv = HexhavenServer(away_grace=0.3)
    async with srv.running("127.0.0.1", 0) as ws_server:
        yield srv.port_of(ws_server)


async def _lobby(port: int, players: int, seated: int) -> tuple[str, list[Client]]:
    """A game for ``players`` created by the first of ``seated`` connections, all seated."""
    clients = [await Client.open(port) for _ in range(seated)]
    for c in clients:
        await c.hello()
    await clients[0].send(m.CreateGame(options=m.GameOptions(players=players)))
    game = (await clients[0].expect(m.GameCreated)).game
    for i, c in enumerate(clients):
        await c.send(m.JoinGame(game=game, name=f"p{i}"))
        assert (await c.expect(m.Joined)).seat == i
    return game, clients


async def _roster_until(client: Client, seat: int, connected: bool | None) -> m.Players:
    """The next roster where ``seat`` is connected as given, or (``None``) is not held."""
    while True:
        roster: m.Players = await client.expect(m.Players)
        held = [p.connected for p in roster.players if p.seat == seat]
        if held == ([] if connected is None else [connected]):
            return roster


async def test_a_seat_lost_before_the_start_waits_for_its_owner(port: int) -> None:
    game, (host, friend) = await _lobby(port, 3, 2)
    token = friend.token()
    await friend.close()
    await _roster_until(host, 1, connected=False)  # kept, shown as not connected

    late = await Client.open(port)
    await late.hello()
    await late.send(m.JoinGame(game=game, name="late"))
    assert (await late.expect(m.Joined)).seat == 2  # not the lost friend's seat

    back = await Client.open(port)
    await back.hello()
    await back.send(m.Rejoin(game=game, token=token))
    assert (await back.expect(m.Joined)).seat == 1
    await _roster_until(host, 1, connected=True)
    for c in (host, late, back):
        await c.close()


async def test_everyone_who_joins_or_watches_is_told_the_seed_hash(port: int) -> None:
    game, clients = await _lobby(port, 3, 2)
    published = next(x for x in clients[0].received if isinstance(x, m.GameCreated)).seed_hash
    watcher = await Client.open(port)
    await watcher.hello()
    await watcher.send(m.Watch(game=game))
    joined = [next(x for x in c.received if isinstance(x, m.Joined)) for c in clients]
    joined.append(await watcher.expect(m.Joined))
    assert [j.seed_hash for j in joined] == [published] * 3
    for c in (*clients, watcher):
        await c.close()


async def test_a_seat_given_up_with_leave_is_free_again(port: int) -> None:
    game, (host, friend) = await _lobby(port, 3, 2)
    await friend.send(m.Leave(game=game))
    await _roster_until(host, 1, connected=None)
    other = await Client.open(port)
    await other.hello()
    await other.send(m.JoinGame(game=game, name="other"))
    assert (await other.expect(m.Joined)).seat == 1
    for c in (host, friend, other):
        await c.close()


async def test_a_host_whose_connection_drops_rejoins_and_still_starts_the_game(port: int) -> None:
    """The host is the creating connection; its seat's token carries the right over to the
    host's new connection. Another seat cannot start, nor can one that takes the host's seat
    after the host gave it up."""
    game, (host, friend) = await _lobby(port, 2, 2)
    token = host.token()
    joined = [next(x for x in c.received if isinstance(x, m.Joined)) for c in (host, friend)]
    assert [j.host for j in joined] == [True, False]  # each is told whether it may start
    await friend.send(m.StartGame(game=game))
    assert (await friend.expect(m.Error)).code == m.ErrorCode.NOT_HOST
    await host.close()
    await _roster_until(friend, 0, connected=False)
    back = await Client.open(port)
    await back.hello()
    await back.send(m.Rejoin(game=game, token=token))
    rejoined = await back.expect(m.Joined)
    assert rejoined.seat == 0 and rejoined.host
    await back.send(m.StartGame(game=game))
    while not (await back.expect(m.Players)).started:  # the rejoin's roster comes first
        pass
    await back.send(m.Leave(game=game))
    for c in (back, friend):
        await c.close()

    game, (host, friend) = await _lobby(port, 3, 2)
    await host.send(m.Leave(game=game))  # the host gives its seat up...
    await _roster_until(friend, 0, connected=None)
    taker = await Client.open(port)
    await taker.hello()
    await taker.send(m.JoinGame(game=game, name="taker"))
    taken = await taker.expect(m.Joined)
    assert taken.seat == 0 and not taken.host  # ...and another takes it
    await taker.send(m.StartGame(game=game))
    assert (await taker.expect(m.Error)).code == m.ErrorCode.NOT_HOST
    for c in (host, friend, taker):
        await c.close()


async def test_a_seat_lost_in_the_lobby_is_played_once_the_game_starts(port: int) -> None:
    game, (host, friend, gone) = await _lobby(port, 3, 3)
    await gone.close()
    await _roster_until(host, 2, connected=False)
    await host.send(m.StartGame(game=game))
    overs = await asyncio.gather(host.play_randomly(game, 1), friend.play_randomly(game, 2))
    assert overs[0] == overs[1] and overs[0].winner is not None
    marks = [x for x in host.received if isinstance(x, m.Players)]
    assert any(p.away and not p.connected for x in marks for p in x.players if p.seat == 2)
    for c in (host, friend):
        await c.close()


async def test_who_comes_after_the_end_is_told_the_game_is_over(
    clocked: tuple[HexhavenServer, ManualClock, int],
) -> None:
    srv, clock, port = clocked
    game, clients = await _lobby(port, 3, 3)
    token = clients[2].token()
    await clients[0].send(m.StartGame(game=game))
    overs = await asyncio.gather(*(c.play_randomly(game, i) for i, c in enumerate(clients)))
    await clients[2].close()
    seat = srv.rooms[game].seats[2]
    async with asyncio.timeout(10):
        while seat is not None and seat.peers:
            await asyncio.sleep(0.01)
    advance(srv, clock, srv.away_grace)  # past the grace: a seat gone after the end...
    assert 2 not in srv.rooms[game].away  # ... is not marked away
    await clients[0].send(m.Ping(nonce=1))
    await clients[0].expect(m.Pong)
    after = clients[0].received[clients[0].received.index(overs[0]) :]
    assert not any(p.away for x in after if isinstance(x, m.Players) for p in x.players)

    back = await Client.open(port)
    await back.hello()
    await back.send(m.Rejoin(game=game, token=token))
    assert (await back.expect(m.Joined)).seat == 2
    assert await back.expect(m.GameOver) == overs[0]

    watcher = await Client.open(port)
    await watcher.hello()
    await watcher.send(m.Watch(game=game))
    assert await watcher.expect(m.GameOver) == overs[0]
    assert not any(isinstance(x, m.Prompt) for x in back.received + watcher.received)
    for c in (*clients[:2], back, watcher):
        await c.close()


async def _played_out_and_closed(srv: HexhavenServer, port: int) -> tuple[str, str, m.GameOver]:
    """A three-seat game played to its end and closed once its players have gone: its id,
    seat 2's token and its game over."""
    game, clients = await _lobby(port, 3, 3)
    token = clients[2].token()
    await clients[0].send(m.StartGame(game=game))
    await asyncio.gather(*(c.play_randomly(game, i) for i, c in enumerate(clients)))
    over = next(x for x in reversed(clients[0].received) if isinstance(x, m.GameOver))
    for c in clients:
        await c.close()
    async with asyncio.timeout(10):
        while game in srv.rooms:
            await asyncio.sleep(0.02)
    return game, token, over


async def test_a_closed_game_is_named_as_over_or_left_not_unknown() -> None:
    srv = HexhavenServer(idle_timeout=0.2)
    async with srv.running("127.0.0.1", 0) as ws_server:
        port = srv.port_of(ws_server)
        left, lobby = await _lobby(port, 3, 1)
        for c in lobby:
            await c.close()
        game, token, _ = await _played_out_and_closed(srv, port)
        async with asyncio.timeout(10):  # closed too once nobody is left in it
            while left in srv.rooms:
                await asyncio.sleep(0.02)

        asking = await Client.open(port)
        await asking.hello()
        answers = []
        for target in (game, left, "no-such-game"):
            await asking.send(m.Rejoin(game=target, token=token))
            error = await asking.expect(m.Error)
            assert error.code == m.ErrorCode.UNKNOWN_GAME
            answers.append((error.message, error.detail))
        assert "is over and closed" in answers[0][0] and "get_record" in answers[0][0]
        assert "closed unfinished" in answers[1][0]
        assert [detail for _, detail in answers] == ["over", "unfinished", None]
        assert answers[2][0] == "there is no game 'no-such-game'"
        await asking.close()


async def test_a_game_played_out_and_closed_is_opened_again_for_its_history() -> None:
    """A closed game that was played to its end is watched, or its seat taken back, with
    its history (the history budget paid): a room opens again at its last state, listed
    nowhere, and closes again once they have gone."""
    srv = HexhavenServer(idle_timeout=0.2)
    async with srv.running("127.0.0.1", 0) as ws_server:
        port = srv.port_of(ws_server)
        game, token, over = await _played_out_and_closed(srv, port)

        watcher = await Client.open(port)
        await watcher.hello()
        await watcher.send(m.Watch(game=game, history=True))
        assert (await watcher.expect(m.Joined)).seat is None
        assert await watcher.expect(m.GameOver) == over
        told = [x for x in watcher.received if isinstance(x, m.History)]
        played = sum(len(h.batches) for h in told)
        assert played == over_state(watcher) and not told[-1].more
        back = await Client.open(port)
        await back.hello()
        await back.send(m.Rejoin(game=game, token=token, history=True))
        assert (await back.expect(m.Joined)).seat == 2
        assert await back.expect(m.GameOver) == over
        await back.send(m.ListGames())
        assert game not in [g.game for g in (await back.expect(m.GameList)).games]
        for c in (watcher, back):
            await c.close()
        async with asyncio.timeout(10):  # closed again once they have gone
            while game in srv.rooms:
                await asyncio.sleep(0.02)


def over_state(c: Client) -> int:
    """The state id of the game view ``c`` was sent last."""
    view = next(x for x in reversed(c.received) if isinstance(x, m.GameView))
    return int(view.view.state_id)


async def test_a_game_nobody_can_win_ends_at_the_action_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import server.room
    from protocol.payloads import EndTurn
    from server.verify import verify_game

    monkeypatch.setattr(server.room, "MAX_ACTIONS", 60)  # stands for 20,000
    srv = HexhavenServer(away_grace=0.3)
    async with srv.running("127.0.0.1", 0) as ws_server:
        port = srv.port_of(ws_server)
        game, clients = await _lobby(port, 3, 3)
        await clients[0].send(m.StartGame(game=game))
        overs = await asyncio.gather(*(c.play_randomly(game, i) for i, c in enumerate(clients)))
        assert overs[0] == overs[1] == overs[2] and overs[0].winner is None
        last = max(x.state_id for x in clients[0].received if isinstance(x, m.Events))
        assert last == 60
        await clients[0].send(m.Act(game=game, state_id=60, action=EndTurn()))
        refused = await clients[0].expect(m.Error)
        assert (refused.code, refused.detail) == (m.ErrorCode.ILLEGAL_ACTION, "game_over")
        stored = srv.store.load(game)
        assert stored is not None and stored.finished and stored.winner is None
        verdict = verify_game(stored)  # its record replays to the same end
        assert verdict.problems == [] and len(stored.actions) == 60
        for c in clients:
            await c.close()


async def test_a_host_who_neither_sits_nor_watches_hears_that_the_game_started(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(BotLauncher, "launch", lambda self, *args: None)  # no processes
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        host = await Client.open(srv.port_of(ws_server))
        await host.hello()
        bots = [m.BotSeat(kind="random"), m.BotSeat(kind="random")]
        await host.send(m.CreateGame(options=m.GameOptions(players=2, bots=bots)))
        game = (await host.expect(m.GameCreated)).game
        await host.send(m.StartGame(game=game))
        roster = await asyncio.wait_for(host.expect(m.Players), 5)
        assert roster.started and [p.bot for p in roster.players] == [True, True]
        await host.close()


async def test_a_host_who_neither_sits_nor_watches_hears_who_sits_down(port: int) -> None:
    """An agent's host program creates the game, waits for its agents to sit, then starts
    it: it is told each seat taken, though it neither sits nor watches."""
    host = await Client.open(port)
    await host.hello()
    options = m.GameOptions(players=3, bots=[m.BotSeat(kind="random")], private=True)
    await host.send(m.CreateGame(options=options))
    created = await host.expect(m.GameCreated)
    agents = [await Client.open(port) for _ in range(2)]
    for i, agent in enumerate(agents):
        await agent.hello()
        assert created.invite is not None
        invite = created.invite.lower() if i else created.invite  # as typed: any case
        await agent.send(m.JoinGame(invite=invite, name=f"agent-{i}"))
        roster = await host.expect(m.Players)
        assert [p.name for p in roster.players] == [f"agent-{k}" for k in range(i + 1)]
    await host.send(m.StartGame(game=created.game))
    while not (await host.expect(m.Players)).started:
        pass
    for c in (host, *agents):
        await c.close()


async def test_an_invite_code_tells_its_game_before_a_seat_is_taken(server_port: int) -> None:
    """``find_game`` names a private game by its code (in any case, with spaces about it) and
    says whether it has started; an unknown code is refused, each guess costing a join."""
    host = await Client.open(server_port)
    await host.hello()
    await host.send(m.CreateGame(options=m.GameOptions(players=2, private=True)))
    created = await host.expect(m.GameCreated)
    assert created.invite is not None
    await host.send(m.JoinGame(game=created.game, name="ana"))
    await host.expect(m.Joined)
    asker = await Client.open(server_port)
    await asker.hello()
    await asker.send(m.FindGame(invite=f" {created.invite.lower()} "))
    found = await asker.expect(m.GameFound)
    assert found.game == created.game
    assert (found.summary.started, found.summary.seated, found.summary.players) == (False, 1, 2)
    other = await Client.open(server_port)
    await other.hello()
    await other.send(m.JoinGame(invite=created.invite, name="bo"))
    await other.expect(m.Joined)
    await host.send(m.StartGame(game=created.game))
    await host.expect(m.Prompt)
    await asker.send(m.FindGame(invite=created.invite))
    assert (await asker.expect(m.GameFound)).summary.started
    await asker.send(m.FindGame(invite="NOSUCHCODE"))
    refused = await asker.expect(m.Error)
    assert refused.code == m.ErrorCode.UNKNOWN_GAME and refused.game is None
    # Guessing codes spends the joins budget: past it, refused without a look.
    for _ in range(30):
        await asker.send(m.FindGame(invite="NOSUCHCODE"))
    codes = set()
    for _ in range(30):
        codes.add((await asker.expect(m.Error)).detail)
    assert "joins" in codes
    for c in (host, asker, other):
        await c.close()
