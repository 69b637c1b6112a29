"""Persistence: games are event-sourced into SQLite (embedded, no set-up), or into
PostgreSQL for a deployment (``--db postgresql://...``, the ``postgres`` extra).

A game is its options, its seed (with the hash published at creation), its seats and the
ordered actions applied to it; the state is always the replay of those. An action is
written (and committed) before its events leave the server, so a server killed at any point
restarts with every game where its players last saw it.

A seat is kept by the hash of its token (:func:`hash_token`), never the token: whoever
reads the database cannot take a seat with what it holds. The schema is numbered
(:data:`MIGRATIONS`); a database of an older version is brought up to date when opened.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

import engine
from protocol import messages as m
from protocol.payloads import ActionPayload, action_from_engine, action_to_engine
from storage import Database, Migration, StoreError, connect, is_postgres, migrate, redact

__all__ = [
    "MIGRATIONS",
    "STORE_NAME",
    "Store",
    "StoreError",
    "StoredGame",
    "game_record",
    "hash_token",
    "is_played_out",
    "is_postgres",
    "redact",
    "token_matches",
]

_ACTION: TypeAdapter[Any] = TypeAdapter(ActionPayload)


def hash_token(token: str) -> str:
    """The hash a seat is kept by: the SHA-256 of the token's UTF-8 bytes, in hex (64
    ASCII characters). Any string hashes, whatever its characters or length."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def token_matches(token_hash: str, token: str) -> bool:
    """Whether ``token`` is the token of ``token_hash``, compared in constant time. Never
    raises: a string of any characters or length is simply not the token."""
    presented = hash_token(token).encode("ascii")
    return secrets.compare_digest(presented, token_hash.encode("utf-8", "surrogatepass"))


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
    zeroed; :meth:`Store._scrub` sees to the copies outside the table)."""
    if not db.postgres:
        db.execute("PRAGMA secure_delete=ON")
    db.execute("ALTER TABLE seats RENAME COLUMN token TO token_hash")
    rows = db.execute("SELECT game, seat, token_hash FROM seats").fetchall()
    for game, seat, token in rows:
        db.execute(
            "UPDATE seats SET token_hash=? WHERE game=? AND seat=?",
            (hash_token(token), game, seat),
        )


STORE_NAME = "games"
"""The games store's name in the database's table of schema versions."""
MIGRATIONS: tuple[Migration, ...] = (_create_tables, _hash_tokens)
"""The schema's versions in order: step ``i`` makes version ``i + 1``. A new version is a
new step at the end; a step once released never changes."""
_HASHED = 2
"""The first version that keeps hashes of tokens."""


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


class Store:
    """The games database: a SQLite file (``:memory:`` by default) or a ``postgresql://``
    URL. Every method commits before it returns. Opening brings the database's schema up
    to date (:data:`MIGRATIONS`). Opening a PostgreSQL database raises :class:`StoreError`
    when it cannot; a SQLite file raises ``sqlite3.Error``; either raises
    :class:`StoreError` when its schema is newer than this program knows."""

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.path = str(path)
        self.db = connect(self.path)
        self.postgres = self.db.postgres
        try:
            found = migrate(self.db, STORE_NAME, MIGRATIONS)
            if found < _HASHED:
                self._scrub()
        except BaseException:
            self.db.close()
            raise

    def _scrub(self) -> None:
        """After tokens were hashed: leave no copy of them in the database's files (SQLite's
        write-ahead log emptied; PostgreSQL's table rewritten without its old rows)."""
        if self.postgres:
            self._execute("VACUUM FULL seats")
        else:
            self._execute("PRAGMA wal_checkpoint(TRUNCATE)")

    @property
    def where(self) -> str:
        """The database, as it may be shown (a URL without its password)."""
        return self.db.where

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """Run one statement (autocommit) with ``?`` placeholders; returns the cursor."""
        return self.db.execute(sql, params)

    def close(self) -> None:
        self.db.close()

    def create_game(
        self, game_id: str, options: m.GameOptions, seed: int, seed_hash: str, invite: str | None
    ) -> None:
        self._execute(
            "INSERT INTO games (id, options, seed, seed_hash, invite, created) "
            "VALUES (?,?,?,?,?,?)",
            (game_id, options.model_dump_json(), seed, seed_hash, invite, time.time()),
        )

    def set_seat(
        self, game_id: str, seat: int, token_hash: str, name: str, bot: str | None = None
    ) -> None:
        """Record a seat by the hash of its token (:func:`hash_token`; never the token),
        its player's name, and the bot kind playing it (None: a person)."""
        self._execute(
            "INSERT INTO seats (game, seat, token_hash, name, bot) VALUES (?,?,?,?,?) "
            "ON CONFLICT (game, seat) DO UPDATE "
            "SET token_hash=excluded.token_hash, name=excluded.name, bot=excluded.bot",
            (game_id, seat, token_hash, name, bot),
        )

    def free_seat(self, game_id: str, seat: int) -> None:
        self._execute("DELETE FROM seats WHERE game=? AND seat=?", (game_id, seat))

    def start_game(self, game_id: str) -> None:
        self._execute("UPDATE games SET started=1 WHERE id=?", (game_id,))

    def append_action(
        self,
        game_id: str,
        index: int,
        action: engine.Action,
        dice: tuple[int, int] | None,
    ) -> None:
        """Record the ``index``-th action of a game (and the dice it rolled, if any)."""
        self._execute(
            "INSERT INTO actions (game, idx, seat, action, dice) VALUES (?,?,?,?,?)",
            (
                game_id,
                index,
                action.seat,
                action_from_engine(action).model_dump_json(),
                None if dice is None else json.dumps(list(dice)),
            ),
        )

    def finish_game(self, game_id: str, winner: int | None, points: list[int]) -> None:
        self._execute(
            "UPDATE games SET finished=?, winner=?, points=? WHERE id=?",
            (time.time(), winner, json.dumps(points), game_id),
        )

    def abandon_game(self, game_id: str) -> None:
        """Close a game that nobody finished: it is no longer resumed (no winner)."""
        self._execute(
            "UPDATE games SET finished=? WHERE id=? AND finished IS NULL", (time.time(), game_id)
        )

    def add_chat(self, game_id: str, seat: int | None, name: str, text: str) -> None:
        self._execute(
            "INSERT INTO chat (game, at, seat, name, text) VALUES (?,?,?,?,?)",
            (game_id, time.time(), seat, name, text),
        )

    def load(self, game_id: str) -> StoredGame | None:
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
        rows = self._execute(
            "SELECT id, finished, winner, points FROM games "
            "WHERE finished IS NOT NULL AND points IS NOT NULL ORDER BY finished DESC"
        )
        return [(r[0], r[1], r[2], json.loads(r[3])) for r in rows]

    def unfinished(self) -> Iterator[StoredGame]:
        """Every game not yet over, oldest first."""
        ids = [
            r[0]
            for r in self._execute("SELECT id FROM games WHERE finished IS NULL ORDER BY created")
        ]
        for game_id in ids:
            game = self.load(game_id)
            if game is not None:
                yield game
