"""Leases in the games store: which server process plays each game when several share one
PostgreSQL database (:mod:`server.leases` is the server's side of them).

A lease names its owner (a server process), where that process is reached, and when the
lease expires by the database's clock. A new game is stored with its lease
(:func:`lease_taken`); a process keeps its leases and takes lapsed ones in one statement
(:func:`claim`). Every group commit is fenced by the leases (:func:`commit`): it writes a
game only while its process holds the game's lease.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from server.store.writes import Write
from storage import Database, Pool, Row, Statement

__all__ = ["DB_NOW", "FENCE", "claim", "commit", "db_now", "holder", "lease_taken", "released"]

DB_NOW = "extract(epoch FROM clock_timestamp())::float8"
"""The database server's clock (PostgreSQL), in seconds since the epoch as leases keep it."""
FENCE = f"SELECT game, owner, url, expires > {DB_NOW} FROM leases WHERE game = ANY(?) FOR SHARE"
"""A commit's fence: the leases of the games it writes, locked until it ends (a process
taking one over waits for the commit), each with whether it is still running."""


def lease_taken(game_id: str, owner: str, url: str, lease: float) -> Write:
    """A new game's lease (PostgreSQL), held by the process that opened it for ``lease``
    seconds by the database's clock."""
    return Write(
        game_id,
        "its lease",
        f"INSERT INTO leases (game, owner, url, expires) VALUES (?,?,?,{DB_NOW} + ?) "
        "ON CONFLICT (game) DO UPDATE SET owner=excluded.owner, url=excluded.url, "
        "expires=excluded.expires",
        (game_id, owner, url, lease),
        takes_lease=True,
    )


def released(owner: str) -> Write:
    """Every lease ``owner`` holds, given up (a server stopping cleanly: another process
    takes its games over at once)."""
    return Write("", "its leases", "DELETE FROM leases WHERE owner=?", (owner,))


def db_now(db: Database | Pool) -> float:
    """The time by the database server's clock (PostgreSQL; SQLite: this machine's)."""
    if not db.postgres:
        return time.time()
    row: Any = db.execute(f"SELECT {DB_NOW}").fetchone()
    return float(row[0])


def claim(db: Database | Pool, owner: str, url: str, lease: float) -> list[str]:
    """Take or keep, for ``owner`` (a server process, reached at ``url``), the lease of
    every unfinished game whose lease is ``owner``'s, lapsed, or missing, for ``lease``
    seconds by the database's clock; the games ``owner`` holds now, oldest first. One
    statement: two processes claiming at once never both get a game."""
    now = db_now(db)
    db.execute(
        "INSERT INTO leases (game, owner, url, expires) "
        "SELECT id, ?, ?, ? FROM games WHERE finished IS NULL "
        "ON CONFLICT (game) DO UPDATE SET owner=excluded.owner, url=excluded.url, "
        "expires=excluded.expires "
        "WHERE leases.owner = excluded.owner OR leases.expires < ?",
        (owner, url, now + lease, now),
    )
    rows = db.execute(
        "SELECT l.game FROM leases l JOIN games g ON g.id = l.game "
        "WHERE l.owner = ? AND g.finished IS NULL ORDER BY g.created",
        (owner,),
    ).fetchall()
    return [str(r[0]) for r in rows]


def holder(db: Database | Pool, game_id: str) -> tuple[Any, ...] | None:
    """Who holds ``game_id``'s lease: (owner, url, when it expires by this machine's
    clock, as ``time.time()`` tells it), or None."""
    row: tuple[Any, ...] | None = db.execute(
        "SELECT owner, url, expires FROM leases WHERE game=?", (game_id,)
    ).fetchone()
    if row is None:
        return None
    return (*row[:2], float(row[2]) - db_now(db) + time.time())


def commit(
    db: Database | Pool, owner: str | None, writes: Sequence[Write], lost: dict[str, str | None]
) -> None:
    """``writes`` in one transaction, all stored or, if any of them or the commit fails,
    none (the error is raised). Fenced on PostgreSQL for ``owner`` (None: no fence): the
    writes of the games whose lease ``owner`` does not hold are left out, and those games
    put in ``lost`` with the URL of their lease's holder (None: none)."""
    lost.clear()
    fenced = (
        sorted({w.game for w in writes if w.game} - {w.game for w in writes if w.takes_lease})
        if owner is not None and isinstance(db, Pool)
        else ()  # no fence: no need to know the games
    )
    if not fenced or not isinstance(db, Pool):
        db.batch([(w.sql, w.params) for w in writes])
        return

    def kept(leases: list[Row]) -> list[Statement]:
        """The writes of the games held, once the fence has read their leases."""
        lost.clear()
        held = {game for game, who, _, running in leases if who == owner and running}
        urls = {game: url for game, who, url, _ in leases if who != owner}
        lost.update((game, urls.get(game)) for game in fenced if game not in held)
        return [(w.sql, w.params) for w in writes if w.game not in lost]

    db.guarded_batch((FENCE, (fenced,)), kept)
