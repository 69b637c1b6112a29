"""How fast the board lab scores and builds boards.

Run it from the repository root::

    .venv/bin/python benchmarks/board_speed.py --boards 20000 --balanced 10

On one pinned core:

* **Fairness**: boards of the official random set-up (drawn beforehand, not timed) scored
  by the placement simulation (:class:`boards.fairness.FairnessScorer`), in boards per
  second; then the same with the four balance components too, and the random set-up
  itself (what ``hexhaven board search`` does per board on each core), after the counts
  its draw needs, built once per radius (timed on their own: 0.6 s at radius 8 on the
  machine these notes were written on, where the earlier count of deserts and reds
  together took 13.8 s).
* **Balanced boards**: seconds per board from the CP-SAT model with the default options
  (one worker), over seeds 0 .. N-1, median and slowest.

The last line is ``fairness_boards_per_s: X`` for scripts to pick up.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

from _pinning import pin_to_one_core

from boards.balance import balance_of
from boards.constraint import generate_board
from boards.fairness import FairnessScorer
from boards.options import BalanceOptions
from engine.board import Board, prepare_random_boards, random_board
from engine.rng import Rng


def rate(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--boards", type=int, default=20_000, help="random boards to score")
    parser.add_argument("--balanced", type=int, default=10, help="CP-SAT boards to build")
    parser.add_argument("--radius", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    print(f"python {platform.python_version()}, {pin_to_one_core()}")
    started = time.perf_counter()
    prepare_random_boards(args.radius)
    counts_seconds = time.perf_counter() - started
    started = time.perf_counter()
    boards: list[Board] = [
        random_board(Rng(args.seed, stream=i), args.radius) for i in range(args.boards)
    ]
    setup_rate = rate(len(boards), time.perf_counter() - started)
    scorer = FairnessScorer(args.radius)

    started = time.perf_counter()
    total = 0.0
    for b in boards:
        total += scorer.fairness(b.terrain, b.tokens, b.harbours)
    fair_rate = rate(len(boards), time.perf_counter() - started)

    started = time.perf_counter()
    for b in boards:
        scorer.fairness(b.terrain, b.tokens, b.harbours)
        balance_of(b.terrain, b.tokens, b.harbours, args.radius)
    both_rate = rate(len(boards), time.perf_counter() - started)

    print(
        f"radius {args.radius}, {len(boards):,} random boards (mean fairness "
        f"{total / len(boards):.3f})"
    )
    print(f"  fairness only:           {fair_rate:10,.0f} boards/s")
    print(f"  fairness and balance:    {both_rate:10,.0f} boards/s")
    print(f"  the random set-up:       {setup_rate:10,.0f} boards/s")
    print(f"  its counts, built once:  {counts_seconds:10.3f} s")
    search_rate = 1 / (1 / both_rate + 1 / setup_rate)
    print(f"  search per core (all):   {search_rate:10,.0f} boards/s")

    if args.balanced > 0:
        options = BalanceOptions.for_radius(args.radius)
        times = []
        for seed in range(args.balanced):
            started = time.perf_counter()
            generate_board(seed, args.radius, options, time_limit=120.0)
            times.append(time.perf_counter() - started)
        print(
            f"balanced CP-SAT boards (the default options of radius {args.radius}):\n"
            f"  {args.balanced} seeds: median {statistics.median(times):.3f} s, "
            f"slowest {max(times):.3f} s per board"
        )
    print(f"fairness_boards_per_s: {fair_rate:.0f}")


if __name__ == "__main__":
    main()
