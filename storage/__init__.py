"""The SQL plumbing the games store (``server/store/``) and the ladder store
(``tournament/ladder/store.py``) share: which database a name means, a connection that takes
one SQL dialect on SQLite and PostgreSQL alike, transactions, and URLs with their password
removed for messages and logs, and numbered schema migrations (:func:`migrate`); and
:class:`Pool`, PostgreSQL through psycopg's asynchronous driver and connection pool, driven
from a thread of its own.

Statements are written with ``?`` for their parameters and the SQL both databases take; the
:class:`Database` and the :class:`Pool` turn them into psycopg's ``%s`` on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
import zlib
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager, suppress
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

POSTGRES_EXTRA = "pip install '.[postgres]'"
"""How to install the PostgreSQL driver, for the sentence that says it is missing."""


class StoreError(Exception):
    """A database that cannot be opened or used as asked, with the reason in words."""


Statement = tuple[str, Sequence[Any]]
"""One SQL statement with ``?`` for its parameters, and its parameters."""
Row = tuple[Any, ...]
_T = TypeVar("_T")


def is_postgres(db: str) -> bool:
    """Whether ``db`` names a PostgreSQL database (a URL) rather than a SQLite file."""
    return db.startswith(("postgresql://", "postgres://"))


def redact(url: str) -> str:
    """A database URL without its password, for messages and logs."""
    head, at, tail = url.rpartition("@")
    if not at:
        return url
    scheme, _, user = head.partition("://")
    return f"{scheme}://{user.partition(':')[0]}@{tail}"


def data_dir() -> Path:
    """Where Hexhaven keeps its files for a person: ``$XDG_DATA_HOME/hexhaven``, or
    ``~/.local/share/hexhaven`` (created)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    path = Path(base) / "hexhaven"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _runs(statements: Iterable[Statement]) -> list[tuple[str, list[Sequence[Any]]]]:
    """``statements`` in order as runs of consecutive statements with the same SQL: each
    run's SQL and the parameters of its statements, in order (for ``executemany``)."""
    out: list[tuple[str, list[Sequence[Any]]]] = []
    last: str | None = None
    many: list[Sequence[Any]] = []
    for sql, params in statements:
        if sql is not last and sql != last:
            many = []
            out.append((sql, many))
            last = sql
        many.append(params)
    return out


@lru_cache(maxsize=256)
def _rows_clause(sql: str) -> tuple[str, str] | None:
    """A plain ``INSERT ... VALUES (?, ...)`` split at its one row, for an insert of many
    rows in one statement: (what comes before the row, the row); None for any other
    statement (an upsert, for one, may touch a row twice in one statement)."""
    head, sep, row = sql.rpartition(" VALUES ")
    row = row.strip()
    if (
        not sep
        or not head.lstrip().upper().startswith("INSERT INTO ")
        or not (row.startswith("(") and row.endswith(")"))
        or set(row[1:-1].replace(" ", "").split(",")) != {"?"}
    ):
        return None
    return head + sep, row


@lru_cache(maxsize=256)
def _many_rows(head: str, row: str, rows: int) -> str:
    """An insert of ``rows`` rows in one statement."""
    return head + ",".join([row] * rows)


@lru_cache(maxsize=256)
def _postgres_sql(sql: str) -> str:
    """A statement with ``?`` for its parameters in psycopg's form (``%s``)."""
    return sql.replace("?", "%s")


