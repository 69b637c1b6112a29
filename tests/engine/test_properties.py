"""Property-based tests of the rules engine over seeded random games.

Each property plays random games (``tests.engine.randomplay``: listed actions plus random
domestic offers, answers, counter-offers and multi-card discards, all through ``apply``)
and checks an invariant after every action against an independent computation.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from functools import cache, lru_cache

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    Action,
    Answer,
    CityBuilt,
    CounterTrade,
    DevCard,
    DevCardBought,
    DevCardPlayed,
    DiceRolled,
    Discard,
    Discarded,
    DiscardsOwed,
    GameConfig,
    GameState,
    GameWon,
    IllegalActionError,
    LargestArmyChanged,
    LongestRoadChanged,
    MaritimeTraded,
    MonopolyTaken,
    OfferTrade,
    Phase,
    PlaceRoad,
    Produced,
    RoadBuilt,
    RobberMoved,
    SettlementBuilt,
    StartingResources,
    Stolen,
    Topology,
    TradeCompleted,
    TradeOffered,
    TurnStarted,
    YearOfPlentyTaken,
    action_tables,
    advance,
    apply,
    default_action,
    is_legal,
    legal_actions,
    longest_road,
    new_game,
    replay,
    seats_to_act,
)
from tests.engine.randomplay import RandomPlayer, play_game, random_steps

N_RESOURCES = 5
BANK_PER_RESOURCE = 19
DEV_DECK = (14, 5, 2, 2, 2)
ROADS, SETTLEMENTS, CITIES = 15, 5, 4
HARBOUR_GENERIC = 5

SEEDS = st.integers(0, 2**32)
PLAYERS = st.integers(2, 4)
SETUPS = st.sampled_from(["random", "spiral"])
RADII = st.sampled_from([3, 3, 3, 4])  # mostly the standard island


def _config(players: int, setup: str, radius: int) -> GameConfig:
    return GameConfig(players=players, board_setup=setup, radius=radius)  # type: ignore[arg-type]


# ======================================================================================
# Independent computations
# ======================================================================================


# The pieces on the board change in few actions (builds, and the set-up), while the checks
# below run after every action: what is computed from the pieces alone is computed once per
# arrangement of them (kept by the pieces themselves) and compared with the state each time.
KEPT = 1 << 14


def brute_longest_road(state: GameState, seat: int) -> int:
    """The longest trail of ``seat``'s roads, by enumerating every trail with an explicit
    stack. A trail may start or end at an opponent's building but not pass through it."""
    return _brute_longest_road(state.topo, seat, tuple(state.eowner), tuple(state.vowner))


@lru_cache(maxsize=KEPT)
def _brute_longest_road(
    topo: Topology, seat: int, eowner: tuple[int, ...], vowner: tuple[int, ...]
) -> int:
    ev = topo.edge_vertices
    roads = [e for e, o in enumerate(eowner) if o == seat]
    bit = {e: 1 << i for i, e in enumerate(roads)}
    at: dict[int, list[int]] = {}
    for e in roads:
        for v in ev[e]:
            at.setdefault(v, []).append(e)

    def passable(v: int) -> bool:
        return vowner[v] < 0 or vowner[v] == seat

    best = 0
    stack: list[tuple[int, int, int]] = []  # (end vertex, used roads, length)
    for e in roads:
        a, b = ev[e]
        stack.append((b, bit[e], 1))
        stack.append((a, bit[e], 1))
    while stack:
        v, used, length = stack.pop()
        best = max(best, length)
        if not passable(v):
            continue
        for f in at[v]:
            if not used & bit[f]:
                a, b = ev[f]
                stack.append((b if a == v else a, used | bit[f], length + 1))
    return best


def expected_ratios(
    topo: Topology, harbours: tuple[int, ...], vowner: tuple[int, ...], seat: int
) -> list[int]:
    """The best maritime ratio per resource from the harbours the seat's buildings touch."""
    ratios = [4] * N_RESOURCES
    ev = topo.edge_vertices
    for slot, kind in zip(topo.harbour_slots, harbours, strict=True):
        if any(vowner[v] == seat for v in ev[slot]):
            if kind == HARBOUR_GENERIC:
                ratios = [min(x, 3) for x in ratios]
            else:
                ratios[kind] = 2
    return ratios


