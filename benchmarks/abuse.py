"""What hostile traffic does to a live server: floods of costly or malformed requests while
a probe connection pings it.

Run it from the repository root (about five minutes with the default 15 seconds a flood;
``--only`` runs some of the floods, named as below)::

    .venv/bin/python benchmarks/abuse.py
    .venv/bin/python benchmarks/abuse.py --seconds 20 --connections 10
    .venv/bin/python benchmarks/abuse.py --seconds 5 --only watch,partial-frames

A server (``python -m app.cli serve`` on 127.0.0.1, a fresh SQLite file, its log written
to a file; with ``--away-grace 2`` where ``serve`` has that option, else with its own grace
of 30 seconds) is started with a public game of four ``random`` bots to 20 points being
played (a new one is started before a flood when the last has ended), and a probe, in a
process of its own, sends a ``ping`` every 20 ms and times each ``pong``. When ``reopen``
is to run, three games of two ``random`` bots to three points are played to their end
first. Then the floods run one after the other, each from a block of loopback addresses of
its own (127.N.x.y), so that no flood spends another's per-address budgets; what one leaves
open (games, bots standing in) stays open for the next. Each lasts ``--seconds`` unless
said otherwise:

- **history**: ``--connections`` connections send ``watch`` with ``history`` for the game
  as fast as the server answers;
- **chat**: five connections watch the game and send 500-character chat lines;
- **games**: one connection sends ``create_game`` over and over;
- **slow-readers**: five connections watch the game with its history and never read;
  they leave at the end;
- **bad-strings**: JSON text with unpaired surrogates, non-ASCII and enormous tokens;
- **watch**: 20 connections from one address send ``watch`` (no history) for the game as
  fast as they can, reading the answers meanwhile;
- **partial-frames**: 300 sockets open a websocket and say ``hello``, announce a 1 MiB
  binary frame (a masked client frame with a 64-bit length), send all of it but 1 KiB,
  then one byte every 2 seconds; it tells how many the server closed, and when;
- **pipelined-http**: ``--connections`` clients send two ``GET /healthz`` in one write on
  one socket after another; it counts the answers and the growth of the server's log;
- **frame-close**: ten times, a connection sends ``create_game`` and the close frame in one
  write; it counts the games created (``game_created``, and the lobby games that
  ``/metrics`` counts);
- **reopen**: once the finished games are closed (the server closes a finished game
  nobody watches within a minute; this waits at most 75 seconds), ``--connections``
  connections from one address send ``watch`` with ``history`` for them over and over,
  and four send ``create_game`` with a ``balanced`` board every 50 ms;
- **chat-silencing**: a game of two connections with ``spectator_chat`` is started; 80
  spectators, an address each, chat as fast as their budgets allow, until the game
  refuses them ``chat_per_game`` or for ``--seconds``, at least 40; then a seated player
  says a line, and it tells whether that line was echoed back or refused;
- **stand-ins**: from one address, four-seat games without bots are filled with four of
  the flood's connections, started and left; then, for the away grace and 12 seconds
  more, it reads the server's bot seats (``hexhaven_bot_seats`` in ``/metrics``), and the
  number and memory of its child processes;
- **game-cap**: 210 addresses, four connections each, send three ``create_game`` each and
  leave (for ``--seconds``, at least 30), to fill the server's cap on open games; then a
  fresh client from another address asks for one more, and it tells the answer.

For each it prints the worst ping during the flood; the server's resident memory (VmRSS)
before the flood, at its peak during it, and after it: once its connections are gone, the
server's games have worked through their queues (``hexhaven_room_queue``, at most 10
seconds) and its memory has stopped falling (at most 5 seconds more); the answers the
flood got by kind (``limit_reached`` and the other refusals, with their ``detail``); and
below, what else the flood has to tell. A line on standard error marks each flood's end.
Before the first flood the server is asked for one game on a ``balanced`` board, so that
the constraint solver's libraries (some 70 MB, loaded on first use and kept) are not
counted as a flood's. Then a line gives the server's memory before the first flood and
after the last, and the last line is ``worst_ping_ms: X memory_growth_pct: Y``: the worst
ping across every flood, and the largest growth of the server's memory over one flood
(after it against before it), in percent.
Every wait is bounded in time, every socket is closed, and the server is stopped at the
end whatever happened; nothing connects anywhere but to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import multiprocessing as mp
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Coroutine
from multiprocessing.connection import Connection as Pipe
from multiprocessing.synchronize import Event
from pathlib import Path
from types import TracebackType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _abuse_floods import (  # noqa: E402
    Flood,
    Target,
    close_ws,
    describe,
    expect,
    flood_chat_silencing,
    flood_frame_close,
    flood_game_cap,
    flood_partial_frames,
    flood_pipelined_http,
    flood_reopen,
    flood_stand_ins,
    flood_watch,
    metrics,
    open_ws,
    recv,
    rss_mb,
    send,
    short_games,
    together,
    until,
)
from websockets.asyncio.client import ClientConnection  # noqa: E402

from protocol.messages import SUBPROTOCOL_JSON  # noqa: E402

PROBE_EVERY = 0.02
"""Seconds between the probe's pings."""
QUIET_SECONDS = 10.0
"""The longest the server is waited for after a flood to work through its games' queues..."""
SETTLE_SECONDS = 5.0
"""...and then for its memory to stop falling."""
FLOOD_SLACK = 240.0
"""Seconds a flood may run past its ``--seconds`` (its set-up, the waits some have) before
it is stopped."""
AWAY_GRACE = 2.0
"""The away grace the server is started with, where ``serve`` has ``--away-grace``."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _probe(url: str, stop: Event, out: Pipe) -> None:
    """Ping every PROBE_EVERY seconds until ``stop``; send back (time, round trip)s. A ping
    still unanswered at the stop counts as taking until then; a connection lost is opened
    again."""

    async def run() -> list[tuple[float, float]]:
        times: list[tuple[float, float]] = []
        ws: ClientConnection | None = None
        nonce = 0
        while not stop.is_set():
            try:
                if ws is None:
                    ws = await open_ws(url)
                nonce += 1
                start = time.monotonic()
                await send(ws, {"type": "ping", "nonce": nonce})
                while not stop.is_set():
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(0.5):
                            if (await recv(ws)).get("nonce") == nonce:
                                break
                times.append((start, time.monotonic() - start))
                await asyncio.sleep(PROBE_EVERY)
            except Exception:  # a connection lost or refused: another one
                if ws is not None:
                    ws.transport.abort()
                ws = None
                await asyncio.sleep(0.2)
        if ws is not None:
            await close_ws(ws)
        return times

    out.send(asyncio.run(run()))


class _PeakMemory:
    """The highest VmRSS of a process while the block runs (read every 50 ms)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak = rss_mb(pid)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        while not self._stop.wait(0.05):
            self.peak = max(self.peak, rss_mb(self.pid))

    def __enter__(self) -> _PeakMemory:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()
        self._thread.join()


