"""The CP-SAT model: generated boards are valid, seeded, and every option constrains."""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import pytest

from boards.constraint import count_layouts, generate_board, solve_layout
from boards.errors import NoBoardFound
from boards.options import BalanceOptions
from boards.validate import board_violations, layout_violations
from engine.board import Board, check_board
from engine.constants import Terrain
from engine.topology import topology
from tests.boards.layouts import GOOD_TERRAIN, GOOD_TOKENS, hex_at

LIMIT = 5.0  # seconds per solve: short, and far above what these solves need


@pytest.fixture(scope="module")
def boards() -> list[Board]:
    return [generate_board(seed, 3, time_limit=LIMIT) for seed in range(4)]


def test_generated_boards_pass_the_validator_and_the_engine(boards: list[Board]) -> None:
    for board in boards:
        assert board_violations(board, BalanceOptions()) == []
        check_board(board)


def test_same_seed_same_board_different_seeds_different_boards(boards: list[Board]) -> None:
    assert generate_board(2, 3, time_limit=LIMIT) == boards[2]
    assert len(set(boards)) == len(boards)
    assert len({b.terrain for b in boards}) == len(boards)


def test_radius_four() -> None:
    options = BalanceOptions.for_radius(4)
    assert not options.separate_brick_lumber
    board = generate_board(1, 4, options, time_limit=LIMIT)
    assert board.radius == 4 and len(board.terrain) == 37
    assert board_violations(board, options) == []
    check_board(board)


def test_radius_four_cannot_keep_brick_and_lumber_apart() -> None:
    # 14 hills and forest hexes pairwise apart; the 37-hex island has room for 13
    with pytest.raises(NoBoardFound):
        solve_layout(0, 4, BalanceOptions(max_pips=None), time_limit=LIMIT)


def test_radius_three_puts_brick_or_lumber_in_the_centre() -> None:
    rules = BalanceOptions(max_pips=None)
    for t in (Terrain.PASTURE, Terrain.FIELDS, Terrain.MOUNTAINS, Terrain.DESERT):
        found = count_layouts(
            3, rules, with_tokens=False, fixed_terrain={hex_at(0, 0): t}, time_limit=LIMIT
        )
        assert found.count == 0 and found.complete
    assert count_layouts(3, rules, limit=1, fixed_terrain={hex_at(0, 0): Terrain.HILLS}).count


def test_boards_for_play_keep_reds_apart() -> None:
    with pytest.raises(ValueError):
        generate_board(0, 3, BalanceOptions(separate_reds=False))


def test_terrain_can_be_kept() -> None:
    layout = solve_layout(9, 3, terrain=GOOD_TERRAIN, time_limit=LIMIT)
    assert layout.terrain == tuple(GOOD_TERRAIN)
    assert layout_violations(layout.terrain, layout.tokens, 3, BalanceOptions()) == []


# (option turned off, terrain fixed, numbers fixed): a layout that breaks only that option.
# With terrain apart and brick apart from lumber, the 7 hills and forest hexes of radius 3
# fill one of the island's two sets of 7 hexes pairwise apart (the centre and every other
# outer hex), so the fixed fields go on two ring-1 hexes.
CENTRE, EAST, NORTH_EAST, WEST = hex_at(0, 0), hex_at(1, 0), hex_at(1, -1), hex_at(-1, 0)
BREAKS: dict[str, tuple[dict[str, Any], dict[int, int], dict[int, int]]] = {
    "separate_terrain": (
        {"separate_terrain": False},
        {CENTRE: Terrain.FIELDS, EAST: Terrain.FIELDS},
        {},
    ),
    "separate_brick_lumber": (
        {"separate_brick_lumber": False},
        {CENTRE: Terrain.HILLS, EAST: Terrain.FOREST},
        {},
    ),
    "separate_reds": ({"separate_reds": False}, {}, {CENTRE: 6, EAST: 8}),
    "spread_reds": (
        {"spread_reds": False},
        {EAST: Terrain.FIELDS, WEST: Terrain.FIELDS},
        {EAST: 6, WEST: 8},
    ),
    "distinct_tokens": (
        {"distinct_tokens": False},
        {EAST: Terrain.FIELDS, WEST: Terrain.FIELDS},
        {EAST: 5, WEST: 5},
    ),
    # the three hexes meeting at one intersection: 5 + 4 + 4 = 13 pips, 6 + 9 + 5 = 20
    "max_pips": ({"max_pips": None}, {}, {CENTRE: 6, EAST: 9, NORTH_EAST: 5}),
    "min_pips": ({"min_pips": 6}, {}, {CENTRE: 2, EAST: 12, NORTH_EAST: 3}),
    "max_token_sum": ({"max_token_sum": None}, {}, {CENTRE: 12, EAST: 11, NORTH_EAST: 10}),
}
ON: dict[str, dict[str, Any]] = {
    "min_pips": {"min_pips": 6},
    "max_token_sum": {"max_token_sum": 22},
}


@pytest.mark.parametrize("option", sorted(BREAKS))
def test_each_option_really_constrains(option: str) -> None:
    off_change, terrain, tokens = BREAKS[option]
    on = dataclasses.replace(BalanceOptions(), **ON.get(option, {}))
    off = dataclasses.replace(on, **off_change)
    if option == "min_pips":
        on, off = off, dataclasses.replace(on, min_pips=None)
    with_rule = count_layouts(
        3, on, time_limit=LIMIT, limit=1, fixed_terrain=terrain, fixed_tokens=tokens
    )
    assert with_rule.count == 0 and with_rule.complete
    without = count_layouts(
        3, off, time_limit=LIMIT, limit=1, fixed_terrain=terrain, fixed_tokens=tokens
    )
    assert without.count == 1


def _brute_force(free: list[int], options: BalanceOptions) -> int:
    """Layouts of the good board with the numbers of ``free`` hexes permuted, by hand."""
    seen = set()
    for perm in itertools.permutations([GOOD_TOKENS[h] for h in free]):
        tokens = list(GOOD_TOKENS)
        for h, n in zip(free, perm, strict=True):
            tokens[h] = n
        if not layout_violations(GOOD_TERRAIN, tokens, 3, options):
            seen.add(tuple(tokens))
    return len(seen)


SIX = GOOD_TOKENS.index(6)
AROUND_SIX = [SIX, *topology(3).hex_neighbours[SIX][:3], GOOD_TOKENS.index(8)]


@pytest.mark.parametrize(
    ("change", "free"),
    [
        ({"separate_reds": False, "spread_reds": False}, AROUND_SIX),
        ({"max_pips": None}, AROUND_SIX),
        # fields 12, 3, 9 and mountains 3, 10: both 3s on fields only without the rule
        ({"distinct_tokens": False}, [1, 6, 10, 12, 16]),
    ],
)
def test_counts_are_exact_and_smaller_with_a_rule(change: dict[str, Any], free: list[int]) -> None:
    assert all(GOOD_TOKENS[h] for h in free) and len(set(free)) == 5
    fixed = {h: n for h, n in enumerate(GOOD_TOKENS) if h not in free}
    on = BalanceOptions()
    off = dataclasses.replace(on, **change)
    counted_on = count_layouts(3, on, terrain=GOOD_TERRAIN, fixed_tokens=fixed, time_limit=LIMIT)
    counted_off = count_layouts(3, off, terrain=GOOD_TERRAIN, fixed_tokens=fixed, time_limit=LIMIT)
    assert counted_on.complete and counted_off.complete
    assert counted_on.count == _brute_force(free, on)
    assert counted_off.count == _brute_force(free, off)
    assert 1 <= counted_on.count < counted_off.count