class Tracker:
    """Follows the events: counts development cards played (for the deck's conservation)
    and checks the rules of a turn: one roll, nothing built, bought or traded before it,
    at most one development card played, and never one bought the same turn."""

    def __init__(self, n: int) -> None:
        self.played = [[0] * 5 for _ in range(n)]
        self.rolls = 0
        self.cards_played = 0
        self.bought = [0] * 5
        self.started = False

    def see(self, events: list[object], before: GameState | None = None) -> None:
        for ev in events:
            if isinstance(ev, TurnStarted):
                self.started = True
                self.rolls = self.cards_played = 0
                self.bought = [0] * 5
            elif isinstance(ev, DiceRolled):
                self.rolls += 1
                assert self.rolls == 1, "one roll per turn"
            elif isinstance(ev, DevCardBought):
                assert ev.card is not None
                self.bought[ev.card] += 1
            elif isinstance(ev, DevCardPlayed):
                self.played[ev.seat][int(ev.card)] += 1
                self.cards_played += 1
                assert self.cards_played == 1, "one development card per turn"
                assert ev.card != DevCard.VICTORY_POINT
                if before is not None:
                    held = before.dev[ev.seat * 5 + ev.card]
                    assert held - self.bought[ev.card] >= 1, "a card bought this turn waits"
            after_roll_only = (
                RoadBuilt,
                SettlementBuilt,
                CityBuilt,
                DevCardBought,
                MaritimeTraded,
                TradeOffered,
            )
            if isinstance(ev, RoadBuilt) and ev.free:
                continue  # road building may be played before the roll
            if self.started and isinstance(ev, after_roll_only):
                assert self.rolls == 1, f"{ev} before the roll"


# ======================================================================================
# Invariants checked after every action
# ======================================================================================


def check_conservation(state: GameState, tracker: Tracker) -> None:
    n = state.n
    assert all(c >= 0 for c in state.hand), state.hand
    assert all(c >= 0 for c in state.bank), state.bank
    for r in range(N_RESOURCES):
        held = sum(state.hand[q * N_RESOURCES + r] for q in range(n))
        assert state.bank[r] + held == BANK_PER_RESOURCE, (r, state.bank, state.hand)
    for kind in range(5):
        held = sum(state.dev[q * 5 + kind] for q in range(n))
        if kind == DevCard.KNIGHT:
            played = sum(state.knights)
            assert state.knights == [tracker.played[q][kind] for q in range(n)]
        else:
            played = sum(tracker.played[q][kind] for q in range(n))
        assert state.deck[kind] >= 0
        assert state.deck[kind] + held + played == DEV_DECK[kind], (kind, state.deck)
    assert all(p[DevCard.VICTORY_POINT] == 0 for p in tracker.played)


def check_points(state: GameState) -> None:
    for q in range(state.n):
        settlements = sum(1 for v, o in enumerate(state.vowner) if o == q and state.vlevel[v] == 1)
        cities = sum(1 for v, o in enumerate(state.vowner) if o == q and state.vlevel[v] == 2)
        expected = (
            settlements
            + 2 * cities
            + 2 * (state.longest_holder == q)
            + 2 * (state.army_holder == q)
        )
        assert state.vp[q] == expected, (q, state.vp, settlements, cities)
        hidden = state.dev[q * 5 + DevCard.VICTORY_POINT]
        assert state.victory_points(q) == expected + hidden
    target = state.config.victory_points
    if state.is_over:
        assert state.winner == state.current
        assert state.victory_points(state.winner) >= target
    else:
        assert state.winner == -1
        # A seat wins as soon as it reaches the target on its own turn.
        assert state.victory_points(state.current) < target


def check_pieces(state: GameState) -> None:
    seats = _pieces(
        state.topo,
        state.n,
        state.board.harbours,
        tuple(state.eowner),
        tuple(state.vowner),
        tuple(state.vlevel),
    )
    for q, (roads, buildings, settlements, cities, ratios) in enumerate(seats.seats):
        assert state.roads_left[q] == ROADS - len(roads)
        assert state.settlements_left[q] == SETTLEMENTS - settlements
        assert state.cities_left[q] == CITIES - cities
        assert sorted(state.proads[q]) == roads
        assert sorted(state.pbuild[q]) == buildings
        assert state.ratio[q * 5 : q * 5 + 5] == ratios
    assert state.vblocked == seats.blocked


@dataclass(frozen=True)
class Pieces:
    seats: list[tuple[list[int], list[int], int, int, list[int]]]
    """Each seat's roads and buildings (sorted), settlements, cities and maritime ratios."""
    blocked: list[int]
    """Each intersection's count of buildings on it and its neighbours."""


