"""How many bot seats one bot host holds, what each costs in memory, and how fast they
decide.

Run it from the repository root on a quiet machine (the full runs)::

    .venv/bin/python benchmarks/bot_pool.py --seats 300 --kind heuristic
    .venv/bin/python benchmarks/bot_pool.py --seats 60 --kind uct:medium

A server runs in this process on a free port of 127.0.0.1 (its games in memory), with the
bot host it starts at the first bot seat (``--workers`` search workers: default one a
core). Games are added one at a time: each has three bots of ``--kind`` (``kind`` or
``kind:strength``) and a fourth seat played from here by a random player that thinks
``--think`` seconds a move on average, so games last while seats are added, and the turn
timer (``--turn-timer``) runs for every seat. Once a game's three bots are seated, the
resident memory of the host and its workers (the sum of their RSS) is read (after the
first game, once the host and its workers have settled); the memory per added seat is the
slope of a least-squares line through those readings. Then every game plays on for
``--seconds``.

A bot's decision latency is the time from the server sending its seat a prompt to the
server receiving its action (the prompts a seat answered at all; a prompt whose time ran
out counts as a timeout). Printed: seats held (seated at once), the memory per added seat,
p50/p95/max latency, timeouts, and a last line ``pool_seats: N memory_per_seat_mb: X``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import psutil  # noqa: E402

import engine  # noqa: E402
from app.log import configure_logging  # noqa: E402
from clients.sdk import Agent, Table, play  # noqa: E402
from protocol import SUBPROTOCOL_MSGPACK, Codec  # noqa: E402
from protocol import messages as m  # noqa: E402
from server.app import HexhavenServer  # noqa: E402
from server.limits import ServerLimits  # noqa: E402
from server.room import GameRoom  # noqa: E402

LIMITS = {
    "games": "100000",
    "bot_seats": "100000",
    "bot_seats_per_connection": "100000",
    "bot_seats_per_address": "100000",
    "unstarted_per_connection": "100000",
    "unstarted_per_address": "100000",
    "creates": "100000/100000",
    "address.creates": "100000/100000",
    "joins": "100000/100000",
    "address.joins": "100000/100000",
}
"""No limit on what this one address may open: every game here comes from it."""


class Pacer(Agent):
    """A random player that thinks a while (in the SDK's thread) before each move."""

    name = "pacer"

    def __init__(self, think: float, seed: int) -> None:
        self.think = think
        self.rnd = random.Random(seed)

    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        time.sleep(self.rnd.uniform(0.5, 1.5) * self.think)
        return self.rnd.choice(prompt.actions)


class Clock:
    """The latency of every decision of the measured bots, read at the server's rooms."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.asked: dict[tuple[int, int, int], float] = {}
        self.latencies: list[float] = []
        self.timeouts = 0

    def measured(self, room: GameRoom, seat: int) -> bool:
        slot = room.seats[seat]
        return slot is not None and slot.bot == self.spec

    def install(self) -> None:
        """Wrap the rooms' prompting, acting and expiring to time the measured seats."""
        clock = self
        prompt, act, expire = GameRoom._prompt, GameRoom._act, GameRoom._expire

        def timed_prompt(room: GameRoom, only: Any = None) -> None:
            prompt(room, only)
            if not room.started or room.table.over:
                return
            now = time.monotonic()
            for seat in engine.seats_to_act(room.table.state):
                if clock.measured(room, seat):
                    clock.asked.setdefault((id(room), seat, room.table.state_id), now)

        def timed_act(room: GameRoom, peer: Any, msg: m.Act) -> None:
            seat = room.seat_of(peer)
            if seat is not None and clock.measured(room, seat):
                asked = clock.asked.pop((id(room), seat, msg.state_id), None)
                if asked is not None:
                    clock.latencies.append(time.monotonic() - asked)
            act(room, peer, msg)

        def timed_expire(room: GameRoom) -> None:
            now = time.monotonic()
            if room.started and not room.over:
                to_act = engine.seats_to_act(room.state)
                clock.timeouts += sum(
                    1
                    for seat, deadline in room.deadlines.items()
                    if deadline <= now and seat in to_act and clock.measured(room, seat)
                )
            expire(room)

        for name, wrapped in (
            ("_prompt", timed_prompt),
            ("_act", timed_act),
            ("_expire", timed_expire),
        ):
            setattr(GameRoom, name, wrapped)


def host_rss(pid: int) -> int:
    """The resident bytes of process ``pid`` and every process it started."""
    proc = psutil.Process(pid)
    total = int(proc.memory_info().rss)
    for child in proc.children(recursive=True):
        with contextlib.suppress(psutil.NoSuchProcess):
            total += child.memory_info().rss
    return total


def slope(points: list[tuple[int, int]]) -> float:
    """The least-squares slope of y over x."""
    if len(points) < 2:
        return float("nan")
    xs, ys = [float(p[0]) for p in points], [float(p[1]) for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den if den else 0.0


async def until(condition: Any, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            return False
        await asyncio.sleep(0.05)
    return True


async def create(url: str, options: m.GameOptions) -> tuple[Any, str]:
    """A connection that created a game (it starts the game later): it and the game id."""
    from websockets.asyncio.client import connect

    ws = await connect(url, subprotocols=[SUBPROTOCOL_MSGPACK])  # type: ignore[list-item]
    codec = Codec(ws.subprotocol)
    await ws.send(codec.encode(m.Hello(protocol=1, client="bot_pool benchmark")))
    while True:
        message = codec.decode_server(await ws.recv())
        if isinstance(message, m.Welcome):
            await ws.send(codec.encode(m.CreateGame(options=options)))
        elif isinstance(message, m.GameCreated):
            return (ws, codec), message.game
        elif isinstance(message, m.Error):
            raise RuntimeError(f"create_game refused: {message.message}")


async def settle(pid: int, timeout: float = 60.0) -> None:
    """Wait until the memory of ``pid`` and its children changes by less than 1 MB over
    a second (started workers have loaded their modules)."""
    end = time.monotonic() + timeout
    before = host_rss(pid)
    while time.monotonic() < end:
        await asyncio.sleep(1.0)
        now = host_rss(pid)
        if abs(now - before) < 2**20:
            return
        before = now


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(args: argparse.Namespace) -> None:
    configure_logging("warning")
    loop = asyncio.get_running_loop()
    loop.set_default_executor(ThreadPoolExecutor(max(64, args.seats), thread_name_prefix="pacer"))
    kind, _, strength = args.kind.partition(":")
    clock = Clock(args.kind)
    clock.install()
    limits = ServerLimits().with_settings(LIMITS)
    srv = HexhavenServer(limits=limits, bot_workers=args.workers)
    games = -(-args.seats // 3)
    pacers: set[asyncio.Task[Any]] = set()
    links: list[Any] = []
    readings: list[tuple[int, int]] = []
    rooms: list[GameRoom] = []
    async with srv.running("127.0.0.1", 0) as ws_server:
        url = f"ws://127.0.0.1:{srv.port_of(ws_server)}"
        bot = m.BotSeat(kind=kind, strength=strength or None)
        options = m.GameOptions(players=4, bots=[bot] * 3, turn_timer=args.turn_timer)
        started = time.monotonic()
        for g in range(games):
            link, game = await create(url, options)
            links.append(link)
            task = asyncio.create_task(play(Pacer(args.think, g), url, game))
            pacers.add(task)
            room = srv.rooms[game]
            rooms.append(room)
            await until(lambda room=room: room.seated >= 1, 60)
            ws, codec = link
            await ws.send(codec.encode(m.StartGame(game=game)))
            seated = await until(
                lambda room=room: (
                    all(s is not None and s.owners() for s in room.seats) or room.over
                ),
                120,
            )
            host = srv.bots.host
            if not seated or host is None or host.pid is None:
                print(f"game {g + 1}: its bots were not all seated within 120 s", flush=True)
                continue
            held = sum(
                1
                for r in rooms
                if not r.over
                for s in r.seats
                if s is not None and s.bot is not None and s.owners()
            )
            if not readings:  # the host (and for uct, its workers) settle first
                await settle(host.pid)
            rss = host_rss(host.pid)
            readings.append((held, rss))
            if (g + 1) % max(1, games // 10) == 0 or g + 1 == games:
                print(
                    f"games {g + 1}: bot seats held {held}, host and workers "
                    f"{rss / 2**20:.0f} MB ({time.monotonic() - started:.0f} s)",
                    flush=True,
                )
        held_at_end = readings[-1][0] if readings else 0
        print(f"playing on for {args.seconds:.0f} s", flush=True)
        await asyncio.sleep(args.seconds)
        finished = sum(1 for r in rooms if r.over)
        host = srv.bots.host
        played = host_rss(host.pid) if host is not None and host.pid is not None else 0
        for task in pacers:
            task.cancel()
        await asyncio.gather(*pacers, return_exceptions=True)
        for ws, _ in links:
            await ws.close()
    per_seat = slope(readings) / 2**20
    lat = clock.latencies
    print(f"kind: {args.kind}; workers: {srv.bots.workers}; turn timer: {args.turn_timer} s")
    print(f"seats held: {held_at_end} (games finished meanwhile: {finished} of {games})")
    if readings:
        (first, low), (last, high) = readings[0], readings[-1]
        print(
            f"host and workers: {low / 2**20:.0f} MB with {first} seats, "
            f"{high / 2**20:.0f} MB with {last}"
        )
        print(f"host and workers after {args.seconds:.0f} s of play: {played / 2**20:.0f} MB")
    print(f"memory per added seat: {per_seat:.2f} MB (host and workers)")
    print(
        f"decisions: {len(lat)}; latency p50 {percentile(lat, 0.5) * 1000:.0f} ms, "
        f"p95 {percentile(lat, 0.95) * 1000:.0f} ms, max {max(lat, default=0) * 1000:.0f} ms; "
        f"timeouts: {clock.timeouts}"
    )
    print(f"pool_seats: {held_at_end} memory_per_seat_mb: {per_seat:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seats", type=int, default=30, help="bot seats of --kind to add")
    parser.add_argument(
        "--kind", default="heuristic", help="the bots measured: heuristic, uct:medium, ..."
    )
    parser.add_argument("--turn-timer", type=float, default=10.0, help="seconds (default 10)")
    parser.add_argument("--workers", type=int, default=None, help="search workers")
    parser.add_argument(
        "--think", type=float, default=2.0, help="the pacer's seconds a move (default 2)"
    )
    parser.add_argument(
        "--seconds", type=float, default=30.0, help="seconds of play once all are seated"
    )
    args = parser.parse_args()
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
