"""Playing agents against each other in one process, straight on the engine.

Each agent gets exactly what it would get from a server: a prompt carrying its seat's legal
actions and view, in the wire form. Used by tests and, later, by the ladder.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import engine
from clients.sdk import Agent, Table
from protocol import messages as m
from protocol.payloads import action_from_engine, action_to_engine, view_from_engine

MAX_ACTIONS = 20_000


def play_local(
    agents: Sequence[Agent],
    config: engine.GameConfig,
    seed: int,
    watch: Callable[[engine.Event], None] | None = None,
) -> engine.GameState:
    """Play one game between ``agents`` (one per seat) and return its final state; ``watch``
    sees every event in its public form. A game that runs past MAX_ACTIONS is returned
    unfinished."""
    state = engine.new_game(config, seed)
    tables = [Table(game="local", seat=s) for s in range(config.players)]
    for _ in range(MAX_ACTIONS):
        if state.is_over:
            break
        seat = engine.seats_to_act(state)[0]
        actions: list[object] = [action_from_engine(a) for a in engine.legal_actions(state, seat)]
        prompt = m.Prompt(
            game="local",
            state_id=state.actions_taken,
            seat=seat,
            actions=actions,  # type: ignore[arg-type]
            view=view_from_engine(engine.view(state, seat)),
        )
        payload = agents[seat].choose(prompt, tables[seat])
        action = action_to_engine(payload, seat)
        for event in engine.apply(state, action):
            for q, agent in enumerate(agents):
                agent.on_event(event.for_seat(q), tables[q])
            if watch is not None:
                watch(event.for_seat(None))
    return state
