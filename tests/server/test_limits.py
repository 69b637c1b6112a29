"""The server's caps and budgets, against a real server on 127.0.0.1 with real clients:
each refusal is ``limit_reached`` naming its limit, the connection stays usable, and other
games play on."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from protocol import SUBPROTOCOL_MSGPACK, Codec
from protocol import messages as m
from protocol.server_session import BUDGET_NAMES, Budgets, Limits, Rate
from server.app import HexhavenServer, trusted_proxies
from server.creation import INVITE_LENGTH
from server.limits import ServerLimits
from tests.server.client import Client
from tests.server.wire import Pipe


@asynccontextmanager
async def serving(limits: ServerLimits, proxies: tuple[str, ...] = ()) -> AsyncIterator[int]:
    """A real server on 127.0.0.1 with these limits (and trusted proxies); yields its
    port."""
    srv = HexhavenServer(limits=limits, proxies=trusted_proxies(proxies))
    async with srv.running("127.0.0.1", 0) as ws_server:
        yield srv.port_of(ws_server)


async def client(port: int) -> Client:
    c = await Client.open(port, SUBPROTOCOL_MSGPACK)
    await c.hello()
    return c


async def create(c: Client, **options: Any) -> m.GameCreated | m.Error:
    await c.send(m.CreateGame(options=m.GameOptions(**options)))
    while True:
        reply = await c.recv()
        if isinstance(reply, m.GameCreated | m.Error):
            return reply


def limit_of(reply: object) -> str | None:
    assert isinstance(reply, m.Error), reply
    assert reply.code == m.ErrorCode.LIMIT_REACHED, reply
    assert f"(limit {reply.detail})" in reply.message
    return reply.detail


async def test_unstarted_games_are_capped_per_connection_and_per_address() -> None:
    limits = ServerLimits(unstarted_per_connection=2, unstarted_per_address=3)
    async with serving(limits) as port:
        a, b = await client(port), await client(port)
        first = await create(a, players=2)
        assert isinstance(first, m.GameCreated)
        assert isinstance(await create(a), m.GameCreated)
        assert limit_of(await create(a)) == "unstarted_per_connection"
        assert isinstance(await create(b), m.GameCreated)  # the address's third
        assert limit_of(await create(b)) == "unstarted_per_address"
        # Starting one frees its place: a started game is no longer waiting.
        await a.send(m.JoinGame(game=first.game, name="ana"))
        await a.expect(m.Joined)
        await b.send(m.JoinGame(game=first.game, name="bo"))
        await b.expect(m.Joined)
        await a.send(m.StartGame(game=first.game))
        await a.expect(m.Prompt)
        assert isinstance(await create(a, players=2), m.GameCreated)
        await a.send(m.Ping(nonce=5))
        assert (await a.expect(m.Pong)).nonce == 5


async def test_bot_seats_and_games_are_capped() -> None:
    bot = m.BotSeat(kind="random")
    limits = ServerLimits(
        bot_seats_per_connection=3,
        bot_seats=4,
        games=3,
        unstarted_per_connection=3,
        unstarted_per_address=10,
    )
    async with serving(limits) as port:
        a, b = await client(port), await client(port)
        assert isinstance(await create(a, bots=[bot] * 3), m.GameCreated)
        assert limit_of(await create(a, players=2, bots=[bot])) == "bot_seats_per_connection"
        assert isinstance(await create(a, players=2), m.GameCreated)  # no bots: no bot seats
        assert limit_of(await create(b, bots=[bot] * 2)) == "bot_seats"
        assert isinstance(await create(b, players=2, bots=[bot]), m.GameCreated)
        assert limit_of(await create(b, players=2)) == "games"


async def test_join_attempts_are_budgeted_and_invite_codes_are_long() -> None:
    limits = ServerLimits(budgets=Budgets(joins=Rate(per_minute=1, burst=3)))
    async with serving(limits) as port:
        host, guesser = await client(port), await client(port)
        created = await create(host, private=True)
        assert isinstance(created, m.GameCreated) and created.invite is not None
        assert len(created.invite) == INVITE_LENGTH
        for guess in ("AAAAAAAAAA", "BBBBBBBBBB", "CCCCCCCCCC"):
            await guesser.send(m.JoinGame(invite=guess, name="eve"))
            assert (await guesser.expect(m.Error)).code == m.ErrorCode.UNKNOWN_GAME
        await guesser.send(m.JoinGame(invite=created.invite, name="eve"))
        assert limit_of(await guesser.expect(m.Error)) == "joins"  # even the right code now
        await host.send(m.JoinGame(invite=created.invite.lower(), name="ana"))
        assert (await host.expect(m.Joined)).game == created.game


async def test_game_lists_come_in_pages() -> None:
    async with serving(ServerLimits(unstarted_per_connection=10, unstarted_per_address=10)) as port:
        c = await client(port)
        made = []
        for i in range(5):
            reply = await create(c, name=f"g{i}", private=i == 2)
            assert isinstance(reply, m.GameCreated)
            made.append(reply.game)
        public = [g for i, g in enumerate(made) if i != 2]
        seen: list[str] = []
        after = None
        pages = 0
        while True:
            await c.send(m.ListGames(after=after, limit=2))
            page = await c.expect(m.GameList)
            pages += 1
            seen.extend(s.game for s in page.games)
            if page.next is None:
                break
            after = page.next
        assert seen == public and pages == 2


async def test_the_server_cuts_off_a_connection_stalled_past_its_limit() -> None:
    """A connection whose reader takes nothing is cut off once ``stalled_seconds`` pass
    (here one of the server's own on a stand-in socket), and the server goes on."""
    srv = HexhavenServer(limits=ServerLimits(stalled_seconds=1))
    async with srv.running("127.0.0.1", 0) as listener:
        pipe = Pipe(conn=srv._connection())
        pipe.hello()
        pipe.conn.send(m.ChatMessage(game="g", seat=None, name="spectator", text="hello"))
        async with asyncio.timeout(10):
            while not pipe.transport.aborted:
                await asyncio.sleep(0.05)
        assert pipe.conn.closing and pipe.conn not in srv.router.connections
        c = await client(srv.port_of(listener))  # others are served as before
        await c.send(m.ListGames())
        assert isinstance(await c.expect(m.GameList), m.GameList)
        await c.close()


def test_limits_are_set_by_name() -> None:
    limits = ServerLimits().with_settings(
        {"games": "50", "chat": "10/3", "address.joins": "40/8", "rate": "20", "max_frame": "1024"}
    )
    assert limits.games == 50 and limits.chat_per_game == ServerLimits().chat_per_game
    assert limits.budgets.chat == Rate(10, 3) and limits.address_budgets.joins == Rate(40, 8)
    assert limits.connection.rate == 20 and limits.connection.max_frame == 1024
    for settings, problem in (
        ({"gmaes": "5"}, "no limit 'gmaes'"),
        ({"games": "many"}, "takes a whole number"),
        ({"chat": "10"}, "PER_MINUTE/BURST"),
        ({"chat": "0/3"}, "must be above 0"),
        ({"games": "-1"}, "cannot be negative"),
    ):
        with pytest.raises(ValueError, match=problem):
            ServerLimits().with_settings(settings)


async def test_chat_is_cleaned_and_open_to_spectators_only_if_allowed() -> None:
    limits = ServerLimits(chat_per_speaker=4, budgets=Budgets(chat=Rate(600, 100)))
    async with serving(limits) as port:
        ana, bo, eve, stranger = [await client(port) for _ in range(4)]
        created = await create(ana, players=2)
        assert isinstance(created, m.GameCreated)
        for c, name in ((ana, "ana"), (bo, "bo")):
            await c.send(m.JoinGame(game=created.game, name=name))
            await c.expect(m.Joined)
        await eve.send(m.Watch(game=created.game))
        await eve.expect(m.Joined)
        await ana.send(m.StartGame(game=created.game))
        prompt = await ana.expect(m.Prompt)
        for c, refusal in ((eve, "spectators do not chat"), (stranger, "join or watch it first")):
            await c.send(m.Chat(game=created.game, text="let me in"))
            error = await c.expect(m.Error)
            assert error.code == m.ErrorCode.NOT_A_PLAYER and refusal in error.message
        await ana.send_raw(
            Codec(SUBPROTOCOL_MSGPACK).encode(
                m.Chat.model_construct(game=created.game, text="\x1b[2Jgood\u202e luck\x00")
            )
        )
        said = await bo.expect(m.ChatMessage)
        assert said.text == "good luck" and said.name == "ana"
        await bo.send(m.Chat(game=created.game, text="thanks"))
        await ana.send(m.Chat(game=created.game, text="go"))
        await ana.send(m.Chat(game=created.game, text="one too many"))  # 2 at once: 4 a minute
        assert limit_of(await ana.expect(m.Error)) == "chat_per_speaker"
        # The game itself goes on.
        await ana.send(m.Act(game=created.game, state_id=prompt.state_id, action=prompt.actions[0]))
        assert (await bo.expect(m.Events)).state_id == prompt.state_id + 1


async def test_spectators_chat_where_the_host_allows_it() -> None:
    async with serving(ServerLimits()) as port:
        ana, eve = await client(port), await client(port)
        created = await create(ana, players=2, spectator_chat=True)
        assert isinstance(created, m.GameCreated)
        await ana.send(m.JoinGame(game=created.game, name="ana"))
        await ana.expect(m.Joined)
        await eve.send(m.Watch(game=created.game))
        await eve.expect(m.Joined)
        await eve.send(m.Chat(game=created.game, text="hello from the stands"))
        said = await ana.expect(m.ChatMessage)
        assert said.seat is None and said.text == "hello from the stands"


async def test_behind_a_trusted_proxy_each_forwarded_address_has_its_own_limits() -> None:
    limits = ServerLimits(unstarted_per_connection=5, unstarted_per_address=1)

    async def creates(port: int, forwarded: str) -> m.GameCreated | m.Error:
        c = await Client.open(port, headers={"X-Forwarded-For": forwarded})
        await c.hello()
        return await create(c)

    # The server's peer (127.0.0.1) is the proxy: the address it appended counts, not one
    # a client wrote before it.
    async with serving(limits, proxies=("127.0.0.0/8",)) as port:
        assert isinstance(await creates(port, "203.0.113.5"), m.GameCreated)
        assert isinstance(await creates(port, "203.0.113.6"), m.GameCreated)
        assert limit_of(await creates(port, "198.51.100.1, 203.0.113.5")) == (
            "unstarted_per_address"
        )
    # Without a trusted proxy the header is nobody's word: one address for everyone.
    async with serving(limits) as port:
        assert isinstance(await creates(port, "203.0.113.5"), m.GameCreated)
        assert limit_of(await creates(port, "203.0.113.6")) == "unstarted_per_address"


def test_a_trusted_proxy_is_an_address_or_a_network() -> None:
    assert len(trusted_proxies(["10.0.0.0/8", "::1", "192.0.2.7"])) == 3
    with pytest.raises(ValueError, match="is not an IP address or network"):
        trusted_proxies(["proxy.example"])


def test_the_protocol_docs_name_every_limit_serve_takes() -> None:
    """``hexhaven serve --limit NAME=VALUE`` points to docs/protocol.md for the names: each
    is there, in backquotes."""
    docs = (Path(__file__).parents[2] / "docs" / "protocol.md").read_text(encoding="utf-8")
    counts = [f.name for f in dataclasses.fields(ServerLimits) if f.type in ("int", int)]
    names = [*counts, *BUDGET_NAMES, *(f.name for f in dataclasses.fields(Limits))]
    assert [name for name in names if f"`{name}`" not in docs] == []
