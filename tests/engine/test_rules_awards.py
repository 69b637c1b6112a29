"""Longest road, largest army, and winning."""

from __future__ import annotations

from engine import (
    AcceptTrade,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    CancelTrade,
    ConfirmTrade,
    CounterTrade,
    DeclineTrade,
    DevCard,
    DevCardPlayed,
    Discard,
    EndTurn,
    Event,
    GameWon,
    IllegalActionError,
    LargestArmyChanged,
    LongestRoadChanged,
    MaritimeTrade,
    MoveRobber,
    OfferTrade,
    Phase,
    PlaceRoad,
    PlaceSettlement,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    Resource,
    RoadBuilt,
    RollDice,
    SettlementBuilt,
    TurnStarted,
    apply,
    default_action,
    legal_actions,
    longest_road,
    seats_to_act,
    view,
)
from engine.actions import Action
from engine.constants import CITY_COST, ROAD_COST, SETTLEMENT_COST, Award
from engine.pieces import set_award
from engine.rules import robber_victims
from engine.state import GameState
from tests.engine.positions import (
    assert_refused,
    build_roads,
    config,
    counts,
    edge,
    force_roll,
    give,
    give_dev,
    main_phase,
    put_road,
    setup_game,
)

BRICK, LUMBER, WOOL, GRAIN, ORE = Resource

# Seat 0 on 6 and 11 with roads 6-7 and 11-10: three roads 7-8-9-10 join them into a road
# of 5 through 8, where seat 1 (on 28, road 28-27) can settle to cut it. Seat 2 on 16 (road
# 16-17) has room for a road 16-17-18-19-20-21-22; seat 1 on 40 (road 40-39) for a road
# 40-39-38-37-36-35. Seat 3 sits out of the way on 33 and 50.
ROAD_PLACEMENTS = ((6, 7), (28, 27), (16, 17), (33, 34), (50, 51), (45, 44), (40, 39), (11, 10))
SEAT0_ROAD = [7, 8, 9, 10]  # completes 6-7-8-9-10-11
SEAT1_ROAD = [39, 38, 37, 36, 35]  # completes 40-...-35
SEAT2_ROAD = [17, 18, 19, 20, 21]  # completes 16-...-21


def road_game(victory_points: int = 10) -> GameState:
    state = setup_game(config(victory_points=victory_points), placements=ROAD_PLACEMENTS)
    force_roll(state, 12)
    return state


def cut_at_8(state: GameState) -> list[Event]:
    """Seat 1 builds a road 27-8 and a settlement on 8, in the middle of seat 0's road.
    Returns the settlement's events."""
    build_roads(state, 1, [27, 8])
    give(state, 1, SETTLEMENT_COST)
    return apply(state, BuildSettlement(1, 8))


# --------------------------------------------------------------------------------------
# Longest road
# --------------------------------------------------------------------------------------


def test_longest_road_needs_five_roads() -> None:
    state = road_game()
    build_roads(state, 2, [17, 18, 19, 20])  # 4 in a row
    assert state.road_len[2] == 4
    assert state.longest_holder == -1
    assert state.vp[2] == 2
    build_roads(state, 0, [7, 8, 9])
    assert state.road_len[0] == 3  # two pieces: 6-7-8-9 and 11-10
    give(state, 0, ROAD_COST)
    e = edge(state, 9, 10)
    events = apply(state, BuildRoad(0, e))
    assert events == [RoadBuilt(0, e, False), LongestRoadChanged(0, 5)]
    assert state.road_len[0] == 5
    assert state.longest_holder == 0
    assert state.vp == [4, 2, 2, 2]
    assert view(state, 1).seats[0].has_longest_road


def test_longest_road_holder_keeps_it_on_a_tie() -> None:
    state = road_game()
    build_roads(state, 0, SEAT0_ROAD)
    build_roads(state, 2, SEAT2_ROAD[:-1])
    give(state, 2, ROAD_COST)
    events = apply(state, BuildRoad(2, edge(state, 20, 21)))
    assert state.road_len[2] == 5
    assert not any(isinstance(e, LongestRoadChanged) for e in events)
    assert state.longest_holder == 0
    assert state.vp == [4, 2, 2, 2]


