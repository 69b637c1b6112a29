"""Positions labelled by games played on from them: what a move leads to, judged by many
games rather than by the one the stored game went on to.

A stored game says who won from each of its positions once, and only for the move its
player made there. The search compares the states a seat's moves lead to, most of them
moves the stored players never made. So, at sampled decision points of stored games (the
set-up left out), the seat to move's policy move and up to ``moves - 1`` other legal moves
are each made on a copy, and from each resulting state ``rollouts`` games are played to
the end by the data's own policy (the ``heuristic`` rules, with their offers where the
games had them). The k-th game from each of a position's moves gets the same seeds (dice
and choices), so the moves are compared on common chance. Each resulting state gives a row
per seat (:class:`learn.value.positions.Encoder`) labelled with the share of those games
each relative seat won, their mean final points and turns left.

The games are played from the full stored state: the labels are for training only, and
the network still reads one seat's view. Only the shards ``fit`` trains on are labelled,
so held-out figures stay on games no label saw; with ``held_out`` only the held-out shards
are, to score networks' choices (:func:`choice_figures`), and ``fit`` refuses to train on
them.

A run is a folder: ``run.json`` (its settings, the source, what it has cost) and one
``labels-NNNNN.npz`` per source shard. Run again with the same folder to go on.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from bots.value.net import input_size
from engine.actions import Action
from engine.rules import advance, legal_actions
from engine.state import GameConfig, GameState, Phase
from learn.core import acting_seat
from learn.value.games import SEED_STRIDE, read_shard, replay_states, split
from learn.value.positions import Encoder, Positions, relative
from learn.value.selfplay import MAX_MOVES, HeuristicMover, SelfPlay, lower_priority

LABELS_FORMAT: Final = 1
_SETUP: Final = (Phase.SETUP_SETTLEMENT, Phase.SETUP_ROAD)


@dataclass(frozen=True)
class Rollouts:
    """What a labelling run does."""

    rate: float = 0.002  # the share of a game's decision points taken
    moves: int = 4  # moves a decision point: the policy's and up to moves - 1 others
    rollouts: int = 8  # games played on from each move's state
    seed: int = 0
    held_out: bool = False  # label the shards fit holds out (to score networks' choices)

    def check(self) -> None:
        """ValueError for settings that cannot run."""
        if not 0.0 < self.rate <= 1.0:
            raise ValueError(f"rate must be in (0, 1], not {self.rate}")
        if self.moves < 1 or self.rollouts < 1:
            raise ValueError("moves and rollouts must be at least 1")


def play_on(state: GameState, run: SelfPlay, seed: int) -> GameState | None:
    """``state`` (a copy) played to its end by the run's ``heuristic`` policy from ``seed``
    (the dice and the players' choices); None if not won within the run's move limit."""
    s = state.copy()
    s.rng = random.Random(seed).getrandbits(64)
    mover = HeuristicMover(random.Random(seed), run.offers)
    for _ in range(MAX_MOVES):
        if s.is_over:
            return s
        seat = acting_seat(s)
        advance(s, mover.move(s, seat, legal_actions(s, seat)))
    return s if s.is_over else None


def choices(
    state: GameState, run: SelfPlay, settings: Rollouts, rnd: random.Random
) -> list[Action]:
    """The moves looked at in ``state``: the policy's first, then others drawn from the
    legal ones (no repeats)."""
    seat = acting_seat(state)
    legal = legal_actions(state, seat)
    first = HeuristicMover(random.Random(rnd.getrandbits(32)), run.offers).move(
        state.copy(), seat, list(legal)
    )
    others = [a for a in legal if a != first]
    rnd.shuffle(others)
    return [first, *others[: settings.moves - 1]]


def label_shard(source: str, settings: Rollouts, out: str) -> dict[str, float]:
    """Label the sampled decision points of one shard of games into ``out``; its figures."""
    start = time.process_time()
    header, games = read_shard(Path(source))
    run = SelfPlay(**header["run"])
    players = run.players
    encoder = Encoder(players)
    config = GameConfig(players=players)
    rows: list[np.ndarray] = []
    win: list[list[float]] = []
    points: list[list[float]] = []
    left: list[float] = []
    point: list[int] = []  # each row's decision point, in the shard
    move: list[int] = []  # each row's move at its point: 0 the policy's
    mover: list[bool] = []  # whether the row's seat is the one that moved
    positions = afterstates = played = 0
    for game in games:
        rnd = random.Random(settings.seed * SEED_STRIDE + game.seed)
        for state in replay_states(config, game):
            if state.is_over or state.phase in _SETUP or rnd.random() >= settings.rate:
                continue
            seat = acting_seat(state)
            if len(legal_actions(state, seat)) < 2:
                continue
            positions += 1
            seeds = [rnd.getrandbits(48) for _ in range(settings.rollouts)]
            for k, action in enumerate(choices(state, run, settings, rnd)):
                after = state.copy()
                advance(after, action)
                ends = [e for seed in seeds if (e := play_on(after, run, seed)) is not None]
                played += len(ends)
                if not ends:
                    continue
                afterstates += 1
                wins = [sum(e.winner == q for e in ends) / len(ends) for q in range(players)]
                final = [sum(e.victory_points(q) for e in ends) / len(ends) for q in range(players)]
                turns = sum(e.turn for e in ends) / len(ends) - after.turn
                rows += encoder.rows(after)
                for q in range(players):
                    win.append(relative(wins, q))
                    points.append(relative(final, q))
                    left.append(turns)
                    point.append(positions - 1)
                    move.append(k)
                    mover.append(q == seat)
    seconds = time.process_time() - start
    figures = {
        "positions": positions,
        "afterstates": afterstates,
        "games": played,
        "rows": len(rows),
        "cpu_seconds": seconds,
    }
    path = Path(out)
    tmp = path.with_name(path.stem + ".part.npz")
    np.savez_compressed(
        tmp,
        x=np.stack(rows) if rows else np.zeros((0, input_size(players)), np.uint8),
        win=np.array(win, dtype=np.float32).reshape(-1, players),
        points=np.array(points, dtype=np.float32).reshape(-1, players),
        turns_left=np.array(left, dtype=np.float32),
        point=np.array(point, dtype=np.int32),
        move=np.array(move, dtype=np.int8),
        mover=np.array(mover, dtype=bool),
        header=np.array(json.dumps({"format": LABELS_FORMAT, "source": source, **figures})),
    )
    tmp.replace(path)
    return figures


def label_path(folder: Path, source: Path) -> Path:
    """Where the labels of shard ``source`` go in ``folder``."""
    return folder / f"labels-{source.parent.name}-{source.stem}.npz"


def label(
    source: Path,
    folder: Path,
    settings: Rollouts,
    workers: int = 1,
    shards: int = 0,
    progress: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Label the shards ``fit`` trains on in ``source`` (the first ``shards``, 0: all)
    into ``folder`` with ``workers`` processes (at the lowest priority), leaving those
    already there; returns the run's record, also kept in ``run.json``."""
    settings.check()
    kept = source / "run.json"
    made = json.loads(kept.read_text()).get("settings", {}) if kept.exists() else {}
    policy = made.get("policy", "heuristic")
    if policy != "heuristic":
        raise ValueError(
            f"{source} holds games of the {policy} policy; only heuristic games are labelled"
        )
    train, held = split([source])
    part = held if settings.held_out else train
    chosen = part[:shards] if shards > 0 else part
    folder.mkdir(parents=True, exist_ok=True)
    record_path = folder / "run.json"
    record: dict[str, Any] = {
        "labels": asdict(settings),
        "source": str(source),
        "positions": 0,
        "afterstates": 0,
        "games": 0,
        "rows": 0,
        "cpu_seconds": 0.0,
    }
    if record_path.exists():
        old = json.loads(record_path.read_text())
        old["labels"] = {**asdict(Rollouts()), **old.get("labels", {})}  # settings added since
        if old.get("labels") != asdict(settings) or old.get("source") != str(source):
            raise ValueError(
                f"{folder} holds labels made otherwise ({old.get('labels')} from "
                f"{old.get('source')}); use another folder or the same settings"
            )
        record = old
    todo = [p for p in chosen if not label_path(folder, p).exists()]
    there = len(chosen) - len(todo)
    progress(f"{folder}: {there} of {len(chosen)} shards there, {len(todo)} to label")
    wall = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, workers), initializer=lower_priority) as pool:
        jobs = {
            p: pool.submit(label_shard, str(p), settings, str(label_path(folder, p))) for p in todo
        }
        for p, job in jobs.items():
            figures = job.result()
            for key in ("positions", "afterstates", "games", "rows", "cpu_seconds"):
                record[key] += figures[key]
            record_path.write_text(json.dumps(record, indent=1))
            progress(
                f"{p.name}: {figures['positions']:.0f} positions, {figures['afterstates']:.0f} "
                f"states, {figures['games']:.0f} games, {figures['cpu_seconds']:.1f} CPU s"
            )
    record["wall_seconds"] = record.get("wall_seconds", 0.0) + time.perf_counter() - wall
    record_path.write_text(json.dumps(record, indent=1))
    return record


