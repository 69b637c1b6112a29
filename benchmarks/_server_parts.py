"""Shared by benchmarks/server_load.py: a server run's stored actions replayed in this
process, to time the engine alone and each part of what the server does per action, and
py-spy samples of the server sorted into the same parts."""

from __future__ import annotations

import contextlib
import itertools
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from queue import SimpleQueue

import msgpack
import structlog
from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.frames import Frame
from websockets.protocol import Protocol, Side, State

import engine
from app.log import configure_logging
from protocol import messages as m
from protocol.options import game_config
from protocol.payloads import WireModel, action_from_engine
from protocol.server_session import ForGame, ServerSession
from protocol.table import Table
from server.store import Store, StoredGame, Write, action_played
from storage import connect

DEFLATE = {"memLevel": 5}
"""The compression settings websockets negotiates by default (window bits 12 both ways)."""


@dataclass(frozen=True)
class Span:
    """The actions of one stored game played in a window: indexes ``first`` to ``last``."""

    game: str
    first: int
    last: int


Marks = dict[str, int]
"""How many actions of each game the store holds at one moment."""


def marks(db: str) -> Marks:
    """How many actions of each game the server's store holds now (a SQLite path or a
    PostgreSQL URL, read on a connection of this process's own)."""
    conn = connect(db)
    try:
        rows = conn.execute("SELECT game, COUNT(*) FROM actions GROUP BY game").fetchall()
    finally:
        conn.close()
    return {str(game): int(count) for game, count in rows}


def window(before: Marks, after: Marks) -> list[Span]:
    """The actions each game stored between two marks (a game's actions are stored in
    order, so they are indexes ``before`` to ``after - 1``)."""
    return [
        Span(game, before.get(game, 0), count - 1)
        for game, count in after.items()
        if count > before.get(game, 0)
    ]


def load(db: str, spans: list[Span]) -> list[tuple[StoredGame, Span]]:
    """The stored games of ``spans``."""
    store = Store(db)
    try:
        out = []
        for span in spans:
            stored = store.load(span.game)
            if stored is None:
                raise RuntimeError(f"game {span.game} is not in the store")
            out.append((stored, span))
        return out
    finally:
        store.close()


def engine_seconds(games: list[tuple[StoredGame, Span]], repeats: int = 5) -> tuple[float, int]:
    """CPU seconds of ``engine.check`` and ``engine.apply`` over the spans' actions (the
    median of ``repeats`` replays, each from a copy of the state at its span's start), and
    how many actions that was."""
    starts = []
    for stored, span in games:
        state = engine.new_game(game_config(stored.options), stored.seed)
        for action in stored.actions[: span.first]:
            engine.apply(state, action)
        starts.append((state, stored.actions[span.first : span.last + 1]))
    check, apply = engine.check, engine.apply
    totals = []
    for _ in range(repeats):
        total = 0.0
        for start, todo in starts:
            state = start.copy()
            t0 = time.thread_time()
            for action in todo:
                check(state, action)
                apply(state, action)
            total += time.thread_time() - t0
        totals.append(total)
    return statistics.median(totals), sum(len(todo) for _, todo in starts)


PARTS = (
    "engine check+apply",
    "act: decode (msgpack + pydantic)",
    "act: action_to_engine",
    "events: per-seat forms + models",
    "prompt: engine legal_actions",
    "prompt: payloads + model",
    "encode: model_dump",
    "encode: msgpack",
    "websockets: framing",
    "websockets: deflate",
    "store: row made and queued",
    "log: structlog room.action",
)
"""The parts of an action on the event loop timed by :func:`breakdown`, in the order they
are printed."""

BATCH = 16
"""Actions a transaction in the group commit timed for the store's writer thread."""

WRITER_PARTS = ("commit, one action a transaction", f"commit, {BATCH} actions a transaction")
"""The store writer thread's work per action, as :func:`breakdown` times it."""


