"""The hand tracker believes only what its seat could know, never rules out the truth, and
knows exactly what nothing hid from it.

Seeded games are played on the engine with one tracker per seat, each fed every event in its
seat's form; after every action each tracker is checked against the true state: the true
hands have positive probability, every hand has the public card count, the probabilities sum
to 1, an opponent that no hidden steal touched is known exactly, the unseen development cards
are exactly the deck and the opponents' cards, and every sample is consistent with the view.
Hand-made positions check that hidden steals spread the belief and that monopolies, discards,
trade answers and empty hands collapse it again.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import replace
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bots.belief import Hand, HandTracker, Sample
from engine import (
    AcceptTrade,
    Action,
    CancelTrade,
    CounterTrade,
    Counts,
    DevCard,
    Discard,
    Discarded,
    EndTurn,
    Event,
    GameConfig,
    GameState,
    MonopolyTaken,
    MoveRobber,
    OfferTrade,
    Phase,
    PlaceRoad,
    PlaceSettlement,
    PlayMonopoly,
    Produced,
    Resource,
    Stolen,
    TradeCompleted,
    apply,
    new_game,
    view,
)
from engine.constants import BANK_PER_RESOURCE, DEV_CARD_COST, N_RESOURCES
from engine.rebuild import state_from_view
from engine.rules import robber_victims
from tests.engine.positions import (
    DEFAULT_PLACEMENTS,
    config,
    counts,
    edge,
    force_buy,
    force_roll,
    give,
)
from tests.engine.randomplay import random_steps

BRICK, LUMBER, WOOL, GRAIN, ORE = Resource
VP = DevCard.VICTORY_POINT


# ======================================================================================
# A game followed by one tracker per seat
# ======================================================================================


class Table:
    """A live game and one tracker per seat, fed every event in that seat's form.

    ``uncertain`` holds the (observer, seat) pairs where ``seat`` took part in a steal the
    observer did not see the card of: the only event that hides a resource."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.trackers = [HandTracker(view(state, s)) for s in range(state.n)]
        self.uncertain: set[tuple[int, int]] = set()
        self.seen: dict[type, int] = {}

    def feed(self, events: Iterable[Event]) -> None:
        for e in events:
            for s, tracker in enumerate(self.trackers):
                tracker.observe(e.for_seat(s))
            self.seen[type(e)] = self.seen.get(type(e), 0) + 1
            if isinstance(e, Stolen):
                for s in range(self.state.n):
                    if s not in (e.thief, e.victim):
                        self.uncertain |= {(s, e.thief), (s, e.victim)}

    def play(self, action: Action) -> list[Event]:
        events = apply(self.state, action)
        self.feed(events)
        return events

    def belief(self, observer: int, seat: int) -> dict[Hand, float]:
        return self.trackers[observer].distribution(seat)


def followed_setup(cfg: GameConfig | None = None, seed: int = 0) -> Table:
    """The default set-up of :mod:`tests.engine.positions`, followed from the first move."""
    table = Table(new_game(cfg or config(), seed))
    state = table.state
    for v, w in DEFAULT_PLACEMENTS[: 2 * state.n]:
        seat = state.current
        table.play(PlaceSettlement(seat, v))
        table.play(PlaceRoad(seat, edge(state, v, w)))
    assert state.phase == Phase.PRE_ROLL
    return table


def grant(table: Table, seat: int, cards: Counts) -> None:
    """Move ``cards`` from the bank to ``seat`` as a production the trackers see."""
    give(table.state, seat, cards)
    gains = tuple(cards if q == seat else counts() for q in range(table.state.n))
    table.feed([Produced(gains, ())])


def roll(table: Table, total: int) -> None:
    table.feed(force_roll(table.state, total))


def buy(table: Table, seat: int, card: DevCard) -> None:
    table.feed(force_buy(table.state, seat, card))


