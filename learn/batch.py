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
answer, then the offerer. The batch plays every seat (self-play);
:class:`learn.gym_env.HexhavenVectorEnv` puts one learning seat per game against opponents.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from features.actions import ActionIndex, action_index
from features.encoding import Encoding, encoding
from learn.core import SEED_STRIDE, Play, Rules, acting_seat, step_all
from learn.spaces import writable


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
        self.games: list[Play] = []
        self._obs_rows = [writable(self.obs[i]) for i in range(n)]
        self._mask_rows = [writable(self.mask[i]) for i in range(n)]
        self._reward_rows = [writable(self.rewards[i]) for i in range(n)]

    # --- starting ----------------------------------------------------------------------
    def _new_game(self) -> Play:
        seed = self.base_seed * SEED_STRIDE + self.started
        self.started += 1
        return Play(self.rules, self.encoding, self.index, seed)

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
        self.seat[:] = [self._observe(i) for i in range(self.n)]

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
        seats = self.seat.tolist()
        ended = step_all(
            self.games, acts.tolist(), seats, self._obs_rows, self._mask_rows, self._reward_rows
        )
        for i in ended:
            state = self.games[i].state
            self.done[i] = True
            self.winner[i] = state.winner
            self.truncated[i] = state.winner < 0
            self.games[i] = self._new_game()
            seats[i] = self._observe(i)
        self.seat[:] = seats

    def _observe(self, i: int) -> int:
        """Write game ``i``'s observation and mask for its acting seat; that seat."""
        game = self.games[i]
        seat = acting_seat(game.state)
        game.observe(seat, self._obs_rows[i], self._mask_rows[i])
        return seat


__all__ = ["SEED_STRIDE", "BatchedGames", "Rules", "acting_seat"]
