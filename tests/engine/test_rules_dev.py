"""Development cards: the deck, buying, when a card may be played, and what each card does."""

from __future__ import annotations

from engine import (
    BuildRoad,
    BuyDevCard,
    DevCard,
    DevCardBought,
    DevCardPlayed,
    DiscardsOwed,
    EndTurn,
    GameConfig,
    GameWon,
    MonopolyTaken,
    MoveRobber,
    Phase,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    Resource,
    RoadBuilt,
    RollDice,
    Stolen,
    YearOfPlentyTaken,
    apply,
    is_legal,
    legal_actions,
    new_game,
)
from engine.constants import DEV_CARD_COST
from engine.rules import road_spots, robber_victims
from engine.state import GameState
from tests.engine.positions import (
    NOTHING,
    assert_conserved,
    assert_refused,
    build_roads,
    config,
    counts,
    edge,
    force_buy,
    force_roll,
    give,
    give_dev,
    leave_in_bank,
    main_phase,
    put_road,
    set_hand,
    setup_game,
)

BRICK, LUMBER, WOOL, GRAIN, ORE = Resource
PLAYS = (PlayKnight, PlayRoadBuilding, PlayYearOfPlenty, PlayMonopoly)


def main_game(victory_points: int = 10) -> GameState:
    """The default set-up, seat 0 after rolling 12, every hand empty."""
    state = setup_game(config(victory_points=victory_points))
    force_roll(state, 12)
    for q in range(4):
        set_hand(state, q, NOTHING)
    return state


def next_own_turn(state: GameState) -> None:
    """End turns (each seat rolling 12) until it is seat 0's main phase again."""
    apply(state, EndTurn(state.current))
    while state.current != 0:
        force_roll(state, 12)
        apply(state, EndTurn(state.current))
    force_roll(state, 12)


def test_the_deck_holds_25_cards() -> None:
    state = new_game(GameConfig(), seed=1)
    assert state.deck == [14, 5, 2, 2, 2]
    assert sum(state.deck) == 25
    assert state.dev == [0] * 20


def test_buying_costs_wool_grain_ore_and_draws_a_card() -> None:
    state = main_game()
    set_hand(state, 0, counts(brick=1, wool=1, grain=1, ore=1))
    bank = state.bank[:]
    events = force_buy(state, 0, DevCard.MONOPOLY)
    assert events == [DevCardBought(0, DevCard.MONOPOLY)]
    assert state.hand_of(0) == counts(brick=1)
    assert state.bank == [b + c for b, c in zip(bank, DEV_CARD_COST, strict=True)]
    assert state.deck == [14, 5, 2, 2, 1]
    assert state.dev_of(0) == (0, 0, 0, 0, 1)
    assert state.dev_new == [0, 0, 0, 0, 1]
    assert_conserved(state)


def test_a_bought_card_is_hidden_from_everyone_else() -> None:
    state = main_game()
    give(state, 0, DEV_CARD_COST)
    (bought,) = force_buy(state, 0, DevCard.KNIGHT)
    assert bought.for_seat(0) == DevCardBought(0, DevCard.KNIGHT)
    for other in (1, 2, 3, None):
        assert bought.for_seat(other) == DevCardBought(0, None)


def test_buying_needs_the_price_and_a_card_left() -> None:
    state = main_game()
    set_hand(state, 0, counts(wool=1, grain=1))
    assert_refused(state, BuyDevCard(0), "cannot_afford")
    give(state, 0, counts(ore=1))
    state.deck = [0, 0, 0, 0, 0]
    assert_refused(state, BuyDevCard(0), "deck_empty")


def test_a_card_is_played_only_if_held() -> None:
    state = main_game()
    assert_refused(state, PlayMonopoly(0, WOOL), "no_such_card")
    assert_refused(state, PlayKnight(0), "no_such_card")


def test_one_card_per_turn() -> None:
    state = main_game()
    give_dev(state, 0, DevCard.KNIGHT, 2)
    give_dev(state, 0, DevCard.MONOPOLY)
    apply(state, PlayKnight(0))
    apply(state, MoveRobber(0, 7, None))
    assert state.phase == Phase.MAIN
    assert_refused(state, PlayMonopoly(0, WOOL), "card_already_played")
    assert_refused(state, PlayKnight(0), "card_already_played")
    assert not any(isinstance(a, PLAYS) for a in legal_actions(state))
    next_own_turn(state)
    apply(state, PlayMonopoly(0, WOOL))


