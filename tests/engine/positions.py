"""Small helpers to build hand-made positions for the rules tests.

Positions start from a fixed, legal standard board (:data:`BOARD`), either written in the
position notation (:func:`position`, with :data:`SET_UP` for the default set-up's pieces) or
with a set-up played through the engine with chosen placements (:func:`setup_game`). From
there a test edits the plain state fields: hands (:func:`set_hand`, :func:`give`, keeping
the bank's 19 per resource), development cards (:func:`give_dev`, taken from the deck),
whose turn it is (:func:`main_phase`, :func:`pre_roll`) and opponents' roads
(:func:`put_road`). Chance is forced by searching for an RNG state that yields the wanted
outcome (:func:`force_roll`, :func:`force_buy`); nothing is monkeypatched.

The board, hex by hex (terrain, token): hex 0 desert (robber); ring 1: 1 hills 12, 2 forest
8, 3 pasture 9, 4 fields 6, 5 mountains 5, 6 fields 10; ring 2: 7 mountains 2, 8 pasture 3,
9 hills 4, 10 forest 11, 11 pasture 3, 12 forest 4, 13 hills 5, 14 mountains 9, 15 fields 10,
16 pasture 6, 17 forest 11, 18 fields 8. Harbour slots 0-8 (vertex pairs 24-25, 27-28,
30-31, 34-35, 37-38, 40-41, 44-45, 47-48, 50-51) hold 3:1, brick, lumber, wool, grain, ore,
3:1, 3:1, 3:1.

:data:`DEFAULT_PLACEMENTS` (no harbours; the second settlement of each seat is listed last):

- seat 0: vertex 0 (desert, hills 12, forest 8), road 0-1; vertex 6 (hills 12, mountains 2,
  pasture 3), road 6-25. Starts with brick, ore, wool.
- seat 1: vertex 10 (forest 8, pasture 9, forest 11), road 10-11; vertex 8 (forest 8,
  pasture 3, hills 4), road 8-27. Starts with brick, lumber, wool.
- seat 2: vertex 16 (fields 6, mountains 5, mountains 9), road 16-17; vertex 13 (pasture 9,
  fields 6, forest 4), road 13-14. Starts with lumber, wool, grain.
- seat 3: vertex 22 (hills 12, fields 10, fields 8), road 22-21; vertex 19 (mountains 5,
  fields 10, pasture 6), road 19-20. Starts with wool, grain, ore.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import pytest

from engine import (
    Board,
    BuildRoad,
    BuyDevCard,
    DevCard,
    Event,
    GameConfig,
    GameState,
    IllegalActionError,
    Phase,
    PlaceRoad,
    PlaceSettlement,
    RollDice,
    apply,
    check_board,
    is_legal,
    longest_road,
    new_game,
    parse_position,
)
from engine.actions import Action, Counts
from engine.constants import BANK_PER_RESOURCE, N_RESOURCES, ROAD_COST, Terrain
from engine.topology import topology

H, F, P, G, M, D = (
    Terrain.HILLS,
    Terrain.FOREST,
    Terrain.PASTURE,
    Terrain.FIELDS,
    Terrain.MOUNTAINS,
    Terrain.DESERT,
)
TERRAIN = (D, H, F, P, G, M, G, M, P, H, F, P, F, H, M, G, P, F, G)
TOKENS = (0, 12, 8, 9, 6, 5, 10, 2, 3, 4, 11, 3, 4, 5, 9, 10, 6, 11, 8)
HARBOURS = (5, 0, 1, 2, 3, 4, 5, 5, 5)
BOARD = Board.from_layout(TERRAIN, TOKENS, HARBOURS, radius=3)
check_board(BOARD)  # standard contents, no neighbouring 6s and 8s
BOARD_TEXT = "D*B12L8W9G6O5G10O2W3B4L11W3L4B5O9G10W6L11G8/3BLWGO333"
""":data:`BOARD` in the position notation, with the robber on the desert."""

Placement = tuple[int, int]
"""A set-up placement: (settlement vertex, the vertex its road leads to)."""

DEFAULT_PLACEMENTS: tuple[Placement, ...] = (
    (0, 1),
    (10, 11),
    (16, 17),
    (22, 21),
    (19, 20),
    (13, 14),
    (8, 27),
    (6, 25),
)
"""Snake-order placements for four seats (0, 1, 2, 3, 3, 2, 1, 0). With fewer seats the first
2n go to the seats in their snake order: two seats put seat 0 on 0 and 22 (a second
settlement paying brick and two grain), seat 1 on 10 and 16."""

SET_UP = "s0,s6,r0,r14/s10,s8,r20,r17/s16,s13,r30,r25/s22,s19,r38,r35"
"""The pieces of :data:`DEFAULT_PLACEMENTS` for four seats, in the position notation."""

NOTHING: Counts = (0, 0, 0, 0, 0)


def counts(brick: int = 0, lumber: int = 0, wool: int = 0, grain: int = 0, ore: int = 0) -> Counts:
    """A count vector by resource name."""
    return (brick, lumber, wool, grain, ore)


def config(players: int = 4, victory_points: int = 10) -> GameConfig:
    """A configuration on :data:`BOARD`."""
    return GameConfig.with_board(BOARD, players=players, victory_points=victory_points)


def position(fields: str) -> GameState:
    """A position on :data:`BOARD` written in the notation (docs/engine.md): the fields
    after the board."""
    return parse_position(f"{BOARD_TEXT} {fields}")


def edge(state: GameState, a: int, b: int) -> int:
    """The edge joining two neighbouring vertices."""
    e = state.topo.edge_between(a, b)
    assert e is not None, f"vertices {a} and {b} are not neighbours"
    return e


def setup_game(
    cfg: GameConfig | None = None,
    seed: int = 0,
    placements: Sequence[Placement] = DEFAULT_PLACEMENTS,
) -> GameState:
    """A game whose set-up was played through the engine with ``placements`` in snake
    order; it stands at seat 0's first roll."""
    state = new_game(cfg or config(), seed)
    for v, w in placements[: 2 * state.n]:
        seat = state.current
        apply(state, PlaceSettlement(seat, v))
        apply(state, PlaceRoad(seat, edge(state, v, w)))
    assert state.phase == Phase.PRE_ROLL
    return state


