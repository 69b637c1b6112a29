"""The seats a learner plays against, and one game of a learner among them.

An opponent is one of:

- ``"random"``: a uniformly random legal action (the ``random`` bot's rule), played on the
  engine directly;
- a callable ``policy(observation, mask) -> index``: a policy over this package's encoding
  and action index (a trained one, or the learner's own past self), given its seat's view;
- any other bot spec of ``hexhaven arena`` (``"heuristic"``, ``"uct:strength=easy"``,
  ``"uct:rollouts=200"``, ``"policy:weights=FILE"``...): the bot itself, seated at the
  protocol's game table exactly as in a local match (its own seat's prompts and events,
  its answers validated as a server would).

:class:`Match` is one game: the learner's seat, the opponents in the other seats, and the
learner's rewards (:class:`learn.core.Rules`). Games with only ``random`` and callable
opponents run on the engine's fast path; one bot seat puts the whole game on the table.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np

from bots import make_agent, parse_spec
from clients.sdk import Agent, Table
from engine.actions import Action
from engine.rules import advance, legal_actions, seats_to_act
from engine.state import GameState
from features.actions import ActionIndex
from features.encoding import Encoding
from learn.core import Play, Rules, acting_seat
from learn.spaces import writable
from protocol import messages as m
from protocol.payloads import action_from_engine
from protocol.table import Table as GameTable
from tournament.local import AgentSeat, RefusedAction, first_answer, play_answer, seat_agents

Policy = Callable[[np.ndarray, np.ndarray], int]
"""A policy over the encoding: ``policy(observation, mask) -> action index``."""
Opponent = str | Policy

RANDOM: Final = "random"


class _Learner(Agent):
    """The learner's seat at a game table: it hears events and is never asked."""

    name = "learner"

    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        raise RefusedAction("the learner's seat is stepped by the environment, never prompted")


def check_opponents(opponents: Sequence[Opponent], players: int) -> tuple[Opponent, ...]:
    """One opponent per other seat: a single one fills them all. Raises ValueError for a
    count or a spec that does not fit (a spec is made once here, to fail early)."""
    if players < 2:
        raise ValueError(f"a game needs 2 to 4 players, not {players}")
    ops = tuple(opponents)
    if len(ops) == 1:
        ops = ops * (players - 1)
    if len(ops) != players - 1:
        raise ValueError(
            f"{players} players need {players - 1} opponents (or one for every seat), "
            f"not {len(ops)}"
        )
    for op in ops:
        if isinstance(op, str):
            if op != RANDOM:
                kind, params = parse_spec(op)
                close = getattr(make_agent(kind, 0, params), "close", None)
                if callable(close):
                    close()
        elif not callable(op):
            raise ValueError(f"an opponent is a bot spec or a policy callable, not {op!r}")
    return ops


