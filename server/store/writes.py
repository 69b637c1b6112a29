"""A game's record, written: each write is one statement (:class:`Write`), made on the
event loop and run by whoever holds the store's connection, at once or in the writer's next
group commit; and what a write that was not stored fails with (:class:`WriteFailed`,
:class:`LeaseLost`). The statements of the leases are :mod:`server.store.leases`'.
"""

from __future__ import annotations

import functools
import json
import time
from typing import Any, NamedTuple

import engine
from protocol import messages as m
from protocol.payloads import action_from_engine
from storage import StoreError

__all__ = [
    "LeaseLost",
    "Write",
    "WriteFailed",
    "action_played",
    "chat_said",
    "game_abandoned",
    "game_created",
    "game_finished",
    "game_listed",
    "game_started",
    "game_unlisted",
    "lobby_swept",
    "seat_freed",
    "seat_set",
]


class Write(NamedTuple):
    """One statement of a game's record. It is made on the event loop and run by whoever
    holds the connection: at once (:meth:`~server.store.Store.write`) or in the writer's
    next group commit (:meth:`~server.store.Store.queue`). An immutable tuple: one is made
    for every action played."""

    game: str
    label: str | engine.Action
    """What it records (:attr:`what`), or the action it stores (named only when shown)."""
    sql: str
    params: tuple[Any, ...]
    takes_lease: bool = False
    """It takes its game's lease (a new game's): the commit holding it is not fenced for
    that game (see :attr:`~server.store.Store.holder`)."""

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
    """A seat, by the hash of its token (:func:`~server.tokens.hash_token`; never the
    token), its player's name, and the bot kind playing it (None: a person); it replaces
    the seat's holder."""
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


def lobby_swept(before: float) -> Write:
    """The games taken out of the lobby that have had no lease held since ``before`` (their
    process died and none took them over: they were over, or closed)."""
    return Write(
        "",
        "the lobby's lapsed entries",
        "DELETE FROM lobby WHERE NOT EXISTS (SELECT 1 FROM leases "
        "WHERE leases.game = lobby.game AND leases.expires > ?)",
        (before,),
    )


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
