"""The ways :func:`clients.sdk.play` takes a seat, as docs/agents.md shows them."""

from __future__ import annotations

import asyncio

import pytest

from bots.random_player import RandomAgent
from clients.sdk import play
from tests.agents.helpers import GAME_TIMEOUT, Served, open_game, start_and_watch, wait_seated


@pytest.mark.parametrize(
    ("game", "token"),
    [(None, None), ("", None), (None, "t-1"), ("", "t-1")],
    ids=["nothing", "empty game", "token alone", "token, empty game"],
)
async def test_play_without_an_invite_or_a_game_says_so_before_connecting(
    game: str | None, token: str | None
) -> None:
    with pytest.raises(ValueError, match="play: "):
        await play(RandomAgent(1), "ws://127.0.0.1:9", game, token=token)


async def test_the_old_call_with_an_empty_game_and_an_invite_still_plays(served: Served) -> None:
    """Callers that passed "" as the game to join by invite (hexhaven bot) keep working."""
    host, created = await open_game(served.port)
    task = asyncio.create_task(play(RandomAgent(1), served.url, "", invite=created.invite))
    try:
        await wait_seated(served, created.game, 1)
        over = await start_and_watch(host, created.game)
        result = await asyncio.wait_for(task, GAME_TIMEOUT)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert result is not None and result.winner == over.winner
    await host.close()
