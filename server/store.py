"""Persistence: games are event-sourced into SQLite (embedded, no set-up), or into
PostgreSQL for a deployment (``--db postgresql://...``, the ``postgres`` extra).

A game is its options, its seed (with the hash published at creation), its seats and the
ordered actions applied to it; the state is always the replay of those. An action is
written (and committed) before its events leave the server, so a server killed at any point
restarts with every game where its players last saw it.

While a server runs, one thread, the writer (:meth:`Store.writing`), holds the connection:
the rooms queue their writes (:class:`Write`) without waiting, the writer commits whatever
has queued, from every game, in one transaction (a group commit), and each room hears on
its event loop when its writes are stored. Reads go through the same queue, so they see
every write queued before them. When a PostgreSQL server goes away (restarted, or the
connection dropped), the writer waits for it and connects again, trying with growing pauses;
meanwhile every game waits where it is, and once the database is back its batch is
committed and play goes on: nothing needs restarting. Each PostgreSQL commit also stores a
mark of its own, so a commit whose answer was lost with the connection is known to have
taken (and is not made twice) or not (and is made again). On PostgreSQL the store talks to
the database through psycopg's asynchronous driver and a connection pool
(:class:`storage.Pool`), on an event loop of the pool's own: the server's event loop never
runs the database's client-side work.

On PostgreSQL several server processes may share the database: each game is played by the
process holding its lease (``leases``; see ``HexhavenServer``), and the lobby shows the
public games of them all (``lobby``: each process keeps its own games' entries). Every
commit is fenced by the leases (:attr:`Store.holder`): in the same transaction it checks,
against the database's clock, that this process still holds the lease of each game it
writes, and the writes of a game it no longer holds are not made (they fail with
:class:`LeaseLost`), so no two processes ever write one game.

A seat is kept by the hash of its token (:func:`server.tokens.hash_token`), never the token: whoever
reads the database cannot take a seat with what it holds. The schema is numbered
(:data:`MIGRATIONS`); a database of an older version is brought up to date when opened.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import json
import queue
import secrets
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple, ParamSpec, Protocol, TypeVar

import structlog
from pydantic import TypeAdapter

import engine
from protocol import messages as m
from protocol.payloads import ActionPayload, action_from_engine, action_to_engine
from server.tokens import hash_token, token_matches
from storage import (
    Database,
    Migration,
    Pool,
    Row,
    Statement,
    StoreError,
    connect,
    is_postgres,
    migrate,
    redact,
)

__all__ = [
    "DRAIN_TIMEOUT",
    "LeaseLost",
    "MIGRATIONS",
    "Listed",
    "STORE_NAME",
    "Store",
    "StoreError",
    "StoredGame",
    "Write",
    "WriteFailed",
    "WriteListener",
    "action_played",
    "chat_said",
    "game_abandoned",
    "game_created",
    "game_finished",
    "game_listed",
    "game_record",
    "game_started",
    "game_unlisted",
    "hash_token",
    "is_played_out",
    "is_postgres",
    "redact",
    "seat_freed",
    "seat_set",
    "token_matches",
]

_ACTION: TypeAdapter[Any] = TypeAdapter(ActionPayload)


SCHEMA_1 = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    options TEXT NOT NULL,
    seed BIGINT NOT NULL,
    seed_hash TEXT NOT NULL,
    invite TEXT,
    created DOUBLE PRECISION NOT NULL,
    started INTEGER NOT NULL DEFAULT 0,
    finished DOUBLE PRECISION,
    winner INTEGER,
    points TEXT
);
CREATE TABLE IF NOT EXISTS seats (
    game TEXT NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    token TEXT NOT NULL,
    name TEXT NOT NULL,
    bot TEXT,
    PRIMARY KEY (game, seat)
);
CREATE TABLE IF NOT EXISTS actions (
    game TEXT NOT NULL REFERENCES games(id),
    idx INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action TEXT NOT NULL,
    dice TEXT,
    PRIMARY KEY (game, idx)
);
CREATE TABLE IF NOT EXISTS chat (
    game TEXT NOT NULL REFERENCES games(id),
    at DOUBLE PRECISION NOT NULL,
    seat INTEGER,
    name TEXT NOT NULL,
    text TEXT NOT NULL
);
"""
"""Version 1, the tables as they first were (seats kept their tokens in clear), in SQL that
SQLite and PostgreSQL both take (seeds reach 2^63 - 1). ``IF NOT EXISTS``: a database made
before versions were recorded is at version 1 already."""


