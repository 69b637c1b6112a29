"""Trading: domestic offers and their answers, and maritime trade with the bank."""

from __future__ import annotations

import pytest

from engine import (
    AcceptTrade,
    BuildRoad,
    CancelTrade,
    ConfirmTrade,
    CounterTrade,
    DeclineTrade,
    EndTurn,
    MaritimeTrade,
    MaritimeTraded,
    OfferTrade,
    Phase,
    PlaceRoad,
    PlaceSettlement,
    Resource,
    TradeAnswered,
    TradeClosed,
    TradeCompleted,
    TradeOffered,
    apply,
    is_legal,
    legal_actions,
    new_game,
    seats_to_act,
)
from engine.constants import HARBOUR_GENERIC
from engine.state import Answer, GameState
from tests.engine.positions import (
    BOARD,
    DEFAULT_PLACEMENTS,
    NOTHING,
    SET_UP,
    assert_conserved,
    assert_refused,
    config,
    counts,
    edge,
    force_roll,
    leave_in_bank,
    main_phase,
    position,
    set_hand,
    setup_game,
)

BRICK, LUMBER, WOOL, GRAIN, ORE = Resource


def trading_game() -> GameState:
    """Seat 0 after rolling, holding 2 brick and a lumber; seat 1 holds an ore, seat 2 three
    wool, seat 3 two ore and a wool."""
    return position(
        f"{SET_UP} 2BL/O/3W/W2O 17B18L15W19G16O/14K5V2R2Y2M main@0 t1 6+6 r "
        "L-,A-,K0.0.0.0 - - v10,l7,a17,s0,r0000000000000000"
    )


# --------------------------------------------------------------------------------------
# Domestic trade
# --------------------------------------------------------------------------------------


def test_only_the_current_player_offers_and_only_after_rolling() -> None:
    state = setup_game()
    set_hand(state, 0, counts(brick=2))
    set_hand(state, 1, counts(ore=2))
    assert_refused(state, OfferTrade(0, counts(brick=1), counts(ore=1)), "wrong_phase")
    force_roll(state, 12)
    assert_refused(state, OfferTrade(1, counts(ore=1), counts(brick=1)), "not_your_turn")
    assert is_legal(state, OfferTrade(0, counts(brick=1), counts(ore=1)))


@pytest.mark.parametrize(
    ("give", "get", "to", "code"),
    [
        (NOTHING, counts(ore=1), None, "bad_trade"),  # a gift asked for
        (counts(brick=1), NOTHING, None, "bad_trade"),  # a gift given
        (counts(brick=1, ore=1), counts(ore=2), None, "bad_trade"),  # ore on both sides
        (counts(brick=3), counts(ore=1), None, "cannot_afford"),  # holds only 2 brick
        (counts(wool=1), counts(ore=1), None, "cannot_afford"),
        (counts(brick=1), counts(ore=1), (0,), "bad_trade"),  # to oneself
        (counts(brick=1), counts(ore=1), (1, 0), "bad_trade"),
        (counts(brick=1), counts(ore=1), (), "bad_trade"),  # to nobody
        (counts(brick=1), counts(ore=1), (4,), "bad_trade"),  # no such seat
        (counts(brick=1), counts(ore=1), (1, 1), "bad_trade"),
        ((1, 0, 0, 0), counts(ore=1), None, "bad_action"),  # not five counts
        (counts(brick=-1), counts(ore=1), None, "bad_action"),
    ],
)
def test_offer_validation(
    give: tuple[int, ...], get: tuple[int, ...], to: tuple[int, ...] | None, code: str
) -> None:
    state = trading_game()
    assert_refused(state, OfferTrade(0, give, get, to), code)  # type: ignore[arg-type]


def test_offer_to_everyone_opens_a_trade() -> None:
    state = trading_game()
    events = apply(state, OfferTrade(0, counts(brick=1), counts(ore=1)))
    assert events == [TradeOffered(0, counts(brick=1), counts(ore=1), (1, 2, 3))]
    assert state.phase == Phase.TRADE
    assert seats_to_act(state) == (0, 1, 2, 3)
    # No building or ending the turn while the offer is open.
    assert_refused(state, EndTurn(0), "wrong_phase")
    assert_refused(state, BuildRoad(0, edge(state, 1, 2)), "wrong_phase")
    assert_refused(state, OfferTrade(0, counts(brick=1), counts(wool=1)), "wrong_phase")
    # The offerer does not answer its own offer.
    assert_refused(state, AcceptTrade(0), "not_asked")


