"""What the websocket layer alone costs per action: the floor under ``server_load.py``'s
``server_us_per_action``.

Run it from the repository root (about 15 seconds)::

    .venv/bin/python benchmarks/io_floor.py
    .venv/bin/python benchmarks/io_floor.py --games 32 --seconds 10

A server process with no game in it, only the traffic of one: each of ``--games`` tables
has four websocket connections (``websockets``' asyncio server, no compression, as
``hexhaven serve`` runs it); a client's ``act`` frame is decoded with msgpack, and the
server answers as a Hexhaven room does in the common case: one ``events`` frame to each of
the four seats and a ``prompt`` frame to the next seat, each encoded with msgpack. The
clients (two processes) answer every prompt at once. After a second of warm-up, the
server's CPU time (user + sys, from /proc) over ``--seconds`` is divided by the actions
played. What ``hexhaven serve`` spends per action beyond this is the game: rules, the
per-seat forms, the store, and the glue between them.

The last line is ``io_us_per_action: X actions_per_s: Y``.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import os
import time
from multiprocessing.sharedctypes import Synchronized
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection, broadcast, serve

SEATS = 4


def _serve(ports: mp.Queue[int]) -> None:
    tables: dict[str, list[ServerConnection | None]] = {}

    async def handler(ws: ServerConnection) -> None:
        assert ws.request is not None
        table, seat_text = ws.request.path.strip("/").split("/")
        seat = int(seat_text)
        seats = tables.setdefault(table, [None] * SEATS)
        seats[seat] = ws
        async for frame in ws:
            act = msgpack.unpackb(frame)
            state = act["state_id"] + 1
            events = msgpack.packb(
                {"type": "events", "game": table, "state_id": state, "events": [{"kind": "x"}]}
            )
            for other in seats:
                if other is not None:
                    broadcast((other,), events)
            after = seats[(seat + 1) % SEATS]
            if after is not None:
                prompt = {"type": "prompt", "game": table, "state_id": state, "seat": 0}
                broadcast((after,), msgpack.packb(prompt))

    async def main() -> None:
        async with serve(handler, "127.0.0.1", 0, compression=None) as server:
            ports.put(server.sockets[0].getsockname()[1])
            await asyncio.Future()

    asyncio.run(main())


def _play(port: int, tables: range, played: Synchronized[int]) -> None:
    async def seat(ws: ClientConnection) -> None:
        async for frame in ws:
            message: dict[str, Any] = msgpack.unpackb(frame)
            if message["type"] == "prompt":
                with played.get_lock():
                    played.value += 1
                await ws.send(msgpack.packb({"type": "act", "state_id": message["state_id"]}))

    async def table(number: int) -> None:
        url = f"ws://127.0.0.1:{port}/t{number}"
        seats = [await connect(f"{url}/{s}", compression=None) for s in range(SEATS)]
        await seats[0].send(msgpack.packb({"type": "act", "state_id": 0}))
        await asyncio.gather(*(seat(ws) for ws in seats))

    async def main() -> None:
        await asyncio.gather(*(table(n) for n in tables))

    asyncio.run(main())


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=16, help="tables of four connections")
    parser.add_argument("--seconds", type=float, default=6.0, help="measured for this long")
    args = parser.parse_args()
    ports: mp.Queue[int] = mp.Queue()
    server = mp.Process(target=_serve, args=(ports,), daemon=True)
    server.start()
    port = ports.get(timeout=30)
    played: Synchronized[int] = mp.Value("q", 0)
    half = args.games // 2
    clients = [
        mp.Process(target=_play, args=(port, tables, played), daemon=True)
        for tables in (range(half), range(half, args.games))
    ]
    for c in clients:
        c.start()
    try:
        time.sleep(1.0)  # warm-up: connections made, tables playing
        cpu0, n0, t0 = _cpu_seconds(server.pid or 0), played.value, time.monotonic()
        time.sleep(args.seconds)
        cpu1, n1, t1 = _cpu_seconds(server.pid or 0), played.value, time.monotonic()
    finally:
        for p in (*clients, server):
            p.terminate()
    actions = max(1, n1 - n0)
    per_action = (cpu1 - cpu0) / actions * 1e6
    seconds, cpu = t1 - t0, cpu1 - cpu0
    print(f"{args.games} tables, {actions} actions in {seconds:.1f} s; server cpu {cpu:.2f} s")
    print(f"io_us_per_action: {per_action:.1f} actions_per_s: {actions / (t1 - t0):.0f}")


if __name__ == "__main__":
    main()