def test_a_knight_before_the_roll_counts_as_the_turns_card() -> None:
    state = setup_game()
    give_dev(state, 0, DevCard.KNIGHT)
    give_dev(state, 0, DevCard.MONOPOLY)
    apply(state, PlayKnight(0))
    apply(state, MoveRobber(0, 7, None))
    force_roll(state, 12)
    assert_refused(state, PlayMonopoly(0, WOOL), "card_already_played")


def test_any_card_may_be_played_before_the_roll() -> None:
    state = setup_game()
    for card in (DevCard.KNIGHT, DevCard.ROAD_BUILDING, DevCard.YEAR_OF_PLENTY, DevCard.MONOPOLY):
        give_dev(state, 0, card)
    listed = legal_actions(state)
    assert PlayKnight(0) in listed and PlayRoadBuilding(0) in listed
    assert PlayMonopoly(0, WOOL) in listed and PlayYearOfPlenty(0, counts(ore=2)) in listed
    for play in (PlayMonopoly(0, WOOL), PlayYearOfPlenty(0, counts(ore=2))):
        trial = state.copy()
        apply(trial, play)
        assert trial.phase == Phase.PRE_ROLL and not trial.rolled
        assert_refused(trial, PlayKnight(0), "card_already_played")
        assert legal_actions(trial) == [RollDice(0)]


def test_road_building_before_the_roll_builds_before_rolling() -> None:
    state = setup_game()
    give_dev(state, 0, DevCard.ROAD_BUILDING)
    apply(state, PlayRoadBuilding(0))
    assert state.phase == Phase.ROAD_BUILDING
    assert_refused(state, RollDice(0), "wrong_phase")
    for _ in range(2):
        e = road_spots(state, 0)[0]
        assert apply(state, BuildRoad(0, e))[0] == RoadBuilt(0, e, True)
    assert state.phase == Phase.PRE_ROLL and not state.rolled
    assert state.hand_of(0) == state.copy().hand_of(0)
    force_roll(state, 12)
    assert state.phase == Phase.MAIN


def test_a_monopoly_before_the_roll_can_make_the_seven_cost_cards() -> None:
    state = setup_game()
    for q in range(4):
        set_hand(state, q, NOTHING)
    give(state, 0, counts(ore=6))
    give(state, 2, counts(wool=2))
    give_dev(state, 0, DevCard.MONOPOLY)
    apply(state, PlayMonopoly(0, WOOL))
    assert state.hand_of(0) == counts(wool=2, ore=6)
    events = force_roll(state, 7)
    assert DiscardsOwed((4, 0, 0, 0)) in events
    assert state.phase == Phase.DISCARD


def test_a_knight_before_the_roll_moves_the_robber_the_seven_moves_again() -> None:
    state = setup_game()
    give_dev(state, 0, DevCard.KNIGHT)
    apply(state, PlayKnight(0))
    victims = robber_victims(state, 7, 0)
    apply(state, MoveRobber(0, 7, victims[0] if victims else None))
    assert state.phase == Phase.PRE_ROLL
    force_roll(state, 7)
    assert state.phase in (Phase.MOVE_ROBBER, Phase.DISCARD)
    if state.phase == Phase.MOVE_ROBBER:
        assert all(a.hex != 7 for a in legal_actions(state) if isinstance(a, MoveRobber))


def test_a_card_bought_this_turn_is_played_next_turn() -> None:
    state = main_game()
    give(state, 0, DEV_CARD_COST)
    force_buy(state, 0, DevCard.MONOPOLY)
    assert_refused(state, PlayMonopoly(0, WOOL), "card_too_new")
    assert not any(isinstance(a, PlayMonopoly) for a in legal_actions(state))
    next_own_turn(state)
    assert state.dev_new == [0] * 5
    assert PlayMonopoly(0, WOOL) in legal_actions(state)
    apply(state, PlayMonopoly(0, WOOL))


def test_a_new_knight_does_not_block_an_old_one() -> None:
    state = main_game()
    give_dev(state, 0, DevCard.KNIGHT)
    give(state, 0, DEV_CARD_COST)
    force_buy(state, 0, DevCard.KNIGHT)
    assert state.dev_of(0)[DevCard.KNIGHT] == 2
    apply(state, PlayKnight(0))
    assert state.dev_of(0)[DevCard.KNIGHT] == 1


def test_a_new_knight_is_not_playable_before_the_next_roll_either() -> None:
    state = main_game()
    give(state, 0, DEV_CARD_COST)
    force_buy(state, 0, DevCard.KNIGHT)
    assert_refused(state, PlayKnight(0), "card_too_new")
    next_own_turn(state)
    apply(state, PlayKnight(0))


