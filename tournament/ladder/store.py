"""Where ladder results are kept: SQLite (by default the file ``hexhaven play`` and the
server use) or PostgreSQL, behind one small interface.

Tables (created if missing, beside the server's own in the same database):

- ``ladder``: ``name`` (primary key), ``config`` (the ladder's identity as JSON: everything
  in its file but ``games`` and ``workers``), ``created``;
- ``ladder_entrant``: ``ladder``, ``label``, ``config`` (the entrant's table as JSON),
  ``budget``;
- ``ladder_game``: ``ladder``, ``idx`` (0-based, unique per ladder), ``block``, ``seed``,
  ``config`` (players, victory points, board as JSON), ``seats`` (entrant labels per seat,
  JSON), ``agent_seeds``, ``winner`` (a seat or null), ``points``, ``ranks``, ``decisions``,
  ``decision_seconds`` (JSON lists; null when not measured), ``actions``, ``elapsed``
  (seconds), ``finished`` (Unix time), ``backend``;
- ``ladder_seat``: one row per game and seat (``ladder``, ``idx``, ``seat``, ``label``,
  ``points``, ``rank``, ``won``), for queries by entrant.

A game and its seats are written in one transaction when the game has finished, so a
ladder stopped at any moment holds whole games only.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from storage import Database, connect, data_dir, is_postgres
from storage import StoreError as StoreError
from tournament.records import GameRecord, ranks

ENV = "HEXHAVEN_DB"
"""An environment variable naming the store (a path or a ``postgresql://`` URL)."""

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS ladder (
        name TEXT PRIMARY KEY,
        config TEXT NOT NULL,
        created DOUBLE PRECISION NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS ladder_entrant (
        ladder TEXT NOT NULL REFERENCES ladder(name),
        label TEXT NOT NULL,
        config TEXT NOT NULL,
        budget TEXT NOT NULL,
        PRIMARY KEY (ladder, label)
    )""",
    """CREATE TABLE IF NOT EXISTS ladder_game (
        ladder TEXT NOT NULL REFERENCES ladder(name),
        idx INTEGER NOT NULL,
        block INTEGER NOT NULL,
        seed BIGINT NOT NULL,
        config TEXT NOT NULL,
        seats TEXT NOT NULL,
        agent_seeds TEXT NOT NULL,
        winner INTEGER,
        points TEXT NOT NULL,
        ranks TEXT NOT NULL,
        decisions TEXT,
        decision_seconds TEXT,
        actions INTEGER NOT NULL,
        elapsed DOUBLE PRECISION NOT NULL,
        finished DOUBLE PRECISION NOT NULL,
        backend TEXT NOT NULL,
        PRIMARY KEY (ladder, idx)
    )""",
    """CREATE TABLE IF NOT EXISTS ladder_seat (
        ladder TEXT NOT NULL,
        idx INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        label TEXT NOT NULL,
        points INTEGER NOT NULL,
        rank INTEGER NOT NULL,
        won INTEGER NOT NULL,
        PRIMARY KEY (ladder, idx, seat)
    )""",
    "CREATE INDEX IF NOT EXISTS ladder_seat_label ON ladder_seat (ladder, label)",
)


@dataclass(frozen=True)
class StoredGame:
    """A ladder game as the store holds it."""

    index: int
    block: int
    seed: int
    labels: tuple[str, ...]
    agent_seeds: tuple[int, ...]
    winner: int | None
    points: tuple[int, ...]
    ranks: tuple[int, ...]
    actions: int
    elapsed: float
    finished: float
    backend: str
    config: dict[str, Any]
    decisions: tuple[int, ...] | None
    decision_seconds: tuple[float, ...] | None


def default_db() -> str:
    """``$HEXHAVEN_DB`` if set, else ``games.db`` in the data directory ``hexhaven play``
    uses (``$XDG_DATA_HOME/hexhaven`` or ``~/.local/share/hexhaven``, created)."""
    env = os.environ.get(ENV)
    if env:
        return env
    return str(data_dir() / "games.db")


class LadderStore:
    """Ladders and their games in one database. Open with :func:`open_store`; every
    method commits (or rolls back) before it returns."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self.postgres = db.postgres
        self.where = db.where
        with self._transaction():
            for statement in SCHEMA:
                self._execute(statement)

    # --- plumbing ---------------------------------------------------------------------------
    def _execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self._db.execute(sql, params)

    def _transaction(self) -> AbstractContextManager[None]:
        return self._db.transaction()

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> LadderStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- ladders ----------------------------------------------------------------------------
    def ladder_config(self, name: str) -> dict[str, Any] | None:
        """The stored identity of ladder ``name``, or None if there is no such ladder."""
        row = self._execute("SELECT config FROM ladder WHERE name=?", (name,)).fetchone()
        if row is None:
            return None
        config: dict[str, Any] = json.loads(row[0])
        return config

    def ladders(self) -> list[str]:
        """Every ladder's name, in order of creation."""
        rows = self._execute("SELECT name FROM ladder ORDER BY created, name").fetchall()
        return [r[0] for r in rows]

    def open_ladder(
        self,
        name: str,
        identity: Mapping[str, Any],
        entrants: Mapping[str, tuple[Mapping[str, Any], str]],
        *,
        fresh: bool = False,
    ) -> int:
        """Create ladder ``name`` or go on with it: returns how many games it holds. With
        ``fresh`` its games are deleted first. ``entrants`` maps labels to (config,
        budget). Raises :class:`StoreError` if the ladder exists with another identity."""
        with self._transaction():
            return self._open(name, identity, entrants, fresh=fresh)

    def _open(
        self,
        name: str,
        identity: Mapping[str, Any],
        entrants: Mapping[str, tuple[Mapping[str, Any], str]],
        *,
        fresh: bool,
        remedy: str = "run with --fresh to start it again from nothing, or give the ladder "
        "another name",
    ) -> int:
        text = json.dumps(identity, sort_keys=True, separators=(",", ":"))
        row = self._execute("SELECT config FROM ladder WHERE name=?", (name,)).fetchone()
        if row is not None and (fresh or json.loads(row[0]) != json.loads(text)):
            played = self._execute("SELECT COUNT(*) FROM ladder_game WHERE ladder=?", (name,))
            if fresh or int(played.fetchone()[0]) == 0:  # nothing played: nothing to keep
                self._delete(name)
                row = None
        if row is not None:
            if json.loads(row[0]) != json.loads(text):
                raise StoreError(
                    f"the ladder {name!r} in {self.where} was started with another "
                    f"configuration ({_difference(json.loads(row[0]), json.loads(text))}); "
                    + remedy
                )
        else:
            self._execute(
                "INSERT INTO ladder (name, config, created) VALUES (?,?,?)",
                (name, text, time.time()),
            )
            for label, (config, budget) in entrants.items():
                self._execute(
                    "INSERT INTO ladder_entrant (ladder, label, config, budget) VALUES (?,?,?,?)",
                    (name, label, json.dumps(config, sort_keys=True), budget),
                )
        count = self._execute("SELECT COUNT(*) FROM ladder_game WHERE ladder=?", (name,))
        return int(count.fetchone()[0])

    def _delete(self, name: str) -> None:
        for table in ("ladder_seat", "ladder_game", "ladder_entrant"):
            self._execute(f"DELETE FROM {table} WHERE ladder=?", (name,))
        self._execute("DELETE FROM ladder WHERE name=?", (name,))

    def entrants(self, name: str) -> dict[str, tuple[dict[str, Any], str]]:
        """Every entrant's (config, budget), by label."""
        rows = self._execute(
            "SELECT label, config, budget FROM ladder_entrant WHERE ladder=? ORDER BY label",
            (name,),
        ).fetchall()
        return {r[0]: (json.loads(r[1]), r[2]) for r in rows}

    def budgets(self, name: str) -> dict[str, str]:
        """Every entrant's budget, by label."""
        return {label: budget for label, (_, budget) in self.entrants(name).items()}

    # --- games ------------------------------------------------------------------------------
    def done(self, name: str) -> set[int]:
        """The indexes of the games ladder ``name`` holds."""
        rows = self._execute("SELECT idx FROM ladder_game WHERE ladder=?", (name,)).fetchall()
        return {int(r[0]) for r in rows}

    def add_game(
        self,
        name: str,
        record: GameRecord,
        labels: Sequence[str],
        agent_seeds: Sequence[int],
        config: Mapping[str, Any],
        backend: str,
    ) -> None:
        """Write one finished game and its seats in one transaction. Raises the driver's
        integrity error if the ladder already holds a game with that index."""
        game = StoredGame(
            index=record.index,
            block=record.block,
            seed=record.seed,
            labels=tuple(labels),
            agent_seeds=tuple(agent_seeds),
            winner=record.winner,
            points=tuple(record.points),
            ranks=tuple(ranks(record.points, record.winner)),
            actions=record.actions,
            elapsed=record.elapsed,
            finished=time.time(),
            backend=backend,
            config=dict(config),
            decisions=record.decisions,
            decision_seconds=record.decision_seconds,
        )
        with self._transaction():
            self._insert(name, game)

    def _insert(self, name: str, game: StoredGame) -> None:
        self._execute(
            "INSERT INTO ladder_game (ladder, idx, block, seed, config, seats, agent_seeds, "
            "winner, points, ranks, decisions, decision_seconds, actions, elapsed, "
            "finished, backend) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                name,
                game.index,
                game.block,
                game.seed,
                json.dumps(game.config, sort_keys=True),
                json.dumps(list(game.labels)),
                json.dumps(list(game.agent_seeds)),
                game.winner,
                json.dumps(list(game.points)),
                json.dumps(list(game.ranks)),
                None if game.decisions is None else json.dumps(list(game.decisions)),
                None if game.decision_seconds is None else json.dumps(list(game.decision_seconds)),
                game.actions,
                game.elapsed,
                game.finished,
                game.backend,
            ),
        )
        for seat, label in enumerate(game.labels):
            self._execute(
                "INSERT INTO ladder_seat (ladder, idx, seat, label, points, rank, won) "
                "VALUES (?,?,?,?,?,?,?)",
                (
                    name,
                    game.index,
                    seat,
                    label,
                    game.points[seat],
                    game.ranks[seat],
                    int(game.winner == seat),
                ),
            )

    def merge(
        self,
        name: str,
        identity: Mapping[str, Any],
        entrants: Mapping[str, tuple[Mapping[str, Any], str]],
        games: Sequence[StoredGame],
    ) -> tuple[int, int]:
        """Add games kept elsewhere (an exported ladder) to ladder ``name``, creating it if
        missing: returns (games added, games already held). All or nothing: raises
        :class:`StoreError`, changing nothing, if the ladder exists with another identity
        or holds a game of the same index with another seed, seating or result."""
        added = 0
        with self._transaction():
            self._open(name, identity, entrants, fresh=False, remedy="nothing was imported")
            held_games = {g.index: g for g in self.games(name)}
            for game in games:
                held = held_games.get(game.index)
                if held is None:
                    self._insert(name, game)
                    held_games[game.index] = game
                    added += 1
                elif _outcome(held) != _outcome(game):
                    raise StoreError(
                        f"game {game.index} of the ladder {name!r} in {self.where} was played "
                        "differently there (another seed, seating or result); nothing was "
                        "imported"
                    )
        return added, len(games) - added

    def games(self, name: str) -> list[StoredGame]:
        """Every game of ladder ``name``, by index."""
        rows = self._execute(
            "SELECT idx, block, seed, seats, agent_seeds, winner, points, ranks, actions, "
            "elapsed, finished, backend, config, decisions, decision_seconds "
            "FROM ladder_game WHERE ladder=? ORDER BY idx",
            (name,),
        ).fetchall()
        return [
            StoredGame(
                index=int(r[0]),
                block=int(r[1]),
                seed=int(r[2]),
                labels=tuple(json.loads(r[3])),
                agent_seeds=tuple(json.loads(r[4])),
                winner=None if r[5] is None else int(r[5]),
                points=tuple(json.loads(r[6])),
                ranks=tuple(json.loads(r[7])),
                actions=int(r[8]),
                elapsed=float(r[9]),
                finished=float(r[10]),
                backend=str(r[11]),
                config=json.loads(r[12]),
                decisions=None if r[13] is None else tuple(json.loads(r[13])),
                decision_seconds=None if r[14] is None else tuple(json.loads(r[14])),
            )
            for r in rows
        ]


def _outcome(game: StoredGame) -> tuple[object, ...]:
    """What two copies of one game must agree on: its seeds, seating and result."""
    return (game.seed, game.labels, game.agent_seeds, game.winner, game.points)


def _difference(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """The first thing that differs between two identities, in words."""
    for key in ("ladder", "entrants"):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            for k in sorted(set(a) | set(b)):
                if a.get(k) != b.get(k):
                    return f"[ladder] {k} was {a.get(k)!r}, now {b.get(k)!r}"
        if isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                return f"it had {len(a)} entrants, now {len(b)}"
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                if x != y:
                    name = x.get("name") if isinstance(x, dict) else i + 1
                    return f"entrant {name!r} differs"
        return f"{key} differs"
    return "it differs"


def open_store(db: str | None = None, *, create: bool = True) -> LadderStore:
    """The store at ``db``: a SQLite file path, or a ``postgresql://`` URL (needs the
    ``postgres`` extra, psycopg 3); None means :func:`default_db`. Raises
    :class:`StoreError` if it cannot be opened, or, without ``create``, if a SQLite store
    does not exist yet (a command that only reads creates nothing for a mistyped path)."""
    where = db or default_db()
    if is_postgres(where):
        return LadderStore(connect(where))
    if not create and not Path(where).is_file():
        raise StoreError(f"no store at {where}: no such file (give the store with --db)")
    folder = Path(where).parent
    if db is not None and not folder.is_dir():  # a typo would start the ladder over elsewhere
        raise StoreError(f"no folder {folder} for the store {where}; make it first")
    try:
        folder.mkdir(parents=True, exist_ok=True)  # the data directory, the first time
        return LadderStore(connect(where, busy_timeout=30.0, foreign_keys=True))
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"cannot open the SQLite store {where}: {exc}") from exc
