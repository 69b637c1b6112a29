"""The ``expert`` bot: the learned value network (:mod:`bots.value.net`), searched
(:mod:`bots.value.search`), with trades judged by it.

Each decision rebuilds a full state from the seat's view and one guess at the hidden cards
from the hand tracker (:class:`bots.belief.HandTracker`); the network reads only the seat's
view of the states the search reaches, and chance is weighed by what the tracker believes.

Trading:

- **Answering an offer**: the seat accepts when the network gives it a better chance to
  win after the trade than without it (by ``accept_margin``).
- **Making offers**, in its main phase before its other moves: every bounded trade its hand
  allows (one, two for one, one for two; :data:`features.actions.BOUNDED_TRADES`) is
  scored by the network as if made. For each that beats its best other move, each other
  seat's answer is modelled from what the seat knows of its hand (the chance it holds the
  cards asked for) and from the network's view of the trade from that seat's side, on the
  tracker's guess; the few with the best expected gain are looked at deeper. It offers the
  trade with the best expected gain over its best other move, less what the taker would
  gain, if that is worth it: at most ``offers`` a turn, never one twice in a turn.
- **As the offerer**: it confirms with the seat that accepted whom the network thinks
  least likely to win, waits while answers are pending, else withdraws.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from bots.belief import HandTracker
from bots.ensemble import Guess
from bots.heuristic import state_swap
from bots.playout import brings_closer, heuristic_move
from bots.tracking import track
from bots.uct import SETUP_SPOTS, setup_wins
from bots.uct.config import parse_param
from bots.uct.trades import offerer_move
from bots.uct_agent import DEADLINE_MARGIN, DEADLINE_SHARE
from bots.value.load import network, numpy_form, shipped
from bots.value.net import ValueNet
from bots.value.search import Chance, Scored, Search
from clients.sdk import Agent, Table
from engine.actions import (
    AcceptTrade,
    Action,
    BuyDevCard,
    CancelTrade,
    Counts,
    DeclineTrade,
    EndTurn,
    MaritimeTrade,
    OfferTrade,
    counts_of,
)
from engine.rebuild import state_from_view
from engine.rules import advance, legal_actions
from engine.state import GameState, Phase
from engine.view import View
from features.actions import BOUNDED_TRADES
from protocol import messages as m
from protocol.payloads import action_from_engine, action_to_engine, view_to_engine

_R = 5
_SETUP = (Phase.SETUP_SETTLEMENT, Phase.SETUP_ROAD)


@dataclass(frozen=True)
class ExpertConfig:
    """The ``expert`` bot's settings (``--param NAME=VALUE``)."""

    weights: str = ""  # a network file; empty: the one shipped for the player count
    depth: int = 2  # own moves looked at (1: each move by its afterstate)
    width: int = 4  # moves looked at deeper
    offers: int = 3  # offers a turn at most (never the same twice)
    offer_margin: float = 0.04  # the expected gain in win chance an offer must bring
    accept_margin: float = 0.0  # the gain in win chance accepting must bring
    takers: str = "either"  # who takes an offer: net (gains, by the network), either (or it helps)
    margin: float = 0.05  # the heuristic's move unless the search's is better by this (< 0: never)
    setup: str = "flat"  # flat: Monte Carlo; search: by the search; rules: the heuristic's
    setup_rollouts: int = 200  # with setup=flat: the games played on from each spot
    time_ms: int = 800  # the most a decision looks deeper or plays set-up games for
    batched: bool = True  # evaluate in numpy batches where numpy is installed

    @classmethod
    def from_params(
        cls, params: Mapping[str, str], base: ExpertConfig | None = None
    ) -> ExpertConfig:
        """Settings from ``name=value`` strings over ``base``; ValueError naming what is wrong."""
        config = base or cls()
        types = {f.name: f.type for f in fields(cls)}
        changes: dict[str, Any] = {}
        for name, text in params.items():
            kind = types.get(name)
            if kind is None:
                raise ValueError(
                    f"the expert bot has no parameter {name!r}; it has {', '.join(types)}"
                )
            value = text.strip() if kind == "str" else parse_param(name, text, str(kind))
            if isinstance(value, float) and not math.isfinite(value):
                raise ValueError(f"bad value {text!r} for {name} (float)")
            changes[name] = value
        config = replace(config, **changes)
        if config.depth < 1 or config.width < 1 or config.setup_rollouts < 1:
            raise ValueError("expert depth, width and setup_rollouts must be at least 1")
        if config.offers < 0 or config.time_ms < 0:
            raise ValueError("expert offers and time_ms must be at least 0")
        if config.takers not in ("net", "either"):
            raise ValueError(f"expert takers must be net or either, not {config.takers!r}")
        if config.setup not in ("search", "rules", "flat"):
            raise ValueError(f"expert setup must be search, rules or flat, not {config.setup!r}")
        return config


