"""Where a server action's time goes, and how many people's games one server process holds.

Run it from the repository root (about two minutes; keep the machine otherwise quiet)::

    .venv/bin/python benchmarks/server_load.py
    .venv/bin/python benchmarks/server_load.py --actions 20000 --games 64 --think-ms 200 \\
        --clients-procs 2 --max-seconds 120 --py-spy /tmp/server.txt

Every server is ``python -m app.cli serve`` on 127.0.0.1 with a fresh SQLite file (with
``--db POSTGRESQL_URL``, a fresh database made on that PostgreSQL server), its log
(``--log-level``, ``info`` as deployed) written to a file; each is stopped before the next
starts. The clients run in ``--clients-procs`` processes, each holding many websocket
connections in asyncio (msgpack, no compression: the server negotiates none), each one
websockets' sans-I/O client protocol on a transport, handling each message as it is read;
they decode frames with msgpack alone and answer every prompt with a uniformly random
listed action, so they cost far less than the server. They stand for people on machines
of their own, so their garbage collector does not run during a run (its pauses, 80 ms and
more with a few hundred games, would show in the round trips as the server's). Four
clients play each game, from a loopback address of the game's own (127.x.y.z: the server
limits what one address may ask, as it would limit one person); a finished game is
replaced.

1. **Saturation.** ``--games`` games whose clients act as soon as prompted. After a
   warm-up, the server's CPU time (user + sys of every thread, from /proc) over the next
   ``--actions`` actions it stores, per action: ``server_us_per_action``; and how much of
   it is the event loop's thread (the rest is the store's writer thread).
2. **The engine alone.** The same actions (the window's rows of the server's store)
   replayed here: ``engine.check`` + ``engine.apply`` per action, CPU time:
   ``engine_us_per_action``. Their ratio, ``overhead_ratio``, holds across machines where
   the absolute figures do not. Then up to ``--breakdown-actions`` of them go through the
   server's own pieces, timed part by part: on the event loop, the act's frame read and
   decoded, the table's check and act, the prompts, each message encoded and framed (and
   deflated, if the server negotiated it), the store's row made and the log line; on the
   writer thread, the rows committed one action a transaction and in batches. What the
   event loop spends beyond its parts is asyncio, socket I/O and the room's and
   connection's glue. With ``--py-spy FILE`` (py-spy installed in the venv; it is no
   dependency) the server is also sampled during the window (which then costs a little
   more) and its samples sorted into the same parts, thread by thread.
3. **Paced.** Games whose clients think before each action (``--think-ms`` on average,
   drawn uniformly within ``--think-spread`` of it, so games do not fall into step): the
   most concurrent games the server serves with the p99 of the action round trip (act
   sent to its events received) under ``--p99-ms``, searched upward from an estimate made
   from part 1 (doubling, then bisecting; ``--level-seconds`` measured per level, a fresh
   server each, within what is left of ``--max-seconds``): ``paced_games``, and
   ``p99_ms`` at that number. ``--levels N ...`` measures those numbers of games instead,
   in order. Each level prints what other processes, interrupts and the
   hypervisor (steal) took meanwhile: a level missed while they were busy says little.

The last line is ``server_us_per_action: X engine_us_per_action: Y overhead_ratio: R
paced_games: N p99_ms: Z``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import math
import multiprocessing as mp
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection as Pipe
from multiprocessing.sharedctypes import Synchronized
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import msgpack  # noqa: E402
from _server_parts import (  # noqa: E402
    PARTS,
    WRITER_PARTS,
    Marks,
    breakdown,
    engine_seconds,
    marks,
    spy_parts,
    window,
)
from _server_parts import load as load_games  # noqa: E402
from websockets.client import ClientProtocol  # noqa: E402
from websockets.frames import Frame, Opcode  # noqa: E402
from websockets.http11 import Response  # noqa: E402
from websockets.typing import Subprotocol  # noqa: E402
from websockets.uri import parse_uri  # noqa: E402

from protocol.messages import PROTOCOL_VERSION, SUBPROTOCOL_MSGPACK  # noqa: E402

PLAYERS = 4
SETUP_TIMEOUT = 30.0
"""Seconds a server may take to listen, and a level's games to start."""

Event = Any
"""A ``multiprocessing`` event (its class is not importable for annotations)."""
SPIED = {"loop": "event loop", "threads": "other threads"}


# --- the clients (run in worker processes) ------------------------------------------------


