"""The longest road: the length of a seat's longest trail of roads, kept up to date as
roads are laid (:func:`road_length_after`) or cut (:func:`longest_road`), and who holds the
longest road card (:func:`award_longest_road`). The rules (:mod:`engine.rules`) and the
position notation call them.
"""

from __future__ import annotations

from typing import Final

from engine.constants import LONGEST_ROAD_MIN, Award, Seat
from engine.events import Event, LongestRoadChanged
from engine.pieces import set_award
from engine.state import GameState

_Events = list[Event] | None
_LONGEST_ROAD: Final = int(Award.LONGEST_ROAD)
_WALKED: Final = -2
"""The owner :func:`_walk` gives the roads of the trail it follows, for the time it does."""


def road_length_after(state: GameState, seat: Seat, e: int) -> int:
    """``seat``'s longest road once its new road ``e`` is laid (``road_len`` holds the length
    before). When one end of ``e`` is a dead end, every new trail ends there, so only trails
    from the other end need searching; otherwise the whole network is searched again."""
    a, b = state.topo.edge_vertices[e]
    if _is_dead_end(state, seat, b, e):
        return _length_from(state, seat, a, e)
    if _is_dead_end(state, seat, a, e):
        return _length_from(state, seat, b, e)
    return longest_road(state, seat)


def _is_dead_end(state: GameState, seat: Seat, end: int, e: int) -> bool:
    """True when no trail of ``seat`` goes on through ``end`` past its new road ``e``: an
    opponent's building stands there or no other road of ``seat`` meets it."""
    o = state.vowner[end]
    if o >= 0 and o != seat:
        return True
    eowner = state.eowner
    return all(f == e or eowner[f] != seat for f in state.topo.vertex_edges[end])


def _length_from(state: GameState, seat: Seat, other: int, e: int) -> int:
    """``seat``'s longest road once ``e`` is laid with a dead end on the far side of
    ``other``: the old longest, or a new trail from the dead end through ``other``."""
    o = state.vowner[other]
    if o >= 0 and o != seat:
        return max(state.road_len[seat], 1)
    return max(state.road_len[seat], 1 + _trail_from(state, seat, other, e))


def _trail_from(state: GameState, seat: Seat, start: int, skip: int) -> int:
    """Longest trail of ``seat``'s roads starting at ``start``, not using its road ``skip``
    and not passing through an opponent's building."""
    topo = state.topo
    eowner = state.eowner
    eowner[skip] = _WALKED
    best = _walk(topo.vertex_edges, topo.edge_vertices, eowner, state.vowner, seat, start, 0)
    eowner[skip] = seat
    return best


def _walk(
    vedges: tuple[tuple[int, ...], ...],
    ev: tuple[tuple[int, int], ...],
    eowner: list[int],
    vowner: list[int],
    seat: Seat,
    v: int,
    length: int,
) -> int:
    """Depth-first search for :func:`_trail_from`: the length of the longest trail that
    extends the current one, ``length`` roads long, ending at ``v``. The trail's roads are
    marked as owned by :data:`_WALKED` while it goes on (each mark is undone on return),
    so that no road is used twice and no list of marks is needed."""
    best = length
    if length:
        o = vowner[v]
        if o >= 0 and o != seat:
            return best
    for f in vedges[v]:
        if eowner[f] == seat:
            x, y = ev[f]
            eowner[f] = _WALKED
            d = _walk(vedges, ev, eowner, vowner, seat, y if x == v else x, length + 1)
            eowner[f] = seat
            if d > best:
                best = d
    return best


def longest_road(state: GameState, seat: Seat) -> int:
    """Length of the longest trail of ``seat``'s roads, not passing through an opponent's
    building (a trail may start or end at one)."""
    roads = state.proads[seat]
    m = len(roads)
    if m <= 1:
        return m
    topo = state.topo
    ev = topo.edge_vertices
    # A longest trail starts somewhere on the network: walk every trail from every vertex
    # (a few dozen roads at most), stopping early once one uses every road.
    starts: list[int] = []
    for e in roads:
        a, b = ev[e]
        starts.append(a)
        starts.append(b)
    starts.sort()
    best = 0
    last = -1
    for v in starts:
        if v != last:
            last = v
            d = _walk(topo.vertex_edges, ev, state.eowner, state.vowner, seat, v, 0)
            if d > best:
                best = d
                if best == m:
                    break
    return best


def award_longest_road(state: GameState, events: _Events) -> None:
    """Give the longest road card by the rulebook: the holder keeps it on a tie; after a
    break, a single longest road of 5+ takes it and a tie for longest sets it aside."""
    lengths = state.road_len
    holder = state.longest_holder
    top = 0
    for x in lengths:  # max(lengths), without the call
        if x > top:
            top = x
    if holder >= 0 and lengths[holder] >= LONGEST_ROAD_MIN and lengths[holder] == top:
        return
    new = -1
    if top >= LONGEST_ROAD_MIN:
        leaders = [q for q in range(state.n) if lengths[q] == top]
        if len(leaders) == 1:
            new = leaders[0]
    if new == holder:
        return
    set_award(state, _LONGEST_ROAD, new)
    if events is not None:
        events.append(LongestRoadChanged(None if new < 0 else new, top if new >= 0 else 0))