@lru_cache(maxsize=KEPT)
def _pieces(
    topo: Topology,
    n: int,
    harbours: tuple[int, ...],
    eowner: tuple[int, ...],
    vowner: tuple[int, ...],
    vlevel: tuple[int, ...],
) -> Pieces:
    """What the pieces on the board say the state's counts must be; asserts what the
    pieces must satisfy by themselves (the piece limits, the distance rule)."""
    seats = []
    for q in range(n):
        roads = [e for e, o in enumerate(eowner) if o == q]
        buildings = [v for v, o in enumerate(vowner) if o == q]
        settlements = sum(1 for v in buildings if vlevel[v] == 1)
        cities = sum(1 for v in buildings if vlevel[v] == 2)
        assert len(roads) <= ROADS and settlements <= SETTLEMENTS and cities <= CITIES
        ratios = expected_ratios(topo, harbours, vowner, q)
        seats.append((roads, buildings, settlements, cities, ratios))
    blocked = []
    for v in range(topo.n_vertices):
        assert (vowner[v] < 0) == (vlevel[v] == 0)
        blocked.append((vowner[v] >= 0) + sum(vowner[w] >= 0 for w in topo.vertex_vertices[v]))
        if vowner[v] >= 0:
            # The distance rule: no two buildings on neighbouring intersections.
            assert all(vowner[w] < 0 for w in topo.vertex_vertices[v])
    return Pieces(seats, blocked)


def check_longest_road(state: GameState) -> None:
    lengths = [brute_longest_road(state, q) for q in range(state.n)]
    assert state.road_len == lengths, (state.road_len, lengths)
    top = max(lengths)
    holder = state.longest_holder
    if holder >= 0:
        assert lengths[holder] >= 5
        assert lengths[holder] == top, "nobody may hold a strictly longer road"
    else:
        assert top < 5 or lengths.count(top) >= 2, "a single longest road of 5+ takes the card"


def check_army(state: GameState) -> None:
    holder = state.army_holder
    if holder >= 0:
        assert state.knights[holder] >= 3
        assert state.knights[holder] == max(state.knights)
    else:
        assert max(state.knights) < 3


ROAD_COST = (1, 1, 0, 0, 0)
SETTLEMENT_COST = (1, 1, 1, 1, 0)
CITY_COST = (0, 0, 0, 2, 3)
DEV_CARD_COST = (0, 0, 1, 1, 1)


def expected_production(prev: GameState, total: int) -> list[list[int]]:
    """What a roll of ``total`` pays each seat: one card per settlement and two per city
    on every hex with that number but the robber's; a resource the bank cannot pay in
    full goes to nobody, unless only one seat is owed it, who takes what is left."""
    topo = prev.topo
    due = [[0] * N_RESOURCES for _ in range(prev.n)]
    for h in range(topo.n_hexes):
        if prev.board.tokens[h] != total or h == prev.robber:
            continue
        r = int(prev.board.terrain[h])
        for v in topo.hex_vertices[h]:
            if prev.vowner[v] >= 0:
                due[prev.vowner[v]][r] += prev.vlevel[v]
    for r in range(N_RESOURCES):
        takers = [q for q in range(prev.n) if due[q][r]]
        if sum(due[q][r] for q in takers) > prev.bank[r]:
            for q in takers:
                due[q][r] = prev.bank[r] if len(takers) == 1 else 0
    return due


def _add(delta: list[list[int]], seat: int, cards: tuple[int, ...], sign: int = 1) -> None:
    for r in range(N_RESOURCES):
        delta[seat][r] += sign * cards[r]


def check_road_placement(prev: GameState, seat: int, edge: int, *, setup: bool) -> None:
    """A new road lies on a free path and joins the seat's settlement just placed (set-up),
    or one of its buildings, or one of its roads at an intersection no opponent occupies."""
    assert prev.eowner[edge] < 0
    ends = prev.topo.edge_vertices[edge]
    if setup:
        assert prev.last_vertex in ends
        return

    def joins_at(v: int) -> bool:
        if prev.vowner[v] == seat:
            return True
        own_road = any(prev.eowner[e] == seat for e in prev.topo.vertex_edges[v])
        return prev.vowner[v] < 0 and own_road

    assert any(joins_at(v) for v in ends), f"road {edge} of seat {seat} joins nothing"


