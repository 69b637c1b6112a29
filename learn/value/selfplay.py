"""Self-play data for the value network: games played by a policy on the engine, in worker
processes, kept as shards of moves (:mod:`learn.value.games`).

Policies:

- ``heuristic``: every seat plays the ``heuristic`` bot's rules on the engine directly;
  with ``offers`` its seats also make its 1:1 offers (:class:`bots.heuristic.HeuristicTrader`,
  as the bot does at a table), else no seat offers;
- ``expert``: every seat plays the ``expert`` bot (:mod:`bots.value_agent`) over the
  network file given with ``weights`` and its settings ``params`` (``"margin=0,depth=1"``),
  seeing only its seat's view (its guesses and chance weights come from the seat's hand
  tracker, as in play). With ``experts`` set, only that many seats do (the first one
  rotating game by game) and the others play the heuristic's rules (with its offers if
  ``offers``): the tables the bot meets when it is measured against the heuristic.

``explore`` plays a uniformly random legal move instead, at that rate, outside the set-up,
so the data holds positions the policy itself would not reach.

A run is a folder: ``run.json`` (its settings, and what it has cost so far) and the shards.
Run again with the same folder to go on where it stopped; the settings must match.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

from bots.heuristic import HeuristicTrader
from bots.playout import heuristic_move
from engine.actions import Action
from engine.events import Event
from engine.rules import advance, apply, legal_actions
from engine.state import GameConfig, GameState, Phase, new_game
from learn.core import acting_seat
from learn.value.games import SEED_STRIDE, Game, encode_move, shard_path, write_shard

MAX_MOVES = 5000
"""A game not won in this many moves is dropped (it teaches nothing about winning)."""


@dataclass(frozen=True)
class SelfPlay:
    """What a run plays."""

    players: int = 4
    policy: str = "heuristic"
    weights: str = ""
    params: str = ""  # the expert's settings, "name=value,..." (bots.value_agent.ExpertConfig)
    experts: int = 0  # expert seats in a game (0: all); the others play the heuristic
    offers: bool = False  # heuristic seats make the heuristic bot's 1:1 offers
    explore: float = 0.05
    games: int = 1000
    shard_games: int = 100
    seed: int = 0

    def check(self) -> None:
        """ValueError for settings that cannot run."""
        if not 2 <= self.players <= 4:
            raise ValueError(f"players must be 2 to 4, not {self.players}")
        if self.policy not in ("heuristic", "expert"):
            raise ValueError(f"policy must be heuristic or expert, not {self.policy!r}")
        if self.policy == "expert" and not self.weights:
            raise ValueError("the expert policy needs weights=FILE")
        if self.params:
            from bots import parse_spec
            from bots.value_agent import ExpertConfig

            ExpertConfig.from_params(parse_spec(f"expert:{self.params}")[1])
        if not 0 <= self.experts <= self.players:
            raise ValueError(f"experts must be 0 to {self.players}, not {self.experts}")
        if self.experts and self.policy != "expert":
            raise ValueError("experts is a setting of the expert policy")
        if not 0.0 <= self.explore < 1.0:
            raise ValueError(f"explore must be in [0, 1), not {self.explore}")
        if self.games < 1 or self.shard_games < 1:
            raise ValueError("games and shard_games must be at least 1")


class Mover(Protocol):
    """Every seat's moves in one game."""

    def start(self, state: GameState) -> None: ...
    def observe(self, events: Sequence[Event]) -> None: ...
    def move(self, state: GameState, seat: int, legal: list[Action]) -> Action: ...


class HeuristicMover:
    """The ``heuristic`` bot's rules at every seat, on the engine's state (its offers too
    with ``offers``)."""

    def __init__(self, rnd: random.Random, offers: bool) -> None:
        self.rnd = rnd
        self.trader = HeuristicTrader() if offers else None

    def start(self, state: GameState) -> None:
        pass

    def observe(self, events: Sequence[Event]) -> None:
        pass

    def move(self, state: GameState, seat: int, legal: list[Action]) -> Action:
        if self.trader is not None:
            return self.trader.move(state, seat, legal, self.rnd)
        return heuristic_move(state, seat, legal, self.rnd)


