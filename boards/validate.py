"""The independent check of a layout against :class:`boards.options.BalanceOptions`.

Written apart from the constraint model, and on purpose from a different description of
the island: hex neighbours and intersections are worked out here from the hexes' axial
coordinates alone (two hexes touch when they are one step apart; an intersection is where
a hex meets two of its neighbours, land or sea), not from the model or its tables.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from boards.options import DESERT_TOKEN_VALUE, SEA_TOKEN_VALUE, BalanceOptions, red_cap, token_cap
from engine.board import Board, terrain_counts, token_counts
from engine.constants import DICE_DOTS, RED_TOKENS, Terrain
from engine.topology import topology

_STEPS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))

RULES = (
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
)
"""Every rule the validator names, in the order it checks them."""


@dataclass(frozen=True)
class Violation:
    """One broken rule (one of :data:`RULES`) and where."""

    rule: str
    detail: str

    def __str__(self) -> str:
        return f"{self.rule}: {self.detail}"


@cache
def _geometry(radius: int) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, ...], ...]]:
    """Neighbouring land-hex pairs and, per intersection, its land hexes (and sea count)."""
    coords = topology(radius).hex_coords
    where = {c: h for h, c in enumerate(coords)}

    def step(c: tuple[int, int], d: tuple[int, int]) -> tuple[int, int]:
        return (c[0] + d[0], c[1] + d[1])

    pairs = []
    for h, c in enumerate(coords):
        for d in _STEPS:
            g = where.get(step(c, d))
            if g is not None and h < g:
                pairs.append((h, g))
    corners: set[frozenset[tuple[int, int]]] = set()
    for c in coords:
        for i in range(6):
            corners.add(frozenset((c, step(c, _STEPS[i]), step(c, _STEPS[(i + 1) % 6]))))
    # each intersection as its land hexes followed by -1 for every sea hex
    meets = tuple(sorted(tuple(sorted(where.get(c, -1) for c in corner)) for corner in corners))
    return tuple(pairs), meets


def layout_violations(
    terrain: Sequence[int],
    tokens: Sequence[int],
    radius: int,
    options: BalanceOptions,
) -> list[Violation]:
    """Every rule of ``options`` (and of the board's contents) the layout breaks; empty when
    it keeps them all."""
    out: list[Violation] = []
    pairs, meets = _geometry(radius)
    n = len(topology(radius).hex_coords)
    if len(terrain) != n or len(tokens) != n:
        return [Violation("contents", f"radius {radius} has {n} hexes")]
    if Counter(int(t) for t in terrain) != Counter(
        {int(t): c for t, c in terrain_counts(radius).items()}
    ):
        out.append(Violation("contents", f"terrain counts are not those of radius {radius}"))
    if Counter(int(k) for k in tokens if k) != token_counts(radius):
        out.append(Violation("contents", f"number tokens are not those of radius {radius}"))
    for h, (t, k) in enumerate(zip(terrain, tokens, strict=True)):
        if (t == Terrain.DESERT) != (k == 0):
            out.append(Violation("desert", f"hex {h}: terrain {t} with token {k}"))

    for h, g in pairs:
        a, b = terrain[h], terrain[g]
        if options.separate_terrain and a == b:
            name = Terrain(a).name.lower()
            out.append(Violation("same_terrain", f"hexes {h} and {g} are both {name}"))
        if options.separate_brick_lumber and {a, b} == {Terrain.HILLS, Terrain.FOREST}:
            out.append(Violation("brick_lumber", f"hexes {h} and {g} are hills and forest"))
        if options.separate_reds and tokens[h] in RED_TOKENS and tokens[g] in RED_TOKENS:
            out.append(
                Violation("reds_adjacent", f"hexes {h} and {g} carry {tokens[h]}, {tokens[g]}")
            )

    per_resource: dict[int, Counter[int]] = {}
    for t, k in zip(terrain, tokens, strict=True):
        if k:
            per_resource.setdefault(int(t), Counter())[k] += 1
    for t, numbers in sorted(per_resource.items()):
        if options.spread_reds:
            reds = sum(numbers[r] for r in RED_TOKENS)
            if reds > red_cap(radius):
                out.append(Violation("reds_resource", f"terrain {t} carries {reds} reds"))
        if options.distinct_tokens:
            for k, c in sorted(numbers.items()):
                if c > token_cap(radius, k):
                    out.append(Violation("resource_tokens", f"terrain {t} carries {c} x {k}"))

    for hexes in meets:
        land = [h for h in hexes if h >= 0]
        pips = sum(DICE_DOTS[tokens[h]] for h in land if tokens[h])
        if options.max_pips is not None and pips > options.max_pips:
            out.append(Violation("max_pips", f"hexes {land} have {pips} pips"))
        if options.min_pips is not None and len(land) == 3 and pips < options.min_pips:
            out.append(Violation("min_pips", f"hexes {land} have {pips} pips"))
        if options.max_token_sum is not None:
            face = sum(tokens[h] or DESERT_TOKEN_VALUE for h in land)
            face += SEA_TOKEN_VALUE * (3 - len(land))
            if face > options.max_token_sum:
                out.append(Violation("max_token_sum", f"hexes {land} sum to {face}"))
    return out


def board_violations(board: Board, options: BalanceOptions) -> list[Violation]:
    """:func:`layout_violations` of a board."""
    return layout_violations(board.terrain, board.tokens, board.radius, options)
