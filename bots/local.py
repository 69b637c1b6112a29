"""Playing agents against each other in one process, straight on the engine.

Each agent gets what a server and the SDK (:func:`clients.sdk.play`) would give it: its
table (seat, roster, the latest full view, the events since), a prompt carrying its seat's
legal actions and view, and every event in the wire form its seat may see; each answer goes
through the ``act`` message's validation. Used by the demo, the arena and tests.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

import engine
from clients.sdk import Agent, Table
from engine import constants
from protocol import messages as m
from protocol.payloads import (
    action_from_engine,
    action_to_engine,
    event_from_engine,
    view_from_engine,
)

MAX_ACTIONS = constants.MAX_ACTIONS


class RefusedAction(Exception):
    """An agent answered with something a server would refuse, or no seat would act."""


@dataclass
class LocalGame:
    """A game played by :func:`play_local`: its final state (unfinished after MAX_ACTIONS
    actions), and per seat the decisions made and the seconds they took."""

    state: engine.GameState
    decisions: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)


@dataclass
class _Seat:
    agent: Agent
    table: Table
    decisions: int = 0
    seconds: float = 0.0

    def ask(self, state: engine.GameState, seat: int) -> Any:
        """The agent's answer to a prompt for the current state, timed."""
        actions = [action_from_engine(a) for a in engine.legal_actions(state, seat)]
        view = view_from_engine(engine.view(state, seat))
        prompt = m.Prompt(
            game=self.table.game,
            state_id=state.actions_taken,
            seat=seat,
            actions=actions,
            view=view,
        )
        self.table.view = view
        self.table.events.clear()
        start = time.perf_counter()
        payload = self.agent.choose(prompt, self.table)
        self.seconds += time.perf_counter() - start
        self.decisions += 1
        return payload


def play_local(
    agents: Sequence[Agent],
    config: engine.GameConfig,
    seed: int,
    watch: Callable[[engine.Event], None] | None = None,
    names: Sequence[str] | None = None,
) -> LocalGame:
    """Play one game between ``agents`` (one per seat); ``watch`` sees every event in its
    public form. Seats that owe an action are asked in turn until one acts (an offerer
    waiting for answers sends nothing: None). Raises :class:`RefusedAction`."""
    state = engine.new_game(config, seed)
    names = names or [a.name for a in agents]
    roster = [
        m.PlayerInfo(seat=q, name=name, bot=True, connected=True, away=False)
        for q, name in enumerate(names)
    ]
    seats = [
        _Seat(a, Table(game="local", seat=q, players=list(roster))) for q, a in enumerate(agents)
    ]
    for q, s in enumerate(seats):
        s.table.view = view_from_engine(engine.view(state, q))
    for _ in range(MAX_ACTIONS):
        if state.is_over:
            break
        for q in engine.seats_to_act(state):
            payload = seats[q].ask(state, q)
            if payload is not None:
                break
        else:
            raise RefusedAction(f"no seat acted at state {state.actions_taken}: the game is stuck")
        try:
            act = m.Act(game="local", state_id=state.actions_taken, action=payload)
            events = engine.apply(state, action_to_engine(act.action, q))
        except (ValidationError, engine.IllegalActionError) as exc:
            raise RefusedAction(
                f"{names[q]} at seat {q} chose an action a server would refuse: {exc}"
            ) from exc
        for event in events:
            for r, s in enumerate(seats):
                wire = event_from_engine(event.for_seat(r))
                s.table.events.append(wire)
                s.agent.on_event(wire, s.table)
            if watch is not None:
                watch(event.for_seat(None))
    return LocalGame(state, [s.decisions for s in seats], [s.seconds for s in seats])
