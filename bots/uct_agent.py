"""The ``uct`` bot: UCT search over determinizations drawn from a hand tracker, with the
paper's trade-optimistic 1:1 offers and searched answers to offers (see :mod:`bots.uct`).

It sees what its seat sees: the view each prompt carries and the events in its seat's form.
Every decision rebuilds full states from the view and guesses at the hidden cards
(:class:`bots.belief.HandTracker`), searches them (one tree per guess, Ensemble UCT when
``trees`` > 1), and answers with the root action the final rule picks (``SearchConfig.move_rule``).
The configuration's named policies say which decisions the ``heuristic`` player's rules make
instead (the set-up: ``setup``; discards and the robber: ``chores``) and whether its move
stands unless the search is sure of a better one (``moves``).

Trading (Algorithm 2, once per turn): the first search of a turn also considers builds that
1:1 trades would make affordable; if one of them wins, the bot offers every other seat one
spare card for one lacking card, one offer at a time, confirming with a seat that accepts,
until it can pay or has tried each lacking card; then it searches again without such moves.
With ``aimed_offers`` each offer is the swap the others are most likely to take, and none
is made when no one is. Offers made to it are answered by a search over accept and decline.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from bots.belief import Hand, HandTracker
from bots.ensemble import Ensemble, Guess, SetupJob, TreeJob, share
from bots.heuristic import Decision, next_build
from bots.tracking import track
from bots.uct import (
    PRICES,
    SETUP_SPOTS,
    WIN_LINE_REACH,
    ChorePolicy,
    MovePolicy,
    RootStats,
    SearchConfig,
    SetupPolicy,
    missing,
    offerer_move,
    optimistic_moves,
    winning_move,
)
from bots.value.net import ValueNet
from clients.sdk import Agent, Table
from engine.actions import (
    Action,
    OfferTrade,
    counts_of,
)
from engine.rebuild import state_from_view
from engine.state import GameState
from engine.view import View
from protocol import messages as m
from protocol.payloads import action_from_engine, action_to_engine, view_to_engine

_MEDIUM = SearchConfig(
    rollouts=1000,
    trees=10,
    trade_optimistic=True,
    aimed_offers=True,
    win_check=True,
    setup=SetupPolicy.FLAT,  # the settlements by flat Monte Carlo, the roads by the rules
    setup_rollouts=200,
    chores=ChorePolicy.RULES,
    moves=MovePolicy.RULES_UNLESS_SURE,
    margin=1.0,
)
QUICK_TIME_MS = 800
"""``quick``'s time budget for a decision: ``medium``'s play, stopped short of its
rollouts where a machine is too slow to reach them in that time (with the interpreted
engine ``medium``'s decisions take up to a few seconds), so that it answers within a
second; ``hexhaven play`` seats it by default."""
STRENGTHS: dict[str, SearchConfig] = {
    "easy": SearchConfig(rollouts=200),
    "quick": replace(_MEDIUM, time_ms=QUICK_TIME_MS),
    "medium": _MEDIUM,
    # medium's play with three times the search, over two processes: it won 69.5% of 200
    # games against three heuristic players, where the 10,000-cut-rollout ensemble that was
    # `hard` before won 58.0% of the same games (docs/results.md)
    "hard": replace(_MEDIUM, rollouts=3000, processes=2, setup_rollouts=1000),
}
"""Named configurations (``strength=NAME``); other parameters adjust them."""
DEADLINE_SHARE = 0.7
"""The share of the time left on a turn timer that a search may use."""
DEADLINE_MARGIN = 0.3
"""Seconds kept back from a turn timer for the answer to reach the server."""
AIMED_RETRIES = 2
"""With ``aimed_offers``: how many offers a turn may make beyond one per lacking card."""
OFFERS_PER_TURN = 3
"""The most offers a turn makes (the people asked answer each one), never one twice."""


class UCTAgent(Agent):
    """A UCT player (see the module docstring)."""

    name = "uct"

    def __init__(self, config: SearchConfig | None = None, seed: int | None = None) -> None:
        self.config = config or SearchConfig()
        self.rnd = random.Random(seed)
        self.tracker: HandTracker | None = None
        self.ensemble = Ensemble(min(self.config.processes, self.config.trees))
        self.turn = -1
        self.traded = False
        self.target: Action | None = None  # the build the queued 1:1 offers are for
        self.offers_left = 0
        self.tried: set[tuple[int, int]] = set()  # (want, give) offered this turn
        self.last_stats: RootStats | None = None
        self.default: Action | None = None  # the heuristic's move (moves=rules_unless_sure)
        self.stop: float | None = None  # when time_ms ends the decision under way

    @classmethod
    def from_params(cls, params: Mapping[str, str], seed: int | None = None) -> UCTAgent:
        """An agent from ``name=value`` parameters: ``strength`` (easy, quick, medium, hard) picks a
        base configuration, the others are :class:`SearchConfig` fields over it (or over the
        plain defaults when no strength is named). No parameters at all: ``medium``."""
        params = dict(params)
        strength = params.pop("strength", None if params else "medium")
        base = None
        if strength is not None:
            base = STRENGTHS.get(strength)
            if base is None:
                raise ValueError(f"unknown strength {strength!r}; known: {', '.join(STRENGTHS)}")
        config = SearchConfig.from_params(params, base)
        if config.weights:
            ValueNet.load(config.weights)  # a bad file is refused before any game
        return cls(config, seed)

    # --- what the seat sees -----------------------------------------------------------------
    def on_event(self, event: Any, table: Table) -> None:
        self.tracker = track(self.tracker, event, table)

    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        # The turn timer and time_ms end the whole decision, however many searches it takes.
        now = time.monotonic()
        end = None if prompt.deadline is None else now + prompt.deadline
        self.stop = now + self.config.time_ms / 1000 if self.config.time_ms else None
        try:
            return self._choose(prompt, table, end)
        finally:
            self.stop = None

    def _choose(self, prompt: m.Prompt, table: Table, end: float | None) -> Any:
        payload = prompt.view or table.view
        if payload is None or payload.seat is None:
            return self.rnd.choice(prompt.actions)
        if self.by_rules(payload.phase):
            return Decision(payload, prompt.actions, self.rnd).best()
        view = view_to_engine(payload)
        seat = payload.seat
        if self.tracker is None:
            self.tracker = HandTracker(view)
        else:
            self.tracker.resync(view)
        if self.config.setup is SetupPolicy.FLAT and payload.phase == "setup_settlement":
            return action_from_engine(self.place(view, seat, end))
        if view.turn != self.turn:
            self.turn, self.traded, self.target, self.offers_left = view.turn, False, None, 0
            self.tried.clear()
        legal = [action_to_engine(a, seat) for a in prompt.actions]
        self.default = None
        if self.config.moves is MovePolicy.RULES_UNLESS_SURE:
            pick = Decision(payload, prompt.actions, self.rnd).best()
            self.default = action_to_engine(pick, seat)
        action = self.decide(view, seat, legal, end)
        return None if action is None else action_from_engine(action)

    # --- deciding ---------------------------------------------------------------------------
    def by_rules(self, phase: str) -> bool:
        """Whether the ``heuristic`` player's rules make a decision of ``phase`` without a
        search, as the set-up and chore policies say."""
        match phase:
            case "setup_settlement":
                return self.config.setup is SetupPolicy.RULES
            case "setup_road":
                return self.config.setup is not SetupPolicy.SEARCH
            case "discard" | "move_robber":
                return self.config.chores is ChorePolicy.RULES
        return False

    def decide(
        self, view: View, seat: int, legal: list[Action], end: float | None
    ) -> Action | None:
        """The action to take, or None to wait (an offer of ours still awaits answers);
        ``end`` is the ``time.monotonic()`` at which the turn timer runs out (None: no timer)."""
        trade = view.trade
        if trade is not None and trade.offerer == seat:
            return self._as_offerer(view, seat)
        if trade is not None and trade.answers[seat] == "pending":
            return self._pick(self._search(view, seat, end, root_actions=legal))
        if len(legal) == 1:
            return legal[0]
        if self.config.win_check and view.current == seat:
            win = self.winning_move(view, seat)
            if win is not None and win in legal:
                return win
        if view.phase == "main" and view.current == seat:
            offer = self._next_offer(view, seat)
            if offer is not None:
                return offer
            if self.config.trade_optimistic and not self.traded:
                stats = self._search(view, seat, end, optimistic=True)
                best = self._pick(stats)
                if best not in legal and type(best) in PRICES:
                    self.traded = True
                    self.target = best
                    lack, _ = missing(view.hand or (0,) * 5, PRICES[type(best)])
                    self.offers_left = len(lack)
                    if self.config.aimed_offers:
                        self.offers_left += AIMED_RETRIES
                    offer = self._next_offer(view, seat)
                    if offer is not None:
                        return offer
                    return self._pick(self._search(view, seat, end))
                return best if best in legal else legal[0]
        return self._pick(self._search(view, seat, end))

    def place(self, view: View, seat: int, end: float | None) -> Action:
        """A set-up settlement by flat Monte Carlo over the best spots (``setup_rollouts``,
        :func:`bots.uct.setup_wins`): the spot that won most, on a tie the worthier."""
        config = self.config
        budget = self._budget(end)
        deadline = None if budget is None else time.monotonic() + budget
        parts = max(1, min(config.processes, config.setup_rollouts))
        jobs = [
            SetupJob(
                view=view,
                guess=self._guess(view, seat),
                seat=seat,
                rollouts=share(config.setup_rollouts, parts, p),
                spots=SETUP_SPOTS,
                deadline=deadline,
                seed=self.rnd.getrandbits(63),
            )
            for p in range(parts)
        ]
        wins = self.ensemble.setup(jobs)
        return max(wins, key=wins.__getitem__)

    def _pick(self, stats: RootStats) -> Action:
        """The search's choice, or with ``moves=rules_unless_sure`` the heuristic's move
        unless the search's beats it by ``margin`` standard errors."""
        config = self.config
        return stats.best_over(self.default, config.margin, config.move_rule)

    def winning_move(self, view: View, seat: int) -> Action | None:
        """The first move of a line of certain moves that wins this turn, if there is one
        (:func:`bots.uct.winning_move` on a state rebuilt from the view; ``win_check``)."""
        if view.phase not in ("main", "road_building"):
            return None
        if view.own_points is None or view.own_points + WIN_LINE_REACH < view.victory_points:
            return None  # too far to look: no state rebuilt, no guess drawn
        return winning_move(self._rebuild(view, seat), seat)

    def _rebuild(self, view: View, seat: int) -> GameState:
        """A full state from the view and one guess at the hidden cards."""
        g = self._guess(view, seat)
        return state_from_view(view, g.hands, g.development, g.deck)

    def _as_offerer(self, view: View, seat: int) -> Action | None:
        """Confirm with a seat that accepted; wait while answers are pending; else cancel.
        Counter-offers to our 1:1 offers are ignored, as in the paper."""
        return offerer_move(view, seat)

    def _next_offer(self, view: View, seat: int) -> OfferTrade | None:
        """The next queued 1:1 offer toward the target build, if any is left to make."""
        if self.target is None or self.offers_left <= 0 or len(self.tried) >= OFFERS_PER_TURN:
            return None
        hand = view.hand or (0, 0, 0, 0, 0)
        lack, spare = missing(hand, PRICES[type(self.target)])
        if not lack or not spare:
            self.target, self.offers_left = None, 0
            return None
        if self.config.aimed_offers:
            pair = self._aimed(view, seat, lack, spare)
            if pair is None:  # nobody is likely to take any swap we could offer
                self.target, self.offers_left = None, 0
                return None
            want, give = pair
            self.tried.add(pair)
        else:
            pairs = [(w, g) for w in lack for g in spare if w != g and (w, g) not in self.tried]
            if not pairs:  # every swap it could offer was made this turn
                self.target, self.offers_left = None, 0
                return None
            want, give = self.rnd.choice(pairs)
            self.tried.add((want, give))
        self.offers_left -= 1
        return OfferTrade(seat, counts_of(give), counts_of(want), None)

    def _aimed(
        self,
        view: View,
        seat: int,
        lack: list[int],
        spare: list[int],
    ) -> tuple[int, int] | None:
        """The (want, give) swap not yet offered this turn that the most other seats are
        likely to take (``aimed_offers``), or None if none is likely at all. Each seat is
        taken to save for its next build (:func:`bots.heuristic.next_build`) and its hand
        to follow the tracker's belief (:func:`acceptance`)."""
        assert self.tracker is not None
        seats = [q for q in range(view.players) if q != seat]
        models = []
        for q in seats:
            p = view.seats[q]
            upgradable = any(s == q for _, s in view.settlements)
            price = next_build(upgradable, p.cities_left, p.settlements_left)
            models.append((self.tracker.distribution(q), price))
        best: tuple[int, int] | None = None
        best_chance = 0.0
        for want in sorted(set(lack)):
            for give in sorted(set(spare) - {want}):
                if (want, give) in self.tried:
                    continue
                chance = 0.0
                for d, price in models:
                    chance += acceptance(d, give, want, price)
                if chance > best_chance:
                    best, best_chance = (want, give), chance
        return best

    # --- searching --------------------------------------------------------------------------
    def _search(
        self,
        view: View,
        seat: int,
        end: float | None,
        root_actions: list[Action] | None = None,
        optimistic: bool = False,
    ) -> RootStats:
        config = self.config
        budget = self._budget(end)
        now = time.monotonic()
        parallel = max(1, min(config.processes, config.trees))  # trees running at once
        waves = -(-config.trees // parallel)
        extra: tuple[Action, ...] = ()
        if optimistic:  # our own moves: any guess at the others' cards lists them alike
            extra = tuple(optimistic_moves(self._rebuild(view, seat), seat))
        trees = config.trees
        jobs = [
            TreeJob(
                view=view,
                guess=self._guess(view, seat),
                seat=seat,
                config=config,
                rollouts=share(config.rollouts, trees, t),
                # Trees that run one after another share the time out in turn.
                deadline=None if budget is None else now + budget * (t // parallel + 1) / waves,
                seed=self.rnd.getrandbits(63),
                root_actions=None if root_actions is None else tuple(root_actions),
                optimistic=extra,
            )
            for t in range(trees)
        ]
        stats = self.ensemble.run(jobs)
        self.last_stats = stats
        return stats

    def _budget(self, end: float | None) -> float | None:
        """The seconds a search may take: what is left of ``time_ms`` for the decision, and
        a share of what is left on the turn timer (which runs out at ``end``), whichever is
        less; None for no limit. A second search in the same decision gets what the first
        left (at least 50 ms)."""
        budgets = []
        if self.stop is not None:
            budgets.append(max(0.05, self.stop - time.monotonic()))
        elif self.config.time_ms:
            budgets.append(self.config.time_ms / 1000.0)
        if end is not None:
            left = end - time.monotonic()
            budgets.append(max(0.05, left * DEADLINE_SHARE - DEADLINE_MARGIN))
        return min(budgets) if budgets else None

    def _guess(self, view: View, seat: int) -> Guess:
        assert self.tracker is not None
        sample = self.tracker.sample(self.rnd)
        own = view.development_new or (0, 0, 0, 0, 0)  # our own purchases this turn
        return Guess.of(sample, own if view.current == seat else None)

    def close(self) -> None:
        """Stop search worker processes."""
        self.ensemble.close()


def acceptance(belief: Mapping[Hand, float], give: int, want: int, price: Sequence[int]) -> float:
    """The chance that a seat whose hand follows ``belief`` (hand -> probability) and who
    saves for ``price`` takes one ``give`` card for one ``want`` card, if it takes exactly
    the swaps that bring ``price`` closer: it holds more ``want`` cards than the price
    asks, and fewer ``give`` cards."""
    return sum(p for h, p in belief.items() if h[want] > price[want] and h[give] < price[give])
