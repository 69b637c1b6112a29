"""What hostile traffic does to a live server: floods of the costly requests while a probe
connection pings it.

Run it from the repository root (about a minute and a half)::

    .venv/bin/python benchmarks/abuse.py
    .venv/bin/python benchmarks/abuse.py --seconds 20 --connections 10

A server (``python -m app.cli serve`` on 127.0.0.1, a fresh SQLite file) is started with a
public game of four ``random`` bots being played, and a probe, in a process of its own,
sends a ``ping`` every 20 ms and times each ``pong``. Then, one after the other, each for
``--seconds``, from connections with no seat:

- **history**: ``--connections`` connections send ``watch`` with ``history`` for the game
  as fast as the server answers;
- **chat**: five connections watch the game and send 500-character chat lines;
- **games**: one connection sends ``create_game`` over and over;
- **slow readers**: five connections watch the game with its history and never read;
  they leave at the end;
- **bad strings**: JSON text with unpaired surrogates, non-ASCII and enormous tokens.

For each it prints the worst ping during the flood, the answers the flood got by kind
(``limit_reached`` and the other refusals), and the server's resident memory (VmRSS) before
and after. The last line is ``worst_ping_ms: X memory_before_mb: A memory_after_mb: B``,
the memory after being measured once every flood has left. Every loop is bounded in time;
nothing connects anywhere but 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing as mp
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Coroutine
from multiprocessing.connection import Connection as Pipe
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import msgpack  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402
from websockets.typing import Subprotocol  # noqa: E402

from protocol.messages import PROTOCOL_VERSION, SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK  # noqa: E402

PROBE_EVERY = 0.02
"""Seconds between the probe's pings."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def _open(url: str, subprotocol: str = SUBPROTOCOL_MSGPACK, **kw: Any) -> ClientConnection:
    ws = await connect(url, subprotocols=[Subprotocol(subprotocol)], **kw)
    await _send(ws, {"type": "hello", "protocol": PROTOCOL_VERSION, "client": "abuse"})
    await _recv(ws)
    return ws


async def _send(ws: ClientConnection, message: dict[str, Any]) -> None:
    if ws.subprotocol == SUBPROTOCOL_JSON:
        await ws.send(json.dumps(message))
    else:
        await ws.send(msgpack.packb(message))


async def _recv(ws: ClientConnection) -> dict[str, Any]:
    frame = await ws.recv()
    data: dict[str, Any] = json.loads(frame) if isinstance(frame, str) else msgpack.unpackb(frame)
    return data


def _probe(url: str, seconds: float, out: Pipe) -> None:
    """Ping every PROBE_EVERY seconds for ``seconds``; send back (time, round trip)s."""

    async def run() -> list[tuple[float, float]]:
        times: list[tuple[float, float]] = []
        ws = await _open(url)
        end = time.monotonic() + seconds
        nonce = 0
        while time.monotonic() < end:
            nonce += 1
            start = time.monotonic()
            await _send(ws, {"type": "ping", "nonce": nonce})
            while (await _recv(ws)).get("nonce") != nonce:
                pass
            times.append((start, time.monotonic() - start))
            await asyncio.sleep(PROBE_EVERY)
        await ws.close()
        return times

    out.send(asyncio.run(run()))


class Flood:
    """Counts what a flood's connections were answered, by type or error code."""

    def __init__(self) -> None:
        self.answers: Counter[str] = Counter()

    def note(self, message: dict[str, Any]) -> None:
        kind = str(message.get("type"))
        if kind == "error":
            kind = f"error {message.get('code')}"
            if message.get("detail"):
                kind += f" ({message['detail']})"
        self.answers[kind] += 1


async def _until(seconds: float, work: Callable[[], Coroutine[Any, Any, None]]) -> None:
    with contextlib.suppress(TimeoutError, ConnectionClosed, OSError):
        async with asyncio.timeout(seconds):
            await work()


async def flood_history(url: str, game: str, seconds: float, conns: int, flood: Flood) -> None:
    async def one() -> None:
        ws = await _open(url)

        async def go() -> None:
            while True:
                await _send(ws, {"type": "watch", "game": game, "history": True})
                while (message := await _recv(ws))["type"] not in ("joined", "error"):
                    pass
                flood.note(message)

        await _until(seconds, go)
        await ws.close()

    await asyncio.gather(*(one() for _ in range(conns)))


async def flood_chat(url: str, game: str, seconds: float, flood: Flood) -> None:
    async def one(i: int) -> None:
        ws = await _open(url)
        await _send(ws, {"type": "watch", "game": game})

        async def go() -> None:
            async def read() -> None:
                while True:
                    message = await _recv(ws)
                    if message["type"] == "error":
                        flood.note(message)

            reader = asyncio.ensure_future(read())
            try:
                for n in range(10**9):
                    await _send(ws, {"type": "chat", "game": game, "text": f"{i}:{n} " * 50})
                    flood.answers["chat sent"] += 1
                    await asyncio.sleep(0)
            finally:
                reader.cancel()

        await _until(seconds, go)
        await ws.close()

    await asyncio.gather(*(one(i) for i in range(5)))