def is_labels(folder: Path) -> bool:
    """Whether ``folder`` holds a labelling run (rather than games)."""
    record = folder / "run.json"
    return record.exists() and "labels" in json.loads(record.read_text())


def is_held_out(folder: Path) -> bool:
    """Whether ``folder`` holds labels of the games ``fit`` holds out."""
    record = folder / "run.json"
    return is_labels(folder) and bool(json.loads(record.read_text())["labels"].get("held_out"))


@dataclass
class Choices:
    """The mover's rows of labelled decision points: which point and move each is, and the
    share of the games played on that the mover won."""

    x: np.ndarray  # (rows, size) uint8: the mover's view of the state its move led to
    point: np.ndarray  # (rows,) int64: the decision point, unique across files
    move: np.ndarray  # (rows,) int64: 0 for the policy's own move
    share: np.ndarray  # (rows,) float32


def load_choices(folders: Sequence[Path]) -> Choices:
    """The mover's rows of the labels in ``folders`` (:class:`Choices`)."""
    parts: list[tuple[np.ndarray, ...]] = []
    base = 0
    for folder in folders:
        for path in sorted(folder.glob("labels-*.npz")):
            with np.load(path) as f:
                if "mover" not in f:
                    raise ValueError(f"{path}: labels made before moves were recorded")
                keep = f["mover"]
                point = f["point"][keep].astype(np.int64)
                parts.append((f["x"][keep], point + base, f["move"][keep], f["win"][keep, 0]))
                base += int(point.max()) + 1 if len(point) else 0
    if not parts:
        raise ValueError(f"no labels in {', '.join(map(str, folders))}")
    return Choices(*(np.concatenate([p[k] for p in parts]) for k in range(4)))


