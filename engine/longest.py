"""The longest road: the length of a seat's longest trail of roads, kept up to date as
roads are laid (:func:`road_length_after`) or cut (:func:`longest_road`), and who holds the
longest road card (:func:`award_longest_road`). The rules (:mod:`engine.rules`) and the
position notation call them.
"""

from __future__ import annotations

from engine.constants import LONGEST_ROAD_MIN, SPECIAL_CARD_POINTS, Seat
from engine.events import Event, LongestRoadChanged
from engine.state import GameState

_Events = list[Event] | None


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
    """Longest trail of ``seat``'s roads starting at ``start``, not using edge ``skip``
    (-1 for none) and not passing through an opponent's building."""
    topo = state.topo
    used = [False] * len(topo.edge_vertices)
    if skip >= 0:
        used[skip] = True
    return _walk(
        topo.vertex_edges, topo.edge_vertices, state.eowner, state.vowner, seat, start, used, 0
    )


def _walk(
    vedges: tuple[tuple[int, ...], ...],
    ev: tuple[tuple[int, int], ...],
    eowner: list[int],
    vowner: list[int],
    seat: Seat,
    v: int,
    used: list[bool],
    length: int,
) -> int:
    """Depth-first search for :func:`_trail_from`: the length of the longest trail that
    extends the current one, ``length`` roads long, ending at ``v``, with its edges marked
    in ``used`` (marks added on the way are removed on return)."""
    best = length
    if length:
        o = vowner[v]
        if o >= 0 and o != seat:
            return best
    for f in vedges[v]:
        if eowner[f] == seat and not used[f]:
            x, y = ev[f]
            used[f] = True
            d = _walk(vedges, ev, eowner, vowner, seat, y if x == v else x, used, length + 1)
            used[f] = False
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
    used = [False] * len(ev)
    best = 0
    last = -1
    for v in starts:
        if v != last:
            last = v
            d = _walk(topo.vertex_edges, ev, state.eowner, state.vowner, seat, v, used, 0)
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
    if holder >= 0:
        state.vp[holder] = state.vp[holder] - SPECIAL_CARD_POINTS
    if new >= 0:
        state.vp[new] = state.vp[new] + SPECIAL_CARD_POINTS
    state.longest_holder = new
    if events is not None:
        events.append(LongestRoadChanged(None if new < 0 else new, top if new >= 0 else 0))