def steal(table: Table, thief: int, victim: int, resource: int) -> None:
    """``thief`` (in phase MOVE_ROBBER) robs ``victim`` and draws ``resource`` (the RNG state
    is searched for it, as :func:`tests.engine.positions.force_roll` does for dice)."""
    state = table.state
    hexes = [
        h
        for h in range(state.topo.n_hexes)
        if h != state.robber and victim in robber_victims(state, h, thief)
    ]
    action = MoveRobber(thief, hexes[0], victim)
    for x in range(10_000):
        trial = state.copy()
        trial.rng = x
        if any(isinstance(e, Stolen) and e.resource == resource for e in apply(trial, action)):
            state.rng = x
            table.play(action)
            return
    raise AssertionError(f"no RNG state steals {resource!r}")


def end_turn(table: Table) -> None:
    table.play(EndTurn(table.state.current))


def pass_turns(table: Table, to: int) -> None:
    """End turns (rolling a 2 each time) until it is ``to``'s main phase."""
    end_turn(table)
    while table.state.current != to:
        roll(table, 2)
        end_turn(table)
    roll(table, 2)


# ======================================================================================
# Checks against the true state
# ======================================================================================


def truth(state: GameState) -> Sample:
    """The real hidden information, as a sample."""
    n = state.n
    return Sample(
        hands=tuple(hand_of(state, q) for q in range(n)),
        development=tuple(state.dev_of(q) for q in range(n)),
        development_new=tuple(state.dev_new),
        deck=tuple(state.deck),
    )


def hand_of(state: GameState, seat: int) -> Hand:
    h = state.hand_of(seat)
    return (h[0], h[1], h[2], h[3], h[4])


def point(hand: tuple[int, ...]) -> dict[tuple[int, ...], float]:
    return {hand: 1.0}


def check_beliefs(state: GameState, tracker: HandTracker, exact: Iterable[int] = ()) -> None:
    """Everything a tracker believes agrees with the true ``state``; the seats in ``exact``
    are known for sure."""
    me = tracker.seat
    n = state.n
    for q in range(n):
        belief = tracker.distribution(q)
        size = state.hand_size(q)
        assert abs(sum(belief.values()) - 1.0) < 1e-9
        assert all(sum(h) == size and min(h) >= 0 for h in belief), (q, size, belief)
        assert all(p > 0.0 for p in belief.values())
        assert belief.get(hand_of(state, q), 0.0) > 0.0, (me, q, state.hand_of(q), belief)
        assert tracker.hand_size(q) == size
        assert tracker.development_count(q) == sum(state.dev_of(q))
        if q == me or q in exact:
            assert belief == point(state.hand_of(q)), (me, q, state.hand_of(q), belief)
            assert tracker.expected(q) == pytest.approx(state.hand_of(q))
    assert tracker.is_consistent(truth(state))


def check_followed(table: Table) -> None:
    """Checks for trackers that followed the game from the start."""
    state = table.state
    n = state.n
    for s, tracker in enumerate(table.trackers):
        exact = [q for q in range(n) if (s, q) not in table.uncertain]
        check_beliefs(state, tracker, exact)
        held = [sum(state.dev_of(q)[k] for q in range(n) if q != s) for k in range(5)]
        assert tracker.unseen_development() == tuple(state.deck[k] + held[k] for k in range(5))
        assert tracker.unknown_played() == 0
        for q in range(n):
            bought = sum(state.dev_new) if q == state.current else 0
            assert tracker.bought_this_turn(q) == bought


def check_sample(state: GameState, tracker: HandTracker, sample: Sample) -> None:
    """A sample keeps the tracker's own cards and agrees with the public counts."""
    me = tracker.seat
    n = state.n
    assert sample.hands[me] == state.hand_of(me)
    assert sample.development[me] == state.dev_of(me)
    for q in range(n):
        assert sum(sample.hands[q]) == state.hand_size(q)
        assert sum(sample.development[q]) == sum(state.dev_of(q))
        if q != me:
            assert tracker.distribution(q).get(sample.hands[q], 0.0) > 0.0
    for r in range(N_RESOURCES):
        assert sum(h[r] for h in sample.hands) <= BANK_PER_RESOURCE - state.bank[r]
    assert sum(sample.deck) == sum(state.deck)
    assert all(c >= 0 for c in sample.deck)
    cur = state.current
    if not state.is_over:
        assert sample.development[cur][VP] + state.vp[cur] < state.config.victory_points
    assert sum(sample.development_new) == sum(state.dev_new)
    assert all(a <= b for a, b in zip(sample.development_new, sample.development[cur], strict=True))
    assert tracker.is_consistent(sample)