def test_accept_requires_holding_what_is_asked() -> None:
    state = trading_game()
    apply(state, OfferTrade(0, counts(brick=1), counts(ore=1)))
    assert_refused(state, AcceptTrade(2), "cannot_afford")  # seat 2 has no ore
    assert AcceptTrade(2) not in legal_actions(state, 2)
    assert AcceptTrade(1) in legal_actions(state, 1)


def test_accept_then_confirm_swaps_the_cards() -> None:
    state = trading_game()
    apply(state, OfferTrade(0, counts(brick=1), counts(ore=1)))
    assert apply(state, AcceptTrade(1)) == [TradeAnswered(1, "accept")]
    assert state.answers[1] == Answer.ACCEPTED
    assert seats_to_act(state) == (0, 2, 3)
    assert_refused(state, AcceptTrade(1), "not_your_turn")  # answered already
    assert_refused(state, ConfirmTrade(2, 1), "not_offerer")
    assert_refused(state, ConfirmTrade(0, 2), "not_accepted")  # still pending
    bank = state.bank[:]
    events = apply(state, ConfirmTrade(0, 1))
    assert events == [TradeCompleted(0, 1, counts(brick=1), counts(ore=1))]
    assert state.hand_of(0) == counts(brick=1, lumber=1, ore=1)
    assert state.hand_of(1) == counts(brick=1)
    assert state.hand_of(2) == counts(wool=3)
    assert state.bank == bank
    assert state.phase == Phase.MAIN
    assert state.offer is None
    assert seats_to_act(state) == (0,)
    assert_conserved(state)


def test_counter_offer_is_confirmed_on_its_own_terms() -> None:
    state = trading_game()
    apply(state, OfferTrade(0, counts(brick=1), counts(ore=1)))
    # From seat 2's side: it gives 2 wool and gets 1 lumber.
    events = apply(state, CounterTrade(2, counts(wool=2), counts(lumber=1)))
    assert events == [TradeAnswered(2, "counter", counts(wool=2), counts(lumber=1))]
    assert state.answers[2] == Answer.COUNTERED
    events = apply(state, ConfirmTrade(0, 2))
    assert events == [TradeCompleted(0, 2, counts(lumber=1), counts(wool=2))]
    assert state.hand_of(0) == counts(brick=2, wool=2)
    assert state.hand_of(2) == counts(lumber=1, wool=1)
    assert state.phase == Phase.MAIN
    assert_conserved(state)


def test_counter_offer_validation() -> None:
    state = trading_game()
    apply(state, OfferTrade(0, counts(brick=1), counts(ore=1)))
    assert_refused(state, CounterTrade(2, counts(wool=4), counts(brick=1)), "cannot_afford")
    assert_refused(state, CounterTrade(2, NOTHING, counts(brick=1)), "bad_trade")
    assert_refused(state, CounterTrade(2, counts(wool=1), NOTHING), "bad_trade")
    assert_refused(state, CounterTrade(2, counts(wool=1), counts(wool=1, brick=1)), "bad_trade")
    assert_refused(state, CounterTrade(0, counts(brick=1), counts(wool=1)), "not_asked")


def test_a_counter_offer_the_offerer_cannot_meet_cannot_be_confirmed() -> None:
    state = trading_game()
    apply(state, OfferTrade(0, counts(brick=1), counts(ore=1)))
    apply(state, CounterTrade(2, counts(wool=1), counts(lumber=2)))  # seat 0 has 1 lumber
    assert ConfirmTrade(0, 2) not in legal_actions(state, 0)
    assert_refused(state, ConfirmTrade(0, 2), "cannot_afford")
    apply(state, AcceptTrade(1))
    assert ConfirmTrade(0, 1) in legal_actions(state, 0)


