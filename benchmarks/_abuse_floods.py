"""The parts of ``benchmarks/abuse.py``: clients well-behaved and not (a websocket written
by hand, plain HTTP), what the server reports of itself (``/metrics``, its memory and its
child processes), and every flood but the first five, which abuse.py holds.

Every wait here has a bound, and every socket opened is closed (aborted when closing
takes too long), whatever happens."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import re
import time
from collections import Counter
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.frames import Close, CloseCode, Frame, Opcode
from websockets.protocol import State
from websockets.typing import Subprotocol

from protocol.messages import PROTOCOL_VERSION, SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK

ANSWER_WAIT = 10.0
"""Seconds a client waits for the answer to one request before giving up on it."""
CLOSE_WAIT = 2.0
"""Seconds a client waits for a closing handshake before it drops the socket."""
SETUP_SECONDS = 30.0
"""The longest a flood's set-up (connecting, sending what it then holds) may take."""

Message = dict[str, Any]


@dataclass(frozen=True)
class Target:
    """The server under test, as a flood sees it."""

    url: str
    port: int
    pid: int
    log: Path
    """The server's log (its standard error)."""
    game: str
    """The public game of bots being played."""
    connections: int
    """``--connections``."""
    away_grace: float
    """Seconds the server waits for a disconnected player before a bot stands in."""
    finished: tuple[str, ...] = ()
    """Games played to their end before the floods..."""
    finished_note: str = ""
    """...and how their playing went."""
    block: int = 1
    """The flood's own block of loopback addresses (127.BLOCK.x.y)."""
    host: str = "127.0.0.1"

    def address(self, n: int = 0) -> str:
        """The flood's ``n``-th source address (the per-address budgets count each apart)."""
        return f"127.{self.block}.{n // 250}.{n % 250 + 1}"

    def local(self, n: int = 0) -> dict[str, Any]:
        """``connect``'s keyword arguments for connecting from :meth:`address` ``n``."""
        return {"local_addr": (self.address(n), 0)}


class Flood:
    """What a flood's connections were answered, by type or error code (``answers``), and
    what else it has to say (``notes``, a line each)."""

    def __init__(self) -> None:
        self.answers: Counter[str] = Counter()
        self.notes: list[str] = []

    def note(self, message: Message, prefix: str = "") -> None:
        self.answers[prefix + describe(message)] += 1

    def failed(self, exc: BaseException) -> None:
        self.answers[f"failed: {type(exc).__name__}"] += 1


def describe(message: Message) -> str:
    """A message's type, or for an error its code and detail."""
    kind = str(message.get("type"))
    if kind == "error":
        kind = f"error {message.get('code')}"
        if message.get("detail"):
            kind += f" ({message['detail']})"
    return kind


# --- websocket clients -----------------------------------------------------------------------
async def open_ws(url: str, subprotocol: str = SUBPROTOCOL_MSGPACK, **kw: Any) -> ClientConnection:
    """A connection that has said ``hello`` (``kw`` go to ``connect``; it sends no
    keepalive pings of its own unless ``kw`` asks)."""
    kw.setdefault("ping_interval", None)
    ws = await connect(url, subprotocols=[Subprotocol(subprotocol)], open_timeout=ANSWER_WAIT, **kw)
    try:
        await send(ws, {"type": "hello", "protocol": PROTOCOL_VERSION, "client": "abuse"})
        async with asyncio.timeout(ANSWER_WAIT):
            await recv(ws)
    except BaseException:
        ws.transport.abort()
        raise
    return ws


async def send(ws: ClientConnection, message: Message) -> None:
    if ws.subprotocol == SUBPROTOCOL_JSON:
        await ws.send(json.dumps(message))
    else:
        await ws.send(msgpack.packb(message))


async def recv(ws: ClientConnection) -> Message:
    frame = await ws.recv()
    data: Message = json.loads(frame) if isinstance(frame, str) else msgpack.unpackb(frame)
    return data


async def expect(ws: ClientConnection, *kinds: str, seconds: float = ANSWER_WAIT) -> Message:
    """The next message of one of ``kinds``, or the next ``error``; what comes between is
    skipped. Raises TimeoutError after ``seconds``."""
    async with asyncio.timeout(seconds):
        while True:
            message = await recv(ws)
            if message["type"] in kinds or message["type"] == "error":
                return message