async def flood_games(url: str, seconds: float, flood: Flood) -> None:
    ws = await _open(url)

    async def go() -> None:
        while True:
            await _send(ws, {"type": "create_game", "options": {"players": 4}})
            flood.note(await _recv(ws))

    await _until(seconds, go)
    await ws.close()


async def flood_slow_readers(url: str, game: str, seconds: float, flood: Flood) -> None:
    readers = []
    for _ in range(5):
        ws = await _open(url, max_queue=1)
        await _send(ws, {"type": "watch", "game": game, "history": True})
        readers.append(ws)
    await asyncio.sleep(seconds)  # they never read: the server holds what they are owed
    for ws in readers:
        flood.answers["closed by the server" if ws.close_code is not None else "still open"] += 1
        with contextlib.suppress(Exception):
            ws.transport.abort()


async def flood_bad_strings(url: str, game: str, seconds: float, flood: Flood) -> None:
    ws = await _open(url, SUBPROTOCOL_JSON)
    frames = [
        '{"type": "watch", "game": "\\ud800"}',
        json.dumps({"type": "rejoin", "game": game, "token": "\u00e9t\u00e9"}),
        json.dumps({"type": "rejoin", "game": game, "token": "x" * 20_000}),
        '{"type": "chat", "game": "' + game + '", "text": "\\udfff"}',
    ]

    async def go() -> None:
        while True:
            for frame in frames:
                await ws.send(frame)
                flood.note(await _recv(ws))
            await _send(ws, {"type": "ping", "nonce": 1})
            flood.note(await _recv(ws))

    await _until(seconds, go)
    await ws.close()


async def _public_game(url: str) -> str:
    """A public game of four random bots, started; its id."""
    ws = await _open(url)
    bots = [{"kind": "random"}] * 4
    await _send(ws, {"type": "create_game", "options": {"players": 4, "bots": bots}})
    created = await _recv(ws)
    if created["type"] != "game_created":
        raise SystemExit(f"the server refused the game: {created}")
    await _send(ws, {"type": "watch", "game": created["game"]})
    await _send(ws, {"type": "start_game", "game": created["game"]})
    async with asyncio.timeout(60):
        while (await _recv(ws))["type"] != "events":
            pass
    await ws.close()
    game: str = created["game"]
    return game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=15.0, help="each flood's length")
    parser.add_argument("--connections", type=int, default=10, help="history flooders")
    args = parser.parse_args()
    port = _free_port()
    url = f"ws://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "app.cli", "serve", "--port", str(port)]
        command.extend(["--db", f"{tmp}/abuse.db", "--log-level", "warning"])
        server = subprocess.Popen(
            command,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=open(f"{tmp}/server.log", "w"),  # noqa: SIM115 (closed with the folder)
        )
        try:
            _run(url, server.pid, args.seconds, args.connections)
        finally:
            server.terminate()
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def _run(url: str, pid: int, seconds: float, connections: int) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            game = asyncio.run(_public_game(url))
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    floods: list[tuple[str, Callable[[Flood], Coroutine[Any, Any, None]]]] = [
        ("history", lambda f: flood_history(url, game, seconds, connections, f)),
        ("chat", lambda f: flood_chat(url, game, seconds, f)),
        ("games", lambda f: flood_games(url, seconds, f)),
        ("slow readers", lambda f: flood_slow_readers(url, game, seconds, f)),
        ("bad strings", lambda f: flood_bad_strings(url, game, seconds, f)),
    ]
    total = seconds * len(floods) + 2.0 * len(floods) + 5.0
    before = _rss_mb(pid)
    here, there = mp.Pipe()
    probe = mp.Process(target=_probe, args=(url, total, there))
    probe.start()
    windows = []
    for name, run in floods:
        flood = Flood()
        start = time.monotonic()
        rss = _rss_mb(pid)
        asyncio.run(run(flood))
        windows.append((name, start, time.monotonic(), rss, _rss_mb(pid), flood))
        time.sleep(2.0)  # let the server settle between floods
    pings = here.recv()
    probe.join()
    after = _rss_mb(pid)
    worst_all = 0.0
    for name, start, end, rss0, rss1, flood in windows:
        during = [rtt for t, rtt in pings if start <= t <= end] or [0.0]
        worst = max(during) * 1000
        worst_all = max(worst_all, worst)
        answers = ", ".join(f"{k}: {v}" for k, v in flood.answers.most_common(6))
        print(
            f"{name:<13} worst ping {worst:8.1f} ms  memory {rss0:6.1f} -> {rss1:6.1f} MB  "
            f"answers: {answers}"
        )
    memory = f"memory_before_mb: {before:.1f} memory_after_mb: {after:.1f}"
    print(f"worst_ping_ms: {worst_all:.1f} {memory}")


if __name__ == "__main__":
    main()
