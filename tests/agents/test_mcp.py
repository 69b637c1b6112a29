"""``hexhaven mcp``: an MCP client from the official SDK starts it as a subprocess and plays
its seat through whole games against a bot on a real server, choosing among the offered
actions with a seeded rule (no model, no network)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import TextContent
from pydantic import AnyUrl

from app.cli import main
from clients.mcp import Seat
from clients.narrate import cards_text
from clients.reconnect import Reconnect
from protocol import SUBPROTOCOL_JSON
from protocol import messages as m
from protocol.client_session import JoinSeat
from protocol.payloads import RESOURCE_NAMES
from server.room import GameRoom
from server.store import token_matches
from tests.agents.helpers import (
    GAME_TIMEOUT,
    REPO,
    Proxy,
    Served,
    doc_command,
    wait_seated,
)
from tests.server.client import Client

_ID = re.compile(r"^(\d+-\d+): (.*)$", re.MULTILINE)
_SECRET = re.compile(
    r"\b(brick|lumber|wool|grain|ore|knight|victory point|road building|year of plenty|"
    r"monopoly)\b"
)

_PLAYED = re.compile(r"\d+ knights? played")
"""What everyone sees of a seat's knights."""


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
async def _mcp(argv: list[str], errors: Path | None = None) -> AsyncIterator[ClientSession]:
    """An MCP client session with the server ``argv`` starts (``python -m app.cli mcp
    ...``), its standard error in the file ``errors`` if given (and shown in the test's
    report when the test fails), closed (and so the server ended) on leaving."""
    params = StdioServerParameters(
        command=argv[0], args=argv[1:], cwd=str(REPO), env=dict(os.environ)
    )
    with contextlib.ExitStack() as files:
        errlog = files.enter_context(errors.open("w")) if errors is not None else sys.stderr
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            try:
                yield session
            except BaseException:
                if errors is not None:
                    print(f"--- the MCP server's log:\n{errors.read_text()}", file=sys.stderr)
                raise


def _command(served: Served, *args: str) -> list[str]:
    return [sys.executable, "-m", "app.cli", "mcp", f"--url={served.url}", *args]


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


async def test_a_model_seat_plays_a_whole_game_through_a_cut_and_sees_only_its_own_cards(
    served: Served, tmp_path: Path
) -> None:
    host, created = await _create(served.port)
    game = created.game
    rng = random.Random(5)
    saved = tmp_path / "seat.token"
    async with Proxy(served.port) as proxy:
        url = f"ws://127.0.0.1:{proxy.port}"
        argv = doc_command("hexhaven mcp", url=url, code=str(created.invite), token_file=str(saved))
        async with _mcp([*argv, "--log-level=info"], tmp_path / "mcp.err") as session:
            tools = {t.name for t in (await session.list_tools()).tools}
            assert tools == {
                *("position", "legal_actions", "act", "offer_trade", "counter_offer", "chat"),
                "wait_for_turn",
            }
            rules = await session.read_resource(AnyUrl("hexhaven://rules"))
            assert "settlement" in str(rules.contents[0])
            protocol = await session.read_resource(AnyUrl("hexhaven://protocol"))
            assert "prompt" in str(protocol.contents[0])
            await wait_seated(served, game, 1)
            watching = asyncio.create_task(_watch_and_start(host, game))
            room = served.server.rooms[game]
            checked_bad = offered = False
            acted = 0
            async with asyncio.timeout(GAME_TIMEOUT):
                while True:
                    refused, news = await _call(session, "wait_for_turn", timeout=30)
                    assert not refused, news
                    names = [s.name if s is not None else "" for s in room.seats]
                    me, bot = names.index("model"), 1 - names.index("model")
                    assert not re.search(rf"{names[bot]} bought an? {_SECRET.pattern}", news)
                    if "The game is over" in news:
                        break
                    if "It is your move" not in news:
                        continue
                    state = room.state
                    _, position = await _call(session, "position")
                    if f"state {state.actions_taken}," in position:  # the game waits for us
                        hand = cards_text(state.hand_of(me))
                        assert f"Your hand: {hand}." in position, position
                        others = [
                            line for line in position.splitlines() if f"({names[bot]})" in line
                        ]
                        public = [_PLAYED.sub("", line) for line in others]
                        assert others and not any(_SECRET.search(x) for x in public), position
                    if not checked_bad and "End your turn" in news:
                        checked_bad = True
                        await _refused_without_change(session, room, news)
                        proxy.cut()  # while the game waits for this seat
                        while proxy.connections < 2:
                            await asyncio.sleep(0.02)
                        continue
                    if not offered and "End your turn" in news and any(room.state.hand_of(me)):
                        await _offer(session, room.state.hand_of(me))
                        offered = True
                        continue  # (with an empty hand it acts instead, or it would ask forever)
                    _, listed = await _call(session, "legal_actions")
                    if not _ID.findall(listed):
                        continue  # the connection was cut meanwhile: wait for the seat again
                    refused, sent = await _call(session, "act", id=_choose(listed, rng))
                    if refused and "connect" in sent:
                        continue  # cut as it was sent: asked again once the seat is back
                    assert not refused and sent.startswith("Sent:"), sent
                    acted += 1
                over = await watching
            _, final = await _call(session, "position")
    assert proxy.connections >= 2  # it came back to its seat after the cut
    assert checked_bad and offered and acted > 5
    assert room.state.is_over and over.winner is not None and not room.away
    assert "The game is over" in final
    slot = room.seats[me]  # the way back to the seat, for its owner alone
    assert saved.stat().st_mode & 0o777 == 0o600
    assert slot is not None and token_matches(slot.token_hash, saved.read_text().strip())
    logged = (tmp_path / "mcp.err").read_text()
    assert '"event": "mcp.seated"' in logged and saved.read_text().strip() not in logged
    assert '"event": "mcp.connection_lost"' in logged  # the one reconnect loop brought it back
    assert all(line.startswith("{") for line in logged.splitlines()), logged  # JSON lines


