"""Set-up rules: snake order, settlement then road, the distance rule, starting cards."""

from __future__ import annotations

import pytest

from engine import (
    BuildRoad,
    EndTurn,
    GameConfig,
    IllegalActionError,
    Phase,
    PlaceRoad,
    PlaceSettlement,
    RollDice,
    SettlementBuilt,
    StartingResources,
    TurnStarted,
    apply,
    new_game,
)
from engine.constants import CITIES_PER_PLAYER, ROADS_PER_PLAYER, SETTLEMENTS_PER_PLAYER
from tests.engine.positions import (
    DEFAULT_PLACEMENTS,
    NOTHING,
    assert_conserved,
    assert_refused,
    config,
    counts,
    edge,
    setup_game,
)


@pytest.mark.parametrize(
    ("players", "order"),
    [
        (2, [0, 1, 1, 0]),
        (3, [0, 1, 2, 2, 1, 0]),
        (4, [0, 1, 2, 3, 3, 2, 1, 0]),
    ],
)
def test_setup_runs_in_snake_order(players: int, order: list[int]) -> None:
    state = new_game(config(players=players), seed=1)
    seen = []
    for v, w in DEFAULT_PLACEMENTS[: 2 * players]:
        assert state.phase == Phase.SETUP_SETTLEMENT
        seen.append(state.current)
        seat = state.current
        apply(state, PlaceSettlement(seat, v))
        assert state.phase == Phase.SETUP_ROAD
        assert state.current == seat  # the road comes from the same seat
        apply(state, PlaceRoad(seat, edge(state, v, w)))
    assert seen == order


def test_setup_ends_at_seat_zero_first_roll() -> None:
    state = new_game(config(), seed=1)
    events = []
    for v, w in DEFAULT_PLACEMENTS:
        seat = state.current
        events += apply(state, PlaceSettlement(seat, v))
        events += apply(state, PlaceRoad(seat, edge(state, v, w)))
    assert state.phase == Phase.PRE_ROLL
    assert state.current == 0
    assert state.turn == 1
    assert not state.rolled
    assert events[-1] == TurnStarted(0, 1)


def test_setup_road_must_touch_the_settlement_just_placed() -> None:
    state = new_game(config(), seed=1)
    apply(state, PlaceSettlement(0, 0))
    # A free path elsewhere on the board.
    assert_refused(state, PlaceRoad(0, edge(state, 10, 11)), "not_connected")
    # A path one step away from the settlement does not touch it either.
    assert_refused(state, PlaceRoad(0, edge(state, 1, 2)), "not_connected")
    apply(state, PlaceRoad(0, edge(state, 0, 1)))
    # Seat 1's road must touch seat 1's settlement, not seat 0's.
    apply(state, PlaceSettlement(1, 10))
    assert_refused(state, PlaceRoad(1, edge(state, 0, 5)), "not_connected")


def test_setup_settlement_then_road_alternate() -> None:
    state = new_game(config(), seed=1)
    assert_refused(state, PlaceRoad(0, edge(state, 0, 1)), "wrong_phase")
    apply(state, PlaceSettlement(0, 0))
    assert_refused(state, PlaceSettlement(0, 10), "wrong_phase")


def test_setup_distance_rule() -> None:
    state = new_game(config(), seed=1)
    apply(state, PlaceSettlement(0, 0))
    apply(state, PlaceRoad(0, edge(state, 0, 1)))
    assert_refused(state, PlaceSettlement(1, 0), "occupied")
    for neighbour in state.topo.vertex_vertices[0]:
        assert_refused(state, PlaceSettlement(1, neighbour), "distance_rule")
    # Two steps away is fine.
    apply(state, PlaceSettlement(1, 10))


def test_setup_actions_are_refused_out_of_turn() -> None:
    state = new_game(config(), seed=1)
    assert_refused(state, PlaceSettlement(1, 10), "not_your_turn")
    assert_refused(state, RollDice(0), "wrong_phase")
    assert_refused(state, BuildRoad(0, 0), "wrong_phase")
    assert_refused(state, EndTurn(0), "wrong_phase")
    with pytest.raises(IllegalActionError) as info:  # named as the protocol names it
        apply(state, BuildRoad(0, 0))
    assert info.value.message.startswith("build_road is only possible in phase main")


def test_first_settlement_pays_nothing_second_pays_per_producing_hex() -> None:
    state = new_game(config(players=2), seed=1)
    # Seat 0's first settlement: hills, forest and the desert; it pays nothing.
    events = apply(state, PlaceSettlement(0, 6))
    assert not any(isinstance(e, StartingResources) for e in events)
    assert state.hand_of(0) == NOTHING
    apply(state, PlaceRoad(0, edge(state, 6, 25)))
    apply(state, PlaceSettlement(1, 10))
    apply(state, PlaceRoad(1, edge(state, 10, 11)))
    # Seat 1's second settlement: forest 8, pasture 3, hills 4.
    events = apply(state, PlaceSettlement(1, 8))
    assert events == [
        SettlementBuilt(1, 8, True),
        StartingResources(1, counts(brick=1, lumber=1, wool=1)),
    ]
    assert state.hand_of(1) == counts(brick=1, lumber=1, wool=1)
    apply(state, PlaceRoad(1, edge(state, 8, 27)))
    # Seat 0's second settlement touches the desert: hills 12 and forest 8 pay, the desert
    # nothing.
    events = apply(state, PlaceSettlement(0, 0))
    assert StartingResources(0, counts(brick=1, lumber=1)) in events
    assert state.hand_of(0) == counts(brick=1, lumber=1)
    assert state.bank == [17, 17, 18, 19, 19]
    assert_conserved(state)


def test_second_settlement_on_two_hexes_of_one_resource_pays_two() -> None:
    # Vertex 22 touches hills 12 and two fields (10 and 8).
    placements = [(0, 1), (10, 11), (16, 17), (22, 21)]
    state = new_game(config(players=2), seed=1)
    for v, w in placements:
        seat = state.current
        apply(state, PlaceSettlement(seat, v))
        apply(state, PlaceRoad(seat, edge(state, v, w)))
    assert state.hand_of(0) == counts(grain=2, brick=1)


def test_setup_roads_that_meet_make_a_road_of_two() -> None:
    state = new_game(config(players=2), seed=1)
    for v, w in ((0, 1), (10, 11), (16, 17), (2, 1)):
        seat = state.current
        apply(state, PlaceSettlement(seat, v))
        apply(state, PlaceRoad(seat, edge(state, v, w)))
    assert state.road_len == [2, 1]


def test_pieces_and_points_after_setup() -> None:
    fresh = new_game(GameConfig(), seed=3)
    assert fresh.roads_left == [ROADS_PER_PLAYER] * 4 == [15] * 4
    assert fresh.settlements_left == [SETTLEMENTS_PER_PLAYER] * 4 == [5] * 4
    assert fresh.cities_left == [CITIES_PER_PLAYER] * 4 == [4] * 4
    state = setup_game()
    assert state.roads_left == [13] * 4
    assert state.settlements_left == [3] * 4
    assert state.vp == [2] * 4
    assert state.road_len == [1] * 4
