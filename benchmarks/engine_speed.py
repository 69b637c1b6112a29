"""How fast the Hexhaven engine plays, and how that compares with catanatron.

Run it from the repository root::

    .venv/bin/python benchmarks/engine_speed.py --games 200 --seed 0

It measures whichever engine build is installed and says which: the interpreted source
(an editable install) or the mypyc-compiled one (``HEXHAVEN_COMPILE=1 .venv/bin/pip install
--no-build-isolation '.[bench]'``, see setup.py).

What it measures, on one pinned core (the engines are single-threaded anyway):

* **Whole games.** ``--games`` four-player games on the standard board (random set-up), each
  played to the end with uniformly random legal actions through the engine's fast path:
  ``legal_actions(state)`` then ``advance(state, action)``. ``legal_actions`` never lists
  domestic offers, so there is no player-to-player trading. Game ``i`` uses engine seed
  ``seed + i`` and a ``random.Random(seed + i)`` to choose. Timed from ``new_game`` to the
  end; prints games/s, actions/s, mean actions per game and mean turns per game.
* **catanatron** (the published Python engine, the optional ``bench`` extra:
  ``.venv/bin/pip install -e '.[bench]'``): as many games with four of its ``RandomPlayer``,
  ``Game(players, seed=seed + i).play()``, timed from ``Game(...)`` to the end; actions are
  ``len(game.state.actions)`` and turns ``game.state.num_turns``. Its games stop at its own
  turn limit, so some end without a winner (they are counted and reported). To be fair on a
  noisy machine the two engines run interleaved in blocks of ``--block`` games, taking turns
  to go first, and each engine's time is the sum of its blocks. If catanatron is not
  installed the script says so and skips it and the ratio.
* **Micro-benchmarks.** ``state.copy()`` and ``legal_actions(state)`` on mid-game states:
  states in phase MAIN at turns 30-120 of further random games, each timed with
  ``timeit`` (the best of several repeats, per call); prints the mean over the states in
  microseconds.

The last line is ``ratio_games_per_s_vs_catanatron: X`` (Hexhaven's games/s divided by
catanatron's, two decimals), for scripts to pick up.
"""

from __future__ import annotations

import argparse
import gc
import platform
import random
import statistics
import time
import timeit
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from importlib.metadata import version as distribution_version
from typing import Any

from _pinning import pin_to_one_core

from engine import GameConfig, GameState, Phase, advance, legal_actions, new_game

PLAYERS = 4
MAX_ACTIONS = 200_000
"""A safety net: a random game that has not ended after this many actions is abandoned."""
MICRO_TURNS = (30, 120)
MICRO_SEED_OFFSET = 1_000_000
"""Games sampled for the micro-benchmarks use seeds far from the timed games'."""


@dataclass
class Tally:
    """Totals of one engine over the games it played."""

    games: int = 0
    actions: int = 0
    turns: int = 0
    seconds: float = 0.0
    unfinished: int = 0

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    @property
    def actions_per_s(self) -> float:
        return self.actions / self.seconds if self.seconds else 0.0

    def line(self, name: str) -> str:
        games = max(self.games, 1)
        text = (
            f"{name:<11} games/s: {self.games_per_s:9.2f}   actions/s: {self.actions_per_s:11.0f}"
            f"   mean actions/game: {self.actions / games:8.1f}"
            f"   mean turns: {self.turns / games:6.1f}   ({self.games} games in"
            f" {self.seconds:.2f} s)"
        )
        if self.unfinished:
            text += f"   no winner: {self.unfinished}"
        return text


def engine_build() -> str:
    """Which build of the engine is imported: the interpreted source or the mypyc one."""
    import engine.rules

    if engine.rules.__file__ and engine.rules.__file__.endswith((".so", ".pyd")):
        return f"compiled with mypyc ({engine.rules.__file__})"
    return f"interpreted ({engine.rules.__file__})"


def play_random_game(config: GameConfig, seed: int) -> GameState:
    """One whole game of uniformly random legal actions through the fast path."""
    state = new_game(config, seed)
    uniform = random.Random(seed).random
    over = int(Phase.GAME_OVER)
    for _ in range(MAX_ACTIONS):
        if state.phase == over:
            break
        actions = legal_actions(state)
        advance(state, actions[int(uniform() * len(actions))])
    return state


def run_hexhaven_block(seeds: range, tally: Tally) -> None:
    config = GameConfig(players=PLAYERS)
    finished: list[GameState] = []
    start = time.perf_counter()
    for seed in seeds:
        finished.append(play_random_game(config, seed))
    tally.seconds += time.perf_counter() - start
    for state in finished:
        tally.games += 1
        tally.actions += state.actions_taken
        tally.turns += state.turn
        tally.unfinished += not state.is_over


