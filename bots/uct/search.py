"""One UCT tree over one determinized state (:class:`Search`), its root statistics
(:class:`RootStats`) and move pruning (Algorithm 1)."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bots.playout import rollout
from bots.uct.config import SearchConfig
from bots.uct.evaluation import network_rewards, position_rewards
from bots.uct.trades import PRICES, assume_trades
from engine import rules
from engine.actions import Action, BuildCity, BuildSettlement, BuyDevCard, MoveRobber, RollDice
from engine.state import Answer, GameState, Phase

_MAIN = int(Phase.MAIN)
_DISCARD = int(Phase.DISCARD)
_TRADE = int(Phase.TRADE)
_OVER = int(Phase.GAME_OVER)
_PENDING = int(Answer.PENDING)


def actor(state: GameState) -> int:
    """The seat whose choice a tree node stands for: a seat owing a discard, a seat yet to
    answer the open offer (before the offerer decides), or the current seat."""
    phase = state.phase
    if phase == _DISCARD:
        owed = state.owed
        for q in range(state.n):
            if owed[q]:
                return q
    elif phase == _TRADE:
        answers = state.answers
        for q in range(state.n):
            if answers[q] == _PENDING:
                return q
    return state.current


def pruned_actions(state: GameState, seat: int, prune: bool) -> list[Action]:
    """The seat's legal actions; with ``prune``, only cities if any, else only settlements
    if any, else all."""
    actions = rules.legal_actions(state, seat)
    if prune and state.phase == _MAIN:
        cities: list[Action] = [a for a in actions if type(a) is BuildCity]
        if cities:
            return cities
        settlements: list[Action] = [a for a in actions if type(a) is BuildSettlement]
        if settlements:
            return settlements
    return actions


class Node:
    """A decision point: the seat choosing, its actions, and per action the visits, the
    summed reward (for that seat) and the child (a node, or a dict of them by chance
    outcome)."""

    __slots__ = ("actions", "children", "seat", "total", "untried", "visits", "wins")

    def __init__(self, seat: int, actions: list[Action], rnd: random.Random) -> None:
        self.seat = seat
        self.actions = actions
        k = len(actions)
        self.untried = list(range(k))
        rnd.shuffle(self.untried)
        self.visits = [0.0] * k
        self.wins = [0.0] * k
        self.children: list[Node | dict[int, Node] | None] = [None] * k
        self.total = 0.0


def _is_chance(action: Action) -> bool:
    t = type(action)
    return t is RollDice or t is BuyDevCard or (t is MoveRobber and action.victim is not None)  # type: ignore[union-attr]


def _play(state: GameState, action: Action) -> int:
    """Apply ``action``; for a chance action, also say which outcome chance chose."""
    if not _is_chance(action):
        rules.advance(state, action)
        return 0
    seat = action.seat
    b = seat * 5
    before = state.hand[b : b + 5] + state.dev[b : b + 5]
    rules.advance(state, action)
    if type(action) is RollDice:
        d = state.dice
        assert d is not None
        return d[0] + d[1]
    after = state.hand[b : b + 5] + state.dev[b : b + 5]
    for i in range(10):
        if after[i] > before[i]:
            return i + 1
    return -1  # nothing gained (a victim without cards)


@dataclass
class RootStats:
    """Per root action: visits and summed reward for the searching seat."""

    visits: dict[Action, float]
    wins: dict[Action, float]
    rollouts: int = 0

    def add(self, other: RootStats) -> None:
        """Equation 2: sum another tree's root statistics into these."""
        for a, n in other.visits.items():
            self.visits[a] = self.visits.get(a, 0.0) + n
            self.wins[a] = self.wins.get(a, 0.0) + other.wins[a]
        self.rollouts += other.rollouts

    def best(self, rule: str = "visits") -> Action:
        """The most visited action (ties: the better mean), or with ``rule`` "mean" the
        best mean among the actions tried (ties: more visits)."""
        if rule == "mean" and any(self.visits.values()):
            return max(
                (a for a, n in self.visits.items() if n),
                key=lambda a: (self.mean(a), self.visits[a]),
            )
        return max(
            self.visits,
            key=lambda a: (
                self.visits[a],
                self.wins[a] / self.visits[a] if self.visits[a] else 0.0,
            ),
        )

    def mean(self, action: Action) -> float:
        n = self.visits.get(action, 0.0)
        return self.wins.get(action, 0.0) / n if n else 0.0

    def best_over(self, default: Action | None, z: float, rule: str = "visits") -> Action:
        """The best action by ``rule`` (see :meth:`best`) if its mean beats ``default``'s by
        ``z`` standard errors of the difference (or ``default`` was not searched, or ``z`` is
        0), else ``default``."""
        best = self.best(rule)
        if not z or default is None or default == best or not self.visits.get(default):
            return best
        n_best, n_default = self.visits[best], self.visits[default]
        p_best, p_default = self.mean(best), self.mean(default)
        se = math.sqrt(_variance(p_best) / n_best + _variance(p_default) / n_default)
        return best if p_best - p_default > z * se else default


