"""Reads of the games store: a game as stored (:class:`StoredGame`), and the lists the
server resumes, replays and answers from (games played out, games unfinished, invite codes,
the lobby every process shares); and the public record of a game played out.

Each read takes the connection to run on; the store runs it where its connection is (at
once, or on the writer's thread after every write queued before it: :class:`Store`'s
methods of the same names).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter

import engine
from protocol import messages as m
from protocol.payloads import ActionPayload, action_from_engine, action_to_engine
from storage import Database, Pool

__all__ = [
    "Listed",
    "StoredGame",
    "game_record",
    "invited",
    "is_played_out",
    "load",
    "lobby",
    "played_out",
    "unfinished",
]

_ACTION: TypeAdapter[Any] = TypeAdapter(ActionPayload)


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


def load(db: Database | Pool, game_id: str) -> StoredGame | None:
    """The game ``game_id`` as stored, or None."""
    row = db.execute(
        "SELECT id, options, seed, seed_hash, invite, started, finished, winner, points "
        "FROM games WHERE id=?",
        (game_id,),
    ).fetchone()
    if row is None:
        return None
    seats = {
        seat: (token_hash, name, bot)
        for seat, token_hash, name, bot in db.execute(
            "SELECT seat, token_hash, name, bot FROM seats WHERE game=?", (game_id,)
        )
    }
    actions: list[engine.Action] = []
    dice: list[tuple[int, tuple[int, int]]] = []
    for idx, seat, text, rolled in db.execute(
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


def played_out(db: Database | Pool) -> list[tuple[str, float, int | None, list[int]]]:
    """Every game played to its end, newest first: (id, when it ended, winner, points)."""
    rows = db.execute(
        "SELECT id, finished, winner, points FROM games "
        "WHERE finished IS NOT NULL AND points IS NOT NULL ORDER BY finished DESC"
    )
    return [(r[0], r[1], r[2], json.loads(r[3])) for r in rows]


def unfinished(db: Database | Pool) -> list[str]:
    """The ids of every game not yet over, oldest first."""
    return [
        r[0] for r in db.execute("SELECT id FROM games WHERE finished IS NULL ORDER BY created")
    ]


def invited(db: Database | Pool, invite: str) -> str | None:
    """The unfinished game whose invite code is ``invite``, or None."""
    row = db.execute(
        "SELECT id FROM games WHERE invite=? AND finished IS NULL", (invite,)
    ).fetchone()
    return None if row is None else str(row[0])


def lobby(db: Database | Pool, now: float) -> list[Listed]:
    """The games in the lobby whose lease is held at ``now`` (their process is alive), in
    the lobby's order."""
    rows = db.execute(
        "SELECT l.number, l.summary, s.owner FROM lobby l "
        "JOIN leases s ON s.game = l.game WHERE s.expires > ? ORDER BY l.number",
        (now,),
    ).fetchall()
    return [
        Listed(int(number), m.GameSummary.model_validate_json(summary), str(owner))
        for number, summary, owner in rows
    ]
