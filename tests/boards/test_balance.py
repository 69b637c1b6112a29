"""Balance components on hand-made islands, and their range on random ones."""

from __future__ import annotations

import pytest

from boards.balance import balance_of, combined_index, max_pairs
from engine.board import random_board
from engine.rng import Rng
from tests.boards.layouts import (
    GOOD_HARBOURS,
    GOOD_TERRAIN,
    GOOD_TOKENS,
    D,
    G,
    M,
    hex_at,
)

A, A2, B = hex_at(1, 0), hex_at(1, -1), hex_at(-2, 1)


def sparse(hexes: dict[int, tuple[int, int]]) -> tuple[list[int], list[int]]:
    terrain: list[int] = [D] * 19
    tokens = [0] * 19
    for h, (t, n) in hexes.items():
        terrain[h], tokens[h] = t, n
    return terrain, tokens


def test_max_pairs() -> None:
    # one hex, two in a row, a triangle, a rhombus of four, a rosette of seven
    assert [max_pairs(n) for n in (0, 1, 2, 3, 4, 7)] == [0, 0, 1, 3, 5, 12]


def test_clustering_by_hand() -> None:
    # two neighbouring fields: 1 same-terrain pair of the 1 two hexes can form
    terrain, tokens = sparse({A: (G, 6), A2: (G, 8), B: (M, 9)})
    report = balance_of(terrain, tokens, (2,) * 9, 3)
    assert report.resource_clustering == 0.0
    # hot hexes 6, 8 and 9: one neighbouring pair of the three three hexes can form
    assert report.number_clustering == pytest.approx(1 - 1 / 3)
    # dots: grain 10 of 14, ore 4 of 14; hexes: grain 2 of 3, ore 1 of 3; wool, with no
    # hexes, could take every dot: the largest distance is 1
    distance = (abs(10 / 14 - 2 / 3) + abs(4 / 14 - 1 / 3)) / 2
    assert report.production_spread == pytest.approx(1 - distance)
    apart, tokens = sparse({A: (G, 6), B: (G, 8)})
    assert balance_of(apart, tokens, (2,) * 9, 3).resource_clustering == 1.0
    assert balance_of(apart, tokens, (2,) * 9, 3).number_clustering == 1.0


def test_one_harbour_with_all_the_return_is_unbalanced() -> None:
    from engine.topology import topology

    topo = topology(3)
    v = topo.edge_vertices[topo.harbour_slots[0]][0]
    terrain, tokens = sparse({topo.vertex_hexes[v][0]: (G, 6)})
    # harbour 0, a grain harbour, returns 5 x 1.4 = 7; most of the others return nothing
    harbours = (G, 0, 0, 0, 0, 0, 0, 0, 0)
    assert balance_of(terrain, tokens, harbours, 3).harbour_balance == 0.0


def test_the_good_board() -> None:
    report = balance_of(GOOD_TERRAIN, GOOD_TOKENS, GOOD_HARBOURS, 3)
    assert report.resource_clustering == 1.0  # no two neighbours share a terrain
    assert report.balance == pytest.approx(
        (
            report.resource_clustering
            + report.number_clustering
            + report.harbour_balance
            + report.production_spread
        )
        / 4
    )
    assert combined_index(report.balance, 0.5) == pytest.approx((report.balance + 0.5) / 2)


def test_components_lie_in_zero_one() -> None:
    for seed in range(50):
        b = random_board(Rng(seed), 3 + seed % 2)
        r = balance_of(b.terrain, b.tokens, b.harbours, b.radius)
        for x in (
            r.resource_clustering,
            r.number_clustering,
            r.harbour_balance,
            r.production_spread,
            r.balance,
        ):
            assert 0.0 <= x <= 1.0