def force_roll(state: GameState, total: int) -> list[Event]:
    """The current seat rolls ``total``: the RNG state is searched until a copy of the game
    rolls it, then the roll is applied to ``state``. Returns the roll's events."""
    seat = state.current
    for x in range(10_000):
        trial = state.copy()
        trial.rng = x
        apply(trial, RollDice(seat))
        assert trial.dice is not None
        if sum(trial.dice) == total:
            state.rng = x
            return apply(state, RollDice(seat))
    raise AssertionError(f"no RNG state rolls {total}")


def force_buy(state: GameState, seat: int, card: DevCard) -> list[Event]:
    """``seat`` buys a development card that turns out to be ``card`` (the RNG state is
    searched as in :func:`force_roll`). The seat must hold the price."""
    want = state.dev[seat * N_RESOURCES + card] + 1
    for x in range(10_000):
        trial = state.copy()
        trial.rng = x
        apply(trial, BuyDevCard(seat))
        if trial.dev[seat * N_RESOURCES + card] == want:
            state.rng = x
            return apply(state, BuyDevCard(seat))
    raise AssertionError(f"no RNG state draws {card!r}")


def set_hand(state: GameState, seat: int, cards: Counts) -> None:
    """Give ``seat`` exactly ``cards``, moving the difference from or to the bank."""
    for r in range(N_RESOURCES):
        diff = cards[r] - state.hand[seat * N_RESOURCES + r]
        assert state.bank[r] >= diff, "the bank cannot supply that hand"
        state.bank[r] -= diff
        state.hand[seat * N_RESOURCES + r] = cards[r]