def _create_tables(db: Database) -> None:
    """Version 1: the tables (:data:`SCHEMA_1`)."""
    for statement in SCHEMA_1.split(";"):
        if statement.strip():
            db.execute(statement)


def _hash_tokens(db: Database) -> None:
    """Version 2: seats are kept by the hash of their token (``seats.token_hash``); every
    token stored in clear is replaced by its hash (on SQLite, with the space it took
    zeroed; :func:`_scrub` sees to the copies outside the table)."""
    if not db.postgres:
        db.execute("PRAGMA secure_delete=ON")
    db.execute("ALTER TABLE seats RENAME COLUMN token TO token_hash")
    rows = db.execute("SELECT game, seat, token_hash FROM seats").fetchall()
    for game, seat, token in rows:
        db.execute(
            "UPDATE seats SET token_hash=? WHERE game=? AND seat=?",
            (hash_token(token), game, seat),
        )


def _lease_table(db: Database) -> None:
    """Version 3: which server process plays each game (``leases``), for several
    processes on one PostgreSQL database."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS leases (game TEXT PRIMARY KEY, owner TEXT NOT NULL, "
        "url TEXT NOT NULL, expires DOUBLE PRECISION NOT NULL)"
    )


def _batch_table(db: Database) -> None:
    """Version 4: the marks of the writer's recent commits (``batches``), so that a commit
    whose answer was lost with the connection is known to have taken or not."""
    db.execute("CREATE TABLE IF NOT EXISTS batches (id TEXT PRIMARY KEY, at DOUBLE PRECISION)")


def _lobby_table(db: Database) -> None:
    """Version 5: the public games of every process (``lobby``, numbered in the order they
    were listed: the order ``list_games`` pages by), and games found by invite code
    (``games_invite``), for several processes on one PostgreSQL database."""
    number = (
        "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
        if db.postgres
        else "INTEGER PRIMARY KEY AUTOINCREMENT"
    )
    db.execute(
        f"CREATE TABLE IF NOT EXISTS lobby (number {number}, "
        "game TEXT NOT NULL UNIQUE REFERENCES games(id), summary TEXT NOT NULL)"
    )
    db.execute("CREATE INDEX IF NOT EXISTS games_invite ON games (invite)")


STORE_NAME = "games"
"""The games store's name in the database's table of schema versions."""
MIGRATIONS: tuple[Migration, ...] = (
    _create_tables,
    _hash_tokens,
    _lease_table,
    _batch_table,
    _lobby_table,
)
"""The schema's versions in order: step ``i`` makes version ``i + 1``. A new version is a
new step at the end; a step once released never changes."""
_HASHED = 2
"""The first version that keeps hashes of tokens."""


@dataclass(frozen=True)
class Listed:
    """A public game in the lobby shared by the processes on one database."""

    number: int
    """Its place in the lobby's order (``list_games`` pages by it)."""
    summary: m.GameSummary
    owner: str
    """The process that plays it (its name in the leases)."""


@dataclass(frozen=True)
class StoredGame:
    """A game as the store holds it."""

    id: str
    options: m.GameOptions
    seed: int
    seed_hash: str
    invite: str | None
    started: bool
    finished: bool
    winner: int | None
    points: list[int] | None
    seats: dict[int, tuple[str, str, str | None]]
    """seat -> (the hash of its token, its player's name, the bot kind or None)"""
    actions: list[engine.Action]
    dice: list[tuple[int, tuple[int, int]]]  # (action index, dice) of every roll


def is_played_out(stored: StoredGame) -> bool:
    """Whether a game was played to its end (not abandoned, not going on): only then are
    its seed and actions public."""
    return stored.finished and stored.points is not None


