"""The games store's schema: its tables, numbered versions, and the migrations between them.

A migration is one step (:data:`MIGRATIONS`: step ``i`` makes version ``i + 1``), run when a
database of an older version is opened (:func:`storage.migrate`), once, whoever opens it
first; a step once released never changes.
"""

from __future__ import annotations

from server.tokens import hash_token
from storage import Database, Migration

__all__ = ["HASHED", "MIGRATIONS", "SCHEMA_1", "STORE_NAME", "scrub"]


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
    zeroed; :func:`scrub` sees to the copies outside the table)."""
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
HASHED = 2
"""The first version that keeps hashes of tokens."""


def scrub(db: Database) -> None:
    """After tokens were hashed: leave no copy of them in the database's files (SQLite's
    write-ahead log emptied; PostgreSQL's table rewritten without its old rows)."""
    if db.postgres:
        db.execute("VACUUM FULL seats")
    else:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
