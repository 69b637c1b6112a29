"""The environments' hot path, without numpy: the rules they add to the game, who acts, the
bound on offers, and one game's moves, rewards, observations and masks written into
buffers. A regular install compiles it with mypyc (setup.py), with the engine and the
encoding.

Buffers are anything indexable with slice assignment from a memoryview of the same format:
memoryviews of float32 (observations, rewards) and int8 (masks) numpy arrays are what the
environments pass (:func:`learn.spaces.writable`).
"""

from __future__ import annotations

import random
from array import array
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

from engine.constants import MAX_ACTIONS
from engine.rules import advance, legal_actions, seats_to_act
from engine.state import GameConfig, GameState, Phase, new_game
from features.actions import BOUNDED_TRADES, ActionIndex
from features.encoding import Encoding, Kept

_TRADE: Final = int(Phase.TRADE)
_MAIN: Final = int(Phase.MAIN)
_BOUNDED: Final = len(BOUNDED_TRADES)
SEED_STRIDE: Final = 1_000_003
"""Game ``k`` (counted across resets) of a series seeded ``s`` plays engine seed
``s * SEED_STRIDE + k``."""


@dataclass(frozen=True)
class Rules:
    """What the environments add to the game's rules, and how they reward.

    ``max_offers`` bounds the domestic offers a seat may make in one turn (the mask hides the
    offer range after that), so that no policy can offer forever; ``max_actions`` ends a
    game with no winner (truncated). Rewards: ``win`` to the winner and ``loss`` to every
    other seat when a game is won, nothing when it is truncated; with ``points`` above 0,
    every step also gives each seat ``points`` times the change in its victory points
    (hidden victory cards included).
    """

    players: int = 4
    victory_points: int = 10
    radius: int = 3
    max_offers: int = 3
    max_actions: int = MAX_ACTIONS
    win: float = 1.0
    loss: float = -1.0
    points: float = 0.0

    def config(self) -> GameConfig:
        return GameConfig(
            players=self.players, victory_points=self.victory_points, radius=self.radius
        )


def acting_seat(state: GameState) -> int:
    """The one seat that acts now in the environments' cycle: the seat to move; after a
    seven, the first seat still owing discards; while an offer is open, the first seat
    still to answer, then the offerer. -1 once the game is over."""
    to_act = seats_to_act(state)
    if not to_act:
        return -1
    if state.phase == _TRADE and len(to_act) > 1:
        return to_act[1]
    return to_act[0]


class OfferCount:
    """The offers made in the current turn of one game."""

    def __init__(self) -> None:
        self.turn = -1
        self.made = 0

    def count(self, state: GameState, index: ActionIndex, action: int) -> None:
        """Note ``action`` (an index), about to be taken in ``state``."""
        start = index.start["offer"]
        if start <= action < start + _BOUNDED:
            if state.turn != self.turn:
                self.turn, self.made = state.turn, 0
            self.made += 1

    def limit(self, state: GameState, max_offers: int, index: ActionIndex, mask: Any) -> None:
        """Clear the offer range of ``mask`` once the turn's offers are used up."""
        if state.phase == _MAIN and state.turn == self.turn and self.made >= max_offers:
            start = index.start["offer"]
            try:  # an int8 buffer, a numpy array or a list: one copy
                mask[start : start + _BOUNDED] = _zeros(_BOUNDED, "b")
            except (TypeError, ValueError):  # a buffer of another format
                for i in range(start, start + _BOUNDED):
                    mask[i] = 0


@cache
def _zeros(size: int, code: str) -> memoryview:
    return memoryview(array(code, bytes(size * array(code).itemsize)))


