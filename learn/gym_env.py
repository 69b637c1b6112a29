"""The game as a Gymnasium environment: one learning seat against opponents, and a vector
of such games stepped in one call.

:class:`HexhavenEnv` (``gymnasium.make("hexhaven/Hexhaven-v0")`` once ``hexhaven`` is
imported) observes the learner's seat's view, encoded by :mod:`features.encoding` (a flat
float32 ``Box``), and takes an index of :mod:`features.actions` (a ``Discrete``). The legal
actions are ``info["action_mask"]`` after every reset and step, and
:meth:`HexhavenEnv.action_masks` (the name maskable trainers call). Opponents
(:mod:`learn.opponents`) fill the other seats; the learner's seat turns round the table
from one episode to the next unless it is fixed. Rewards are :class:`learn.core.Rules`'s
for the learner: ``win``/``loss`` at the end, shaped points on the way if asked. An action
the mask does not allow changes nothing: the step gives ``illegal`` and
``info["illegal"] = True``.

:class:`HexhavenVectorEnv` (``gymnasium.make_vec("hexhaven/Hexhaven-v0", num_envs=...)``)
holds ``num_envs`` such games with their observations and masks in preallocated arrays, and
starts a game again in the step that ends it (Gymnasium's same-step autoreset: the ended
game's last observation is in ``info["final_obs"]``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from engine.notation import format as format_position
from features.actions import ActionIndex, action_index
from features.encoding import Encoding, encoding
from learn.core import SEED_STRIDE, Rules
from learn.opponents import Match, Opponent, check_opponents
from learn.spaces import observation_box, writable


class _Games:
    """What both environments share: the rules, the encoding, the opponents and the
    series of games (seeds, the learner's seat)."""

    def __init__(
        self,
        opponents: Sequence[Opponent],
        seat: int | None,
        rules: Rules | None,
        fields: dict[str, Any],
    ) -> None:
        if rules is not None and fields:
            raise ValueError("give rules or their fields, not both")
        self.rules = rules or Rules(**fields)
        r = self.rules
        self.opponents = check_opponents(opponents, r.players)
        if seat is not None and not 0 <= seat < r.players:
            raise ValueError(f"seat {seat} is not one of the {r.players} seats")
        self.fixed_seat = seat
        self.encoding: Encoding = encoding(r.radius, r.players)
        self.index: ActionIndex = action_index(r.radius, r.players)
        self.base_seed = 0
        self.started = 0

    def reseed(self, seed: int | None) -> None:
        if seed is not None:
            self.base_seed, self.started = seed, 0

    def next_match(self) -> Match:
        """The series' next game, its opponents up to the learner's first action."""
        k = self.started
        self.started += 1
        seat = self.fixed_seat if self.fixed_seat is not None else k % self.rules.players
        seed = self.base_seed * SEED_STRIDE + k
        match = Match(self.rules, self.encoding, self.index, self.opponents, seat, seed)
        match.start()
        return match


class HexhavenEnv(gymnasium.Env[np.ndarray, np.int64]):
    """One learning seat against ``opponents`` (see the module docstring).

    ``opponents``: one per other seat, or one for all (``"random"``, a bot spec, or a
    policy callable); ``seat``: the learner's seat in every game (default: seat ``k %
    players`` in the ``k``-th game since the seed was set); ``rules`` or its fields
    (``players``, ``victory_points``, ``max_offers``, ``points``, ``win``, ``loss``...)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}  # noqa: RUF012 (Env declares it)

    def __init__(
        self,
        opponents: Sequence[Opponent] = ("random",),
        seat: int | None = None,
        rules: Rules | None = None,
        illegal: float = -1.0,
        render_mode: str | None = None,
        **fields: Any,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render mode {render_mode!r}")
        self.render_mode = render_mode
        self.games = _Games(opponents, seat, rules, fields)
        self.illegal = illegal
        self.observation_space = observation_box(self.games.encoding)
        self.action_space = spaces.Discrete(self.games.index.size)
        self._obs = np.zeros(self.games.encoding.size, dtype=np.float32)
        self._obs_buffer = writable(self._obs)
        self.match: Match | None = None

    @property
    def rules(self) -> Rules:
        return self.games.rules

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """A new game (engine seed ``seed * SEED_STRIDE + k`` for the ``k``-th since
        ``seed`` was given)."""
        super().reset(seed=seed)
        self.games.reseed(seed)
        if self.match is not None:
            self.match.close()
        self.match = self.games.next_match()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        match = self.match
        if match is None:
            raise RuntimeError("call reset before step")
        a = int(action)
        if not 0 <= a < self.games.index.size:
            raise ValueError(f"action {a} is outside the index (0 to {self.games.index.size - 1})")
        if match.over:
            raise RuntimeError("the game is over: call reset")
        if not match.legal(a):
            return self._observation(), self.illegal, False, False, self._info(illegal=True)
        reward = match.act(a)
        match.observe(self._obs_buffer)
        over = match.over
        terminated = over and match.state.winner >= 0
        return self._obs.copy(), reward, terminated, over and not terminated, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now, as booleans."""
        if self.match is None:
            raise RuntimeError("call reset first")
        return self.match.mask.astype(bool)

    def close(self) -> None:
        """Stop what the opponents hold (a search bot's worker processes)."""
        if self.match is not None:
            self.match.close()
        super().close()

    def render(self) -> str | None:
        """``ansi``: the whole position in the engine's notation (every card shown: a
        render is for the person running the environment, not for a seat)."""
        if self.render_mode is None or self.match is None:
            return None
        return str(format_position(self.match.state))

    def _observation(self) -> np.ndarray:
        assert self.match is not None
        self.match.observe(self._obs_buffer)
        return self._obs.copy()

    def _info(self, illegal: bool = False) -> dict[str, Any]:
        assert self.match is not None
        match = self.match
        info: dict[str, Any] = {
            "action_mask": match.mask.copy(),
            "seat": match.seat,
            "seed": match.seed,
            "illegal": illegal,
        }
        if match.over:
            info["winner"] = match.state.winner
            info["points"] = [match.state.victory_points(q) for q in range(self.rules.players)]
        return info


class HexhavenVectorEnv(VectorEnv[np.ndarray, np.ndarray, np.ndarray]):
    """``num_envs`` games of :class:`HexhavenEnv`'s kind stepped in one call (see the module
    docstring), their observations and masks in arrays allocated once (``obs``, ``mask``:
    read them, never write them; the returned observations are a copy).
    ``info["action_mask"]`` is the mask array; illegal actions change nothing in their
    game, as in the single environment."""

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int,
        opponents: Sequence[Opponent] = ("random",),
        seat: int | None = None,
        rules: Rules | None = None,
        illegal: float = -1.0,
        **fields: Any,
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"a vector needs at least one game, not {num_envs}")
        self.games = _Games(opponents, seat, rules, fields)
        self.num_envs = num_envs
        self.illegal = illegal
        enc, idx = self.games.encoding, self.games.index
        self.single_observation_space = observation_box(enc)
        self.single_action_space = spaces.Discrete(idx.size)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.obs = np.zeros((num_envs, enc.size), dtype=np.float32)
        self.mask = np.zeros((num_envs, idx.size), dtype=np.int8)
        self.matches: list[Match] = []
        self._obs_rows = [writable(row) for row in self.obs]
        self._mask_rows = [writable(row) for row in self.mask]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start every game afresh (``seed`` as :meth:`HexhavenEnv.reset`'s, across the
        vector's games in order)."""
        self.games.reseed(seed)
        self.close_extras()
        self.matches = [self.games.next_match() for _ in range(self.num_envs)]
        for i, match in enumerate(self.matches):
            match.observe(self._obs_rows[i], self._mask_rows[i])
        return self.obs.copy(), {"action_mask": self.mask}

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        acts = np.asarray(actions)
        n = self.num_envs
        if not self.matches:
            raise RuntimeError("call reset before step")
        if acts.shape != (n,):
            raise ValueError(f"need one action per game: shape ({n},), not {acts.shape}")
        size = self.games.index.size
        if ((acts < 0) | (acts >= size)).any():
            raise ValueError(f"actions must be indices from 0 to {size - 1}")
        rewards = np.zeros(n, dtype=np.float64)
        terminated = np.zeros(n, dtype=bool)
        truncated = np.zeros(n, dtype=bool)
        illegal = np.zeros(n, dtype=bool)
        final: dict[int, np.ndarray] = {}
        for i, a in enumerate(acts.tolist()):
            match = self.matches[i]
            if not self.mask[i, a]:
                rewards[i] = self.illegal
                illegal[i] = True
                continue
            rewards[i] = match.act(a)
            if match.over:
                terminated[i] = match.state.winner >= 0
                truncated[i] = not terminated[i]
                match.observe(self._obs_rows[i], self._mask_rows[i])
                final[i] = self.obs[i].copy()
                match.close()
                match = self.matches[i] = self.games.next_match()
            match.observe(self._obs_rows[i], self._mask_rows[i])
        info: dict[str, Any] = {"action_mask": self.mask, "illegal": illegal}
        if final:
            rows = np.zeros_like(self.obs)
            for i, row in final.items():
                rows[i] = row
            info["final_obs"] = rows
            info["_final_obs"] = np.isin(np.arange(n), list(final))
        return self.obs.copy(), rewards, terminated, truncated, info

    def close_extras(self, **kwargs: Any) -> None:
        """Stop what the opponents hold (a search bot's worker processes)."""
        for match in self.matches:
            match.close()
        self.matches = []


__all__ = ["HexhavenEnv", "HexhavenVectorEnv"]