@dataclass
class Breakdown:
    """Seconds spent in each part over ``actions`` replayed actions, and what was sent."""

    seconds: dict[str, float]
    """By part of :data:`PARTS` (the event loop's)..."""
    writer: dict[str, float]
    """...and of :data:`WRITER_PARTS` (the store's writer thread)."""
    actions: int
    messages: int
    prompts: int
    frame_bytes: int
    """Bytes of the frames to seats, deflated if the server deflates..."""
    message_bytes: int
    """...and not."""


@contextlib.contextmanager
def _logging_to(path: Path, level: str) -> Iterator[None]:
    """structlog set up as ``hexhaven serve`` sets it up, writing to ``path``."""
    with path.open("a") as out:
        saved = sys.stderr
        sys.stderr = out
        try:
            configure_logging(level)
        finally:
            sys.stderr = saved
        try:
            yield
        finally:
            structlog.reset_defaults()


def _ticking() -> Callable[[], float]:
    """A clock a second further on at each reading: a session never over its rate budget."""
    ticks = itertools.count()
    return lambda: float(next(ticks))


def _socket(side: Side, deflate: bool) -> Protocol:
    """One end of an open websocket, sans I/O; with deflate as websockets negotiates it."""
    end = Protocol(side, state=State.OPEN)
    if deflate:
        end.extensions = [PerMessageDeflate(False, False, 12, 12, DEFLATE)]
    return end