def check_transition(
    prev: GameState, action: Action, events: list[object], state: GameState
) -> None:
    """Check one action's events against the state before and after it: every card that
    moved is accounted for by an event, and each event's content follows the rules."""
    n = state.n
    delta = [[0] * N_RESOURCES for _ in range(n)]
    for ev in events:
        if isinstance(ev, StartingResources):
            v = state.last_vertex
            want = [0] * N_RESOURCES
            for h in state.topo.vertex_hexes[v]:
                if state.board.terrain[h] < N_RESOURCES:
                    want[int(state.board.terrain[h])] += 1
            assert ev.cards == tuple(min(w, b) for w, b in zip(want, prev.bank, strict=True))
            _add(delta, ev.seat, ev.cards)
        elif isinstance(ev, DiceRolled):
            assert all(1 <= d <= 6 for d in ev.dice)
            total = sum(ev.dice)
            if total == 7:
                limit = state.config.discard_limit
                owed = tuple(
                    prev.hand_size(q) // 2 if prev.hand_size(q) > limit else 0 for q in range(n)
                )
                assert tuple(state.owed) == owed
                assert state.phase == (Phase.DISCARD if any(owed) else Phase.MOVE_ROBBER)
                assert any(isinstance(e, DiscardsOwed) and e.owed == owed for e in events) == any(
                    owed
                )
            else:
                assert state.phase == Phase.MAIN
                due = expected_production(prev, total)
                produced = [e for e in events if isinstance(e, Produced)]
                assert len(produced) == 1
                assert [list(g) for g in produced[0].gains] == due, (total, prev.bank)
        elif isinstance(ev, Produced):
            for q in range(n):
                _add(delta, q, ev.gains[q])
        elif isinstance(ev, Discarded):
            assert ev.cards == getattr(action, "cards", None)
            _add(delta, ev.seat, ev.cards, -1)
        elif isinstance(ev, RobberMoved):
            assert state.robber == ev.hex != prev.robber
            assert state.phase in (Phase.MAIN, Phase.PRE_ROLL, Phase.GAME_OVER)
            if state.phase != Phase.GAME_OVER:
                assert state.phase == (Phase.MAIN if prev.rolled else Phase.PRE_ROLL)
        elif isinstance(ev, Stolen):
            assert ev.resource is not None
            assert prev.hand[ev.victim * N_RESOURCES + ev.resource] > 0
            one = tuple(int(r == ev.resource) for r in range(N_RESOURCES))
            _add(delta, ev.thief, one)
            _add(delta, ev.victim, one, -1)
        elif isinstance(ev, YearOfPlentyTaken):
            assert sum(ev.cards) == min(2, sum(prev.bank))
            _add(delta, ev.seat, ev.cards)
        elif isinstance(ev, MonopolyTaken):
            r = int(ev.resource)
            for q in range(n):
                took = 0 if q == ev.seat else prev.hand[q * N_RESOURCES + r]
                assert ev.taken[q] == took
                delta[q][r] -= took
                delta[ev.seat][r] += took
        elif isinstance(ev, MaritimeTraded):
            assert ev.count == prev.ratio[ev.seat * N_RESOURCES + ev.give]
            delta[ev.seat][ev.give] -= ev.count
            delta[ev.seat][ev.get] += 1
        elif isinstance(ev, TradeCompleted):
            assert prev.offer is not None
            if prev.answers[ev.partner] == Answer.COUNTERED:
                counter = prev.counters[ev.partner]
                assert counter is not None
                assert (ev.give, ev.get) == (counter[1], counter[0])
            else:
                assert prev.answers[ev.partner] == Answer.ACCEPTED
                assert (ev.give, ev.get) == prev.offer
            _add(delta, ev.offerer, ev.get)
            _add(delta, ev.offerer, ev.give, -1)
            _add(delta, ev.partner, ev.give)
            _add(delta, ev.partner, ev.get, -1)
        elif isinstance(ev, RoadBuilt):
            check_road_placement(prev, ev.seat, ev.edge, setup=isinstance(action, PlaceRoad))
            if not ev.free:
                _add(delta, ev.seat, ROAD_COST, -1)
        elif isinstance(ev, SettlementBuilt):
            v = ev.vertex
            assert prev.vowner[v] < 0
            assert all(prev.vowner[w] < 0 for w in prev.topo.vertex_vertices[v])
            if not ev.free:
                assert any(prev.eowner[e] == ev.seat for e in prev.topo.vertex_edges[v])
                _add(delta, ev.seat, SETTLEMENT_COST, -1)
        elif isinstance(ev, CityBuilt):
            assert prev.vowner[ev.vertex] == ev.seat and prev.vlevel[ev.vertex] == 1
            _add(delta, ev.seat, CITY_COST, -1)
        elif isinstance(ev, DevCardBought):
            assert ev.card is not None
            _add(delta, ev.seat, DEV_CARD_COST, -1)
            assert state.deck[ev.card] == prev.deck[ev.card] - 1
            assert state.dev_of(ev.seat)[ev.card] == prev.dev_of(ev.seat)[ev.card] + 1
    for q in range(n):
        actual = [a - b for a, b in zip(state.hand_of(q), prev.hand_of(q), strict=True)]
        assert actual == delta[q], (q, action, events)
    # The longest road stays with its holder on a tie; a new holder is the single longest.
    old, new = prev.longest_holder, state.longest_holder
    lengths = state.road_len
    if old >= 0 and lengths[old] >= 5 and lengths[old] == max(lengths):
        assert new == old, "the holder keeps the longest road on a tie"
    if new != old:
        assert new < 0 or lengths.count(lengths[new]) == 1
        assert [e for e in events if isinstance(e, LongestRoadChanged)]
    # The largest army changes hands only when exceeded.
    old, new = prev.army_holder, state.army_holder
    if new != old:
        assert new == action.seat and state.knights[new] >= 3
        assert old < 0 or state.knights[new] > state.knights[old]
        assert [e for e in events if isinstance(e, LargestArmyChanged)]