class Match:
    """One game of the learner (seat ``seat``) against ``opponents`` (in the other seats,
    in seat order). :meth:`start` plays the opponents up to the learner's first action;
    :meth:`act` applies the learner's action and plays on to its next one, or the end.
    ``mask`` holds the learner's legal actions as of the last :meth:`observe`."""

    def __init__(
        self,
        rules: Rules,
        enc: Encoding,
        index: ActionIndex,
        opponents: Sequence[Opponent],
        seat: int,
        seed: int,
    ) -> None:
        self.rules = rules
        self.enc = enc
        self.index = index
        self.seat = seat
        self.seed = seed
        self.rng = random.Random(seed)
        self.play = Play(rules, enc, index, seed)
        others = [q for q in range(rules.players) if q != seat]
        self.by_seat: dict[int, Opponent] = dict(zip(others, opponents, strict=True))
        self.random_seats = [self.by_seat.get(q) == RANDOM for q in range(rules.players)]
        self.mask = np.zeros(index.size, dtype=np.int8)
        self._mask = writable(self.mask)
        self._their_obs = np.zeros(enc.size, dtype=np.float32)
        self._their_mask = np.zeros(index.size, dtype=np.int8)
        self._fresh = False
        """``mask`` is the learner's legal actions in the state as it is."""
        bots = {
            q: make_agent(*_kind(op, seed * 8 + q))
            for q, op in self.by_seat.items()
            if isinstance(op, str) and op != RANDOM
        }
        self.table: GameTable | None = None
        self.seats: list[AgentSeat] = []
        if bots:
            table = GameTable("learn", rules.config(), seed, max_actions=rules.max_actions)
            agents = [bots.get(q) or _Learner() for q in range(rules.players)]
            self.seats = seat_agents(table, agents, [a.name for a in agents])
            for s in self.seats:
                s.agent.on_seated(s.table)
            self.table = table
            self.play.state = table.state  # the same game: its config and seed

    def close(self) -> None:
        """Stop what the bots hold (a search bot's worker processes)."""
        for s in self.seats:
            close = getattr(s.agent, "close", None)
            if callable(close):
                close()

    # --- the learner ---------------------------------------------------------------------
    @property
    def state(self) -> GameState:
        return self.play.state

    @property
    def over(self) -> bool:
        """The game was won, or reached ``max_actions``."""
        return self.play.over

    def observe(self, obs: Any, mask: Any = None) -> None:
        """Write the learner's observation over the whole of ``obs``, and its legal actions
        (none once the game is over) over ``mask``, or this match's ``mask`` without one
        (buffers: :func:`learn.spaces.writable`)."""
        self.play.observe(self.seat, obs, self._mask if mask is None else mask)
        self._fresh = mask is None

    def legal(self, action: int) -> bool:
        """Whether the learner may take ``action`` now."""
        if self.over or not 0 <= action < self.index.size:
            return False
        if not self._fresh:
            if acting_seat(self.state) != self.seat:
                return False
            self.play.legal(self.seat, self._mask)
            self._fresh = True
        return bool(self.mask[action])

    def start(self) -> None:
        """Play the opponents up to the learner's first action."""
        self._opponents()
        self.play.seat_reward(self.seat)  # the points it starts with (none)

    def act(self, action: int) -> float:
        """Apply the learner's ``action`` (legal: see :meth:`legal`) and play the opponents
        to its next action or the end; returns the learner's reward."""
        self._fresh = False
        if self.table is None:
            q = self.play.learner_step(self.seat, action, self.random_seats, self.rng)
            if q >= 0 and q != self.seat:
                self._opponents()
        else:
            self._apply(self.seat, action)
            self._opponents()
        return self.play.seat_reward(self.seat)

    # --- the others ----------------------------------------------------------------------
    def _opponents(self) -> None:
        play = self.play
        while True:
            if self.table is None:
                q = play.play_random(self.seat, self.random_seats, self.rng)
            else:
                q = -1 if self.over else acting_seat(self.state)
            if q < 0 or q == self.seat:
                return
            self._fresh = False
            op = self.by_seat[q]
            if op == RANDOM:  # on the table: its actions go through it
                legal = legal_actions(self.state, q)
                self._apply_engine(q, legal[self.rng.randrange(len(legal))])
            elif isinstance(op, str):
                self._ask_bots(q)
            else:
                obs, mask = self._their_obs, self._their_mask
                play.observe(q, writable(obs), writable(mask))
                a = int(op(obs, mask))
                if not 0 <= a < self.index.size or not mask[a]:
                    raise RefusedAction(f"the policy at seat {q} chose action {a}, not legal")
                self._apply(q, a)

    def _ask_bots(self, first: int) -> None:
        """Ask the bot at ``first``, then any other bot that owes an action (an offerer
        waiting for answers says nothing), and apply the first answer."""
        assert self.table is not None
        order = [first] + [q for q in seats_to_act(self.state) if q not in (first, self.seat)]
        q, payload = first_answer(self.table, self.seats, order)
        play_answer(self.table, self.seats, q, payload)

    # --- applying ------------------------------------------------------------------------
    def _apply(self, q: int, action: int) -> None:
        self._fresh = False
        self.play.offers.count(self.state, self.index, action)
        self._apply_engine(q, self.index.state_action(self.state, q, action))

    def _apply_engine(self, q: int, act: Action) -> None:
        self._fresh = False
        if self.table is None:
            advance(self.state, act)
        else:
            play_answer(self.table, self.seats, q, action_from_engine(act))


def _kind(spec: str, seed: int) -> tuple[str, int, dict[str, str]]:
    kind, params = parse_spec(spec)
    return kind, seed, params


__all__ = ["RANDOM", "Match", "Opponent", "Policy", "check_opponents"]