class Database:
    """One connection in autocommit mode, SQLite or PostgreSQL, with ``?`` for parameters.
    Open it with :func:`connect`."""

    def __init__(
        self,
        conn: Any,
        *,
        postgres: bool,
        where: str,
        reopen: Callable[[], Any] | None = None,
    ) -> None:
        self._conn = conn
        self.postgres = postgres
        self.where = where
        """The database as it may be shown: a file path, or a URL without its password."""
        self._reopen = reopen
        self._limit: int | None = None
        """SQLite's most parameters a statement, once asked."""

    @property
    def lost(self) -> bool:
        """Whether the connection to a database server is gone (dropped, or the server
        restarted); a SQLite file is never lost."""
        return self.postgres and bool(self._conn.broken or self._conn.closed)

    def gone(self) -> bool:
        """Whether the connection to a database server is lost, asking the server when the
        connection does not know yet (a statement that failed as the server went away may
        leave it looking open); a SQLite file is never gone."""
        if not self.postgres:
            return False
        if self.lost:
            return True
        try:
            self._conn.execute("SELECT 1")
        except Exception:
            return True
        return False

    def reconnect(self) -> None:
        """Open a new connection to the database server in place of a lost one. Raises
        :class:`StoreError` when it cannot (yet), and for a database with no server."""
        if self._reopen is None:
            raise StoreError(f"{self.where} cannot be reconnected")
        with suppress(Exception):
            self._conn.close()
        self._conn = self._reopen()

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """Run one statement (``?`` for its parameters); returns the cursor."""
        if self.postgres:
            sql = _postgres_sql(sql)
        return self._conn.execute(sql, params)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One transaction: committed when the block ends, rolled back if the block or the
        commit raises (the error is raised). SQLite takes its write lock at the start, so
        concurrent writers queue."""
        self._conn.execute("BEGIN" if self.postgres else "BEGIN IMMEDIATE")
        try:
            yield
            self._conn.execute("COMMIT")
        except BaseException:
            with suppress(Exception):  # a connection that is gone has nothing to roll back
                self._conn.execute("ROLLBACK")
            raise

    def batch(self, statements: Sequence[tuple[str, Sequence[Any]]]) -> None:
        """Run ``statements`` (``?`` for their parameters) in one transaction and commit it: all of
        them are stored, or, if any of them or the commit fails, none (the error is raised).
        They run in order, each run of consecutive statements with the same SQL as one
        ``executemany``; on PostgreSQL in one pipeline, not a round trip each."""
        conn = self._conn
        if not self.postgres:
            runs = _runs(statements)
            if len(runs) == 1 and self._one_statement(*runs[0]):
                self._run(*runs[0])  # one statement is a transaction of its own
                return
            with self.transaction():
                for sql, many in runs:
                    self._run(sql, many)
            return
        with conn.pipeline(), conn.transaction(), conn.cursor() as cur:
            for sql, many in _runs(statements):
                if len(many) == 1:
                    cur.execute(_postgres_sql(sql), many[0])
                else:
                    cur.executemany(_postgres_sql(sql), many)

    def _one_statement(self, sql: str, many: Sequence[Sequence[Any]]) -> bool:
        """Whether :meth:`_run` runs ``sql`` for ``many`` as one statement (SQLite)."""
        if len(many) == 1:
            return True
        return _rows_clause(sql) is not None and len(many) * len(many[0]) <= self._variables

    def _run(self, sql: str, many: Sequence[Sequence[Any]]) -> None:
        """Run one statement for each of ``many`` parameters, in order (SQLite): a plain
        insert of many rows as statements of many rows each, up to SQLite's limit on
        parameters a statement (each a single step of the database, the interpreter let go
        once rather than once a row); any other statement with ``executemany``."""
        conn = self._conn
        if len(many) == 1:
            conn.execute(sql, many[0])
            return
        clause = _rows_clause(sql)
        if clause is None or not many[0]:
            conn.executemany(sql, many)
            return
        per = max(1, self._variables // len(many[0]))
        for start in range(0, len(many), per):
            chunk = many[start : start + per]
            conn.execute(_many_rows(*clause, len(chunk)), [v for row in chunk for v in row])

    @property
    def _variables(self) -> int:
        """The most parameters one SQLite statement takes."""
        if self._limit is None:
            self._limit = min(32766, int(self._conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)))
        return self._limit

    def close(self) -> None:
        self._conn.close()


def connect(
    db: str | Path,
    *,
    busy_timeout: float = 5.0,
    foreign_keys: bool = False,
    any_thread: bool = False,
) -> Database:
    """Open the database ``db``: a ``postgresql://`` URL (psycopg 3, the ``postgres`` extra)
    or a SQLite file (created if missing, in write-ahead-log mode; ``:memory:`` for one in
    memory). A SQLite writer waits up to ``busy_timeout`` seconds for another's lock. With
    ``any_thread`` the connection may be used from a thread other than the one that opened
    it (by one thread at a time: the caller sees to that).

    Raises :class:`StoreError` when PostgreSQL cannot be reached or its driver is missing,
    and ``sqlite3.Error`` when the SQLite file cannot be opened (the caller knows the path
    and can say why)."""
    where = str(db)
    if is_postgres(where):
        try:
            import psycopg
        except ImportError as exc:
            raise StoreError(f"a PostgreSQL database needs psycopg 3: {POSTGRES_EXTRA}") from exc

        def reopen() -> Any:
            try:
                return psycopg.connect(where, autocommit=True)
            except psycopg.Error as exc:
                raise StoreError(f"cannot connect to {redact(where)}: {exc}") from exc

        return Database(reopen(), postgres=True, where=redact(where), reopen=reopen)
    lite = sqlite3.connect(
        where, isolation_level=None, timeout=busy_timeout, check_same_thread=not any_thread
    )
    try:
        lite.execute("PRAGMA journal_mode=WAL")
        lite.execute("PRAGMA synchronous=NORMAL")
        if foreign_keys:
            lite.execute("PRAGMA foreign_keys=ON")
    except sqlite3.Error:
        lite.close()
        raise
    return Database(lite, postgres=False, where=where)


POOL_SIZE = 4
"""Connections a :class:`Pool` opens at most."""
POOL_WAIT = 3.0
"""Seconds a :class:`Pool` statement waits for a connection before it fails (the database
server is unreachable meanwhile; the pool keeps trying to connect, and gives one at once
when it has one)..."""
LOST_WAIT = 0.5
"""...or this many, while the server is known to be gone (:attr:`Pool.lost`): a caller
that waits for it tries again itself."""
POOL_RECONNECT = 2.0
"""Seconds the pool keeps trying, with its own growing pauses, to replace a lost connection
before it leaves the next try to the next caller that wants one."""


class Rows:
    """What a statement run through a :class:`Pool` returned, read in full: like a cursor,
    with ``fetchone``, ``fetchall`` and iteration."""

    def __init__(self, rows: list[Row], rowcount: int) -> None:
        self._rows = rows
        self._next = 0
        self.rowcount = rowcount
        """Rows the statement touched (-1 when the driver does not say)."""

    def fetchone(self) -> Row | None:
        if self._next >= len(self._rows):
            return None
        self._next += 1
        return self._rows[self._next - 1]

    def fetchall(self) -> list[Row]:
        rest = self._rows[self._next :]
        self._next = len(self._rows)
        return rest

    def __iter__(self) -> Iterator[Row]:
        return iter(self.fetchall())


class Pool:
    """A PostgreSQL database through psycopg 3's asynchronous driver and its connection pool
    (``psycopg_pool.AsyncConnectionPool``), for callers on threads. The pool and everything
    its connections do run on an event loop in a thread of the pool's own, so no caller's
    event loop ever runs the database's client-side work; each call here hands it a
    coroutine and waits for the answer. The same surface as :class:`Database` on
    PostgreSQL (``execute``, ``batch``, ``lost``, ``gone``, ``reconnect``), each call on a
    connection of the pool in autocommit mode.

    A call on a connection that breaks fails (and marks the pool :attr:`lost`); the pool
    replaces that connection. While the server is unreachable a call fails after waiting
    :data:`POOL_WAIT` at most for a connection (:data:`LOST_WAIT` once the pool knows it
    gone). The credentials come from the URL, or from libpq's variables (``PGPASSWORD``...)
    and ``~/.pgpass``: never needed on a command line."""

    postgres = True

    def __init__(self, url: str, *, size: int = POOL_SIZE, wait: float = POOL_WAIT) -> None:
        """Open the pool with one connection made. Raises :class:`StoreError` when the
        driver is missing or the server cannot be reached within ``wait`` seconds."""
        try:
            import psycopg_pool
        except ImportError as exc:
            raise StoreError(
                f"a PostgreSQL database needs psycopg 3 and psycopg_pool: {POSTGRES_EXTRA}"
            ) from exc
        self.where = redact(url)
        """The database as it may be shown: its URL without the password."""
        self.wait = wait
        self._timeout = psycopg_pool.PoolTimeout
        self._lost = False
        self._closed = False
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="postgres-pool", daemon=True
        )
        self._thread.start()

        async def open_pool() -> Any:
            pool = psycopg_pool.AsyncConnectionPool(
                url,
                min_size=1,
                max_size=size,
                open=False,
                kwargs={"autocommit": True},
                reconnect_timeout=POOL_RECONNECT,
                name="hexhaven",
            )
            try:
                await pool.open(wait=True, timeout=wait)
            except psycopg_pool.PoolTimeout as exc:
                await pool.close(timeout=0)
                raise StoreError(f"cannot connect to {self.where} within {wait:g} s") from exc
            return pool

        try:
            self._pool = self._run(open_pool())
        except BaseException:
            self._end_loop()
            raise

    def _run(self, work: Coroutine[Any, Any, _T]) -> _T:
        """Run ``work`` on the pool's loop and wait for it; raises what it raises."""
        if threading.current_thread() is self._thread:
            work.close()
            raise StoreError("a pool's own thread cannot wait for the pool")
        if self._closed:
            work.close()
            raise StoreError(f"the connections to {self.where} are closed")
        return asyncio.run_coroutine_threadsafe(work, self._loop).result()

    def _watch(self, work: Coroutine[Any, Any, _T]) -> _T:
        """As :meth:`_run`, keeping :attr:`lost` up to date: a call that gets no connection
        marks the pool lost (as does one whose connection breaks: :meth:`_connection`); one
        that succeeds, not."""
        try:
            result = self._run(work)
        except self._timeout:
            self._lost = True
            raise
        self._lost = False
        return result

    @asynccontextmanager
    async def _connection(self, wait: float | None = None) -> AsyncIterator[Any]:
        """A connection of the pool for the block, waiting up to ``wait`` seconds for it
        (by default :data:`POOL_WAIT`, or :data:`LOST_WAIT` while :attr:`lost`); if it
        breaks in the block, the pool is marked lost."""
        async with self._pool.connection(
            timeout=self._patience() if wait is None else wait
        ) as conn:
            try:
                yield conn
            except BaseException:
                if conn.broken or conn.closed:
                    self._lost = True
                raise

    @property
    def lost(self) -> bool:
        """Whether the last call failed because the database server or its connection was
        gone (no connection came, or the one it had broke; a statement that failed as the
        server went away may leave its connection looking whole: :meth:`gone` asks)."""
        return self._lost

    def _patience(self) -> float:
        """Seconds a call waits for a connection now."""
        return LOST_WAIT if self._lost else self.wait

    def gone(self) -> bool:
        """Whether the connection to the database server is lost: the last call failed for
        it, or, asking the server, no working connection comes."""
        if self._lost:
            return True
        try:
            self._watch(self._ping(LOST_WAIT))
        except Exception:
            return True
        return False

    def reconnect(self, wait: float = 1.0) -> None:
        """Wait up to ``wait`` seconds for a working connection, once the pool has let go
        of its broken ones (it makes new ones in their place). Raises :class:`StoreError`
        when there is none (yet)."""

        async def probe() -> None:
            await self._pool.check()
            await self._ping(wait)

        try:
            self._watch(probe())
        except Exception as exc:
            raise StoreError(f"cannot connect to {self.where}: {exc}") from exc

    async def _ping(self, wait: float) -> None:
        async with self._connection(wait) as conn:
            await conn.execute("SELECT 1")

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Rows:
        """Run one statement (``?`` for its parameters) on a connection of the pool and
        commit it; returns its rows, read in full."""

        async def run() -> Rows:
            async with self._connection() as conn:
                cur = await conn.execute(_postgres_sql(sql), params)
                rows = await cur.fetchall() if cur.description is not None else []
                return Rows(rows, cur.rowcount)

        return self._watch(run())

    def batch(self, statements: Sequence[Statement]) -> None:
        """Run ``statements`` in one transaction and commit it: all of them are stored, or,
        if any of them or the commit fails, none (the error is raised). They go in one
        pipeline, not a round trip each."""
        self.guarded_batch(None, lambda _: statements)

    def guarded_batch(
        self, guard: Statement | None, statements: Callable[[list[Row]], Sequence[Statement]]
    ) -> list[Row]:
        """One transaction: the query ``guard`` first, then the statements that
        ``statements`` makes of its rows (called on the pool's thread), then the commit;
        all stored or none, as :meth:`batch` (and, as there, consecutive statements with the
        same SQL run as one ``executemany``). The guard can lock the rows it reads
        (``FOR SHARE``) so that what it found still holds when the transaction commits.
        Returns the guard's rows."""

        async def run() -> list[Row]:
            async with (
                self._connection() as conn,
                conn.pipeline(),
                conn.transaction(),
            ):
                rows: list[Row] = []
                if guard is not None:
                    cur = await conn.execute(_postgres_sql(guard[0]), guard[1])
                    rows = await cur.fetchall()  # the pipeline's first round trip
                async with conn.cursor() as out:
                    for sql, many in _runs(statements(rows)):
                        if len(many) == 1:
                            await out.execute(_postgres_sql(sql), many[0])
                        else:
                            await out.executemany(_postgres_sql(sql), many)
            return rows

        return self._watch(run())

    def close(self, wait: float = 5.0) -> None:
        """Close the pool's connections (waiting up to ``wait`` seconds for those in use)
        and end its thread. Closing twice does nothing more."""
        if self._closed:
            return
        with suppress(Exception):
            self._run(self._pool.close(timeout=wait))
        self._closed = True
        self._end_loop()

    def _end_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()