def test_confirm_with_a_seat_that_declined_is_refused() -> None:
    state = trading_game()
    apply(state, OfferTrade(0, counts(brick=1), counts(ore=1)))
    assert apply(state, DeclineTrade(3)) == [TradeAnswered(3, "decline")]
    assert state.phase == Phase.TRADE  # seats 1 and 2 have yet to answer
    assert_refused(state, ConfirmTrade(0, 3), "not_accepted")
    assert_refused(state, ConfirmTrade(0, 0), "not_accepted")


def test_cancel_closes_the_offer() -> None:
    state = trading_game()
    apply(state, OfferTrade(0, counts(brick=1), counts(ore=1)))
    apply(state, AcceptTrade(1))
    assert_refused(state, CancelTrade(2), "not_offerer")
    hands = [state.hand_of(q) for q in range(4)]
    assert apply(state, CancelTrade(0)) == [TradeClosed(0, "cancelled")]
    assert state.phase == Phase.MAIN
    assert state.offer is None
    assert [state.hand_of(q) for q in range(4)] == hands
    assert_refused(state, ConfirmTrade(0, 1), "wrong_phase")


def test_offer_closes_itself_when_everyone_declines() -> None:
    state = trading_game()
    apply(state, OfferTrade(0, counts(brick=1), counts(ore=1)))
    apply(state, DeclineTrade(1))
    apply(state, DeclineTrade(2))
    assert state.phase == Phase.TRADE
    events = apply(state, DeclineTrade(3))
    assert events == [TradeAnswered(3, "decline"), TradeClosed(0, "declined")]
    assert state.phase == Phase.MAIN
    assert state.offer is None
    assert seats_to_act(state) == (0,)


def test_offer_to_chosen_seats_only_lets_them_answer() -> None:
    state = trading_game()
    events = apply(state, OfferTrade(0, counts(lumber=1), counts(ore=1), to=(3,)))
    assert events == [TradeOffered(0, counts(lumber=1), counts(ore=1), (3,))]
    assert seats_to_act(state) == (0, 3)
    assert state.answers == [Answer.NOT_ASKED, Answer.NOT_ASKED, Answer.NOT_ASKED, Answer.PENDING]
    assert_refused(state, AcceptTrade(1), "not_your_turn")  # seat 1 holds ore, unasked
    assert_refused(state, DeclineTrade(2), "not_your_turn")
    assert_refused(state, CounterTrade(1, counts(ore=1), counts(brick=1)), "not_your_turn")
    assert legal_actions(state, 1) == []
    # The one seat asked declining closes the offer.
    assert apply(state, DeclineTrade(3))[-1] == TradeClosed(0, "declined")
    assert state.phase == Phase.MAIN


def test_a_later_offer_may_be_accepted_after_a_decline() -> None:
    state = trading_game()
    apply(state, OfferTrade(0, counts(lumber=1), counts(ore=1), to=(1, 3)))
    apply(state, DeclineTrade(1))
    apply(state, AcceptTrade(3))
    assert state.phase == Phase.TRADE  # one accepted: the offer stays open
    apply(state, ConfirmTrade(0, 3))
    assert state.hand_of(0) == counts(brick=2, ore=1)
    assert state.hand_of(3) == counts(lumber=1, wool=1, ore=1)


# --------------------------------------------------------------------------------------
# Maritime trade
# --------------------------------------------------------------------------------------

HARBOUR_PLACEMENTS = (*DEFAULT_PLACEMENTS[:6], (27, 28), (24, 53))
"""Seat 1's second settlement on the brick harbour (27), seat 0's on a 3:1 harbour (24)."""


def test_harbour_vertices_of_the_board() -> None:
    assert BOARD.vertex_harbour[24] == BOARD.vertex_harbour[53] == HARBOUR_GENERIC
    assert BOARD.vertex_harbour[26] == BOARD.vertex_harbour[27] == BRICK
    assert BOARD.vertex_harbour[0] == -1