def check_all(state: GameState, tracker: Tracker) -> None:
    check_conservation(state, tracker)
    check_points(state)
    check_pieces(state)
    check_longest_road(state)
    check_army(state)


# ======================================================================================
# 1-4: conservation, points, pieces, longest road and largest army after every action
# ======================================================================================


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS, players=PLAYERS, setup=SETUPS, radius=RADII)
def test_invariants_after_every_action(seed: int, players: int, setup: str, radius: int) -> None:
    config = _config(players, setup, radius)
    state = new_game(config, seed)
    tracker = Tracker(players)
    check_all(state, tracker)
    prev = state.copy()
    for step in random_steps(config, seed, state=state, max_actions=2500):
        tracker.see(step.events, prev)  # type: ignore[arg-type]
        check_all(state, tracker)
        check_transition(prev, step.action, step.events, state)  # type: ignore[arg-type]
        prev = state.copy()
        for ev in step.events:
            if isinstance(ev, GameWon):
                assert ev.winner == state.winner
                assert ev.points == tuple(state.victory_points(q) for q in range(players))
                assert ev.victory_cards == tuple(
                    state.dev[q * 5 + DevCard.VICTORY_POINT] for q in range(players)
                )


@settings(max_examples=10, deadline=None)
@given(seed=SEEDS)
def test_invariants_with_road_heavy_play(seed: int) -> None:
    """Games where players trade and build roads a lot, so that long roads, cycles, cut
    roads and the longest-road card changing hands all happen often."""
    config = GameConfig(players=4, victory_points=14)
    state = new_game(config, seed)
    tracker = Tracker(4)
    prev = state.copy()
    for step in random_steps(
        config, seed, state=state, max_actions=2500, idle_rate=0.05, trade_rate=0.05
    ):
        tracker.see(step.events, prev)  # type: ignore[arg-type]
        check_pieces(state)
        check_longest_road(state)
        check_points(state)
        check_transition(prev, step.action, step.events, state)  # type: ignore[arg-type]
        prev = state.copy()
    check_conservation(state, tracker)


@settings(max_examples=4, deadline=None)
@given(seed=SEEDS, players=st.integers(2, 3))
def test_invariants_when_pieces_and_cards_run_out(seed: int, players: int) -> None:
    """Long games (a target of 20 points, the most a game may ask) in which the seats use
    up their roads and cities and the development deck runs dry; the invariants and the
    legality of listed and unlisted actions still hold."""
    config = GameConfig(players=players, victory_points=20)
    state = new_game(config, seed)
    tracker = Tracker(players)
    rnd = random.Random(seed)
    prev = state.copy()
    for step in random_steps(config, seed, state=state, max_actions=3000, idle_rate=0.1):
        tracker.see(step.events, prev)  # type: ignore[arg-type]
        check_all(state, tracker)
        check_transition(prev, step.action, step.events, state)  # type: ignore[arg-type]
        if step.index % 10 == 0:
            check_legality(state, rnd, everything=step.index % 500 == 0)
        prev = state.copy()
    # Something ran out (in 300 seeds tried, always the deck or someone's roads).
    assert not any(state.deck) or 0 in state.roads_left or 0 in state.cities_left


