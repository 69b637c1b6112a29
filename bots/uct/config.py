"""How a search runs: :class:`SearchConfig`, its fields and its ``name=value`` form."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace

FINAL_RULES = ("auto", "visits", "mean")
"""The ways a search's move can be taken from its root statistics (``SearchConfig.final``)."""
EXPERIMENTS_TAG = "experiments-2026-11"
"""The git tag of the last version with the retired search parameters (:data:`RETIRED`)."""
RETIRED = frozenset(
    {
        "counter_offers",
        "determinizations",
        "fitted_score",
        "opponent_model",
        "planned_chores",
        "planned_rollouts",
        "setup_pruning",
        "setup_roads",
        "trade_guard",
    }
)
"""Search parameters that measured no gain and are gone; the ladders that name them are
kept results of the version tagged :data:`EXPERIMENTS_TAG`."""


@dataclass(frozen=True)
class SearchConfig:
    """How one search runs. ``rollouts`` and ``time_ms`` bound it (0 or None: no bound
    of that kind; at least one must be set)."""

    rollouts: int = 1000
    time_ms: float | None = None
    cp: float = 0.25
    pruning: bool = True
    rollout_pruning: bool = True
    virtual_wins: bool = False
    trees: int = 1
    """Ensemble size p: independent trees, each with 1/p of the rollouts."""
    processes: int = 1
    """Processes the trees run in (at most ``trees``)."""
    trade_optimistic: bool = False
    aimed_offers: bool = False
    """Beyond the paper: each trade-optimistic 1:1 offer swaps the spare card and the
    lacking card that the other seats are most likely to take, by their beliefs' hands and
    their likely next builds, instead of a random pair; a declined swap is not offered
    again that turn, and up to two more offers may follow the paper's one per lacking card
    (see :meth:`bots.uct_agent.UCTAgent._aimed`)."""
    greedy_rollouts: bool = False
    """Beyond the paper: a greedier rollout policy than uniform random (see
    :func:`bots.playout.rollout`)."""
    rollout_turns: int = 0
    """Beyond the paper: end a rollout after this many turns and score the position (points
    and production; see :func:`position_rewards`) instead of playing to the end (0)."""
    setup_rollouts: int = 0
    """Beyond the paper: place each set-up settlement by flat Monte Carlo instead (see
    :func:`setup_wins`): this many rollouts for each of the :data:`SETUP_SPOTS` best spots,
    every seat's remaining set-up by the ``heuristic`` player's rules, then the planned
    policy with its chores to the end (0: off)."""
    heuristic_setup: bool = False
    """Beyond the paper: place the set-up settlements and roads by the ``heuristic``
    player's rules (production, diversity, harbours) instead of searching: rollouts from
    the empty board say little about a spot."""
    heuristic_default: float = 0.0
    """Beyond the paper: play the ``heuristic`` player's choice unless the search's own
    pick has a better mean by this many standard errors (0: always the search's pick). A
    small budget then errs toward sound play instead of toward noise."""
    win_check: bool = False
    """Beyond the paper: when a line of the seat's own certain moves wins this turn, play
    it without searching (see :func:`winning_move`)."""
    heuristic_chores: bool = False
    """Beyond the paper: discard and move the robber by the ``heuristic`` player's rules
    (what it needs least; the leader's best hex) instead of searching: these choices are
    many and a small budget spreads thin over them."""
    final: str = "auto"
    """How the move is taken from the root (summed over the trees): ``visits``, the most
    visited; ``mean``, the best mean reward among the moves tried; ``auto``, ``mean`` for an
    ensemble (every tree tries every root move, so the summed means are sound; it won more
    games) and ``visits`` for one tree. See :attr:`move_rule`."""

    def __post_init__(self) -> None:
        if min(self.setup_rollouts, self.rollout_turns) < 0:
            raise ValueError("setup_rollouts and rollout_turns cannot be negative")
        if self.rollouts < 0 or (self.time_ms is not None and self.time_ms < 0):
            raise ValueError("budgets cannot be negative")
        if not self.rollouts and not self.time_ms:
            raise ValueError("a search needs a budget: rollouts or time_ms")
        if self.cp < 0:
            raise ValueError("the exploration constant cp cannot be negative")
        if self.trees < 1 or self.processes < 1:
            raise ValueError("trees and processes must be at least 1")
        if self.final not in FINAL_RULES:
            raise ValueError(f"unknown final rule {self.final!r}; known: {', '.join(FINAL_RULES)}")

    @property
    def move_rule(self) -> str:
        """The final-move rule in force: ``final``, with ``auto`` resolved by ``trees``."""
        if self.final != "auto":
            return self.final
        return "mean" if self.trees > 1 else "visits"

    @classmethod
    def from_params(
        cls, params: Mapping[str, str], base: SearchConfig | None = None
    ) -> SearchConfig:
        """A config from ``name=value`` strings (booleans: true/false, 1/0, yes/no). Raises
        ValueError naming an unknown or retired parameter, or a bad value."""
        known = {f.name: f for f in fields(cls)}
        values: dict[str, object] = {}
        for name, raw in params.items():
            f = known.get(name)
            if name in RETIRED:
                raise ValueError(
                    f"the search parameter {name!r} was retired, having measured no gain; "
                    f"the version tagged {EXPERIMENTS_TAG} still has it"
                )
            if f is None:
                raise ValueError(f"unknown search parameter {name!r}; known: {', '.join(known)}")
            values[name] = _parse(name, raw, str(f.type))
        return replace(base or cls(), **values)  # type: ignore[arg-type]


def _parse(name: str, raw: str, kind: str) -> object:
    text = raw.strip().lower()
    try:
        if kind == "bool":
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise ValueError(raw)
        if kind == "int":
            return int(text)
        if kind == "float":
            return float(text)
        if kind == "float | None":
            return None if text in ("", "none", "0") else float(text)
        if kind == "str":
            return text
    except ValueError:
        pass
    raise ValueError(f"bad value {raw!r} for {name} ({kind})")