@dataclass
class Run:
    """What one client process saw in one run."""

    sent: list[float] = field(default_factory=list)
    """When each answered act was sent (monotonic seconds)..."""
    latencies: list[float] = field(default_factory=list)
    """...and how long until its events came back."""
    unanswered: list[float] = field(default_factory=list)
    """When each act still unanswered at the stop was sent."""
    stopped: float = 0.0
    deflate: bool = False
    """Whether the server negotiated per-message deflate."""
    games: int = 0
    refused: int = 0
    failures: list[str] = field(default_factory=list)
    cpu: float = 0.0


class Seat(asyncio.Protocol):
    """One player's connection, each message handled as it is read (no task of its own),
    so that a client costs little beside the server it measures: websockets' sans-I/O
    client protocol makes the handshake and every frame sent; the server's frames (never
    masked, fragmented or compressed) are split by their headers here."""

    def __init__(self, clients: Clients, url: str) -> None:
        self.clients = clients
        self.protocol = ClientProtocol(
            parse_uri(url), subprotocols=[Subprotocol(SUBPROTOCOL_MSGPACK)], max_size=2**22
        )
        self.transport: asyncio.Transport | None = None
        loop = asyncio.get_running_loop()
        self.opened: asyncio.Future[None] = loop.create_future()
        self.over: asyncio.Future[None] = loop.create_future()
        """Done when the game is over (or the connection lost)."""
        self.inbox: deque[dict[str, Any]] = deque()
        """Messages read while the game is being set up, for :meth:`expect`."""
        self.arrived: asyncio.Future[None] | None = None
        self.game: str | None = None
        """The game played, once set up: messages are then handled as they come."""
        self.asked = -2
        """The state of the act awaiting its events."""
        self.aborted = False
        self.buffer = b""
        """The start of a frame read in part."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        self.protocol.send_request(self.protocol.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        if self.opened.done():
            self._frames(data)
            return
        protocol = self.protocol
        protocol.receive_data(data)
        events = protocol.events_received()
        self._flush()
        for event in events:
            if isinstance(event, Frame):
                if event.opcode is Opcode.BINARY:
                    self._message(msgpack.unpackb(event.data))
            elif isinstance(event, Response) and not self.opened.done():
                if event.status_code == 101:
                    self.opened.set_result(None)
                else:
                    self.opened.set_exception(ConnectionError(f"HTTP {event.status_code}"))

    def _frames(self, data: bytes) -> None:
        """Read the server's frames: binary ones are messages, a ping is answered, a close
        ends the connection."""
        buf = self.buffer + data if self.buffer else data
        pos, end = 0, len(buf)
        while end - pos >= 2:
            opcode, length = buf[pos] & 0x0F, buf[pos + 1] & 0x7F
            head = 2
            if length == 126:
                length, head = int.from_bytes(buf[pos + 2 : pos + 4]), 4
            elif length == 127:
                length, head = int.from_bytes(buf[pos + 2 : pos + 10]), 10
            stop = pos + head + length
            if stop > end or end - pos < head:
                break
            payload = buf[pos + head : stop]
            pos = stop
            if opcode == Opcode.BINARY:
                self._message(msgpack.unpackb(payload))
            elif opcode == Opcode.PING:
                self.protocol.send_pong(payload)
                self._flush()
            elif opcode == Opcode.CLOSE:
                self.abort()
                return
        self.buffer = buf[pos:]

    def connection_lost(self, exc: Exception | None) -> None:
        for future in (self.opened, self.over, self.arrived):
            if future is not None and not future.done():
                if self.aborted:  # ended here: nobody waits for it any more
                    future.cancel()
                else:
                    future.set_exception(ConnectionError("the connection was lost"))

    def _flush(self) -> None:
        assert self.transport is not None
        for data in self.protocol.data_to_send():
            if data:
                self.transport.write(data)

    def send(self, message: dict[str, Any]) -> None:
        self.protocol.send_binary(msgpack.packb(message))
        self._flush()

    async def expect(self, kind: str) -> dict[str, Any]:
        """Read until a message of ``kind``; raises RuntimeError on an error."""
        while True:
            while not self.inbox:
                self.arrived = asyncio.get_running_loop().create_future()
                await self.arrived
            msg = self.inbox.popleft()
            if msg["type"] == kind:
                return msg
            if msg["type"] == "error":
                raise RuntimeError(f"refused while waiting for {kind}: {msg.get('message')}")

    def _message(self, msg: dict[str, Any]) -> None:
        if self.game is None:
            self.inbox.append(msg)
            if self.arrived is not None and not self.arrived.done():
                self.arrived.set_result(None)
            return
        clients = self.clients
        kind = msg["type"]
        if kind == "events":
            if msg["state_id"] == self.asked + 1:
                sent = clients.waiting.pop(id(self), None)
                if sent is not None:
                    clients.run.sent.append(sent)
                    clients.run.latencies.append(time.monotonic() - sent)
                self.asked = -2
        elif kind == "prompt":
            if msg["actions"]:
                think = clients.think
                if think[1] > 0:
                    pause = clients.rnd.uniform(*think)
                    asyncio.get_running_loop().call_later(pause, self._act, msg)
                else:
                    self._act(msg)
        elif kind == "game_over":
            if not self.over.done():
                self.over.set_result(None)
        elif kind == "error":
            clients.run.refused += 1
            if clients.waiting.pop(id(self), None) is not None:
                self.asked = -2  # a stale act: another seat's moved the game on

    def _act(self, prompt: dict[str, Any]) -> None:
        if self.over.done() or self.transport is None or self.transport.is_closing():
            return
        self.asked = prompt["state_id"]
        action = self.clients.rnd.choice(prompt["actions"])
        self.clients.waiting[id(self)] = time.monotonic()
        self.send({"type": "act", "game": self.game, "state_id": self.asked, "action": action})

    def abort(self) -> None:
        self.aborted = True
        if self.transport is not None:
            self.transport.abort()


class Clients:
    """The games of one client process in one run."""

    def __init__(
        self, url: str, think: tuple[float, float], rnd: random.Random, ready: Synchronized[int]
    ) -> None:
        self.url = url
        self.think = think
        """Seconds a seat pauses before acting, drawn uniformly from this range."""
        self.rnd = rnd
        self.ready = ready
        self.run = Run()
        self.open: set[Seat] = set()
        self.waiting: dict[int, float] = {}
        """Seat -> when its unanswered act was sent."""

    async def slot(self, address: str, stagger: float) -> None:
        """Keep one game going from its own loopback address: play it, then another,
        until cancelled."""
        await asyncio.sleep(self.rnd.uniform(0.0, stagger))
        first = True
        while True:
            try:
                await self.game(address, first)
            except Exception as exc:  # refused, timed out, a closed connection, a bad frame
                self.run.failures.append(f"{type(exc).__name__}: {exc}")
                return
            first = False
            self.run.games += 1

    async def game(self, address: str, first: bool) -> None:
        seats: list[Seat] = []
        loop = asyncio.get_running_loop()
        parts = urllib.parse.urlsplit(self.url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        try:
            async with asyncio.timeout(SETUP_TIMEOUT):
                for _ in range(PLAYERS):
                    _, seat = await loop.create_connection(
                        lambda: Seat(self, self.url),
                        host,
                        port,
                        local_addr=(address, 0),
                    )
                    seats.append(seat)
                    self.open.add(seat)
                    await seat.opened
                for seat in seats:
                    seat.send({"type": "hello", "protocol": PROTOCOL_VERSION, "client": "load"})
                    await seat.expect("welcome")
                seats[0].send({"type": "create_game", "options": {"players": PLAYERS}})
                game = (await seats[0].expect("game_created"))["game"]
                for i, seat in enumerate(seats):
                    seat.send({"type": "join_game", "game": game, "name": f"p{i}"})
                    await seat.expect("joined")
                for seat in seats:
                    seat.game = game  # from now on each message is handled as it comes
                    for msg in seat.inbox:
                        seat._message(msg)
                    seat.inbox.clear()
                seats[0].send({"type": "start_game", "game": game})
            if first:
                with self.ready.get_lock():
                    self.ready.value += 1
            await asyncio.wait([s.over for s in seats], return_when=asyncio.FIRST_EXCEPTION)
            for seat in seats:
                seat.over.result()  # a connection lost mid-game fails the game
        finally:
            for seat in seats:
                self.open.discard(seat)
                seat.abort()

    async def play(self, games: int, stagger: float, stop: Event, net: int) -> Run:
        """Play ``games`` games at once, each from its own address in 127.``net``.0.0/16,
        until ``stop`` is set."""
        cpu0 = time.process_time()
        tasks = [
            asyncio.create_task(self.slot(f"127.{net}.{i // 250}.{i % 250 + 1}", stagger))
            for i in range(games)
        ]
        while not stop.is_set() and not all(t.done() for t in tasks):
            await asyncio.sleep(0.02)
        self.run.stopped = time.monotonic()
        self.run.unanswered = list(self.waiting.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for seat in self.open:
            seat.abort()
        self.run.cpu = time.process_time() - cpu0
        return self.run


def _client_loop() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop for the clients where it is installed (it costs them less),
    else asyncio's own."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def _worker(pipe: Pipe, stop: Event, ready: Synchronized[int], seed: int, net: int) -> None:
    """A client process: run what the pipe asks, until it sends None."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops us
    runs = 0
    while True:
        order = pipe.recv()
        if order is None:
            return
        url, games, think, stagger = order
        clients = Clients(url, think, random.Random(seed * 1000 + runs), ready)
        # The clients stand for people on machines of their own: a pause of this process's
        # garbage collector would show in the server's round trips, so it does not collect
        # during a run (what the run leaves is collected after it).
        gc.collect()
        gc.disable()
        try:
            with asyncio.Runner(loop_factory=_client_loop()) as runner:
                pipe.send(runner.run(clients.play(games, stagger, stop, net)))
        finally:
            gc.enable()
            gc.collect()
        runs += 1