def test_brute_longest_road_counts_known_shapes() -> None:
    """The independent longest-road computation itself, on hand-built road networks."""
    state = new_game(GameConfig(players=2), 0)
    topo = state.topo
    # A ring of six roads round the centre hex: a closed trail of 6.
    ring = topo.hex_edges[0]
    for e in ring:
        state.eowner[e] = 0
    assert brute_longest_road(state, 0) == 6
    # An opponent's building on one corner of the ring: the trail may start and end there
    # but not pass through it: still 6, round the ring from that corner back to it.
    corner = topo.hex_vertices[0][0]
    state.vowner[corner] = 1
    state.vlevel[corner] = 1
    assert brute_longest_road(state, 0) == 6
    # A spur off the blocked corner cannot join the ring there; still 6.
    spur = next(e for e in topo.vertex_edges[corner] if e not in ring)
    state.eowner[spur] = 0
    assert brute_longest_road(state, 0) == 6
    # A spur off the opposite corner: the best trail through it is the spur and three
    # roads to the blocked corner, 4 < 6.
    opposite = topo.hex_vertices[0][3]
    spur2 = next(e for e in topo.vertex_edges[opposite] if e not in ring)
    state.eowner[spur2] = 0
    assert brute_longest_road(state, 0) == 6
    # A third spur from a corner next to the blocked one: from it through that corner,
    # round the ring the long way (5 roads) to the blocked corner: 1 + 5 = 6; from spur2
    # over the opposite corner, 2 roads to the next corner and out by the third spur: 4.
    side = topo.hex_vertices[0][1]
    spur3 = next(e for e in topo.vertex_edges[side] if e not in ring)
    state.eowner[spur3] = 0
    assert brute_longest_road(state, 0) == 6
    # Without the blocker: nine roads with six odd-degree intersections, so a trail must
    # leave out two of them: a spur and the whole ring back to its corner, 7.
    state.vowner[corner] = -1
    state.vlevel[corner] = 0
    assert brute_longest_road(state, 0) == 7
    # Only the ring and one spur: 1 + 6.
    state.eowner[spur2] = state.eowner[spur3] = -1
    assert brute_longest_road(state, 0) == 7
    # A straight line of three roads.
    state.eowner[spur] = -1
    for e in ring[3:]:
        state.eowner[e] = -1
    assert brute_longest_road(state, 0) == 3
    assert brute_longest_road(state, 1) == 0


@settings(max_examples=300, deadline=None)
@given(seed=SEEDS, size=st.integers(1, 15), pieces=st.integers(1, 3), blockers=st.integers(0, 4))
def test_longest_road_matches_brute_force_on_random_networks(
    seed: int, size: int, pieces: int, blockers: int
) -> None:
    """engine.longest_road on random road networks (grown path by path from one to three
    starting paths, so with branches and loops) with opponents' buildings dropped on some
    of their intersections (and some of its own), against the brute force."""
    rnd = random.Random(seed)
    state = new_game(GameConfig(players=3), 0)
    topo = state.topo
    roads: list[int] = []
    starts = rnd.sample(range(topo.n_edges), pieces)
    for e in starts:
        roads.append(e)
    while len(roads) < size:
        frontier = sorted({f for e in roads for f in topo.edge_edges[e]} - set(roads))
        roads.append(rnd.choice(frontier))
    roads = list(dict.fromkeys(roads))
    for e in roads:
        state.eowner[e] = 0
    state.proads[0] = roads
    ends = sorted({v for e in roads for v in topo.edge_vertices[e]})
    for v in rnd.sample(ends, min(blockers, len(ends))):
        state.vowner[v] = rnd.choice((0, 1, 2))  # own buildings never cut a road
        state.vlevel[v] = 1
    assert longest_road(state, 0) == brute_longest_road(state, 0)


# ======================================================================================
# 5: listed actions are legal; a sample of unlisted actions is illegal and changes nothing
# ======================================================================================


@cache
def enumerable_actions(radius: int, players: int) -> tuple[Action, ...]:
    """Every action of the interned tables for the seats of a game (the actions that
    ``legal_actions`` may list, apart from a short year-of-plenty)."""
    out: list[Action] = []
    for t in action_tables(radius)[:players]:
        out.extend(t.place_settlement)
        out.extend(t.place_road)
        out.append(t.roll)
        out.extend(t.discard_one)
        for row in t.move_robber:
            out.extend(row)
        out.extend(t.build_road)
        out.extend(t.build_settlement)
        out.extend(t.build_city)
        out.append(t.buy_dev)
        out.append(t.knight)
        out.append(t.road_building)
        out.extend(t.year_of_plenty)
        out.extend(t.monopoly)
        for by_ratio in t.maritime:
            for by_give in by_ratio:
                out.extend(by_give)
        out.append(t.accept)
        out.append(t.decline)
        out.extend(t.confirm)
        out.append(t.cancel)
        out.append(t.end_turn)
    return tuple(out)


