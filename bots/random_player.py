"""The ``random`` bot: a uniformly random listed action, the baseline of baselines."""

from __future__ import annotations

import random
from typing import Any

from clients.sdk import Agent, Table
from protocol import messages as m


class RandomAgent(Agent):
    """Answers every prompt with one of its listed actions, uniformly at random."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        return self.rng.choice(prompt.actions)
