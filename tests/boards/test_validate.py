"""The independent validator names every kind of broken rule on hand-made bad layouts."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import pytest

from boards.options import BalanceOptions
from boards.validate import RULES, _geometry, board_violations, layout_violations
from engine.constants import RED_TOKENS
from engine.topology import topology
from tests.boards.layouts import (
    GOOD_TERRAIN,
    GOOD_TOKENS,
    D,
    F,
    H,
    good_board,
    neighbours,
)

ALL = BalanceOptions()


def rules(terrain: Sequence[int], tokens: Sequence[int], options: BalanceOptions = ALL) -> set[str]:
    return {v.rule for v in layout_violations(terrain, tokens, 3, options)}


def swapped(seq: tuple[int, ...], a: int, b: int) -> list[int]:
    out = list(seq)
    out[a], out[b] = out[b], out[a]
    return out


def test_the_good_layout_keeps_every_rule() -> None:
    assert board_violations(good_board(), ALL) == []
    assert rules(list(GOOD_TERRAIN), list(GOOD_TOKENS)) == set()


def test_geometry_agrees_with_the_engine_topology() -> None:
    pairs, meets = _geometry(3)
    topo = topology(3)
    engine_pairs = {(h, g) for h in range(19) for g in topo.hex_neighbours[h] if h < g}
    assert set(pairs) == engine_pairs and len(pairs) == 42
    assert len(meets) == topo.n_vertices == 54
    engine_meets = sorted(tuple(sorted(hs)) for hs in topo.vertex_hexes)
    assert sorted(tuple(h for h in m if h >= 0) for m in meets) == engine_meets


def test_contents_and_desert() -> None:
    terrain = list(GOOD_TERRAIN)
    terrain[0] = F  # one hills too few, one forest too many
    assert "contents" in rules(terrain, list(GOOD_TOKENS))
    desert = GOOD_TERRAIN.index(D)
    tokens = swapped(GOOD_TOKENS, desert, 0)  # the desert gets a 2, hex 0 no number
    assert "desert" in rules(list(GOOD_TERRAIN), tokens)
    assert rules([0], [0]) == {"contents"}


def test_same_terrain_neighbours() -> None:
    h = 0
    g = next(g for g in neighbours(h) if GOOD_TERRAIN[g] != D)
    k = next(k for k, t in enumerate(GOOD_TERRAIN) if t == GOOD_TERRAIN[h] and k != h)
    terrain = swapped(GOOD_TERRAIN, g, k)
    assert "same_terrain" in rules(terrain, list(GOOD_TOKENS))
    off = dataclasses.replace(ALL, separate_terrain=False, separate_brick_lumber=False)
    assert "same_terrain" not in rules(terrain, list(GOOD_TOKENS), off)


def test_brick_next_to_lumber() -> None:
    h = GOOD_TERRAIN.index(H)
    g = next(g for g in neighbours(h) if GOOD_TERRAIN[g] not in (H, F, D))
    k = next(k for k, t in enumerate(GOOD_TERRAIN) if t == F and k not in neighbours(h))
    terrain = swapped(GOOD_TERRAIN, g, k)
    assert "brick_lumber" in rules(terrain, list(GOOD_TOKENS))
    off = dataclasses.replace(ALL, separate_brick_lumber=False)
    assert "brick_lumber" not in rules(terrain, list(GOOD_TOKENS), off)


def test_six_next_to_eight() -> None:
    six = GOOD_TOKENS.index(6)
    g = next(g for g in neighbours(six) if GOOD_TOKENS[g] not in (0, *RED_TOKENS))
    eight = GOOD_TOKENS.index(8)
    tokens = swapped(GOOD_TOKENS, g, eight)
    assert "reds_adjacent" in rules(list(GOOD_TERRAIN), tokens)
    off = dataclasses.replace(ALL, separate_reds=False)
    assert "reds_adjacent" not in rules(list(GOOD_TERRAIN), tokens, off)


def test_two_reds_on_one_resource() -> None:
    six = GOOD_TOKENS.index(6)
    k = next(
        k
        for k, t in enumerate(GOOD_TERRAIN)
        if t == GOOD_TERRAIN[six] and GOOD_TOKENS[k] not in RED_TOKENS
    )
    eight = GOOD_TOKENS.index(8)
    tokens = swapped(GOOD_TOKENS, k, eight)
    assert "reds_resource" in rules(list(GOOD_TERRAIN), tokens)
    off = dataclasses.replace(ALL, spread_reds=False, separate_reds=False)
    assert "reds_resource" not in rules(list(GOOD_TERRAIN), tokens, off)


def test_a_number_twice_on_one_resource() -> None:
    first = GOOD_TOKENS.index(5)
    second = GOOD_TOKENS.index(5, first + 1)
    k = next(
        k
        for k, t in enumerate(GOOD_TERRAIN)
        if t == GOOD_TERRAIN[first] and k != first and GOOD_TOKENS[k] != 5
    )
    tokens = swapped(GOOD_TOKENS, k, second)
    assert "resource_tokens" in rules(list(GOOD_TERRAIN), tokens)
    off = dataclasses.replace(ALL, distinct_tokens=False)
    assert "resource_tokens" not in rules(list(GOOD_TERRAIN), tokens, off)


@pytest.mark.parametrize(
    ("change", "rule"),
    [
        ({"max_pips": 10}, "max_pips"),
        ({"min_pips": 9}, "min_pips"),
        ({"max_token_sum": 20}, "max_token_sum"),
    ],
)
def test_intersection_bounds(change: dict[str, Any], rule: str) -> None:
    options = dataclasses.replace(ALL, **change)
    assert rules(list(GOOD_TERRAIN), list(GOOD_TOKENS), options) == {rule}


def test_intersection_bounds_are_what_they_say() -> None:
    # the good board's busiest intersection has 11 pips, its quietest inland one fewer than
    # 9, and its largest token sum (desert 7, sea 1) lies between 20 and 40
    loose = dataclasses.replace(ALL, max_pips=11, min_pips=1, max_token_sum=40)
    assert rules(list(GOOD_TERRAIN), list(GOOD_TOKENS), loose) == set()


def test_every_rule_is_named() -> None:
    assert set(RULES) == {
        "contents",
        "desert",
        "same_terrain",
        "brick_lumber",
        "reds_adjacent",
        "reds_resource",
        "resource_tokens",
        "max_pips",
        "min_pips",
        "max_token_sum",
    }
