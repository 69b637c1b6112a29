"""How long the games of a killed server process take to be played again by another process
on the same PostgreSQL database, and whether any action its players saw acknowledged is
lost.

Run it from the repository root (about half a minute)::

    .venv/bin/python benchmarks/failover.py
    .venv/bin/python benchmarks/failover.py --games 16 --play-seconds 5 --db postgresql://...

Without ``--db`` a PostgreSQL server of its own is started in a temporary folder (pgserver,
from the ``test`` extra). Two ``hexhaven serve`` processes, A and B, run on the database, on
127.0.0.1. ``--games`` four-player games are created on A, each from a loopback address of
its own (the server's per-address limits would otherwise see one person), and their
players, four websocket clients each, answer every prompt with a random listed action after
``--think-ms``. After ``--play-seconds`` A is killed with SIGKILL. Each player then tries to
rejoin its seat on B with its token every 50 ms until B takes the game (it does once A's
leases lapse). For each game the benchmark notes when all its players were seated again.
It also notes the last state whose events a player of the game had received from A
(acknowledged: stored, since events leave only after their action is) and the state B's
view of the game starts from.

The last line is ``failover_s: X lost_actions: N``:

- X is the seconds from the kill until every game still under way had all its players
  seated on B.
- N is the acknowledged actions missing from B's games, summed over the games.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _postgres import own_postgres  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402
from websockets.typing import Subprotocol  # noqa: E402

from protocol import SUBPROTOCOL_MSGPACK, Codec  # noqa: E402
from protocol import messages as m  # noqa: E402
from protocol.payloads import WireModel  # noqa: E402

PLAYERS = 4
REJOIN_EVERY = 0.05
GIVE_UP = 60.0
"""Seconds after the kill the players stop trying to rejoin."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.contextmanager
def _postgres(url: str | None) -> Iterator[str]:
    """``url``, or a PostgreSQL server of this run's own (stopped at the end)."""
    if url is not None:
        yield url
        return
    with own_postgres() as own:
        yield own


@contextlib.contextmanager
def _serving(db: str, port: int) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port), "--db", db,
         "--log-level", "warning"],
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        until = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > until or proc.poll() is not None:
                    raise RuntimeError("a server did not start") from None
                time.sleep(0.05)
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


class Player:
    """One seat of one game, over its own connection."""

    def __init__(self, ws: ClientConnection, seed: int) -> None:
        self.ws = ws
        self.codec = Codec(SUBPROTOCOL_MSGPACK)
        self.rnd = random.Random(seed)
        self.acknowledged = 0
        """The last state whose events this player received."""
        self.over = False

    @classmethod
    async def open(cls, port: int, seed: int, game: int) -> Player:
        """A player of the ``game``-th game, connected from that game's own address."""
        ws = await connect(
            f"ws://127.0.0.1:{port}",
            subprotocols=[Subprotocol(SUBPROTOCOL_MSGPACK)],
            local_addr=(f"127.1.{game // 250}.{game % 250 + 1}", 0),
        )
        player = cls(ws, seed)
        await player.send(m.Hello(protocol=m.PROTOCOL_VERSION, client="failover"))
        await player.next(m.Welcome)
        return player

    async def send(self, message: WireModel) -> None:
        await self.ws.send(self.codec.encode(message))

    async def next(self, *kinds: type) -> object:
        """The next message of one of ``kinds``; raises on an ``error`` not asked for."""
        while True:
            message = self.codec.read_server(await self.ws.recv())
            if isinstance(message, m.Events):
                self.acknowledged = max(self.acknowledged, message.state_id)
            if isinstance(message, kinds):
                return message
            if isinstance(message, m.Error) and message.code != m.ErrorCode.STALE_STATE:
                raise RuntimeError(f"the server refused: {message.code}: {message.message}")

    async def play(self, game: str, think: float) -> None:
        """Answer every prompt with a random listed action, ``think`` seconds after it,
        until the game ends or the connection goes."""
        with contextlib.suppress(ConnectionClosed):
            while True:
                message = await self.next(m.Prompt, m.GameOver)
                if isinstance(message, m.GameOver):
                    self.over = True
                    return
                assert isinstance(message, m.Prompt)
                if message.actions:
                    await asyncio.sleep(think)
                    action = self.rnd.choice(message.actions)
                    await self.send(m.Act(game=game, state_id=message.state_id, action=action))


