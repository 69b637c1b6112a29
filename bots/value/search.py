"""A search over the value network: the seat's own moves looked at a few deep, chance
weighed exactly, every leaf scored by the network from the seat's view.

The search runs on a full state rebuilt from the seat's view and one guess at the hidden
cards (:func:`engine.rebuild.state_from_view`), but a leaf's score reads only the seat's
view of it (:meth:`bots.value.net.ValueNet.state_win`), so the guess matters only where
the seat's own move meets hidden cards: what a steal takes, which card a purchase draws
(those two weighed by the :class:`Chance` the hand tracker gives, never by the guess), and
what a monopoly gathers (the guess's).

- **Chance.** A roll is the 11 totals by their probabilities; buying a development card is
  each kind by the chance the seat gives it (the unseen cards); a steal is each resource by
  the chance the victim holds it. Each outcome is played by the engine on a copy.
- **Own moves.** Every legal move is scored by its afterstate (the expectation over its
  outcomes). Where the seat moves again after it (it built, traded with the bank, played a
  card, moves the robber), the best few are looked at ``depth - 1`` moves further, and
  take the best of what they lead to, while the decision's time lasts.
- **Ends.** A won game scores 1 for the winner and 0 for the rest.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

from bots.value.batch import Batched
from bots.value.net import ValueNet
from engine.actions import Action, BuyDevCard, MoveRobber, RollDice
from engine.rules import advance, legal_actions, seats_to_act
from engine.state import GameState, Phase

_R: Final = 5
DICE_CHANCE: Final = tuple((t, (6 - abs(t - 7)) / 36) for t in range(2, 13))
"""Each total of two dice and its probability."""
_FORCED_DICE: Final = {
    11: (0, 1),
    8: (0, 2),
    6: (0, 4),
    9: (0, 5),
    10: (0, 8),
    7: (0, 11),
    4: (0, 14),
    3: (0, 20),
    5: (0, 29),
    2: (0, 31),
    12: (0, 94),
}
"""An RNG state (high and low halves) from which the engine rolls each total."""
_AGAIN: Final = (int(Phase.MAIN), int(Phase.MOVE_ROBBER), int(Phase.ROAD_BUILDING))


@dataclass
class Chance:
    """What the seat believes of the hidden cards: each other seat's expected hand (by
    resource) and the development cards it has not seen (by kind: knight, victory point,
    road building, year of plenty, monopoly)."""

    hands: dict[int, Sequence[float]] = field(default_factory=dict)
    unseen_development: Sequence[float] = (14.0, 5.0, 2.0, 2.0, 2.0)

    def steal(self, state: GameState, victim: int) -> list[float]:
        """The chance that a steal from ``victim`` takes each resource."""
        size = sum(state.hand[victim * _R : victim * _R + _R])
        expected = self.hands.get(victim)
        if expected is None or sum(expected) <= 0:
            expected = [float(c) for c in state.hand[victim * _R : victim * _R + _R]]
        total = sum(expected)
        return [e / total for e in expected] if size and total > 0 else [0.0] * _R

    def draw(self) -> list[float]:
        """The chance that a development card bought is of each kind."""
        total = sum(self.unseen_development)
        if total <= 0:
            return [1.0 / 5] * 5
        return [c / total for c in self.unseen_development]


@dataclass
class Scored:
    """A move and the seat's chance to win after it."""

    action: Action
    value: float