STRENGTHS: dict[str, ExpertConfig] = {
    "fast": ExpertConfig(depth=1),
    "expert": ExpertConfig(),
    "pure": ExpertConfig(margin=-1.0),
}
"""Named settings (``strength=NAME``); other parameters adjust them."""


class ExpertAgent(Agent):
    """The ``expert`` player (see the module docstring)."""

    name = "expert"

    def __init__(self, config: ExpertConfig | None = None, seed: int | None = None) -> None:
        self.config = config or ExpertConfig()
        self.rnd = random.Random(seed)
        self.tracker: HandTracker | None = None
        self.turn = -1
        self.tried: set[tuple[Counts, Counts]] = set()
        self.evaluations = 0
        self.clock: Callable[[], float] = time.monotonic

    @classmethod
    def from_params(cls, params: Mapping[str, str], seed: int | None = None) -> ExpertAgent:
        """An agent from ``name=value`` parameters: ``strength`` (fast, expert, pure) picks the
        base settings, the others adjust them."""
        params = dict(params)
        strength = params.pop("strength", "expert")
        base = STRENGTHS.get(strength)
        if base is None:
            raise ValueError(f"unknown strength {strength!r}; known: {', '.join(STRENGTHS)}")
        config = ExpertConfig.from_params(params, base)
        if config.weights:
            ValueNet.load(config.weights)  # a bad file is refused before any game
        return cls(config, seed)

    # --- what the seat sees -------------------------------------------------------------
    def on_event(self, event: Any, table: Table) -> None:
        self.tracker = track(self.tracker, event, table)

    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        payload = prompt.view or table.view
        if payload is None or payload.seat is None:
            return self.rnd.choice(prompt.actions)
        view = view_to_engine(payload)
        seat = payload.seat
        if self.tracker is None:
            self.tracker = HandTracker(view)
        else:
            self.tracker.resync(view)
        legal = [action_to_engine(a, seat) for a in prompt.actions]
        budget = self.config.time_ms / 1000
        if prompt.deadline is not None:  # a turn timer: answer well inside it
            budget = min(budget, max(0.05, prompt.deadline * DEADLINE_SHARE - DEADLINE_MARGIN))
        action = self.decide(view, seat, legal, self.clock() + budget)
        return None if action is None else action_from_engine(action)

    # --- deciding -----------------------------------------------------------------------
    def decide(
        self, view: View, seat: int, legal: list[Action], stop: float | None = None
    ) -> Action | None:
        """The action to take among ``legal`` (the engine's legal actions; offers are made
        besides), or None to wait for answers to our offer."""
        if view.turn != self.turn:
            self.turn = view.turn
            self.tried.clear()
        trade = view.trade
        if trade is not None and trade.offerer == seat:
            return offerer_move(view, seat)
        if len(legal) == 1 and view.phase != "main":
            return legal[0]
        state = self._rebuild(view, seat)
        search = self._search(seat, view.players, stop)
        if trade is not None:
            return self._answer(state, search, seat, legal)
        known = set(legal_actions(state, seat))
        moves = [a for a in legal if a in known] or legal
        if self.config.setup != "search" and state.phase in _SETUP:
            if self.config.setup == "flat" and state.phase == Phase.SETUP_SETTLEMENT:
                return self._place(state, seat, stop)
            return heuristic_move(state, seat, moves, self.rnd)
        best = search.best(state, actions=moves)
        if self.config.margin >= 0.0:
            rule = heuristic_move(state, seat, moves, self.rnd)
            if rule != best.action:
                kept = search.score(state, rule, 1 if search.out_of_time() else search.depth)
                if best.value < kept + self.config.margin:
                    best = Scored(rule, kept)
        if state.phase == Phase.MAIN and state.current == seat:
            saving = isinstance(best.action, (EndTurn, BuyDevCard, MaritimeTrade))
            offer = self._offer(state, search, best.value, saving)
            if offer is not None:
                return offer
        self.evaluations += search.evaluations
        return best.action

    def _place(self, state: GameState, seat: int, stop: float | None) -> Action:
        """A set-up settlement by flat Monte Carlo (:func:`bots.uct.setup_wins`, as the
        ``uct`` bot's ``setup=flat``): the spot whose games the seat won most, on a tie the
        worthier; the spots sampled evenly until ``stop`` (by ``clock``)."""
        deadline = None if stop is None else time.monotonic() + stop - self.clock()
        config = self.config
        wins = setup_wins(state, seat, config.setup_rollouts, SETUP_SPOTS, self.rnd, deadline)
        return max(wins, key=wins.__getitem__)

    def _search(self, seat: int, players: int, stop: float | None) -> Search:
        assert self.tracker is not None
        tracker = self.tracker
        chance = Chance(
            hands={q: tracker.expected(q) for q in range(players) if q != seat},
            unseen_development=[float(c) for c in tracker.unseen_development()],
        )
        net = network(self.config.weights, players)
        return Search(
            net,
            seat,
            chance,
            self.config.depth,
            self.config.width,
            batch=numpy_form(net) if self.config.batched else None,
            stop=stop,
            clock=self.clock,
        )

    def _rebuild(self, view: View, seat: int) -> GameState:
        assert self.tracker is not None
        sample = self.tracker.sample(self.rnd)
        own = view.development_new or (0, 0, 0, 0, 0)
        g = Guess.of(sample, own if view.current == seat else None)
        return state_from_view(
            view,
            g.hands,
            g.development,
            g.deck,
            development_new=g.development_new,
            seed=self.rnd.getrandbits(32),
        )

    # --- trades -------------------------------------------------------------------------
    def _answer(self, state: GameState, search: Search, seat: int, legal: list[Action]) -> Action:
        """Accept the open offer when the network says the seat gains by it, and gains more
        than the offerer does (read from the offerer's side, on the guess)."""
        offer = state.offer
        offerer = state.current
        accept = [a for a in legal if isinstance(a, AcceptTrade)]
        decline = [a for a in legal if isinstance(a, DeclineTrade)]
        if offer is None or not accept or not decline:
            return decline[0] if decline else legal[0]
        give, get = offer
        without = state.copy()
        advance(without, CancelTrade(offerer))
        base = offerer * _R
        for r in range(_R):  # the guess made to hold what the offerer gives
            without.hand[base + r] = max(without.hand[base + r], give[r])
        with_trade = without.copy()
        _exchange(with_trade, offerer, seat, give, get)
        c = search.chances(
            [(with_trade, seat), (without, seat), (with_trade, offerer), (without, offerer)]
        )
        mine, theirs = c[0] - c[1], c[2] - c[3]
        self.evaluations += search.evaluations
        take = mine > self.config.accept_margin and mine > theirs
        margin = self.config.margin
        if margin >= 0.0:  # the heuristic's answer unless the network is sure of the other
            rule = isinstance(heuristic_move(state, seat, legal, self.rnd), AcceptTrade)
            if rule != take and abs(mine - max(theirs, self.config.accept_margin)) <= margin:
                take = rule and mine > self.config.accept_margin  # never a loss, as scored
        return accept[0] if take else decline[0]

    def _offer(
        self, state: GameState, search: Search, baseline: float, saving: bool
    ) -> OfferTrade | None:
        """The offer worth making now, if any (see the module docstring); ``saving``: the
        best other move builds nothing (where the heuristic's rules would offer)."""
        config = self.config
        if len(self.tried) >= config.offers:
            return None
        me = search.seat
        hand = state.hand[me * _R : me * _R + _R]
        terms: list[tuple[Counts, Counts, GameState]] = []
        for give, get in BOUNDED_TRADES:
            if (give, get) in self.tried or any(g > h for g, h in zip(give, hand, strict=True)):
                continue
            s = state.copy()
            _exchange(s, me, -1, give, get)
            terms.append((give, get, s))
        values = search.values([s for _, _, s in terms])
        better = [(v, t) for v, t in zip(values, terms, strict=True) if v > baseline]
        takers = self._taken(state, search, [(give, get) for _, (give, get, _) in better])
        candidates = sorted(
            (
                (chance * (value - baseline - theirs), value, chance, theirs, term)
                for (value, term), (chance, theirs) in zip(better, takers, strict=True)
            ),
            key=lambda c: -c[0],
        )
        best: tuple[float, Counts, Counts] | None = None
        for _, value, chance, theirs, (give, get, s) in candidates[: config.width]:
            if search.out_of_time():
                break
            if search.depth > 1:
                value = max(value, search.best(s, search.depth - 1).value)
            gain = chance * (value - baseline - theirs)
            if gain > config.offer_margin and (best is None or gain > best[0]):
                best = (gain, give, get)
        if best is None and saving and config.margin >= 0.0:  # the heuristic's offer
            swap = rule_swap(state, me)
            if swap is not None and swap not in self.tried:
                best = (0.0, *swap)
        if best is None:
            return None
        self.tried.add((best[1], best[2]))
        return OfferTrade(me, best[1], best[2], None)

    def _taken(
        self, state: GameState, search: Search, trades: Sequence[tuple[Counts, Counts]]
    ) -> list[tuple[float, float]]:
        """For each trade (give, get): the chance that some other seat takes it, and what
        it is worth to the seat that would (the most any would gain). Each holds the cards
        asked for with the tracker's chance, and takes the trade if the network, from its
        side on the tracker's guess, says it gains; all read in one batch."""
        assert self.tracker is not None
        me = search.seat
        others = [q for q in range(state.n) if q != me]
        spread = {q: self.tracker.distribution(q).items() for q in others}
        pairs: list[tuple[GameState, int]] = []
        held: list[list[tuple[float, bool]]] = []
        either = self.config.takers == "either"
        for give, get in trades:
            chances: list[tuple[float, bool]] = []
            for q in others:
                holds = sum(p for h, p in spread[q] if all(h[r] >= get[r] for r in range(_R)))
                if holds <= 0.0:
                    continue
                s = state.copy()
                base = q * _R
                for r in range(_R):  # the guess made to hold what the trade asks of q
                    s.hand[base + r] = max(s.hand[base + r], get[r])
                after = s.copy()
                _exchange(after, me, q, give, get)
                pairs += [(s, q), (after, q)]
                chances.append((holds, either and brings_closer(s, q, get, give)))
            held.append(chances)
        read = iter(search.chances(pairs))
        out: list[tuple[float, float]] = []
        for chances in held:
            none = 1.0
            most = 0.0
            for holds, closer in chances:
                before, after_value = next(read), next(read)
                gain = after_value - before
                if gain > 0.0 or closer:
                    none *= 1.0 - holds
                    most = max(most, gain)
            out.append((1.0 - none, most))
        return out


def rule_swap(state: GameState, me: int) -> tuple[Counts, Counts] | None:
    """The ``heuristic`` player's offer in ``state`` (:func:`bots.heuristic.state_swap`
    toward its closest build), as (give, get); None if it has none."""
    swap = state_swap(state, me, set())
    return None if swap is None else (counts_of(swap[0]), counts_of(swap[1]))


def _exchange(
    state: GameState, offerer: int, partner: int, give: Sequence[int], get: Sequence[int]
) -> None:
    """The cards of a trade change hands in ``state``: ``offerer`` gives ``give`` and gets
    ``get`` (from ``partner``, or from nowhere with -1: the offerer's side alone)."""
    hand = state.hand
    for r in range(_R):
        hand[offerer * _R + r] += get[r] - give[r]
        if partner >= 0:
            hand[partner * _R + r] = max(0, hand[partner * _R + r] + give[r] - get[r])


__all__ = ["STRENGTHS", "ExpertAgent", "ExpertConfig", "network", "shipped"]