def test_longest_road_passes_to_whoever_exceeds_it() -> None:
    state = road_game()
    build_roads(state, 0, SEAT0_ROAD)
    build_roads(state, 2, SEAT2_ROAD)
    give(state, 2, ROAD_COST)
    events = apply(state, BuildRoad(2, edge(state, 21, 22)))
    assert events[-1] == LongestRoadChanged(2, 6)
    assert state.longest_holder == 2
    assert state.vp == [2, 2, 4, 2]
    # Seat 0 must now exceed 6 in turn; 6 is only a tie.
    build_roads(state, 0, [11, 12])
    assert state.road_len[0] == 6
    assert state.longest_holder == 2
    build_roads(state, 0, [12, 13])
    assert state.longest_holder == 0
    assert state.vp == [4, 2, 2, 2]


def test_a_settlement_cutting_a_road_gives_it_to_a_single_longest() -> None:
    state = road_game()
    build_roads(state, 0, SEAT0_ROAD)
    build_roads(state, 2, SEAT2_ROAD)
    assert state.longest_holder == 0
    events = cut_at_8(state)
    assert events == [SettlementBuilt(1, 8, False), LongestRoadChanged(2, 5)]
    assert state.road_len[0] == 3  # 8-9-10-11 is left
    assert state.longest_holder == 2
    assert state.vp == [2, 3, 4, 2]


def test_a_cut_leaving_nobody_at_five_sets_the_card_aside() -> None:
    state = road_game()
    build_roads(state, 0, SEAT0_ROAD)
    events = cut_at_8(state)
    assert events[-1] == LongestRoadChanged(None, 0)
    assert state.longest_holder == -1
    assert state.vp == [2, 3, 2, 2]


def test_a_cut_leaving_a_tie_for_longest_sets_the_card_aside() -> None:
    state = road_game()
    build_roads(state, 0, SEAT0_ROAD)
    build_roads(state, 1, SEAT1_ROAD)
    build_roads(state, 2, SEAT2_ROAD)
    assert state.road_len == [5, 5, 5, 1]
    assert state.longest_holder == 0
    events = cut_at_8(state)
    assert events[-1] == LongestRoadChanged(None, 0)
    assert state.longest_holder == -1
    assert state.vp == [2, 3, 2, 2]
    # The card set aside goes to the next to make a single longest road.
    build_roads(state, 2, [21, 22])
    assert state.longest_holder == 2
    assert state.vp == [2, 3, 4, 2]


def test_a_cut_holder_still_tied_for_longest_keeps_the_card() -> None:
    state = road_game()
    build_roads(state, 0, SEAT0_ROAD)
    build_roads(state, 0, [11, 12, 13])
    assert state.road_len[0] == 7
    build_roads(state, 2, SEAT2_ROAD)
    events = cut_at_8(state)
    assert not any(isinstance(e, LongestRoadChanged) for e in events)
    assert state.road_len[0] == 5  # 8-9-10-11-12-13
    assert state.longest_holder == 0
    assert state.vp == [4, 3, 2, 2]


def test_an_opponents_building_at_a_road_end_does_not_shorten_it() -> None:
    state = road_game()
    build_roads(state, 0, [7, 8])
    build_roads(state, 1, [27, 8])
    # Seat 0's road 6-7-8 ends where seat 1 builds: it keeps its length.
    give(state, 1, SETTLEMENT_COST)
    apply(state, BuildSettlement(1, 8))
    assert state.road_len[0] == 2
    assert longest_road(state, 0) == 2


def test_a_loop_counts_every_road_once() -> None:
    state = road_game()
    # 6-7-0 and the six roads round the centre hex: a trail 6-7-0-1-2-3-4-5-0 of 8.
    build_roads(state, 0, [7, 0, 1, 2, 3, 4, 5, 0])
    assert state.road_len[0] == 8
    assert longest_road(state, 0) == 8
    # Seat 3 settles on 2 in the loop: 2-1-0-5-4-3-2 (6) is the longest left.
    put_road(state, 3, edge(state, 2, 13))
    main_phase(state, 3)
    give(state, 3, SETTLEMENT_COST)
    apply(state, BuildSettlement(3, 2))
    assert state.road_len[0] == 6
    assert longest_road(state, 0) == 6


def test_a_new_road_does_not_count_trails_through_an_opponents_settlement() -> None:
    state = road_game()
    build_roads(state, 0, [7, 8, 9])
    cut_at_8(state)
    assert state.road_len[0] == 2  # 6-7-8 | 8-9
    build_roads(state, 0, [6, 23])  # 23-6-7-8 is 3; 23-6-7-8-9 would pass seat 1 on 8
    assert state.road_len[0] == 3


