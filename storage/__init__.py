"""The SQL plumbing the games store (``server/store.py``) and the ladder store
(``tournament/ladder/store.py``) share: which database a name means, a connection that takes
one SQL dialect on SQLite and PostgreSQL alike, transactions, and URLs with their password
removed for messages and logs, and numbered schema migrations (:func:`migrate`).

Statements are written with ``?`` for their parameters and the SQL both databases take; the
:class:`Database` turns them into psycopg's ``%s`` on PostgreSQL.
"""

from __future__ import annotations

import os
import sqlite3
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

POSTGRES_EXTRA = "pip install 'hexhaven[postgres]'"
"""How to install the PostgreSQL driver, for the sentence that says it is missing."""


class StoreError(Exception):
    """A database that cannot be opened or used as asked, with the reason in words."""


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
            sql = sql.replace("?", "%s")
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
        On PostgreSQL they go in one pipeline, not a round trip each."""
        if not self.postgres:
            with self.transaction():
                for sql, params in statements:
                    self._conn.execute(sql, params)
            return
        with self._conn.pipeline(), self._conn.transaction():
            for sql, params in statements:
                self._conn.execute(sql.replace("?", "%s"), params)

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


Migration = Callable[[Database], None]
"""One step of a store's schema: the statements that take it from one version to the next."""

VERSIONS = "schema_version"
"""The table of each store's schema version, by the store's name (several stores may share
one database: the games store and the ladder store do)."""


def _has_table(db: Database, name: str) -> bool:
    """Whether ``db`` has a table ``name`` (in the current schema, on PostgreSQL)."""
    if db.postgres:
        sql = (
            "SELECT 1 FROM information_schema.tables "
            "WHERE table_name=? AND table_schema=current_schema()"
        )
    else:
        sql = "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?"
    return db.execute(sql, (name,)).fetchone() is not None


def schema_version(db: Database, store: str) -> int:
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
