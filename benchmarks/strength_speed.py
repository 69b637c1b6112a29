"""How long a ``uct`` bot of each named strength takes to decide in a real game.

Run it from the repository root::

    .venv/bin/python benchmarks/strength_speed.py --games 2 --seed 0

For each strength (``--strengths``, default every named strength) it plays ``--games``
four-player games with one ``uct`` seat of that strength (seat rotated from game to game)
against three ``heuristic`` seats, in process through the protocol's table, as the bots
``hexhaven play`` starts would play them, and times every decision of the ``uct`` seat
(each answer to a prompt, whatever the phase). ``--decisions`` stops a strength after that
many of its decisions (0: the games run to their end).

It prints per strength the decisions timed and their median, 95th percentile and maximum in
milliseconds of wall time, and the same of this process's CPU time (for a strength whose
search runs in this process, about what the wall time would be on an idle machine; a
strength searching in worker processes shows only its own share); the last lines are
``decision_ms_p95_<strength>: X`` (wall time) for scripts to pick up. Figures depend on the
engine build installed (interpreted or compiled: setup.py) and on what else the machine
runs. ``--param NAME=VALUE`` adjusts every strength (``--param time_ms=600``).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from typing import Any

from bots.heuristic import HeuristicAgent
from bots.uct_agent import STRENGTHS, UCTAgent
from clients.sdk import Agent, Table
from engine import GameConfig
from engine import rules as engine_rules
from protocol import messages as m
from tournament.local import play_local


class _Enough(Exception):
    """The strength has made the decisions asked for."""


class Timed(Agent):
    """An agent whose every decision is timed; raises :class:`_Enough` past ``limit``."""

    def __init__(self, agent: Agent, times: list[tuple[float, float]], limit: int) -> None:
        self.agent = agent
        self.name = agent.name
        self.times = times  # (wall ms, CPU ms) of each decision
        self.limit = limit

    def on_event(self, event: Any, table: Table) -> None:
        self.agent.on_event(event, table)

    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        if self.limit and len(self.times) >= self.limit:
            raise _Enough
        start, cpu = time.perf_counter(), time.process_time()
        answer = self.agent.choose(prompt, table)
        wall = (time.perf_counter() - start) * 1000
        self.times.append((wall, (time.process_time() - cpu) * 1000))
        return answer


def percentile(values: list[float], share: float) -> float:
    """The ``share`` quantile of ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def time_strength(
    strength: str, games: int, seed: int, limit: int, params: dict[str, str]
) -> list[tuple[float, float]]:
    """The (wall, CPU) milliseconds of each decision a ``uct:strength`` seat made in
    ``games`` games."""
    times: list[tuple[float, float]] = []
    for g in range(games):
        seat = g % 4
        uct = UCTAgent.from_params({"strength": strength, **params}, seed=seed + g)
        agents: list[Agent] = [HeuristicAgent(seed + g * 10 + q) for q in range(4)]
        agents[seat] = Timed(uct, times, limit)
        try:
            play_local(agents, GameConfig(), seed + g)
        except _Enough:
            break
        finally:
            uct.ensemble.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2, help="games per strength")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--decisions", type=int, default=0, help="stop a strength after this many decisions"
    )
    parser.add_argument("--strengths", default=",".join(STRENGTHS), help="comma-separated")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args()
    params = dict(p.split("=", 1) for p in args.param)
    build = "compiled" if engine_rules.__file__.endswith((".so", ".pyd")) else "interpreted"
    print(f"python {platform.python_version()}, engine {build}, {os.cpu_count()} cores")
    results: dict[str, tuple[float, float]] = {}
    for strength in args.strengths.split(","):
        start = time.perf_counter()
        times = time_strength(strength, args.games, args.seed, args.decisions, params)
        wall = [w for w, _ in times]
        cpu = [c for _, c in times]
        p50, p95 = statistics.median(wall), percentile(wall, 0.95)
        results[strength] = (p50, p95)
        print(
            f"{strength}: {len(times)} decisions in {time.perf_counter() - start:.0f} s: "
            f"wall median {p50:.0f} ms, p95 {p95:.0f} ms, max {max(wall):.0f} ms; "
            f"CPU median {statistics.median(cpu):.0f} ms, p95 {percentile(cpu, 0.95):.0f} ms, "
            f"max {max(cpu):.0f} ms",
            flush=True,
        )
    for strength, (_, p95) in results.items():
        print(f"decision_ms_p95_{strength}: {p95:.0f}")


if __name__ == "__main__":
    main()