def test_a_loop_through_an_opponents_settlement() -> None:
    state = road_game()
    put_road(state, 3, edge(state, 2, 13))
    main_phase(state, 3)
    give(state, 3, SETTLEMENT_COST)
    apply(state, BuildSettlement(3, 2))
    build_roads(state, 0, [7, 0, 1, 2])  # 6-7-0-1-2 ends at seat 3's settlement
    assert state.road_len[0] == 4
    # Round the other way to 2: 6-7-0-5-4-3-2 and 2-1-0-5-4-3-2 are 6 long, and no trail
    # passes through 2.
    build_roads(state, 0, [0, 5, 4, 3, 2])
    assert state.road_len[0] == 6
    assert longest_road(state, 0) == 6


def test_a_branch_does_not_lengthen_the_road() -> None:
    state = road_game()
    build_roads(state, 0, SEAT0_ROAD)
    assert state.road_len[0] == 5
    build_roads(state, 0, [7, 0])  # a spur off 7
    build_roads(state, 0, [9, 30])  # a spur off 9
    assert state.road_len[0] == 5
    build_roads(state, 0, [0, 1])  # the spur at 7 grows to 7-0-1: 1-0-7-8-9-10-11 is 6
    assert state.road_len[0] == 6


# --------------------------------------------------------------------------------------
# Largest army
# --------------------------------------------------------------------------------------


def play_knight(state: GameState, seat: int) -> list[Event]:
    """``seat`` plays a knight in its main phase and moves the robber off hex 0 or 7."""
    main_phase(state, seat)
    give_dev(state, seat, DevCard.KNIGHT)
    events = apply(state, PlayKnight(seat))
    if state.phase == Phase.MOVE_ROBBER:
        h = 7 if state.robber != 7 else 9
        victims = robber_victims(state, h, seat)
        apply(state, MoveRobber(seat, h, victims[0] if victims else None))
    return events


def test_largest_army_needs_three_knights() -> None:
    state = road_game()
    state.hand = [0] * 20  # nobody to rob
    state.bank = [19] * 5
    assert play_knight(state, 0) == [DevCardPlayed(0, DevCard.KNIGHT)]
    play_knight(state, 0)
    assert state.knights[0] == 2
    assert state.army_holder == -1
    events = play_knight(state, 0)
    assert events == [DevCardPlayed(0, DevCard.KNIGHT), LargestArmyChanged(0, 3)]
    assert state.army_holder == 0
    assert state.vp == [4, 2, 2, 2]
    assert view(state, 2).seats[0].has_largest_army


def test_largest_army_changes_hands_only_when_exceeded() -> None:
    state = road_game()
    state.hand = [0] * 20
    state.bank = [19] * 5
    state.knights[0] = 2
    play_knight(state, 0)
    assert state.army_holder == 0
    state.knights[1] = 2
    events = play_knight(state, 1)  # 3 against 3: the holder keeps it
    assert not any(isinstance(e, LargestArmyChanged) for e in events)
    assert state.army_holder == 0
    events = play_knight(state, 1)
    assert events[-1] == LargestArmyChanged(1, 4)
    assert state.army_holder == 1
    assert state.vp == [2, 4, 2, 2]


def test_set_award_moves_the_holder_and_the_points_together() -> None:
    state = road_game()
    assert state.vp == [2, 2, 2, 2]
    set_award(state, Award.LONGEST_ROAD, 2)
    assert (state.longest_holder, state.army_holder, state.vp) == (2, -1, [2, 2, 4, 2])
    set_award(state, Award.LARGEST_ARMY, 2)
    assert (state.longest_holder, state.army_holder, state.vp) == (2, 2, [2, 2, 6, 2])
    set_award(state, Award.LARGEST_ARMY, 2)  # to its holder: nothing changes
    assert (state.army_holder, state.vp) == (2, [2, 2, 6, 2])
    set_award(state, Award.LONGEST_ROAD, 0)
    assert (state.longest_holder, state.army_holder, state.vp) == (0, 2, [4, 2, 4, 2])
    set_award(state, Award.LARGEST_ARMY, -1)  # set aside
    assert (state.longest_holder, state.army_holder, state.vp) == (0, -1, [4, 2, 2, 2])


# --------------------------------------------------------------------------------------
# Winning
# --------------------------------------------------------------------------------------


def test_reaching_the_target_on_ones_own_turn_wins() -> None:
    state = setup_game(config(victory_points=3))
    force_roll(state, 12)
    build_roads(state, 0, [25, 26])
    give(state, 0, SETTLEMENT_COST)
    events = apply(state, BuildSettlement(0, 26))
    assert events == [SettlementBuilt(0, 26, False), GameWon(0, (3, 2, 2, 2), (0, 0, 0, 0))]
    assert state.phase == Phase.GAME_OVER
    assert state.is_over
    assert state.winner == 0
    assert seats_to_act(state) == ()
    assert legal_actions(state) == []


