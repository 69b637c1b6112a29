"""Boards for play: what a new game's ``board`` option turns into.

A server calls :func:`board_for_game` once, when a game is created, and keeps the board it
returns with the game (so a replay or a verification never has to make it again):

- ``balanced``: the constraint model's board (:func:`boards.constraint.generate_board`)
  with the given :class:`~boards.options.BalanceOptions`;
- ``fair``: the first official random set-up whose simulated-placement fairness
  (:mod:`boards.fairness`, for the game's number of players) reaches ``min_fairness``;
- ``preset``: a shipped board (:mod:`boards.presets`).

Every board comes from the seed given, so one seed gives one board.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from boards.errors import BoardLabError, NoBoardFound, ORToolsMissing
from boards.fairness import FairnessParams, FairnessScorer
from boards.options import BalanceOptions
from boards.presets import load_preset, preset_names
from engine.board import Board, random_board
from engine.rng import Rng

FAIR_TRIES = 20_000
"""Random set-ups scored, at most, in looking for a fair board (a few seconds)."""
DEFAULT_MIN_FAIRNESS = 0.95
"""The fairness a ``fair`` board reaches by default: about the best quarter of random
set-ups (their median is 0.93; docs/boards.md)."""
BALANCED_TIME_LIMIT = 20.0
"""Seconds CP-SAT has to find a balanced board (the standard island takes well under one)."""
_STREAM = 0x0B0A


class BoardUnavailable(BoardLabError):
    """No board of the kind asked for: an unknown preset, a model with no solution, or no
    set-up fair enough within :data:`FAIR_TRIES` tries. The message says what to change."""


@dataclass(frozen=True)
class ChosenBoard:
    """A board for a game and, for a ``fair`` board, its fairness (None otherwise)."""

    board: Board
    fairness: float | None = None


def board_seed(seed: int) -> int:
    """The seed a game's board is drawn from: derived from the game's seed, so the board
    does not give away the dice."""
    digest = hashlib.sha256(f"hexhaven-board:{seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def fair_board(
    seed: int,
    radius: int = 3,
    *,
    players: int = 4,
    min_fairness: float = DEFAULT_MIN_FAIRNESS,
    tries: int = FAIR_TRIES,
) -> ChosenBoard:
    """The first random set-up drawn from ``seed`` whose fairness for ``players`` reaches
    ``min_fairness``. Raises :class:`BoardUnavailable` when none does within ``tries``."""
    scorer = FairnessScorer(radius, FairnessParams(players=players))
    rng = Rng(seed, stream=_STREAM)
    for _ in range(tries):
        board = random_board(rng, radius)
        fairness = scorer.fairness(board.terrain, board.tokens, board.harbours)
        if fairness >= min_fairness:
            return ChosenBoard(board, fairness)
    raise BoardUnavailable(
        f"no random set-up of {tries:,} reached fairness {min_fairness:g}; ask for less"
    )


def board_for_game(
    kind: str,
    seed: int,
    radius: int = 3,
    *,
    players: int = 4,
    balance: BalanceOptions | None = None,
    min_fairness: float = DEFAULT_MIN_FAIRNESS,
    preset: str | None = None,
) -> ChosenBoard:
    """The board of a new game whose ``board`` option is ``kind`` (``balanced``, ``fair``
    or ``preset``), drawn from the game's ``seed``. Raises :class:`BoardUnavailable` (and
    ValueError for an unknown kind)."""
    if kind == "preset":
        if preset is None:
            raise BoardUnavailable(f"name a preset: {', '.join(preset_names())}")
        try:
            board = load_preset(preset)
        except KeyError as exc:
            raise BoardUnavailable(str(exc.args[0])) from exc
        if board.radius != radius:
            raise BoardUnavailable(f"preset {preset!r} has radius {board.radius}, not {radius}")
        return ChosenBoard(board)
    own = board_seed(seed)
    if kind == "balanced":
        options = balance or BalanceOptions.for_radius(radius)
        try:
            from boards.constraint import generate_board
        except ORToolsMissing as exc:
            raise BoardUnavailable(str(exc)) from None
        try:
            return ChosenBoard(generate_board(own, radius, options, time_limit=BALANCED_TIME_LIMIT))
        except NoBoardFound as exc:
            raise BoardUnavailable(
                f"no balanced board keeps those constraints ({exc}); loosen one"
            ) from exc
        except ValueError as exc:
            raise BoardUnavailable(str(exc)) from exc
    if kind == "fair":
        return fair_board(own, radius, players=players, min_fairness=min_fairness)
    raise ValueError(f"unknown board kind {kind!r}")
