"""Monte Carlo tree search with UCB1 (UCT) on engine states, after "Optimizing UCT for
Settlers of Catan" (the paper in the project's reference documents).

One search, configured by :class:`SearchConfig`:

* **Plain UCT**: selection by Equation 1, ``mean + Cp * sqrt(ln N / n)``, maximising the
  reward of the seat that acts at each node (every seat plays for itself); expansion of one
  untried action at a time; a random rollout to the end of the game; reward 1 to the winner.
* **Virtual wins** (Szita et al.): a new child for a settlement starts with 20 visits and 20
  wins, a city with 10.
* **Move pruning** (Algorithm 1): where a city can be built only cities are considered,
  else where a settlement can be built only settlements, else every legal action. In the
  tree (``pruning``) and in the rollouts (``rollout_pruning``) independently.
* **Chance nodes** (sparse UCT): dice, development card draws and robber steals lead to one
  child per outcome; every iteration reseeds the state's random generator, so outcomes are
  drawn from the game's true distribution as the iteration passes them. Always on.
* **Ensemble UCT**: ``trees`` independent trees whose root statistics are summed
  (Equation 2); :mod:`bots.ensemble` runs them in separate processes. Each tree searches its
  own determinization (its own guess at the hidden cards).
* **Trade-optimistic moves** (Algorithm 2, at the root only): builds the seat cannot afford
  but could after 1:1 trades (as many cards as the price) count as moves; in the search the
  trades are taken as done, with the missing cards coming from opponents who hold them (else
  the bank).
* A budget in rollouts and/or milliseconds; whichever ends first.

The move finally chosen is, for an ensemble, the root child with the best summed mean (the
paper's BESTCHILD on the merged root), and for one tree the most visited (ties: the better
mean); ``final`` overrides either.
"""

from __future__ import annotations

import math
import operator
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace

from bots.playout import policy_move, resource_dots, rollout, setup_move, spot_worth
from engine import rules
from engine.actions import (
    Action,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    MaritimeTrade,
    MoveRobber,
    PlayKnight,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    RollDice,
)
from engine.constants import (
    CITY_COST,
    DEV_CARD_COST,
    DICE_DOTS,
    ROAD_COST,
    SETTLEMENT_COST,
    DevCard,
)
from engine.state import Answer, GameState, Phase

