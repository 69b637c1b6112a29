"""Building: costs, where roads, settlements and cities may go, and the piece limits."""

from __future__ import annotations

from engine import (
    BuildCity,
    BuildRoad,
    BuildSettlement,
    CityBuilt,
    RoadBuilt,
    SettlementBuilt,
    apply,
    is_legal,
    legal_actions,
)
from engine.constants import CITY_COST, ROAD_COST, SETTLEMENT_COST
from engine.state import GameState
from tests.engine.positions import (
    SET_UP,
    assert_conserved,
    assert_refused,
    build_roads,
    counts,
    edge,
    give,
    main_phase,
    position,
    set_hand,
)


def main_game(
    victory_points: int = 10, cards: str = "3BWO/BLW/LWG/BWGO", bank: str = "14B17L15W17G17O"
) -> GameState:
    """The default set-up, seat 0 after rolling 12, the seats holding ``cards`` (by default
    what the set-up and the roll gave them: seat 0 3 brick, wool, ore) and the bank
    ``bank``, in the position notation."""
    return position(
        f"{SET_UP} {cards} {bank}/14K5V2R2Y2M main@0 t1 6+6 r L-,A-,K0.0.0.0 - - "
        f"v{victory_points},l7,a17,s0,r0000000000000000"
    )


def test_road_costs_brick_and_lumber_which_go_to_the_bank() -> None:
    state = main_game(cards="2BLW/BLW/LWG/BWGO", bank="15B16L15W17G18O")
    bank = state.bank[:]
    e = edge(state, 1, 2)
    events = apply(state, BuildRoad(0, e))
    assert events == [RoadBuilt(0, e, False)]
    assert state.hand_of(0) == counts(brick=1, wool=1)
    assert state.bank == [bank[0] + 1, bank[1] + 1, bank[2], bank[3], bank[4]]
    assert state.eowner[e] == 0
    assert state.roads_left[0] == 12
    assert state.road_len[0] == 2
    assert_conserved(state)


def test_road_must_join_the_own_network() -> None:
    state = main_game()
    give(state, 0, ROAD_COST)
    assert_refused(state, BuildRoad(0, edge(state, 30, 31)), "not_connected")
    # Next to seat 1's road, not seat 0's.
    assert_refused(state, BuildRoad(0, edge(state, 11, 12)), "not_connected")
    assert_refused(state, BuildRoad(0, edge(state, 10, 11)), "occupied")
    assert_refused(state, BuildRoad(0, edge(state, 0, 1)), "occupied")
    assert_refused(state, BuildRoad(0, 72), "bad_location")
    listed = {a.edge for a in legal_actions(state) if isinstance(a, BuildRoad)}
    assert listed == {
        edge(state, 1, 2),
        edge(state, 1, 10),
        edge(state, 0, 5),
        edge(state, 0, 7),
        edge(state, 6, 7),
        edge(state, 6, 23),
        edge(state, 24, 25),
        edge(state, 25, 26),
    }


def test_road_cannot_run_through_an_opponents_building() -> None:
    state = main_game()
    give(state, 0, counts(brick=2, lumber=2))
    # A road may end at seat 1's settlement on 10 ...
    apply(state, BuildRoad(0, edge(state, 1, 10)))
    # ... but not carry on past it.
    assert_refused(state, BuildRoad(0, edge(state, 9, 10)), "not_connected")
    # Seat 1 itself may build on from its settlement.
    main_phase(state, 1)
    give(state, 1, ROAD_COST)
    apply(state, BuildRoad(1, edge(state, 9, 10)))


def test_road_cannot_be_afforded_without_both_cards() -> None:
    state = main_game(cards="3BWO/BLW/LWG/BWGO", bank="14B17L15W17G17O")
    assert_refused(state, BuildRoad(0, edge(state, 1, 2)), "cannot_afford")
    assert not any(isinstance(a, BuildRoad) for a in legal_actions(state))