@dataclass
class Search:
    """The search of one seat (see the module docstring)."""

    net: ValueNet
    seat: int
    chance: Chance = field(default_factory=Chance)
    depth: int = 2
    width: int = 4
    batch: Batched | None = None  # numpy's batches, where numpy is installed
    stop: float | None = None  # when the decision's time is up, by ``clock``; None: no limit
    clock: Callable[[], float] = time.monotonic
    evaluations: int = 0

    # --- scoring states -----------------------------------------------------------------
    def value(self, state: GameState) -> float:
        """The seat's chance to win in ``state``."""
        return self.values([state])[0]

    def values(self, states: Sequence[GameState]) -> list[float]:
        """The seat's chance to win in each of ``states`` (one batch where numpy is)."""
        return self.chances([(s, self.seat) for s in states])

    def chances(self, pairs: Sequence[tuple[GameState, int]]) -> list[float]:
        """For each (state, seat), that seat's chance to win, read from its view."""
        out = [(1.0 if s.winner == q else 0.0) if s.winner >= 0 else -1.0 for s, q in pairs]
        todo = [i for i, v in enumerate(out) if v < 0.0]
        if not todo:
            return out
        self.evaluations += len(todo)
        if self.batch is not None:
            wins = self.batch.state_wins([pairs[i][0] for i in todo], [pairs[i][1] for i in todo])
            for i, v in zip(todo, wins, strict=True):
                out[i] = v
        else:
            for i in todo:
                out[i] = self.net.state_win(pairs[i][0], pairs[i][1])[0]
        return out

    def outcomes(self, state: GameState, action: Action) -> list[tuple[float, GameState]]:
        """The states ``action`` leads to from ``state`` with their probabilities."""
        if isinstance(action, RollDice):
            out = []
            for total, p in DICE_CHANCE:
                s = state.copy()
                s.rng_hi, s.rng_lo = _FORCED_DICE[total]
                advance(s, action)
                out.append((p, s))
            return out
        if isinstance(action, BuyDevCard):
            return [
                (p, _forced_draw(state, action, kind))
                for kind, p in enumerate(self.chance.draw())
                if p > 0
            ]
        if isinstance(action, MoveRobber) and action.victim is not None:
            probs = self.chance.steal(state, action.victim)
            if sum(probs) > 0:
                return [(p, _forced_steal(state, action, r)) for r, p in enumerate(probs) if p > 0]
        s = state.copy()
        advance(s, action)
        return [(1.0, s)]

    def score(self, state: GameState, action: Action, depth: int) -> float:
        """The seat's chance to win after ``action``: the expectation over its outcomes,
        each looked at ``depth - 1`` own moves further where the seat moves again."""
        outcomes = self.outcomes(state, action)
        values = self.values([s for _, s in outcomes])
        total = 0.0
        for (p, s), v in zip(outcomes, values, strict=True):
            if depth > 1 and s.winner < 0 and self._moves_again(s):
                v = max(v, self.best(s, depth - 1).value)
            total += p * v
        return total

    def _moves_again(self, state: GameState) -> bool:
        return state.phase in _AGAIN and seats_to_act(state) == (self.seat,)

    # --- choosing -----------------------------------------------------------------------
    def ranked(self, state: GameState, actions: Sequence[Action] | None = None) -> list[Scored]:
        """The seat's moves in ``state`` (``actions``, or every legal one) scored one
        move deep, best first."""
        moves = list(actions) if actions is not None else legal_actions(state, self.seat)
        expanded = [self.outcomes(state, a) for a in moves]
        values = iter(self.values([s for outcomes in expanded for _, s in outcomes]))
        scored = [
            Scored(a, sum(p * next(values) for p, _ in outcomes))
            for a, outcomes in zip(moves, expanded, strict=True)
        ]
        scored.sort(key=lambda m: -m.value)
        return scored

    def out_of_time(self) -> bool:
        """Whether the decision's time is up (``stop``, by ``clock``)."""
        return self.stop is not None and self.clock() >= self.stop

    def best(
        self,
        state: GameState,
        depth: int | None = None,
        actions: Sequence[Action] | None = None,
    ) -> Scored:
        """The seat's best move in ``state`` (among ``actions`` where given): the best few
        by one move's score looked at ``depth`` deep, as far as the time allows (every move
        is always scored one deep)."""
        depth = self.depth if depth is None else depth
        ranked = self.ranked(state, actions)
        if not ranked:
            raise ValueError("no move to choose from")
        if depth > 1:
            top = ranked[: self.width]
            for m in top:
                if self.out_of_time():
                    break
                m.value = self.score(state, m.action, depth)
            top.sort(key=lambda m: -m.value)
            ranked[: self.width] = top
        return ranked[0]


def _forced_draw(state: GameState, action: BuyDevCard, kind: int) -> GameState:
    """``state`` after ``action`` draws a card of ``kind``: the deck the guess holds loses
    one card (of that kind where it has one), its size as the seat sees it."""
    s = state.copy()
    deck = list(s.deck)
    total = sum(deck)
    s.deck = [0] * _R
    s.deck[kind] = total
    advance(s, action)
    take = kind if deck[kind] else max(range(_R), key=deck.__getitem__)
    deck[take] -= 1
    s.deck = deck
    return s


def _forced_steal(state: GameState, action: MoveRobber, resource: int) -> GameState:
    """``state`` after ``action`` steals ``resource``: the victim's guessed hand loses one
    card (of that resource where it has one), its size as the seat sees it."""
    s = state.copy()
    victim = action.victim
    assert victim is not None
    base = victim * _R
    hand = s.hand[base : base + _R]
    size = sum(hand)
    s.hand[base : base + _R] = [size if r == resource else 0 for r in range(_R)]
    advance(s, action)
    take = resource if hand[resource] else max(range(_R), key=hand.__getitem__)
    hand[take] -= 1
    s.hand[base : base + _R] = hand
    return s


__all__ = ["DICE_CHANCE", "Chance", "Scored", "Search"]