def game_record(stored: StoredGame) -> m.GameRecord:
    """The public record of a game played out (:func:`is_played_out`): options, seed,
    seats' names and actions; never what the seats are kept by. Raises ValueError for any other."""
    if not is_played_out(stored) or stored.points is None:
        raise ValueError(f"game {stored.id} is not over")
    return m.GameRecord(
        game=stored.id,
        options=stored.options,
        seed=stored.seed,
        seed_hash=stored.seed_hash,
        seats=[
            m.SeatRecord(seat=seat, name=name, bot=bot is not None)
            for seat, (_, name, bot) in sorted(stored.seats.items())
        ],
        actions=[
            m.RecordedAction(seat=a.seat, action=_ACTION.validate_python(action_from_engine(a)))
            for a in stored.actions
        ],
        winner=stored.winner,
        points=list(stored.points),
    )


# --- a game's record, written ------------------------------------------------------------


class Write(NamedTuple):
    """One statement of a game's record. It is made on the event loop and run by whoever
    holds the connection: at once (:meth:`Store.write`) or in the writer's next group commit
    (:meth:`Store.queue`). An immutable tuple: one is made for every action played."""

    game: str
    label: str | engine.Action
    """What it records (:attr:`what`), or the action it stores (named only when shown)."""
    sql: str
    params: tuple[Any, ...]
    takes_lease: bool = False
    """It takes its game's lease (a new game's): the commit holding it is not fenced for
    that game (see :attr:`Store.holder`)."""

    @property
    def what(self) -> str:
        """What it records, as the log shows it: ``action 17 (BuildRoad, seat 2)``,
        ``seat 1``..."""
        label = self.label
        if isinstance(label, str):
            return label
        return f"action {self.params[1]} ({type(label).__name__}, seat {label.seat})"


def game_created(
    game_id: str, options: m.GameOptions, seed: int, seed_hash: str, invite: str | None
) -> Write:
    """A new game: its options, its seed with the hash published, its invite code."""
    return Write(
        game_id,
        "the game",
        "INSERT INTO games (id, options, seed, seed_hash, invite, created) VALUES (?,?,?,?,?,?)",
        (game_id, options.model_dump_json(), seed, seed_hash, invite, time.time()),
    )


def seat_set(game_id: str, seat: int, token_hash: str, name: str, bot: str | None = None) -> Write:
    """A seat, by the hash of its token (:func:`hash_token`; never the token), its player's
    name, and the bot kind playing it (None: a person); it replaces the seat's holder."""
    return Write(
        game_id,
        f"seat {seat}",
        "INSERT INTO seats (game, seat, token_hash, name, bot) VALUES (?,?,?,?,?) "
        "ON CONFLICT (game, seat) DO UPDATE "
        "SET token_hash=excluded.token_hash, name=excluded.name, bot=excluded.bot",
        (game_id, seat, token_hash, name, bot),
    )


def seat_freed(game_id: str, seat: int) -> Write:
    """A seat given up before the start."""
    return Write(
        game_id, f"seat {seat} freed", "DELETE FROM seats WHERE game=? AND seat=?", (game_id, seat)
    )


def game_started(game_id: str) -> Write:
    """The start of a game."""
    return Write(game_id, "the start", "UPDATE games SET started=1 WHERE id=?", (game_id,))


def action_played(
    game_id: str, index: int, action: engine.Action, dice: tuple[int, int] | None
) -> Write:
    """The ``index``-th action of a game, and the dice it rolled, if any."""
    return Write(
        game_id,
        action,
        "INSERT INTO actions (game, idx, seat, action, dice) VALUES (?,?,?,?,?)",
        (
            game_id,
            index,
            action.seat,
            _action_json(action),
            None if dice is None else f"[{dice[0]}, {dice[1]}]",  # as json.dumps writes it
        ),
    )


@functools.lru_cache(maxsize=4096)
def _action_json(action: engine.Action) -> str:
    """An action's wire form as stored (kept for the actions met most often)."""
    return action_from_engine(action).model_dump_json()


def game_finished(game_id: str, winner: int | None, points: list[int]) -> Write:
    """The end of a game played out: its winner (None: nobody, at the action limit) and
    points."""
    return Write(
        game_id,
        "the end",
        "UPDATE games SET finished=?, winner=?, points=? WHERE id=?",
        (time.time(), winner, json.dumps(points), game_id),
    )


MARKS_KEPT = 1000
"""Every this many commits, the writer deletes the marks older than an hour."""


