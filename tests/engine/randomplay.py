"""Seeded random games for property tests.

A :class:`RandomPlayer` picks random legal actions from ``legal_actions`` and, to exercise
the actions the engine does not enumerate, also makes random domestic offers in phase MAIN
(to everyone or to chosen seats), answers them with random accepts, declines and
counter-offers, confirms or cancels them, and discards several cards at once after a seven.
Every choice comes from one ``random.Random(seed)``, so a game is fixed by its config, its
seed and the player's seed. Every action goes through :func:`engine.apply` (the checked
path).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from engine import (
    AcceptTrade,
    Action,
    CancelTrade,
    ConfirmTrade,
    CounterTrade,
    Counts,
    DeclineTrade,
    Discard,
    EndTurn,
    Event,
    GameConfig,
    GameState,
    MaritimeTrade,
    OfferTrade,
    Phase,
    apply,
    is_legal,
    legal_actions,
    new_game,
    seats_to_act,
)

N_RESOURCES = 5


def _counts(c: list[int]) -> Counts:
    return (c[0], c[1], c[2], c[3], c[4])


@dataclass(frozen=True)
class Step:
    """One applied action: the action, its events, and the live (mutated) state after it."""

    index: int
    action: Action
    events: list[Event]
    state: GameState


@dataclass
class GameRecord:
    """A finished (or cut-off) random game: enough to replay it."""

    config: GameConfig
    seed: int
    state: GameState
    actions: list[Action] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)


class RandomPlayer:
    """Chooses a random action for whichever seat must act.

    ``trade_rate``: chance, in phase MAIN, of making a domestic offer instead of a listed
    action. ``multi_discard_rate``: chance that a discard gives several cards at once.
    ``idle_rate``: chance of keeping a listed EndTurn or maritime trade when something
    else is possible (below 1 it steers games towards building, so they end sooner).
    """

    def __init__(
        self,
        seed: int,
        *,
        trade_rate: float = 0.15,
        multi_discard_rate: float = 0.5,
        idle_rate: float = 0.35,
    ) -> None:
        self.rnd = random.Random(seed)
        self.trade_rate = trade_rate
        self.multi_discard_rate = multi_discard_rate
        self.idle_rate = idle_rate

    # --- helpers ------------------------------------------------------------------------
    def _random_cards(self, hand: tuple[int, ...], most: int) -> list[int]:
        """Up to ``most`` cards (at least one) drawn at random from ``hand``."""
        pool = [r for r in range(N_RESOURCES) for _ in range(hand[r])]
        k = self.rnd.randint(1, min(most, len(pool)))
        out = [0] * N_RESOURCES
        for r in self.rnd.sample(pool, k):
            out[r] += 1
        return out

    def _random_wants(self, avoid: list[int], most: int) -> list[int] | None:
        """One to ``most`` cards of resources not in ``avoid`` (None when all are)."""
        allowed = [r for r in range(N_RESOURCES) if not avoid[r]]
        if not allowed:
            return None
        out = [0] * N_RESOURCES
        for _ in range(self.rnd.randint(1, most)):
            out[self.rnd.choice(allowed)] += 1
        return out

    def random_offer(self, state: GameState) -> OfferTrade | None:
        """A random legal domestic offer of the current seat, or None when it holds nothing
        (or holds all five resources' worth of nothing else to ask for)."""
        p = state.current
        hand = state.hand_of(p)
        if not sum(hand):
            return None
        give = self._random_cards(hand, 2)
        get = self._random_wants(give, 2)
        if get is None:
            return None
        to: tuple[int, ...] | None = None
        if self.rnd.random() < 0.4:
            others = [q for q in range(state.n) if q != p]
            to = tuple(sorted(self.rnd.sample(others, self.rnd.randint(1, len(others)))))
        return OfferTrade(p, _counts(give), _counts(get), to)

    def random_counter(self, state: GameState, seat: int) -> CounterTrade | None:
        """A random legal counter-offer of ``seat`` (from its own side)."""
        hand = state.hand_of(seat)
        if not sum(hand):
            return None
        give = self._random_cards(hand, 2)
        get = self._random_wants(give, 2)
        if get is None:
            return None
        return CounterTrade(seat, _counts(give), _counts(get))

    def _answer(self, state: GameState, seat: int) -> Action:
        roll = self.rnd.random()
        if roll < 0.35 and is_legal(state, AcceptTrade(seat)):
            return AcceptTrade(seat)
        if roll < 0.65:
            counter = self.random_counter(state, seat)
            if counter is not None:
                return counter
        return DeclineTrade(seat)

    def _multi_discard(self, state: GameState, seat: int) -> Discard:
        owed = state.owed[seat]
        k = owed if self.rnd.random() < 0.5 else self.rnd.randint(1, owed)
        return Discard(seat, _counts(self._random_cards(state.hand_of(seat), k)))

    # --- the choice -----------------------------------------------------------------------
    def choose(self, state: GameState) -> Action:
        phase = state.phase
        rnd = self.rnd
        if phase == Phase.MAIN and rnd.random() < self.trade_rate:
            offer = self.random_offer(state)
            if offer is not None:
                return offer
        if phase == Phase.TRADE:
            pending = [q for q in seats_to_act(state) if q != state.current]
            if pending and rnd.random() < 0.85:
                return self._answer(state, rnd.choice(pending))
            options = legal_actions(state, state.current)
            confirms = [a for a in options if isinstance(a, ConfirmTrade)]
            if confirms and rnd.random() < 0.7:
                return rnd.choice(confirms)
            return CancelTrade(state.current)
        if phase == Phase.DISCARD and rnd.random() < self.multi_discard_rate:
            return self._multi_discard(state, rnd.choice(seats_to_act(state)))
        options = legal_actions(state)
        if phase == Phase.MAIN and len(options) > 1:
            busy = [a for a in options if not isinstance(a, EndTurn | MaritimeTrade)]
            if busy and rnd.random() >= self.idle_rate:
                return rnd.choice(busy)
        return rnd.choice(options)


def random_steps(
    config: GameConfig,
    seed: int,
    *,
    player_seed: int | None = None,
    max_actions: int = 3000,
    state: GameState | None = None,
    **options: float,
) -> Iterator[Step]:
    """Play a seeded random game, yielding each applied action with its events and the
    state after it (the same live object each time: read it before resuming). Stops at the
    end of the game or after ``max_actions`` actions."""
    if state is None:
        state = new_game(config, seed)
    player = RandomPlayer(seed if player_seed is None else player_seed, **options)
    for i in range(max_actions):
        if state.is_over:
            return
        action = player.choose(state)
        events = apply(state, action)
        yield Step(i, action, events, state)


def play_game(
    config: GameConfig,
    seed: int,
    *,
    player_seed: int | None = None,
    max_actions: int = 3000,
    **options: float,
) -> GameRecord:
    """Play a seeded random game and return its record."""
    record = GameRecord(config, seed, new_game(config, seed))
    for step in random_steps(
        config,
        seed,
        player_seed=player_seed,
        max_actions=max_actions,
        state=record.state,
        **options,
    ):
        record.actions.append(step.action)
        record.events.extend(step.events)
    return record
