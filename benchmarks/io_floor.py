"""What the websocket layer alone costs per action: the floor under ``server_load.py``'s
``server_us_per_action``.

Run it from the repository root (about 15 seconds)::

    .venv/bin/python benchmarks/io_floor.py
    .venv/bin/python benchmarks/io_floor.py --games 32 --seconds 10 --event-loop asyncio

A server process with no game in it, only the traffic of one, on the server's own
connections (:class:`server.connection.Connection`: websockets' sans-I/O protocol on an
asyncio transport, frames written at the end of the event loop's turn, on uvloop's event
loop unless ``--event-loop asyncio``), as ``hexhaven serve`` runs them: each of
``--games`` tables has four websocket connections; a client's ``act`` frame is decoded
with msgpack, and the server answers as a Hexhaven room does in the common case: one
``events`` frame to each of the four seats (encoded and framed once) and a ``prompt``
frame to the next seat. The clients (two processes) answer every prompt at once. After a
second of warm-up, the server's CPU time (user + sys, from /proc) over ``--seconds`` is
divided by the actions played, and so is its kernel's share (``sys``). What ``hexhaven
serve`` spends per action beyond this is the game: rules, the per-seat forms, the store,
the session's rules, and the glue between them.

The last line is ``io_us_per_action: X sys_us_per_action: S actions_per_s: Y``.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import os
import sys
import time
from multiprocessing.sharedctypes import Synchronized
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import msgpack  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402
from websockets.http11 import Request, Response  # noqa: E402
from websockets.server import ServerProtocol  # noqa: E402

from protocol import SUBPROTOCOL_MSGPACK  # noqa: E402
from protocol.server_session import ServerSession  # noqa: E402
from server.connection import Connection, Turn, framed  # noqa: E402

SEATS = 4


class _Tables:
    """The server's side: a host for the connections that only moves frames."""

    def __init__(self) -> None:
        self.tables: dict[str, list[Connection | None]] = {}
        self.seat_of: dict[Connection, tuple[str, int]] = {}

    def accepted(self, conn: Connection) -> None:
        pass

    def respond(self, protocol: ServerProtocol, request: Request) -> Response | None:
        return None

    def opened(self, conn: Connection, request: Request) -> ServerSession:
        table, seat_text = request.path.strip("/").split("/")
        seat = int(seat_text)
        self.tables.setdefault(table, [None] * SEATS)[seat] = conn
        self.seat_of[conn] = (table, seat)
        return ServerSession(conn.subprotocol, clock=time.monotonic, server_name="floor")

    def received(self, conn: Connection, payload: bytes | str) -> bool:
        assert isinstance(payload, bytes)
        act = msgpack.unpackb(payload)
        table, seat = self.seat_of[conn]
        seats = self.tables[table]
        state = act["state_id"] + 1
        events = framed(
            msgpack.packb(
                {"type": "events", "game": table, "state_id": state, "events": [{"kind": "x"}]}
            )
        )
        for other in seats:
            if other is not None:
                other.send_frame(events)
        after = seats[(seat + 1) % SEATS]
        if after is not None:
            prompt = {"type": "prompt", "game": table, "state_id": state, "seat": 0}
            after.send_frame(framed(msgpack.packb(prompt)))
        return False

    def closed(self, conn: Connection) -> None:
        self.seat_of.pop(conn, None)


def _serve(ports: mp.Queue[int], event_loop: str) -> None:
    host = _Tables()
    turn = Turn()

    def connection() -> Connection:
        return Connection(
            host,
            subprotocols=[SUBPROTOCOL_MSGPACK],  # type: ignore[list-item]
            max_message=2**20,
            max_bytes=8 * 2**20,
            clock=time.monotonic,
            turn=turn,
        )

    async def main() -> None:
        server = await asyncio.get_running_loop().create_server(connection, "127.0.0.1", 0)
        ports.put(server.sockets[0].getsockname()[1])
        await asyncio.Future()

    factory = None
    if event_loop == "uvloop":
        import uvloop

        factory = uvloop.new_event_loop
    with asyncio.Runner(loop_factory=factory) as runner:
        runner.run(main())


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
        seats = [
            await connect(f"{url}/{s}", compression=None, subprotocols=[SUBPROTOCOL_MSGPACK])  # type: ignore[list-item]
            for s in range(SEATS)
        ]
        await seats[0].send(msgpack.packb({"type": "act", "state_id": 0}))
        await asyncio.gather(*(seat(ws) for ws in seats))

    async def main() -> None:
        await asyncio.gather(*(table(n) for n in tables))

    asyncio.run(main())


def _cpu_seconds(pid: int) -> tuple[float, float]:
    """User + sys, and sys, CPU seconds of a process (from /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick, int(fields[12]) / tick


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=16, help="tables of four connections")
    parser.add_argument("--seconds", type=float, default=6.0, help="measured for this long")
    parser.add_argument(
        "--event-loop", choices=("uvloop", "asyncio"), default="uvloop", help="the server's"
    )
    args = parser.parse_args()
    ports: mp.Queue[int] = mp.Queue()
    server = mp.Process(target=_serve, args=(ports, args.event_loop), daemon=True)
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
        (cpu0, sys0), n0, t0 = _cpu_seconds(server.pid or 0), played.value, time.monotonic()
        time.sleep(args.seconds)
        (cpu1, sys1), n1, t1 = _cpu_seconds(server.pid or 0), played.value, time.monotonic()
    finally:
        for p in (*clients, server):
            p.terminate()
    actions = max(1, n1 - n0)
    seconds, cpu = t1 - t0, cpu1 - cpu0
    print(
        f"{args.games} tables on {args.event_loop}, {actions} actions in {seconds:.1f} s; "
        f"server cpu {cpu:.2f} s"
    )
    print(
        f"io_us_per_action: {cpu / actions * 1e6:.1f} "
        f"sys_us_per_action: {(sys1 - sys0) / actions * 1e6:.1f} "
        f"actions_per_s: {actions / seconds:.0f}"
    )


if __name__ == "__main__":
    main()