_MAIN = int(Phase.MAIN)
_ROAD_BUILDING = int(Phase.ROAD_BUILDING)
_SETUP_SETTLEMENT = int(Phase.SETUP_SETTLEMENT)
_SETUP_PHASES = (_SETUP_SETTLEMENT, int(Phase.SETUP_ROAD))
_DISCARD = int(Phase.DISCARD)
_TRADE = int(Phase.TRADE)
_OVER = int(Phase.GAME_OVER)
_PENDING = int(Answer.PENDING)
_VICTORY_CARD = int(DevCard.VICTORY_POINT)
FINAL_RULES = ("auto", "visits", "mean")
"""The ways a search's move can be taken from its root statistics (``SearchConfig.final``)."""
PRICES: dict[type, tuple[int, ...]] = {
    BuildCity: CITY_COST,
    BuildSettlement: SETTLEMENT_COST,
    BuildRoad: ROAD_COST,
    BuyDevCard: DEV_CARD_COST,
}


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
    counter_offers: bool = False
    trade_guard: int = 0
    """Beyond the paper: make the trade-optimistic 1:1 offers only to seats whose public
    points are more than this many short of the win, and confirm with no other (0: offer
    to everyone). Every accepted 1:1 offer helps the seat that takes it."""
    aimed_offers: bool = False
    """Beyond the paper: each trade-optimistic 1:1 offer swaps the spare card and the
    lacking card that the other seats are most likely to take, by their beliefs' hands and
    their likely next builds, instead of a random pair; a declined swap is not offered
    again that turn, and up to two more offers may follow the paper's one per lacking card
    (see :meth:`bots.uct_agent.UCTAgent._aimed`)."""
    determinizations: int = 1
    """Guesses at the hidden cards per tree's search (the tree restarts from each)."""
    greedy_rollouts: bool = False
    """Beyond the paper: a greedier rollout policy than uniform random (see
    :func:`bots.playout.rollout`)."""
    planned_rollouts: bool = False
    """Beyond the paper: rollouts play the ``heuristic`` player's priorities (the best
    city or settlement spot, a development card when the next build is far, roads only
    when no spot is left, bank trades toward the next build) instead of random moves (see
    :func:`bots.playout.rollout`)."""
    planned_chores: bool = False
    """Beyond the paper, with ``planned_rollouts``: rollouts also move the robber, discard
    and play a knight before the roll by the ``heuristic`` player's rules (the leader's
    best hex, never one's own; what the next build needs least; a knight when the robber
    blocks one's own good hex) instead of at random (see :func:`bots.playout._chore`)."""
    opponent_model: bool = False
    """Beyond the paper: in the tree, the other seats do not branch over their moves but
    make the one the planned rollout policy with its chores picks (the ``heuristic``
    player's priorities and rules; :func:`bots.playout.policy_move`), where it has a rule.
    About half of a tree's visits pass through other seats' nodes, where plain UCT expects
    each seat's best reply for itself; against players who follow such rules, their one
    move is the truer forecast. It did not make ``medium`` stronger (docs/results.md)."""
    rollout_turns: int = 0
    """Beyond the paper: end a rollout after this many turns and score the position (points
    and production; see :func:`position_rewards`) instead of playing to the end (0)."""
    fitted_score: bool = False
    """Beyond the paper: score cut rollouts by the model fitted to self-play
    (:data:`POSITION_WEIGHTS`) instead of by points and production."""
    setup_pruning: int = 0
    """Beyond the paper: in the set-up, consider only this many settlement spots, the best
    by dice dots and new resources (0: all)."""
    setup_rollouts: int = 0
    """Beyond the paper: place each set-up settlement by flat Monte Carlo instead (see
    :func:`setup_wins`): this many rollouts for each of the ``setup_pruning`` best spots
    (:data:`SETUP_SPOTS` when 0), every seat's remaining set-up by the ``heuristic``
    player's rules, then the planned policy with its chores to the end (0: off)."""
    setup_roads: bool = False
    """Beyond the paper: with ``setup_rollouts``, place each set-up road the same way, that
    many rollouts for each legal road, instead of by the ``heuristic`` player's rules."""
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
        if min(self.setup_pruning, self.setup_rollouts, self.rollout_turns, self.trade_guard) < 0:
            raise ValueError(
                "setup_pruning, setup_rollouts, rollout_turns and trade_guard cannot be negative"
            )
        if self.rollouts < 0 or (self.time_ms is not None and self.time_ms < 0):
            raise ValueError("budgets cannot be negative")
        if not self.rollouts and not self.time_ms:
            raise ValueError("a search needs a budget: rollouts or time_ms")
        if self.cp < 0:
            raise ValueError("the exploration constant cp cannot be negative")
        if self.trees < 1 or self.processes < 1 or self.determinizations < 1:
            raise ValueError("trees, processes and determinizations must be at least 1")
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
        """A config from ``name=value`` strings (booleans: true/false, 1/0, yes/no)."""
        known = {f.name: f for f in fields(cls)}
        values: dict[str, object] = {}
        for name, raw in params.items():
            f = known.get(name)
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


# ======================================================================================
# Move pruning (Algorithm 1)
# ======================================================================================


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


def spot_value(state: GameState, seat: int, v: int) -> float:
    """A set-up spot's worth to a seat: the dice dots of its hexes, plus 2.5 for each
    resource the seat does not produce yet."""
    board = state.board
    topo = state.topo
    have = {board.terrain[h] for w in state.pbuild[seat] for h in topo.vertex_hexes[w]}
    value = 0.0
    for h in topo.vertex_hexes[v]:
        r = board.terrain[h]
        if r < 5:
            value += DICE_DOTS.get(board.tokens[h], 0)
            if r not in have:
                value += 2.5
                have.add(r)
    return value


def setup_spots(state: GameState, seat: int, keep: int) -> list[Action]:
    """The ``keep`` best set-up settlement spots (ties by vertex id)."""
    spots = rules.setup_settlement_spots(state)
    best = sorted(spots, key=lambda v: (-spot_value(state, seat, v), v))[:keep]
    table = state.acts[seat].place_settlement
    return [table[v] for v in sorted(best)]


