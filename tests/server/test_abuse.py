"""What one address may not do to a server: each kind of abuse refused or bounded, with
the refusal the protocol documents, while another game keeps being played. A real server
on 127.0.0.1 with real clients; time is the server's injected clock, moved by the test."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from protocol import SUBPROTOCOL_MSGPACK
from protocol import messages as m
from protocol.server_session import Budgets, Rate
from server.app import HexhavenServer
from server.bot_launcher import BotLauncher
from server.limits import ServerLimits
from server.store import Store
from tests.server.client import Client, ManualClock, advance
from tests.server.test_timer import table

WAIT = 30.0
"""Seconds a condition may take on a loaded machine before the test fails as hung."""


async def until(condition: Callable[[], bool]) -> None:
    async with asyncio.timeout(WAIT):
        while not condition():
            await asyncio.sleep(0.01)


async def client(port: int) -> Client:
    c = await Client.open(port, SUBPROTOCOL_MSGPACK)
    await c.hello()
    return c


async def refusal(c: Client, message: Any) -> m.Error:
    """The error ``message`` is answered with (what else came meanwhile is kept)."""
    await c.send(message)
    error: m.Error = await c.expect(m.Error)
    return error


def limit_of(error: m.Error) -> str | None:
    assert error.code == m.ErrorCode.LIMIT_REACHED, error
    assert f"(limit {error.detail})" in error.message
    return error.detail


async def create(c: Client, **options: Any) -> m.GameCreated:
    await c.send(m.CreateGame(options=m.GameOptions(**options)))
    created: m.GameCreated = await c.expect(m.GameCreated)
    return created


@asynccontextmanager
async def serving(
    limits: ServerLimits | None = None, **kw: Any
) -> AsyncIterator[tuple[HexhavenServer, ManualClock, int]]:
    """A server with these limits (None: the defaults) on a clock the test moves; yields
    it, its clock and its port."""
    clock = ManualClock()
    srv = HexhavenServer(limits=limits, clock=clock, **kw)
    async with srv.running("127.0.0.1", 0) as ws_server:
        yield srv, clock, srv.port_of(ws_server)


@asynccontextmanager
async def another_game(srv: HexhavenServer, port: int) -> AsyncIterator[Callable[[], None]]:
    """A game two players play on beside the abuse; yields a check that it moved on (or
    ended) since the check was made, waiting for it."""
    game, players = await table(port, m.GameOptions(players=2))
    room = srv.rooms[game]
    playing = [asyncio.create_task(p.play_randomly(game, i)) for i, p in enumerate(players)]
    before = room.state.actions_taken

    def moved() -> bool:
        return room.over or room.state.actions_taken > before + 5

    checks: list[Awaitable[None]] = []
    try:
        yield lambda: checks.append(until(moved))
        for check in checks:
            await check
    finally:
        for task in playing:
            task.cancel()
        await asyncio.gather(*playing, return_exceptions=True)
        for p in players:
            await p.close()


# --- watch: a budget, and one view per state -------------------------------------------------


async def test_watching_over_and_over_is_refused_past_its_budget() -> None:
    limits = ServerLimits(budgets=Budgets(views=Rate(per_minute=60, burst=3)))
    async with serving(limits) as (srv, clock, port), another_game(srv, port) as played_on:
        host = await client(port)
        game = (await create(host, players=2)).game
        flood = await client(port)
        for _ in range(3):
            await flood.send(m.Watch(game=game))
            await flood.expect(m.GameView)
        assert limit_of(await refusal(flood, m.Watch(game=game))) == "views"
        assert limit_of(await refusal(flood, m.Rejoin(game=game, token="x" * 32))) == "views"
        advance(srv, clock, 1.0)  # a second: one more watch
        await flood.send(m.Watch(game=game))
        await flood.expect(m.GameView)
        await flood.send(m.Ping(nonce=1))
        assert (await flood.expect(m.Pong)).nonce == 1  # the connection is kept
        played_on()


async def test_everyone_arriving_at_one_state_shares_one_view() -> None:
    async with serving() as (srv, _, port):
        host = await client(port)
        game = (await create(host, players=2)).game
        for _ in range(2):
            await (await client(port)).send(m.Watch(game=game))
        room = srv.rooms[game]
        await until(lambda: len(room.spectators) == 2)
        first, again = room.table.welcome(None), room.table.welcome(None)
        assert first[0] is again[0]  # one view, made once, its frame made once


# --- stand-in bots: counted with the bot seats -----------------------------------------------


async def test_stand_ins_count_against_the_bot_seat_caps(monkeypatch: pytest.MonkeyPatch) -> None:
    """Games without bots, filled by one address's connections, started and left: their
    seats would all be played by stand-in bots. Past the caps the server plays them
    itself instead of starting more."""
    started: list[str] = []
    forever = asyncio.Event()

    async def hosted(self: BotLauncher, game: str, token: str, kind: str, name: str) -> None:
        started.append(name)
        await forever.wait()  # a stand-in that stays (no bot host process in the test)

    monkeypatch.setattr(BotLauncher, "_hosted", hosted)
    limits = ServerLimits(bot_seats=50, bot_seats_per_address=3, unstarted_per_address=10)
    async with serving(limits, away_grace=5.0) as (srv, clock, port):
        games = []
        for _ in range(2):
            game, players = await table(port, m.GameOptions(players=2))
            games.append(game)
            for p in players:
                await p.close()
        await until(lambda: all(len(srv.rooms[g].away_policy.disconnected_at) == 2 for g in games))
        async with another_game(srv, port) as played_on:
            advance(srv, clock, 5.0)  # every seat of both games is away now
            assert all(srv.rooms[g].away == {0, 1} for g in games)
            # The address's cap: three stand-ins started, and none for the fourth seat.
            assert sum(srv.bots.standins.values()) == 3
            await until(lambda: len(started) == 3)
            # Nor can the address ask for bot seats now: the stand-ins hold its share.
            asking = await client(port)
            bot = m.BotSeat(kind="random")
            error = await refusal(asking, m.CreateGame(options=m.GameOptions(bots=[bot])))
            assert limit_of(error) == "bot_seats_per_address"
            played_on()
        forever.set()


# --- unstarted games expire -------------------------------------------------------------------


async def test_an_unstarted_game_nobody_is_in_closes_for_good(tmp_path: Path) -> None:
    db = str(tmp_path / "games.db")
    limits = ServerLimits(unstarted_seconds=2)  # the server looks every half second
    async with (
        serving(limits, store=Store(db)) as (srv, clock, port),
        another_game(srv, port) as played_on,
    ):
        left, kept = await client(port), await client(port)
        gone = (await create(left, players=2)).game
        stays = (await create(kept, players=2)).game  # its creator is still connected
        assert limit_of(await refusal(left, m.CreateGame())) == "unstarted_per_address"
        await left.close()
        advance(srv, clock, 3.0)
        await until(lambda: gone not in srv.rooms)
        assert stays in srv.rooms
        again = await client(port)
        assert isinstance(await create(again, players=2), m.GameCreated)  # room again
        played_on()
    async with serving(limits, store=Store(db)) as (srv, _, port):
        assert gone not in srv.rooms and stays in srv.rooms  # not resumed after a restart
        asking = await client(port)
        error = await refusal(asking, m.JoinGame(game=gone, name="late"))
        assert error.code == m.ErrorCode.UNKNOWN_GAME and error.detail == "unfinished"


async def test_games_started_and_left_hold_no_more_than_their_address_share() -> None:
    """Games one address fills with its own connections, starts and leaves stay open (their
    seats wait for their players), so the address's open games are capped, started or not."""
    limits = ServerLimits(games_per_address=3)
    async with serving(limits) as (srv, _, port), another_game(srv, port) as played_on:
        for _ in range(2):  # with the game beside: three open from this address
            _, players = await table(port, m.GameOptions(players=2))
            for p in players:
                await p.close()
        asking = await client(port)
        error = await refusal(asking, m.CreateGame(options=m.GameOptions(players=2)))
        assert limit_of(error) == "games_per_address"
        assert len(srv.rooms) == 3  # none closed to make room, none made
        played_on()