def _variance(p: float) -> float:
    """A Bernoulli variance, kept off zero so that a few equal results still leave doubt."""
    p = min(max(p, 0.05), 0.95)
    return p * (1.0 - p)


class Search:
    """One UCT tree over one determinized state, searching for ``seat``."""

    def __init__(
        self,
        state: GameState,
        seat: int,
        config: SearchConfig,
        rnd: random.Random,
        root_actions: Sequence[Action] | None = None,
        optimistic: Sequence[Action] = (),
    ) -> None:
        self.state = state
        self.seat = seat
        self.config = config
        self.rnd = rnd
        actions = (
            list(root_actions)
            if root_actions is not None
            else pruned_actions(state, seat, config.pruning)
        )
        self.optimistic = set(optimistic)
        actions.extend(a for a in optimistic if a not in actions)
        self.root = Node(seat, actions, rnd)
        self.rollouts = 0
        self.cp = config.cp
        self.vw = config.virtual_wins
        self.cut: Callable[[GameState], list[float]] = position_rewards
        if config.leaf == "net":
            scorer = network_rewards(config.weights, state.n)
            self.cut = lambda s: scorer(s, seat)

    def run(self, rollouts: int, deadline: float | None) -> RootStats:
        """Iterate until ``rollouts`` more iterations (0: no limit) or the deadline."""
        if len(self.root.actions) > 1:
            clock = time.monotonic
            done = 0
            while (not rollouts or done < rollouts) and (deadline is None or clock() < deadline):
                self.iterate()
                done += 1
                if not rollouts and deadline is None:  # pragma: no cover - guarded by config
                    break
        root = self.root
        stats = RootStats(
            visits={a: root.visits[i] for i, a in enumerate(root.actions)},
            wins={a: root.wins[i] for i, a in enumerate(root.actions)},
            rollouts=self.rollouts,
        )
        if len(root.actions) == 1:
            stats.visits[root.actions[0]] = 1.0
        return stats

    def iterate(self) -> None:
        """Selection, expansion, one rollout and backpropagation."""
        rnd = self.rnd
        state = self.state.copy()
        state.rng = rnd.getrandbits(64)
        node = self.root
        path: list[tuple[Node, int]] = []
        cp = self.cp
        prune = self.config.pruning
        winner = -2
        while True:
            if state.phase == _OVER:
                winner = state.winner
                break
            actions = node.actions
            if not actions:  # pragma: no cover - a live state always has an action
                break
            if node.untried:
                i = node.untried.pop()
                expanding = True
            else:
                i = _select(node, cp)
                expanding = False
            action = actions[i]
            path.append((node, i))
            if node is self.root and action in self.optimistic:
                price = PRICES[type(action)]
                if not assume_trades(state, self.seat, price):
                    winner = -1  # the trades cannot be made in this guess of the hands
                    break
            outcome = _play(state, action)
            child = node.children[i]
            if _is_chance(action):
                if child is None:
                    child = node.children[i] = {}
                assert isinstance(child, dict)
                nxt = child.get(outcome)
                if nxt is None:
                    nxt = child[outcome] = self._node(state, prune)
                    expanding = True
            else:
                if child is None:
                    child = node.children[i] = self._node(state, prune)
                assert isinstance(child, Node)
                nxt = child
            if expanding:
                if self.vw:
                    _virtual_wins(node, i)
                break
            node = nxt
        config = self.config
        if winner == -2:
            winner = rollout(
                state,
                rnd,
                config.rollout_pruning,
                config.greedy_rollouts,
                config.rollout_turns,
            )
        self.rollouts += 1
        shares = self.cut(state) if winner == -2 else None
        for n, i in path:
            n.total += 1.0
            n.visits[i] += 1.0
            if shares is not None:
                if n.seat >= 0:
                    n.wins[i] += shares[n.seat]
            elif n.seat == winner:
                n.wins[i] += 1.0

    def _node(self, state: GameState, prune: bool) -> Node:
        if state.phase == _OVER:
            return Node(-1, [], self.rnd)
        seat = actor(state)
        return Node(seat, pruned_actions(state, seat, prune), self.rnd)


def _virtual_wins(node: Node, i: int) -> None:
    t = type(node.actions[i])
    bonus = 20.0 if t is BuildSettlement else 10.0 if t is BuildCity else 0.0
    if bonus and node.visits[i] == 0.0:
        node.visits[i] += bonus
        node.wins[i] += bonus
        node.total += bonus


def _select(node: Node, cp: float) -> int:
    """Equation 1 over the node's tried actions."""
    log_n = math.log(node.total) if node.total > 1.0 else 0.0
    best = -1.0
    pick = 0
    visits = node.visits
    wins = node.wins
    for i in range(len(visits)):
        n = visits[i]
        score = wins[i] / n + cp * math.sqrt(log_n / n)
        if score > best:
            best = score
            pick = i
    return pick
