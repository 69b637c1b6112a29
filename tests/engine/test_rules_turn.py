"""A turn: rolling, production, the seven and the robber, acting out of turn, default actions."""

from __future__ import annotations

from engine import (
    AcceptTrade,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    CancelTrade,
    DeclineTrade,
    DevCard,
    DevCardPlayed,
    DiceRolled,
    Discard,
    Discarded,
    DiscardsOwed,
    EndTurn,
    Event,
    IllegalActionError,
    MaritimeTrade,
    MoveRobber,
    OfferTrade,
    Phase,
    PlaceRoad,
    PlaceSettlement,
    PlayKnight,
    PlayRoadBuilding,
    Produced,
    Resource,
    RobberMoved,
    RollDice,
    Stolen,
    apply,
    check,
    default_action,
    is_legal,
    legal_actions,
    new_game,
    seats_to_act,
)
from engine.actions import Action, Counts
from engine.constants import CITY_COST
from engine.rules import robber_victims
from engine.state import GameState
from tests.engine.positions import (
    NOTHING,
    assert_conserved,
    assert_refused,
    config,
    counts,
    edge,
    force_roll,
    give,
    give_dev,
    leave_in_bank,
    main_phase,
    pre_roll,
    set_hand,
    setup_game,
)

BRICK, LUMBER, WOOL, GRAIN, ORE = Resource

# --------------------------------------------------------------------------------------
# Before the roll
# --------------------------------------------------------------------------------------


def test_before_rolling_only_the_roll_is_listed() -> None:
    state = setup_game()
    assert legal_actions(state) == [RollDice(0)]
    assert legal_actions(state, 1) == []


def test_before_rolling_an_old_knight_may_be_played() -> None:
    state = setup_game()
    give_dev(state, 0, DevCard.KNIGHT)
    assert set(legal_actions(state)) == {RollDice(0), PlayKnight(0)}
    events = apply(state, PlayKnight(0))
    assert events[0] == DevCardPlayed(0, DevCard.KNIGHT)
    assert state.phase == Phase.MOVE_ROBBER
    apply(state, MoveRobber(0, 7, None))  # mountains 2: nobody to rob there
    # Back before the roll: the knight replaced nothing, the roll is still owed.
    assert state.phase == Phase.PRE_ROLL
    assert not state.rolled
    assert legal_actions(state) == [RollDice(0)]
    force_roll(state, 12)
    assert state.phase == Phase.MAIN


def test_building_before_rolling_is_refused() -> None:
    state = setup_game()
    give(state, 0, counts(5, 5, 5, 5, 5))
    give_dev(state, 0, DevCard.MONOPOLY)
    give_dev(state, 0, DevCard.YEAR_OF_PLENTY)
    give_dev(state, 0, DevCard.ROAD_BUILDING)
    actions: list[Action] = [
        BuildRoad(0, edge(state, 1, 2)),
        BuildSettlement(0, 25),
        BuildCity(0, 0),
        BuyDevCard(0),
        MaritimeTrade(0, BRICK, LUMBER, 4),
        OfferTrade(0, counts(brick=1), counts(ore=1)),
        EndTurn(0),
        Discard(0, counts(brick=1)),
        MoveRobber(0, 5, None),
    ]
    for action in actions:
        assert_refused(state, action, "wrong_phase")


def test_rolling_twice_is_refused() -> None:
    state = setup_game()
    force_roll(state, 12)
    assert_refused(state, RollDice(0), "wrong_phase")


# --------------------------------------------------------------------------------------
# Production
# --------------------------------------------------------------------------------------


