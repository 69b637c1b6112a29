"""How fast the ``expert`` bot's network evaluates and how long its decisions take.

Run it from the repository root::

    .venv/bin/python benchmarks/expert_speed.py --games 2 --seed 0

First the network (the shipped four-player one, or ``--weights FILE``) on 32 positions
of one game (one board, as in a search, whose share of the first layer is kept):
microseconds per evaluation one position at a time in plain Python (what the default
install runs) and in batches of 32 through numpy (where numpy is installed, as it is with
any extra), each the best of five rounds. Then ``--games`` four-player games with
one ``expert`` seat (rotated from game to game; ``--strength``, default ``expert``) against
three ``heuristic`` seats, in process through the protocol's table as ``hexhaven play``'s
bots play them, timing every decision of the ``expert`` seat by its kind (the phase of the
prompt, with answers to offers apart). It prints each kind's count, median, 95th percentile
and maximum in milliseconds, and a last line ``eval_us: X batched_eval_us: Y
decision_ms_p50: A decision_ms_p95: B`` for scripts. Figures depend on the build installed
(the compiled build compiles the network's reader with the engine) and on what else the
machine runs. ``--plain`` plays the games as the default install does, without numpy:
one position at a time in plain Python.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time
from collections import defaultdict
from typing import Any

from bots.heuristic import HeuristicAgent
from bots.value import net as net_module
from bots.value.batch import batched
from bots.value_agent import ExpertAgent, network
from clients.sdk import Agent, Table
from engine import GameConfig, new_game
from engine import rules as engine_rules
from engine.rules import advance, legal_actions
from engine.state import GameState
from protocol import messages as m
from tournament.local import play_local


class Timed(Agent):
    """An agent whose every decision is timed by its kind."""

    def __init__(self, agent: Agent, times: dict[str, list[float]]) -> None:
        self.agent = agent
        self.name = agent.name
        self.times = times

    def on_event(self, event: Any, table: Table) -> None:
        self.agent.on_event(event, table)

    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        view = prompt.view or table.view
        kind = "?" if view is None else view.phase
        if view is not None and view.trade is not None and view.trade.offerer != view.seat:
            kind = "answer"
        start = time.perf_counter()
        answer = self.agent.choose(prompt, table)
        self.times[kind].append((time.perf_counter() - start) * 1000)
        return answer


def percentile(values: list[float], share: float) -> float:
    """The ``share`` quantile of ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def positions(count: int, seed: int) -> list[GameState]:
    """States of one random four-player game (one board, as in a search), from its
    100th move on."""
    state = new_game(GameConfig(players=4), seed)
    rnd = random.Random(seed)
    out = []
    for move in range(100 + 5 * count):
        if state.is_over:
            break
        if move >= 100 and move % 5 == 0:
            out.append(state.copy())
        legal = legal_actions(state)
        advance(state, legal[rnd.randrange(len(legal))])
    return out[:count]


def best_of(rounds: int, run: Any) -> float:
    """The least seconds of ``rounds`` runs of ``run()``."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--strength", default="expert")
    parser.add_argument("--weights", default="")
    parser.add_argument("--plain", action="store_true", help="decide without numpy")
    args = parser.parse_args()
    build = "compiled" if net_module.__file__.endswith((".so", ".pyd")) else "interpreted"
    engine = "compiled" if engine_rules.__file__.endswith((".so", ".pyd")) else "interpreted"
    print(
        f"python {platform.python_version()}, network reader {build}, engine {engine}, "
        f"{os.cpu_count()} cores"
    )
    net = network(args.weights, 4)
    states = positions(32, args.seed)
    single = best_of(5, lambda: [net.state_win(s, i % 4) for i, s in enumerate(states)])
    eval_us = single / len(states) * 1e6
    batch = batched(net)
    batched_us = float("nan")
    if batch is not None:
        batched_us = best_of(5, lambda: batch.state_wins(states, 0)) / len(states) * 1e6
    print(
        f"network: {eval_us:.0f} us an evaluation one at a time, "
        f"{batched_us:.0f} us in batches of {len(states)}"
        + ("" if batch is not None else " (numpy is not installed)")
    )
    if args.plain:
        print("deciding without numpy")
    times: dict[str, list[float]] = defaultdict(list)
    for g in range(args.games):
        seat = g % 4
        agents: list[Agent] = [HeuristicAgent(args.seed + g * 10 + q) for q in range(4)]
        params = {"strength": args.strength, **({"weights": args.weights} if args.weights else {})}
        if args.plain:
            params["batched"] = "false"
        agents[seat] = Timed(ExpertAgent.from_params(params, args.seed + g), times)
        play_local(agents, GameConfig(), args.seed + g)
    every = [t for kind in times.values() for t in kind]
    for kind, values in sorted(times.items(), key=lambda kv: -len(kv[1])):
        print(
            f"{kind}: {len(values)} decisions, median {statistics.median(values):.1f} ms, "
            f"p95 {percentile(values, 0.95):.1f} ms, max {max(values):.1f} ms"
        )
    p50, p95 = statistics.median(every), percentile(every, 0.95)
    print(
        f"eval_us: {eval_us:.0f} batched_eval_us: {batched_us:.0f} "
        f"decision_ms_p50: {p50:.1f} decision_ms_p95: {p95:.1f}"
    )


if __name__ == "__main__":
    main()
