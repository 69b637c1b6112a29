"""How good a UCT decision is at a fixed budget, per ensemble size and final-move rule.

Run it from the repository root::

    .venv/bin/python benchmarks/decision_quality.py --positions 40 --seed 0

Positions come from games of four ``heuristic`` players (the opponents the bots are
measured against): set-up settlement placements, and main-phase turns where the seat to
move has at least three moves after move pruning. Each position is searched on its true
state, or with ``--hidden`` as the ``uct`` bot searches it: each tree on its own guess at
the hidden cards, drawn from the seat's hand tracker (which followed the game's events).

* **Reference**: every root move's win rate for the seat to move by flat Monte Carlo,
  ``--reference`` pruned random rollouts per move (the same rollouts the search runs).
* **Candidates**: a ``--rollouts`` search split over p trees (Ensemble UCT, Equation 2),
  repeated ``--repeats`` times per position, for each p in ``--trees``. From each merged
  root, each final-move rule picks a move: ``visits`` (the most visited), ``mean`` (the
  best summed mean), ``lcb`` (the best mean less one standard error).

It prints, per phase, p and rule, the mean regret (the reference's best win rate less the
picked move's, in percentage points) and how often the pick is the reference's best.
"""

from __future__ import annotations

import argparse
import copy
import math
import random
import statistics
import time
from collections import defaultdict

from bots.belief import HandTracker
from bots.ensemble import Guess, TreeJob, run_tree, share
from bots.heuristic import Decision
from bots.playout import rollout
from bots.uct import RootStats, Search, SearchConfig, pruned_actions
from engine import (
    GameConfig,
    GameState,
    Phase,
    advance,
    apply,
    legal_actions,
    new_game,
    seats_to_act,
    view,
)
from engine.actions import Action
from protocol.payloads import action_from_engine, action_to_engine, view_from_engine

RULES = ("visits", "mean", "lcb")
Position = tuple[GameState, HandTracker]


def positions(count: int, seed: int) -> list[Position]:
    """Seeded positions from heuristic self-play, about a third of them set-up placements,
    each with the hand tracker of the seat to move."""
    rnd = random.Random(seed)
    out: list[Position] = []
    game = seed
    setups = 0
    while len(out) < count:
        state = new_game(GameConfig(), 10_000 + game)
        game += 1
        trackers = [HandTracker(view(state, q)) for q in range(state.n)]
        while not state.is_over and len(out) < count:
            seat = state.current
            phase = state.phase
            take = False
            if phase == Phase.SETUP_SETTLEMENT and setups * 3 < count and rnd.random() < 0.15:
                take = True
                setups += 1
            elif (
                phase == Phase.MAIN
                and state.turn >= 12
                and len(pruned_actions(state, seat, True)) >= 3
                and rnd.random() < 0.05
            ):
                take = True
            if take:
                out.append((state.copy(), copy.deepcopy(trackers[seat])))
            q = seats_to_act(state)[0]
            engine_actions = legal_actions(state, q)
            payload = view_from_engine(view(state, q))
            wire = [action_from_engine(a) for a in engine_actions]
            pick = Decision(payload, wire, rnd).best()
            for event in apply(state, action_to_engine(pick, q)):
                for r, tracker in enumerate(trackers):
                    tracker.observe(event.for_seat(r))
    return out


def reference(state: GameState, per_move: int, rnd: random.Random) -> dict[Action, float]:
    """Each pruned root move's flat Monte Carlo win rate for the seat to move."""
    seat = state.current
    out = {}
    for action in pruned_actions(state, seat, True):
        wins = 0
        for _ in range(per_move):
            s = state.copy()
            s.rng = rnd.getrandbits(64)
            advance(s, action)
            wins += rollout(s, rnd, True) == seat
        out[action] = wins / per_move
    return out


def search(
    position: Position, rollouts: int, trees: int, hidden: bool, rnd: random.Random
) -> RootStats:
    """Ensemble UCT: ``trees`` trees of rollouts/trees each, merged; each on the true state,
    or (``hidden``) on its own guess from the tracker, as the bot runs them."""
    state, tracker = position
    seat = state.current
    config = SearchConfig(rollouts=rollouts, trees=trees)
    total = RootStats({}, {})
    seen = view(state, seat)
    if hidden:
        tracker.resync(seen)
    for t in range(trees):
        part = share(rollouts, trees, t)
        if not hidden:
            total.add(Search(state.copy(), seat, config, rnd).run(part, None))
            continue
        guess = Guess.of(tracker.sample(rnd), seen.development_new or (0, 0, 0, 0, 0))
        job = TreeJob(seen, guess, seat, config, part, None, rnd.getrandbits(63))
        total.add(run_tree(job))
    return total


def pick(stats: RootStats, rule: str) -> Action:
    """The move a final-move rule takes from merged root statistics."""
    if rule != "lcb":
        return stats.best(rule)
    tried = [a for a, n in stats.visits.items() if n]

    def lcb(a: Action) -> float:
        n = stats.visits[a]
        p = stats.mean(a)
        return p - math.sqrt(max(p * (1 - p), 0.0025) / n)

    return max(tried, key=lcb)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rollouts", type=int, default=1000)
    parser.add_argument("--trees", type=int, nargs="+", default=[1, 2, 4, 10])
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--reference", type=int, default=400, help="rollouts per root move")
    parser.add_argument("--hidden", action="store_true", help="search guesses, as the bot")
    args = parser.parse_args()
    rnd = random.Random(args.seed)
    start = time.perf_counter()
    states = positions(args.positions, args.seed)
    kind = "guessed" if args.hidden else "true"
    print(f"{len(states)} positions ({kind} states) in {time.perf_counter() - start:.0f} s")
    regret: dict[tuple[str, int, str], list[float]] = defaultdict(list)
    hits: dict[tuple[str, int, str], list[int]] = defaultdict(list)
    for i, position in enumerate(states):
        state = position[0]
        phase = "setup" if state.phase == Phase.SETUP_SETTLEMENT else "main"
        ref = reference(state, args.reference, rnd)
        best = max(ref.values())
        for p in args.trees:
            for _ in range(args.repeats):
                stats = search(position, args.rollouts, p, args.hidden, rnd)
                for rule in RULES:
                    chosen = pick(stats, rule)
                    regret[phase, p, rule].append(100 * (best - ref[chosen]))
                    hits[phase, p, rule].append(ref[chosen] == best)
        print(
            f"position {i + 1}/{len(states)} ({phase}, {len(ref)} moves) done at "
            f"{time.perf_counter() - start:.0f} s",
            flush=True,
        )
    print(f"{'phase':6} {'trees':>5} {'rule':7} {'regret pp':>9} {'± se':>6} {'best %':>7}")
    for key in sorted(regret):
        values = regret[key]
        se = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
        share = 100 * statistics.mean(hits[key])
        print(
            f"{key[0]:6} {key[1]:5d} {key[2]:7} {statistics.mean(values):9.2f} {se:6.2f} "
            f"{share:7.1f}"
        )


if __name__ == "__main__":
    main()
