"""The ``expert`` bot at the seats of a game played on the engine directly (self-play
data for the next network): each such seat keeps its own hand tracker, fed the events in
its seat's form, and decides from its seat's view, as it would at a table. Other seats
play the heuristic's rules."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence

from bots.belief import HandTracker
from bots.heuristic import HeuristicTrader
from bots.playout import heuristic_move
from bots.value_agent import ExpertAgent, ExpertConfig
from engine.actions import Action
from engine.events import Event
from engine.state import GameState
from engine.view import View
from protocol.payloads import event_to_engine, view_to_engine
from protocol.table import seat_events, seat_view


class SeatSearchers:
    """One ``expert`` player at each of ``seats`` (all, by default) of one game; the heuristic's
    rules at the others (with its offers, by ``trader``, where given)."""

    def __init__(
        self,
        weights: str,
        players: int,
        rnd: random.Random,
        params: Mapping[str, str],
        seats: Iterable[int] | None = None,
        trader: HeuristicTrader | None = None,
    ) -> None:
        config = ExpertConfig.from_params(params, ExpertConfig(weights=weights))
        chosen = range(players) if seats is None else sorted(set(seats))
        self.agents = {q: ExpertAgent(config, rnd.getrandbits(32)) for q in chosen}
        self.rnd = rnd
        self.trader = trader

    def start(self, state: GameState) -> None:
        """Each expert seat's tracker, from its view of the game's first state."""
        for q, agent in self.agents.items():
            agent.tracker = HandTracker(_view(state, q))

    def observe(self, events: Sequence[Event]) -> None:
        """An action's events, each expert seat told its own form of them (as the protocol's
        table tells a seat)."""
        for q, agent in self.agents.items():
            assert agent.tracker is not None
            for e in seat_events(events, q):
                agent.tracker.observe(event_to_engine(e))

    def move(self, state: GameState, seat: int, legal: list[Action]) -> Action:
        """``seat``'s move: the expert's from its view of ``state``, else the heuristic's."""
        agent = self.agents.get(seat)
        if agent is None:
            if self.trader is not None:
                return self.trader.move(state, seat, legal, self.rnd)
            return heuristic_move(state, seat, legal, self.rnd)
        seen = _view(state, seat)
        assert agent.tracker is not None
        agent.tracker.resync(seen)
        action = agent.decide(seen, seat, legal)
        return legal[0] if action is None else action


def _view(state: GameState, seat: int) -> View:
    """``seat``'s view of ``state``, as the protocol's table sends it."""
    return view_to_engine(seat_view(state, seat))


__all__ = ["SeatSearchers"]
