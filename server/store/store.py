"""The games store: one database (a SQLite file, or a PostgreSQL URL), brought up to date
when opened, and who may use its connection when.

Without a writer the connection is the caller's: every method runs at once and commits
before it returns. While :meth:`Store.writing` runs the writer (:mod:`server.store.writer`:
a server runs it), the connection is the writer thread's, and every call goes through it in
the order made: writes queued without waiting, reads awaited, and the synchronous methods
waiting behind the queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import structlog

import engine
from protocol import messages as m
from server.store import leases, reads
from server.store.reads import Listed, StoredGame
from server.store.schema import HASHED, MIGRATIONS, STORE_NAME, scrub
from server.store.writer import DRAIN_TIMEOUT, WriteListener, Writer
from server.store.writes import (
    Write,
    action_played,
    chat_said,
    game_abandoned,
    game_created,
    game_finished,
    game_started,
    lobby_swept,
    seat_freed,
    seat_set,
)
from storage import Database, Pool, StoreError, connect, is_postgres, migrate

__all__ = ["Store"]

_log = structlog.get_logger("hexhaven.store")
_T = TypeVar("_T")
_P = ParamSpec("_P")


class Store:
    """The games database: a SQLite file (``:memory:`` by default) or a ``postgresql://``
    URL. Opening brings the database's schema up to date (:data:`MIGRATIONS`). Opening a
    PostgreSQL database raises :class:`StoreError` when it cannot; a SQLite file raises
    ``sqlite3.Error``; either raises :class:`StoreError` when its schema is newer than this
    program knows. A PostgreSQL database is migrated on a connection of its own, then used
    through a :class:`storage.Pool` (psycopg's asynchronous driver and connection pool, on
    the pool's own thread and event loop).

    One thread at a time uses the connection. Without a writer it is the caller's: every
    method runs at once and commits before it returns. While :meth:`writing` runs the
    writer (a server runs it), the connection is the writer thread's, and every call goes
    through it in the order made: a write queued with :meth:`queue` is group-committed with
    whatever else has queued, without the event loop waiting; :meth:`call` awaits a read (it
    sees every write queued before it); the synchronous methods still work, their caller
    waiting behind the queue (never on the event loop's hot path)."""

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.path = str(path)
        self.postgres = is_postgres(self.path)
        self._writer: Writer | None = None
        self.on_commit: Callable[[int, float], None] | None = None
        """Told of each group commit the writer makes: its writes and its seconds (the
        server's metrics); called on the writer's thread."""
        self.holder: str | None = None
        """The server process (its name in ``leases``) whose leases fence the writer's
        commits on PostgreSQL: a game's writes are made only while it holds the game's lease
        by the database's clock. None (the default): no fence, for a store no lease
        governs."""
        first = connect(self.path, any_thread=True)
        try:
            found = migrate(first, STORE_NAME, MIGRATIONS)
            if found < HASHED:
                scrub(first)
        except BaseException:
            first.close()
            raise
        self.db: Database | Pool = first
        if self.postgres:  # migrated on a connection of its own; from now on, the pool
            first.close()
            self.db = Pool(self.path)

    @property
    def where(self) -> str:
        """The database, as it may be shown (a URL without its password)."""
        return self.db.where

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """Run one statement (autocommit) with ``?`` marking its parameters, on the calling thread;
        returns the cursor. Only where the connection is the caller's: no writer runs, or
        this is its thread."""
        return self.db.execute(sql, params)

    def _on_connection(self, fn: Callable[[], _T]) -> _T:
        """``fn()`` where the connection is: here and now without a writer (or on its
        thread), else on the writer's thread behind everything queued, the caller waiting.
        Raises what ``fn`` raises."""
        writer = self._writer
        if writer is None or writer.is_current():
            return fn()
        return writer.call(fn).result()

    def close(self) -> None:
        """Close the connection, once a writer still running has committed what is queued
        (waiting up to :data:`DRAIN_TIMEOUT`; a writer stuck longer keeps the connection,
        and that is logged). Closing twice does nothing more."""
        writer = self._writer
        if writer is not None:
            if not writer.stop(DRAIN_TIMEOUT):
                _log.error("store.not_closed", db=self.where, reason="the writer is stuck")
                return
            self._writer = None
        self.db.close()

    # --- the writer ---------------------------------------------------------------------------
    def waiting(self) -> int:
        """Jobs queued for the writer and not taken yet (0 without a writer)."""
        writer = self._writer
        return 0 if writer is None else writer.waiting()

    @property
    def reachable(self) -> bool:
        """Whether the database is there: False while the writer waits for a lost
        PostgreSQL server to be back."""
        writer = self._writer
        return writer is None or not writer.reconnecting

    @contextlib.asynccontextmanager
    async def writing(self) -> AsyncIterator[None]:
        """Run the writer for the block: one thread that holds the connection and commits
        queued writes in batches. On the way out every write queued is committed (waiting
        up to :data:`DRAIN_TIMEOUT`; a writer stuck longer is logged and left to
        :meth:`close`), the thread ends and the connection is the caller's again. Raises
        :class:`StoreError` if a writer already runs."""
        if self._writer is not None:
            raise StoreError(f"the store {self.where} already has a writer")
        writer = Writer(self, asyncio.get_running_loop())
        self._writer = writer
        writer.start()
        try:
            yield
        finally:
            if await writer.drain(DRAIN_TIMEOUT):
                self._writer = None

    def write(self, write: Write) -> None:
        """Store ``write`` and commit it before returning; with a writer running, behind
        everything queued (the caller waits). Raises the database's error."""
        self._on_connection(lambda: self._execute(write.sql, write.params))

    def queue(self, write: Write, listener: WriteListener | None = None) -> bool:
        """Queue ``write`` for the writer's next group commit; once that commit is made (or
        has failed: :class:`WriteFailed`, logged by the writer), ``listener`` is told on
        the event loop the writer runs on, with every other write of it the commit held
        (:meth:`WriteListener.stored`). True: queued. Without a writer it is stored at once
        (False; the database's error is raised, and ``listener`` is told nothing)."""
        writer = self._writer
        if writer is None:
            self.write(write)
            return False
        writer.queue(write, listener)
        return True

    async def call(self, fn: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
        """``fn(*args, **kwargs)`` on the connection (a read such as :meth:`load`), awaited:
        on the writer's thread after every write queued before it, or at once without a
        writer. Raises what ``fn`` raises."""
        writer = self._writer
        if writer is None:
            return fn(*args, **kwargs)
        return await asyncio.wrap_future(writer.call(functools.partial(fn, *args, **kwargs)))

    def has_mark(self, mark: str) -> bool:
        """Whether the commit that stored ``mark`` took (the writer asks, on its thread)."""
        row = self._execute("SELECT 1 FROM batches WHERE id=?", (mark,)).fetchone()
        return row is not None

    def commit(self, writes: Sequence[Write], lost: dict[str, str | None]) -> None:
        """The writer's group commit (on its thread): ``writes`` in one transaction, all
        stored or, if any of them or the commit fails, none (the error is raised). Fenced on
        PostgreSQL (see :attr:`holder`): the writes of the games whose lease this process
        does not hold are left out, and those games put in ``lost`` with the URL of their
        lease's holder (None: none). A subclass may watch it or hold it."""
        leases.commit(self.db, self.holder, writes, lost)

    # --- writes, at once ------------------------------------------------------------------------
    def create_game(
        self, game_id: str, options: m.GameOptions, seed: int, seed_hash: str, invite: str | None
    ) -> None:
        self.write(game_created(game_id, options, seed, seed_hash, invite))

    def set_seat(
        self, game_id: str, seat: int, token_hash: str, name: str, bot: str | None = None
    ) -> None:
        """Record a seat by the hash of its token (:func:`~server.tokens.hash_token`; never
        the token), its player's name, and the bot kind playing it (None: a person)."""
        self.write(seat_set(game_id, seat, token_hash, name, bot))

    def free_seat(self, game_id: str, seat: int) -> None:
        self.write(seat_freed(game_id, seat))

    def start_game(self, game_id: str) -> None:
        self.write(game_started(game_id))

    def append_action(
        self,
        game_id: str,
        index: int,
        action: engine.Action,
        dice: tuple[int, int] | None,
    ) -> None:
        """Record the ``index``-th action of a game (and the dice it rolled, if any)."""
        self.write(action_played(game_id, index, action, dice))

    def finish_game(self, game_id: str, winner: int | None, points: list[int]) -> None:
        self.write(game_finished(game_id, winner, points))

    def abandon_game(self, game_id: str) -> None:
        """Close a game that nobody finished: it is no longer resumed (no winner)."""
        self.write(game_abandoned(game_id))

    def add_chat(self, game_id: str, seat: int | None, name: str, text: str) -> None:
        self.write(chat_said(game_id, seat, name, text))

    # --- reads ----------------------------------------------------------------------------------
    def load(self, game_id: str) -> StoredGame | None:
        """The game ``game_id`` as stored, or None."""
        return self._on_connection(lambda: reads.load(self.db, game_id))

    def played_out(self) -> list[tuple[str, float, int | None, list[int]]]:
        """Every game played to its end, newest first: (id, when it ended, winner,
        points)."""
        return self._on_connection(lambda: reads.played_out(self.db))

    def take(self, game_id: str) -> StoredGame | None:
        """The game ``game_id`` as stored, for a room that takes it over (this process
        has newly taken its lease): the writes of it refused before (a lease lost, a write
        that failed in an earlier room) no longer keep the new room's from being made."""

        def run() -> StoredGame | None:
            writer = self._writer
            if writer is not None:
                writer.forget(game_id)
            return reads.load(self.db, game_id)

        return self._on_connection(run)

    # --- leases: which process plays a game -----------------------------------------------
    def claim(self, owner: str, url: str, lease: float) -> list[str]:
        """Take or keep, for ``owner`` (a server process, reached at ``url``), the lease of
        every unfinished game whose lease is ``owner``'s, lapsed, or missing, for ``lease``
        seconds by the database's clock; the games ``owner`` holds now, oldest first. One
        statement: two processes claiming at once never both get a game."""
        return self._on_connection(lambda: leases.claim(self.db, owner, url, lease))

    def lease(self, game_id: str) -> tuple[str, str, float] | None:
        """Who holds ``game_id``'s lease: (owner, url, when it expires by this machine's
        clock, as ``time.time()`` tells it), or None."""
        row = self._on_connection(lambda: leases.holder(self.db, game_id))
        return None if row is None else (str(row[0]), str(row[1]), float(row[2]))

    def release_leases(self, owner: str) -> None:
        """Give up every lease ``owner`` holds (a server stopping cleanly: another process
        takes its games over at once)."""
        self.write(leases.released(owner))

    # --- the lobby and invite codes of every process -----------------------------------------
    def lobby(self, now: float) -> list[Listed]:
        """The games in the lobby whose lease is held at ``now`` (their process is alive),
        in the lobby's order."""
        return self._on_connection(lambda: reads.lobby(self.db, now))

    def sweep_lobby(self, before: float) -> None:
        """Take out of the lobby the games with no lease held since ``before`` (their
        process died and none took them over: they were over, or closed)."""
        self.write(lobby_swept(before))

    def invited(self, invite: str) -> str | None:
        """The unfinished game whose invite code is ``invite``, or None."""
        return self._on_connection(lambda: reads.invited(self.db, invite))

    def unfinished(self) -> Iterator[StoredGame]:
        """Every game not yet over, oldest first."""
        ids = self._on_connection(lambda: reads.unfinished(self.db))
        for game_id in ids:
            game = self.load(game_id)
            if game is not None:
                yield game