async def close_ws(ws: ClientConnection, flood: Flood | None = None) -> None:
    """Close ``ws`` (dropped if the closing handshake takes more than CLOSE_WAIT); with
    ``flood``, count it if the server had closed it first."""
    if flood is not None and ws.state is not State.OPEN:
        flood.answers[f"closed by the server ({ws.close_code})"] += 1
    try:
        with contextlib.suppress(Exception):
            async with asyncio.timeout(CLOSE_WAIT):
                await ws.close()
    finally:
        if ws.state is not State.CLOSED:
            ws.transport.abort()


async def until(seconds: float, work: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run ``work`` for at most ``seconds``; its end by a lost connection is no failure."""
    with contextlib.suppress(TimeoutError, ConnectionClosed, OSError, EOFError):
        async with asyncio.timeout(seconds):
            await work()


async def race(*jobs: Coroutine[Any, Any, None]) -> None:
    """Run ``jobs`` together until the first ends (raising what it raised); the others
    are cancelled."""
    tasks = [asyncio.ensure_future(job) for job in jobs]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            task.result()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def together(flood: Flood, jobs: Iterable[Coroutine[Any, Any, None]]) -> None:
    """Run ``jobs`` together to their ends; each failure is counted in ``flood``."""
    for result in await asyncio.gather(*jobs, return_exceptions=True):
        if isinstance(result, BaseException) and not isinstance(result, asyncio.CancelledError):
            flood.failed(result)


class RawSocket:
    """A websocket client written by hand, to send what a library would not: frames cut
    short, a message and the close in one write. Its frames are masked as a client's must
    be; it reads the server's frames (never masked) one at a time."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    async def open(cls, t: Target, n: int = 0, hello: bool = True) -> RawSocket:
        """A socket from ``t.address(n)`` past its opening handshake (and ``hello``).
        Raises OSError when the server refuses it, TimeoutError when it does not answer."""
        reader, writer = await asyncio.open_connection(t.host, t.port, **t.local(n))
        raw = cls(reader, writer)
        try:
            key = base64.b64encode(os.urandom(16)).decode()
            writer.write(
                f"GET / HTTP/1.1\r\nHost: {t.host}:{t.port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                f"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: {SUBPROTOCOL_MSGPACK}"
                "\r\n\r\n".encode()
            )
            async with asyncio.timeout(ANSWER_WAIT):
                head = await reader.readuntil(b"\r\n\r\n")
                if not head.startswith(b"HTTP/1.1 101"):
                    raise OSError(f"handshake refused: {head.splitlines()[0]!r}")
                if hello:
                    raw.send({"type": "hello", "protocol": PROTOCOL_VERSION, "client": "abuse"})
                    await raw.message()
        except BaseException:
            raw.abort()
            raise
        return raw

    @staticmethod
    def frame(message: Message) -> bytes:
        """``message``'s binary frame, masked."""
        return Frame(Opcode.BINARY, msgpack.packb(message)).serialize(mask=True)

    @staticmethod
    def close_frame() -> bytes:
        return Frame(Opcode.CLOSE, Close(CloseCode.NORMAL_CLOSURE, "").serialize()).serialize(
            mask=True
        )

    def send(self, message: Message) -> None:
        self.writer.write(self.frame(message))

    async def message(self) -> Message | None:
        """The next message (pings skipped); None at the server's close frame. Raises
        asyncio.IncompleteReadError at the end of the socket."""
        while True:
            head = await self.reader.readexactly(2)
            opcode, length = head[0] & 0x0F, head[1] & 0x7F
            if length >= 126:
                more = await self.reader.readexactly(2 if length == 126 else 8)
                length = int.from_bytes(more, "big")
            data = await self.reader.readexactly(length)
            if opcode == Opcode.CLOSE:
                return None
            if opcode in (Opcode.BINARY, Opcode.TEXT):
                message: Message = msgpack.unpackb(data)
                return message

    def abort(self) -> None:
        self.writer.transport.abort()


async def http(
    t: Target, request: bytes, n: int | None = None, seconds: float = ANSWER_WAIT
) -> bytes:
    """What the server answers ``request`` before it closes the socket (from
    ``t.address(n)``, or 127.0.0.1 when ``n`` is None)."""
    local = {} if n is None else t.local(n)
    reader, writer = await asyncio.open_connection(t.host, t.port, **local)
    try:
        writer.write(request)
        async with asyncio.timeout(seconds):
            return await reader.read()
    finally:
        writer.transport.abort()


async def metrics(t: Target) -> dict[str, float]:
    """The server's ``/metrics``, by name with its labels (``hexhaven_games{state="lobby"}``);
    empty if it did not answer."""
    try:
        text = await http(t, b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    except (OSError, TimeoutError):
        return {}
    values: dict[str, float] = {}
    for line in text.partition(b"\r\n\r\n")[2].decode(errors="replace").splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            with contextlib.suppress(ValueError):
                values[name] = float(value)
    return values


def games_open(values: dict[str, float]) -> int:
    """Games open, all states together, in ``values`` from :func:`metrics`."""
    return int(sum(v for k, v in values.items() if k.startswith("hexhaven_games{")))


# --- the server's process ----------------------------------------------------------------------
def rss_mb(pid: int) -> float:
    """The process's resident memory (VmRSS) in MB; 0 once it is gone."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def family(pid: int) -> list[int]:
    """The process's descendants (children, theirs, ...)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rpartition(")")[2].split()
            parents[int(stat.parent.name)] = int(fields[1])
    found: list[int] = []
    wanted = {pid}
    while wanted:
        wanted = {child for child, parent in parents.items() if parent in wanted}
        found.extend(wanted)
    return found


# --- the floods ---------------------------------------------------------------------------------
WATCHERS = 20
"""Connections of the watch flood."""


async def flood_watch(t: Target, seconds: float, flood: Flood) -> None:
    """WATCHERS connections from one address send ``watch`` (no history) for the game as
    fast as they can, reading the answers meanwhile."""
    watch = {"type": "watch", "game": t.game}

    async def one() -> None:
        ws = await open_ws(t.url, **t.local())
        try:

            async def read() -> None:
                while True:
                    flood.note(await recv(ws))

            async def write() -> None:
                while True:
                    await send(ws, watch)
                    flood.answers["watch sent"] += 1
                    await asyncio.sleep(0)

            await until(seconds, lambda: race(read(), write()))
        finally:
            await close_ws(ws, flood)

    await together(flood, (one() for _ in range(WATCHERS)))


PARTIAL_SOCKETS = 300
PARTIAL_SIZE = 1 << 20
"""The frame each socket of the partial frames flood announces (1 MiB)..."""
PARTIAL_HELD = 1024
"""...and the bytes of it held back, then sent one at a time..."""
TRICKLE_EVERY = 2.0
"""...every this many seconds."""


async def flood_partial_frames(t: Target, seconds: float, flood: Flood) -> None:
    """PARTIAL_SOCKETS sockets say ``hello``, announce a binary frame of PARTIAL_SIZE
    bytes, send all of it but PARTIAL_HELD bytes, then one byte every TRICKLE_EVERY
    seconds for ``seconds``."""
    start = time.monotonic()
    mask = os.urandom(4)
    header = bytes([0x80 | Opcode.BINARY, 0x80 | 127]) + PARTIAL_SIZE.to_bytes(8, "big") + mask
    body = mask * ((PARTIAL_SIZE - PARTIAL_HELD) // 4)  # zeros, masked
    sockets: list[RawSocket] = []
    ended: dict[int, float] = {}  # socket index: seconds into the flood the server closed it
    watchers: list[asyncio.Task[None]] = []
    gate = asyncio.Semaphore(20)

    async def watch_end(i: int, raw: RawSocket) -> None:
        """Note when the server closes the socket (its close frame, or the socket's end)."""
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            while await raw.message() is not None:
                pass
        ended.setdefault(i, time.monotonic() - start)

    async def begin() -> None:
        async with gate:
            raw = await RawSocket.open(t)
            i = len(sockets)
            sockets.append(raw)
            watchers.append(asyncio.ensure_future(watch_end(i, raw)))
            raw.writer.write(header + body)
            await raw.writer.drain()
        flood.answers["1 MiB frames begun"] += 1

    async def trickle(i: int, raw: RawSocket) -> None:
        for k in range(PARTIAL_HELD - 1):  # the last byte never comes
            await asyncio.sleep(TRICKLE_EVERY)
            if i in ended or raw.writer.is_closing():
                return
            try:
                raw.writer.write(mask[k % 4 : k % 4 + 1])
                await raw.writer.drain()
            except OSError:
                ended.setdefault(i, time.monotonic() - start)
                return
            flood.answers["bytes trickled"] += 1

    try:
        await until(
            SETUP_SECONDS, lambda: together(flood, (begin() for _ in range(PARTIAL_SOCKETS)))
        )
        began = time.monotonic() - start
        await until(seconds, lambda: together(flood, (trickle(*s) for s in enumerate(sockets))))
        held = time.monotonic() - start
        await asyncio.sleep(0.2)  # a close just sent is read
        times = sorted(ended.values())
        when = f" (from {times[0]:.1f} s to {times[-1]:.1f} s into the flood)" if times else ""
        flood.notes.append(
            f"{len(sockets)} sockets held 1 MiB frames unfinished ({began:.1f} s to set up); "
            f"closed by the server: {len(times)}{when}; still open after {held:.1f} s: "
            f"{len(sockets) - len(times)}"
        )
    finally:
        for raw in sockets:
            raw.abort()
        for task in watchers:
            task.cancel()
        await asyncio.gather(*watchers, return_exceptions=True)


STAND_IN_SEATS = 4
STAND_IN_WATCH = 12.0
"""Seconds past the away grace the stand-in flood watches the server's bot seats."""


async def flood_stand_ins(t: Target, seconds: float, flood: Flood) -> None:
    """From one address, for ``seconds``: four-seat games without bots, each filled with
    four connections of the flood's own and started, then left (every connection closed).
    Then, for the away grace and STAND_IN_WATCH seconds more, the server's bot seats
    (``hexhaven_bot_seats``), its child processes and its memory are read."""
    before = (await metrics(t)).get("hexhaven_bot_seats", 0.0)
    started = 0

    async def ask(ws: ClientConnection, message: Message, kind: str) -> Message:
        """Send ``message`` until it is not refused for a budget or cap."""
        while True:
            await send(ws, message)
            answer = await expect(ws, kind)
            flood.note(answer)
            if answer["type"] != "error" or answer.get("code") != "limit_reached":
                return answer
            await asyncio.sleep(0.5)

    async def one_game() -> None:
        nonlocal started
        conns: list[ClientConnection] = []
        try:
            for _ in range(STAND_IN_SEATS):
                conns.append(await open_ws(t.url, **t.local()))
            host = conns[0]
            create = {"type": "create_game", "options": {"players": STAND_IN_SEATS}}
            created = await ask(host, create, "game_created")
            if created["type"] != "game_created":
                await asyncio.sleep(0.5)
                return
            game = created["game"]
            for k, ws in enumerate(conns):
                join = {"type": "join_game", "game": game, "name": f"abuser-{k}"}
                if (await ask(ws, join, "joined"))["type"] != "joined":
                    return
            await send(host, {"type": "start_game", "game": game})
            async with asyncio.timeout(ANSWER_WAIT):
                while True:
                    message = await recv(host)
                    if message["type"] == "error":
                        flood.note(message)
                        return
                    if message["type"] == "players" and message.get("started"):
                        break
            started += 1
            flood.answers["games started"] += 1
        finally:
            for ws in conns:
                await close_ws(ws)

    async def games() -> None:
        while True:
            try:
                await one_game()
            except (ConnectionClosed, TimeoutError, OSError) as exc:
                flood.failed(exc)
                await asyncio.sleep(0.5)

    await until(seconds, games)
    left = time.monotonic()
    kids = family(t.pid)
    peak, peak_at, seats = before, 0.0, before
    children, children_mb = len(kids), sum(rss_mb(pid) for pid in kids)
    while time.monotonic() < left + t.away_grace + STAND_IN_WATCH:
        seats = (await metrics(t)).get("hexhaven_bot_seats", seats)
        if seats > peak:
            peak, peak_at = seats, time.monotonic() - left
            kids = family(t.pid)
            children, children_mb = len(kids), sum(rss_mb(pid) for pid in kids)
        await asyncio.sleep(0.5)
    watched = time.monotonic() - left
    flood.notes.append(
        f"{started} games started and left ({STAND_IN_SEATS * started} seats); bot seats "
        f"(hexhaven_bot_seats): {before:.0f} before, {peak:.0f} at most ({peak_at:.1f} s "
        f"after the last left), {seats:.0f} {watched:.0f} s after"
    )
    kids = family(t.pid)
    flood.notes.append(
        f"the server's child processes: {children} at the peak ({children_mb:.1f} MB), "
        f"{len(kids)} at the end ({sum(rss_mb(pid) for pid in kids):.1f} MB); the server "
        f"{rss_mb(t.pid):.1f} MB"
    )


CAP_ADDRESSES = 210
CAP_CONNECTIONS = 4
"""Connections from each address of the game cap flood..."""
CAP_CREATES = 3
"""...and the ``create_game`` each sends."""
CAP_AT_ONCE = 48
"""Connections of the game cap flood open at once."""


async def flood_game_cap(t: Target, seconds: float, flood: Flood) -> None:
    """CAP_ADDRESSES addresses with CAP_CONNECTIONS connections each send CAP_CREATES
    ``create_game`` and leave (for at most ``seconds``, or SETUP_SECONDS if longer); then
    a fresh client from an address of its own tries one more."""
    before = games_open(await metrics(t))
    gate = asyncio.Semaphore(CAP_AT_ONCE)
    create = {"type": "create_game", "options": {"players": 4}}

    async def one(n: int) -> None:
        async with gate:
            ws = await open_ws(t.url, **t.local(n))
            try:
                for _ in range(CAP_CREATES):
                    await send(ws, create)
                for _ in range(CAP_CREATES):
                    flood.note(await expect(ws, "game_created"))
            finally:
                await close_ws(ws)

    every = (one(n) for n in range(CAP_ADDRESSES) for _ in range(CAP_CONNECTIONS))
    start = time.monotonic()
    await until(max(seconds, SETUP_SECONDS), lambda: together(flood, every))
    took = time.monotonic() - start
    ws = await open_ws(t.url, **t.local(CAP_ADDRESSES))
    try:
        await send(ws, create)
        fresh = await expect(ws, "game_created")
    finally:
        await close_ws(ws)
    after = games_open(await metrics(t))
    flood.notes.append(
        f"{flood.answers['game_created']} games created in {took:.1f} s; games open "
        f"(hexhaven_games): {before} before, {after} after; a fresh client's create_game: "
        f"{describe(fresh)}"
    )


HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
STATUS = re.compile(rb"HTTP/1\.[01] (\d{3})")


async def flood_pipelined_http(t: Target, seconds: float, flood: Flood) -> None:
    """``--connections`` clients, each over and over: a socket, two ``GET /healthz`` in one
    write, what comes back until both are answered or the server closes the socket (at most
    5 seconds). Sockets come from 16 addresses in turn (so as not to run out of ports)."""
    size = t.log.stat().st_size
    sent = 0

    async def twice(n: int) -> None:
        """One socket's two requests; counted once the answers are in (not if the flood's
        time ends meanwhile)."""
        nonlocal sent
        reader, writer = await asyncio.open_connection(t.host, t.port, **t.local(n))
        answer = b""
        try:
            writer.write(HEALTHZ * 2)
            try:
                async with asyncio.timeout(5.0):
                    while len(STATUS.findall(answer)) < 2 and (chunk := await reader.read(1 << 16)):
                        answer += chunk
            except TimeoutError:
                flood.answers["socket left open 5 s"] += 1
        finally:
            writer.transport.abort()
        sent += 2
        statuses = STATUS.findall(answer)
        for status in statuses:
            flood.answers[f"HTTP {status.decode()}"] += 1
        flood.answers["not answered"] += 2 - len(statuses)

    async def one(i: int) -> None:
        for k in range(10**9):
            try:
                await twice((i + k) % 16)
            except OSError as exc:
                flood.failed(exc)
                await asyncio.sleep(0.05)

    await until(seconds, lambda: together(flood, (one(i) for i in range(t.connections))))
    await asyncio.sleep(0.5)  # what the server still writes to its log
    grown = t.log.stat().st_size - size
    per = f" ({grown / sent:.1f} bytes a request)" if sent else ""
    flood.notes.append(f"{sent} requests sent; the server's log grew {grown} bytes{per}")


async def flood_frame_close(t: Target, seconds: float, flood: Flood) -> None:
    """Ten times, each from an address of its own (so the caps on games not started count
    none twice): a connection sends ``create_game`` and the close frame in one write, then
    reads what comes until the server closes."""
    before = (await metrics(t)).get('hexhaven_games{state="lobby"}', 0.0)
    create = {"type": "create_game", "options": {"players": 4}}

    async def one(n: int) -> None:
        raw = await RawSocket.open(t, n)
        try:
            raw.writer.write(raw.frame(create) + raw.close_frame())
            async with asyncio.timeout(5.0):
                while (message := await raw.message()) is not None:
                    flood.note(message)
            flood.answers["close frame"] += 1
        except (asyncio.IncompleteReadError, OSError):
            flood.answers["socket closed"] += 1
        finally:
            raw.abort()

    async def all_ten() -> None:
        for n in range(10):
            await one(n)

    await until(max(seconds, SETUP_SECONDS), all_ten)
    await asyncio.sleep(0.5)
    after = (await metrics(t)).get('hexhaven_games{state="lobby"}', 0.0)
    flood.notes.append(
        f"game_created answers: {flood.answers['game_created']} of 10; games in the lobby "
        f"(hexhaven_games): {before:.0f} before, {after:.0f} after"
    )


SHORT_GAMES = 3
SHORT_GAME_SECONDS = 90.0


async def short_games(url: str) -> tuple[list[str], str]:
    """Games of two ``random`` bots to three points, created and started one after the
    other (a create refused for a budget or cap is asked again after a second, five times
    at most), then played to their end (within SHORT_GAME_SECONDS): the ids of those that
    ended, and a line saying how it went."""
    bots = [{"kind": "random"}] * 2
    create = {"type": "create_game", "options": {"players": 2, "victory_points": 3, "bots": bots}}
    played: list[tuple[ClientConnection, str]] = []
    problems: Counter[str] = Counter()

    async def ends(ws: ClientConnection, game: str) -> str | None:
        try:
            async with asyncio.timeout(SHORT_GAME_SECONDS):
                while (message := await recv(ws))["type"] != "game_over":
                    if message["type"] == "error":
                        problems[describe(message)] += 1
            return game
        except (TimeoutError, ConnectionClosed):
            problems["not over in time"] += 1
            return None

    conns: list[ClientConnection] = []
    try:
        for _ in range(SHORT_GAMES):
            ws = await open_ws(url)
            conns.append(ws)
            for _ in range(5):
                await send(ws, create)
                created = await expect(ws, "game_created")
                if created["type"] == "game_created" or created["code"] != "limit_reached":
                    break
                await asyncio.sleep(1.0)
            if created["type"] != "game_created":
                problems[describe(created)] += 1
                continue
            await send(ws, {"type": "watch", "game": created["game"]})
            await send(ws, {"type": "start_game", "game": created["game"]})
            played.append((ws, created["game"]))
        over = [g for g in await asyncio.gather(*(ends(*p) for p in played)) if g]
    finally:
        for ws in conns:
            await close_ws(ws)
    why = "; ".join(f"{k}: {v}" for k, v in problems.items())
    return (
        over,
        f"{len(over)} of {SHORT_GAMES} games played to their end{f' ({why})' if why else ''}",
    )


REOPEN_WAIT = 75.0
"""Seconds the reopen flood waits for the finished games to be closed (the server closes a
finished game nobody watches within a minute)."""


async def _is_closed(t: Target, game: str) -> bool:
    """Whether ``game`` is closed (a ``watch`` of it is refused ``unknown_game``)."""
    ws = await open_ws(t.url)
    try:
        await send(ws, {"type": "watch", "game": game})
        answer = await expect(ws, "joined")
        return answer.get("code") == "unknown_game"
    finally:
        await close_ws(ws)


async def flood_reopen(t: Target, seconds: float, flood: Flood) -> None:
    """Once the finished games are closed (at most REOPEN_WAIT seconds): for ``seconds``,
    ``--connections`` connections from one address send ``watch`` with ``history`` for
    them over and over, and four more send ``create_game`` with a ``balanced`` board every
    50 ms."""
    flood.notes.append(t.finished_note)
    if not t.finished:
        return
    start = time.monotonic()
    closed = 0
    while time.monotonic() < start + REOPEN_WAIT:
        closed = sum([await _is_closed(t, game) for game in t.finished])
        if closed == len(t.finished):
            break
        await asyncio.sleep(2.0)
    flood.notes.append(
        f"finished games closed by the server: {closed} of {len(t.finished)} "
        f"(waited {time.monotonic() - start:.1f} s)"
    )

    async def watcher() -> None:
        ws = await open_ws(t.url, **t.local())
        try:

            async def go() -> None:
                while True:
                    for game in t.finished:
                        await send(ws, {"type": "watch", "game": game, "history": True})
                        flood.note(await expect(ws, "joined"), "watch: ")

            await until(seconds, go)
        finally:
            await close_ws(ws, flood)

    async def creator() -> None:
        ws = await open_ws(t.url, **t.local())
        create = {"type": "create_game", "options": {"players": 4, "board": "balanced"}}
        try:

            async def read() -> None:
                while True:
                    message = await recv(ws)
                    if message["type"] in ("game_created", "error"):
                        flood.note(message, "balanced: ")

            async def write() -> None:
                while True:
                    await send(ws, create)
                    await asyncio.sleep(0.05)

            await until(seconds, lambda: race(read(), write()))
        finally:
            await close_ws(ws, flood)

    jobs = [watcher() for _ in range(t.connections)] + [creator() for _ in range(4)]
    await together(flood, jobs)


SPECTATORS = 80
SILENCING_SECONDS = 40.0
"""The longest the spectators of the chat silencing flood chat (if ``--seconds`` is
shorter); they stop sooner once the game refuses more lines."""


async def flood_chat_silencing(t: Target, seconds: float, flood: Flood) -> None:
    """A game of two connections with ``spectator_chat``, started; SPECTATORS spectators,
    each from an address of its own, chat as fast as their budgets allow (a line, its echo
    or refusal, the next; a second's pause after a refusal) until the game refuses them
    ``chat_per_game`` or the time is up; then seat 0 says a line."""
    players: list[ClientConnection] = []
    try:
        for _ in range(2):
            players.append(await open_ws(t.url, **t.local(0)))
        host = players[0]
        options = {"players": 2, "spectator_chat": True}
        await send(host, {"type": "create_game", "options": options})
        created = await expect(host, "game_created")
        if created["type"] != "game_created":
            flood.notes.append(f"the game was refused: {describe(created)}")
            return
        game = created["game"]
        for k, ws in enumerate(players):
            await send(ws, {"type": "join_game", "game": game, "name": f"player-{k}"})
            flood.note(await expect(ws, "joined"), "player: ")
        await send(host, {"type": "start_game", "game": game})
        done = asyncio.Event()

        async def spectator(i: int) -> None:
            ws = await open_ws(t.url, **t.local(1 + i))
            try:
                await send(ws, {"type": "watch", "game": game})
                await expect(ws, "joined")
                for n in range(10**9):
                    if done.is_set():
                        return
                    text = f"s{i}:{n}"
                    await send(ws, {"type": "chat", "game": game, "text": text})
                    while True:
                        answer = await expect(ws, "chat_message")
                        if answer["type"] == "error" or answer.get("text") == text:
                            break
                    if answer["type"] == "chat_message":
                        flood.answers["spectator lines taken"] += 1
                        continue
                    flood.note(answer, "spectator: ")
                    if answer.get("detail") == "chat_per_game":
                        done.set()
                    await asyncio.sleep(1.0)
            finally:
                await close_ws(ws, flood)

        async def drain(ws: ClientConnection) -> None:
            with contextlib.suppress(ConnectionClosed):
                while True:
                    await ws.recv()

        start = time.monotonic()
        jobs = (spectator(i) for i in range(SPECTATORS))
        drains = [asyncio.ensure_future(drain(ws)) for ws in players]
        try:
            await until(max(seconds, SILENCING_SECONDS), lambda: together(flood, jobs))
        finally:
            for task in drains:
                task.cancel()
            await asyncio.gather(*drains, return_exceptions=True)
        took = time.monotonic() - start
        text = "a line from seat 0"
        await send(host, {"type": "chat", "game": game, "text": text})
        try:
            while True:
                answer = await expect(host, "chat_message")
                if answer["type"] == "error" or answer.get("text") == text:
                    break
            refused = answer["type"] == "error"
            said = f"refused: {describe(answer)}" if refused else "accepted (echoed back)"
        except TimeoutError:
            said = f"no answer within {ANSWER_WAIT:.0f} s"
        flood.notes.append(
            f"spectators chatted {took:.1f} s, {flood.answers['spectator lines taken']} lines "
            f"taken; then the seated player's line: {said}"
        )
    finally:
        for ws in players:
            await close_ws(ws)
