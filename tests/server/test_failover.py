"""Two server processes on one PostgreSQL database: each game is played by the one process
holding its lease, and when that process is killed the other takes the game over once the
lease lapses; the players rejoin there with their tokens and the game finishes as an
uninterrupted replay of its actions says."""

from __future__ import annotations

import asyncio
import contextlib

from bots.random_player import RandomAgent
from clients.sdk import Reconnect, play
from clients.tui.link import Link, Seating
from protocol import SUBPROTOCOL_MSGPACK
from protocol import messages as m
from server.app import HexhavenServer
from server.store import Store
from server.verify import verify_game
from tests.server.client import Client
from tests.server.test_play import seated_game
from tests.server.test_restart import (
    finished_as_replayed,
    free_port,
    play_until,
    server_process,
)

TAKEOVER_WAIT = 30.0
"""Seconds the players keep trying to rejoin on the other process (it takes the game over
a few seconds after the lease lapses)."""


async def rejoin(port: int, game: str, token: str) -> Client | m.Error:
    """A connection seated again with ``token``, or the server's refusal."""
    c = await Client.open(port, SUBPROTOCOL_MSGPACK)
    await c.hello()
    await c.send(m.Rejoin(game=game, token=token))
    while True:
        message = await c.recv()
        if isinstance(message, m.Joined):
            return c
        if isinstance(message, m.Error):
            await c.close()
            return message


async def rejoin_when_taken(port: int, game: str, token: str) -> Client:
    """Rejoin on ``port`` as soon as its process plays ``game``."""
    async with asyncio.timeout(TAKEOVER_WAIT):
        while True:
            c = await rejoin(port, game, token)
            if isinstance(c, Client):
                return c
            await asyncio.sleep(0.1)


async def test_a_killed_process_games_are_taken_over_by_the_other(postgres_url: str) -> None:
    """Seat 0 plays from a test client on A, seat 1 from the SDK given B's address: B sends
    it to A (``moved``), and after A's death the SDK comes back through B, which has taken
    the game over; seat 0 rejoins on B by hand."""
    port_a, port_b = free_port(), free_port()
    async with (
        server_process(postgres_url, port_a) as a,
        server_process(postgres_url, port_b),
    ):
        game, players = await seated_game(port_a, SUBPROTOCOL_MSGPACK, players=2)
        tokens = [c.token() for c in players]
        refused = await rejoin(port_b, game, tokens[0])  # A plays it, not B
        assert isinstance(refused, m.Error) and refused.code == m.ErrorCode.MOVED
        assert refused.detail == f"ws://127.0.0.1:{port_a}"
        await players[1].close()
        sdk = asyncio.create_task(
            play(
                RandomAgent(seed=7),
                f"ws://127.0.0.1:{port_b}",
                game,
                token=tokens[1],
                reconnect=Reconnect(attempts=200, give_up_after=TAKEOVER_WAIT),
            )
        )
        await play_until(players[0], game, 0, 40)
        a.kill()  # no goodbye: SIGKILL mid-game, its leases left to lapse
        a.wait(timeout=10)
        with contextlib.suppress(Exception):
            await players[0].close()

        back = await rejoin_when_taken(port_b, game, tokens[0])
        view = (await back.expect(m.GameView)).view
        assert view.state_id >= 40
        over, sdk_over = await asyncio.gather(back.play_randomly(game, 50), sdk)
        await back.close()

    assert sdk_over == over
    assert verify_game(finished_as_replayed(postgres_url, game, over)).ok


async def test_moved_gives_the_url_players_reach_the_process_at(postgres_url: str) -> None:
    a = HexhavenServer(Store(postgres_url), public_url="wss://play.example.org/a/")
    b = HexhavenServer(Store(postgres_url))
    async with a.running("127.0.0.1", 0) as at_a, b.running("127.0.0.1", 0) as at_b:
        game, players = await seated_game(a.port_of(at_a), SUBPROTOCOL_MSGPACK, players=2)
        refused = await rejoin(b.port_of(at_b), game, players[0].token())
        assert isinstance(refused, m.Error) and refused.code == m.ErrorCode.MOVED
        assert refused.detail == "wss://play.example.org/a/"
        for c in players:
            await c.close()
    a.store.close()
    b.store.close()


async def test_the_terminal_client_follows_moved_to_the_server_that_plays_the_game(
    postgres_url: str,
) -> None:
    a = HexhavenServer(Store(postgres_url))
    b = HexhavenServer(Store(postgres_url))
    async with a.running("127.0.0.1", 0) as at_a, b.running("127.0.0.1", 0):
        game, players = await seated_game(a.port_of(at_a), SUBPROTOCOL_MSGPACK, players=2)
        token = players[1].token()
        await players[1].close()
        link = Link(b.url, Seating("rejoin", name="p1", game=game, token=token))
        await link.open()  # B sends it to A, where the seat is taken back
        assert link.at == a.url and link.session.is_seated and link.session.seat == 1
        await link.close()
        await players[0].close()
    a.store.close()
    b.store.close()