def load_catanatron() -> tuple[Any, Any, Any] | None:
    """``(Game, RandomPlayer, Color)`` from catanatron, or None when it is not installed."""
    try:
        from catanatron import (  # type: ignore[import-untyped,import-not-found,unused-ignore]
            Color,
            Game,
            RandomPlayer,
        )
    except ImportError:
        return None
    return Game, RandomPlayer, Color


def run_catanatron_block(seeds: range, tally: Tally, catan: tuple[Any, Any, Any]) -> None:
    game_cls, player_cls, color = catan
    colors = list(color)[:PLAYERS]
    finished: list[Any] = []
    winners: list[Any] = []
    start = time.perf_counter()
    for seed in seeds:
        game = game_cls([player_cls(c) for c in colors], seed=seed)
        winners.append(game.play())
        finished.append(game)
    tally.seconds += time.perf_counter() - start
    for game, winner in zip(finished, winners, strict=True):
        tally.games += 1
        tally.actions += len(game.state.actions)
        tally.turns += game.state.num_turns
        tally.unfinished += winner is None


def mid_game_states(count: int, seed: int) -> list[GameState]:
    """``count`` states in phase MAIN at turns 30-120 of random games (a few per game)."""
    config = GameConfig(players=PLAYERS)
    states: list[GameState] = []
    g = 0
    while len(states) < count:
        game_seed = seed + MICRO_SEED_OFFSET + g
        g += 1
        rnd = random.Random(game_seed)
        targets = sorted(rnd.randint(*MICRO_TURNS) for _ in range(4))
        state = new_game(config, game_seed)
        for _ in range(MAX_ACTIONS):
            if state.is_over or not targets or len(states) >= count:
                break
            if state.phase == Phase.MAIN and state.turn >= targets[0]:
                states.append(state.copy())
                while targets and targets[0] <= state.turn:
                    targets.pop(0)
            advance(state, rnd.choice(legal_actions(state)))
    return states


def per_call_us(func: Callable[[], object], number: int, repeat: int) -> float:
    """Best of ``repeat`` timings of ``number`` calls, per call, in microseconds."""
    return min(timeit.Timer(func).repeat(repeat=repeat, number=number)) / number * 1e6


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=200, help="games per engine (200)")
    parser.add_argument("--seed", type=int, default=0, help="first game seed (0)")
    parser.add_argument("--block", type=int, default=10, help="games per interleaved block")
    parser.add_argument("--states", type=int, default=200, help="mid-game states to time")
    args = parser.parse_args(argv)
    if args.games < 1 or args.block < 1 or args.states < 1:
        parser.error("--games, --block and --states must be positive")

    pinned = pin_to_one_core()
    catan = load_catanatron()
    print(
        f"engine speed: {args.games} games per engine, {PLAYERS} players, standard board, "
        f"seeds {args.seed}..{args.seed + args.games - 1}, blocks of {args.block}"
    )
    print(f"python {platform.python_version()} ({platform.python_implementation()}), {pinned}")
    print(f"engine: {engine_build()}")
    if catan is None:
        print("catanatron is not installed (.venv/bin/pip install -e '.[bench]'): skipped")
    else:
        print(f"catanatron {distribution_version('catanatron')}")

    ours = Tally()
    theirs = Tally()
    stop = args.seed + args.games
    for b, first in enumerate(range(args.seed, stop, args.block)):
        seeds = range(first, min(first + args.block, stop))
        runs: list[Callable[[], None]] = [partial(run_hexhaven_block, seeds, ours)]
        if catan is not None:
            runs.append(partial(run_catanatron_block, seeds, theirs, catan))
        if b % 2:
            runs.reverse()
        for run in runs:
            gc.collect()
            run()

    print(ours.line("hexhaven"))
    if catan is not None:
        print(theirs.line("catanatron"))

    states = mid_game_states(args.states, args.seed)
    turns = [s.turn for s in states]
    copy_us = [per_call_us(s.copy, number=200, repeat=5) for s in states]
    legal_us = [per_call_us(partial(legal_actions, s), number=50, repeat=5) for s in states]
    n_legal = [len(legal_actions(s)) for s in states]
    print(
        f"mid-game states: {len(states)} in phase MAIN, turns {min(turns)}-{max(turns)}, "
        f"{statistics.mean(n_legal):.1f} legal actions on average"
    )
    print(
        f"state.copy():         mean {statistics.mean(copy_us):7.2f} us"
        f"   median {statistics.median(copy_us):7.2f} us"
    )
    print(
        f"legal_actions(state): mean {statistics.mean(legal_us):7.2f} us"
        f"   median {statistics.median(legal_us):7.2f} us"
    )
    if catan is not None and theirs.games_per_s > 0:
        print(f"ratio_games_per_s_vs_catanatron: {ours.games_per_s / theirs.games_per_s:.2f}")


if __name__ == "__main__":
    main()