def test_victory_point_card_wins_at_once_when_bought() -> None:
    state = main_game(victory_points=3)
    assert state.vp == [2, 2, 2, 2]
    give(state, 0, DEV_CARD_COST)
    events = force_buy(state, 0, DevCard.VICTORY_POINT)
    assert events == [
        DevCardBought(0, DevCard.VICTORY_POINT),
        GameWon(0, (3, 2, 2, 2), (1, 0, 0, 0)),
    ]
    assert state.phase == Phase.GAME_OVER
    assert state.winner == 0
    assert state.vp[0] == 2  # the card stays hidden from the public points


def test_victory_point_cards_are_never_played() -> None:
    state = main_game()
    give_dev(state, 0, DevCard.VICTORY_POINT, 2)
    assert state.victory_points(0) == 4
    assert state.vp[0] == 2
    assert not any(isinstance(a, PLAYS) for a in legal_actions(state))
    next_own_turn(state)
    assert state.dev_of(0)[DevCard.VICTORY_POINT] == 2
    assert not state.dev_played
    assert state.victory_points(0) == 4


def test_knight_moves_the_robber_and_steals_without_discards() -> None:
    state = main_game()
    give_dev(state, 0, DevCard.KNIGHT)
    set_hand(state, 1, counts(lumber=10))
    events = apply(state, PlayKnight(0))
    assert events == [DevCardPlayed(0, DevCard.KNIGHT)]
    assert not any(isinstance(e, DiscardsOwed) for e in events)
    assert state.phase == Phase.MOVE_ROBBER
    assert state.owed == [0, 0, 0, 0]
    assert state.knights[0] == 1
    assert state.dev_of(0)[DevCard.KNIGHT] == 0
    assert_refused(state, MoveRobber(0, 0, None), "robber_must_move")
    assert_refused(state, MoveRobber(0, 2, None), "victim_required")
    events = apply(state, MoveRobber(0, 2, 1))
    assert events[-1] == Stolen(0, 1, LUMBER)
    assert state.hand_of(0) == counts(lumber=1)
    assert state.hand_of(1) == counts(lumber=9)
    assert state.robber == 2
    assert state.phase == Phase.MAIN


def test_road_building_gives_two_free_roads() -> None:
    state = main_game()
    give_dev(state, 0, DevCard.ROAD_BUILDING)
    bank = state.bank[:]
    events = apply(state, PlayRoadBuilding(0))
    assert events == [DevCardPlayed(0, DevCard.ROAD_BUILDING)]
    assert state.phase == Phase.ROAD_BUILDING
    assert state.free_roads == 2
    assert_refused(state, EndTurn(0), "wrong_phase")
    e1, e2 = edge(state, 25, 26), edge(state, 26, 27)
    assert apply(state, BuildRoad(0, e1)) == [RoadBuilt(0, e1, True)]
    assert state.phase == Phase.ROAD_BUILDING
    assert_refused(state, BuildRoad(0, edge(state, 30, 31)), "not_connected")
    apply(state, BuildRoad(0, e2))
    assert state.phase == Phase.MAIN
    assert state.free_roads == 0
    assert state.roads_left[0] == 11
    assert state.hand_of(0) == NOTHING
    assert state.bank == bank
    # Back in the main phase, roads cost again.
    assert_refused(state, BuildRoad(0, edge(state, 27, 28)), "cannot_afford")


def test_road_building_with_one_road_piece_left_gives_one() -> None:
    state = main_game(victory_points=20)
    build_roads(state, 0, list(range(25, 38)))  # 12 roads along the coast, 1 piece left
    set_hand(state, 0, NOTHING)
    assert state.roads_left[0] == 1
    give_dev(state, 0, DevCard.ROAD_BUILDING)
    apply(state, PlayRoadBuilding(0))
    assert state.free_roads == 1
    apply(state, BuildRoad(0, edge(state, 37, 38)))
    assert state.phase == Phase.MAIN
    assert state.roads_left[0] == 0
    assert state.free_roads == 0