def check_rebuilds(state: GameState, seat: int, sample: Sample) -> None:
    """A sample fills in a game that looks like the real one from the tracker's seat."""
    seen = view(state, seat)
    rebuilt = state_from_view(
        seen, sample.hands, sample.development, sample.deck, development_new=sample.development_new
    )
    assert view(rebuilt, seat) == seen


# ======================================================================================
# Seeded games
# ======================================================================================

GAMES = [
    (GameConfig(), 1),
    (GameConfig(players=3, board_setup="spiral"), 2),
    (GameConfig(players=2), 3),
    (GameConfig(radius=4), 4),
    (GameConfig(players=4, victory_points=6), 5),
]


def follow_game(
    cfg: GameConfig, seed: int, *, join_every: int = 0, whole_game: bool = True
) -> Table:
    """Play a random game with trackers on every seat, checking them after every action;
    resync them now and then (a resync after no missed event changes nothing); with
    ``join_every``, start extra trackers mid-game from a view and check them too. With
    ``whole_game`` the game must end within the random player's 3,000 actions (true of the
    fixed seeds); without it, a game that runs longer is checked that far."""
    state = new_game(cfg, seed)
    table = Table(state)
    rng = random.Random(seed)
    joined: list[HandTracker] = []
    for step in random_steps(cfg, seed, state=state, trade_rate=0.3):
        table.feed(step.events)
        check_followed(table)
        for tracker in table.trackers:
            check_sample(state, tracker, tracker.sample(rng))
        if step.index % 37 == 0:
            s = step.index % state.n
            tracker = table.trackers[s]
            before = [tracker.distribution(q) for q in range(state.n)]
            unseen = tracker.unseen_development()
            tracker.resync(view(state, s))
            assert [tracker.distribution(q) for q in range(state.n)] == before
            assert tracker.unseen_development() == unseen
            if not state.is_over:  # once over, views show the real victory cards
                check_rebuilds(state, s, tracker.sample(rng))
        for tracker in joined:
            for e in step.events:
                tracker.observe(e.for_seat(tracker.seat))
            check_beliefs(state, tracker)
            check_sample(state, tracker, tracker.sample(rng))
        if join_every and step.index % join_every == join_every // 2 and not any(state.dev_new):
            tracker = HandTracker(view(state, step.index % state.n))
            check_joined(state, tracker)
            joined.append(tracker)
    assert state.is_over or not whole_game
    return table


def check_joined(state: GameState, tracker: HandTracker) -> None:
    """A tracker started mid-game: uniform over the hands each opponent could hold, and
    the unseen development cards are the deck, the opponents' cards and the progress cards
    played before it joined."""
    check_beliefs(state, tracker)
    me = tracker.seat
    for q in range(state.n):
        belief = tracker.distribution(q)
        if q != me:
            assert max(belief.values()) == pytest.approx(min(belief.values()))
            assert len(belief) <= comb(state.hand_size(q) + 4, 4)
    pool = tracker.unseen_development()
    rest = [
        pool[k] - state.deck[k] - sum(state.dev_of(q)[k] for q in range(state.n) if q != me)
        for k in range(5)
    ]
    assert min(rest) >= 0 and rest[DevCard.KNIGHT] == rest[VP] == 0
    assert sum(rest) == tracker.unknown_played()


@pytest.mark.parametrize(("cfg", "seed"), GAMES)
def test_trackers_follow_random_games_without_losing_the_truth(cfg: GameConfig, seed: int) -> None:
    table = follow_game(cfg, seed, join_every=150 if seed % 2 else 0)
    assert table.seen.get(Stolen, 0) > 0


