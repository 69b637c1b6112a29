"""How balanced an island is: four components in [0, 1] (1 is the most balanced), after the
balance index of the fair-boards reference, and the combined index.

The reference names the components (resource clustering, number clustering, harbour return
balance, production spread over the resources) but not their formulas; these are ours:

- **resource clustering**: ``1 - p / p_max``, ``p`` the neighbouring pairs of producing hexes
  with the same terrain and ``p_max`` the most such pairs the terrain counts allow (each
  terrain's hexes packed in one compact group: ``3n - ceil(sqrt(12n - 3))`` pairs for ``n``
  hexes, Harary and Harborth's bound for hexagonal animals).
- **number clustering**: the same, for the neighbouring pairs of "hot" hexes (4 dots or more:
  5, 6, 8 and 9) against the most pairs that many hot hexes can form.
- **harbour balance**: each harbour's return is the dots of the hexes around its two
  intersections, its resource's counted x1.4 on a 2:1 harbour and all of them x1.1 on a
  3:1 harbour; ``1 - cv`` (``cv`` the coefficient of variation of the returns, capped at 1).
- **production spread**: each resource's share of all dots against its share of the
  producing hexes; ``1 - d / d_max``, ``d`` the total variation distance between the two
  and ``d_max`` its largest possible value (every dot on the scarcest resource).

The balance is the mean of the four; the combined index is the mean of balance and fairness,
as in the reference.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from engine.constants import DICE_DOTS, HARBOUR_GENERIC, HARBOUR_LAYOUT, N_RESOURCES
from engine.topology import topology

_HOT_DOTS = 4
_SPECIFIC = 1.4
_GENERIC = 1.1


@dataclass(frozen=True)
class BalanceReport:
    """The four balance components, each in [0, 1]."""

    resource_clustering: float
    number_clustering: float
    harbour_balance: float
    production_spread: float

    @property
    def balance(self) -> float:
        """The mean of the four components."""
        return (
            self.resource_clustering
            + self.number_clustering
            + self.harbour_balance
            + self.production_spread
        ) / 4


def combined_index(balance: float, fairness: float) -> float:
    """The reference's combined index: the mean of balance and fairness."""
    return (balance + fairness) / 2


def max_pairs(n: int) -> int:
    """The most neighbouring pairs ``n`` hexes can form (Harary and Harborth)."""
    if n <= 1:
        return 0
    return 3 * n - math.ceil(math.sqrt(12 * n - 3))


@cache
def _tables(
    radius: int, harbour_layout: int = HARBOUR_LAYOUT
) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, ...], ...]]:
    """Neighbouring hex pairs, and per harbour slot (of ``harbour_layout``) the land hexes
    around its intersections."""
    topo = topology(radius)
    pairs = tuple((h, g) for h in range(topo.n_hexes) for g in topo.hex_neighbours[h] if h < g)
    harbour_hexes = tuple(
        tuple(sorted({h for v in topo.edge_vertices[e] for h in topo.vertex_hexes[v]}))
        for e in topo.harbour_slots_of(harbour_layout)
    )
    return pairs, harbour_hexes


def balance_of(
    terrain: Sequence[int],
    tokens: Sequence[int],
    harbours: Sequence[int],
    radius: int,
    harbour_layout: int = HARBOUR_LAYOUT,
) -> BalanceReport:
    """The balance components of a layout, its harbours on the slots of ``harbour_layout``."""
    pairs, harbour_hexes = _tables(radius, harbour_layout)
    dots = [DICE_DOTS[k] if k else 0 for k in tokens]

    counts = [0] * N_RESOURCES
    res_dots = [0] * N_RESOURCES
    hot = 0
    for t, d in zip(terrain, dots, strict=True):
        if t < N_RESOURCES:
            counts[t] += 1
            res_dots[t] += d
        if d >= _HOT_DOTS:
            hot += 1
    same = 0
    hot_pairs = 0
    for h, g in pairs:
        if terrain[h] == terrain[g] and terrain[h] < N_RESOURCES:
            same += 1
        if dots[h] >= _HOT_DOTS and dots[g] >= _HOT_DOTS:
            hot_pairs += 1
    most = sum(max_pairs(c) for c in counts)
    resource_clustering = 1.0 - same / most if most else 1.0
    most_hot = max_pairs(hot)
    number_clustering = 1.0 - hot_pairs / most_hot if most_hot else 1.0

    returns = []
    for hexes, kind in zip(harbour_hexes, harbours, strict=True):
        total = 0.0
        for h in hexes:
            if kind == HARBOUR_GENERIC:
                total += dots[h] * _GENERIC
            elif terrain[h] == kind:
                total += dots[h] * _SPECIFIC
            else:
                total += dots[h]
        returns.append(total)
    harbour_balance = 1.0
    if returns:
        mean = sum(returns) / len(returns)
        if mean > 0:
            sd = math.sqrt(sum((r - mean) ** 2 for r in returns) / len(returns))
            harbour_balance = 1.0 - min(1.0, sd / mean)
        else:
            harbour_balance = 0.0

    producing = sum(counts)
    all_dots = sum(res_dots)
    production_spread = 1.0
    if producing and all_dots:
        expected = [c / producing for c in counts]
        distance = sum(abs(d / all_dots - e) for d, e in zip(res_dots, expected, strict=True)) / 2
        largest = 1.0 - min(e for e in expected)
        production_spread = 1.0 - min(1.0, distance / largest) if largest > 0 else 1.0
    return BalanceReport(
        resource_clustering=resource_clustering,
        number_clustering=number_clustering,
        harbour_balance=harbour_balance,
        production_spread=production_spread,
    )