def give(state: GameState, seat: int, cards: Counts) -> None:
    """Move ``cards`` from the bank to ``seat``'s hand."""
    set_hand(state, seat, tuple(a + b for a, b in zip(state.hand_of(seat), cards, strict=True)))  # type: ignore[arg-type]


def leave_in_bank(state: GameState, resource: int, k: int, holder: int) -> None:
    """Move all but ``k`` of the bank's cards of ``resource`` to ``holder``'s hand."""
    extra = state.bank[resource] - k
    assert extra >= 0
    state.bank[resource] = k
    state.hand[holder * N_RESOURCES + resource] += extra


def give_dev(state: GameState, seat: int, card: DevCard, n: int = 1) -> None:
    """Move ``n`` development cards of a kind from the deck to ``seat``, as if bought in an
    earlier turn (so they are playable now)."""
    assert state.deck[card] >= n
    state.deck[card] -= n
    state.dev[seat * N_RESOURCES + card] += n


def main_phase(state: GameState, seat: int) -> None:
    """Hand-made: it is now ``seat``'s turn, after a roll that produced nothing, with no
    development card played or bought yet this turn."""
    state.current = seat
    state.phase = Phase.MAIN
    state.rolled = True
    state.dice = (1, 2)
    state.dev_played = False
    state.dev_new = [0] * N_RESOURCES


def pre_roll(state: GameState, seat: int) -> None:
    """Hand-made: it is now the start of ``seat``'s turn, before the roll."""
    main_phase(state, seat)
    state.phase = Phase.PRE_ROLL
    state.rolled = False
    state.dice = None


def build_roads(state: GameState, seat: int, path: Sequence[int]) -> None:
    """``seat`` builds roads along a path of vertices through the engine, in its main phase,
    paying with cards given to it for the purpose. Leaves it ``seat``'s main phase.

    After each road, the length the engine keeps (``road_len``) is checked against a full
    recount (:func:`engine.longest_road`)."""
    main_phase(state, seat)
    for a, b in pairwise(path):
        give(state, seat, ROAD_COST)
        apply(state, BuildRoad(seat, edge(state, a, b)))
        assert state.road_len[seat] == longest_road(state, seat)


def put_road(state: GameState, seat: int, e: int) -> None:
    """Hand-made: lay a road for ``seat`` on edge ``e`` with no check, cost or award."""
    assert state.eowner[e] < 0
    state.eowner[e] = seat
    state.proads[seat].append(e)
    state.roads_left[seat] -= 1
    state.road_len[seat] = longest_road(state, seat)


def assert_conserved(state: GameState) -> None:
    """Every resource card is in the bank or in a hand: 19 of each."""
    for r in range(N_RESOURCES):
        held = sum(state.hand[q * N_RESOURCES + r] for q in range(state.n))
        assert state.bank[r] + held == BANK_PER_RESOURCE, f"resource {r} not conserved"


def assert_refused(state: GameState, action: Action, code: str) -> None:
    """``action`` is refused with ``code`` and leaves ``state`` exactly as it was."""
    before = state.snapshot()
    assert not is_legal(state, action)
    with pytest.raises(IllegalActionError) as info:
        apply(state, action)
    assert info.value.code == code, info.value.message
    assert state.snapshot() == before


def touching_reds(seed: int, players: int = 4, victory_points: int = 10) -> GameConfig:
    """A game on the board of seed ``seed`` with an 8 moved beside a 6 (the board says its
    reds may touch, as a board file may)."""
    board = new_game(GameConfig(players=players), seed).board
    tokens = list(board.tokens)
    six = tokens.index(6)
    beside = next(h for h in topology(board.radius).hex_neighbours[six] if tokens[h] not in (0, 6))
    eight = tokens.index(8)
    tokens[eight], tokens[beside] = tokens[beside], 8
    touching = Board.from_layout(
        board.terrain, tokens, board.harbours, board.radius, reds_may_touch=True
    )
    assert touching.touching_reds() is not None
    return GameConfig.with_board(touching, players=players, victory_points=victory_points)
