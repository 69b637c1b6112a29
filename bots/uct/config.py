"""How a search runs: :class:`SearchConfig`, its fields and its ``name=value`` form.

Beyond the budgets and the paper's switches, a configuration is a few named policies: how
the set-up is placed (:class:`SetupPolicy`), who makes the chores of discards and the
robber (:class:`ChorePolicy`), and whether the ``heuristic`` player's move stands unless
the search is sure of a better one (:class:`MovePolicy`). A setting that means something
only under another (``setup_rollouts`` under ``setup=flat``, ``margin`` under
``moves=rules_unless_sure``, ``aimed_offers`` under ``trade_optimistic``,
``greedy_rollouts`` under ``rollout_pruning``) is refused without it, the message naming
both.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from typing import TypeVar


class SetupPolicy(StrEnum):
    """How the set-up settlements and roads are placed."""

    SEARCH = "search"
    """By the tree, as every other move."""
    RULES = "rules"
    """By the ``heuristic`` player's rules (production, diversity, harbours): rollouts from
    the empty board say little about a spot."""
    FLAT = "flat"
    """The settlements by flat Monte Carlo, ``setup_rollouts`` rollouts for each of the
    worthiest spots (:func:`bots.uct.setup_wins`); the roads by the ``heuristic`` player's
    rules."""


class ChorePolicy(StrEnum):
    """Who makes the discards and moves the robber."""

    SEARCH = "search"
    """The tree."""
    RULES = "rules"
    """The ``heuristic`` player's rules (what it needs least; the leader's best hex): these
    choices are many and a small budget spreads thin over them."""


class MovePolicy(StrEnum):
    """Whose move is played once the search has run."""

    SEARCH = "search"
    """The search's pick, by the ``final`` rule."""
    RULES_UNLESS_SURE = "rules_unless_sure"
    """The ``heuristic`` player's move, unless the search's pick has a better mean by
    ``margin`` standard errors: a small budget then errs toward sound play instead of
    toward noise."""


_POLICIES: dict[str, type[StrEnum]] = {
    "SetupPolicy": SetupPolicy,
    "ChorePolicy": ChorePolicy,
    "MovePolicy": MovePolicy,
}
_Policy = TypeVar("_Policy", bound=StrEnum)