def test_road_building_ends_early_when_no_spot_is_left() -> None:
    state = main_game()
    give_dev(state, 0, DevCard.ROAD_BUILDING)
    last = edge(state, 1, 10)  # ends at seat 1's settlement: nothing follows it
    for e in road_spots(state, 0):
        if e != last:
            put_road(state, 2, e)  # hand-made: seat 2's roads fill every other spot
    assert road_spots(state, 0) == [last]
    apply(state, PlayRoadBuilding(0))
    apply(state, BuildRoad(0, last))
    assert state.phase == Phase.MAIN
    assert state.free_roads == 0
    assert state.roads_left[0] == 12


def test_road_building_needs_a_spot() -> None:
    state = main_game()
    give_dev(state, 0, DevCard.ROAD_BUILDING)
    for e in road_spots(state, 0):
        put_road(state, 2, e)
    assert_refused(state, PlayRoadBuilding(0), "no_road_spot")


def test_year_of_plenty_takes_two_cards_from_the_bank() -> None:
    state = main_game()
    give_dev(state, 0, DevCard.YEAR_OF_PLENTY, 2)
    bank = state.bank[:]
    assert_refused(state, PlayYearOfPlenty(0, counts(ore=1)), "bad_cards")
    assert_refused(state, PlayYearOfPlenty(0, counts(ore=2, grain=1)), "bad_cards")
    events = apply(state, PlayYearOfPlenty(0, counts(grain=1, ore=1)))
    assert events[-1] == YearOfPlentyTaken(0, counts(grain=1, ore=1))
    assert state.hand_of(0) == counts(grain=1, ore=1)
    assert state.bank[GRAIN] == bank[GRAIN] - 1 and state.bank[ORE] == bank[ORE] - 1
    next_own_turn(state)
    set_hand(state, 0, NOTHING)
    apply(state, PlayYearOfPlenty(0, counts(wool=2)))  # two of one kind
    assert state.hand_of(0) == counts(wool=2)
    assert_conserved(state)


def test_year_of_plenty_only_takes_what_the_bank_has() -> None:
    state = main_game()
    give_dev(state, 0, DevCard.YEAR_OF_PLENTY)
    leave_in_bank(state, ORE, 1, holder=1)
    assert_refused(state, PlayYearOfPlenty(0, counts(ore=2)), "bank_short")
    assert PlayYearOfPlenty(0, counts(ore=2)) not in legal_actions(state)
    assert PlayYearOfPlenty(0, counts(grain=1, ore=1)) in legal_actions(state)


def test_year_of_plenty_with_one_card_in_the_bank_takes_it() -> None:
    state = main_game()
    give_dev(state, 0, DevCard.YEAR_OF_PLENTY)
    for r in (BRICK, LUMBER, WOOL, GRAIN):
        leave_in_bank(state, r, 0, holder=1)
    leave_in_bank(state, ORE, 1, holder=1)
    assert_refused(state, PlayYearOfPlenty(0, counts(ore=2)), "bad_cards")
    assert [a for a in legal_actions(state) if isinstance(a, PlayYearOfPlenty)] == [
        PlayYearOfPlenty(0, counts(ore=1))
    ]
    apply(state, PlayYearOfPlenty(0, counts(ore=1)))
    assert state.bank == [0, 0, 0, 0, 0]
    assert state.hand_of(0) == counts(ore=1)


def test_monopoly_takes_every_card_of_the_resource_from_all_others() -> None:
    state = main_game()
    give_dev(state, 0, DevCard.MONOPOLY)
    set_hand(state, 0, counts(wool=1))
    set_hand(state, 1, counts(wool=3, ore=1))
    set_hand(state, 2, counts(wool=2))
    set_hand(state, 3, counts(brick=4))
    bank = state.bank[:]
    events = apply(state, PlayMonopoly(0, WOOL))
    assert events == [DevCardPlayed(0, DevCard.MONOPOLY), MonopolyTaken(0, WOOL, (0, 3, 2, 0))]
    assert state.hand_of(0) == counts(wool=6)
    assert state.hand_of(1) == counts(ore=1)
    assert state.hand_of(2) == NOTHING
    assert state.hand_of(3) == counts(brick=4)
    assert state.bank == bank
    assert state.dev_of(0)[DevCard.MONOPOLY] == 0
    assert_conserved(state)


def test_playing_a_card_is_only_possible_on_ones_own_turn() -> None:
    state = main_game()
    give_dev(state, 1, DevCard.MONOPOLY)
    give_dev(state, 1, DevCard.KNIGHT)
    assert_refused(state, PlayMonopoly(1, WOOL), "not_your_turn")
    assert_refused(state, PlayKnight(1), "not_your_turn")
    main_phase(state, 1)
    assert is_legal(state, PlayMonopoly(1, WOOL))
