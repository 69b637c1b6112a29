"""How often a bot lets a certain win this turn pass.

Run it from the repository root::

    .venv/bin/python benchmarks/missed_wins.py --agent "uct:rollouts=1000,trees=10" --games 40

It plays ``--games`` games of the ``--agent`` against three ``heuristic`` players (seats
rotated, game seeds from ``--seed``). At every decision of the agent's own turn it asks
:func:`bots.uct.winning_move` whether a line of the seat's own certain moves (builds, bank
and harbour trades, year of plenty, road building, a knight that takes the largest army)
wins the game this turn; that line needs only the seat's own cards and the public board.
It prints each game, then the turns in which such a win was there, how many of them the
agent did not win in (it won later, or lost), and the games in which that happened. With
``win_check`` (the ``medium`` and ``hard`` strengths) the agent plays such a line as soon
as it exists; the paper's agents search instead, and value a win now like a likely win
later.
"""

from __future__ import annotations

import argparse
from typing import Any

from bots import make_agent, parse_spec
from bots.uct_agent import UCTAgent
from clients.sdk import Agent, Table
from engine import GameConfig
from protocol import messages as m
from protocol.payloads import view_to_engine
from tournament.local import play_local


class Watch(Agent):
    """A ``uct`` agent, and the turns in which a certain win was there for it."""

    def __init__(self, inner: UCTAgent) -> None:
        self.inner = inner
        self.name = inner.name
        self.chances: set[int] = set()
        self.checked: set[int] = set()

    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        answer = self.inner.choose(prompt, table)  # keeps its hand tracker in step
        payload = prompt.view
        if payload is not None and payload.seat is not None:
            view = view_to_engine(payload)
            if prompt.state_id not in self.checked and view.current == payload.seat:
                self.checked.add(prompt.state_id)
                if self.inner.winning_move(view, payload.seat) is not None:
                    self.chances.add(view.turn)
        return answer

    def on_event(self, event: Any, table: Table) -> None:
        self.inner.on_event(event, table)

    def close(self) -> None:
        self.inner.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="uct:rollouts=1000,trees=10,trade_optimistic=true")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    kind, params = parse_spec(args.agent)
    if kind != "uct":
        parser.error("--agent must be a uct spec")
    chances = missed = games_missed = 0
    for g in range(args.games):
        seat = g % 4
        agents: list[Agent] = [
            make_agent("heuristic", args.seed * 1000 + 4 * g + q) for q in range(4)
        ]
        bot = make_agent(kind, args.seed * 1000 + 4 * g + seat, params)
        assert isinstance(bot, UCTAgent)
        watch = Watch(bot)
        agents[seat] = watch
        try:
            state = play_local(agents, GameConfig(), args.seed + g).state
        finally:
            watch.close()
        won = state.winner == seat
        late = sorted(t for t in watch.chances if not (won and t == state.turn))
        chances += len(watch.chances)
        missed += len(late)
        games_missed += bool(late)
        print(
            f"game {g + 1}: seat {seat} {'won' if won else 'lost'} at turn {state.turn}, "
            f"a certain win in turns {sorted(watch.chances)}, not taken in {late}",
            flush=True,
        )
    print(
        f"games: {args.games}  turns_with_a_certain_win: {chances}  "
        f"not_won_in_that_turn: {missed}  games_with_one: {games_missed}"
    )


if __name__ == "__main__":
    main()
