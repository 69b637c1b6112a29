"""Playing agents against each other in one process, on the protocol's game table.

Each agent gets what a server and the SDK (:func:`clients.sdk.play`) would give it: its
table (seat, roster, the latest full view, the events since), a prompt carrying its seat's
legal actions and view, and every event in the wire form its seat may see, all made by the
same :class:`protocol.table.Table` the server's rooms drive; each answer goes through the
``act`` message's validation. Used by the demo, the arena and tests.
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
from protocol.payloads import event_to_engine
from protocol.table import ActionRefused, Delivery
from protocol.table import Table as GameTable

MAX_ACTIONS = constants.MAX_ACTIONS


class RefusedAction(Exception):
    """An agent answered with something a server would refuse, or no seat would act."""


@dataclass
class LocalGame:
    """A game played by :func:`play_local`: its final state (unfinished after MAX_ACTIONS
    actions), per seat the decisions made and the seconds they took, and the ``game_over``
    every seat was told."""

    state: engine.GameState
    decisions: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    over: m.GameOver | None = None


@dataclass
class AgentSeat:
    """An agent in a seat of a local game: its table, and the decisions it made and their
    time."""

    agent: Agent
    table: Table
    decisions: int = 0
    seconds: float = 0.0

    def ask(self, prompt: m.Prompt) -> Any:
        """The agent's answer to a prompt (with its seat's view), timed."""
        self.table.view = prompt.view
        self.table.events.clear()
        start = time.perf_counter()
        payload = self.agent.choose(prompt, self.table)
        self.seconds += time.perf_counter() - start
        self.decisions += 1
        return payload

    def hear(self, event: Any) -> None:
        """One event, in this seat's wire form."""
        self.table.events.append(event)
        self.agent.on_event(event, self.table)


def play_local(
    agents: Sequence[Agent],
    config: engine.GameConfig,
    seed: int,
    watch: Callable[[engine.Event], None] | None = None,
    names: Sequence[str] | None = None,
    spectator: Callable[[Any], None] | None = None,
) -> LocalGame:
    """Play one game between ``agents`` (one per seat); ``watch`` sees every event in its
    public form, and ``spectator`` every message a spectator's connection that asked for
    views with events would get (the ``view`` first, then ``events`` with their view, then
    ``game_over``). Seats that owe an action are asked in turn until one acts (an offerer
    waiting for answers sends nothing: None). Raises :class:`RefusedAction`."""
    game = GameTable("local", config, seed, max_actions=MAX_ACTIONS)
    names = names or [a.name for a in agents]
    seats = seat_agents(game, agents, names)
    if spectator is not None:
        for message in game.welcome(None):
            spectator(message)
    over: m.GameOver | None = None
    while not game.over:
        q, payload = first_answer(game, seats, engine.seats_to_act(game.state))
        over = play_answer(game, seats, q, payload, watch, names[q], spectator) or over
    return LocalGame(game.state, [s.decisions for s in seats], [s.seconds for s in seats], over)


def seat_agents(game: GameTable, agents: Sequence[Agent], names: Sequence[str]) -> list[AgentSeat]:
    """Each agent at its seat of ``game`` (seat ``q`` for ``agents[q]``), with the roster
    and its first view, as a server seats bots."""
    roster = [
        m.PlayerInfo(seat=q, name=name, bot=True, connected=True, away=False)
        for q, name in enumerate(names)
    ]
    seats = [
        AgentSeat(a, Table(game=game.game, seat=q, players=list(roster)))
        for q, a in enumerate(agents)
    ]
    for q, s in enumerate(seats):
        s.table.view = game.view(q)
    return seats


def first_answer(
    game: GameTable, seats: Sequence[AgentSeat], order: Sequence[int]
) -> tuple[int, Any]:
    """Ask the seats of ``order`` in turn until one answers (an offerer waiting for answers
    sends nothing: None); that seat and its answer. Raises :class:`RefusedAction` if none
    does."""
    for q in order:
        payload = seats[q].ask(game.prompt(q, with_view=True))
        if payload is not None:
            return q, payload
    raise RefusedAction(f"no seat acted at state {game.state_id}: the game is stuck")


def play_answer(
    game: GameTable,
    seats: list[AgentSeat],
    q: int,
    payload: Any,
    watch: Callable[[engine.Event], None] | None = None,
    name: str | None = None,
    spectator: Callable[[Any], None] | None = None,
) -> m.GameOver | None:
    """Play seat ``q``'s answer as a server would (validated as an ``act`` message, then
    checked by the table) and tell every seat; the ``game_over`` if the game ended. Raises
    :class:`RefusedAction` for an answer a server would refuse."""
    try:
        act = m.Act(game=game.game, state_id=game.state_id, action=payload)
        told = game.act(q, game.check(q, act))
    except (ValidationError, ActionRefused) as exc:
        raise RefusedAction(
            f"{name or seats[q].agent.name} at seat {q} chose an action a server would "
            f"refuse: {exc}"
        ) from exc
    if spectator is not None:
        for recipient, message in told:
            if recipient is None:
                spectator(
                    game.with_view(None, message) if isinstance(message, m.Events) else message
                )
    return tell(told, seats, watch)


def tell(
    told: list[Delivery], seats: list[AgentSeat], watch: Callable[[engine.Event], None] | None
) -> m.GameOver | None:
    """Hand an action's events to every seat and ``watch``, one event at a time in each
    recipient's form; returns the ``game_over`` if the game ended."""
    forms: dict[int | None, list[Any]] = {}
    over: m.GameOver | None = None
    for recipient, message in told:
        if isinstance(message, m.Events):
            forms[recipient] = message.events
        else:
            over = message
    for i, public in enumerate(forms[None]):
        for q, s in enumerate(seats):
            s.hear(forms[q][i])
        if watch is not None:
            watch(event_to_engine(public))
    return over
