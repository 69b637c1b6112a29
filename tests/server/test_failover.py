"""Two server processes on one PostgreSQL database: each game is played by the one process
holding its lease, and when that process is killed the other takes the game over once the
lease lapses; the players rejoin there with their tokens and the game finishes as an
uninterrupted replay of its actions says."""

from __future__ import annotations

import asyncio
import contextlib

from protocol import SUBPROTOCOL_MSGPACK
from protocol import messages as m
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


async def rejoin(port: int, game: str, token: str) -> Client | None:
    """A connection seated again with ``token``, or None if the server refused."""
    c = await Client.open(port, SUBPROTOCOL_MSGPACK)
    await c.hello()
    await c.send(m.Rejoin(game=game, token=token))
    while True:
        message = await c.recv()
        if isinstance(message, m.Joined):
            return c
        if isinstance(message, m.Error):
            await c.close()
            return None


async def rejoin_when_taken(port: int, game: str, token: str) -> Client:
    """Rejoin on ``port`` as soon as its process plays ``game``."""
    async with asyncio.timeout(TAKEOVER_WAIT):
        while True:
            c = await rejoin(port, game, token)
            if c is not None:
                return c
            await asyncio.sleep(0.1)


async def test_a_killed_process_games_are_taken_over_by_the_other(postgres_url: str) -> None:
    port_a, port_b = free_port(), free_port()
    async with (
        server_process(postgres_url, port_a) as a,
        server_process(postgres_url, port_b),
    ):
        game, players = await seated_game(port_a, SUBPROTOCOL_MSGPACK, players=2)
        tokens = [c.token() for c in players]
        assert await rejoin(port_b, game, tokens[0]) is None  # A plays it, not B
        await asyncio.wait(
            [asyncio.create_task(play_until(c, game, i, 60)) for i, c in enumerate(players)],
            return_when=asyncio.FIRST_COMPLETED,
        )
        a.kill()  # no goodbye: SIGKILL mid-game, its leases left to lapse
        a.wait(timeout=10)
        for c in players:
            with contextlib.suppress(Exception):
                await c.close()

        back = [await rejoin_when_taken(port_b, game, token) for token in tokens]
        view = (await back[0].expect(m.GameView)).view
        assert view.state_id >= 60
        overs = await asyncio.gather(*(c.play_randomly(game, 50 + i) for i, c in enumerate(back)))
        for c in back:
            await c.close()

    assert verify_game(finished_as_replayed(postgres_url, game, overs[0])).ok