async def _worked_through(t: Target) -> None:
    """Wait until the server's games have no message waiting in their queues (what a flood
    left them), at most QUIET_SECONDS."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(QUIET_SECONDS):
            while (await metrics(t)).get("hexhaven_room_queue", 0.0) > 0:
                await asyncio.sleep(0.25)


def _settled_rss(t: Target) -> float:
    """The server's VmRSS once it has worked through what it was sent and its memory has
    not fallen for a second (at most QUIET_SECONDS, then SETTLE_SECONDS)."""
    asyncio.run(_worked_through(t))
    end = time.monotonic() + SETTLE_SECONDS
    low, low_at = rss_mb(t.pid), time.monotonic()
    while time.monotonic() < end and time.monotonic() - low_at < 1.0:
        time.sleep(0.2)
        now = rss_mb(t.pid)
        if now < low - 0.05:
            low, low_at = now, time.monotonic()
    return rss_mb(t.pid)


# --- the floods of plain websocket clients (the others are in _abuse_floods) -------------------
async def flood_history(t: Target, seconds: float, flood: Flood) -> None:
    async def one() -> None:
        ws = await open_ws(t.url, **t.local())

        async def go() -> None:
            while True:
                await send(ws, {"type": "watch", "game": t.game, "history": True})
                flood.note(await expect(ws, "joined"))

        try:
            await until(seconds, go)
        finally:
            await close_ws(ws, flood)

    await together(flood, (one() for _ in range(t.connections)))


async def flood_chat(t: Target, seconds: float, flood: Flood) -> None:
    async def one(i: int) -> None:
        ws = await open_ws(t.url, **t.local())
        await send(ws, {"type": "watch", "game": t.game})

        async def go() -> None:
            async def read() -> None:
                while True:
                    message = await recv(ws)
                    if message["type"] == "error":
                        flood.note(message)

            reader = asyncio.ensure_future(read())
            try:
                for n in range(10**9):
                    await send(ws, {"type": "chat", "game": t.game, "text": f"{i}:{n} " * 50})
                    flood.answers["chat sent"] += 1
                    await asyncio.sleep(0)
            finally:
                reader.cancel()

        try:
            await until(seconds, go)
        finally:
            await close_ws(ws, flood)

    await together(flood, (one(i) for i in range(5)))


async def flood_games(t: Target, seconds: float, flood: Flood) -> None:
    ws = await open_ws(t.url, **t.local())

    async def go() -> None:
        while True:
            await send(ws, {"type": "create_game", "options": {"players": 4}})
            flood.note(await expect(ws, "game_created"))

    try:
        await until(seconds, go)
    finally:
        await close_ws(ws, flood)


async def flood_slow_readers(t: Target, seconds: float, flood: Flood) -> None:
    readers = []
    try:
        for _ in range(5):
            ws = await open_ws(t.url, max_queue=1, **t.local())
            readers.append(ws)
            await send(ws, {"type": "watch", "game": t.game, "history": True})
        await asyncio.sleep(seconds)  # they never read: the server holds what they are owed
    finally:
        for ws in readers:
            flood.answers[
                "closed by the server" if ws.close_code is not None else "still open"
            ] += 1
            ws.transport.abort()


async def flood_bad_strings(t: Target, seconds: float, flood: Flood) -> None:
    ws = await open_ws(t.url, SUBPROTOCOL_JSON, **t.local())
    frames = [
        '{"type": "watch", "game": "\\ud800"}',
        json.dumps({"type": "rejoin", "game": t.game, "token": "\u00e9t\u00e9"}),
        json.dumps({"type": "rejoin", "game": t.game, "token": "x" * 20_000}),
        '{"type": "chat", "game": "' + t.game + '", "text": "\\udfff"}',
    ]

    async def go() -> None:
        while True:
            for frame in frames:
                await ws.send(frame)
                flood.note(await recv(ws))
            await send(ws, {"type": "ping", "nonce": 1})
            flood.note(await recv(ws))

    try:
        await until(seconds, go)
    finally:
        await close_ws(ws, flood)


FloodRun = Callable[[Target, float, Flood], Coroutine[Any, Any, None]]
FLOODS: dict[str, FloodRun] = {
    "history": flood_history,
    "chat": flood_chat,
    "games": flood_games,
    "slow-readers": flood_slow_readers,
    "bad-strings": flood_bad_strings,
    "watch": flood_watch,
    "partial-frames": flood_partial_frames,
    "pipelined-http": flood_pipelined_http,
    "frame-close": flood_frame_close,
    "reopen": flood_reopen,
    "chat-silencing": flood_chat_silencing,
    "stand-ins": flood_stand_ins,
    "game-cap": flood_game_cap,  # last: the games it opens stay open
}
"""Every flood, in the order they run (a flood's addresses: 127.N.x.y, N its place)."""


async def _is_over(url: str, game: str) -> bool:
    """Whether ``game`` is over (or closed): a ``watch`` of it is refused, or its ``view``
    is followed by ``game_over`` rather than ``events``."""
    ws = await open_ws(url)
    try:
        await send(ws, {"type": "watch", "game": game})
        if (await expect(ws, "view"))["type"] == "error":
            return True
        async with asyncio.timeout(5.0):
            while (kind := (await recv(ws))["type"]) not in ("events", "game_over"):
                pass
        return bool(kind == "game_over")
    except TimeoutError:
        return False  # nothing happens in it, but it is not over
    finally:
        await close_ws(ws)


async def _live_game(url: str, game: str) -> str:
    """``game`` if it is still played, else a new public game of four random bots to 20
    points, started (about half a minute of play on a quiet machine); its id. Raises
    RuntimeError if the server refuses the game."""
    if game and not await _is_over(url, game):
        return game
    ws = await open_ws(url)
    try:
        bots = [{"kind": "random"}] * 4
        options = {"players": 4, "victory_points": 20, "bots": bots}
        await send(ws, {"type": "create_game", "options": options})
        created = await expect(ws, "game_created")
        if created["type"] != "game_created":
            raise RuntimeError(f"the server refused the public game: {describe(created)}")
        await send(ws, {"type": "watch", "game": created["game"]})
        await send(ws, {"type": "start_game", "game": created["game"]})
        async with asyncio.timeout(60):
            while (await recv(ws))["type"] != "events":
                pass
    finally:
        await close_ws(ws)
    new: str = created["game"]
    return new


def _chosen(only: str | None) -> list[str]:
    """The floods ``--only`` names (all when None), in their order. Raises ValueError
    naming one that is no flood."""
    if only is None:
        return list(FLOODS)
    names = {n.strip().lower().replace(" ", "-").replace("_", "-") for n in only.split(",")}
    unknown = sorted(names - set(FLOODS) - {""})
    if unknown:
        raise ValueError(f"no flood {', '.join(unknown)}; the floods are {', '.join(FLOODS)}")
    return [name for name in FLOODS if name in names]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=15.0, help="each flood's length")
    parser.add_argument(
        "--connections",
        type=int,
        default=10,
        help="connections of the history, pipelined-http and reopen floods",
    )
    parser.add_argument(
        "--only", metavar="NAME[,NAME]", help=f"run only these floods: {', '.join(FLOODS)}"
    )
    args = parser.parse_args()
    try:
        chosen = _chosen(args.only)
    except ValueError as exc:
        parser.error(str(exc))
    port = _free_port()
    url = f"ws://127.0.0.1:{port}"
    helped = subprocess.run(
        [sys.executable, "-m", "app.cli", "serve", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    grace = AWAY_GRACE if "--away-grace" in helped else 30.0
    with tempfile.TemporaryDirectory() as tmp, open(f"{tmp}/server.log", "w") as log:
        command = [sys.executable, "-m", "app.cli", "serve", "--port", str(port)]
        command.extend(["--db", f"{tmp}/abuse.db", "--log-level", "warning"])
        if grace == AWAY_GRACE:
            command.extend(["--away-grace", f"{AWAY_GRACE:g}"])
        server = subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log, start_new_session=True
        )
        try:
            target = Target(url, port, server.pid, Path(log.name), "", args.connections, grace)
            _run(target, server, chosen, args.seconds)
        finally:
            server.terminate()
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            with contextlib.suppress(ProcessLookupError):  # its children, if any are left
                os.killpg(server.pid, signal.SIGKILL)


def _run(
    target: Target, server: subprocess.Popen[bytes], chosen: list[str], seconds: float
) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            game = asyncio.run(_live_game(target.url, ""))
            break
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                raise
            time.sleep(0.2)
    finished, note = asyncio.run(short_games(target.url)) if "reopen" in chosen else ([], "")
    target = dataclasses.replace(target, game=game, finished=tuple(finished), finished_note=note)
    warm = asyncio.run(_warm_up(target.url))
    stop = mp.Event()
    here, there = mp.Pipe(duplex=False)
    probe = mp.Process(target=_probe, args=(target.url, stop, there), daemon=True)
    probe.start()
    windows: list[tuple[str, float, float, float, float, float, Flood]] = []
    pings: list[tuple[float, float]] = []
    try:
        first = _settled_rss(target)
        for name in chosen:
            if server.poll() is not None:
                print(f"the server exited ({server.returncode}); the floods stop here")
                break
            flood = Flood()
            try:
                game = asyncio.run(_live_game(target.url, game))
            except Exception as exc:
                flood.notes.append(f"no new public game ({exc!r}): the flood watches {game}")
            block = list(FLOODS).index(name) + 1
            where = dataclasses.replace(target, game=game, block=block)
            before = rss_mb(server.pid)
            with _PeakMemory(server.pid) as peak:
                start = time.monotonic()
                try:
                    asyncio.run(_bounded(FLOODS[name](where, seconds, flood), seconds))
                except TimeoutError:
                    flood.notes.append(f"stopped after {time.monotonic() - start:.0f} s")
                except Exception as exc:
                    flood.notes.append(f"the flood failed: {exc!r}")
                end = time.monotonic()
            after = _settled_rss(target)
            windows.append((name, start, end, before, peak.peak, after, flood))
            print(f"{name}: done in {end - start:.1f} s", file=sys.stderr, flush=True)
    finally:
        stop.set()
        if here.poll(30):
            pings = here.recv()
        probe.join(5)
        if probe.is_alive():
            probe.terminate()
            probe.join()
    worst_all = 0.0
    for name, start, end, before, top, after, flood in windows:
        during = [rtt for t, rtt in pings if t <= end and t + rtt >= start] or [0.0]
        worst = max(during) * 1000
        worst_all = max(worst_all, worst)
        answers = ", ".join(f"{k}: {v}" for k, v in flood.answers.most_common(8))
        print(
            f"{name:<14} worst ping {worst:8.1f} ms  memory {before:6.1f} -> {top:6.1f} -> "
            f"{after:6.1f} MB  answers: {answers or 'none'}"
        )
        for line in flood.notes:
            print(f"{'':<14} {line}")
    last = windows[-1][5] if windows else first
    total = (last - first) / first * 100 if first else 0.0
    growth = max(((w[5] - w[3]) / w[3] * 100 for w in windows if w[3]), default=0.0)
    print(
        f"the server's memory: {first:.1f} MB before the first flood ({warm}), "
        f"{last:.1f} MB after the last ({total:+.1f}%)"
    )
    print(f"worst_ping_ms: {worst_all:.1f} memory_growth_pct: {growth:.1f}")


async def _warm_up(url: str) -> str:
    """Use once what loads code or builds caches on first use, so that the floods' memory
    is counted apart from it: a ``balanced`` board (the constraint solver's libraries, some
    70 MB). Says what was done."""
    ws = await open_ws(url)
    try:
        await send(ws, {"type": "create_game", "options": {"players": 2, "board": "balanced"}})
        answer = await expect(ws, "game_created", seconds=60)
        await send(ws, {"type": "leave", "game": answer.get("game", "")})
    finally:
        await close_ws(ws)
    return f"after one balanced board: {describe(answer)}"


async def _bounded(flood: Coroutine[Any, Any, None], seconds: float) -> None:
    """Run a flood, stopped if it runs FLOOD_SLACK seconds past ``seconds``."""
    async with asyncio.timeout(seconds + FLOOD_SLACK):
        await flood


if __name__ == "__main__":
    main()