class ClientPool:
    """Client processes kept for the whole benchmark, told what to play run by run."""

    def __init__(self, procs: int, seed: int) -> None:
        ctx = mp.get_context("spawn")
        self.stop = ctx.Event()
        self.ready: Synchronized[int] = ctx.Value("i", 0)
        self.pipes: list[Pipe] = []
        self.procs: list[mp.process.BaseProcess] = []
        self.busy: list[Pipe] = []
        for i in range(procs):
            ours, theirs = ctx.Pipe()
            proc = ctx.Process(
                target=_worker,
                args=(theirs, self.stop, self.ready, seed + i, 1 + i),
                daemon=True,
            )
            proc.start()
            self.pipes.append(ours)
            self.procs.append(proc)

    def start(self, url: str, games: int, think: tuple[float, float], stagger: float) -> None:
        self.stop.clear()
        self.ready.value = 0
        n = len(self.pipes)
        shares = [games // n + (i < games % n) for i in range(n)]
        self.busy = []
        for pipe, share in zip(self.pipes, shares, strict=True):
            if share:
                pipe.send((url, share, think, stagger))
                self.busy.append(pipe)

    def finish(self) -> list[Run]:
        """Stop the run and collect what each process saw."""
        self.stop.set()
        runs = []
        for pipe in self.busy:
            if not pipe.poll(SETUP_TIMEOUT):
                raise RuntimeError("a client process did not stop")
            runs.append(pipe.recv())
        self.busy = []
        return runs

    def cpu(self) -> float:
        return sum(_cpu_seconds(p.pid) for p in self.procs if p.pid is not None)

    def close(self) -> None:
        self.stop.set()
        for pipe in self.pipes:
            with contextlib.suppress(OSError):
                pipe.send(None)
        for proc in self.procs:
            proc.join(5)
            if proc.is_alive():
                proc.terminate()
                proc.join(5)


# --- the server ---------------------------------------------------------------------------


def _cpu_seconds(pid: int, thread: int | None = None, *, user: bool = True) -> float:
    """User + sys CPU seconds of a process, or of one of its threads (from /proc; clock
    ticks); sys alone without ``user``."""
    where = f"/proc/{pid}/stat" if thread is None else f"/proc/{pid}/task/{thread}/stat"
    fields = Path(where).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) * user + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Server:
    proc: subprocess.Popen[bytes]
    url: str
    db: str
    """Its database: a SQLite file's path or a PostgreSQL URL."""

    def cpu(self) -> float:
        """CPU seconds of the whole process, every thread."""
        return _cpu_seconds(self.proc.pid)

    def system_cpu(self) -> float:
        """CPU seconds of the whole process in the kernel (system calls, and loopback
        networking done on their behalf)."""
        return _cpu_seconds(self.proc.pid, user=False)

    def loop_cpu(self) -> float:
        """CPU seconds of its main thread, the event loop's."""
        return _cpu_seconds(self.proc.pid, self.proc.pid)