async def _offer(session: ClientSession, hand: tuple[int, ...]) -> None:
    """Offer one card of the most held resource (``hand`` holds one at least) for one of
    another; the offer is sent, and the next answer on the seat's move lists what to do
    with the other's answer."""
    most = max(range(5), key=lambda r: hand[r])
    other = RESOURCE_NAMES[(most + 1) % 5]
    refused, said = await _call(
        session, "offer_trade", give={RESOURCE_NAMES[most]: 1}, get={other: 1}
    )
    assert not refused and said.startswith("Offer sent"), said
    refused, news = await _call(session, "wait_for_turn", timeout=30)
    assert not refused and "offer" in news, news


async def _refused_without_change(session: ClientSession, room: GameRoom, news: str) -> None:
    """Bad arguments on the seat's main phase get a sentence each, and nothing is sent."""
    before = room.state.actions_taken
    for tool, args in (
        ("act", {"id": "nonsense"}),
        ("act", {"id": 5}),
        ("act", {}),
        ("act", {"id": f"{before - 1}-1"}),
        ("offer_trade", {"give": {"gold": 1}, "get": {"ore": 1}}),
        ("offer_trade", {"give": {"ore": 19}, "get": {"wool": 1}}),
        ("offer_trade", {"give": {"ore": 1}, "get": {"ore": 1}}),
        ("offer_trade", {"give": {"ore": -1}, "get": {"wool": 1}}),
        ("offer_trade", {"give": {"ore": 1}, "get": {"wool": 1}, "to": ["nobody"]}),
        ("counter_offer", {"give": {"ore": 1}, "get": {"wool": 1}}),
        ("wait_for_turn", {"timeout": -1}),
        ("chat", {"text": "\x1b[31m"}),
    ):
        refused, said = await _call(session, tool, **args)
        assert refused and said[:1].isupper() and said.endswith("."), (tool, said)
        assert not said.startswith("Error") and "validation" not in said, (tool, said)
    assert room.state.actions_taken == before  # nothing was played
    _, listed_again = await _call(session, "legal_actions")
    assert _ID.findall(listed_again) == _ID.findall(news.split("actions:\n")[1])


async def test_a_stalling_model_gets_the_default_and_is_told(served: Served) -> None:
    host, created = await _create(served.port, turn_timer=1.0)
    async with _mcp(_command(served, f"--invite={created.invite}")) as session:
        await wait_seated(served, created.game, 1)
        room = served.server.rooms[created.game]
        me = [s.name if s is not None else "" for s in room.seats].index("model")
        watching = asyncio.create_task(_watch_and_start(host, created.game))
        try:
            refused, news = await _call(session, "wait_for_turn", timeout=30)
            assert not refused and "It is your move" in news, news
            async with asyncio.timeout(GAME_TIMEOUT):  # it never acts: the server plays
                while not room.away_policy.timeouts.get(me):
                    await asyncio.sleep(0.05)
            told = ""
            async with asyncio.timeout(GAME_TIMEOUT):  # the events of the default came
                while "server played the default action for you" not in told:
                    refused, news = await _call(session, "wait_for_turn", timeout=5)
                    assert not refused, news
                    told += news
            async with asyncio.timeout(GAME_TIMEOUT):  # once more: the seat is away
                while me not in room.away:
                    await asyncio.sleep(0.05)
            async with asyncio.timeout(GAME_TIMEOUT):  # the players' list says so
                while "The server marked your seat away" not in told:
                    told += (await _call(session, "wait_for_turn", timeout=1))[1]
        finally:
            watching.cancel()
            await asyncio.gather(watching, return_exceptions=True)
            await host.close()  # unread, it would hold the server's shutdown to its deadline


