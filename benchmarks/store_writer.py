"""What the games store's queued writes cost in CPU: on the writer's thread, and on the event
loop (each write made, queued, and its room told of its commit).

Run it from the repository root (about half a minute)::

    .venv/bin/python benchmarks/store_writer.py
    .venv/bin/python benchmarks/store_writer.py --rooms 64 --rate 2000 --seconds 5 --burst 4
    .venv/bin/python benchmarks/store_writer.py --db postgresql://USER@HOST/DB

A real :class:`server.store.Store` with its writer thread running on an asyncio event loop,
on a fresh SQLite file in a temporary folder (write-ahead log, as ``hexhaven serve`` opens
it); with ``--db`` a PostgreSQL URL instead (an empty database: the games' rows are made
there), or ``--db postgres`` for a PostgreSQL server of its own (pgserver's, the ``test``
extra). The writes are real: ``--rooms`` four-player games are played ahead of time with
uniformly random legal actions (``engine.legal_actions`` and ``engine.apply``, the dice
taken from the ``DiceRolled`` events as a room takes them), each game's actions stored in
order by a stand-in for its room with :func:`server.store.action_played` and
:meth:`Store.queue` (a game that runs out of actions starts its list again, at later
indexes). A stand-in room only counts what it is told (``WriteListener.stored``).

Two runs, each after a warm-up:

* **steady**: the rooms together queue ``--rate`` writes a second for ``--seconds``, each
  write at its own moment (one task sleeps until the next write is due), turn about. With
  ``--work-us`` the loop also spends that much CPU after each write on nothing of the
  store's (standing for the rest of a server's work on an action: it holds the
  interpreter, so the writer finds more writes waiting, as in a server).
* **burst**: every room queues ``--burst`` writes at once, then waits until the store has
  told every room of all of them; ``--rounds`` times (``--burst 1`` is a room that waits
  for each write's commit before the next, as a room at saturation does).

Each prints, per write: ``writer_us``, the CPU time of the writer's thread (its own clock,
``time.pthread_getcpuclockid``); ``pool_us``, on PostgreSQL, that of the pool's thread,
where the writer's commits run (``storage.Pool``; the database server's own processes are
not counted); ``loop_us``, the CPU time of the event loop's thread (``time.thread_time``),
less, in the steady run, what the same schedule and ``--work-us`` cost with no store (a
run of its own just before); ``make_queue_us``, the part of it spent making the writes
and queueing them (timed around them; in the steady run that includes a cold start after
each of the loop's sleeps); ``batch``, the mean writes per group commit
(``Store.on_commit``); and, in the steady run, ``ack_ms``, the mean time from a write
queued to its room told. Several ``--repeat`` runs of each are printed, then the median of
each figure.

CPU times are not immune to the machine's other work: a thread that sleeps between short
bursts of work (the writer between commits) finds its caches cold, and a commit after a
millisecond's sleep costs about twice one made straight after another. Compare builds only
with runs alternated on a quiet machine, and prefer the burst figures for small changes.

The last line is ``writer_us_per_write: X loop_us_per_write: Y`` (steady, medians).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _postgres import own_postgres

import engine
from protocol import messages as m
from server.store import Store, WriteFailed, action_played

MAX_ACTIONS = 5000
"""A random game is cut after this many actions."""
Move = tuple[engine.Action, tuple[int, int] | None]


def random_games(games: int, seed: int) -> list[list[Move]]:
    """The actions (and the dice each rolled) of ``games`` random four-player games."""
    out: list[list[Move]] = []
    for g in range(games):
        state = engine.new_game(engine.GameConfig(players=4), seed + g)
        choose = random.Random(seed + g)
        moves: list[Move] = []
        while not state.is_over and len(moves) < MAX_ACTIONS:
            legal = engine.legal_actions(state)
            action = legal[int(choose.random() * len(legal))]
            events = engine.apply(state, action)
            dice = next((e.dice for e in events if isinstance(e, engine.DiceRolled)), None)
            moves.append((action, dice))
        out.append(moves)
    return out


class Room:
    """A stand-in for a game's room: queues the game's next action, and counts what the
    store tells it."""

    def __init__(self, store: Store, game: str, moves: list[Move], done: Progress) -> None:
        self.store = store
        self.game = game
        self.moves = moves
        self.index = 0
        self.done = done
        self.sent: deque[float] = deque()
        """When each write waiting for its commit was queued (the steady run's)."""

    def play(self) -> None:
        """Queue the game's next action."""
        index = self.index
        action, dice = self.moves[index % len(self.moves)]
        self.store.queue(action_played(self.game, index, action, dice), self)
        self.index = index + 1

    def stored(self, count: int, failure: WriteFailed | None) -> None:
        if failure is not None:
            raise failure
        self.done.told(count)


class Progress:
    """Writes queued and writes told; set when every write queued is told."""

    def __init__(self) -> None:
        self.queued = 0
        self.stored = 0
        self.settled = asyncio.Event()

    def told(self, count: int) -> None:
        self.stored += count
        if self.stored >= self.queued:
            self.settled.set()

    async def all_told(self) -> None:
        while self.stored < self.queued:
            self.settled.clear()
            await self.settled.wait()


class Timed(Room):
    """A room that also notes when each write was queued and when it heard of its commit."""

    def __init__(self, store: Store, game: str, moves: list[Move], done: Progress) -> None:
        super().__init__(store, game, moves, done)
        self.waited = 0.0

    def play(self) -> None:
        self.sent.append(time.perf_counter())
        super().play()

    def stored(self, count: int, failure: WriteFailed | None) -> None:
        now = time.perf_counter()
        for _ in range(count):
            self.waited += now - self.sent.popleft()
        super().stored(count, failure)


@dataclass
class Figures:
    """One run's figures, per write."""

    writer_us: float
    pool_us: float
    loop_us: float
    make_queue_us: float
    batch: float
    ack_ms: float

    def line(self, name: str) -> str:
        return (
            f"{name:<7} writer_us: {self.writer_us:6.2f}  pool_us: {self.pool_us:6.2f}  "
            f"loop_us: {self.loop_us:6.2f}  "
            f"make_queue_us: {self.make_queue_us:6.2f}  batch: {self.batch:6.1f}  "
            f"ack_ms: {self.ack_ms:6.2f}"
        )


class Commits:
    """Counts the store's group commits (its ``on_commit``)."""

    def __init__(self) -> None:
        self.commits = 0
        self.writes = 0

    def __call__(self, writes: int, seconds: float) -> None:
        self.commits += 1
        self.writes += writes


class _Threads:
    """The CPU time of the store's threads: its writer's, and its PostgreSQL pool's (the
    pool's own event loop, where the writer's commits run on PostgreSQL)."""

    def __init__(self) -> None:
        found = {t.name: t.ident for t in threading.enumerate()}
        self.clocks = [
            time.pthread_getcpuclockid(ident) if ident is not None else None
            for ident in (found.get("store-writer"), found.get("postgres-pool"))
        ]
        self.began = self._now()

    def _now(self) -> list[float]:
        return [0.0 if c is None else time.clock_gettime(c) for c in self.clocks]

    def spent(self) -> tuple[float, float]:
        """Seconds of CPU the writer and the pool spent since this was made."""
        writer, pool = (b - a for a, b in zip(self.began, self._now(), strict=True))
        return writer, pool


async def _paced(
    rate: float, writes: int, play: Sequence[Room], progress: Progress, work: float
) -> float:
    """Queue ``writes`` writes at ``rate`` a second, turn about among the rooms ``play``,
    each followed by ``work`` seconds of the loop's CPU on other things; the seconds of CPU
    the loop spent making and queueing them."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    spent = 0.0
    i = tick = 0
    while i < writes:
        delay = start + i / rate - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        due = min(writes, int((loop.time() - start) * rate) + 1)
        t0 = time.thread_time()
        progress.queued += due - i
        while i < due:
            play[i % len(play)].play()
            i += 1
        t1 = time.thread_time()
        spent += t1 - t0
        if work:
            _busy(t1 + work * (due - tick))
        tick = due
    return spent


def _busy(until: float) -> None:
    """Hold the interpreter until this thread's CPU clock reaches ``until`` (standing for
    the rest of a server's work on its actions: reading, the rules, sending)."""
    while time.thread_time() < until:
        pass


class _Idle(Room):
    """A room of the pacing's own run: queues nothing."""

    def play(self) -> None:
        pass


async def _steady(
    store: Store, games: list[list[Move]], rate: float, seconds: float, work: float
) -> Figures:
    """The steady run (see the module)."""
    first = await store.call(_stored_counts, store, len(games))  # and every write committed
    progress = Progress()
    writes = int(rate * seconds)
    idle = [_Idle(store, f"g{i}", moves, progress) for i, moves in enumerate(games)]
    began = time.thread_time()
    await _paced(rate, writes, idle, progress, work)  # the schedule alone
    pacing = time.thread_time() - began
    progress = Progress()
    rooms = [Timed(store, f"g{i}", moves, progress) for i, moves in enumerate(games)]
    for room, done in zip(rooms, first, strict=True):
        room.index = done
    commits = Commits()
    store.on_commit = commits
    threads = _Threads()
    began = time.thread_time()
    making = await _paced(rate, writes, rooms, progress, work)
    await progress.all_told()
    loop = time.thread_time() - began
    writer, pool = threads.spent()
    store.on_commit = None
    return Figures(
        writer_us=1e6 * writer / writes,
        pool_us=1e6 * pool / writes,
        loop_us=1e6 * (loop - pacing) / writes,
        make_queue_us=1e6 * making / writes,
        batch=commits.writes / max(1, commits.commits),
        ack_ms=1e3 * sum(r.waited for r in rooms) / writes,
    )


async def _burst(store: Store, games: list[list[Move]], burst: int, rounds: int) -> Figures:
    """The burst run (see the module)."""
    first = await store.call(_stored_counts, store, len(games))  # and every write committed
    progress = Progress()
    rooms = [Room(store, f"g{i}", moves, progress) for i, moves in enumerate(games)]
    for room, done in zip(rooms, first, strict=True):
        room.index = done
    commits = Commits()
    store.on_commit = commits
    threads = _Threads()
    making = 0.0
    began = time.thread_time()
    for _ in range(rounds):
        t0 = time.thread_time()
        progress.queued += burst * len(rooms)
        for room in rooms:
            for _ in range(burst):
                room.play()
        making += time.thread_time() - t0
        await progress.all_told()
    loop = time.thread_time() - began
    writer, pool = threads.spent()
    store.on_commit = None
    writes = rounds * burst * len(rooms)
    return Figures(
        writer_us=1e6 * writer / writes,
        pool_us=1e6 * pool / writes,
        loop_us=1e6 * loop / writes,
        make_queue_us=1e6 * making / writes,
        batch=commits.writes / max(1, commits.commits),
        ack_ms=0.0,
    )


def _stored_counts(store: Store, games: int) -> list[int]:
    """How many actions of each game the store holds (the next index each room writes)."""
    return [
        int(store._execute("SELECT COUNT(*) FROM actions WHERE game=?", (f"g{i}",)).fetchone()[0])
        for i in range(games)
    ]


async def _session(
    db: str, games: list[list[Move]], args: argparse.Namespace
) -> tuple[list[Figures], list[Figures]]:
    store = Store(db)
    for i in range(len(games)):
        store.create_game(f"g{i}", m.GameOptions(players=4), i, "h", None)
    steady: list[Figures] = []
    bursts: list[Figures] = []
    work = args.work_us / 1e6
    try:
        async with store.writing():
            # A warm-up of each (caches, the write-ahead log's first pages), not counted.
            await _steady(store, games, args.rate, min(1.0, args.seconds), work)
            await _burst(store, games, args.burst, max(1, args.rounds // 5))
            for _ in range(args.repeat):
                steady.append(await _steady(store, games, args.rate, args.seconds, work))
                print(steady[-1].line("steady"), flush=True)
                bursts.append(await _burst(store, games, args.burst, args.rounds))
                print(bursts[-1].line("burst"), flush=True)
    finally:
        store.close()
    return steady, bursts


@contextlib.contextmanager
def _database(db: str | None) -> Iterator[str]:
    """The database the runs use: a fresh SQLite file, a PostgreSQL server of its own
    (``postgres``), or the URL given."""
    if db is None:
        with tempfile.TemporaryDirectory(prefix="store-writer") as folder:
            yield str(Path(folder) / "games.db")
    elif db == "postgres":
        with own_postgres() as url:
            yield url
    else:
        yield db


def _median(runs: list[Figures]) -> Figures:
    return Figures(
        *(
            statistics.median(getattr(f, field) for f in runs)
            for field in ("writer_us", "pool_us", "loop_us", "make_queue_us", "batch", "ack_ms")
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--rooms", type=int, default=16, help="games writing at once")
    parser.add_argument("--rate", type=float, default=1150.0, help="steady writes a second")
    parser.add_argument("--seconds", type=float, default=4.0, help="length of a steady run")
    parser.add_argument(
        "--work-us", type=float, default=0.0, help="the loop's other CPU per steady write"
    )
    parser.add_argument("--burst", type=int, default=4, help="writes a room queues at once")
    parser.add_argument("--rounds", type=int, default=300, help="bursts in a burst run")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each")
    parser.add_argument("--seed", type=int, default=0, help="the random games' first seed")
    parser.add_argument("--db", help="a PostgreSQL URL, or 'postgres' for a server of its own")
    args = parser.parse_args()
    games = random_games(args.rooms, args.seed)
    print(
        f"{args.rooms} rooms, {sum(map(len, games)) / len(games):.0f} actions a game; "
        f"steady {args.rate:g}/s for {args.seconds:g} s (+{args.work_us:g} us a write); "
        f"burst {args.burst} a room x "
        f"{args.rounds}",
        flush=True,
    )
    with _database(args.db) as db:
        steady, bursts = asyncio.run(_session(db, games, args))
    print(_median(steady).line("steady~"))
    print(_median(bursts).line("burst~"))
    best = _median(steady)
    print(f"writer_us_per_write: {best.writer_us:.2f} loop_us_per_write: {best.loop_us:.2f}")


if __name__ == "__main__":
    main()
