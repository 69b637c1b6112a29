"""The SQL plumbing the games store (``server/store.py``) and the ladder store
(``tournament/ladder/store.py``) share: which database a name means, a connection that takes
one SQL dialect on SQLite and PostgreSQL alike, transactions, and URLs with their password
removed for messages and logs.

Statements are written with ``?`` placeholders and the SQL both databases take; the
:class:`Database` turns them into psycopg's ``%s`` on PostgreSQL.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
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
    """One connection in autocommit mode, SQLite or PostgreSQL, speaking ``?`` placeholders.
    Open it with :func:`connect`."""

    def __init__(self, conn: Any, *, postgres: bool, where: str) -> None:
        self._conn = conn
        self.postgres = postgres
        self.where = where
        """The database as it may be shown: a file path, or a URL without its password."""

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """Run one statement with ``?`` placeholders; returns the cursor."""
        if self.postgres:
            sql = sql.replace("?", "%s")
        return self._conn.execute(sql, params)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One transaction: committed when the block ends, rolled back if it raises. SQLite
        takes its write lock at the start, so concurrent writers queue."""
        self._conn.execute("BEGIN" if self.postgres else "BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def close(self) -> None:
        self._conn.close()


def connect(db: str | Path, *, busy_timeout: float = 5.0, foreign_keys: bool = False) -> Database:
    """Open the database ``db``: a ``postgresql://`` URL (psycopg 3, the ``postgres`` extra)
    or a SQLite file (created if missing, in write-ahead-log mode; ``:memory:`` for one in
    memory). A SQLite writer waits up to ``busy_timeout`` seconds for another's lock.

    Raises :class:`StoreError` when PostgreSQL cannot be reached or its driver is missing,
    and ``sqlite3.Error`` when the SQLite file cannot be opened (the caller knows the path
    and can say why)."""
    where = str(db)
    if is_postgres(where):
        try:
            import psycopg
        except ImportError as exc:
            raise StoreError(f"a PostgreSQL database needs psycopg 3: {POSTGRES_EXTRA}") from exc
        try:
            pg = psycopg.connect(where, autocommit=True)
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to {redact(where)}: {exc}") from exc
        return Database(pg, postgres=True, where=redact(where))
    lite = sqlite3.connect(where, isolation_level=None, timeout=busy_timeout)
    try:
        lite.execute("PRAGMA journal_mode=WAL")
        lite.execute("PRAGMA synchronous=NORMAL")
        if foreign_keys:
            lite.execute("PRAGMA foreign_keys=ON")
    except sqlite3.Error:
        lite.close()
        raise
    return Database(lite, postgres=False, where=where)