def _mark_write(mark: str, prune: bool) -> Write:
    """The mark of one commit (see ``_Writer._surely``); with ``prune``, old ones go."""
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


_DB_NOW = "extract(epoch FROM clock_timestamp())::float8"
"""The database server's clock (PostgreSQL), in seconds since the epoch as leases keep it."""


def lease_taken(game_id: str, owner: str, url: str, lease: float) -> Write:
    """A new game's lease (PostgreSQL), held by the process that opened it for ``lease``
    seconds by the database's clock."""
    return Write(
        game_id,
        "its lease",
        f"INSERT INTO leases (game, owner, url, expires) VALUES (?,?,?,{_DB_NOW} + ?) "
        "ON CONFLICT (game) DO UPDATE SET owner=excluded.owner, url=excluded.url, "
        "expires=excluded.expires",
        (game_id, owner, url, lease),
        takes_lease=True,
    )


def game_listed(summary: m.GameSummary) -> Write:
    """A public game as the lobby of every process shows it: listed, or brought up to date
    in its place (a game keeps its place in the lobby's order whichever process plays it)."""
    return Write(
        summary.game,
        "its lobby entry",
        "INSERT INTO lobby (game, summary) VALUES (?, ?) "
        "ON CONFLICT (game) DO UPDATE SET summary=excluded.summary",
        (summary.game, summary.model_dump_json()),
    )


def game_unlisted(game_id: str) -> Write:
    """A game out of the lobby (closed)."""
    return Write(game_id, "its lobby exit", "DELETE FROM lobby WHERE game=?", (game_id,))


_FENCE = f"SELECT game, owner, url, expires > {_DB_NOW} FROM leases WHERE game = ANY(?) FOR SHARE"
"""A commit's fence: the leases of the games it writes, locked until it ends (a process
taking one over waits for the commit), each with whether it is still running."""


def game_abandoned(game_id: str) -> Write:
    """A game nobody finished closed: it is no longer resumed (no winner). A game already
    over stays as it ended."""
    return Write(
        game_id,
        "abandoned",
        "UPDATE games SET finished=? WHERE id=? AND finished IS NULL",
        (time.time(), game_id),
    )


def chat_said(game_id: str, seat: int | None, name: str, text: str) -> Write:
    """A line of chat (``seat`` None: a spectator's)."""
    return Write(
        game_id,
        "a chat line",
        "INSERT INTO chat (game, at, seat, name, text) VALUES (?,?,?,?,?)",
        (game_id, time.time(), seat, name, text),
    )


class WriteFailed(StoreError):
    """A queued write that was not stored: it, or the commit, failed; or an earlier write of
    its game had (a game's record never has a gap). ``write`` is the write."""

    def __init__(self, write: Write, reason: str) -> None:
        super().__init__(f"game {write.game}: {write.what} was not stored: {reason}")
        self.write = write


