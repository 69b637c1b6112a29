"""``hexhaven mcp``: an MCP client from the official SDK starts it as a subprocess and plays
its seat through whole games against a bot on a real server, choosing among the offered
actions with a seeded rule (no model, no network)."""

from __future__ import annotations

import asyncio
import os
import random
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import TextContent

from clients.narrate import cards_text
from protocol import SUBPROTOCOL_JSON
from protocol import messages as m
from tests.agents.helpers import GAME_TIMEOUT, REPO, Served, wait_seated
from tests.server.client import Client

_ID = re.compile(r"^(\d+\.\d+): (.*)$", re.MULTILINE)
_SECRET = re.compile(
    r"\b(brick|lumber|wool|grain|ore|knight|victory point|road building|year of plenty|"
    r"monopoly)\b"
)


async def _create(port: int, **options: object) -> tuple[Client, m.GameCreated]:
    """A host connection and a new private 2-player game to 3 points, seat 1 a bot."""
    host = await Client.open(port, SUBPROTOCOL_JSON)
    await host.hello()
    opts = m.GameOptions(
        players=2,
        victory_points=3,
        private=True,
        bots=[m.BotSeat(kind="heuristic")],
        **options,  # type: ignore[arg-type]
    )
    await host.send(m.CreateGame(options=opts))
    return host, await host.expect(m.GameCreated)


@asynccontextmanager
async def _mcp(served: Served, *args: str) -> AsyncIterator[ClientSession]:
    """An MCP client session with ``python -m app.cli mcp --url URL ARGS...``."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "app.cli", "mcp", f"--url={served.url}", *args],
        cwd=str(REPO),
        env=dict(os.environ),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def _call(session: ClientSession, tool: str, **arguments: object) -> tuple[bool, str]:
    """Whether the tool refused, and the text it answered."""
    result = await session.call_tool(tool, arguments)
    texts = [c.text for c in result.content if isinstance(c, TextContent)]
    return result.isError, "\n".join(texts)


async def _watch_and_start(host: Client, game: str) -> m.GameOver:
    await host.send(m.Watch(game=game))
    await host.send(m.StartGame(game=game))
    while True:
        message = host.codec.decode_server(await host.ws.recv())
        if isinstance(message, m.GameOver):
            return message


def _choose(listed: str, rng: random.Random) -> str:
    """The id of a listed action by a seeded rule: build when possible, roll when asked,
    otherwise a random one, ending the turn half the time it may."""
    actions: list[tuple[str, str]] = _ID.findall(listed)
    assert actions, listed
    for word in ("city", "settlement"):
        builds = [i for i, text in actions if f"Build a {word}" in text]
        if builds:
            return rng.choice(builds)
    for i, text in actions:
        if text == "Roll the dice" or (text == "End your turn" and rng.random() < 0.5):
            return i
    return rng.choice(actions)[0]


async def test_a_model_seat_plays_a_whole_game_and_sees_only_its_own_cards(
    served: Served,
) -> None:
    host, created = await _create(served.port)
    game = created.game
    rng = random.Random(5)
    async with _mcp(served, f"--invite={created.invite}", "--name=model") as session:
        tools = {t.name for t in (await session.list_tools()).tools}
        assert {"position", "legal_actions", "act", "offer_trade", "counter_offer", "chat"} <= (
            tools
        ) and "wait_for_turn" in tools
        rules = await session.read_resource("hexhaven://rules")  # type: ignore[arg-type]
        assert "settlement" in str(rules.contents[0])
        await wait_seated(served, game, 1)
        watching = asyncio.create_task(_watch_and_start(host, game))
        room = served.server.rooms[game]
        checked_bad = False
        acted = 0
        async with asyncio.timeout(GAME_TIMEOUT):
            while True:
                refused, news = await _call(session, "wait_for_turn", timeout=30)
                assert not refused, news
                names = [s.name if s is not None else "" for s in room.seats]
                me, bot = names.index("model"), 1 - names.index("model")
                assert not re.search(rf"{names[bot]} bought an? {_SECRET.pattern}", news), news
                if "The game is over" in news:
                    break
                if "It is your move" not in news:
                    continue
                state = room.state
                _, position = await _call(session, "position")
                if f"state {state.actions_taken}," in position:  # the game waits for us
                    hand = cards_text(state.hand_of(me))
                    assert f"Your hand: {hand}." in position, position
                    others = [line for line in position.splitlines() if f"({names[bot]})" in line]
                    assert others and not any(_SECRET.search(line) for line in others), position
                if not checked_bad and "End your turn" in news:
                    checked_bad = True
                    before = room.state.actions_taken
                    for tool, args in (
                        ("act", {"id": "nonsense"}),
                        ("offer_trade", {"give": {"gold": 1}, "get": {"ore": 1}}),
                        ("offer_trade", {"give": {"ore": 19}, "get": {"wool": 1}}),
                        ("offer_trade", {"give": {"ore": 1}, "get": {"ore": 1}}),
                        ("counter_offer", {"give": {"ore": 1}, "get": {"wool": 1}}),
                        ("wait_for_turn", {"timeout": -1}),
                    ):
                        refused, said = await _call(session, tool, **args)
                        assert refused and said and said[0].isupper(), (tool, said)
                    assert room.state.actions_taken == before  # nothing was sent
                    _, listed_again = await _call(session, "legal_actions")
                    assert _ID.findall(listed_again) == _ID.findall(news.split("actions:\n")[1])
                _, listed = await _call(session, "legal_actions")
                refused, sent = await _call(session, "act", id=_choose(listed, rng))
                assert not refused and sent.startswith("Sent:"), sent
                acted += 1
            over = await watching
        _, final = await _call(session, "position")
    assert checked_bad and acted > 5
    assert room.state.is_over and over.winner is not None and not room.away
    assert "The game is over" in final


async def test_a_stalling_model_gets_the_default_and_is_told(served: Served) -> None:
    host, created = await _create(served.port, turn_timer=1.0)
    async with _mcp(served, f"--invite={created.invite}", "--name=model") as session:
        await wait_seated(served, created.game, 1)
        room = served.server.rooms[created.game]
        me = [s.name if s is not None else "" for s in room.seats].index("model")
        watching = asyncio.create_task(_watch_and_start(host, created.game))
        try:
            refused, news = await _call(session, "wait_for_turn", timeout=30)
            assert not refused and "It is your move" in news, news
            async with asyncio.timeout(GAME_TIMEOUT):  # it never acts: the server plays
                while not room.timeouts.get(me):
                    await asyncio.sleep(0.05)
            async with asyncio.timeout(GAME_TIMEOUT):  # the events of the default came
                while True:
                    refused, news = await _call(session, "wait_for_turn", timeout=5)
                    assert not refused, news
                    if "server played the default action for you" in news:
                        break
        finally:
            watching.cancel()
            await asyncio.gather(watching, return_exceptions=True)