def test_the_seeded_games_exercise_hidden_steals_trades_and_monopolies() -> None:
    seen: dict[type, int] = {}
    hidden_steals = 0
    for cfg, seed in GAMES[:3]:
        table = Table(new_game(cfg, seed))
        for step in random_steps(cfg, seed, state=table.state, trade_rate=0.3):
            table.feed(step.events)
            hidden_steals += sum(isinstance(e, Stolen) and table.state.n > 2 for e in step.events)
        for kind, k in table.seen.items():
            seen[kind] = seen.get(kind, 0) + k
    assert hidden_steals > 0
    assert seen.get(TradeCompleted, 0) > 0
    assert seen.get(Discarded, 0) > 0


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4))
def test_trackers_hold_the_truth_in_any_seeded_game(seed: int, players: int) -> None:
    follow_game(GameConfig(players=players), seed, join_every=120, whole_game=False)


# ======================================================================================
# Hand-made positions
# ======================================================================================


def test_every_opponent_is_known_exactly_until_a_hidden_steal() -> None:
    table = followed_setup()
    for s in range(4):
        for q in range(4):
            assert table.belief(s, q) == point(table.state.hand_of(q))
    # Seat 0 holds brick, ore, wool after the set-up; seat 2 lumber, wool, grain.
    assert table.belief(1, 2) == point(counts(lumber=1, wool=1, grain=1))


def test_a_hidden_steal_spreads_the_belief_and_monopolies_collapse_it() -> None:
    table = followed_setup()
    state = table.state
    roll(table, 2)
    grant(table, 0, counts(wool=2, grain=2, ore=2))
    buy(table, 0, DevCard.MONOPOLY)
    buy(table, 0, DevCard.MONOPOLY)
    end_turn(table)
    roll(table, 7)  # seat 1 rolls a seven: nobody holds more than seven cards
    steal(table, 1, 2, GRAIN)
    check_followed(table)
    # Seat 2 held lumber, wool, grain: the observers see one of the three go.
    for s in (0, 3):
        victim = table.belief(s, 2)
        assert victim == pytest.approx(
            {
                counts(wool=1, grain=1): 1 / 3,
                counts(lumber=1, grain=1): 1 / 3,
                counts(lumber=1, wool=1): 1 / 3,
            }
        )
        thief = table.belief(s, 1)
        assert len(thief) == 3 and thief[hand_of(state, 1)] == pytest.approx(1 / 3)
        assert table.trackers[s].expected(2) == pytest.approx((0, 2 / 3, 2 / 3, 2 / 3, 0))
    # The thief and the victim know the card.
    assert table.belief(1, 2) == point(state.hand_of(2))
    assert table.belief(2, 1) == point(state.hand_of(1))
    pass_turns(table, 0)
    table.play(PlayMonopoly(0, LUMBER))
    check_followed(table)
    assert len(table.belief(3, 2)) == 2  # it had its lumber: wool or grain went
    pass_turns(table, 0)
    events = table.play(PlayMonopoly(0, WOOL))
    assert any(isinstance(e, MonopolyTaken) for e in events)
    for s in range(4):
        for q in range(4):
            assert table.belief(s, q) == point(state.hand_of(q)), (s, q)
    check_followed(table)


def test_a_discard_that_shows_the_hidden_card_collapses_the_belief() -> None:
    table = followed_setup()
    state = table.state
    roll(table, 2)
    end_turn(table)
    grant(table, 2, counts(brick=4))  # seat 2: 4 brick, lumber, wool, grain
    roll(table, 7)
    steal(table, 1, 2, BRICK)
    assert len(table.belief(0, 2)) == 4
    end_turn(table)
    grant(table, 2, counts(brick=4))  # ten cards, seven of them brick
    roll(table, 7)
    assert state.phase == Phase.DISCARD and state.owed[2] == 5
    table.play(Discard(2, counts(brick=2, lumber=1, wool=1, grain=1)))
    # Only a hand that lost a brick could give lumber, wool and grain.
    for s in (0, 3):
        assert table.belief(s, 2) == point(counts(brick=5))
    check_followed(table)