def choice_figures(choices: Choices, value: np.ndarray, margin: float = 0.05) -> dict[str, float]:
    """How well picking, at each decision point, the move whose state ``value`` (the
    mover's chance to win, by row) rates best does by the labels: the mean share of the
    games played on it loses against the point's best move (``regret``), how often it is
    that move (``agreement``), the same regret for the policy's own move, and for the
    ``expert`` bot's rule: the policy's move unless the best rated beats it by ``margin``
    (``kept_regret``)."""
    order = np.lexsort((-value, choices.point))
    point = choices.point[order]
    share = choices.share[order].astype(np.float64)
    rated = value[order]
    starts = np.flatnonzero(np.r_[True, point[1:] != point[:-1]])
    best = np.maximum.reduceat(share, starts)
    picked = share[starts]  # the first of each point by the sort: the highest value
    policy = picked.copy()  # where the policy's move has no label, the pick stands in
    policy_value = rated[starts].astype(np.float64)
    policy_rows = choices.move[order] == 0
    index = np.searchsorted(starts, np.flatnonzero(policy_rows), side="right") - 1
    policy[index] = share[policy_rows]
    policy_value[index] = rated[policy_rows]
    kept = np.where(rated[starts] >= policy_value + margin, picked, policy)
    counted = len(starts) > 0
    return {
        "points": float(len(starts)),
        "regret": float(np.mean(best - picked)) if counted else 0.0,
        "agreement": float(np.mean(picked >= best)) if counted else 0.0,
        "policy_regret": float(np.mean(best - policy)) if counted else 0.0,
        "kept_regret": float(np.mean(best - kept)) if counted else 0.0,
    }


def load_labels(folders: Sequence[Path], rates: Sequence[float] | None = None) -> Positions:
    """The labelled rows of ``folders`` (each row taken with its folder's rate, by a fixed
    draw; all by default)."""
    parts: list[dict[str, np.ndarray]] = []
    for i, folder in enumerate(folders):
        rate = 1.0 if rates is None else rates[i]
        rnd = np.random.default_rng(i)
        for path in sorted(folder.glob("labels-*.npz")):
            with np.load(path) as f:
                part = {k: f[k] for k in ("x", "win", "points", "turns_left")}
            if rate < 1.0:
                keep = rnd.random(len(part["x"])) < rate
                part = {k: v[keep] for k, v in part.items()}
            parts.append(part)
    if not parts:
        raise ValueError(f"no labels in {', '.join(map(str, folders))}")
    return Positions(
        x=np.concatenate([p["x"] for p in parts]),
        win=np.concatenate([p["win"] for p in parts]),
        points=np.concatenate([p["points"] for p in parts]),
        turns_left=np.concatenate([p["turns_left"] for p in parts]),
        games=0,
    )


__all__ = [
    "LABELS_FORMAT",
    "Choices",
    "Rollouts",
    "choice_figures",
    "choices",
    "is_held_out",
    "is_labels",
    "label",
    "label_path",
    "label_shard",
    "load_choices",
    "load_labels",
    "play_on",
]