def test_settlement_costs_and_needs_an_own_road_and_the_distance_rule() -> None:
    state = main_game()
    build_roads(state, 0, [25, 26])
    set_hand(state, 0, SETTLEMENT_COST)
    assert_refused(state, BuildSettlement(0, 25), "distance_rule")  # next to seat 0 on 6
    assert_refused(state, BuildSettlement(0, 1), "distance_rule")  # next to 0 and 10
    assert_refused(state, BuildSettlement(0, 0), "occupied")
    assert_refused(state, BuildSettlement(0, 29), "not_connected")  # no road there
    bank = state.bank[:]
    events = apply(state, BuildSettlement(0, 26))
    assert events == [SettlementBuilt(0, 26, False)]
    assert state.hand_of(0) == counts()
    assert state.bank == [b + c for b, c in zip(bank, SETTLEMENT_COST, strict=True)]
    assert state.vowner[26] == 0 and state.vlevel[26] == 1
    assert state.vp[0] == 3
    assert state.settlements_left[0] == 2
    assert_conserved(state)


def test_an_opponents_road_does_not_connect_a_settlement() -> None:
    state = main_game()
    build_roads(state, 1, [27, 28])  # seat 1's road ends on 28
    main_phase(state, 0)
    set_hand(state, 0, SETTLEMENT_COST)
    assert_refused(state, BuildSettlement(0, 28), "not_connected")


def test_settlement_cannot_be_afforded() -> None:
    state = main_game()
    build_roads(state, 0, [25, 26])
    set_hand(state, 0, counts(brick=1, lumber=1, wool=1, ore=5))
    assert_refused(state, BuildSettlement(0, 26), "cannot_afford")


def test_city_only_on_an_own_settlement() -> None:
    state = main_game(cards="4G6O/BLW/LWG/BWGO", bank="17B17L16W13G12O")
    assert_refused(state, BuildCity(0, 10), "not_your_settlement")  # seat 1's
    assert_refused(state, BuildCity(0, 29), "not_your_settlement")  # empty
    bank = state.bank[:]
    events = apply(state, BuildCity(0, 0))
    assert events == [CityBuilt(0, 0)]
    assert state.vlevel[0] == 2
    assert state.hand_of(0) == counts(grain=2, ore=3)
    assert state.bank == [b + c for b, c in zip(bank, CITY_COST, strict=True)]
    assert state.vp[0] == 3
    assert state.cities_left[0] == 3
    assert state.settlements_left[0] == 4  # the settlement piece comes back
    assert_refused(state, BuildCity(0, 0), "not_your_settlement")  # already a city
    assert_conserved(state)


def test_city_cannot_be_afforded() -> None:
    state = main_game(cards="G3O/BLW/LWG/BWGO", bank="17B17L16W16G15O")
    assert_refused(state, BuildCity(0, 0), "cannot_afford")


def test_piece_limits() -> None:
    state = main_game(victory_points=20)  # nobody wins on the way
    # Three more settlements along the coast use up seat 0's five.
    build_roads(state, 0, [25, 26, 27, 28, 29, 30, 31, 32])
    for v in (26, 28, 30):
        give(state, 0, SETTLEMENT_COST)
        apply(state, BuildSettlement(0, v))
    assert state.settlements_left[0] == 0
    give(state, 0, SETTLEMENT_COST)
    assert_refused(state, BuildSettlement(0, 32), "no_pieces")
    assert not is_legal(state, BuildSettlement(0, 32))
    # A city takes a settlement back into the box, to be built again.
    give(state, 0, CITY_COST)
    apply(state, BuildCity(0, 0))
    assert state.settlements_left[0] == 1
    apply(state, BuildSettlement(0, 32))
    # Four cities in all.
    for v in (6, 26, 28):
        give(state, 0, CITY_COST)
        apply(state, BuildCity(0, v))
    assert state.cities_left[0] == 0
    give(state, 0, CITY_COST)
    assert_refused(state, BuildCity(0, 30), "no_pieces")
    # Fifteen roads: 2 in the set-up, 7 above, 6 more.
    assert state.roads_left[0] == 6
    build_roads(state, 0, [32, 33, 34, 35, 36, 37, 38])
    assert state.roads_left[0] == 0
    assert len(state.proads[0]) == 15
    give(state, 0, ROAD_COST)
    assert_refused(state, BuildRoad(0, edge(state, 38, 39)), "no_pieces")
    assert_conserved(state)
