"""Positions for the value network: the sampled states of stored games, encoded from every
seat's view, with what the network learns to predict (numpy; the ``train`` extra).

A position seen by seat ``q`` gives one row: the network's inputs for ``q``
(:func:`bots.value.net.write_inputs`; uint8: every entry is a small count, but the turn,
kept up to :data:`TURN_CAP`), each relative seat's chance to win (``(seat - q) % n``: for a
stored game one for the seat that won, for positions labelled by games played on from them,
:mod:`learn.value.rollouts`, the share each won), each relative seat's final points, and the
turns the game had left.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from bots.value.net import input_size, write_inputs
from engine.state import GameConfig, GameState, Phase
from features.encoding import encoding
from learn.value.games import SEED_STRIDE, read_shard, replay_states

TURN_CAP: Final = 255
SETUP_RATE: Final = 0.25
"""The share of set-up positions taken by default, whatever the rate of the rest: the
placements are few in a game and decide much of it."""
_SETUP: Final = (int(Phase.SETUP_SETTLEMENT), int(Phase.SETUP_ROAD))


@dataclass
class Positions:
    """Rows of encoded views with their targets."""

    x: np.ndarray  # (rows, size) uint8
    win: np.ndarray  # (rows, players) float32: each relative seat's chance to win
    points: np.ndarray  # (rows, players) float32: final points, by relative seat
    turns_left: np.ndarray  # (rows,) float32
    games: int

    def __len__(self) -> int:
        return int(self.x.shape[0])


class Encoder:
    """Rows of a state seen from each seat (see the module docstring)."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.turn = encoding(3, players).block("turn").offset
        self.buf = np.zeros(input_size(players), dtype=np.float32)

    def rows(self, state: GameState) -> list[np.ndarray]:
        """The state's row from each seat's view, in seat order."""
        out = []
        buf = self.buf
        for q in range(self.players):
            buf[:] = 0.0
            write_inputs(state, q, buf)
            buf[self.turn] = min(buf[self.turn], TURN_CAP)
            out.append(buf.astype(np.uint8))
        return out


def relative(values: Sequence[float], q: int) -> list[float]:
    """``values`` by seat, from seat ``q``'s side: its own first, then the seats after it."""
    n = len(values)
    return [values[(q + k) % n] for k in range(n)]


def _shard_positions(path: str, rate: float, seed: int, setup_rate: float) -> tuple[Any, ...]:
    header, games = read_shard(Path(path))
    players = int(header["run"]["players"])
    encoder = Encoder(players)
    config = GameConfig(players=players)
    rows: list[np.ndarray] = []
    winners: list[int] = []
    points: list[list[float]] = []
    left: list[int] = []
    for game in games:
        rnd = random.Random(seed * SEED_STRIDE + game.seed)
        for state in replay_states(config, game):
            if state.is_over or rnd.random() >= (setup_rate if state.phase in _SETUP else rate):
                continue
            rows += encoder.rows(state)
            for q in range(players):
                winners.append((game.winner - q) % players)
                points.append(relative(game.points, q))
                left.append(game.turns - state.turn)
    x = np.stack(rows) if rows else np.zeros((0, input_size(players)), np.uint8)
    win = np.zeros((len(winners), players), dtype=np.float32)
    win[np.arange(len(winners)), winners] = 1.0
    return (
        x,
        win,
        np.array(points, dtype=np.float32).reshape(-1, players),
        np.array(left, dtype=np.float32),
        len(games),
        players,
    )


def load(
    paths: Sequence[Path],
    rate: float | Sequence[float],
    seed: int,
    workers: int = 1,
    setup_rate: float = SETUP_RATE,
    extra: Positions | None = None,
) -> Positions:
    """The positions of the games in ``paths`` (each position taken with chance ``rate``,
    or the rate given for its path, a set-up one with ``setup_rate``; which ones is
    fixed by ``seed``), made in ``workers`` processes, then the rows of ``extra`` (labelled
    positions, :func:`learn.value.rollouts.load_labels`). The shards' rows are copied into
    one array, each shard's freed once copied, so the rows are held about once, not twice."""
    rates = [rate] * len(paths) if isinstance(rate, float | int) else list(rate)
    with ProcessPoolExecutor(max_workers=max(1, workers)) as pool:
        jobs = [
            pool.submit(_shard_positions, str(p), r, seed, setup_rate)
            for p, r in zip(paths, rates, strict=True)
        ]
        parts = [list(job.result()) for job in jobs]
        jobs.clear()  # a future holds its result: the rows are freed below only without it
    if extra is not None:
        parts.append([extra.x, extra.win, extra.points, extra.turns_left, 0, extra.win.shape[1]])
    if not parts:
        raise ValueError("no shards of games to read")
    players = {p[5] for p in parts}
    if len(players) != 1:
        raise ValueError(f"the shards mix player counts: {sorted(players)}")
    fields = [np.concatenate([p[k] for p in parts]) for k in (1, 2, 3)]
    x = np.empty((len(fields[0]), parts[0][0].shape[1]), dtype=np.uint8)
    at = 0
    for part in parts:
        rows = part[0]
        x[at : at + len(rows)] = rows
        at += len(rows)
        part[0] = None  # freed: this shard's rows are in x
    return Positions(
        x=x,
        win=fields[0],
        points=fields[1],
        turns_left=fields[2],
        games=sum(p[4] for p in parts),
    )


__all__ = ["TURN_CAP", "Encoder", "Positions", "load", "relative"]
