"""The game as a PettingZoo agent-environment cycle (AEC) environment, 2 to 4 seats.

Each agent (``seat_0`` .. ``seat_{n-1}``) observes a dict: ``observation``, its seat's view
encoded by :mod:`features.encoding`, and ``action_mask``, its legal actions in the index of
:mod:`features.actions` (all zeros unless it is the agent to act). One agent acts at a time
(:func:`learn.core.acting_seat`). Rewards are :class:`learn.core.Rules`'s: by default +1 to
the winner and -1 to the others when the game is won, nothing on the way (shaped points
where asked). A game that reaches ``max_actions`` is truncated for everyone.

``env(**kwargs)`` is the environment with PettingZoo's usual checks around it (an illegal
action ends the game for the agent that made it, with ``illegal_reward``); ``raw_env`` is the
bare one.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from engine.notation import format as format_position
from engine.state import GameState
from features.actions import ActionIndex, action_index
from features.encoding import Encoding, encoding
from learn.core import SEED_STRIDE, Play, Rules, acting_seat
from learn.spaces import mask_space, observation_box, writable

NAME = "hexhaven_v0"


def env(illegal_reward: float = -1.0, **kwargs: Any) -> AECEnv[str, Any, int]:
    """The AEC environment with PettingZoo's wrappers: an illegal action terminates the
    game with ``illegal_reward`` for its agent, an action outside the index is an error,
    and the calls must come in order (reset first)."""
    out: AECEnv[str, Any, int] = raw_env(**kwargs)
    out = wrappers.TerminateIllegalWrapper(out, illegal_reward=illegal_reward)
    out = wrappers.AssertOutOfBoundsWrapper(out)
    return wrappers.OrderEnforcingWrapper(out)


class raw_env(AECEnv[str, dict[str, np.ndarray], int]):  # PettingZoo's name
    """The bare AEC environment (see the module docstring). ``rules`` or its fields as
    keyword arguments (``players``, ``victory_points``, ``max_offers``, ``points``...)."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
        "name": NAME,
        "is_parallelizable": False,
    }

    def __init__(
        self, rules: Rules | None = None, render_mode: str | None = None, **fields: Any
    ) -> None:
        super().__init__()
        if rules is not None and fields:
            raise ValueError("give rules or their fields, not both")
        self.rules = rules or Rules(**fields)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render mode {render_mode!r}")
        self.render_mode = render_mode
        r = self.rules
        self.encoding: Encoding = encoding(r.radius, r.players)
        self.index: ActionIndex = action_index(r.radius, r.players)
        self.possible_agents = [f"seat_{q}" for q in range(r.players)]
        self.agents = self.possible_agents[:]
        box = observation_box(self.encoding)
        masks = mask_space(self.index)
        self._observation_space = spaces.Dict({"observation": box, "action_mask": masks})
        self._action_space = spaces.Discrete(self.index.size)
        self._seed = 0
        self._games = 0
        self.play = Play(r, self.encoding, self.index, 0)
        self._rewards = [0.0] * r.players
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game: engine seed ``seed`` (the first reset without one plays seed 0, and
        each later one the next game of that seed's series)."""
        if seed is not None:
            self._seed, self._games = seed, 0
        game_seed = self._seed * SEED_STRIDE + self._games
        self._games += 1
        self.play = Play(self.rules, self.encoding, self.index, game_seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {"seed": game_seed} for a in self.agents}
        self.agent_selection = self.possible_agents[acting_seat(self.game_state)]

    @property
    def game_state(self) -> GameState:
        """The game's state (every card in it: not for the agents)."""
        return self.play.state

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        obs = np.zeros(self.encoding.size, dtype=np.float32)
        mask = np.zeros(self.index.size, dtype=np.int8)
        acting = agent == self.agent_selection
        self.play.observe(seat, writable(obs), writable(mask) if acting else None)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.possible_agents.index(agent)
        if action is None:
            raise ValueError(f"{agent} must act; None is only for agents whose game ended")
        a = int(action)
        legal = np.zeros(self.index.size, dtype=np.int8)
        self.play.legal(seat, writable(legal))
        if not 0 <= a < self.index.size or not legal[a]:
            raise ValueError(f"action {a} is not legal for {agent} now")
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        rewards = self._rewards
        for q in range(len(rewards)):
            rewards[q] = 0.0
        self.play.act(seat, a, rewards)
        for q, name in enumerate(self.possible_agents):
            self.rewards[name] = rewards[q]
        state = self.game_state
        if state.winner >= 0:
            self.terminations = dict.fromkeys(self.agents, True)
        elif self.play.over:
            self.truncations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        if self.play.over:
            self._deads_step_first()
        else:
            self.agent_selection = self.possible_agents[acting_seat(state)]
        if self.render_mode == "human":
            print(self.render())

    def render(self) -> str | None:
        """``ansi``/``human``: the whole position in the engine's notation (every card
        shown: a render is for the person running the environment, not for a seat)."""
        if self.render_mode is None:
            return None
        return str(format_position(self.game_state))

    def close(self) -> None:
        pass


__all__ = ["NAME", "env", "raw_env"]
