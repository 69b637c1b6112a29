"""The store's writer: the thread that holds the store's connection while a server runs.

The rooms queue their writes (:class:`~server.store.writes.Write`) without waiting; the
writer takes every job queued so far, in order, commits the writes between two other jobs
in one transaction (a group commit, whatever their games), and tells each room whose
writes it held, once, on the event loop (:class:`WriteListener`). Reads and writes made at
once go through the same queue, so they see every write queued before them. A batch that
fails is tried again write by write, so only the games whose own writes fail are hurt; a
game with a failed write has no later write stored. When a PostgreSQL server goes away,
the writer waits for it and connects again, trying with growing pauses, and each
PostgreSQL commit stores a mark of its own, so a commit whose answer was lost with the
connection is known to have taken (and is not made twice) or not (and is made again).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import queue
import secrets
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import structlog

from server.store.writes import LeaseLost, Write, WriteFailed
from storage import StoreError

if TYPE_CHECKING:
    from server.store.store import Store

__all__ = [
    "COLLECT",
    "DRAIN_TIMEOUT",
    "MARKS_KEPT",
    "MAX_BATCH",
    "RECONNECT_FIRST",
    "RECONNECT_MAX",
    "WriteListener",
    "Writer",
]

MAX_BATCH = 1000
"""Jobs the writer takes from its queue at most for one group commit."""
COLLECT = 0.001
"""Seconds the writer waits for more writes before a commit, while it finds several
waiting each time (under load: bigger transactions, fewer commits); an idle store commits
a lone write at once."""
RECONNECT_FIRST = 0.1
RECONNECT_MAX = 5.0
"""Seconds between tries to reach a lost database server: the first pause, doubled after
each failed try up to the last."""
DRAIN_TIMEOUT = 60.0
"""Seconds the end of :meth:`Store.writing` (and :meth:`Store.close`) waits for the writer
to commit what is queued."""
MARKS_KEPT = 1000
"""Every this many commits, the writer deletes the marks older than an hour."""


def _mark_write(mark: str, prune: bool) -> Write:
    """The mark of one commit (see :meth:`Writer._surely`); with ``prune``, old ones go."""
    if prune:
        return Write(
            "",
            "the commit's mark",
            "WITH old AS (DELETE FROM batches WHERE at < ?) INSERT INTO batches (id, at) "
            "VALUES (?, ?)",
            (time.time() - 3600, mark, time.time()),
        )
    return Write(
        "", "the commit's mark", "INSERT INTO batches (id, at) VALUES (?, ?)", (mark, time.time())
    )


_log = structlog.get_logger("hexhaven.store")
_T = TypeVar("_T")


class WriteListener(Protocol):
    """Who is told of the commits of the writes it queued (a room): once per group
    commit, on the event loop, for all of its writes that commit held."""

    def stored(self, count: int, failure: WriteFailed | None) -> None:
        """``count`` of its writes are committed, the first queued first; then, with
        ``failure``, the next one was not stored (nor is any later write of its game: a
        game's record never has a gap)."""


_Queued = tuple[Write, WriteListener | None]
"""A write for the next group commit, and who is told of its commit (a plain pair: one is
made for every write queued)."""


@dataclass(frozen=True)
class _Call:
    """Something to run on the connection in turn (a read, or a write made at once)."""

    fn: Callable[[], Any]
    done: concurrent.futures.Future[Any]


@dataclass(frozen=True)
class _Stop:
    """The writer's last job: done once everything before it is committed."""

    done: concurrent.futures.Future[None]


_Job = _Queued | _Call | _Stop
_listener = itemgetter(1)
"""A queued write's listener."""


def _acknowledge(
    counts: Mapping[WriteListener, int], failures: dict[WriteListener, WriteFailed]
) -> None:
    """On the event loop: tell each listener of a batch's writes what became of them (one
    call each, for the whole batch). One listener's failure to hear is logged and keeps no
    other from hearing."""
    for listener, count in counts.items():
        try:
            listener.stored(count, failures.get(listener))
        except Exception:
            _log.exception("store.listener_failed", listener=repr(listener))


class Writer:
    """The thread that holds a store's connection while :meth:`Store.writing` runs. It takes
    every job queued so far, in order: the writes between two other jobs go in one
    transaction (group commit, whatever their games), then each room whose writes it held is
    told once, on the event loop (one hand-over to the loop for the batch). A batch that
    fails is tried again write by write, so only the games whose own writes fail are hurt;
    a game with a failed write has no later write stored."""

    def __init__(self, store: Store, loop: asyncio.AbstractEventLoop) -> None:
        self._store = store
        self._loop = loop
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name="store-writer", daemon=True)
        self._failed: set[str] = set()
        """Games with a write not stored (touched on the thread only)."""
        self._stopping = threading.Event()
        """Set when the writer is asked to stop: it waits no more for a lost database."""
        self.reconnecting = False
        """Whether the writer waits for a lost database server."""
        self._id = secrets.token_hex(8)
        self._marks = 0
        """Marks of commits made (:meth:`_surely`)."""

    def waiting(self) -> int:
        """Jobs queued and not taken yet."""
        return self._jobs.qsize()

    def start(self) -> None:
        self._thread.start()

    def is_current(self) -> bool:
        """Whether the caller is the writer's thread."""
        return threading.current_thread() is self._thread

    def queue(self, write: Write, listener: WriteListener | None) -> None:
        """Queue ``write``; ``listener`` is told on the loop once its batch is committed."""
        self._jobs.put((write, listener))

    def call(self, fn: Callable[[], _T]) -> concurrent.futures.Future[_T]:
        """Run ``fn`` on the thread after every job queued before it."""
        done: concurrent.futures.Future[_T] = concurrent.futures.Future()
        self._jobs.put(_Call(fn, done))
        return done

    async def drain(self, timeout: float) -> bool:
        """Commit everything queued and end the thread; whether it ended within
        ``timeout`` seconds (if not, that is logged)."""
        done: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._stopping.set()
        self._jobs.put(_Stop(done))
        try:
            async with asyncio.timeout(timeout):
                await asyncio.shield(asyncio.wrap_future(done))
        except TimeoutError:
            _log.error("store.drain_timeout", db=self._store.where, waited=timeout)
            return False
        await asyncio.to_thread(self._thread.join)
        return True

    def stop(self, timeout: float) -> bool:
        """As :meth:`drain`, for a caller off the event loop (or at its end): blocks."""
        if self.is_current():
            raise StoreError("the store's writer cannot stop itself")
        self._stopping.set()
        self._jobs.put(_Stop(concurrent.futures.Future()))
        self._thread.join(timeout)
        if self._thread.is_alive():
            _log.error("store.drain_timeout", db=self._store.where, waited=timeout)
            return False
        return True

    # --- on the thread ------------------------------------------------------------------------
    def _serve(self) -> None:
        """Take jobs, a batch at a time, until stopped with nothing left."""
        stops: list[_Stop] = []
        busy = False
        while True:
            try:
                jobs = [self._jobs.get_nowait() if stops else self._jobs.get()]
            except queue.Empty:
                break
            if busy and not stops:
                time.sleep(COLLECT)  # under load: let more writes join this transaction
            while len(jobs) < MAX_BATCH:
                try:
                    jobs.append(self._jobs.get_nowait())
                except queue.Empty:
                    break
            busy = len(jobs) > 1
            stops.extend(self._run(jobs))
        for stop in stops:
            if stop.done.set_running_or_notify_cancel():
                stop.done.set_result(None)

    def _run(self, jobs: list[_Job]) -> list[_Stop]:
        """Run one batch of jobs in order; returns the stops among them."""
        stops: list[_Stop] = []
        writes: list[_Queued] = []
        for job in jobs:
            if isinstance(job, tuple):
                writes.append(job)
                continue
            self._commit(writes)  # what came before it first: a read sees it
            writes = []
            if isinstance(job, _Stop):
                stops.append(job)
            elif job.done.set_running_or_notify_cancel():
                if self._store.db.lost:
                    self._reconnect()
                try:
                    job.done.set_result(job.fn())
                except BaseException as exc:
                    job.done.set_exception(exc)
        self._commit(writes)
        return stops

    def _commit(self, writes: list[_Queued]) -> None:
        """Commit ``writes`` as one transaction and tell their listeners. If the database
        server was lost, the whole batch is tried again once it is back, unless it took
        (:meth:`_surely`). If it fails otherwise, each write is tried alone, in order; a
        write that fails alone is logged with its game and fails, and so does every later
        write of that game."""
        if not writes:
            return
        failed = self._failed
        live = [w for w, _ in writes if w.game not in failed] if failed else [w for w, _ in writes]
        whole = True
        lost: dict[str, str | None] = {}
        if live:
            try:
                began = time.perf_counter()
                lost = self._surely(live)
                observe = self._store.on_commit
                if observe is not None:
                    observe(len(live), time.perf_counter() - began)
            except Exception as exc:
                whole = False
                _log.warning(
                    "store.batch_failed",
                    writes=len(live),
                    games=sorted({w.game for w in live}),
                    error=repr(exc),
                )
        if whole and not lost and len(live) == len(writes):
            counts = Counter(map(_listener, writes))  # every write stored
            del counts[None]  # (a Counter's del of a missing key does nothing)
            self._tell(counts, {})
            return
        told: dict[WriteListener, int] = {}
        failures: dict[WriteListener, WriteFailed] = {}
        for write, listener in writes:
            error: WriteFailed | None = None
            if write.game in failed:
                error = WriteFailed(write, "an earlier write of the game was not stored")
                _log.error("store.write_refused", game=write.game, write=write.what)
            elif write.game in lost:
                error = LeaseLost(write, lost[write.game])
            elif not whole:
                error = self._alone(write)
            if listener is None or listener in failures:
                continue  # nobody to tell; or told of an earlier failure, all it needs
            told[listener] = told.get(listener, 0) + (error is None)
            if error is not None:
                failures[listener] = error
        self._lose(lost)
        self._tell(told, failures)

    def _tell(
        self, counts: Mapping[WriteListener, int], failures: dict[WriteListener, WriteFailed]
    ) -> None:
        """Hand a batch's word to the event loop (one hand-over for the whole batch)."""
        if counts:
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody listens
                self._loop.call_soon_threadsafe(_acknowledge, counts, failures)

    def _reconnect(self) -> bool:
        """Wait for a lost database server to be back, trying again and again with a
        growing pause (:data:`RECONNECT_FIRST` up to :data:`RECONNECT_MAX`); meanwhile
        nothing is committed, so every game waits where it is (its events leave only once
        stored). False when the writer is asked to stop first."""
        db = self._store.db
        _log.error("store.disconnected", db=db.where)
        pause = RECONNECT_FIRST
        tries = 0
        self.reconnecting = True
        try:
            while not self._stopping.wait(pause):
                tries += 1
                try:
                    db.reconnect()
                except StoreError as exc:
                    _log.warning("store.reconnect_failed", db=db.where, tries=tries, error=str(exc))
                    pause = min(pause * 2, RECONNECT_MAX)
                    continue
                _log.info("store.reconnected", db=db.where, tries=tries)
                return True
            return False
        finally:
            self.reconnecting = False

    def _alone(self, write: Write) -> WriteFailed | None:
        """Commit one write by itself; the failure (logged, its game marked) or None."""
        try:
            lost = self._surely([write])
        except Exception as exc:
            self._failed.add(write.game)
            _log.error("store.write_failed", game=write.game, write=write.what, error=repr(exc))
            return WriteFailed(write, repr(exc))
        if write.game in lost:
            self._lose(lost)
            return LeaseLost(write, lost[write.game])
        return None

    def _lose(self, lost: dict[str, str | None]) -> None:
        """Games whose lease the fence found gone: logged, and nothing more of them is
        written (until :meth:`forget`)."""
        for game, url in lost.items():
            if game not in self._failed:
                self._failed.add(game)
                _log.warning("store.lease_lost", game=game, now_at=url)

    def forget(self, game: str) -> None:
        """Write ``game`` again (a room takes it over afresh): its earlier failures no
        longer refuse its writes. On the thread, behind every write queued before."""
        self._failed.discard(game)

    def _surely(self, writes: list[Write]) -> dict[str, str | None]:
        """Commit ``writes`` in one transaction; if the database server is lost meanwhile,
        again once it is back, unless the lost commit took after all. On PostgreSQL the
        transaction also stores a mark of its own (``batches``), which says so. Returns the
        games the fence left out (:meth:`Store.commit`), with where they are played.
        Raises what the commit raises with the server there."""
        db = self._store.db
        lost: dict[str, str | None] = {}
        while True:
            mark = None
            batch = writes
            if db.postgres:
                self._marks += 1
                mark = f"{self._id}:{self._marks}"
                batch = [*writes, _mark_write(mark, self._marks % MARKS_KEPT == 0)]
            try:
                self._store.commit(batch, lost)
                return lost
            except Exception:
                if not (db.gone() and self._reconnect()):
                    raise
                if mark is not None and self._store.has_mark(mark):
                    return lost  # the commit took; its answer was lost with the connection