def breakdown(
    games: list[tuple[StoredGame, Span]], scratch: Path, log_level: str, limit: int, deflate: bool
) -> Breakdown:
    """Replay up to ``limit`` of the spans' actions through the server's own pieces, as a
    room plays them with four connected seats and no spectators: the client's frame read
    and decoded, the table's check and act, the action's row made and queued for the store
    and its log line (at debug, as the room writes it), every seat's prompt made, and each
    message to a seat encoded (once for the seats that see it alike) and framed;
    and the store writer thread's commit of the rows (fresh SQLite files in ``scratch``),
    one action a transaction and :data:`BATCH`. Frames are deflated only if ``deflate``
    (as the server negotiated). Timed part by part with a wall clock."""
    deflating = 1.0 if deflate else 0.0
    took: dict[str, float] = defaultdict(float)
    writer: dict[str, float] = defaultdict(float)
    batch: list[Write] = []
    queued: SimpleQueue[Write] = SimpleQueue()
    batched = Store(scratch / "batched.db")
    done = messages = prompts = size = raw = 0
    store = Store(scratch / "parts.db")
    clock = time.perf_counter
    with _logging_to(scratch / "parts.log", log_level):
        for stored, span in games:
            if done >= limit:
                break
            config = game_config(stored.options)
            table = Table.replay(stored.id, config, stored.seed, stored.actions[: span.first])
            state = engine.new_game(config, stored.seed)
            for action in stored.actions[: span.first]:
                engine.apply(state, action)
            session = ServerSession(None, clock=_ticking(), server_name="parts")
            session.receive(msgpack.packb({"type": "hello", "protocol": m.PROTOCOL_VERSION}))
            # Each websocket twice, with deflate and without: the second times the framing
            # alone, the difference the deflate.
            client, plain_client = _socket(Side.CLIENT, True), _socket(Side.CLIENT, False)
            server, plain_server = _socket(Side.SERVER, True), _socket(Side.SERVER, False)
            outgoing = [_socket(Side.SERVER, True) for _ in range(state.n)]
            plain_outgoing = [_socket(Side.SERVER, False) for _ in range(state.n)]
            log = structlog.get_logger("hexhaven.room").bind(game=stored.id)
            for idx in range(span.first, min(span.last + 1, span.first + limit - done)):
                action = stored.actions[idx]
                seat = action.seat
                wire = action_from_engine(action).model_dump(mode="json")
                packed = msgpack.packb(
                    {"type": "act", "game": stored.id, "state_id": idx, "action": wire}
                )
                client.send_binary(packed)
                sent = b"".join(client.data_to_send())
                plain_client.send_binary(packed)
                plain_sent = b"".join(plain_client.data_to_send())

                w0 = clock()
                plain_server.receive_data(plain_sent)
                plain_server.events_received()
                t0 = clock()
                server.receive_data(sent)
                frame = server.events_received()[0]
                assert isinstance(frame, Frame)
                t1 = clock()
                request = session.receive(bytes(frame.data))
                t2 = clock()
                assert isinstance(request, ForGame) and isinstance(request.message, m.Act)
                act = request.message
                checked = table.check(seat, act)
                t3 = clock()
                engine.check(state, action)
                t4 = clock()
                engine.apply(state, action)
                t5 = clock()
                told = table.act(seat, checked)
                t6 = clock()
                events = table.played[-1].events
                dice = next((e.dice for e in events if isinstance(e, engine.DiceRolled)), None)
                write = action_played(stored.id, idx, checked, dice)
                queued.put(write)
                t7 = clock()
                log.debug("room.action", seat=seat, kind=type(checked).__name__, state_id=idx + 1)
                t8 = clock()
                # The table's check is action_to_engine + engine.check, its act engine.apply
                # + every recipient's forms and models: the engine's share is timed on its
                # own, on a state of its own, and taken out of each.
                took["websockets: framing"] += t0 - w0
                took["websockets: deflate"] += deflating * ((t1 - t0) - (t0 - w0))
                took["act: decode (msgpack + pydantic)"] += t2 - t1
                took["act: action_to_engine"] += (t3 - t2) - (t4 - t3)
                took["engine check+apply"] += t5 - t3
                took["events: per-seat forms + models"] += (t6 - t5) - (t5 - t4)
                took["store: row made and queued"] += t7 - t6
                took["log: structlog room.action"] += t8 - t7
                out: list[tuple[int, WireModel]] = [
                    (r, message) for r, message in told if r is not None
                ]
                if not table.over:
                    p0 = clock()
                    for q in engine.seats_to_act(table.state):
                        engine.legal_actions(table.state, q)
                    p1 = clock()
                    made = [(q, table.prompt(q, None)) for q in engine.seats_to_act(table.state)]
                    p2 = clock()
                    took["prompt: engine legal_actions"] += p1 - p0
                    took["prompt: payloads + model"] += (p2 - p1) - (p1 - p0)
                    out.extend(made)
                    prompts += len(made)
                encoded: dict[int, bytes] = {}  # a message several seats get: encoded once
                for r, message in out:
                    e0 = clock()
                    packed = encoded.get(id(message))
                    if packed is None:
                        data = message.model_dump(mode="json")
                        e1 = clock()
                        packed = encoded[id(message)] = msgpack.packb(data, use_bin_type=True)
                        e2 = clock()
                    else:
                        e1 = e2 = e0
                    outgoing[r].send_binary(packed)
                    size += sum(len(b) for b in outgoing[r].data_to_send())
                    e3 = clock()
                    plain_outgoing[r].send_binary(packed)
                    raw += sum(len(b) for b in plain_outgoing[r].data_to_send())
                    e4 = clock()
                    took["encode: model_dump"] += e1 - e0
                    took["encode: msgpack"] += e2 - e1
                    took["websockets: framing"] += e4 - e3
                    took["websockets: deflate"] += deflating * ((e3 - e2) - (e4 - e3))
                messages += len(out)
                done += 1
                w0 = clock()
                write = queued.get()
                store.db.batch([(write.sql, write.params)])
                w1 = clock()
                writer[WRITER_PARTS[0]] += w1 - w0
                batch.append(write)
                if len(batch) == BATCH:
                    batched.db.batch([(w.sql, w.params) for w in batch])
                    writer[WRITER_PARTS[1]] += clock() - w1
                    batch.clear()
    store.close()
    batched.close()
    writer[WRITER_PARTS[1]] *= done / max(1, done - len(batch))  # the last part-batch
    size = size if deflate else raw
    return Breakdown(dict(took), dict(writer), done, messages, prompts, size, raw)


