"""How many concurrent games one server process holds, and how fast it answers.

Run it from the repository root::

    .venv/bin/python benchmarks/server_load.py --games 4 8 16 --seconds 15

For each number of concurrent games N it starts one server process (``hexhaven serve`` on
127.0.0.1, a fresh SQLite file), then client processes that keep N games of four
random-playing clients going for ``--seconds`` (a finished game is replaced by a new one).
Clients answer every prompt at once (plus ``--think-ms``), so this is a stress load, far
above people's pace. It prints, per N: games finished, actions/s, the latency from an
action sent to its events received (p50, p99), and the server's CPU use and peak memory
(from /proc). The last line is ``concurrent_games: N p99_ms: X`` for the largest N whose
p99 stayed under 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from protocol import SUBPROTOCOL_MSGPACK, Codec  # noqa: E402
from protocol import messages as m  # noqa: E402

PLAYERS = 4


@dataclass
class Tally:
    games: int = 0
    actions: int = 0
    latencies: list[float] = field(default_factory=list)


async def _client(url: str) -> tuple[object, Codec]:
    from websockets.asyncio.client import connect

    ws = await connect(url, subprotocols=[SUBPROTOCOL_MSGPACK], max_size=2**22)  # type: ignore[list-item]
    return ws, Codec(ws.subprotocol)


async def _one_game(url: str, seed: int, think: float, deadline: float, tally: Tally) -> None:
    conns = [await _client(url) for _ in range(PLAYERS)]
    rnd = random.Random(seed)

    async def send(i: int, message: m.WireModel) -> None:  # type: ignore[name-defined]
        ws, codec = conns[i]
        await ws.send(codec.encode(message))  # type: ignore[attr-defined]

    async def recv(i: int) -> object:
        ws, codec = conns[i]
        return codec.decode_server(await ws.recv())  # type: ignore[attr-defined]

    for i in range(PLAYERS):
        await send(i, m.Hello(protocol=1, client="load"))
    await send(0, m.CreateGame(options=m.GameOptions(players=PLAYERS)))
    game = ""
    while not game:
        msg = await recv(0)
        if isinstance(msg, m.GameCreated):
            game = msg.game
    for i in range(PLAYERS):
        await send(i, m.JoinGame(game=game, name=f"p{i}"))
        while not isinstance(await recv(i), m.Joined):
            pass
    await send(0, m.StartGame(game=game))

    async def play(i: int) -> None:
        sent: dict[int, float] = {}
        while True:
            try:
                async with asyncio.timeout(max(0.0, deadline - time.monotonic()) + 0.5):
                    msg = await recv(i)
            except TimeoutError:
                return  # the run is over and this game with it
            if isinstance(msg, m.GameOver):
                return
            if isinstance(msg, m.Events) and msg.state_id - 1 in sent:
                tally.latencies.append(time.perf_counter() - sent.pop(msg.state_id - 1))
                tally.actions += 1
            if isinstance(msg, m.Prompt):
                if time.monotonic() > deadline:
                    return
                if think:
                    await asyncio.sleep(think)
                action = rnd.choice(msg.actions)
                sent[msg.state_id] = time.perf_counter()
                await send(i, m.Act(game=game, state_id=msg.state_id, action=action))

    results = await asyncio.gather(*(play(i) for i in range(PLAYERS)), return_exceptions=True)
    if time.monotonic() <= deadline and not any(isinstance(r, Exception) for r in results):
        tally.games += 1
    for ws, _ in conns:
        await ws.close()  # type: ignore[attr-defined]


async def _worker_main(url: str, games: int, seconds: float, think: float, seed: int) -> Tally:
    tally = Tally()
    deadline = time.monotonic() + seconds

    async def keep_one(slot: int) -> None:
        n = 0
        while time.monotonic() < deadline:
            await _one_game(url, seed * 1000 + slot * 100 + n, think, deadline, tally)
            n += 1

    await asyncio.gather(*(keep_one(s) for s in range(games)))
    return tally


def _worker(url: str, games: int, seconds: float, think: float, seed: int, out: mp.Queue) -> None:  # type: ignore[type-arg]
    tally = asyncio.run(_worker_main(url, games, seconds, think, seed))
    out.put((tally.games, tally.actions, tally.latencies))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def _peak_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def run_level(games: int, seconds: float, think: float, workers: int) -> tuple[float, float]:
    port = _free_port()
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen(
            [
                sys.executable, "-m", "app.cli", "serve", "--port", str(port),
                "--db", str(Path(tmp) / "load.db"), "--log-level", "warning",
            ],
            cwd=ROOT,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            for _ in range(100):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    time.sleep(0.1)
            cpu0 = _cpu_seconds(server.pid)
            t0 = time.perf_counter()
            out: mp.Queue = mp.Queue()  # type: ignore[type-arg]
            shares = [games // workers + (i < games % workers) for i in range(workers)]
            procs = [
                mp.Process(
                    target=_worker,
                    args=(f"ws://127.0.0.1:{port}", share, seconds, think, i, out),
                )
                for i, share in enumerate(shares)
                if share
            ]
            for p in procs:
                p.start()
            results = [out.get() for _ in procs]
            for p in procs:
                p.join()
            wall = time.perf_counter() - t0
            cpu = _cpu_seconds(server.pid) - cpu0
            peak = _peak_mib(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=10)
    finished = sum(r[0] for r in results)
    actions = sum(r[1] for r in results)
    lat = sorted(x for r in results for x in r[2])
    p50 = statistics.median(lat) * 1000 if lat else float("nan")
    p99 = lat[int(len(lat) * 0.99) - 1] * 1000 if lat else float("nan")
    print(
        f"games {games:3d}: finished {finished:4d}  actions/s {actions / wall:8.0f}  "
        f"p50 {p50:7.2f} ms  p99 {p99:7.2f} ms  server cpu {100 * cpu / wall:5.1f}%  "
        f"peak {peak:6.1f} MiB",
        flush=True,
    )
    return p50, p99


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--games", type=int, nargs="+", default=[1, 4, 8, 16, 32])
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--think-ms", type=float, default=0.0)
    parser.add_argument("--workers", type=int, default=1, help="client processes")
    args = parser.parse_args(argv)
    print(
        f"server load: {args.seconds:.0f} s per level, {PLAYERS} random clients per game, "
        f"think {args.think_ms:.0f} ms, {args.workers} client process(es), {os.cpu_count()} cores"
    )
    held = (0, float("nan"))
    for games in args.games:
        _, p99 = run_level(games, args.seconds, args.think_ms / 1000, args.workers)
        if p99 < 100:
            held = (games, p99)
    print(f"concurrent_games: {held[0]} p99_ms: {held[1]:.1f}")


if __name__ == "__main__":
    main()