Migration = Callable[[Database], None]
"""One step of a store's schema: the statements that take it from one version to the next."""

VERSIONS = "schema_version"
"""The table of each store's schema version, by the store's name (several stores may share
one database: the games store and the ladder store do)."""


def _has_table(db: Database | Pool, name: str) -> bool:
    """Whether ``db`` has a table ``name`` (in the current schema, on PostgreSQL)."""
    if db.postgres:
        sql = (
            "SELECT 1 FROM information_schema.tables "
            "WHERE table_name=? AND table_schema=current_schema()"
        )
    else:
        sql = "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?"
    return db.execute(sql, (name,)).fetchone() is not None


def schema_version(db: Database | Pool, store: str) -> int:
    """The schema version of ``store`` in ``db``: 0 when it has none recorded (a new
    database, or one made before versions were recorded). Writes nothing."""
    if not _has_table(db, VERSIONS):
        return 0
    row = db.execute(f"SELECT version FROM {VERSIONS} WHERE store=?", (store,)).fetchone()
    return 0 if row is None else int(row[0])


def _newer(db: Database, store: str, version: int, known: int) -> StoreError:
    """The error for a schema newer than this program knows."""
    return StoreError(
        f"the {store} schema of {db.where} is version {version}, newer than this program "
        f"knows ({known}): upgrade Hexhaven"
    )