def test_a_hand_robbed_empty_is_known_again() -> None:
    table = followed_setup()
    state = table.state
    # Seat 3 holds wool, grain, ore; seats 0, 1 and 2 each rob it once.
    for thief, card in ((0, WOOL), (1, ORE), (2, GRAIN)):
        roll(table, 7)
        steal(table, thief, 3, card)
        check_followed(table)
        if thief == 0:
            assert len(table.belief(1, 3)) == 3
            assert len(table.belief(2, 0)) == 3
        end_turn(table)
    for s in range(4):
        assert table.belief(s, 3) == point((0, 0, 0, 0, 0))
    assert state.hand_size(3) == 0


def test_trade_answers_narrow_the_belief() -> None:
    table = followed_setup()
    state = table.state
    roll(table, 7)
    steal(table, 0, 2, LUMBER)  # seat 2 keeps wool and grain; seats 1 and 3 do not know
    assert len(table.belief(3, 2)) == 3
    table.play(OfferTrade(0, counts(brick=1), counts(wool=1), (2,)))
    # A counter-offer giving grain shows seat 2 holds grain.
    table.play(CounterTrade(2, counts(grain=1), counts(brick=1)))
    assert len(table.belief(3, 2)) == 2
    table.play(CancelTrade(0))
    table.play(OfferTrade(0, counts(brick=1), counts(wool=1), (2,)))
    # Accepting shows it holds the wool asked for: the lumber was stolen.
    table.play(AcceptTrade(2))
    assert table.belief(3, 2) == point(state.hand_of(2)) == point(counts(wool=1, grain=1))
    check_followed(table)


def test_cards_back_in_the_bank_bound_what_the_others_can_hold() -> None:
    table = followed_setup(config(players=3))
    state = table.state
    assert state.hand_of(0) == counts(lumber=1, wool=1, grain=1)
    # Seat 1 holds six brick of nine cards, seat 2 one brick of twelve.
    grant(table, 1, counts(brick=6))
    grant(table, 2, counts(lumber=9))
    joined = HandTracker(view(state, 0))
    assert max(h[BRICK] for h in joined.distribution(2)) == 7
    for events in (force_roll(state, 7), apply(state, Discard(1, counts(brick=4)))):
        for e in events:
            joined.observe(e.for_seat(0))
    # Three brick are left outside the bank and seat 0's hand: seat 2 has at most three.
    assert max(h[BRICK] for h in joined.distribution(2)) == 3
    check_beliefs(state, joined)


def test_victory_cards_never_make_an_opponent_a_winner() -> None:
    # Two points each after the set-up; three win, so no opponent holds a victory card.
    table = followed_setup(config(victory_points=3))
    state = table.state
    roll(table, 2)
    end_turn(table)
    roll(table, 2)
    kinds = [DevCard.KNIGHT] * 10 + [DevCard.ROAD_BUILDING] * 2 + [DevCard.YEAR_OF_PLENTY] * 2
    for kind in kinds:
        grant(table, 1, DEV_CARD_COST)
        buy(table, 1, kind)
    tracker = table.trackers[0]
    assert tracker.bought_this_turn(1) == 14
    assert tracker.unseen_development()[VP] == 5
    rng = random.Random(0)
    for _ in range(50):
        sample = tracker.sample(rng)
        assert sample.development[1][VP] == 0
        assert sum(sample.development_new) == 14
        check_sample(state, tracker, sample)
    check_followed(table)
    end_turn(table)
    assert tracker.bought_this_turn(1) == 0
    assert sum(tracker.sample(rng).development_new) == 0


