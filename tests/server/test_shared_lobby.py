"""Two server processes on one PostgreSQL database share one lobby and one set of invite
codes: a public game opened on either is listed on both, in one order that pages alike
everywhere, and an invite code given out by one seats its player there when used at the
other (``moved``, followed by the SDK and the terminal client)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import cast

from bots.random_player import RandomAgent
from clients.sdk import play
from clients.tui.link import Link, Seating
from protocol import SUBPROTOCOL_MSGPACK
from protocol import messages as m
from protocol.server_session import Budgets, Rate
from server.app import HexhavenServer
from server.limits import ServerLimits
from server.lobby import SharedLobby
from server.store import Listed, Store
from tests.server.client import Client
from tests.server.test_restart import free_port, server_process

WAIT = 15.0
"""Seconds a test waits for a change made on one process to show on the other."""
LISTS = (
    *("--limit", "game_lists=6000/100", "--limit", "address.game_lists=6000/100"),
    *("--limit", "unstarted_per_connection=10", "--limit", "unstarted_per_address=20"),
)
"""Room for a test that asks for the lobby again until a change shows, and leaves games
unstarted."""


async def connected(port: int) -> Client:
    c = await Client.open(port, SUBPROTOCOL_MSGPACK)
    await c.hello()
    return c


async def created(c: Client, **options: object) -> m.GameCreated:
    await c.send(m.CreateGame(options=m.GameOptions.model_validate(options)))
    made: m.GameCreated = await c.expect(m.GameCreated)
    return made


async def lobby(c: Client, limit: int) -> tuple[list[m.GameSummary], int]:
    """Every game the lobby lists, read a page of ``limit`` at a time, and the pages."""
    games: list[m.GameSummary] = []
    after = None
    pages = 0
    while True:
        await c.send(m.ListGames(after=after, limit=limit))
        got: m.GameList = await c.expect(m.GameList)
        pages += 1
        games.extend(got.games)
        if got.next is None:
            return games, pages
        after = got.next


async def lobby_when(
    c: Client, limit: int, shows: Callable[[list[m.GameSummary]], bool]
) -> list[m.GameSummary]:
    """The lobby as soon as ``shows`` holds of it (asked again until then)."""
    async with asyncio.timeout(WAIT):
        while True:
            games, _ = await lobby(c, limit)
            if shows(games):
                return games
            await asyncio.sleep(0.05)


async def test_public_games_of_both_processes_are_listed_in_one_order(postgres_url: str) -> None:
    port_a, port_b = free_port(), free_port()
    async with (
        server_process(postgres_url, port_a, *LISTS),
        server_process(postgres_url, port_b, *LISTS),
    ):
        at_a, at_b = await connected(port_a), await connected(port_b)
        order = [
            (await created(at_a, name="a1")).game,
            (await created(at_b, name="b1")).game,
            (await created(at_a, name="a2")).game,
            (await created(at_b, name="b2")).game,
        ]
        hidden = await created(at_a, name="secret", private=True)
        for c in (at_a, at_b):  # each lists its own new games at once, the other's too
            games, pages = await lobby(c, limit=3)
            assert [g.game for g in games] == order and pages == 2
            assert [g.name for g in games] == ["a1", "b1", "a2", "b2"]
            assert hidden.game not in [g.game for g in games]
        games, pages = await lobby(at_b, limit=1)
        assert [g.game for g in games] == order and pages == 4

        guest = await connected(port_b)  # a game listed on B and played on A: B says so
        await guest.send(m.JoinGame(game=order[0], name="guest"))
        refused = await guest.expect(m.Error)
        assert (refused.code, refused.detail, refused.game) == (
            m.ErrorCode.MOVED,
            f"ws://127.0.0.1:{port_a}",
            order[0],
        )
        there = await connected(port_a)
        await there.send(m.JoinGame(game=order[0], name="guest"))
        assert (await there.expect(m.Joined)).game == order[0]
        games = await lobby_when(at_b, 2, lambda gs: gs[0].seated == 1)  # B learns of the seat
        assert [g.game for g in games] == order and [g.seated for g in games] == [1, 0, 0, 0]
        for c in (at_a, at_b, guest, there):
            await c.close()


async def test_an_invite_code_from_one_process_seats_the_sdk_at_it(postgres_url: str) -> None:
    """The SDK is given B's address and A's invite code: B finds the code in the database
    and sends it to A, where it takes the seat and plays the game out. A wrong code at B
    is unknown there as anywhere."""
    port_a, port_b = free_port(), free_port()
    async with server_process(postgres_url, port_a), server_process(postgres_url, port_b):
        host = await connected(port_a)
        made = await created(host, players=2, private=True)
        assert made.invite is not None
        await host.send(m.JoinGame(game=made.game, name="host"))
        await host.expect(m.Joined)

        guesser = await connected(port_b)
        await guesser.send(m.JoinGame(invite="WRONGCODE2", name="eve"))
        wrong = await guesser.expect(m.Error)
        assert (wrong.code, wrong.game) == (m.ErrorCode.UNKNOWN_GAME, None)
        await guesser.close()

        sdk = asyncio.create_task(
            play(RandomAgent(seed=5), f"ws://127.0.0.1:{port_b}", invite=made.invite.lower())
        )
        async with asyncio.timeout(WAIT):
            while True:  # the SDK sits down at A: its host hears of it
                roster: m.Players = await host.expect(m.Players)
                if any(p.seat == 1 and p.name == "random" for p in roster.players):
                    break
        await host.send(m.StartGame(game=made.game))
        over, sdk_over = await asyncio.gather(host.play_randomly(made.game, 0), sdk)
        assert sdk_over == over and over.winner is not None
        await host.close()


async def test_the_terminal_client_joins_by_an_invite_code_of_the_other_process(
    postgres_url: str,
) -> None:
    """An invite code used at B, which does not play its game, is answered ``moved`` and
    taken there; guesses at B spend the joins budget as anywhere, right or wrong."""
    a = HexhavenServer(Store(postgres_url))
    limits = ServerLimits(budgets=Budgets(joins=Rate(per_minute=1, burst=3)))
    b = HexhavenServer(Store(postgres_url), limits=limits)
    async with a.running("127.0.0.1", 0) as at_a, b.running("127.0.0.1", 0) as at_b:
        host = await connected(a.port_of(at_a))
        made = await created(host, players=3, private=True)
        assert made.invite is not None

        link = Link(b.url, Seating("join", name="ana", invite=made.invite))
        await link.open()
        assert link.at == a.url and link.session.is_seated and link.session.game == made.game
        await link.close()

        guesser = await connected(b.port_of(at_b))
        for guess in ("AAAAAAAAAA", "BBBBBBBBBB"):
            await guesser.send(m.JoinGame(invite=guess, name="eve"))
            assert (await guesser.expect(m.Error)).code == m.ErrorCode.UNKNOWN_GAME
        await guesser.send(m.JoinGame(invite=made.invite, name="eve"))
        assert (await guesser.expect(m.Error)).code == m.ErrorCode.MOVED
        await guesser.send(m.JoinGame(invite=made.invite, name="eve"))
        refused = await guesser.expect(m.Error)
        assert (refused.code, refused.detail) == (m.ErrorCode.LIMIT_REACHED, "joins")
        for c in (host, guesser):
            await c.close()
    a.store.close()
    b.store.close()


async def test_a_game_leaves_every_lobby_when_closed_and_keeps_its_place_when_taken_over(
    postgres_url: str,
) -> None:
    """A game closed on A (everyone left it) goes from B's lobby; A's other games, taken
    over by B when A stops, come back in their places there."""
    lists = Budgets(game_lists=Rate(per_minute=6000, burst=100))
    limits = ServerLimits(budgets=lists, address_budgets=lists, unstarted_per_address=10)
    a = HexhavenServer(Store(postgres_url), idle_timeout=0.3, limits=limits)
    b = HexhavenServer(Store(postgres_url), limits=limits)
    async with b.running("127.0.0.1", 0) as at_b:
        at_b_port = b.port_of(at_b)
        watcher = await connected(at_b_port)
        async with a.running("127.0.0.1", 0) as at_a:
            host, leaver = await connected(a.port_of(at_a)), await connected(a.port_of(at_a))
            guest = await connected(at_b_port)
            order = [
                (await created(host, name="a1")).game,
                (await created(guest, name="b1")).game,
                (await created(leaver, name="gone")).game,
                (await created(host, name="a2")).game,
            ]
            for c, game in ((host, order[0]), (leaver, order[2]), (host, order[3])):
                await c.send(m.JoinGame(game=game, name="p"))  # a game nobody is in closes
                await c.expect(m.Joined)
            await lobby_when(watcher, 2, lambda gs: [g.game for g in gs] == order)
            await leaver.close()  # nobody is in its game now: A closes it
            kept = [order[0], order[1], order[3]]
            await lobby_when(watcher, 2, lambda gs: [g.game for g in gs] == kept)
            await host.close()
        # A stopped, its leases given up: B takes its games over and lists them as before
        games = await lobby_when(
            watcher,
            2,
            lambda gs: [g.game for g in gs] == kept and {kept[0], kept[2]} <= set(b.rooms),
        )
        assert [g.name for g in games] == ["a1", "b1", "a2"]
        await watcher.send(m.JoinGame(game=kept[0], name="w"))
        assert (await watcher.expect(m.Joined)).game == kept[0]  # played at B now
        for c in (watcher, guest):
            await c.close()
    a.store.close()
    b.store.close()


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class _CountingStore:
    """What the shared lobby uses of a store, counting its reads of the lobby; a read
    waits for :attr:`go`, so callers can pile up behind it."""

    def __init__(self) -> None:
        self.reads = 0
        self.asked = asyncio.Event()
        self.go = asyncio.Event()

    async def call(self, fn: Callable[[float], list[Listed]], now: float) -> list[Listed]:
        self.asked.set()
        await self.go.wait()
        return fn(now)

    def lobby(self, now: float) -> list[Listed]:
        self.reads += 1
        return []


async def test_the_shared_lobby_is_read_once_for_the_requests_of_a_moment() -> None:
    store, clock = _CountingStore(), _Clock()
    shared = SharedLobby(cast(Store, store), fresh=1.0, clock=clock)
    assert shared.current() is None
    crowd = [asyncio.create_task(shared.read()) for _ in range(20)]
    await store.asked.wait()
    shared.changed()  # a game opened here while the first read is under way...
    store.go.set()
    assert await asyncio.gather(*crowd) == [[]] * 20
    assert store.reads == 2  # ...is read once more, for all who asked meanwhile
    assert shared.current() == []
    clock.now = 0.9
    await shared.read()
    assert store.reads == 2 and shared.current() == []
    clock.now = 1.0  # too old: read again
    assert shared.current() is None
    await shared.read()
    assert store.reads == 3
    shared.changed()
    assert shared.current() is None
    await shared.read()
    assert store.reads == 4