def migrate(db: Database, store: str, steps: Sequence[Migration]) -> int:
    """Bring ``store``'s schema in ``db`` to version ``len(steps)``: run each step after the
    version recorded (step ``i`` makes version ``i + 1``), all in one transaction with the
    new version, so a failed step leaves the database as it was. A database already up to
    date is only read. Several processes opening one database at once migrate it once: the
    others wait, then find it done. Returns the version the database was at
    (``len(steps)``: nothing to do). Raises :class:`StoreError` if the database is of a
    newer version than ``steps`` know."""
    known = len(steps)
    version = schema_version(db, store)
    if version > known:
        raise _newer(db, store, version, known)
    if version == known:
        return version
    with db.transaction():
        if db.postgres:  # SQLite's BEGIN IMMEDIATE already holds the write lock
            db.execute("SELECT pg_advisory_xact_lock(?)", (zlib.crc32(store.encode()),))
        db.execute(
            f"CREATE TABLE IF NOT EXISTS {VERSIONS} "
            "(store TEXT PRIMARY KEY, version INTEGER NOT NULL)"
        )
        version = schema_version(db, store)  # again: another process may have migrated it
        if version > known:
            raise _newer(db, store, version, known)
        for step in steps[version:]:
            step(db)
        db.execute(
            f"INSERT INTO {VERSIONS} (store, version) VALUES (?, ?) "
            "ON CONFLICT (store) DO UPDATE SET version=excluded.version",
            (store, known),
        )
    return version