def test_maritime_trade_is_four_to_one_by_default() -> None:
    state = trading_game()
    set_hand(state, 0, counts(brick=4, wool=3))
    bank = state.bank[:]
    events = apply(state, MaritimeTrade(0, BRICK, ORE, 4))
    assert events == [MaritimeTraded(0, BRICK, 4, ORE)]
    assert state.hand_of(0) == counts(wool=3, ore=1)
    assert state.bank[BRICK] == bank[BRICK] + 4
    assert state.bank[ORE] == bank[ORE] - 1
    assert_refused(state, MaritimeTrade(0, WOOL, ORE, 4), "cannot_afford")  # 3 wool
    assert_refused(state, MaritimeTrade(0, WOOL, ORE, 3), "bad_ratio")
    assert_conserved(state)


def test_maritime_trade_refuses_the_same_resource_and_an_empty_bank() -> None:
    state = trading_game()
    set_hand(state, 0, counts(brick=4))
    assert_refused(state, MaritimeTrade(0, BRICK, BRICK, 4), "bad_trade")
    leave_in_bank(state, ORE, 0, holder=3)
    assert_refused(state, MaritimeTrade(0, BRICK, ORE, 4), "bank_short")
    assert MaritimeTrade(0, BRICK, ORE, 4) not in legal_actions(state)
    assert MaritimeTrade(0, BRICK, GRAIN, 4) in legal_actions(state)


def test_generic_harbour_trades_three_to_one() -> None:
    state = setup_game(placements=HARBOUR_PLACEMENTS)
    assert state.ratio[0:5] == [3, 3, 3, 3, 3]
    force_roll(state, 12)
    set_hand(state, 0, counts(wool=3, ore=3))
    assert_refused(state, MaritimeTrade(0, WOOL, GRAIN, 4), "bad_ratio")
    assert_refused(state, MaritimeTrade(0, WOOL, GRAIN, 2), "bad_ratio")
    listed = {a for a in legal_actions(state) if isinstance(a, MaritimeTrade)}
    assert listed == {
        MaritimeTrade(0, give, get, 3) for give in (WOOL, ORE) for get in Resource if get != give
    }
    apply(state, MaritimeTrade(0, WOOL, GRAIN, 3))
    apply(state, MaritimeTrade(0, ORE, BRICK, 3))
    assert state.hand_of(0) == counts(brick=1, grain=1)
    assert_conserved(state)


def test_resource_harbour_trades_two_to_one_in_its_resource_only() -> None:
    state = setup_game(placements=HARBOUR_PLACEMENTS)
    assert state.ratio[5:10] == [2, 4, 4, 4, 4]
    main_phase(state, 1)
    set_hand(state, 1, counts(brick=2, ore=1))
    listed = {a for a in legal_actions(state) if isinstance(a, MaritimeTrade)}
    assert listed == {MaritimeTrade(1, BRICK, get, 2) for get in (LUMBER, WOOL, GRAIN, ORE)}
    set_hand(state, 1, counts(brick=2, ore=4))
    assert_refused(state, MaritimeTrade(1, BRICK, WOOL, 4), "bad_ratio")
    assert_refused(state, MaritimeTrade(1, ORE, WOOL, 2), "bad_ratio")
    assert_refused(state, MaritimeTrade(1, ORE, WOOL, 3), "bad_ratio")
    listed = {a for a in legal_actions(state) if isinstance(a, MaritimeTrade)}
    assert listed == {
        MaritimeTrade(1, give, get, 2 if give == BRICK else 4)
        for give in (BRICK, ORE)
        for get in Resource
        if get != give
    }
    apply(state, MaritimeTrade(1, BRICK, WOOL, 2))
    apply(state, MaritimeTrade(1, ORE, WOOL, 4))
    assert state.hand_of(1) == counts(wool=2)
    assert_conserved(state)


@pytest.mark.parametrize("generic_first", [True, False])
def test_generic_harbour_does_not_worsen_a_resource_harbour(generic_first: bool) -> None:
    state = new_game(config(players=2), seed=1)
    first, second = ((24, 53), (27, 28)) if generic_first else ((27, 28), (24, 53))
    for v, w in (first, (10, 11), (16, 17), second):
        seat = state.current
        apply(state, PlaceSettlement(seat, v))
        apply(state, PlaceRoad(seat, edge(state, v, w)))
    assert state.ratio[0:5] == [2, 3, 3, 3, 3]
    assert state.ratio[5:10] == [4, 4, 4, 4, 4]