class Play:
    """One game in an environment: its state, the offers of the current turn, each seat's
    points after the last step, and each seat's observation as last written."""

    def __init__(self, rules: Rules, enc: Encoding, index: ActionIndex, seed: int) -> None:
        self.rules = rules
        self.enc = enc
        self.index = index
        self.seed = seed
        self.state = new_game(rules.config(), seed)
        self.offers = OfferCount()
        self.points = [0] * rules.players
        self.max_actions = rules.max_actions
        self._images = [memoryview(array("f", bytes(4 * enc.size))) for _ in range(rules.players)]
        self._kept = [Kept() for _ in range(rules.players)]
        """Each seat's vector, kept up to date by :meth:`Encoding.update` (which writes only
        the entries that changed since its last write), and the record of that write."""

    @property
    def over(self) -> bool:
        """The game was won, or reached ``max_actions``."""
        state = self.state
        return state.winner >= 0 or state.actions_taken >= self.max_actions

    def observe(self, seat: int, obs: Any, mask: Any = None) -> None:
        """Write ``seat``'s observation over the whole of ``obs`` (one copy of the seat's
        vector, brought up to date), and its legal actions (none once the game is over)
        over ``mask`` if given."""
        image = self._images[seat]
        self.enc.update(self.state, seat, image, self._kept[seat])
        obs[:] = image
        if mask is not None:
            self.legal(seat, mask)

    def legal(self, seat: int, mask: Any) -> None:
        """Write ``seat``'s legal actions over the whole of ``mask``."""
        index = self.index
        mask[:] = _zeros(index.size, "b")
        if not self.over:
            index.mask(self.state, seat, mask)
            self.offers.limit(self.state, self.rules.max_offers, index, mask)

    def act(self, seat: int, action: int, rewards: Any) -> None:
        """Apply ``seat``'s ``action`` (an index the mask allows) and add what it gives
        each seat to ``rewards[q]``."""
        self.apply(seat, action)
        self.reward(rewards)

    def apply(self, seat: int, action: int) -> None:
        """Apply ``seat``'s ``action``, an index the mask allows."""
        state = self.state
        self.offers.count(state, self.index, action)
        advance(state, self.index.state_action(state, seat, action))

    def seat_reward(self, seat: int) -> float:
        """What the actions since the last call give ``seat``: ``points`` times the change
        in its victory points, and ``win`` or ``loss`` once the game is won."""
        rules = self.rules
        state = self.state
        out = 0.0
        if rules.points:
            now = state.victory_points(seat)
            out += rules.points * (now - self.points[seat])
            self.points[seat] = now
        w = state.winner
        if w >= 0:
            out += rules.win if w == seat else rules.loss
        return out

    def reward(self, rewards: Any) -> None:
        """Add the last actions' rewards to ``rewards[q]``, for every seat ``q``."""
        for q in range(self.rules.players):
            rewards[q] += self.seat_reward(q)

    def learner_step(
        self, seat: int, action: int, random_seats: list[bool], rng: random.Random
    ) -> int:
        """Apply ``seat``'s ``action`` (legal), then :meth:`play_random` up to ``seat``'s
        next action; the seat that must act then, or -1 once the game is over."""
        self.apply(seat, action)
        return self.play_random(seat, random_seats, rng)

    def play_random(self, stop: int, random_seats: list[bool], rng: random.Random) -> int:
        """Let every seat in ``random_seats`` take uniformly random legal actions until
        seat ``stop`` or another seat must act; returns that seat, or -1 once the game is
        over."""
        state = self.state
        while state.winner < 0 and state.actions_taken < self.max_actions:
            q = acting_seat(state)
            if q == stop or not random_seats[q]:
                return q
            legal = legal_actions(state, q)
            advance(state, legal[rng.randrange(len(legal))])
        return -1


def step_all(
    plays: list[Play],
    actions: list[int],
    seats: list[int],
    obs: list[Any],
    masks: list[Any],
    rewards: list[Any],
) -> list[int]:
    """One step of many games: game ``i``'s ``seats[i]`` takes ``actions[i]`` (legal), its
    rewards are added to ``rewards[i]``; then, for a game that goes on, ``seats[i]``
    becomes its acting seat and ``obs[i]`` and ``masks[i]`` that seat's observation and
    legal actions. Returns the games that ended (left for the caller to start again)."""
    ended: list[int] = []
    for i in range(len(plays)):
        play = plays[i]
        play.act(seats[i], actions[i], rewards[i])
        if play.over:
            ended.append(i)
            continue
        seat = acting_seat(play.state)
        seats[i] = seat
        play.observe(seat, obs[i], masks[i])
    return ended


__all__ = ["SEED_STRIDE", "OfferCount", "Play", "Rules", "acting_seat", "step_all"]