FINAL_RULES = ("auto", "visits", "mean")
"""The ways a search's move can be taken from its root statistics (``SearchConfig.final``)."""
LEAF_SCORES = ("points", "net")
"""The ways a rollout cut short can be scored (``SearchConfig.leaf``)."""
EXPERIMENTS_COMMIT = "2c07f9809239"
"""The git commit of the last version with the retired search parameters (:data:`RETIRED`)."""
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
kept results of the version at commit :data:`EXPERIMENTS_COMMIT`."""
RENAMED = {
    "heuristic_setup": "setup=rules (or setup=flat with setup_rollouts)",
    "heuristic_chores": "chores=rules",
    "heuristic_default": "moves=rules_unless_sure with margin",
}
"""Search parameters that became named policies, and what to say instead."""


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
    and production; see :func:`bots.uct.position_rewards`) instead of playing to the end (0)."""
    leaf: str = "points"
    """How a rollout cut short by ``rollout_turns`` is scored: ``points`` (points and
    production, :func:`bots.uct.position_rewards`) or ``net`` (each seat's chance to win
    as the value network reads the searching seat's view, :func:`bots.uct.network_rewards`)."""
    weights: str = ""
    """With ``leaf=net``: the network file (empty: the one shipped for the player count)."""
    setup_rollouts: int = 0
    """With ``setup=flat``: the rollouts for each of the :data:`bots.uct.SETUP_SPOTS` best
    set-up spots (:func:`bots.uct.setup_wins`), every seat's remaining set-up by the
    ``heuristic`` player's rules, then the planned policy with its chores to the end."""
    setup: SetupPolicy = SetupPolicy.SEARCH
    """Beyond the paper: how the set-up is placed (:class:`SetupPolicy`)."""
    chores: ChorePolicy = ChorePolicy.SEARCH
    """Beyond the paper: who discards and moves the robber (:class:`ChorePolicy`)."""
    moves: MovePolicy = MovePolicy.SEARCH
    """Beyond the paper: whose move is played (:class:`MovePolicy`)."""
    margin: float = 0.0
    """With ``moves=rules_unless_sure``: the standard errors of the difference by which the
    search's pick must beat the ``heuristic`` player's move to be played."""
    win_check: bool = False
    """Beyond the paper: when a line of the seat's own certain moves wins this turn, play
    it without searching (see :func:`bots.uct.winning_move`)."""
    final: str = "auto"
    """How the move is taken from the root (summed over the trees): ``visits``, the most
    visited; ``mean``, the best mean reward among the moves tried; ``auto``, ``mean`` for an
    ensemble (every tree tries every root move, so the summed means are sound; it won more
    games) and ``visits`` for one tree. See :attr:`move_rule`."""

    def __post_init__(self) -> None:
        """Raises ValueError naming a bad value, or a setting given without the one it
        depends on."""
        object.__setattr__(self, "setup", _policy(SetupPolicy, "setup", self.setup))
        object.__setattr__(self, "chores", _policy(ChorePolicy, "chores", self.chores))
        object.__setattr__(self, "moves", _policy(MovePolicy, "moves", self.moves))
        object.__setattr__(self, "final", self.final.lower())
        object.__setattr__(self, "leaf", self.leaf.lower())
        for name in ("setup_rollouts", "rollout_turns", "margin"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} cannot be negative")
        if self.rollouts < 0 or (self.time_ms is not None and self.time_ms < 0):
            raise ValueError("budgets cannot be negative")
        if not self.rollouts and not self.time_ms:
            raise ValueError("a search needs a budget: rollouts or time_ms")
        if self.cp < 0:
            raise ValueError("the exploration constant cp cannot be negative")
        if self.trees < 1 or self.processes < 1:
            raise ValueError("trees and processes must be at least 1")
        if self.leaf not in LEAF_SCORES:
            raise ValueError(f"unknown leaf score {self.leaf!r}; known: {', '.join(LEAF_SCORES)}")
        if self.final not in FINAL_RULES:
            raise ValueError(f"unknown final rule {self.final!r}; known: {', '.join(FINAL_RULES)}")
        self._check_dependencies()

    def _check_dependencies(self) -> None:
        """Raises ValueError for a setting given without the one it depends on."""
        flat = self.setup is SetupPolicy.FLAT
        if self.setup_rollouts and not flat:
            raise ValueError(
                f"setup_rollouts={self.setup_rollouts} needs setup=flat, not "
                f"setup={self.setup} (give setup_rollouts=0 with setup={self.setup})"
            )
        if flat and not self.setup_rollouts:
            raise ValueError("setup=flat needs setup_rollouts, the rollouts for each spot")
        sure = self.moves is MovePolicy.RULES_UNLESS_SURE
        if self.margin and not sure:
            raise ValueError(
                f"margin={self.margin:g} needs moves=rules_unless_sure, not "
                f"moves={self.moves} (give margin=0 with moves={self.moves})"
            )
        if sure and not self.margin:
            raise ValueError(
                "moves=rules_unless_sure needs margin, the standard errors by which the "
                "search must beat the rules' move"
            )
        if self.aimed_offers and not self.trade_optimistic:
            raise ValueError("aimed_offers=true needs trade_optimistic=true")
        net = self.leaf == "net"
        if net and not self.rollout_turns:
            raise ValueError("leaf=net needs rollout_turns, the turns after which it scores")
        if self.weights and not net:
            raise ValueError(f"weights needs leaf=net, not leaf={self.leaf}")
        if self.greedy_rollouts and not self.rollout_pruning:
            raise ValueError("greedy_rollouts=true needs rollout_pruning=true")

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
        """A config from ``name=value`` strings (booleans: true/false, 1/0, yes/no; policies
        by their values' names), over ``base`` (else the defaults). Raises ValueError naming
        an unknown, retired or renamed parameter, a bad value, or a setting given without
        the one it depends on."""
        known = {f.name: f for f in fields(cls)}
        values: dict[str, object] = {}
        for name, raw in params.items():
            f = known.get(name)
            if name in RETIRED:
                raise ValueError(
                    f"the search parameter {name!r} was retired, having measured no gain; "
                    f"the version at commit {EXPERIMENTS_COMMIT} still has it "
                    f"(git checkout {EXPERIMENTS_COMMIT})"
                )
            if name in RENAMED:
                raise ValueError(f"the search parameter {name!r} is now {RENAMED[name]}")
            if f is None:
                raise ValueError(f"unknown search parameter {name!r}; known: {', '.join(known)}")
            values[name] = parse_param(name, raw, str(f.type))
        return replace(base or cls(), **values)  # type: ignore[arg-type]


def _policy(kind: type[_Policy], name: str, value: str) -> _Policy:
    """``value`` as a policy of ``kind``; raises ValueError naming ``name`` and the known
    values if it is none."""
    try:
        return kind(value)
    except ValueError:
        known = ", ".join(kind)
        raise ValueError(f"unknown {name} policy {value!r}; known: {known}") from None


def parse_param(name: str, raw: str, kind: str) -> object:
    """A parameter's text as a value of its field's type (``kind``: "bool", "int",
    "float", "float | None", "str", or one of the policies); ValueError naming it."""
    text = raw.strip().lower()
    policy = _POLICIES.get(kind)
    if policy is not None:
        return _policy(policy, name, text)
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
            return raw.strip()
    except ValueError:
        pass
    raise ValueError(f"bad value {raw!r} for {name} ({kind})")
