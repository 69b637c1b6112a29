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
process holding its lease (``leases``; see :mod:`server.leases`), and the lobby shows the
public games of them all (``lobby``: each process keeps its own games' entries). Every
commit is fenced by the leases (:attr:`Store.holder`): in the same transaction it checks,
against the database's clock, that this process still holds the lease of each game it
writes, and the writes of a game it no longer holds are not made (they fail with
:class:`LeaseLost`), so no two processes ever write one game.

A seat is kept by the hash of its token (:func:`server.tokens.hash_token`), never the
token: whoever reads the database cannot take a seat with what it holds. The schema is
numbered (:data:`MIGRATIONS`); a database of an older version is brought up to date when
opened.

The package's modules: :mod:`~server.store.store` (the :class:`Store`: the database and who
holds its connection), :mod:`~server.store.schema` (tables and migrations),
:mod:`~server.store.writes` (a game's record, written), :mod:`~server.store.writer` (the
writer thread and its group commits), :mod:`~server.store.reads` (games and lists read
back), :mod:`~server.store.leases` (leases and the fence of every commit); seat tokens are
hashed by :mod:`server.tokens`.
"""

from __future__ import annotations

from server.store.leases import lease_taken
from server.store.reads import Listed, StoredGame, game_record, is_played_out
from server.store.schema import MIGRATIONS, STORE_NAME
from server.store.store import Store
from server.store.writer import DRAIN_TIMEOUT, WriteListener
from server.store.writes import (
    LeaseLost,
    Write,
    WriteFailed,
    action_played,
    chat_said,
    game_abandoned,
    game_created,
    game_finished,
    game_listed,
    game_started,
    game_unlisted,
    seat_freed,
    seat_set,
)
from server.tokens import hash_token, token_matches
from storage import StoreError, is_postgres, redact

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
    "lease_taken",
    "redact",
    "seat_freed",
    "seat_set",
    "token_matches",
]