async def test_a_lobby_everyone_left_closes_at_once_and_frees_its_place() -> None:
    limits = ServerLimits(unstarted_per_connection=1)
    async with serving(limits) as (srv, _, port):
        host = await client(port)
        game = (await create(host, players=3)).game
        assert limit_of(await refusal(host, m.CreateGame())) == "unstarted_per_connection"
        await host.send(m.JoinGame(game=game, name="ana"))
        await host.expect(m.Joined)
        await host.send(m.Leave(game=game))  # the last one out: nothing is left to wait for
        await until(lambda: game not in srv.rooms)
        kept = (await create(host, players=2)).game  # its place is free
        # A game whose creator waits for others (an agent host) stays when one leaves.
        guest = await client(port)
        await guest.send(m.JoinGame(game=kept, name="bo"))
        await guest.expect(m.Joined)
        await guest.send(m.Leave(game=kept))
        await until(lambda: srv.rooms[kept].seated == 0)
        await guest.send(m.Ping(nonce=3))  # the leave has been handled, and what followed it
        await guest.expect(m.Pong)
        assert kept in srv.rooms


# --- reopening finished games and making boards -----------------------------------------------


async def test_reopening_played_out_games_is_budgeted_and_capped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("server.room.MAX_ACTIONS", 30)  # games that end quickly
    limits = ServerLimits(budgets=Budgets(reopens=Rate(per_minute=6, burst=2)), reopened=3)
    async with serving(limits, idle_timeout=0.2) as (srv, _, port):
        ended = []
        for i in range(4):
            game, players = await table(port, m.GameOptions(players=2))
            await asyncio.gather(*(p.play_randomly(game, i * 2 + j) for j, p in enumerate(players)))
            for p in players:
                await p.close()
            ended.append(game)
        await until(lambda: not any(g in srv.rooms for g in ended))  # closed, played out
        async with another_game(srv, port) as played_on:
            watcher = await client(port)
            for game in ended[:2]:
                await watcher.send(m.Watch(game=game, history=True))
                await watcher.expect(m.GameOver)
            error = await refusal(watcher, m.Watch(game=ended[2], history=True))
            assert limit_of(error) == "reopens" and error.game == ended[2]
            other = await client(port)
            await other.send(m.Watch(game=ended[2], history=True))
            await other.expect(m.GameOver)  # the third open again
            error = await refusal(other, m.Watch(game=ended[3], history=True))
            assert limit_of(error) == "reopened"  # the server's cap, whoever asks
            played_on()