def check_legality(state: GameState, rnd: random.Random, everything: bool) -> None:
    listed = legal_actions(state)
    listed_set = set(listed)
    assert len(listed_set) == len(listed), "legal_actions lists an action twice"
    to_act = seats_to_act(state)
    if not state.is_over:
        assert listed, "a running game always offers an action"
    for q in range(state.n):
        mine = legal_actions(state, q)
        assert mine == [a for a in listed if a.seat == q]
    for a in listed:
        assert a.seat in to_act
        assert is_legal(state, a), a
    # default_action: legal for every seat that owes an action, refused for the others.
    for q in range(state.n):
        if q in to_act:
            assert is_legal(state, default_action(state, q))
        else:
            try:
                default_action(state, q)
            except IllegalActionError as exc:
                assert exc.code == "not_your_turn"
            else:
                raise AssertionError(f"default_action for seat {q}, which owes nothing")
    for a in rnd.sample(listed, min(3, len(listed))):
        c = state.copy()
        apply(c, a)
    pool = enumerable_actions(state.topo.radius, state.n)
    sample = pool if everything else rnd.sample(pool, 60)
    before = state.snapshot()
    for a in sample:
        if a in listed_set:
            continue
        assert not is_legal(state, a), a
        try:
            apply(state, a)
        except IllegalActionError as exc:
            assert exc.code
        else:
            raise AssertionError(f"{a} applied although it is not listed")
    # Refused actions leave the state untouched (one comparison for the whole sample).
    assert state.snapshot() == before


@settings(max_examples=12, deadline=None)
@given(seed=SEEDS, players=PLAYERS, setup=SETUPS, radius=RADII)
def test_listed_actions_legal_and_unlisted_illegal(
    seed: int, players: int, setup: str, radius: int
) -> None:
    config = _config(players, setup, radius)
    rnd = random.Random(seed)
    state = new_game(config, seed)
    check_legality(state, rnd, everything=True)
    for step in random_steps(config, seed, state=state, max_actions=1500):
        check_legality(state, rnd, everything=step.index % 40 == 0)
    # Over, nothing at all is legal.
    if state.is_over:
        assert legal_actions(state) == []
        assert seats_to_act(state) == ()
        check_legality(state, rnd, everything=True)


# --- the non-enumerated actions against an independent predicate ---------------------


def _random_counts(rnd: random.Random) -> tuple[int, int, int, int, int]:
    c = [0] * N_RESOURCES
    for _ in range(rnd.choice((0, 1, 1, 2, 2, 3))):
        c[rnd.randrange(N_RESOURCES)] += 1
    return (c[0], c[1], c[2], c[3], c[4])


def _holds(state: GameState, seat: int, cards: tuple[int, ...]) -> bool:
    return all(state.hand[seat * 5 + r] >= cards[r] for r in range(N_RESOURCES))


def _fair_terms(give: tuple[int, ...], get: tuple[int, ...]) -> bool:
    return any(give) and any(get) and not any(give[r] and get[r] for r in range(N_RESOURCES))


@settings(max_examples=8, deadline=None)
@given(seed=SEEDS)
def test_offers_counters_and_discards_follow_the_rules(seed: int) -> None:
    """Random OfferTrade, CounterTrade and multi-card Discard actions (legal or not) are
    legal exactly when an independent reading of the rules says so."""
    config = GameConfig(players=4)
    rnd = random.Random(seed ^ 0x5EED)
    checked = Counter[tuple[str, bool]]()
    state = new_game(config, seed)
    for _ in random_steps(config, seed, state=state, max_actions=1200):
        for _ in range(3):
            seat = rnd.randrange(state.n)
            give, get = _random_counts(rnd), _random_counts(rnd)
            to: tuple[int, ...] | None = None
            if rnd.random() < 0.3:
                to = tuple(sorted(rnd.sample(range(state.n), rnd.randint(1, 2))))
            offer = OfferTrade(seat, give, get, to)
            want = (
                state.phase == Phase.MAIN
                and seat == state.current
                and _fair_terms(give, get)
                and _holds(state, seat, give)
                and (to is None or seat not in to)
            )
            assert is_legal(state, offer) == want, (offer, state.phase)
            checked["offer", want] += 1
            counter = CounterTrade(seat, give, get)
            want = (
                state.phase == Phase.TRADE
                and state.answers[seat] == 0  # pending
                and _fair_terms(give, get)
                and _holds(state, seat, give)
            )
            assert is_legal(state, counter) == want, (counter, state.answers)
            checked["counter", want] += 1
            owed = state.owed[seat]
            hand = state.hand_of(seat)
            if owed and rnd.random() < 0.7:
                # Mostly cards the seat holds, so that legal discards come up.
                cards = [0] * N_RESOURCES
                pool = [r for r in range(N_RESOURCES) for _ in range(hand[r])]
                for r in rnd.sample(pool, rnd.randint(1, min(len(pool), owed + 1))):
                    cards[r] += 1
                discard = Discard(seat, (cards[0], cards[1], cards[2], cards[3], cards[4]))
            else:
                discard = Discard(seat, _random_counts(rnd))
            want = (
                state.phase == Phase.DISCARD
                and 0 < sum(discard.cards) <= owed
                and _holds(state, seat, discard.cards)
            )
            assert is_legal(state, discard) == want, (discard, owed, hand)
            checked["discard", want] += 1
            if want:
                before = state.snapshot()
                c = state.copy()
                apply(c, discard)
                assert c.hand_of(seat) == tuple(hand[r] - discard.cards[r] for r in range(5))
                assert c.owed[seat] == owed - sum(discard.cards)
                assert state.snapshot() == before
    # Both outcomes of each kind came up (the test cannot pass vacuously).
    assert checked["offer", True] and checked["offer", False]
    assert checked["counter", False]


