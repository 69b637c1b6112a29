"""Players that are programs. Each runs as its own process through the SDK
(:mod:`clients.sdk`) and sees only what its seat may see.

Kinds: ``random`` (:class:`bots.random_player.RandomAgent`) and ``heuristic``
(:class:`bots.heuristic.HeuristicAgent`). The search bots come with the bots issue.
"""

from __future__ import annotations

from clients.sdk import Agent

KINDS = ("random", "heuristic")


def make_agent(kind: str, seed: int | None = None) -> Agent:
    """A bot of a known kind; raises ValueError naming the kinds there are."""
    if kind == "random":
        from bots.random_player import RandomAgent

        return RandomAgent(seed)
    if kind == "heuristic":
        from bots.heuristic import HeuristicAgent

        return HeuristicAgent(seed)
    raise ValueError(f"unknown bot kind {kind!r}; known kinds: {', '.join(KINDS)}")