def test_settlements_produce_one_card_each() -> None:
    state = setup_game()
    bank = state.bank[:]
    events = force_roll(state, 12)  # hills 12 (hex 1): seat 0 at 0 and 6, seat 3 at 22
    assert isinstance(events[0], DiceRolled) and events[0].total == 12
    assert events[1] == Produced((counts(brick=2), NOTHING, NOTHING, counts(brick=1)), ())
    assert state.hand_of(0) == counts(brick=3, wool=1, ore=1)  # one brick from the set-up
    assert state.hand_of(3) == counts(brick=1, wool=1, grain=1, ore=1)
    assert state.bank[BRICK] == bank[BRICK] - 3
    assert state.phase == Phase.MAIN
    assert_conserved(state)


def test_two_hexes_with_the_same_number_both_produce() -> None:
    state = setup_game()
    events = force_roll(state, 8)  # forest 8 (hex 2) and fields 8 (hex 18)
    assert events[1] == Produced((counts(lumber=1), counts(lumber=2), NOTHING, counts(grain=1)), ())


def test_city_produces_two_cards() -> None:
    state = setup_game()
    main_phase(state, 0)
    give(state, 0, CITY_COST)
    apply(state, BuildCity(0, 0))
    pre_roll(state, 0)
    events = force_roll(state, 12)
    # City at 0 and settlement at 6 on the hills: 3 brick; seat 3's settlement: 1.
    assert events[1] == Produced((counts(brick=3), NOTHING, NOTHING, counts(brick=1)), ())


def test_robber_hex_produces_nothing() -> None:
    state = setup_game()
    state.robber = 1  # on hills 12
    events = force_roll(state, 12)
    assert events[1] == Produced((NOTHING,) * 4, ())
    assert state.hand_of(0) == counts(brick=1, wool=1, ore=1)
    state2 = setup_game()
    state2.robber = 2  # on forest 8: fields 8 still pays
    events = force_roll(state2, 8)
    assert events[1] == Produced((NOTHING, NOTHING, NOTHING, counts(grain=1)), ())


def test_bank_shortage_with_several_takers_pays_nobody() -> None:
    state = setup_game()
    leave_in_bank(state, BRICK, 2, holder=2)  # 3 brick are owed
    events = force_roll(state, 12)
    assert events[1] == Produced((NOTHING,) * 4, (BRICK,))
    assert state.bank[BRICK] == 2
    assert state.hand_of(0)[BRICK] == 1 and state.hand_of(3)[BRICK] == 0
    assert_conserved(state)


def test_bank_shortage_of_one_resource_does_not_stop_another() -> None:
    state = setup_game()
    leave_in_bank(state, LUMBER, 1, holder=2)  # 3 lumber are owed
    events = force_roll(state, 8)
    assert events[1] == Produced((NOTHING, NOTHING, NOTHING, counts(grain=1)), (LUMBER,))
    assert state.bank[LUMBER] == 1


def test_bank_with_exactly_enough_pays_everyone() -> None:
    state = setup_game()
    leave_in_bank(state, BRICK, 3, holder=2)  # exactly the 3 brick owed
    events = force_roll(state, 12)
    assert events[1] == Produced((counts(brick=2), NOTHING, NOTHING, counts(brick=1)), ())
    assert state.bank[BRICK] == 0


def test_bank_shortage_with_a_single_taker_pays_what_is_left() -> None:
    state = setup_game()
    main_phase(state, 0)
    give(state, 0, CITY_COST)
    apply(state, BuildCity(0, 6))  # a city on mountains 2: owed 2 ore
    leave_in_bank(state, ORE, 1, holder=2)
    pre_roll(state, 0)
    ore_before = state.hand_of(0)[ORE]
    events = force_roll(state, 2)
    assert events[1] == Produced((counts(ore=1), NOTHING, NOTHING, NOTHING), (ORE,))
    assert state.hand_of(0)[ORE] == ore_before + 1
    assert state.bank[ORE] == 0
    assert_conserved(state)