POSTGRES: str | None = None
"""``--db``: the PostgreSQL server each server gets a fresh database on (None: SQLite
files)."""


def _fresh_database(scratch: Path, name: str) -> str:
    """A new, empty database for one server: a SQLite file in ``scratch``, or a database
    made on :data:`POSTGRES` (its URL)."""
    if POSTGRES is None:
        return str(scratch / f"{name}.db")
    import psycopg

    made = f"hexhaven_load_{os.getpid()}_{name.replace('-', '_')}"
    with psycopg.connect(POSTGRES, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {made}")
        conn.execute(f"CREATE DATABASE {made}")
    parts = urllib.parse.urlsplit(POSTGRES)
    return urllib.parse.urlunsplit(parts._replace(path=f"/{made}"))


@contextlib.contextmanager
def serving(scratch: Path, name: str, log_level: str) -> Iterator[Server]:
    """A ``hexhaven serve`` process on 127.0.0.1 with a fresh database; stopped on exit."""
    port = _free_port()
    db = _fresh_database(scratch, name)
    with (scratch / f"{name}.log").open("wb") as log:
        proc = subprocess.Popen(
            [
                sys.executable, "/tmp/exp/prof_serve.py", "serve", "--host", "127.0.0.1",
                "--port", str(port), "--db", db, "--log-level", log_level,
            ],
            cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
        )  # fmt: skip
    try:
        limit = time.monotonic() + SETUP_TIMEOUT
        while True:
            if proc.poll() is not None:
                tail = (scratch / f"{name}.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"the server exited ({proc.returncode}):\n{tail}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > limit:
                    raise RuntimeError("the server did not listen") from None
                time.sleep(0.05)
        yield Server(proc, f"ws://127.0.0.1:{port}", db)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def _machine() -> tuple[float, float, float]:
    """CPU seconds the whole machine has spent, all cores together (from /proc/stat): in
    processes (user, nice, system), in interrupts (loopback networking is mostly here),
    and stolen by the hypervisor."""
    ticks = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = ticks
    hz = os.sysconf("SC_CLK_TCK")
    return (user + nice + system) / hz, (irq + softirq) / hz, steal / hz


@dataclass(frozen=True)
class Sample:
    """The clocks at one moment of a run: wall, CPU (server, clients, this process, the
    machine's processes, interrupts and steal) and the last action stored."""

    wall: float
    server: float
    system: float
    loop: float
    clients: float
    own: float
    machine: tuple[float, float, float]
    stored: Marks

    @classmethod
    def take(cls, server: Server, pool: ClientPool) -> Sample:
        return cls(
            time.monotonic(),
            server.cpu(),
            server.system_cpu(),
            server.loop_cpu(),
            pool.cpu(),
            time.process_time(),
            _machine(),
            marks(server.db),
        )

    def others(self, before: Sample) -> tuple[float, float, float]:
        """The shares of one core taken since ``before`` by other processes (not this
        benchmark's), by interrupts and by the hypervisor's steal."""
        ours = (self.server - before.server) + (self.clients - before.clients)
        ours += self.own - before.own
        wall = self.wall - before.wall
        busy, irq, steal = (
            now - then for now, then in zip(self.machine, before.machine, strict=True)
        )
        return max(0.0, busy - ours) / wall, irq / wall, steal / wall


# --- part 1: saturation -------------------------------------------------------------------


@dataclass
class Saturation:
    actions: int
    seconds: float
    server_cpu: float
    system_cpu: float
    """The kernel's share of ``server_cpu``."""
    loop_cpu: float
    """The server's event-loop thread's share of ``server_cpu``."""
    clients_cpu: float
    others: tuple[float, float, float]
    """The shares of a core other processes, interrupts and steal took meanwhile."""
    before: Marks
    after: Marks
    """What the store held when the measured window began and ended."""
    db: str
    refused: int
    failures: list[str]
    deflate: bool


def _wait_stored(db: str, at_least: int, until: float) -> int:
    """Wait until the store holds ``at_least`` actions (or ``until``); how many it holds."""
    while True:
        stored = sum(marks(db).values())
        if stored >= at_least or time.monotonic() > until:
            return stored
        time.sleep(0.05)


def saturate(
    pool: ClientPool,
    scratch: Path,
    games: int,
    actions: int,
    log_level: str,
    seconds: float,
    spy: Path | None,
) -> Saturation:
    """Part 1: the server's CPU over ``actions`` actions with clients that never wait."""
    until = time.monotonic() + seconds
    with serving(scratch, "saturation", log_level) as server:
        pool.start(server.url, games, (0.0, 0.0), 0.2)
        warm = _wait_stored(server.db, max(200, actions // 10), until)
        first = Sample.take(server, pool)
        spying = _py_spy(server.proc.pid, spy) if spy else None
        _wait_stored(server.db, warm + actions, until)
        last = Sample.take(server, pool)
        if spying is not None:
            spying.send_signal(signal.SIGINT)
            try:
                spying.wait(20)
            except subprocess.TimeoutExpired:
                spying.kill()
                spying.wait(5)
        runs = pool.finish()
    return Saturation(
        actions=_stored_between(first, last),
        seconds=last.wall - first.wall,
        server_cpu=last.server - first.server,
        system_cpu=last.system - first.system,
        loop_cpu=last.loop - first.loop,
        clients_cpu=last.clients - first.clients,
        others=last.others(first),
        before=first.stored,
        after=last.stored,
        db=server.db,
        refused=sum(r.refused for r in runs),
        failures=[f for r in runs for f in r.failures],
        deflate=any(r.deflate for r in runs),
    )


def _py_spy(pid: int, out: Path) -> subprocess.Popen[bytes] | None:
    exe = Path(sys.executable).with_name("py-spy")
    if not exe.exists():
        print(f"  (no py-spy at {exe}: pip install py-spy into the venv to sample the server)")
        return None
    return subprocess.Popen(
        [str(exe), "record", "--pid", str(pid), "--rate", "200",
         "--format", "raw", "--full-filenames", "-o", str(out)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


# --- part 3: paced games ------------------------------------------------------------------


@dataclass
class Level:
    games: int
    p50: float
    p99: float
    actions_per_s: float
    server_share: float
    server_us: float
    """Server CPU per action stored."""
    clients_share: float
    others: tuple[float, float, float]
    """The shares of a core other processes, interrupts and steal took meanwhile."""
    failures: int
    samples: int

    def held(self, limit_ms: float) -> bool:
        return self.failures == 0 and self.samples >= 50 and self.p99 < limit_ms


def paced_level(
    pool: ClientPool,
    scratch: Path,
    games: int,
    think: tuple[float, float],
    seconds: float,
    log_level: str,
) -> Level:
    """``games`` games whose clients pause before each action (seconds, drawn uniformly
    from the range ``think``): the round trips of the acts sent during ``seconds`` once
    every game has started."""
    with serving(scratch, f"paced-{games}", log_level) as server:
        pool.start(server.url, games, think, max(think[1], 0.01 * games))
        limit = time.monotonic() + SETUP_TIMEOUT
        while pool.ready.value < games and time.monotonic() < limit:
            time.sleep(0.05)
        time.sleep(think[1] + 0.3)  # past the start's burst of view messages
        first = Sample.take(server, pool)
        time.sleep(seconds)
        last = Sample.take(server, pool)
        m0, m1 = first.wall, last.wall
        time.sleep(0.3)  # acts sent just before m1 come back
        runs = pool.finish()
    lat = [x for r in runs for s, x in zip(r.sent, r.latencies, strict=True) if m0 <= s < m1] + [
        r.stopped - s for r in runs for s in r.unanswered if m0 <= s < m1
    ]
    lat.sort()
    wall = m1 - m0
    return Level(
        games=games,
        p50=statistics.median(lat) * 1000 if lat else math.inf,
        p99=_quantile(lat, 0.99) * 1000 if lat else math.inf,
        actions_per_s=len(lat) / wall,
        server_share=(last.server - first.server) / wall,
        server_us=1e6 * (last.server - first.server) / max(1, _stored_between(first, last)),
        clients_share=(last.clients - first.clients) / wall,
        others=last.others(first),
        failures=sum(len(r.failures) for r in runs) + (pool.ready.value < games),
        samples=len(lat),
    )


def _stored_between(first: Sample, last: Sample) -> int:
    """Actions the store took between two samples."""
    return sum(s.last - s.first + 1 for s in window(first.stored, last.stored))


def _quantile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


def _report(level: Level, limit_ms: float) -> None:
    print(
        f"  games {level.games:4d}: {level.actions_per_s:7.1f} actions/s  p50 {level.p50:7.2f} ms  "
        f"p99 {level.p99:7.2f} ms  server cpu {100 * level.server_share:5.1f}% "
        f"({level.server_us:4.0f} us/action)  clients {100 * level.clients_share:4.1f}%  "
        f"others {100 * level.others[0]:4.1f}%  irq {100 * level.others[1]:4.1f}%  "
        f"steal {100 * level.others[2]:4.1f}%  "
        f"{'held' if level.held(limit_ms) else 'missed'}"
        + (f"  ({level.failures} failed)" if level.failures else ""),
        flush=True,
    )


def levels(
    pool: ClientPool,
    scratch: Path,
    counts: list[int],
    think: tuple[float, float],
    seconds: float,
    limit_ms: float,
    log_level: str,
) -> Level | None:
    """Each of ``counts`` paced games measured once, in order; the largest that held."""
    best: Level | None = None
    for n in counts:
        level = paced_level(pool, scratch, n, think, seconds, log_level)
        _report(level, limit_ms)
        if level.held(limit_ms) and (best is None or n > best.games):
            best = level
    return best


def search(
    pool: ClientPool,
    scratch: Path,
    start: int,
    think: tuple[float, float],
    seconds: float,
    limit_ms: float,
    log_level: str,
    until: float,
) -> Level | None:
    """The largest number of paced games found whose p99 stays under ``limit_ms``:
    doubling from ``start`` (halving while it fails), then bisecting, while time is left."""
    tried: dict[int, Level] = {}
    level_cost = seconds + think[1] + 4.0  # a server's start, the games' start, the stop

    def trial(n: int) -> bool:
        level = paced_level(pool, scratch, n, think, seconds, log_level)
        tried[n] = level
        _report(level, limit_ms)
        return level.held(limit_ms)

    def time_left() -> bool:
        return time.monotonic() + level_cost + 0.01 * max(tried, default=0) < until

    lo, hi = 0, 0  # held at lo, missed at hi (0: not yet known)
    n = max(1, start)
    while time_left():
        if trial(n):
            lo = n
            if hi:
                break
            n *= 2
        else:
            hi = n
            if lo or n == 1:
                break
            n //= 2
    while lo and hi and hi - lo > max(1, lo // 8) and time_left():
        mid = (lo + hi) // 2
        if trial(mid):
            lo = mid
        else:
            hi = mid
    return tried.get(lo)


# --- the whole ----------------------------------------------------------------------------


def _engine_build() -> str:
    import engine.rules

    return "compiled (mypyc)" if engine.rules.__file__.endswith((".so", ".pyd")) else "interpreted"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--actions", type=int, default=20_000, help="actions measured at saturation"
    )
    parser.add_argument(
        "--games",
        type=int,
        default=64,
        help="games at once at saturation (enough that the server, not the round trip, "
        "sets the pace)",
    )
    parser.add_argument(
        "--think-ms", type=float, default=200.0, help="paced clients' mean pause before acting"
    )
    parser.add_argument(
        "--think-spread",
        type=float,
        default=0.5,
        help="pauses are drawn uniformly from think-ms x (1 +- this); 0: always think-ms",
    )
    parser.add_argument(
        "--p99-ms", type=float, default=50.0, help="the p99 round trip a paced level keeps under"
    )
    parser.add_argument(
        "--level-seconds", type=float, default=6.0, help="seconds measured per paced level"
    )
    parser.add_argument(
        "--clients-procs",
        type=int,
        default=max(2, min(4, os.cpu_count() or 2)),
        help="client processes, each running many games in asyncio",
    )
    parser.add_argument(
        "--max-seconds", type=float, default=120.0, help="the whole run's time, roughly"
    )
    parser.add_argument(
        "--breakdown-actions",
        type=int,
        default=3000,
        help="actions replayed part by part (0: none)",
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["debug", "info", "warning"],
        help="the server's (as hexhaven serve's; info as deployed)",
    )
    parser.add_argument("--py-spy", type=Path, default=None, help="sample the server to FILE")
    parser.add_argument("--no-paced", action="store_true", help="skip part 3")
    parser.add_argument(
        "--levels",
        type=int,
        nargs="+",
        default=None,
        metavar="GAMES",
        help="part 3 measures these numbers of paced games, in order, instead of searching",
    )
    parser.add_argument("--seed", type=int, default=0, help="the clients' choices")
    parser.add_argument(
        "--db",
        default=None,
        metavar="POSTGRESQL_URL",
        help="serve from PostgreSQL: each server gets a fresh database made on this server "
        "(its user may create databases); default: a fresh SQLite file each",
    )
    args = parser.parse_args(argv)
    global POSTGRES
    POSTGRES = args.db
    began = time.monotonic()
    until = began + args.max_seconds
    load = Path("/proc/loadavg").read_text().split()[:3]
    print(
        f"server load: {os.cpu_count()} cores, load average {' '.join(load)}; engine "
        f"{_engine_build()}; server log level {args.log_level}; {args.clients_procs} client "
        "processes",
        flush=True,
    )

    pool = ClientPool(args.clients_procs, args.seed)
    try:
        with tempfile.TemporaryDirectory(prefix="hexhaven-load-") as tmp:
            scratch = Path(tmp)
            sat = saturate(
                pool, scratch, args.games, args.actions, args.log_level,
                min(0.4 * args.max_seconds, 90.0), args.py_spy,
            )  # fmt: skip
            if sat.actions <= 0:
                raise SystemExit(f"no actions at saturation: {sat.failures[:3]}")
            server_us = 1e6 * sat.server_cpu / sat.actions
            print(
                f"saturation: {args.games} games, {sat.actions} actions in {sat.seconds:.1f} s "
                f"({sat.actions / sat.seconds:.0f} actions/s); server cpu "
                f"{100 * sat.server_cpu / sat.seconds:.0f}% (system "
                f"{100 * sat.system_cpu / max(1e-9, sat.server_cpu):.0f}% of it), clients cpu "
                f"{100 * sat.clients_cpu / sat.seconds:.0f}% "
                f"({1e6 * sat.clients_cpu / sat.actions:.0f} us/action), other processes "
                f"{100 * sat.others[0]:.0f}%, irq {100 * sat.others[1]:.0f}%, steal "
                f"{100 * sat.others[2]:.0f}%; "
                f"{sat.refused} acts refused"
                + (
                    f"; {len(sat.failures)} games failed: {sat.failures[:2]}"
                    if sat.failures
                    else ""
                ),
                flush=True,
            )
            games = load_games(sat.db, window(sat.before, sat.after))
            engine_s, replayed = engine_seconds(games)
            if replayed != sat.actions:
                raise SystemExit(f"replayed {replayed} actions of the window's {sat.actions}")
            engine_us = 1e6 * engine_s / replayed
            loop_us = 1e6 * sat.loop_cpu / sat.actions
            print(
                f"  server {server_us:.1f} us/action (event loop {loop_us:.1f}, other threads: "
                f"the store's writer {server_us - loop_us:.1f}); engine check+apply "
                f"{engine_us:.1f} us/action (the same {replayed} actions replayed); ratio "
                f"{server_us / engine_us:.1f}",
                flush=True,
            )
            if args.breakdown_actions > 0:
                parts = breakdown(
                    games, scratch, args.log_level, args.breakdown_actions, sat.deflate
                )
                per = {k: 1e6 * v / parts.actions for k, v in parts.seconds.items()}
                print(
                    f"the event loop's parts, replayed ({parts.actions} actions; per action "
                    f"{parts.messages / parts.actions:.2f} messages to seats, "
                    f"{parts.prompts / parts.actions:.2f} of them prompts; "
                    f"{parts.message_bytes / parts.messages:.0f} bytes a frame, "
                    + (
                        f"{parts.frame_bytes / parts.messages:.0f} deflated"
                        if sat.deflate
                        else "not deflated: the server negotiates no compression"
                    )
                    + "), us/action:",
                    flush=True,
                )
                for name in PARTS:
                    print(f"  {name:36s} {per.get(name, 0.0):8.1f}")
                modelled = sum(per.values())
                print(f"  {'sum of the parts':36s} {modelled:8.1f}")
                print(
                    f"  {'rest: asyncio, socket I/O, glue':36s} {loop_us - modelled:8.1f}"
                    f"  (the event loop's {loop_us:.1f} minus the sum)"
                )
                print(f"the store's writer thread (server: {server_us - loop_us:.1f}), us/action:")
                for name in WRITER_PARTS:
                    print(f"  {name:36s} {1e6 * parts.writer[name] / parts.actions:8.1f}")
            if args.py_spy is not None and args.py_spy.exists():
                threads = spy_parts(args.py_spy)
                for thread, cpu in (("loop", loop_us), ("threads", server_us - loop_us)):
                    shares, samples = threads[thread]
                    print(
                        f"py-spy samples of the server's {SPIED[thread]} ({samples}), its "
                        f"{cpu:.1f} us/action by part:"
                    )
                    for name, share in sorted(shares.items(), key=lambda kv: -kv[1]):
                        print(f"  {name:40s} {share * cpu:8.1f}  {100 * share:5.1f}%")
            held: Level | None = None
            if not args.no_paced:
                think = args.think_ms / 1000
                spread = min(1.0, max(0.0, args.think_spread))
                pauses = (think * (1 - spread), think * (1 + spread))
                # The event loop saturates at about think / its cost per action games;
                # start the search at a quarter of that, on a power of two.
                estimate = (think + 0.005) / (loop_us / 1e6)
                start = 2 ** max(0, int(math.log2(max(1.0, estimate / 4))))
                print(
                    f"paced: clients think {1000 * pauses[0]:.0f}-{1000 * pauses[1]:.0f} ms "
                    f"(mean {args.think_ms:.0f}); p99 under {args.p99_ms:.0f} ms; "
                    f"{args.level_seconds:.0f} s a level; about {estimate:.0f} games would "
                    "saturate the server",
                    flush=True,
                )
                if args.levels:
                    held = levels(
                        pool, scratch, args.levels, pauses, args.level_seconds, args.p99_ms,
                        args.log_level,
                    )  # fmt: skip
                else:
                    held = search(
                        pool, scratch, start, pauses, args.level_seconds, args.p99_ms,
                        args.log_level, until,
                    )  # fmt: skip
    finally:
        pool.close()
    print(
        f"took {time.monotonic() - began:.0f} s; load average now "
        f"{' '.join(Path('/proc/loadavg').read_text().split()[:3])}"
    )
    print(
        f"server_us_per_action: {server_us:.1f} engine_us_per_action: {engine_us:.1f} "
        f"overhead_ratio: {server_us / engine_us:.1f} "
        f"paced_games: {held.games if held else 0} "
        f"p99_ms: {held.p99 if held else math.nan:.1f}"
    )


if __name__ == "__main__":
    main()
