"""What set-up settlements placed by flat Monte Carlo are worth to the heuristic player.

Run it from the repository root::

    .venv/bin/python benchmarks/setup_search.py --rollouts 200 --games 200 --seed 400

It plays ``--games`` games of one ``heuristic`` player whose two set-up settlements are
chosen by :func:`bots.uct.setup_wins` (the ``uct`` bot's ``setup_rollouts``: the
``--spots`` worthiest spots, ``--rollouts`` planned rollouts each) against three plain
``heuristic`` players, seats rotated in blocks of four games on one game seed as in
``hexhaven arena``. Everything else it plays by the heuristic's rules, so
its win rate less 25% is what the placements are worth. ``--rollouts 0`` plays the plain
heuristic in that seat, a check: four alike players win a quarter of the games. It prints
a line per game, then the wins with a 95% Wilson interval and the mean seconds per
placement.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from bots.belief import HandTracker
from bots.ensemble import Guess
from bots.heuristic import HeuristicAgent
from bots.tracking import track
from bots.uct import SETUP_SPOTS, setup_wins
from clients.sdk import Agent, Table
from engine import GameConfig
from engine.rebuild import state_from_view
from protocol import messages as m
from protocol.payloads import action_from_engine, view_to_engine
from tournament.local import play_local
from tournament.records import make_schedule
from tournament.stats import wilson_interval


class SearchedSetup(HeuristicAgent):
    """The ``heuristic`` player, with its set-up settlements by :func:`setup_wins`."""

    def __init__(self, seed: int, spots: int, rollouts: int) -> None:
        super().__init__(seed)
        self.spots, self.rollouts = spots, rollouts
        self.rnd = random.Random(seed)
        self.tracker: HandTracker | None = None
        self.seconds: list[float] = []

    def on_event(self, event: Any, table: Table) -> None:
        self.tracker = track(self.tracker, event, table)

    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        payload = prompt.view or table.view
        if not self.rollouts or payload is None or payload.phase != "setup_settlement":
            return super().choose(prompt, table)
        start = time.perf_counter()
        view = view_to_engine(payload)
        if self.tracker is None:
            self.tracker = HandTracker(view)
        guess = Guess.of(self.tracker.sample(self.rnd), None)
        state = state_from_view(view, guess.hands, guess.development, guess.deck)
        assert view.seat is not None  # a prompt comes with its seat's view
        wins = setup_wins(state, view.seat, self.rollouts, self.spots, self.rnd)
        self.seconds.append(time.perf_counter() - start)
        return action_from_engine(max(wins, key=wins.__getitem__))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rollouts", type=int, default=200, help="per spot; 0: none")
    parser.add_argument("--spots", type=int, default=SETUP_SPOTS)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=400)
    args = parser.parse_args()
    wins = 0
    seconds: list[float] = []
    for game in make_schedule(4, 4, args.games, args.seed):
        seat = game.seating.index(0)  # the seat entrant 0, the searching player, holds
        searcher = SearchedSetup(game.agent_seeds[seat], args.spots, args.rollouts)
        agents: list[Agent] = [
            searcher if q == seat else HeuristicAgent(game.agent_seeds[q]) for q in range(4)
        ]
        state = play_local(agents, GameConfig(), game.seed).state
        won = state.winner == seat
        wins += won
        seconds.extend(searcher.seconds)
        print(
            f"game {game.index + 1} seed {game.seed} seat {seat}: "
            f"{'won' if won else 'lost'} with {state.victory_points(seat)} points",
            flush=True,
        )
    low, high = wilson_interval(wins, args.games)
    mean = sum(seconds) / len(seconds) if seconds else 0.0
    print(
        f"games: {args.games}  wins: {wins}  win_rate: {wins / args.games:.1%} "
        f"[{low:.1%}, {high:.1%}]  seconds_per_placement: {mean:.2f}"
    )


if __name__ == "__main__":
    main()