async def test_a_seat_is_taken_back_by_its_token_file_and_a_watcher_sees_no_hand(
    served: Served, tmp_path: Path
) -> None:
    host, created = await _create(served.port)
    game = created.game
    saved = tmp_path / "seat.token"
    first = _command(served, f"--invite={created.invite}", f"--save-token={saved}")
    watching: asyncio.Task[m.GameOver] | None = None
    try:
        async with _mcp(first) as session:
            await wait_seated(served, game, 1)
            watching = asyncio.create_task(_watch_and_start(host, game))
            refused, news = await _call(session, "wait_for_turn", timeout=30)
            assert not refused and "It is your move" in news, news
        again = _command(served, f"--game={game}", f"--token-file={saved}")
        async with _mcp(again) as seat, _mcp(_command(served, f"--watch={game}")) as watcher:
            refused, news = await _call(seat, "wait_for_turn", timeout=30)
            assert not refused and "It is your move" in news, news
            _, position = await _call(seat, "position")
            assert "You are seat" in position and "Your hand:" in position
            async with asyncio.timeout(GAME_TIMEOUT):
                while "You are watching." not in (seen := (await _call(watcher, "position"))[1]):
                    await _call(watcher, "wait_for_turn", timeout=1)
            assert "Your hand" not in seen and "development cards:" not in seen
            for tool, args in (("act", {"id": "1-1"}), ("chat", {"text": "hello"})):
                refused, said = await _call(watcher, tool, **args)
                assert refused and ("watching" in said or "no seat" in said), said
    finally:
        if watching is not None:
            watching.cancel()
            await asyncio.gather(watching, return_exceptions=True)


async def test_a_seat_that_cannot_be_had_is_told_in_a_sentence(served: Served) -> None:
    async with _mcp(_command(served, "--invite=NOSUCHCODE")) as session:
        refused, news = await _call(session, "wait_for_turn", timeout=30)
        assert not refused and "The seat is lost: the server refused the seat:" in news, news
        refused, said = await _call(session, "act", id="1-1")
        assert refused and "The seat is lost" in said, said


def test_the_command_takes_a_token_from_a_file_only_with_its_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    token = tmp_path / "seat.token"
    token.write_text("a-secret-token\n")
    url = "ws://127.0.0.1:9"
    assert main(["mcp", f"--url={url}", f"--token-file={token}"]) == 2
    assert "--token-file needs --game" in capsys.readouterr().err
    assert main(["mcp", f"--url={url}", "--game=g", "--token-file=-"]) == 2
    assert "standard input carries the Model Context Protocol" in capsys.readouterr().err
    assert main(["mcp", f"--url={url}", "--invite=C", f"--name={'n' * 40}"]) == 2
    assert "--name: " in capsys.readouterr().err
    assert main(["mcp", f"--url={url}"]) == 2
    assert "give --invite CODE" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # no abbreviations: --token is not --token-file
        main(["mcp", f"--url={url}", "--game=g", "--token=a-secret-token"])


async def test_a_seat_cut_off_comes_back_to_it_through_the_reconnect_loop(served: Served) -> None:
    host, created = await _create(served.port)
    seats: list[tuple[str, int, str]] = []
    async with Proxy(served.port) as proxy:
        seat = Seat(
            f"ws://127.0.0.1:{proxy.port}",
            JoinSeat(name="model", invite=created.invite),
            reconnect=Reconnect(first_delay=0.05),
            on_seated=lambda *taken: seats.append(taken),
        )
        task = asyncio.create_task(seat.run())
        try:
            async with asyncio.timeout(30):
                while not seats:
                    await asyncio.sleep(0.01)
                proxy.cut()
                while len(seats) < 2:  # seated again, on a new connection
                    await asyncio.sleep(0.01)
            assert proxy.connections == 2 and seats[0] == seats[1]
            assert seat.failure is None and seat.client.is_seated
            await wait_seated(served, created.game, 1)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await host.close()