# ======================================================================================
# 6: replay
# ======================================================================================


@settings(max_examples=20, deadline=None)
@given(seed=SEEDS, players=PLAYERS, setup=SETUPS, radius=RADII)
def test_replay_reproduces_state_and_events(
    seed: int, players: int, setup: str, radius: int
) -> None:
    config = _config(players, setup, radius)
    record = play_game(config, seed, max_actions=3000)
    state, events = replay(config, seed, record.actions)
    assert state.snapshot() == record.state.snapshot()
    assert events == record.events
    # A prefix replays to the same point, too (the RNG lives in the state).
    half = len(record.actions) // 2
    prefix_state, prefix_events = replay(config, seed, record.actions[:half])
    again = new_game(config, seed)
    for a in record.actions[:half]:
        apply(again, a)
    assert prefix_state.snapshot() == again.snapshot()
    assert prefix_events == record.events[: len(prefix_events)]


@settings(max_examples=6, deadline=None)
@given(seed=SEEDS)
def test_same_seed_same_game_other_seed_other_dice(seed: int) -> None:
    config = GameConfig(players=3)
    a = play_game(config, seed, max_actions=400)
    b = play_game(config, seed, max_actions=400)
    assert a.actions == b.actions and a.events == b.events
    assert a.state.snapshot() == b.state.snapshot()
    # The same actions from another seed: a different board or different chance.
    other = new_game(config, seed + 1)
    assert (other.board, other.rng) != (new_game(config, seed).board, new_game(config, seed).rng)


# ======================================================================================
# 7: copies are independent; advance agrees with apply
# ======================================================================================


@settings(max_examples=12, deadline=None)
@given(seed=SEEDS, players=PLAYERS, radius=RADII)
def test_copy_is_independent(seed: int, players: int, radius: int) -> None:
    config = _config(players, "random", radius)
    state = new_game(config, seed)
    rnd = random.Random(seed)
    checkpoints = 0
    for step in random_steps(config, seed, state=state, max_actions=1500):
        if step.index % 97 != 0:
            continue
        checkpoints += 1
        before = state.snapshot()
        copy = state.copy()
        assert copy.snapshot() == before
        # Play the copy on with another player: the original must not move.
        player = RandomPlayer(rnd.randrange(2**32))
        for _ in range(60):
            if copy.is_over:
                break
            apply(copy, player.choose(copy))
        assert state.snapshot() == before
        # And the other way round: a fresh copy is untouched by the original's actions.
        frozen = state.copy()
        frozen_snapshot = frozen.snapshot()
        probe = state.copy()
        listed = legal_actions(probe)
        if listed:
            apply(probe, rnd.choice(listed))
        assert frozen.snapshot() == frozen_snapshot
        assert copy.board is state.board and copy.topo is state.topo
    assert checkpoints


@settings(max_examples=12, deadline=None)
@given(seed=SEEDS, players=PLAYERS, radius=RADII)
def test_advance_matches_apply(seed: int, players: int, radius: int) -> None:
    """The unchecked fast path reaches exactly the state the checked path does, for every
    listed action of sampled positions."""
    config = _config(players, "spiral", radius)
    state = new_game(config, seed)
    rnd = random.Random(seed)
    for step in random_steps(config, seed, state=state, max_actions=1500):
        listed = legal_actions(state)
        for a in listed if step.index % 50 == 0 else rnd.sample(listed, min(2, len(listed))):
            x, y = state.copy(), state.copy()
            apply(x, a)
            advance(y, a)
            assert x.snapshot() == y.snapshot(), a
