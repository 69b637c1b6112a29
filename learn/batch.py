"""Many games stepped in one call, observations and masks written into preallocated numpy
arrays: the shape vectorized trainers take.

:class:`BatchedGames` holds ``n`` games. Each call to :meth:`BatchedGames.step` takes one
action index per game (:mod:`features.actions`) for the seat that acts there, applies it on
the engine's fast path, and writes, for each game, the observation and legal-action mask of
the seat that acts next (:mod:`features.encoding`), the rewards the step gave each seat and
whether the game ended. A game that ends starts again at once (its next game's first
observation is in the arrays), so every row always waits for an action.

Who acts is one seat at a time, as in an agent-environment cycle: the seat to move; after a
seven, the first seat still owing discards; while an offer is open, the first seat still to
answer, then the offerer. The batch plays every seat (self-play); :mod:`learn.vector` puts
one learning seat per game against opponents.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from engine.constants import MAX_ACTIONS
from engine.rules import advance, seats_to_act
from engine.state import GameConfig, GameState, Phase, new_game
from features.actions import ActionIndex, action_index
from features.encoding import Encoding, encoding
from learn.spaces import writable
from learn.turns import OfferCount

_TRADE: Final = int(Phase.TRADE)
SEED_STRIDE: Final = 1_000_003
"""Game ``k`` (counted across resets) of a batch seeded ``s`` plays engine seed
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
    """The one seat that acts now in the environments' cycle (see the module docstring);
    -1 once the game is over."""
    to_act = seats_to_act(state)
    if not to_act:
        return -1
    if state.phase == _TRADE and len(to_act) > 1:
        return to_act[1]
    return to_act[0]


class Game:
    """One game of a batch or an environment: the state, the offers made this turn, the
    board's fixed blocks, and the points each seat had after the last step."""

    __slots__ = ("board", "offers", "points", "seed", "state")

    def __init__(self, rules: Rules, seed: int, enc: Encoding) -> None:
        self.seed = seed
        self.state = new_game(rules.config(), seed)
        self.board = np.asarray(enc.board(self.state.board), dtype=np.float32)
        self.offers = OfferCount()
        self.points = [0] * rules.players


class BatchedGames:
    """``n`` games stepped together (see the module docstring). The arrays are allocated
    once and rewritten in place by :meth:`reset` and :meth:`step`:

    - ``obs`` (n, encoding size) float32 and ``mask`` (n, action count) int8: the acting
      seat's observation and legal actions;
    - ``seat`` (n,): the seat acting in each game;
    - ``rewards`` (n, players) float32: what the last step gave each seat;
    - ``done`` (n,) bool: the last step ended the game (won or truncated), and
      ``truncated`` (n,) bool: ended with no winner; ``winner`` (n,): the winner or -1.
    """

    def __init__(self, n: int, rules: Rules | None = None, seed: int = 0) -> None:
        if n < 1:
            raise ValueError(f"a batch needs at least one game, not {n}")
        self.rules = rules or Rules()
        r = self.rules
        self.encoding: Encoding = encoding(r.radius, r.players)
        self.index: ActionIndex = action_index(r.radius, r.players)
        self.n = n
        self.base_seed = seed
        self.started = 0
        self.obs = np.zeros((n, self.encoding.size), dtype=np.float32)
        self.mask = np.zeros((n, self.index.size), dtype=np.int8)
        self.seat = np.zeros(n, dtype=np.int64)
        self.rewards = np.zeros((n, r.players), dtype=np.float32)
        self.done = np.zeros(n, dtype=bool)
        self.truncated = np.zeros(n, dtype=bool)
        self.winner = np.full(n, -1, dtype=np.int64)
        self.games: list[Game] = []
        self._obs_rows = [writable(self.obs[i]) for i in range(n)]
        self._mask_rows = [writable(self.mask[i]) for i in range(n)]

    # --- starting ----------------------------------------------------------------------
    def _new_game(self) -> Game:
        seed = self.base_seed * SEED_STRIDE + self.started
        self.started += 1
        return Game(self.rules, seed, self.encoding)

    def reset(self, seed: int | None = None) -> None:
        """Start every game afresh (``seed`` replaces the batch's seed)."""
        if seed is not None:
            self.base_seed = seed
            self.started = 0
        self.games = [self._new_game() for _ in range(self.n)]
        self.rewards[:] = 0
        self.done[:] = False
        self.truncated[:] = False
        self.winner[:] = -1
        for i in range(self.n):
            self._observe(i)

    # --- stepping ----------------------------------------------------------------------
    def step(self, actions: Any) -> None:
        """Apply one action index per game for its acting seat; raises ValueError naming
        the game for an index that the mask does not allow (nothing is applied then)."""
        acts = np.asarray(actions)
        if acts.shape != (self.n,):
            raise ValueError(f"need one action per game: shape ({self.n},), not {acts.shape}")
        picked = self.mask[np.arange(self.n), np.clip(acts, 0, self.index.size - 1)]
        bad = np.flatnonzero((picked == 0) | (acts < 0) | (acts >= self.index.size))
        if bad.size:
            i = int(bad[0])
            raise ValueError(
                f"action {int(acts[i])} is not legal for seat {int(self.seat[i])} in game {i}"
            )
        self.rewards[:] = 0
        self.done[:] = False
        self.truncated[:] = False
        self.winner[:] = -1
        for i, a in enumerate(acts.tolist()):
            self._apply(i, a)
            self._observe(i)

    def _apply(self, i: int, a: int) -> None:
        game = self.games[i]
        state = game.state
        seat = int(self.seat[i])
        game.offers.count(state, self.index, a)
        advance(state, self.index.state_action(state, seat, a))
        rules = self.rules
        if rules.points:
            for q in range(rules.players):
                now = state.victory_points(q)
                if now != game.points[q]:
                    self.rewards[i, q] += rules.points * (now - game.points[q])
                    game.points[q] = now
        if state.winner >= 0:
            self.rewards[i] += rules.loss
            self.rewards[i, state.winner] += rules.win - rules.loss
            self.done[i] = True
            self.winner[i] = state.winner
        elif state.actions_taken >= rules.max_actions:
            self.done[i] = True
            self.truncated[i] = True
        if self.done[i]:
            self.games[i] = self._new_game()

    def _observe(self, i: int) -> None:
        """Write game ``i``'s acting seat, observation and mask."""
        game = self.games[i]
        state = game.state
        seat = acting_seat(state)
        self.seat[i] = seat
        obs = self.obs[i]
        enc = self.encoding
        obs[: enc.board_size] = game.board
        obs[enc.board_size :] = 0
        enc.encode_state(state, seat, self._obs_rows[i], with_board=False)
        mask = self.mask[i]
        mask[:] = 0
        self.index.mask(state, seat, self._mask_rows[i])
        game.offers.limit(state, self.rules.max_offers, self.index, mask)


__all__ = ["SEED_STRIDE", "BatchedGames", "Game", "Rules", "acting_seat"]