@dataclass
class Game:
    id: str
    number: int
    tokens: list[str]
    players: list[Player]


async def _start_game(port: int, number: int) -> Game:
    players = [await Player.open(port, PLAYERS * number + i, number) for i in range(PLAYERS)]
    await players[0].send(m.CreateGame(options=m.GameOptions(players=PLAYERS)))
    created = await players[0].next(m.GameCreated)
    assert isinstance(created, m.GameCreated)
    tokens = []
    for i, p in enumerate(players):
        await p.send(m.JoinGame(game=created.game, name=f"p{i}"))
        joined = await p.next(m.Joined)
        assert isinstance(joined, m.Joined) and joined.token is not None
        tokens.append(joined.token)
    await players[0].send(m.StartGame(game=created.game))
    return Game(created.game, number, tokens, players)


async def _rejoin(port: int, game: Game, token: str, seed: int) -> tuple[Player, int]:
    """Rejoin on ``port`` once its process plays ``game``: the player and the state of
    the view it was given."""
    while True:
        with contextlib.suppress(OSError, ConnectionClosed):
            p = await Player.open(port, seed, game.number)
            await p.send(m.Rejoin(game=game.id, token=token))
            answer = await p.next(m.Joined, m.Error)
            if isinstance(answer, m.Joined):
                view = await p.next(m.GameView)
                assert isinstance(view, m.GameView)
                return p, view.view.state_id
            await p.ws.close()
        await asyncio.sleep(REJOIN_EVERY)


async def _run(db: str, games: int, play_seconds: float, think: float) -> tuple[float, int, int]:
    """Failover seconds, lost actions, and the games still under way at the kill."""
    port_a, port_b = _free_port(), _free_port()
    with _serving(db, port_a) as a, _serving(db, port_b):
        made = [await _start_game(port_a, i) for i in range(games)]
        playing = [asyncio.create_task(p.play(g.id, think)) for g in made for p in g.players]
        await asyncio.sleep(play_seconds)
        a.send_signal(signal.SIGKILL)
        killed = time.monotonic()
        await asyncio.gather(*playing, return_exceptions=True)
        going = [g for g in made if not any(p.over for p in g.players)]
        acknowledged = {g.id: max(p.acknowledged for p in g.players) for g in going}
        async with asyncio.timeout(GIVE_UP):
            back = await asyncio.gather(
                *(
                    _rejoin(port_b, g, token, 1000 + i)
                    for g in going
                    for i, token in enumerate(g.tokens)
                )
            )
        seated_all = time.monotonic() - killed
        lost = 0
        for n, g in enumerate(going):
            views = [state for _, state in back[n * PLAYERS : (n + 1) * PLAYERS]]
            lost += max(0, acknowledged[g.id] - min(views))
        for p, _ in back:
            await p.ws.close()
    return seated_all, lost, len(going)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=8, help="games under way on A")
    parser.add_argument(
        "--play-seconds", type=float, default=3.0, help="how long they play before the kill"
    )
    parser.add_argument(
        "--think-ms", type=float, default=20.0, help="each player's pause before it acts"
    )
    parser.add_argument(
        "--db", default=None, help="a PostgreSQL URL (default: a server of this run's own)"
    )
    args = parser.parse_args(argv)
    with _postgres(args.db) as db:
        seconds, lost, going = asyncio.run(
            _run(db, args.games, args.play_seconds, args.think_ms / 1000)
        )
    print(
        f"{args.games} games on A, {going} still under way when it was killed after "
        f"{args.play_seconds:.0f} s of play"
    )
    print(f"failover_s: {seconds:.2f} lost_actions: {lost}")


if __name__ == "__main__":
    main()