def test_bank_shortage_with_a_single_taker_on_two_buildings() -> None:
    # Two seats: seat 0 has settlements on 0 and 22, both on hills 12; nobody else is there.
    state = setup_game(config(players=2))
    leave_in_bank(state, BRICK, 1, holder=1)  # 2 brick are owed
    brick = state.hand_of(0)[BRICK]
    events = force_roll(state, 12)
    assert events[1] == Produced((counts(brick=1), NOTHING), (BRICK,))
    assert state.hand_of(0)[BRICK] == brick + 1
    assert state.bank[BRICK] == 0
    assert_conserved(state)


# --------------------------------------------------------------------------------------
# The seven
# --------------------------------------------------------------------------------------


def seven_with_hands(hands: list[Counts]) -> tuple[GameState, list[Event]]:
    state = setup_game()
    for seat, cards in enumerate(hands):
        set_hand(state, seat, cards)
    events = force_roll(state, 7)
    return state, events


def test_seven_makes_everyone_over_seven_owe_half() -> None:
    state, events = seven_with_hands(
        [counts(8, 0, 0, 0, 0), counts(2, 2, 2, 1, 0), counts(0, 9, 0, 0, 0), counts(3, 0, 3, 3, 2)]
    )
    # 8 -> 4, exactly 7 -> nothing, 9 -> 4, 11 -> 5.
    assert events[1:] == [DiscardsOwed((4, 0, 4, 5))]
    assert not any(isinstance(e, Produced) for e in events)
    assert state.phase == Phase.DISCARD
    assert state.owed == [4, 0, 4, 5]
    assert seats_to_act(state) == (0, 2, 3)


def test_seven_with_nobody_over_the_limit_goes_to_the_robber() -> None:
    state, events = seven_with_hands([counts(7, 0, 0, 0, 0), counts(1, 1, 1, 1, 1)])
    assert not any(isinstance(e, DiscardsOwed) for e in events)
    assert state.phase == Phase.MOVE_ROBBER
    assert seats_to_act(state) == (0,)


def test_discards_may_be_partial_and_never_exceed_what_is_owed() -> None:
    state, _ = seven_with_hands([counts(8, 0, 0, 0, 0), NOTHING, counts(0, 4, 5, 0, 0), NOTHING])
    assert state.owed == [4, 0, 4, 0]
    assert_refused(state, Discard(2, counts(lumber=3, wool=2)), "bad_discard")  # 5 > 4
    assert_refused(state, Discard(2, NOTHING), "bad_discard")
    assert_refused(state, Discard(2, counts(ore=1)), "cannot_afford")
    assert_refused(state, Discard(1, counts(brick=1)), "not_your_turn")  # owes nothing
    # The robber waits for every discard.
    assert_refused(state, MoveRobber(0, 5, None), "wrong_phase")
    events = apply(state, Discard(2, counts(lumber=1)))
    assert events == [Discarded(2, counts(lumber=1))]
    assert state.owed == [4, 0, 3, 0]
    assert state.hand_of(2) == counts(lumber=3, wool=5)
    assert seats_to_act(state) == (0, 2)
    assert_refused(state, Discard(2, counts(wool=4)), "bad_discard")  # 4 > 3 left
    apply(state, Discard(2, counts(lumber=1, wool=2)))
    assert seats_to_act(state) == (0,)
    assert state.phase == Phase.DISCARD
    apply(state, Discard(0, counts(brick=4)))
    assert state.phase == Phase.MOVE_ROBBER
    assert state.hand_of(0) == counts(brick=4)
    assert_conserved(state)


def test_robber_must_move_to_another_hex() -> None:
    state, _ = seven_with_hands([NOTHING, NOTHING, NOTHING, NOTHING])
    assert state.robber == 0
    assert_refused(state, MoveRobber(0, 0, None), "robber_must_move")
    assert_refused(state, MoveRobber(0, 19, None), "bad_location")