SETUP_SPOTS = 8
"""How many set-up spots :func:`setup_wins` weighs unless ``setup_pruning`` says."""


def setup_wins(
    state: GameState,
    seat: int,
    rollouts: int,
    keep: int,
    rnd: random.Random,
    deadline: float | None = None,
) -> dict[Action, int]:
    """Flat Monte Carlo over the seat's set-up placements (``setup_rollouts``): when a
    settlement is due, the ``keep`` spots of most worth (:func:`bots.playout.spot_worth`,
    best first); when a road is due (``setup_roads``), every legal road. Each is placed,
    every seat's remaining set-up is played by the ``heuristic`` player's rules
    (:func:`bots.playout.setup_move`), then up to ``rollouts`` games are played on from
    there by the planned policy with its chores. The seat's wins for each placement. The
    placements take turns, so a ``time.monotonic()`` deadline leaves them evenly sampled."""
    if state.phase == _SETUP_SETTLEMENT:
        dots = resource_dots(state, seat)
        table = state.acts[seat].place_settlement
        spots = sorted(
            rules.setup_settlement_spots(state), key=lambda v: (-spot_worth(state, dots, v), v)
        )[:keep]
        candidates: list[Action] = [table[v] for v in spots]
    else:
        candidates = rules.legal_actions(state, seat)
    starts: list[tuple[Action, GameState]] = []
    for action in candidates:
        start = state.copy()
        rules.advance(start, action)
        while start.phase in _SETUP_PHASES:
            rules.advance(start, setup_move(start, rnd))
        starts.append((action, start))
    wins = {action: 0 for action, _ in starts}
    for _ in range(rollouts):
        if deadline is not None and time.monotonic() >= deadline:
            break
        for action, start in starts:
            game = start.copy()
            game.rng = rnd.getrandbits(64)
            if rollout(game, rnd, True, planned=True, chores=True) == seat:
                wins[action] += 1
    return wins


def pruned_actions(state: GameState, seat: int, prune: bool, setup_keep: int = 0) -> list[Action]:
    """The seat's legal actions; with ``prune``, only cities if any, else only settlements
    if any, else all; with ``setup_keep``, only that many set-up settlement spots."""
    if setup_keep and state.phase == _SETUP_SETTLEMENT:
        return setup_spots(state, seat, setup_keep)
    actions = rules.legal_actions(state, seat)
    if prune and state.phase == _MAIN:
        cities: list[Action] = [a for a in actions if type(a) is BuildCity]
        if cities:
            return cities
        settlements: list[Action] = [a for a in actions if type(a) is BuildSettlement]
        if settlements:
            return settlements
    return actions


POSITION_WEIGHTS = (0.125, 0.831, 0.582, 0.106, 0.361, 0.123, 0.0953, 0.0702, 0.639, -0.395)
"""The weights of :func:`position_features` in :func:`position_rewards` (``fitted``): a
conditional logit fitted to who won 3,000 games of four ``heuristic`` players from every
turn's start (``benchmarks/position_eval.py`` refits them and prints how well each model
predicts)."""
HAND_CAP = 7
"""Cards past this many in a hand count for nothing in a position's score (random
rollouts hoard cards that real play would have spent or lost to a seven)."""


def position_features(state: GameState, seat: int, leader: int | None = None) -> tuple[float, ...]:
    """What a seat's position is scored on when a rollout is cut short, in the order of
    :data:`POSITION_WEIGHTS`: victory points (hidden ones included); production, the dice
    dots its buildings touch (cities twice, the robber's hex not at all) over 12; the kinds
    of resource it produces; cards in hand (at most :data:`HAND_CAP`); development cards
    held other than victory points; knights played; longest road; resources it trades at
    better than 4:1; and the first two times the leader's points over 10 (``leader``: those
    points, if known)."""
    kinds: set[int] = set()
    dots = _production(state, seat, kinds) / 12.0
    p = seat * 5
    dev = state.dev
    points = state.victory_points(seat)
    if leader is None:
        leader = max(state.victory_points(q) for q in range(state.n))
    top = leader / 10.0
    return (
        float(points),
        dots,
        float(len(kinds)),
        float(min(sum(state.hand[p : p + 5]), HAND_CAP)),
        float(sum(dev[p : p + 5]) - dev[p + _VICTORY_CARD]),
        float(state.knights[seat]),
        float(state.road_len[seat]),
        float(sum(1 for r in state.ratio[p : p + 5] if r < 4)),
        points * top,
        dots * top,
    )