def test_victory_cards_go_where_there_is_room_even_with_an_empty_deck() -> None:
    # A hand-made view: the deck is empty, seat 0 holds 14 knights, 2 plenty, 2 monopoly;
    # the unseen 5 victory cards and 2 road building are with the others. Seat 1, to play
    # with 9 points, cannot hold a victory card, so it holds both road building cards.
    base = view(new_game(config(), 0), 0)
    seats = tuple(
        replace(p, points=points, development_cards=cards)
        for p, points, cards in zip(base.seats, (2, 9, 2, 2), (18, 2, 3, 2), strict=True)
    )
    shown = replace(base, seats=seats, development=(14, 0, 0, 2, 2), development_deck=0, current=1)
    tracker = HandTracker(shown)
    assert tracker.unseen_development() == (0, 5, 2, 0, 0)
    rng = random.Random(3)
    for _ in range(300):  # a random deal suits seat 1 one time in 21: some need repair
        sample = tracker.sample(rng)
        assert sample.development[1] == (0, 0, 2, 0, 0)
        assert sample.development[2][VP] == 3 and sample.development[3][VP] == 2
        assert sample.deck == (0, 0, 0, 0, 0)
        assert tracker.is_consistent(sample)


def test_a_tracker_joining_mid_game_is_uniform_over_what_fits() -> None:
    table = followed_setup(config(players=3))
    state = table.state
    roll(table, 2)
    grant(table, 1, counts(brick=2, ore=1))
    tracker = HandTracker(view(state, 0))
    assert state.hand_size(1) == 6
    # Seat 1 holds 6 cards: any hand of 6 in circulation (19 - bank - own of each).
    caps = [BANK_PER_RESOURCE - state.bank[r] - state.hand_of(0)[r] for r in range(5)]
    belief = tracker.distribution(1)
    fits = [h for h in _hands(6) if all(h[r] <= caps[r] for r in range(5))]
    assert sorted(belief) == sorted(fits)
    assert all(p == pytest.approx(1 / len(fits)) for p in belief.values())
    check_beliefs(state, tracker)
    # Once followed, its own purchases are exact and the pool shrinks.
    rng = random.Random(1)
    check_sample(state, tracker, tracker.sample(rng))


def _hands(size: int) -> list[Hand]:
    return [
        (a, b, c, d, size - a - b - c - d)
        for a in range(size + 1)
        for b in range(size + 1 - a)
        for c in range(size + 1 - a - b)
        for d in range(size + 1 - a - b - c)
    ]


def test_a_tracker_that_missed_events_recovers_on_resync() -> None:
    cfg = GameConfig(players=4)
    state = new_game(cfg, 8)
    trackers = [HandTracker(view(state, s)) for s in range(4)]
    rng = random.Random(8)
    resynced = False
    for step in random_steps(cfg, 8, state=state):
        for s, tracker in enumerate(trackers):
            if s != 1 or not 300 <= step.index < 330:  # seat 1 misses thirty actions
                for e in step.events:
                    tracker.observe(e.for_seat(s))
        if step.index == 340:
            missed = trackers[1]
            missed.resync(view(state, 1))
            for q in range(4):
                belief = missed.distribution(q)
                assert all(sum(h) == state.hand_size(q) for h in belief)
                assert sum(belief.values()) == pytest.approx(1.0)
                assert missed.development_count(q) == sum(state.dev_of(q))
            check_rebuilds(state, 1, missed.sample(rng))
            resynced = True
    assert resynced


def test_consistency_rejects_what_the_tracker_knows_is_false() -> None:
    table = followed_setup()
    roll(table, 7)
    steal(table, 0, 2, LUMBER)
    grant(table, 1, DEV_CARD_COST)
    tracker = table.trackers[3]
    real = truth(table.state)
    assert tracker.is_consistent(real)
    hands = list(real.hands)
    hands[3] = (*hands[3][:4], hands[3][4] + 1)
    wrong_own = Sample(tuple(hands), real.development, real.development_new, real.deck)
    hands = list(real.hands)
    hands[1] = counts(brick=2, wool=1)  # it holds brick, lumber, wool
    impossible = Sample(tuple(hands), real.development, real.development_new, real.deck)
    deck = (real.deck[0] - 1, *real.deck[1:])
    short_deck = Sample(real.hands, real.development, real.development_new, deck)
    for sample in (wrong_own, impossible, short_deck):
        assert not tracker.is_consistent(sample)