def test_hidden_victory_cards_count_toward_winning() -> None:
    state = setup_game(config(victory_points=4))
    force_roll(state, 12)
    give_dev(state, 0, DevCard.VICTORY_POINT)
    give(state, 0, CITY_COST)
    events = apply(state, BuildCity(0, 0))
    assert events[-1] == GameWon(0, (4, 2, 2, 2), (1, 0, 0, 0))
    assert state.winner == 0
    final = view(state, 3)
    assert final.final_points == (4, 2, 2, 2)
    assert final.victory_cards == (1, 0, 0, 0)


def test_winning_by_largest_army_ends_the_game_at_once() -> None:
    state = road_game(victory_points=4)
    state.knights[0] = 2
    give_dev(state, 0, DevCard.KNIGHT)
    events = apply(state, PlayKnight(0))
    assert events == [
        DevCardPlayed(0, DevCard.KNIGHT),
        LargestArmyChanged(0, 3),
        GameWon(0, (4, 2, 2, 2), (0, 0, 0, 0)),
    ]
    assert state.phase == Phase.GAME_OVER


def test_points_gained_on_another_turn_win_at_the_start_of_ones_own() -> None:
    state = road_game(victory_points=5)
    give_dev(state, 2, DevCard.VICTORY_POINT)  # seat 2: 2 settlements + 1 hidden
    build_roads(state, 0, SEAT0_ROAD)
    build_roads(state, 2, SEAT2_ROAD)
    assert state.victory_points(2) == 3
    events = cut_at_8(state)  # seat 1's turn: the card passes to seat 2
    assert events[-1] == LongestRoadChanged(2, 5)
    assert state.victory_points(2) == 5
    assert state.phase == Phase.MAIN
    assert state.winner == -1
    turn = state.turn
    events = apply(state, EndTurn(1))
    assert events == [TurnStarted(2, turn + 1), GameWon(2, (2, 3, 5, 2), (0, 0, 1, 0))]
    assert state.phase == Phase.GAME_OVER
    assert state.winner == 2


def test_points_gained_on_another_turn_do_not_win_on_a_third_seats_turn() -> None:
    state = road_game(victory_points=5)
    give_dev(state, 2, DevCard.VICTORY_POINT)
    build_roads(state, 0, SEAT0_ROAD)
    build_roads(state, 2, SEAT2_ROAD)
    cut_at_8(state)
    main_phase(state, 3)  # hand-made: the turn passes to seat 3 instead
    apply(state, EndTurn(3))
    assert state.current == 0
    assert state.phase == Phase.PRE_ROLL
    assert state.winner == -1


def test_every_action_is_refused_once_the_game_is_over() -> None:
    state = setup_game(config(victory_points=3))
    force_roll(state, 12)
    give(state, 0, CITY_COST)
    give(state, 1, counts(5, 5, 5, 5, 5))
    apply(state, BuildCity(0, 0))
    assert state.is_over
    actions: list[Action] = [
        RollDice(0),
        RollDice(1),
        EndTurn(0),
        EndTurn(1),
        PlaceSettlement(0, 30),
        PlaceRoad(0, 0),
        BuildRoad(0, edge(state, 1, 2)),
        BuildRoad(1, edge(state, 9, 10)),
        BuildSettlement(0, 25),
        BuildCity(0, 6),
        BuildCity(1, 10),
        BuyDevCard(0),
        BuyDevCard(1),
        PlayKnight(0),
        PlayRoadBuilding(0),
        PlayYearOfPlenty(0, counts(ore=2)),
        PlayMonopoly(0, WOOL),
        MaritimeTrade(1, BRICK, ORE, 4),
        OfferTrade(0, counts(grain=1), counts(brick=1)),
        AcceptTrade(1),
        DeclineTrade(1),
        CounterTrade(1, counts(brick=1), counts(ore=1)),
        ConfirmTrade(0, 1),
        CancelTrade(0),
        Discard(1, counts(brick=1)),
        MoveRobber(0, 5, None),
    ]
    for action in actions:
        assert_refused(state, action, "game_over")
    for seat in range(4):
        try:
            default_action(state, seat)
        except IllegalActionError:
            pass
        else:
            raise AssertionError("a finished game gave a default action")