def _mover(run: SelfPlay, rnd: random.Random, game: int) -> tuple[Mover, bool]:
    """The run's policy for its ``game``-th game, and whether it needs the events."""
    if run.policy == "heuristic":
        return HeuristicMover(rnd, run.offers), False
    from bots import parse_spec
    from bots.value.selfplay import SeatSearchers

    params = parse_spec(f"expert:{run.params}")[1]
    count = run.experts or run.players
    seats = [(game + k) % run.players for k in range(count)]
    trader = HeuristicTrader() if run.offers else None
    return SeatSearchers(run.weights, run.players, rnd, params, seats, trader), True


def play_game(run: SelfPlay, seed: int) -> Game | None:
    """One game of the run's policy from engine ``seed``; None if it was not won."""
    config = GameConfig(players=run.players)
    state = new_game(config, seed)
    rnd = random.Random(seed)
    mover, told = _mover(run, rnd, seed % SEED_STRIDE)
    mover.start(state)
    moves: list[Any] = []
    setup = (Phase.SETUP_SETTLEMENT, Phase.SETUP_ROAD)
    while not state.is_over:
        if len(moves) >= MAX_MOVES:
            return None
        seat = acting_seat(state)
        legal = legal_actions(state, seat)
        if run.explore and state.phase not in setup and rnd.random() < run.explore:
            action = legal[rnd.randrange(len(legal))]
        else:
            action = mover.move(state, seat, legal)
        moves.append(encode_move(state, legal_actions(state), action))
        if told:
            mover.observe(apply(state, action))
        else:
            advance(state, action)
    points = [state.victory_points(q) for q in range(state.n)]
    return Game(seed, moves, state.winner, points, state.turn)


def _play_shard(run: SelfPlay, index: int, folder: str) -> tuple[int, int, float]:
    """Play and write shard ``index``; (games kept, moves, CPU seconds)."""
    start = time.process_time()
    first = index * run.shard_games
    last = min(first + run.shard_games, run.games)
    games = [g for k in range(first, last) if (g := play_game(run, run.seed * SEED_STRIDE + k))]
    seconds = time.process_time() - start
    header = {"run": asdict(run), "shard": index, "cpu_seconds": seconds}
    write_shard(shard_path(Path(folder), index), header, games)
    return len(games), sum(len(g.moves) for g in games), seconds


def generate(
    run: SelfPlay,
    folder: Path,
    workers: int = 1,
    progress: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Play the run's missing shards into ``folder`` with ``workers`` processes (at the
    lowest priority); returns the run's record, also kept in ``run.json``."""
    run.check()
    folder.mkdir(parents=True, exist_ok=True)
    record_path = folder / "run.json"
    record: dict[str, Any] = {"settings": asdict(run), "games": 0, "moves": 0, "cpu_seconds": 0.0}
    if record_path.exists():
        old = json.loads(record_path.read_text())
        old["settings"] = {**asdict(SelfPlay()), **old["settings"]}  # settings added since
        if old["settings"] != asdict(run):
            raise ValueError(
                f"{folder} holds a run with other settings ({old['settings']}); "
                "use another folder or the same settings"
            )
        record = old
    count = -(-run.games // run.shard_games)
    todo = [i for i in range(count) if not shard_path(folder, i).exists()]
    progress(f"{folder}: {count - len(todo)} of {count} shards there, {len(todo)} to play")
    wall = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers, initializer=lower_priority) as pool:
        jobs = {i: pool.submit(_play_shard, run, i, str(folder)) for i in todo}
        for i, job in jobs.items():
            kept, moves, seconds = job.result()
            record["games"] += kept
            record["moves"] += moves
            record["cpu_seconds"] += seconds
            record_path.write_text(json.dumps(record, indent=1))
            progress(f"shard {i}: {kept} games, {moves} moves, {seconds:.1f} CPU s")
    record["wall_seconds"] = record.get("wall_seconds", 0.0) + time.perf_counter() - wall
    record_path.write_text(json.dumps(record, indent=1))
    return record


def lower_priority() -> None:
    """Run this process at a lower priority (where allowed)."""
    with contextlib.suppress(OSError):  # not allowed here: play at the priority we have
        os.nice(10)


__all__ = ["MAX_MOVES", "HeuristicMover", "SelfPlay", "generate", "lower_priority", "play_game"]
