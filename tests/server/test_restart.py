"""A server killed mid-game and restarted on its database (SQLite, and a real PostgreSQL
server) finishes the game as if nothing had happened; the finished game verifies against
its seed."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

from websockets.exceptions import ConnectionClosed

import engine
from protocol import SUBPROTOCOL_MSGPACK
from protocol import messages as m
from protocol.options import game_config
from server.store import Store, StoredGame
from server.verify import verify_game
from tests.server.client import Client
from tests.server.test_play import seated_game

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 60.0
"""How long a server (and its database) may take to answer before the test fails as hung."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.asynccontextmanager
async def server_process(
    db: Path | str, port: int, *options: str
) -> AsyncIterator[subprocess.Popen[bytes]]:
    """``hexhaven serve`` on ``port`` and ``db`` (with more ``options``) as its own
    process, once it answers; stopped with SIGTERM at the end."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port), "--db", str(db), *options],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        async with asyncio.timeout(START_TIMEOUT):
            while True:
                assert proc.poll() is None, "the server exited as it started"
                try:
                    c = await Client.open(port)
                    await c.close()
                    break
                except OSError:
                    await asyncio.sleep(0.1)  # polled until it answers
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=10)


def finished_as_replayed(db: Path | str, game: str, over: m.GameOver) -> StoredGame:
    """The stored game, checked: finished, and ended as a replay of its stored actions says
    (winner and points as the players were told)."""
    store = Store(db)
    stored = store.load(game)
    store.close()
    assert stored is not None and stored.finished
    state, _ = engine.replay(game_config(stored.options), stored.seed, stored.actions)
    assert state.is_over and state.winner == over.winner
    assert [state.victory_points(q) for q in range(state.n)] == over.points
    return stored


async def rejoin(c: Client, game: str, token: str) -> m.Joined:
    """Take the seat back; on PostgreSQL a restarted server plays the game only once the killed
    one's lease has lapsed (until then it answers ``moved`` or ``moving``: ask again)."""
    while True:
        await c.send(m.Rejoin(game=game, token=token))
        while True:
            message = await c.recv()
            if isinstance(message, m.Joined):
                return message
            if isinstance(message, m.Error):
                assert message.code == m.ErrorCode.MOVED or message.detail == "moving", message
                break
        await asyncio.sleep(0.2)  # polled until the lease lapses (seconds)


async def play_until(c: Client, game: str, seed: int, stop_at: int) -> None:
    """Play randomly until the game reaches ``stop_at`` actions or the server goes away."""
    import random

    rnd = random.Random(seed)
    with contextlib.suppress(ConnectionClosed):
        while True:
            message = await c.recv()
            if isinstance(message, m.Events) and message.state_id >= stop_at:
                return
            if isinstance(message, m.Prompt):
                action = rnd.choice(message.actions)
                await c.send(m.Act(game=game, state_id=message.state_id, action=action))


async def test_killed_server_resumes_and_the_game_verifies(db: str) -> None:
    port = free_port()
    async with server_process(db, port) as proc:
        game, clients = await seated_game(port, SUBPROTOCOL_MSGPACK)
        tokens = [c.token() for c in clients]
        await asyncio.wait(
            [asyncio.create_task(play_until(c, game, i, 150)) for i, c in enumerate(clients)],
            return_when=asyncio.FIRST_COMPLETED,
        )
        proc.kill()  # no goodbye: SIGKILL mid-game
        proc.wait(timeout=10)
        for c in clients:
            with contextlib.suppress(Exception):
                await c.close()

    async with server_process(db, port):
        back = [await Client.open(port) for _ in range(4)]
        for c, token in zip(back, tokens, strict=True):
            await c.hello()
            await rejoin(c, game, token)
            view = (await c.expect(m.GameView)).view
            assert view.state_id >= 150
        overs = await asyncio.gather(*(c.play_randomly(game, 100 + i) for i, c in enumerate(back)))
        for c in back:
            await c.close()

    stored = finished_as_replayed(db, game, overs[0])
    verdict = verify_game(stored)
    assert verdict.ok, verdict.problems
    assert verdict.rolls > 0

    # The command-line check agrees, and a tampered record is caught.
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "verify", game, "--db", db],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "rolls match" in done.stdout
    store = Store(db)
    store._execute("UPDATE actions SET dice='[6, 6]' WHERE game=? AND dice IS NOT NULL", (game,))
    tampered = store.load(game)
    store.close()
    assert tampered is not None and not verify_game(tampered).ok


async def test_sigterm_closes_connections_going_away_and_exits(tmp_path: Path) -> None:
    port = free_port()
    async with server_process(tmp_path / "games.db", port) as proc:
        c = await Client.open(port)
        await c.hello()
        proc.send_signal(signal.SIGTERM)
        try:
            while True:
                await c.recv()
        except ConnectionClosed as closed:
            assert closed.rcvd is not None and closed.rcvd.code == 1001
        assert proc.wait(timeout=10) == 0


async def test_a_restarted_server_plays_its_bot_seats_again(db: str) -> None:
    """The store keeps only the hashes of the bot seats' tokens, so after a restart each
    bot seat's process is started with a fresh token (its hash stored in place of the old
    one); the bots play on, and the person comes back with the token they hold."""
    port = free_port()
    async with server_process(db, port) as proc:
        me = await Client.open(port)
        await me.hello()
        options = m.GameOptions(players=3, bots=[m.BotSeat(kind="random")] * 2)
        await me.send(m.CreateGame(options=options))
        game = (await me.expect(m.GameCreated)).game
        await me.send(m.JoinGame(game=game, name="me"))
        token = (await me.expect(m.Joined)).token
        assert token is not None
        await me.send(m.StartGame(game=game))
        await play_until(me, game, 1, 40)
        proc.kill()  # no goodbye: SIGKILL mid-game
        proc.wait(timeout=10)
        with contextlib.suppress(Exception):
            await me.close()
    store = Store(db)
    before = store.load(game)
    store.close()
    assert before is not None and not before.finished

    async with server_process(db, port):
        back = await Client.open(port)
        await back.hello()
        assert (await rejoin(back, game, token)).token == token
        over = await back.play_randomly(game, 8)
        assert over.winner is not None
        rosters = [x.players for x in back.received if isinstance(x, m.Players)]
        assert any(all(p.connected for p in r if p.bot) for r in rosters)
        await back.close()

    store = Store(db)
    after = store.load(game)
    store.close()
    assert after is not None and after.finished
    assert len(after.actions) > len(before.actions) >= 40
    for seat in (1, 2):  # the bot seats: played again, with tokens the old run never had
        assert after.seats[seat][2] == "random"
        assert after.seats[seat][0] != before.seats[seat][0]
    assert after.seats[0] == before.seats[0]