def _production(state: GameState, seat: int, kinds: set[int] | None = None) -> int:
    """The dice dots a seat's buildings touch, cities twice, the robber's hex not at all;
    ``kinds`` collects the terrains of every numbered hex they touch, robbed or not."""
    tokens = state.board.tokens
    terrain = state.board.terrain
    hexes = state.topo.vertex_hexes
    robber = state.robber
    vlevel = state.vlevel
    dots = 0
    for v in state.pbuild[seat]:
        level = vlevel[v]
        for h in hexes[v]:
            d = DICE_DOTS.get(tokens[h], 0)
            if d:
                if kinds is not None:
                    kinds.add(terrain[h])
                if h != robber:
                    dots += level * d
    return dots


def position_rewards(state: GameState, fitted: bool = False) -> list[float]:
    """Each seat's share of a position cut short: a softmax over the seats' scores. The
    score is victory points (hidden ones included) plus production, the dice dots the
    seat's buildings touch (cities twice, the robber's hex not at all) over 12; or, with
    ``fitted``, :data:`POSITION_WEIGHTS` times its :func:`position_features`, which makes
    the shares the fitted model's chances of winning."""
    n = state.n
    if fitted:
        leader = max(state.victory_points(q) for q in range(n))
        scores = [
            sum(map(operator.mul, POSITION_WEIGHTS, position_features(state, q, leader)))
            for q in range(n)
        ]
    else:
        scores = [state.victory_points(q) + _production(state, q) / 12.0 for q in range(n)]
    top = max(scores)
    weights = [math.exp(x - top) for x in scores]
    total = sum(weights)
    return [w / total for w in weights]


# ======================================================================================
# Trade-optimistic moves (Algorithm 2)
# ======================================================================================


def optimistic_moves(state: GameState, seat: int) -> list[Action]:
    """Builds the seat cannot afford now but has as many cards as the price for, where the
    board allows them (Algorithm 2, GETTRADEOPTIMISTICMOVES)."""
    if state.phase != _MAIN or state.current != seat:
        return []
    t = state.acts[seat]
    b = seat * 5
    hand = state.hand[b : b + 5]
    size = sum(hand)
    out: list[Action] = []

    def short(price: tuple[int, ...]) -> bool:
        return size >= sum(price) and any(h < c for h, c in zip(hand, price, strict=True))

    if short(CITY_COST) and state.cities_left[seat]:
        out.extend(t.build_city[v] for v in state.pbuild[seat] if state.vlevel[v] == 1)
    if short(SETTLEMENT_COST) and state.settlements_left[seat]:
        out.extend(t.build_settlement[v] for v in rules.settlement_spots(state, seat))
    if short(ROAD_COST) and state.roads_left[seat]:
        out.extend(t.build_road[e] for e in rules.road_spots(state, seat))
    if short(DEV_CARD_COST) and any(state.deck):
        out.append(t.buy_dev)
    return out


def missing(hand: Sequence[int], price: Sequence[int]) -> tuple[list[int], list[int]]:
    """(cards lacking for the price, spare cards beyond it), each a list of resources."""
    lack = [r for r in range(5) for _ in range(max(0, price[r] - hand[r]))]
    spare = [r for r in range(5) for _ in range(max(0, hand[r] - price[r]))]
    return lack, spare


def trade_partners(points: Sequence[int], seat: int, target: int, guard: int) -> list[int]:
    """The seats ``seat`` may trade with under ``guard`` (``SearchConfig.trade_guard``):
    every other seat, or with a guard only those whose public ``points`` are more than
    ``guard`` short of ``target``, the points that win."""
    return [
        q for q in range(len(points)) if q != seat and (not guard or points[q] < target - guard)
    ]


