"""Hidden information: what ``view`` and ``Event.for_seat`` let each seat see.

Positions come from seeded random games (``tests.engine.randomplay``). The secrecy tests
change one seat's secrets in a copy (hand composition at the same size, development cards
at the same count, the deck's composition at the same total, the RNG) and require every
other seat's view, and the spectators', to stay exactly the same, while the seat's own view
does change.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    EVENT_TYPES,
    PUBLIC_EVENT_TYPES,
    DevCard,
    DevCardBought,
    GameConfig,
    GameState,
    Phase,
    Stolen,
    new_game,
    replay,
    view,
)
from tests.engine.randomplay import play_game, random_steps

N = 5
SEEDS = st.integers(0, 2**32)

VIEW_FIELDS = {
    "seat",
    "state_id",
    "players",
    "victory_points",
    "board",
    "phase",
    "turn",
    "current",
    "to_act",
    "dice",
    "robber",
    "settlements",
    "cities",
    "roads",
    "bank",
    "development_deck",
    "dev_card_played",
    "free_roads",
    "seats",
    "trade",
    "winner",
    "hand",
    "development",
    "development_new",
    "own_points",
    "trade_ratios",
    "final_points",
    "victory_cards",
}
PLAYER_FIELDS = {
    "seat",
    "points",
    "resource_cards",
    "development_cards",
    "knights",
    "roads_left",
    "settlements_left",
    "cities_left",
    "longest_road",
    "has_longest_road",
    "has_largest_army",
    "discards_owed",
}


def flatten(value: object) -> Iterator[object]:
    """Every leaf value of nested dicts, lists and tuples."""
    if isinstance(value, dict):
        for v in value.values():
            yield from flatten(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from flatten(v)
    else:
        yield value


def _reshuffle(counts: list[int], rnd: random.Random) -> list[int]:
    """The same total spread differently (a different composition whenever the total is
    positive)."""
    total = sum(counts)
    if total == 0:
        return counts[:]
    while True:
        out = [0] * len(counts)
        for _ in range(total):
            out[rnd.randrange(len(counts))] += 1
        if out != counts:
            return out


def scramble_secrets(state: GameState, seat: int, rnd: random.Random) -> GameState:
    """A copy in which ``seat``'s hand and development cards (and the deck and RNG) are
    different but every count the others may see is the same."""
    c = state.copy()
    c.hand[seat * N : seat * N + N] = _reshuffle(c.hand[seat * N : seat * N + N], rnd)
    c.dev[seat * N : seat * N + N] = _reshuffle(c.dev[seat * N : seat * N + N], rnd)
    if seat == c.current:
        # What the current seat bought this turn is its secret, too.
        c.dev_new = _reshuffle(c.dev_new, rnd)
    c.deck = _reshuffle(c.deck, rnd)
    c.rng = rnd.randrange(2**64)
    return c


def sample_states(seed: int, config: GameConfig, every: int) -> Iterator[GameState]:
    """Copies of positions of a random game, every ``every`` actions, and its last one."""
    state = new_game(config, seed)
    yield state.copy()
    for step in random_steps(config, seed, state=state, max_actions=10_000):
        if step.index % every == 0 or state.is_over:
            yield state.copy()


# ======================================================================================
# Another seat's secrets never show
# ======================================================================================


@settings(max_examples=15, deadline=None)
@given(seed=SEEDS, players=st.integers(2, 4))
def test_view_unchanged_by_another_seats_secrets(seed: int, players: int) -> None:
    config = GameConfig(players=players, board_setup="spiral" if seed % 2 else "random")
    rnd = random.Random(seed)
    changed_hands = own_changes = 0
    for state in sample_states(seed, config, every=37):
        if state.is_over:
            continue  # at the end everything is public by design
        for q in range(players):
            other = scramble_secrets(state, q, rnd)
            changed_hands += other.hand_of(q) != state.hand_of(q)
            for s in [None, *range(players)]:
                if s == q:
                    continue
                assert view(other, s).to_dict() == view(state, s).to_dict(), (q, s)
            # The seat's own view does see its own cards.
            if state.hand_size(q) or sum(state.dev_of(q)):
                own_before, own_after = view(state, q), view(other, q)
                assert own_after.to_dict() != own_before.to_dict()
                assert own_after.hand == other.hand_of(q)
                assert own_after.development == other.dev_of(q)
                own_changes += 1
    assert changed_hands and own_changes, "the test must have changed some secrets"


def test_view_sees_own_hand_change() -> None:
    """Moving one card of a seat's hand to another resource changes that seat's view (and
    nobody else's)."""
    record = play_game(GameConfig(players=3), 5, max_actions=200)
    state = record.state
    seat = max(range(3), key=state.hand_size)
    assert state.hand_size(seat) > 0
    c = state.copy()
    r = next(r for r in range(N) if c.hand[seat * N + r])
    c.hand[seat * N + r] -= 1
    c.hand[seat * N + (r + 1) % N] += 1
    assert view(c, seat).hand != view(state, seat).hand
    assert view(c, seat).to_dict() != view(state, seat).to_dict()
    for s in [None, *(q for q in range(3) if q != seat)]:
        assert view(c, s) == view(state, s)


# ======================================================================================
# What a view carries
# ======================================================================================


def check_view(state: GameState, seat: int | None) -> None:
    v = view(state, seat)
    d = v.to_dict()
    assert set(d) == VIEW_FIELDS, "a new view field needs a secrecy review"
    for pv in d["seats"]:  # type: ignore[attr-defined]
        assert set(pv) == PLAYER_FIELDS
    n = state.n
    # Public facts of everyone.
    for q, pv in enumerate(v.seats):
        assert pv.seat == q
        assert pv.points == state.vp[q]
        assert pv.resource_cards == state.hand_size(q)
        assert pv.development_cards == sum(state.dev_of(q))
        assert pv.knights == state.knights[q]
        assert pv.discards_owed == state.owed[q]
        assert pv.has_longest_road == (state.longest_holder == q)
        assert pv.has_largest_army == (state.army_holder == q)
    assert v.development_deck == sum(state.deck)
    assert v.bank == tuple(state.bank)
    assert v.phase == Phase(state.phase).name.lower()
    if state.offer is None:
        assert v.trade is None
    else:
        assert v.trade is not None
        assert (v.trade.give, v.trade.get) == state.offer
        assert v.trade.offerer == state.current
    # Secrets: the viewer's own only.
    if seat is None:
        assert v.hand is None and v.development is None and v.development_new is None
        assert v.own_points is None and v.trade_ratios is None
    else:
        assert v.hand == state.hand_of(seat)
        assert v.development == state.dev_of(seat)
        expected_new = tuple(state.dev_new) if seat == state.current else (0,) * N
        assert v.development_new == expected_new
        assert v.own_points == state.victory_points(seat)
        assert v.trade_ratios == tuple(state.ratio[seat * N : seat * N + N])
    leaves = list(flatten(d))
    assert state.rng not in leaves, "the RNG state leaks into a view"
    # Revealed only at the end.
    if state.is_over:
        assert v.winner == state.winner
        assert v.final_points == tuple(state.victory_points(q) for q in range(n))
        assert v.victory_cards == tuple(state.dev[q * N + DevCard.VICTORY_POINT] for q in range(n))
    else:
        assert v.winner is None
        assert v.final_points is None and v.victory_cards is None


@settings(max_examples=15, deadline=None)
@given(seed=SEEDS, players=st.integers(2, 4), radius=st.sampled_from([3, 4]))
def test_views_carry_own_secrets_only(seed: int, players: int, radius: int) -> None:
    config = GameConfig(players=players, radius=radius)
    saw_over = False
    for state in sample_states(seed, config, every=23):
        saw_over |= state.is_over
        for s in [None, *range(players)]:
            check_view(state, s)
    assert saw_over, "random games run to the end"


def test_view_of_a_seat_not_in_the_game() -> None:
    state = new_game(GameConfig(players=3), 1)
    for bad in (3, 4, -1):
        with pytest.raises(ValueError):
            view(state, bad)


@pytest.mark.parametrize("seed", [4, 9, 16])
def test_final_points_only_once_over(seed: int) -> None:
    record = play_game(GameConfig(players=4), seed, max_actions=6000)
    state = record.state
    assert state.is_over
    over = view(state, None)
    assert over.final_points is not None and over.victory_cards is not None
    assert over.winner == state.winner
    assert over.final_points[state.winner] >= state.config.victory_points
    assert over.final_points == tuple(state.victory_points(q) for q in range(4))
    # The same game one action earlier: nothing revealed yet.
    before, _ = replay(record.config, seed, record.actions[:-1])
    assert not before.is_over
    for s in [None, 0, 1, 2, 3]:
        early = view(before, s)
        assert early.final_points is None and early.victory_cards is None
        assert early.winner is None


# ======================================================================================
# Events' secrets
# ======================================================================================


@settings(max_examples=20, deadline=None)
@given(seed=SEEDS, players=st.integers(2, 4))
def test_event_secrets_go_to_the_entitled_seats_only(seed: int, players: int) -> None:
    record = play_game(GameConfig(players=players), seed, max_actions=3000)
    seen: dict[str, int] = {"stolen": 0, "bought": 0, "public": 0}
    for ev in record.events:
        for q in [None, *range(players)]:
            form = ev.for_seat(q)
            assert (type(ev) in PUBLIC_EVENT_TYPES) == (not isinstance(ev, Stolen | DevCardBought))
            if isinstance(ev, Stolen):
                assert ev.resource is not None
                assert isinstance(form, Stolen)
                assert (form.thief, form.victim) == (ev.thief, ev.victim)
                if q in (ev.thief, ev.victim):
                    assert form.resource == ev.resource
                else:
                    assert form.resource is None
                seen["stolen"] += 1
            elif isinstance(ev, DevCardBought):
                assert ev.card is not None
                assert isinstance(form, DevCardBought)
                assert form.seat == ev.seat
                if q == ev.seat:
                    assert form.card == ev.card
                else:
                    assert form.card is None
                seen["bought"] += 1
            else:
                assert form is ev
                seen["public"] += 1
    assert seen["public"]
    if players > 2 or record.state.turn > 30:
        assert seen["stolen"] or seen["bought"]


def test_the_public_event_types_are_those_without_a_secret() -> None:
    """Every recipient gets an event of these types whole (the table relies on it)."""
    assert set(EVENT_TYPES) - PUBLIC_EVENT_TYPES == {Stolen, DevCardBought}


def test_views_survive_pickling() -> None:
    """Search bots send views to worker processes."""
    import pickle

    from tests.engine.randomplay import random_steps

    seen_trade = False
    for step in random_steps(GameConfig(players=3), 21, max_actions=1500):
        if step.index % 50 == 0 or step.state.offer is not None or step.state.is_over:
            for seat in (None, 0, 1, 2):
                v = view(step.state, seat)
                assert pickle.loads(pickle.dumps(v)) == v
            seen_trade |= step.state.offer is not None
    assert seen_trade
