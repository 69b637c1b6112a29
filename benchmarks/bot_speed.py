"""How fast the UCT bots think.

Run it from the repository root::

    .venv/bin/python benchmarks/bot_speed.py --states 20 --seed 0

It measures whichever engine build is installed (interpreted, or compiled with mypyc: see
setup.py) on mid-game positions: states in phase MAIN, turns 20-80, where the seat to move
has at least three choices, reached by random play with move pruning from seeded games.

* **Rollouts per second per process**: random rollouts with move pruning from those states
  to the end of the game, in this process, with the mean rollout length in actions; with
  ``--planned``, rollouts by the ``heuristic`` player's priorities and chores instead
  (``planned_rollouts``, ``planned_chores``), as the set-up searches play them.
* **Decisions**: a full 1,000-rollout decision per state as a bot makes it, with the work
  split over 2 trees in 2 worker processes (Ensemble UCT, the processes started once
  beforehand and kept), each tree searching the true state rebuilt from the seat's view.
  Prints the median and 95th percentile in milliseconds.

The last line is ``decision_ms_1000_rollouts_p50: X`` for scripts to pick up;
``--decisions 0`` measures the rollouts alone.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time

from bots.ensemble import Ensemble, Guess, TreeJob
from bots.playout import rollout
from bots.uct import SearchConfig, actor, pruned_actions
from engine import GameConfig, GameState, Phase, advance, legal_actions, new_game, view
from engine import rules as engine_rules

ROLLOUTS = 1000
PROCESSES = 2


def mid_game_states(count: int, seed: int) -> list[GameState]:
    """Seeded mid-game positions (see the module docstring)."""
    rnd = random.Random(seed)
    out: list[GameState] = []
    game = seed
    while len(out) < count:
        state = new_game(GameConfig(), game)
        game += 1
        stop = rnd.randint(20, 80)
        while not state.is_over:
            if state.turn >= stop and state.phase == Phase.MAIN and len(legal_actions(state)) >= 3:
                out.append(state)
                break
            rollout_step(state, rnd)
    return out


def rollout_step(state: GameState, rnd: random.Random) -> None:
    """One random action, with move pruning."""
    advance(state, rnd.choice(pruned_actions(state, actor(state), True)))


def truth(state: GameState) -> Guess:
    """The state's real hidden part (the benchmark measures search, not guessing)."""
    return Guess(
        hands=tuple(state.hand_of(q) for q in range(state.n)),
        development=tuple(state.dev_of(q) for q in range(state.n)),
        deck=tuple(state.deck),
        development_new=tuple(state.dev_new),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--states", type=int, default=20, help="mid-game positions")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rollouts", type=int, default=300, help="rollouts for the rate")
    parser.add_argument("--planned", action="store_true", help="planned rollouts with chores")
    parser.add_argument(
        "--decisions", type=int, default=None, help="positions to decide (default: --states)"
    )
    args = parser.parse_args()
    build = "compiled" if engine_rules.__file__.endswith((".so", ".pyd")) else "interpreted"
    print(f"python {platform.python_version()}, engine {build}, {os.cpu_count()} cores")
    states = mid_game_states(args.states, args.seed)
    print(
        f"{len(states)} positions, turns {min(s.turn for s in states)}-"
        f"{max(s.turn for s in states)}"
    )

    rnd = random.Random(args.seed)
    lengths = []
    start = time.perf_counter()
    for i in range(args.rollouts):
        s = states[i % len(states)].copy()
        s.rng = rnd.getrandbits(64)
        before = s.actions_taken
        rollout(s, rnd, True, planned=args.planned, chores=args.planned)
        lengths.append(s.actions_taken - before)
    elapsed = time.perf_counter() - start
    print(
        f"{'planned ' if args.planned else ''}rollouts: {args.rollouts / elapsed:.0f}/s per "
        "process, "
        f"{statistics.mean(lengths):.0f} actions each on average"
    )

    if args.decisions == 0:
        return
    config = SearchConfig(rollouts=ROLLOUTS, trees=PROCESSES, processes=PROCESSES)
    ensemble = Ensemble(PROCESSES)

    def jobs(state: GameState, rollouts: int) -> list[TreeJob]:
        return [
            TreeJob(
                view=view(state, state.current),
                guess=truth(state),
                seat=state.current,
                config=config,
                rollouts=rollouts // PROCESSES,
                deadline=None,
                seed=rnd.getrandbits(63),
            )
            for _ in range(PROCESSES)
        ]

    ensemble.run(jobs(states[0], 2 * PROCESSES))  # start the worker processes
    times = []
    for state in states[: args.decisions]:
        start = time.perf_counter()
        ensemble.run(jobs(state, ROLLOUTS))
        times.append((time.perf_counter() - start) * 1000)
    ensemble.close()
    times.sort()
    p50 = statistics.median(times)
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    print(f"decisions of {ROLLOUTS} rollouts, {PROCESSES} trees in {PROCESSES} processes:")
    print(f"  median {p50:.0f} ms, p95 {p95:.0f} ms, over {len(times)} positions")
    print(f"decision_ms_1000_rollouts_p50: {p50:.0f}")


if __name__ == "__main__":
    main()
