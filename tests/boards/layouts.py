"""Hand-kept layouts for the board lab's tests."""

from __future__ import annotations

from engine.board import Board
from engine.constants import Terrain
from engine.topology import topology

H, F, P, G, M, D = (
    Terrain.HILLS,
    Terrain.FOREST,
    Terrain.PASTURE,
    Terrain.FIELDS,
    Terrain.MOUNTAINS,
    Terrain.DESERT,
)

# A balanced radius-3 board (every rule of BalanceOptions() holds; intersections reach
# 11 pips, so max_pips=10 fails on it).
GOOD_TERRAIN = (H, G, M, P, G, P, M, F, P, H, G, F, M, F, D, H, G, F, P)
GOOD_TOKENS = (2, 12, 8, 4, 6, 5, 3, 10, 11, 5, 3, 8, 10, 4, 0, 11, 9, 9, 6)
GOOD_HARBOURS = (5, 0, 5, 1, 5, 2, 3, 4, 5)


def good_board() -> Board:
    return Board.from_layout(GOOD_TERRAIN, GOOD_TOKENS, GOOD_HARBOURS)


def hex_at(q: int, r: int, radius: int = 3) -> int:
    """The id of the hex at axial ``(q, r)``."""
    return topology(radius).hex_index[(q, r)]


def neighbours(h: int, radius: int = 3) -> tuple[int, ...]:
    return topology(radius).hex_neighbours[h]
