"""Games between entrants: the seat-rotated schedule and the record of each game played.

Games come in blocks of as many games as there are entrants, all on one game seed (board and
dice): block ``b`` plays on seed ``S + b`` and in its game ``j`` seat ``s`` holds entrant
``(j + s) mod E``, so every entrant sits in every seat once per block and the luck of the
dice and of the seat order cancels out. Each seat's agent gets a seed derived from ``S``,
the block and the seat, so a run is reproducible.

Ranks: 1 for the winner, the others by victory points, tied seats sharing the better rank.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass


class ArenaError(Exception):
    """A run that cannot go on: a bot process died or never took its seat, a bot chose an
    action the server would refuse or raised, or a server refused or stopped answering."""


@dataclass(frozen=True)
class ScheduledGame:
    """One game of the schedule: its 0-based index, block, game seed, the entrant index
    at each seat and each seat's agent seed."""

    index: int
    block: int
    seed: int
    seating: tuple[int, ...]
    agent_seeds: tuple[int, ...]


def agent_seed(seed: int, block: int, seat: int) -> int:
    """The seed of the agent at ``seat`` in every game of ``block`` (a hash, so nearby
    runs do not share agent seeds)."""
    digest = hashlib.sha256(f"hexhaven-arena:{seed}:{block}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def make_schedule(entrants: int, players: int, games: int, seed: int) -> list[ScheduledGame]:
    """``games`` games in blocks of ``entrants`` games: block ``b`` on game seed
    ``seed + b``, and in its game ``j`` seat ``s`` holds entrant ``(j + s) % entrants``.
    With fewer entrants than players an entrant fills several seats of a game; with more,
    some sit each game out. Raises ValueError for empty or negative counts."""
    if entrants < 1 or players < 1 or games < 1:
        raise ValueError("an arena needs at least one entrant, one seat and one game")
    schedule: list[ScheduledGame] = []
    for index in range(games):
        block, j = divmod(index, entrants)
        schedule.append(
            ScheduledGame(
                index=index,
                block=block,
                seed=seed + block,
                seating=tuple((j + s) % entrants for s in range(players)),
                agent_seeds=tuple(agent_seed(seed, block, s) for s in range(players)),
            )
        )
    return schedule


def ranks(points: Sequence[int], winner: int | None) -> list[int]:
    """Each seat's rank: 1 for the winner, the others by points; tied seats share the
    better rank (1, 2, 2, 4). With no winner all seats are ranked by points."""

    def key(seat: int) -> tuple[bool, int]:
        return seat == winner, points[seat]

    return [1 + sum(key(t) > key(s) for t in range(len(points))) for s in range(len(points))]


@dataclass(frozen=True)
class GameRecord:
    """A finished (or abandoned) game: ``winner`` is a seat or None, ``points`` per seat;
    decisions and their total seconds per seat are None when not measured (server)."""

    index: int
    block: int
    seed: int
    seating: tuple[int, ...]
    winner: int | None
    points: tuple[int, ...]
    actions: int
    elapsed: float
    decisions: tuple[int, ...] | None = None
    decision_seconds: tuple[float, ...] | None = None
    server_game: str | None = None
    """The game's id on the server that played it (``hexhaven verify``, ``replay``)."""

    @property
    def ranks(self) -> list[int]:
        return ranks(self.points, self.winner)
