"""The position notation: a state written as one line reads back as an equal state that
plays on identically, a seat's form reads back as the seat's view and holds nothing else,
and bad text is refused with the character and the field at fault."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    Answer,
    GameConfig,
    GameState,
    NotationError,
    Phase,
    apply,
    format_position,
    legal_actions,
    new_game,
    parse_position,
    parse_view,
    seats_to_act,
    view,
)
from tests.engine.positions import (
    BOARD,
    SET_UP,
    force_roll,
    position,
    setup_game,
    touching_reds,
)
from tests.engine.randomplay import RandomPlayer, random_steps

SEEDS = st.integers(0, 2**32)
PLAYERS = st.integers(2, 4)
SETUPS = st.sampled_from(["random", "spiral"])
RADII = st.sampled_from([3, 3, 3, 4])


def _same_state(a: GameState, b: GameState) -> None:
    assert b.snapshot() == a.snapshot()
    assert b.board == a.board
    for name in ("players", "victory_points", "discard_limit", "radius"):
        assert getattr(b.config, name) == getattr(a.config, name)


@settings(max_examples=10, deadline=None)
@given(seed=SEEDS, players=PLAYERS, setup=SETUPS, radius=RADII)
def test_every_position_of_a_game_reads_back_and_plays_on_identically(
    seed: int, players: int, setup: str, radius: int
) -> None:
    config = GameConfig(players=players, board_setup=setup, radius=radius)  # type: ignore[arg-type]
    live = new_game(config, seed)
    player = RandomPlayer(seed)
    for _ in range(2000):
        text = format_position(live)
        assert "\n" not in text
        read = parse_position(text)
        _same_state(live, read)
        assert format_position(read) == text
        if live.is_over:
            break
        assert legal_actions(read) == legal_actions(live)
        assert seats_to_act(read) == seats_to_act(live)
        action = player.choose(live)
        assert apply(read, action) == apply(live, action)  # the same events, dice included
        _same_state(live, read)


@settings(max_examples=6, deadline=None)
@given(seed=SEEDS, players=PLAYERS, setup=SETUPS)
def test_a_seats_form_reads_back_as_its_view(seed: int, players: int, setup: str) -> None:
    config = GameConfig(players=players, board_setup=setup)  # type: ignore[arg-type]
    for step in random_steps(config, seed, max_actions=1500):
        seat = step.index % players
        assert parse_view(format_position(step.state, seat)) == view(step.state, seat)


def _hide_differently(state: GameState, seat: int, rnd: random.Random) -> GameState:
    """A state every seat but ``seat`` could tell apart from ``state``, and ``seat`` cannot:
    other hands and development cards redealt with the same counts, another deck of the
    same size, another seed and generator."""
    other = state.copy()
    over = state.phase == Phase.GAME_OVER
    for q in range(state.n):
        if q == seat:
            continue
        size = state.hand_size(q)
        hand = [0] * 5
        for _ in range(size):
            hand[rnd.randrange(5)] += 1
        other.hand[q * 5 : q * 5 + 5] = hand
        dev = state.dev_of(q)
        kept = dev[1] if over else 0  # victory cards are shown once the game is over
        moved = [0] * 5
        moved[1] = kept
        for _ in range(sum(dev) - kept):
            moved[rnd.choice((0, 2, 3, 4) if over else (0, 1, 2, 3, 4))] += 1
        other.dev[q * 5 : q * 5 + 5] = moved
    if seat != state.current:  # all of the current seat's cards bought this turn
        other.dev_new = list(other.dev_of(state.current))
    deck = [0] * 5
    for _ in range(sum(state.deck)):
        deck[rnd.randrange(5)] += 1
    other.deck = deck
    other.seed = state.seed + 1
    other.rng = rnd.getrandbits(64)
    return other


@settings(max_examples=5, deadline=None)
@given(seed=SEEDS, players=PLAYERS)
def test_a_seats_form_holds_nothing_the_seat_may_not_see(seed: int, players: int) -> None:
    rnd = random.Random(seed)
    for step in random_steps(GameConfig(players=players), seed, max_actions=1500):
        if step.index % 5:
            continue
        seat = rnd.randrange(players)
        text = format_position(step.state, seat)
        other = _hide_differently(step.state, seat, rnd)
        assert view(other, seat) == view(step.state, seat)  # the seat cannot tell them apart
        assert format_position(other, seat) == text
        own = step.state.hand_of(seat)
        assert text.endswith(f",seat{seat}") and f",s{step.state.seed}," not in text
        assert f"{step.state.rng:016x}" not in text
        assert parse_view(text).hand == own


EXAMPLE = (
    "D*B12L8W9G6O5G10O2W3B4L11W3L4B5O9G10W6L11G8/3BLWGO333 "
    "s0,c6,r0,r25/s10,r12,r13/-/- "
    "2BLG:K+V/O/-/3W "
    "17B18L19W19G18O/12K4V2R2Y2M "
    "main@0 t5 3+4 r "
    "L-,A-,K0.1.0.0 - - v10,l7,a40,s7,r0123456789abcdef"
)


def test_an_example_position_reads_as_written() -> None:
    s = parse_position(EXAMPLE)
    assert s.n == 4
    assert s.board == BOARD
    assert s.robber == 0
    assert s.vowner[0] == 0 and s.vlevel[0] == 1 and s.vlevel[6] == 2
    assert s.proads == [[0, 25], [12, 13], [], []]
    assert s.vp == [3, 1, 0, 0]
    assert s.hand_of(0) == (2, 1, 0, 1, 0) and s.hand_of(3) == (0, 0, 3, 0, 0)
    assert s.dev_of(0) == (1, 1, 0, 0, 0) and s.dev_new == [0, 1, 0, 0, 0]
    assert s.bank == [17, 18, 19, 19, 18] and s.deck == [12, 4, 2, 2, 2]
    assert (s.phase, s.current, s.turn, s.dice, s.rolled, s.dev_played) == (
        Phase.MAIN,
        0,
        5,
        (3, 4),
        True,
        False,
    )
    assert s.knights == [0, 1, 0, 0]
    assert (s.seed, s.rng, s.actions_taken) == (7, 0x0123456789ABCDEF, 40)
    assert s.settlements_left[0] == 4 and s.cities_left[0] == 3
    assert format_position(s) == EXAMPLE


def test_an_open_offer_with_answers_and_a_counter_reads_back() -> None:
    s = setup_game()
    s.phase = Phase.TRADE
    s.offer = ((1, 0, 0, 0, 0), (0, 0, 0, 0, 2))
    s.answers = [int(Answer.NOT_ASKED), int(Answer.COUNTERED), int(Answer.DECLINED), 0]
    s.counters = [None, ((0, 1, 0, 0, 0), (0, 0, 0, 0, 1)), None, None]
    text = format_position(s)
    assert " B>2O/n,c=L>O,d,p " in text
    _same_state(s, parse_position(text))
    assert seats_to_act(parse_position(text)) == (0, 3)


def _broken(field: int, text: str) -> str:
    fields = EXAMPLE.split(" ")
    fields[field] = text
    return " ".join(fields)


def _at(field: int) -> int:
    """The character (from 1) where a field of :data:`EXAMPLE` starts."""
    return len(" ".join(EXAMPLE.split(" ")[:field])) + 2 if field else 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "a position has 12 fields separated by spaces"),
        (EXAMPLE + " x", "not 13"),
        (
            _broken(0, "X" + EXAMPLE[1:].split(" ")[0]),
            "at character 1 (board): unknown terrain 'X'",
        ),
        (_broken(0, "D*B12L8"), "(board): write the hexes, a /, then the harbours"),
        (_broken(0, "D*B7" + EXAMPLE.split(" ")[0][4:]), "hex 1 needs a number token"),
        (_broken(1, "s0,c6,r0,r25/s10,x12,r13/-/-"), f"at character {_at(1) + 17} (pieces)"),
        (_broken(1, "s0,c6,r0,r25/s0,r12,r13/-/-"), "vertex 0 already holds a building"),
        (_broken(1, "s0,c6,r0,r25/s10,r999,r13/-/-"), "an edge must be 0 to"),
        (_broken(2, "2BLG:K+V/O/-"), "(cards): the pieces give 4 seats, the cards 3"),
        (_broken(2, "2BLQ:K+V/O/-/3W"), f"at character {_at(2) + 3} (cards): seat 0's hand: "),
        (_broken(2, "2BLG:K/O+V/-/3W"), "seat 1 is not to move"),
        (_broken(3, "17B18L19W19G18O"), "(supply): write the bank, a /, then the deck"),
        (_broken(4, "main"), "(phase): write the phase, @, then the seat to move"),
        (_broken(4, "lunch@0"), "(phase): unknown phase 'lunch'"),
        (_broken(4, "main@4"), "the seat to move must be 0 to 3, not 4"),
        (_broken(6, "3+7"), "(dice): the dice are two numbers 1-6 like 3+4, or -"),
        (_broken(7, "rx"), "(flags)"),
        (_broken(8, "L-,A-,K0.1.0"), "(awards): give the knights played by each of 4 seats"),
        (_broken(8, "L5,A-,K0.1.0.0"), "the longest road's holder must be 0 to 3, not 5"),
        (_broken(9, "d1:x"), "(owed): expected dSEAT:CARDS or fROADS"),
        (_broken(10, "B>O/n,p"), "(trade): give an answer for each of 4 seats, not 2"),
        (_broken(10, "B>O/n,q,n,n"), "(trade): seat 1's answer is one of"),
        (_broken(11, "v10,l7,a40,s7"), "(game): the key r is missing"),
        (_broken(11, "v10,l7,a40,s7,rxyz"), "the generator state is 16 hex digits"),
        (_broken(11, "v10,l7,a40,seat1"), "this is a seat's form; read it with parse_view"),
        (_broken(4, "setup_road@0"), "set-up step 4 is seat 3's, not 0's"),
        (_broken(11, "v10,l7,a40,s7,r0123456789abcde"), "16 hex digits, not '0123456789abcde'"),
        (_broken(4, "trade@0"), "(phase): trade@ needs the open offer"),
        (_broken(4, "discard@0"), "(phase): discard@ needs a seat that owes cards"),
        (_broken(9, "d1:4,d1:2"), "(owed): d1 is given twice"),
        (_broken(9, "f1,f2"), "(owed): f is given twice"),
        (_broken(9, "d1:0"), "(owed): the cards owed must be at least 1"),
        (_broken(11, "v10,v10,l7,a40,s7,r0123456789abcdef"), "(game): v is given twice"),
        (_broken(8, "L-,L-,A-,K0.1.0.0"), "(awards): expected L, A, K and W once each"),
        (_broken(5, "t\u0665"), "'\u0665' is not ASCII"),
        (_broken(5, "t\uff15"), "'\uff15' is not ASCII"),
        (EXAMPLE.replace(" t5 ", "\u00a0t5 "), r"'\xa0' is not ASCII"),
        (EXAMPLE.replace(" t5 ", " t5\u2003"), r"'\u2003' is not ASCII"),
        (_broken(0, EXAMPLE.split(" ")[0] + "/1/2"), "(board): after the layout only /x"),
    ],
)
def test_bad_text_is_refused_naming_where_and_what(text: str, message: str) -> None:
    with pytest.raises(NotationError) as caught:
        parse_position(text)
    assert message in str(caught.value)


def test_an_error_names_the_character_it_found() -> None:
    text = _broken(5, "14")
    with pytest.raises(NotationError) as caught:
        parse_position(text)
    assert str(caught.value) == (
        f"at character {_at(5)} (turn): the turn is t and a number, not '14'"
    )
    assert text[_at(5) - 1 :].startswith("14 ")


def test_a_whole_position_is_not_a_seats_form() -> None:
    with pytest.raises(NotationError, match=r"\(game\): this is a whole position"):
        parse_view(EXAMPLE)


def test_the_set_up_the_rules_tests_write_is_the_one_played() -> None:
    played = setup_game()
    force_roll(played, 12)
    written = position(
        f"{SET_UP} 3BWO/BLW/LWG/BWGO 14B17L15W17G17O/14K5V2R2Y2M main@0 t1 6+6 r "
        "L-,A-,K0.0.0.0 - - v10,l7,a17,s0,r0000000000000000"
    )
    written.rng = played.rng
    _same_state(played, written)


@pytest.mark.parametrize("edition", [1, 2])
def test_a_board_reads_back_on_its_own_harbour_layout(edition: int) -> None:
    live = new_game(GameConfig(players=3, setup_edition=edition), 7)
    board_text = format_position(live).split(" ")[0]
    assert board_text.endswith("/1") == (live.board.harbour_layout == 1)
    read = parse_position(format_position(live))
    assert read.board.harbour_layout == live.board.harbour_layout
    assert read.board.harbour_slots == live.board.harbour_slots
    _same_state(live, read)


def test_an_unknown_harbour_layout_is_refused() -> None:
    board_text = EXAMPLE.split(" ")[0]
    with pytest.raises(NotationError, match=r"\(board\): unknown harbour layout '9'"):
        parse_position(_broken(0, board_text + "/9"))


def test_a_board_whose_reds_touch_is_written_and_read_back() -> None:
    config = touching_reds(4, players=3)
    live = new_game(config, 11)
    for _ in random_steps(config, 11, state=live, max_actions=60):
        pass
    text = format_position(live)
    assert text.split(" ")[0].endswith("/x")
    read = parse_position(text)
    assert read.board == live.board and read.board.reds_may_touch
    _same_state(live, read)
    seat = seats_to_act(live)[0]
    assert parse_view(format_position(live, seat)) == view(live, seat)
    # Without the mark the same hexes are no legal board.
    with pytest.raises(NotationError, match=r"both carry a 6 or an 8"):
        parse_position(text.replace("/x ", " ", 1))