def test_robber_victim_rules() -> None:
    # Hex 2 (forest 8) has seat 0 at 0 and seat 1 at 8 and 10.
    state, _ = seven_with_hands([counts(ore=1), counts(lumber=3), counts(wool=2), NOTHING])
    assert_refused(state, MoveRobber(0, 2, None), "victim_required")
    assert_refused(state, MoveRobber(0, 2, 2), "bad_victim")  # cards but no building there
    assert_refused(state, MoveRobber(0, 2, 0), "bad_victim")  # not oneself
    # Hex 6 (fields 10) has only seat 3, who holds no cards: still a victim to name.
    assert_refused(state, MoveRobber(0, 6, None), "victim_required")
    assert robber_victims(state, 6, 0) == [3]


def test_robbing_a_seat_without_cards_takes_nothing() -> None:
    state, _ = seven_with_hands([counts(ore=1), counts(lumber=3), counts(wool=2), NOTHING])
    before = state.rng
    assert apply(state, MoveRobber(0, 6, 3)) == [RobberMoved(0, 6, 3)]
    assert state.hand_of(0) == counts(ore=1) and state.hand_of(3) == NOTHING
    assert state.rng == before  # no card drawn
    assert state.robber == 6 and state.phase == Phase.MAIN
    assert_conserved(state)


def test_steal_moves_one_card_and_hides_it_from_others() -> None:
    state, _ = seven_with_hands([counts(ore=1), counts(lumber=3), counts(wool=2), NOTHING])
    events = apply(state, MoveRobber(0, 2, 1))
    assert events[0] == RobberMoved(0, 2, 1)
    stolen = events[1]
    assert stolen == Stolen(0, 1, LUMBER)
    assert state.hand_of(0) == counts(lumber=1, ore=1)
    assert state.hand_of(1) == counts(lumber=2)
    assert state.hand_of(2) == counts(wool=2)
    assert state.robber == 2
    assert state.phase == Phase.MAIN
    assert stolen.for_seat(0) == Stolen(0, 1, LUMBER)
    assert stolen.for_seat(1) == Stolen(0, 1, LUMBER)
    assert stolen.for_seat(2) == Stolen(0, 1, None)
    assert stolen.for_seat(3) == Stolen(0, 1, None)
    assert stolen.for_seat(None) == Stolen(0, 1, None)
    assert_conserved(state)


def test_moving_the_robber_with_no_victim_steals_nothing() -> None:
    state, _ = seven_with_hands([counts(ore=1), counts(lumber=3), NOTHING, NOTHING])
    events = apply(state, MoveRobber(0, 7, None))  # mountains 2: only seat 0 there
    assert events == [RobberMoved(0, 7, None)]
    assert state.hand_of(0) == counts(ore=1)
    assert state.hand_of(1) == counts(lumber=3)


# --------------------------------------------------------------------------------------
# Out of turn, and refused actions leave the state alone
# --------------------------------------------------------------------------------------


def test_out_of_turn_actions_are_refused() -> None:
    state = setup_game()
    assert_refused(state, RollDice(1), "not_your_turn")
    force_roll(state, 12)
    give(state, 1, counts(5, 5, 5, 5, 5))
    assert_refused(state, BuildRoad(1, edge(state, 9, 10)), "not_your_turn")
    assert_refused(state, BuyDevCard(1), "not_your_turn")
    assert_refused(state, MaritimeTrade(1, BRICK, ORE, 4), "not_your_turn")
    assert_refused(state, OfferTrade(1, counts(brick=1), counts(ore=1)), "not_your_turn")
    assert_refused(state, EndTurn(1), "not_your_turn")
    assert_refused(state, EndTurn(7), "bad_seat")