def assume_trades(state: GameState, seat: int, price: Sequence[int], guard: int = 0) -> bool:
    """Make the seat able to pay ``price`` by 1:1 swaps of spare cards for lacking ones,
    with the opponent holding most of the lacking card (else the bank); with ``guard``
    (``SearchConfig.trade_guard``), only opponents more than that many public points short
    of the win, and no trade at all if there is none. False if impossible. Deterministic,
    so that one tree node always stands for one state."""
    b = seat * 5
    hand = state.hand
    lack, spare = missing(hand[b : b + 5], price)
    if len(spare) < len(lack):
        return False
    spare.sort(key=lambda r: (-(hand[b + r] - price[r]), r))  # the most plentiful first
    partners = trade_partners(state.vp, seat, state.config.victory_points, guard)
    if not partners:
        return False
    for want, give in zip(lack, spare, strict=False):
        q = max(partners, key=lambda q: (hand[q * 5 + want], -q))
        if hand[q * 5 + want]:
            hand[q * 5 + want] -= 1
            hand[q * 5 + give] += 1
        elif state.bank[want]:
            state.bank[want] -= 1
            state.bank[give] += 1
        else:
            return False
        hand[b + want] += 1
        hand[b + give] -= 1
    return True


WIN_LINE_NODES = 4000
"""How many positions :func:`winning_move` may look at before it gives up."""
WIN_LINE_REACH = 4
""":func:`winning_move` looks only when the seat is at most this many points from the
target: more than any line of builds and awards could plausibly bring in one turn."""
_LINE_ORDER = {
    BuildCity: 0,
    BuildSettlement: 1,
    PlayKnight: 2,
    PlayYearOfPlenty: 3,
    PlayRoadBuilding: 4,
    BuildRoad: 5,
    MaritimeTrade: 6,
}
"""The seat's own moves whose outcome is certain (a knight only when it wins at once: the
steal after it is chance), in the order :func:`winning_move` tries them."""


def winning_move(state: GameState, seat: int, max_nodes: int = WIN_LINE_NODES) -> Action | None:
    """The first move of a line of the seat's own certain moves (builds, bank and harbour
    trades, year of plenty, road building, a knight that takes the largest army) that wins
    the game this turn, or None when it found none within ``max_nodes`` positions. Only
    its own cards and the public board count, so any guess at the hidden cards will do.
    Beyond the paper: the search values a win now and a likely win later alike."""
    if state.phase not in (_MAIN, _ROAD_BUILDING) or state.current != seat:
        return None
    if state.victory_points(seat) + WIN_LINE_REACH < state.config.victory_points:
        return None
    b = seat * 5
    seen: set[tuple[object, ...]] = set()
    left = [max_nodes]

    def first(s: GameState) -> Action | None:
        moves = [a for a in rules.legal_actions(s, seat) if type(a) in _LINE_ORDER]
        moves.sort(key=lambda a: _LINE_ORDER[type(a)])
        for a in moves:
            if left[0] <= 0:
                return None
            left[0] -= 1
            c = s.copy()
            rules.advance(c, a)
            if c.phase == _OVER:
                if c.winner == seat:
                    return a
                continue
            if type(a) is PlayKnight or c.phase not in (_MAIN, _ROAD_BUILDING):
                continue
            key = (
                c.phase,
                tuple(c.hand[b : b + 5]),
                tuple(c.dev[b : b + 5]),
                c.dev_played,
                c.free_roads,
                frozenset(c.proads[seat]),
                tuple((v, c.vlevel[v]) for v in c.pbuild[seat]),
            )
            if key in seen:
                continue
            seen.add(key)
            if first(c) is not None:
                return a
        return None

    return first(state)  # each move is tried on a copy


# ======================================================================================
# The tree
# ======================================================================================


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
            else pruned_actions(state, seat, config.pruning, config.setup_pruning)
        )
        self.optimistic = set(optimistic)
        actions.extend(a for a in optimistic if a not in actions)
        self.root = Node(seat, actions, rnd)
        self.rollouts = 0
        self.cp = config.cp
        self.vw = config.virtual_wins

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
                if not assume_trades(state, self.seat, price, self.config.trade_guard):
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
                config.planned_rollouts,
                config.planned_rollouts and config.planned_chores,
            )
        self.rollouts += 1
        shares = position_rewards(state, config.fitted_score) if winner == -2 else None
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
        if self.config.opponent_model and seat != self.seat:
            move = policy_move(state, rules.legal_actions(state, seat), self.rnd)
            if move is not None:
                return Node(seat, [move], self.rnd)
        actions = pruned_actions(state, seat, prune, self.config.setup_pruning)
        return Node(seat, actions, self.rnd)


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