class LeaseLost(WriteFailed):
    """A queued write not stored because this process no longer holds its game's lease
    (the commit's fence found it lapsed, or held by another process): another process plays
    the game, or will. ``url`` is where the lease's holder is reached (None: no holder)."""

    def __init__(self, write: Write, url: str | None) -> None:
        held = "by another server" if url is None else f"by the server at {url}"
        super().__init__(
            write, f"this server no longer holds the game's lease; it is played {held}"
        )
        self.url = url


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
        self._writer: _Writer | None = None
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
            if found < _HASHED:
                _scrub(first)
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
        writer = _Writer(self, asyncio.get_running_loop())
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

    def _has_mark(self, mark: str) -> bool:
        """Whether the commit that stored ``mark`` took."""
        row = self._execute("SELECT 1 FROM batches WHERE id=?", (mark,)).fetchone()
        return row is not None

    def _commit(self, writes: Sequence[Write], lost: dict[str, str | None]) -> None:
        """The writer's group commit: ``writes`` in one transaction, all stored or, if any
        of them or the commit fails, none (the error is raised). Fenced on PostgreSQL (see
        :attr:`holder`): the writes of the games whose lease this process does not hold
        are left out, and those games put in ``lost`` with the URL of their lease's holder
        (None: none). A subclass may watch it or hold it."""
        lost.clear()
        holder = self.holder
        db = self.db
        fenced = (
            sorted({w.game for w in writes if w.game} - {w.game for w in writes if w.takes_lease})
            if holder is not None and isinstance(db, Pool)
            else ()  # no fence: no need to know the games
        )
        if not fenced or not isinstance(db, Pool):
            db.batch([(w.sql, w.params) for w in writes])
            return

        def kept(leases: list[Row]) -> list[Statement]:
            """The writes of the games held, once the fence has read their leases."""
            lost.clear()
            held = {game for game, owner, _, running in leases if owner == holder and running}
            urls = {game: url for game, owner, url, _ in leases if owner != holder}
            lost.update((game, urls.get(game)) for game in fenced if game not in held)
            return [(w.sql, w.params) for w in writes if w.game not in lost]

        db.guarded_batch((_FENCE, (fenced,)), kept)

    # --- writes, at once ------------------------------------------------------------------------
    def create_game(
        self, game_id: str, options: m.GameOptions, seed: int, seed_hash: str, invite: str | None
    ) -> None:
        self.write(game_created(game_id, options, seed, seed_hash, invite))

    def set_seat(
        self, game_id: str, seat: int, token_hash: str, name: str, bot: str | None = None
    ) -> None:
        """Record a seat by the hash of its token (:func:`hash_token`; never the token),
        its player's name, and the bot kind playing it (None: a person)."""
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
        return self._on_connection(lambda: self._load(game_id))

    def _load(self, game_id: str) -> StoredGame | None:
        row = self._execute(
            "SELECT id, options, seed, seed_hash, invite, started, finished, winner, points "
            "FROM games WHERE id=?",
            (game_id,),
        ).fetchone()
        if row is None:
            return None
        seats = {
            seat: (token_hash, name, bot)
            for seat, token_hash, name, bot in self._execute(
                "SELECT seat, token_hash, name, bot FROM seats WHERE game=?", (game_id,)
            )
        }
        actions: list[engine.Action] = []
        dice: list[tuple[int, tuple[int, int]]] = []
        for idx, seat, text, rolled in self._execute(
            "SELECT idx, seat, action, dice FROM actions WHERE game=? ORDER BY idx", (game_id,)
        ):
            actions.append(action_to_engine(_ACTION.validate_json(text), seat))
            if rolled is not None:
                d1, d2 = json.loads(rolled)
                dice.append((idx, (d1, d2)))
        return StoredGame(
            id=row[0],
            options=m.GameOptions.model_validate_json(row[1]),
            seed=row[2],
            seed_hash=row[3],
            invite=row[4],
            started=bool(row[5]),
            finished=row[6] is not None,
            winner=row[7],
            points=None if row[8] is None else json.loads(row[8]),
            seats=seats,
            actions=actions,
            dice=dice,
        )

    def played_out(self) -> list[tuple[str, float, int | None, list[int]]]:
        """Every game played to its end, newest first: (id, when it ended, winner,
        points)."""

        def read() -> list[tuple[str, float, int | None, list[int]]]:
            rows = self._execute(
                "SELECT id, finished, winner, points FROM games "
                "WHERE finished IS NOT NULL AND points IS NOT NULL ORDER BY finished DESC"
            )
            return [(r[0], r[1], r[2], json.loads(r[3])) for r in rows]

        return self._on_connection(read)

    def take(self, game_id: str) -> StoredGame | None:
        """The game ``game_id`` as stored, for a room that takes it over (this process
        has newly taken its lease): the writes of it refused before (a lease lost, a write
        that failed in an earlier room) no longer keep the new room's from being made."""

        def run() -> StoredGame | None:
            writer = self._writer
            if writer is not None:
                writer.forget(game_id)
            return self._load(game_id)

        return self._on_connection(run)

    # --- leases: which process plays a game -----------------------------------------------
    def _now(self) -> float:
        """The time by the database server's clock (PostgreSQL; SQLite: this machine's)."""
        if not self.postgres:
            return time.time()
        row = self._execute(f"SELECT {_DB_NOW}").fetchone()
        return float(row[0])

    def claim(self, owner: str, url: str, lease: float) -> list[str]:
        """Take or keep, for ``owner`` (a server process, reached at ``url``), the lease of
        every unfinished game whose lease is ``owner``'s, lapsed, or missing, for ``lease``
        seconds by the database's clock; the games ``owner`` holds now, oldest first. One
        statement: two processes claiming at once never both get a game."""

        def run() -> list[str]:
            now = self._now()
            self._execute(
                "INSERT INTO leases (game, owner, url, expires) "
                "SELECT id, ?, ?, ? FROM games WHERE finished IS NULL "
                "ON CONFLICT (game) DO UPDATE SET owner=excluded.owner, url=excluded.url, "
                "expires=excluded.expires "
                "WHERE leases.owner = excluded.owner OR leases.expires < ?",
                (owner, url, now + lease, now),
            )
            rows = self._execute(
                "SELECT l.game FROM leases l JOIN games g ON g.id = l.game "
                "WHERE l.owner = ? AND g.finished IS NULL ORDER BY g.created",
                (owner,),
            ).fetchall()
            return [str(r[0]) for r in rows]

        return self._on_connection(run)

    def lease(self, game_id: str) -> tuple[str, str, float] | None:
        """Who holds ``game_id``'s lease: (owner, url, when it expires by this machine's
        clock, as ``time.time()`` tells it), or None."""

        def run() -> tuple[Any, ...] | None:
            row: tuple[Any, ...] | None = self._execute(
                "SELECT owner, url, expires FROM leases WHERE game=?", (game_id,)
            ).fetchone()
            if row is None:
                return None
            return (*row[:2], float(row[2]) - self._now() + time.time())

        row = self._on_connection(run)
        return None if row is None else (str(row[0]), str(row[1]), float(row[2]))

    def release_leases(self, owner: str) -> None:
        """Give up every lease ``owner`` holds (a server stopping cleanly: another process
        takes its games over at once)."""
        self._on_connection(lambda: self._execute("DELETE FROM leases WHERE owner=?", (owner,)))

    # --- the lobby and invite codes of every process -----------------------------------------
    def lobby(self, now: float) -> list[Listed]:
        """The games in the lobby whose lease is held at ``now`` (their process is alive),
        in the lobby's order."""

        def read() -> list[Listed]:
            rows = self._execute(
                "SELECT l.number, l.summary, s.owner FROM lobby l "
                "JOIN leases s ON s.game = l.game WHERE s.expires > ? ORDER BY l.number",
                (now,),
            ).fetchall()
            return [
                Listed(int(number), m.GameSummary.model_validate_json(summary), str(owner))
                for number, summary, owner in rows
            ]

        return self._on_connection(read)

    def sweep_lobby(self, before: float) -> None:
        """Take out of the lobby the games with no lease held since ``before`` (their
        process died and none took them over: they were over, or closed)."""
        self._on_connection(
            lambda: self._execute(
                "DELETE FROM lobby WHERE NOT EXISTS (SELECT 1 FROM leases "
                "WHERE leases.game = lobby.game AND leases.expires > ?)",
                (before,),
            )
        )

    def invited(self, invite: str) -> str | None:
        """The unfinished game whose invite code is ``invite``, or None."""
        row = self._on_connection(
            lambda: self._execute(
                "SELECT id FROM games WHERE invite=? AND finished IS NULL", (invite,)
            ).fetchone()
        )
        return None if row is None else str(row[0])

    def unfinished(self) -> Iterator[StoredGame]:
        """Every game not yet over, oldest first."""
        ids: list[str] = self._on_connection(
            lambda: [
                r[0]
                for r in self._execute(
                    "SELECT id FROM games WHERE finished IS NULL ORDER BY created"
                )
            ]
        )
        for game_id in ids:
            game = self.load(game_id)
            if game is not None:
                yield game


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


def _scrub(db: Database) -> None:
    """After tokens were hashed: leave no copy of them in the database's files (SQLite's
    write-ahead log emptied; PostgreSQL's table rewritten without its old rows)."""
    if db.postgres:
        db.execute("VACUUM FULL seats")
    else:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


class _Writer:
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
        games the fence left out (:meth:`Store._commit`), with where they are played.
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
                self._store._commit(batch, lost)
                return lost
            except Exception:
                if not (db.gone() and self._reconnect()):
                    raise
                if mark is not None and self._store._has_mark(mark):
                    return lost  # the commit took; its answer was lost with the connection
