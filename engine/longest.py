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


def road_length_after(state: GameState, seat: Seat, e: int) -> int:
    """``seat``'s longest road once its new road ``e`` is laid (``road_len`` holds the length
    before). When one end of ``e`` is a dead end, every new trail ends there, so only trails
    from the other end need searching; otherwise the whole network is searched again."""
    topo = state.topo
    vowner = state.vowner
    eowner = state.eowner
    a, b = topo.edge_vertices[e]
    for end, other in ((b, a), (a, b)):
        o = vowner[end]
        if (o >= 0 and o != seat) or all(
            eowner[f] != seat for f in topo.vertex_edges[end] if f != e
        ):
            o = vowner[other]
            if o >= 0 and o != seat:
                return max(state.road_len[seat], 1)
            return max(state.road_len[seat], 1 + _trail_from(state, seat, other, e))
    return longest_road(state, seat)


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
    ev = state.topo.edge_vertices
    vowner = state.vowner
    # Road graph with every opponent's building split into one dead end per road.
    adj: dict[int, list[int]] = {}
    for e in roads:
        a, b = ev[e]
        o = vowner[a]
        ka = a if o < 0 or o == seat else -1 - 2 * e
        o = vowner[b]
        kb = b if o < 0 or o == seat else -2 - 2 * e
        la = adj.get(ka)
        if la is None:
            adj[ka] = [kb]
        else:
            la.append(kb)
        lb = adj.get(kb)
        if lb is None:
            adj[kb] = [ka]
        else:
            lb.append(ka)
    # A forest (the usual case): the longest trail is the largest tree diameter.
    seen: set[int] = set()
    best = 0
    parts = 0
    for root in adj:
        if root in seen:
            continue
        parts += 1
        far, _, part = _farthest(adj, root)
        seen |= part
        _, d, _ = _farthest(adj, far)
        if d > best:
            best = d
    if m == len(adj) - parts:
        return best
    # Roads with a loop (rare): a longest trail starts somewhere; try every vertex.
    for v in {v for e in roads for v in ev[e]}:
        best = max(best, _trail_from(state, seat, v, -1))
        if best == m:
            break
    return best


def _farthest(adj: dict[int, list[int]], start: int) -> tuple[int, int, set[int]]:
    """Breadth-first search: the farthest node, its distance, and every node reached."""
    seen = {start}
    frontier = [start]
    last = start
    depth = 0
    while True:
        nxt = []
        for x in frontier:
            for y in adj[x]:
                if y not in seen:
                    seen.add(y)
                    nxt.append(y)
        if not nxt:
            return last, depth, seen
        depth += 1
        last = nxt[0]
        frontier = nxt


def award_longest_road(state: GameState, events: _Events) -> None:
    """Give the longest road card by the rulebook: the holder keeps it on a tie; after a
    break, a single longest road of 5+ takes it and a tie for longest sets it aside."""
    lengths = state.road_len
    holder = state.longest_holder
    top = max(lengths)
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
