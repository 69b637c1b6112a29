"""Putting pieces on the board: the one writer of the tables a building or road changes.

A settlement, city or road changes several derived tables at once: who owns each spot, the
building's level, the spots the distance rule blocks, each seat's buildings and roads, its
trade ratios, its public points and the pieces it has left. :func:`place_settlement`,
:func:`upgrade_city` and :func:`place_road` change all of them together; the rules
(:mod:`engine.rules`), the rebuild from a view (:mod:`engine.rebuild`) and the position
notation (:mod:`engine.notation`) all build through them. They do not check legality, pay
costs, record events or measure roads: the callers do.

The longest road and the largest army change hands through :func:`set_award`, which moves
their points with them; the rules, the longest road's award (:mod:`engine.longest`), the
rebuild and the notation all call it.
"""

from __future__ import annotations

from typing import Final

from engine.constants import (
    GENERIC_HARBOUR_RATIO,
    HARBOUR_GENERIC,
    N_RESOURCES,
    RESOURCE_HARBOUR_RATIO,
    SPECIAL_CARD_POINTS,
    Award,
    Seat,
)
from engine.state import GameState

_R: Final = N_RESOURCES
_HARBOUR_GENERIC: Final = HARBOUR_GENERIC
_GENERIC_RATIO: Final = GENERIC_HARBOUR_RATIO
_RESOURCE_RATIO: Final = RESOURCE_HARBOUR_RATIO
_LONGEST_ROAD: Final = int(Award.LONGEST_ROAD)


def place_settlement(state: GameState, seat: Seat, v: int) -> None:
    """Put a settlement of ``seat`` on the empty vertex ``v``: its owner and level, the
    distance rule's blocked spots, the seat's buildings, a harbour's ratios, a point and one
    settlement fewer left."""
    state.vowner[v] = seat
    state.vlevel[v] = 1
    blocked = state.vblocked
    blocked[v] = blocked[v] + 1
    for w in state.topo.vertex_vertices[v]:
        blocked[w] = blocked[w] + 1
    state.pbuild[seat].append(v)
    state.settlements_left[seat] = state.settlements_left[seat] - 1
    state.vp[seat] = state.vp[seat] + 1
    kind = state.board.vertex_harbour[v]
    if kind >= 0:
        ratio = state.ratio
        base = seat * _R
        if kind == _HARBOUR_GENERIC:
            for r in range(_R):
                if ratio[base + r] > _GENERIC_RATIO:
                    ratio[base + r] = _GENERIC_RATIO
        else:
            ratio[base + kind] = _RESOURCE_RATIO


def upgrade_city(state: GameState, seat: Seat, v: int) -> None:
    """Make ``seat``'s settlement on ``v`` a city: its level, a point, the settlement back
    in the seat's supply and one city fewer left."""
    state.vlevel[v] = 2
    state.cities_left[seat] = state.cities_left[seat] - 1
    state.settlements_left[seat] = state.settlements_left[seat] + 1
    state.vp[seat] = state.vp[seat] + 1


def place_road(state: GameState, seat: Seat, e: int) -> None:
    """Put a road of ``seat`` on the empty edge ``e``: its owner, the seat's roads and one
    road fewer left. The road's length is the caller's to measure."""
    state.eowner[e] = seat
    state.proads[seat].append(e)
    state.roads_left[seat] = state.roads_left[seat] - 1


def set_award(state: GameState, award: int, seat: Seat) -> None:
    """Make ``seat`` (-1: nobody) the holder of ``award`` (an :class:`Award`): the holder's
    field, and the award's points taken from the old holder and given to the new one. Giving
    an award to its holder changes nothing. Whether ``seat`` has earned it is the caller's
    to decide."""
    if award == _LONGEST_ROAD:
        old = state.longest_holder
        state.longest_holder = seat
    else:
        old = state.army_holder
        state.army_holder = seat
    if old == seat:
        return
    vp = state.vp
    if old >= 0:
        vp[old] = vp[old] - SPECIAL_CARD_POINTS
    if seat >= 0:
        vp[seat] = vp[seat] + SPECIAL_CARD_POINTS