async def test_boards_made_off_the_event_loop_are_budgeted() -> None:
    limits = ServerLimits(
        budgets=Budgets(boards=Rate(per_minute=2, burst=1)),
        unstarted_per_connection=10,
        unstarted_per_address=10,
    )
    async with serving(limits) as (srv, clock, port), another_game(srv, port) as played_on:
        c = await client(port)
        assert isinstance(await create(c, board="random", radius=4), m.GameCreated)
        error = await refusal(c, m.CreateGame(options=m.GameOptions(board="random", radius=4)))
        assert limit_of(error) == "boards"
        assert isinstance(await create(c, players=2), m.GameCreated)  # a board made at once
        advance(srv, clock, 30.0)
        assert isinstance(await create(c, board="random", radius=4), m.GameCreated)
        played_on()


# --- chat: every speaker its own share ---------------------------------------------------------


async def test_spectators_cannot_use_up_the_players_chat() -> None:
    limits = ServerLimits(chat_per_game=4, chat_per_speaker=6)
    async with serving(limits) as (srv, clock, port), another_game(srv, port) as played_on:
        ana = await client(port)
        game = (await create(ana, players=2, spectator_chat=True)).game
        await ana.send(m.JoinGame(game=game, name="ana"))
        await ana.expect(m.Joined)
        crowd = [await client(port) for _ in range(3)]
        for c in crowd:
            await c.send(m.Watch(game=game))
            await c.expect(m.Joined)
        for c in crowd[:2]:
            for i in range(2):
                await c.send(m.Chat(game=game, text=f"noise {i}"))
                await c.expect(m.ChatMessage)
        error = await refusal(crowd[2], m.Chat(game=game, text="more noise"))
        assert limit_of(error) == "chat_per_game"  # the spectators' share is used up
        for i in range(3):  # the player still speaks: her own share, 3 at once
            await ana.send(m.Chat(game=game, text=f"hello {i}"))
            assert (await heard(crowd[2], f"hello {i}")).seat == 0
        assert limit_of(await refusal(ana, m.Chat(game=game, text="x"))) == "chat_per_speaker"
        advance(srv, clock, 10.0)  # a line back per 10 s
        await ana.send(m.Chat(game=game, text="back"))
        assert (await heard(crowd[2], "back")).name == "ana"
        played_on()


async def heard(c: Client, text: str) -> m.ChatMessage:
    """The chat line ``text`` as ``c`` hears it."""
    while True:
        said: m.ChatMessage = await c.expect(m.ChatMessage)
        if said.text == text:
            return said


# --- names and private games ------------------------------------------------------------------


async def test_no_two_seats_of_a_game_read_alike() -> None:
    async with serving() as (_, _, port):
        host = await client(port)
        game = (await create(host, players=3)).game
        names = []
        for asked in ("Ana", " ana ", "ANA"):
            c = await client(port)
            await c.send(m.JoinGame(game=game, name=asked))
            seat = (await c.expect(m.Joined)).seat
            roster = await c.expect(m.Players)
            names.append(next(p.name for p in roster.players if p.seat == seat))
        assert names == ["Ana", "ana (2)", "ANA (3)"]


async def test_a_private_game_seats_only_the_holders_of_its_invite_code() -> None:
    async with serving() as (srv, _, port), another_game(srv, port) as played_on:
        host = await client(port)
        created = await create(host, players=3, private=True)
        assert created.invite is not None
        stranger = await client(port)
        error = await refusal(stranger, m.JoinGame(game=created.game, name="eve"))
        assert error.code == m.ErrorCode.INVITE_REQUIRED and error.game == created.game
        assert "invite code" in error.message
        error = await refusal(
            stranger, m.JoinGame(game=created.game, invite="WRONGCODE1", name="eve")
        )
        assert error.code == m.ErrorCode.INVITE_REQUIRED
        assert srv.rooms[created.game].seated == 0  # nothing changed
        await stranger.send(m.Watch(game=created.game))  # watching takes no seat
        watching = await stranger.expect(m.Joined)
        assert watching.seat is None and watching.invite is None
        await host.send(m.JoinGame(game=created.game, name="host"))  # its creator may
        assert (await host.expect(m.Joined)).seat == 0
        friend = await client(port)
        await friend.send(m.JoinGame(invite=created.invite.lower(), name="bo"))
        seated = await friend.expect(m.Joined)
        assert seated.seat == 1 and seated.invite == created.invite  # a seat may invite
        other = await client(port)
        await other.send(m.JoinGame(game=created.game, invite=created.invite, name="cy"))
        assert (await other.expect(m.Joined)).seat == 2
        played_on()
