"""Players that are programs. Each runs as its own process through the SDK
(:mod:`clients.sdk`) and sees only what its seat may see.

Kinds: ``random`` (:class:`bots.random_player.RandomAgent`), ``heuristic``
(:class:`bots.heuristic.HeuristicAgent`), ``uct`` (:class:`bots.uct_agent.UCTAgent`, the
search family, configured by parameters) and ``catanatron``
(:class:`bots.catanatron_agent.CatanatronAgent`: a player of the ``catanatron`` library,
``player=module:Class``; needs the ``catanatron`` extra) and ``policy``
(:class:`bots.policy.PolicyAgent`: a policy trained in the learning environments,
``weights=FILE``; needs the ``learn`` extra) and ``expert``
(:class:`bots.value_agent.ExpertAgent`: a learned value network, searched).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a search worker imports this package; it needs no SDK or protocol
    from clients.sdk import Agent

KINDS = ("random", "heuristic", "uct", "expert", "catanatron", "policy")


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"kind"`` or ``"kind:name=value,name=value"`` as (kind, params); ValueError if
    malformed."""
    kind, _, rest = spec.partition(":")
    params: dict[str, str] = {}
    for item in filter(None, rest.split(",")):
        name, eq, value = item.partition("=")
        if not eq or not name.strip():
            raise ValueError(f"bad parameter {item!r} in {spec!r}; write name=value")
        params[name.strip()] = value.strip()
    return kind.strip(), params


def make_agent(
    kind: str, seed: int | None = None, params: Mapping[str, str] | None = None
) -> Agent:
    """A bot of a known kind with its parameters (strings, as given on a command line);
    raises ValueError naming the kinds or parameters there are."""
    params = dict(params or {})
    if kind in ("random", "heuristic"):
        if params:
            raise ValueError(f"the {kind} bot takes no parameters, not {', '.join(params)}")
        if kind == "random":
            from bots.random_player import RandomAgent

            return RandomAgent(seed)
        from bots.heuristic import HeuristicAgent

        return HeuristicAgent(seed)
    if kind == "uct":
        from bots.uct_agent import UCTAgent

        return UCTAgent.from_params(params, seed)
    if kind == "expert":
        from bots.value_agent import ExpertAgent

        return ExpertAgent.from_params(params, seed)
    if kind == "catanatron":
        try:
            from bots.catanatron_agent import CatanatronAgent
        except ImportError as exc:
            raise ValueError(
                f"the catanatron bot needs the catanatron package ({exc}); "
                "pip install '.[catanatron]'"
            ) from exc
        return CatanatronAgent.from_params(params, seed)
    if kind == "policy":
        try:
            from bots.policy import PolicyAgent
        except ImportError as exc:
            raise ValueError(
                f"the policy bot needs the learn extra ({exc}); pip install '.[learn]'"
            ) from exc
        return PolicyAgent.from_params(params, seed)
    raise ValueError(f"unknown bot kind {kind!r}; known kinds: {', '.join(KINDS)}")