SPY_OWNERS: tuple[tuple[str, str, str], ...] = (
    ("_commit", "/server/store/", "store writer thread: commits"),
    ("_alone", "/server/store/", "store writer thread: commits"),
    ("_serve", "/server/store/", "store writer thread: commits"),
    ("action_played", "/server/store/", "store: row made and queued"),
    ("queue", "/server/store/", "store: row made and queued"),
    ("write_out", "/server/connection.py", "asyncio loop, socket I/O, epoll"),
    ("", "/structlog/", "log: structlog room.action"),
    ("prompt", "/protocol/table.py", "prompt"),
    ("act", "/protocol/table.py", "act"),
    ("check", "/protocol/table.py", "check"),
    ("encode", "/protocol/codec.py", "encode: model_dump + msgpack"),
    ("receive", "/protocol/server_session.py", "act: decode (msgpack + pydantic)"),
    ("", "/permessage_deflate.py", "websockets: deflate"),
)
"""py-spy frames (function, file) that own everything sampled below them, innermost first.
The store's acknowledgement of a commit (``_acknowledge``) owns nothing: it sends the
messages the commit released, which the parts below claim. A connection's ``write_out``
is its turn's one socket write (uvloop's, in C, under that frame)."""

SPY_REST: tuple[tuple[str, str], ...] = (
    ("/engine/", "engine: seats_to_act and the like (room)"),
    ("/websockets/", "websockets: frames, connection, send/recv"),
    ("/server/", "server: room and connection glue"),
    ("/protocol/", "protocol: other"),
    ("/asyncio/", "asyncio loop, socket I/O, epoll"),
    ("selectors.py", "asyncio loop, socket I/O, epoll"),
)
"""Where a sample no owner claims goes: its innermost frame in one of these files."""

_REFINED = {
    "prompt": ("prompt: engine legal_actions", "prompt: payloads + model"),
    "act": ("engine check+apply", "events: per-seat forms + models"),
    "check": ("engine check+apply", "act: action_to_engine"),
}


def _frame(text: str) -> tuple[str, str]:
    name, _, where = text.rpartition(" (")
    return name.rpartition(".")[2], where.rpartition(":")[0]


def spy_part(stack: list[str]) -> str:
    """The part of the server a py-spy sample (its frames, outermost first) belongs to."""
    frames = [_frame(f) for f in stack]
    for depth in range(len(frames) - 1, -1, -1):
        name, path = frames[depth]
        for owner, suffix, part in SPY_OWNERS:
            if suffix in path and (not owner or name == owner):
                if part in _REFINED:
                    in_engine = any("/engine/" in p for _, p in frames[depth + 1 :])
                    return _REFINED[part][0 if in_engine else 1]
                return part
    for depth in range(len(frames) - 1, -1, -1):
        for marker, part in SPY_REST:
            if marker in frames[depth][1]:
                return part
    return "other"


def spy_parts(path: Path) -> dict[str, tuple[dict[str, float], int]]:
    """The samples of a py-spy ``--format raw`` file, by thread (``loop``: the main
    thread, the event loop's; ``threads``: the others): each part's share of the thread's
    samples, and how many samples there were. (Shares across threads say nothing of CPU: a
    thread waiting for the GIL is sampled as busy.)"""
    counts: dict[str, dict[str, int]] = {"loop": defaultdict(int), "threads": defaultdict(int)}
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            frames = stack.split(";")
            thread = "threads" if _frame(frames[0])[0] == "_bootstrap" else "loop"
            counts[thread][spy_part(frames)] += int(count)
    out = {}
    for thread, parts in counts.items():
        total = sum(parts.values())
        out[thread] = ({k: v / total for k, v in parts.items()} if total else {}, total)
    return out