def test_refused_actions_leave_the_state_unchanged() -> None:
    state = setup_game()
    force_roll(state, 12)
    set_hand(state, 0, counts(brick=1))
    refused: list[tuple[Action, str]] = [
        (BuildRoad(0, edge(state, 1, 2)), "cannot_afford"),
        (BuyDevCard(0), "cannot_afford"),
        (BuildSettlement(0, 25), "cannot_afford"),
        (PlayKnight(0), "no_such_card"),
        (MaritimeTrade(0, BRICK, ORE, 4), "cannot_afford"),
        (OfferTrade(0, counts(brick=2), counts(ore=1)), "cannot_afford"),
        (AcceptTrade(1), "wrong_phase"),
        (PlaceSettlement(0, 30), "wrong_phase"),
        (PlaceRoad(0, 0), "wrong_phase"),
    ]
    for action, code in refused:
        before = state.snapshot()
        try:
            check(state, action)
        except IllegalActionError as exc:
            assert exc.code == code
        else:
            raise AssertionError(f"{action} was not refused")
        assert_refused(state, action, code)
        assert state.snapshot() == before


def test_a_refused_purchase_does_not_draw_from_the_rng() -> None:
    state = setup_game()
    force_roll(state, 12)
    state.deck = [0, 0, 0, 0, 0]
    give(state, 0, counts(wool=1, grain=1, ore=1))
    rng = state.rng
    assert_refused(state, BuyDevCard(0), "deck_empty")
    assert state.rng == rng


# --------------------------------------------------------------------------------------
# Default actions
# --------------------------------------------------------------------------------------


def assert_default_is_legal(state: GameState, seat: int) -> None:
    action = default_action(state, seat)
    assert action.seat == seat
    check(state, action)  # raises if illegal


def test_default_action_during_setup() -> None:
    state = new_game(config(), seed=5)
    for _ in range(8):
        seat = state.current
        action = default_action(state, seat)
        assert isinstance(action, PlaceSettlement)
        apply(state, action)
        action = default_action(state, seat)
        assert isinstance(action, PlaceRoad)
        apply(state, action)
    assert state.phase == Phase.PRE_ROLL


def test_default_action_before_rolling_and_in_main() -> None:
    state = setup_game()
    assert default_action(state, 0) == RollDice(0)
    force_roll(state, 12)
    assert_default_is_legal(state, 0)


def test_default_action_discards_everything_owed_at_once() -> None:
    state, _ = seven_with_hands(
        [counts(5, 0, 0, 3, 1), NOTHING, counts(0, 4, 5, 0, 0), counts(2, 2, 2, 2, 3)]
    )
    assert state.owed == [4, 0, 4, 5]
    for seat in (0, 2, 3):
        action = default_action(state, seat)
        assert isinstance(action, Discard)
        assert sum(action.cards) == state.owed[seat]
        assert all(c <= h for c, h in zip(action.cards, state.hand_of(seat), strict=True))
        assert is_legal(state, action)
        apply(state, action)
        assert state.owed[seat] == 0
    assert state.phase == Phase.MOVE_ROBBER
    robber = default_action(state, 0)
    assert isinstance(robber, MoveRobber)
    assert robber.hex != 0
    assert_default_is_legal(state, 0)


def test_default_action_in_road_building_and_trade() -> None:
    state = setup_game()
    force_roll(state, 12)
    give_dev(state, 0, DevCard.ROAD_BUILDING)
    apply(state, PlayRoadBuilding(0))
    assert state.phase == Phase.ROAD_BUILDING
    action = default_action(state, 0)
    assert isinstance(action, BuildRoad)
    assert_default_is_legal(state, 0)
    apply(state, action)
    apply(state, default_action(state, 0))
    assert state.phase == Phase.MAIN
    set_hand(state, 0, counts(brick=1))
    apply(state, OfferTrade(0, counts(brick=1), counts(wool=1)))
    assert default_action(state, 0) == CancelTrade(0)
    assert default_action(state, 2) == DeclineTrade(2)
    for seat in (0, 1, 2, 3):
        assert_default_is_legal(state, seat)


def test_default_action_for_a_seat_with_nothing_to_do_is_refused() -> None:
    state = setup_game()
    try:
        default_action(state, 2)
    except IllegalActionError as exc:
        assert exc.code == "not_your_turn"
    else:
        raise AssertionError("default_action gave a seat that owes nothing an action")
