"""The island's graph for a board radius: hexes, intersections (vertices), paths (edges).

A board of radius ``R`` has hex rings 0 .. R-1 (radius 3 is the standard island: 19 hexes,
54 vertices, 72 edges). Hexes use axial coordinates ``(q, r)`` on pointy-top hexes, ``q``
growing to the east and ``r`` to the south-east. Ids are small integers: hexes are numbered
ring by ring from the centre, each ring starting at its eastmost hex and running
counter-clockwise (thesis 4.3.1); vertices ring by ring by angle; edges by their vertex ids.

A :class:`Topology` is built once per radius (:func:`topology`) and shared by every board and
every game state of that radius; its tables are tuples and never change.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

from engine.constants import (
    HARBOUR_GENERIC,
    HARBOUR_LAYOUT,
    HARBOUR_LAYOUT_EVEN,
    HARBOUR_VERTEX_RATIO,
    N_RESOURCES,
    EdgeId,
    HexId,
    VertexId,
)

# Axial directions, counter-clockwise from east (pointy-top hexes).
DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))

Axial = tuple[int, int]


def _add(a: Axial, b: Axial) -> Axial:
    return (a[0] + b[0], a[1] + b[1])


def hex_distance(a: Axial, b: Axial = (0, 0)) -> int:
    """Steps between two hexes on the axial grid."""
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def _pixel(h: Axial) -> tuple[float, float]:
    """Centre of a hex of unit size, x east, y north."""
    return (math.sqrt(3) * (h[0] + h[1] / 2), -1.5 * h[1])


def ring_hexes(k: int) -> list[Axial]:
    """The hexes at distance ``k`` from the centre, from the eastmost one counter-clockwise."""
    if k == 0:
        return [(0, 0)]
    out: list[Axial] = []
    h: Axial = (k, 0)
    # From the east corner walk north-west, west, south-west, south-east, east, north-east.
    for d in (2, 3, 4, 5, 0, 1):
        for _ in range(k):
            out.append(h)
            h = _add(h, DIRECTIONS[d])
    return out


@dataclass(frozen=True, eq=False)
class Topology:
    """Immutable adjacency tables of one board radius. Build it with :func:`topology`."""

    radius: int
    hex_coords: tuple[Axial, ...]
    hex_ring: tuple[int, ...]
    hex_neighbours: tuple[tuple[HexId, ...], ...]
    hex_vertices: tuple[tuple[VertexId, ...], ...]  # six, counter-clockwise from the corner at 30°
    hex_edges: tuple[tuple[EdgeId, ...], ...]  # six, counter-clockwise from the east side
    vertex_hexes: tuple[tuple[HexId, ...], ...]  # land hexes only (1 to 3)
    vertex_vertices: tuple[tuple[VertexId, ...], ...]
    vertex_edges: tuple[tuple[EdgeId, ...], ...]
    vertex_ring: tuple[int, ...]
    vertex_xy: tuple[tuple[float, float], ...]
    edge_vertices: tuple[tuple[VertexId, VertexId], ...]
    edge_edges: tuple[tuple[EdgeId, ...], ...]  # edges sharing a vertex
    edge_sides: tuple[tuple[tuple[VertexId, tuple[EdgeId, ...]], ...], ...]
    """Per edge, each end vertex with the other edges meeting there."""
    coast_edges: tuple[EdgeId, ...]  # counter-clockwise around the island
    harbour_slots: tuple[EdgeId, ...]  # the harbour slots of new boards, counter-clockwise
    hex_index: dict[Axial, HexId]
    even_harbour_slots: tuple[EdgeId, ...]  # the slots of HARBOUR_LAYOUT_EVEN

    @property
    def n_hexes(self) -> int:
        return len(self.hex_coords)

    @property
    def n_vertices(self) -> int:
        return len(self.vertex_hexes)

    @property
    def n_edges(self) -> int:
        return len(self.edge_vertices)

    def edge_between(self, a: VertexId, b: VertexId) -> EdgeId | None:
        """The edge joining two vertices, or None when they are not neighbours."""
        for e in self.vertex_edges[a]:
            if b in self.edge_vertices[e]:
                return e
        return None

    def harbour_slots_of(self, layout: int) -> tuple[EdgeId, ...]:
        """The harbour slots of a harbour layout (see :data:`engine.constants.HARBOUR_LAYOUTS`).
        Raises ValueError for an unknown layout."""
        if layout == HARBOUR_LAYOUT:
            return self.harbour_slots
        if layout == HARBOUR_LAYOUT_EVEN:
            return self.even_harbour_slots
        raise ValueError(f"unknown harbour layout {layout}")

    def spiral(self, start_corner: int = 0) -> tuple[HexId, ...]:
        """Every hex once, from an outer corner hex inwards, counter-clockwise ring by ring.

        ``start_corner`` (0-5) picks which of the six outer corner hexes the spiral starts on.
        """
        order: list[HexId] = []
        for k in range(self.radius - 1, -1, -1):
            ring = [self.hex_index[h] for h in ring_hexes(k)]
            shift = (start_corner % 6) * k
            order.extend(ring[shift:] + ring[:shift])
        return tuple(order)


def harbour_count(radius: int) -> int:
    """How many harbours a board of this radius has (thesis 4.3.8)."""
    coast_vertices = (2 * (radius - 1) + 1) * 6
    touching = int(coast_vertices * HARBOUR_VERTEX_RATIO)
    touching -= touching % 2
    return touching // 2


def harbour_kinds(radius: int) -> list[int]:
    """The harbour kinds of a board of this radius, before shuffling (thesis 4.3.8).

    About half are 2:1 harbours, rounded up so that every resource has as many; the rest are
    3:1. Radius 3 gives the rulebook's five 2:1 harbours and four 3:1 harbours.
    """
    total = harbour_count(radius)
    specific = total // 2
    if specific % N_RESOURCES:
        specific += N_RESOURCES - specific % N_RESOURCES
    specific = min(specific, total - total % N_RESOURCES)
    kinds = [r for _ in range(specific // N_RESOURCES) for r in range(N_RESOURCES)]
    kinds += [HARBOUR_GENERIC] * (total - specific)
    return kinds


def _harbour_slots(coast: list[EdgeId], east_tip: EdgeId, radius: int) -> tuple[EdgeId, ...]:
    """The harbour slots: evenly spaced round the coast, each rounded to the nearest coast
    edge, counter-clockwise from the tip of the eastmost hex (its east side, whose two
    intersections touch no other land hex).

    On the standard island this is the printed frame: harbours at the tips of the east,
    north-west and south-west corner hexes, and one on each side of the other three corner
    hexes, on the coast hexes' edges that meet them (3-4-3 coast edges apart).
    """
    n = harbour_count(radius)
    length = len(coast)
    start = coast.index(east_tip)
    return tuple(coast[(start + (2 * i * length + n) // (2 * n)) % length] for i in range(n))


def _even_harbour_slots(coast: list[EdgeId], radius: int) -> tuple[EdgeId, ...]:
    """The slots of the first harbour layout: evenly spaced round the coast, starting one
    edge past the first coast edge counter-clockwise from due east."""
    n = harbour_count(radius)
    return tuple(coast[(1 + (i * len(coast)) // n) % len(coast)] for i in range(n))


@cache
def topology(radius: int) -> Topology:
    """The shared topology of a board radius (>= 3). Raises ValueError for a smaller radius."""
    if radius < 3:
        raise ValueError(f"board radius must be at least 3, got {radius}")
    hex_coords: list[Axial] = []
    hex_ring: list[int] = []
    for k in range(radius):
        for h in ring_hexes(k):
            hex_coords.append(h)
            hex_ring.append(k)
    hex_index = {h: i for i, h in enumerate(hex_coords)}

    # A vertex is identified by the three hexes (land or sea) meeting at it; an edge by two.
    corner_keys: dict[frozenset[Axial], list[Axial]] = {}
    side_keys: dict[frozenset[Axial], None] = {}
    hex_corner_keys: list[list[frozenset[Axial]]] = []
    hex_side_keys: list[list[frozenset[Axial]]] = []
    for h in hex_coords:
        corners = []
        sides = []
        for i in range(6):
            a = _add(h, DIRECTIONS[i])
            b = _add(h, DIRECTIONS[(i + 1) % 6])
            ck = frozenset((h, a, b))
            corner_keys.setdefault(ck, [])
            corners.append(ck)
            sk = frozenset((h, a))
            side_keys.setdefault(sk, None)
            sides.append(sk)
        hex_corner_keys.append(corners)
        hex_side_keys.append(sides)

    def vertex_xy_of(key: frozenset[Axial]) -> tuple[float, float]:
        pts = [_pixel(h) for h in key]
        return (sum(p[0] for p in pts) / 3, sum(p[1] for p in pts) / 3)

    def vertex_ring_of(key: frozenset[Axial]) -> int:
        return min(hex_distance(h) for h in key)

    def angle(xy: tuple[float, float]) -> float:
        return round(math.atan2(xy[1], xy[0]) % (2 * math.pi), 9)

    vkeys = sorted(corner_keys, key=lambda k: (vertex_ring_of(k), angle(vertex_xy_of(k))))
    vid = {k: i for i, k in enumerate(vkeys)}

    # Edges: collect endpoints per side key, then number by vertex ids.
    side_ends: dict[frozenset[Axial], tuple[int, int]] = {}
    for hi in range(len(hex_coords)):
        corners = hex_corner_keys[hi]
        for i in range(6):
            sk = hex_side_keys[hi][i]
            if sk not in side_ends:
                # side i lies between corner i-1 and corner i of this hex
                v1, v2 = vid[corners[(i - 1) % 6]], vid[corners[i]]
                side_ends[sk] = (min(v1, v2), max(v1, v2))
    ekeys = sorted(side_ends, key=lambda k: side_ends[k])
    eid = {k: i for i, k in enumerate(ekeys)}
    edge_vertices = tuple(side_ends[k] for k in ekeys)

    n_v = len(vkeys)
    v_hexes: list[list[int]] = [[] for _ in range(n_v)]
    v_edges: list[list[int]] = [[] for _ in range(n_v)]
    v_vertices: list[list[int]] = [[] for _ in range(n_v)]
    for key, vi in vid.items():
        v_hexes[vi] = sorted(hex_index[h] for h in key if h in hex_index)
    for e, (va, vb) in enumerate(edge_vertices):
        v_edges[va].append(e)
        v_edges[vb].append(e)
        v_vertices[va].append(vb)
        v_vertices[vb].append(va)

    hex_vertices = tuple(tuple(vid[k] for k in corners) for corners in hex_corner_keys)
    hex_edges = tuple(tuple(eid[k] for k in sides) for sides in hex_side_keys)
    hex_neighbours = tuple(
        tuple(hex_index[_add(h, d)] for d in DIRECTIONS if _add(h, d) in hex_index)
        for h in hex_coords
    )
    edge_edges = tuple(
        tuple(sorted({f for v in edge_vertices[e] for f in v_edges[v] if f != e}))
        for e in range(len(edge_vertices))
    )
    vertex_xy = tuple(vertex_xy_of(k) for k in vkeys)

    # Coast: edges with a single land hex, ordered counter-clockwise by their midpoint.
    edge_land = [0] * len(ekeys)
    for hex_sides in hex_edges:
        for side in hex_sides:
            edge_land[side] += 1
    coast = [e for e in range(len(ekeys)) if edge_land[e] == 1]

    def mid_angle(e: int) -> float:
        a, b = edge_vertices[e]
        return angle(
            ((vertex_xy[a][0] + vertex_xy[b][0]) / 2, (vertex_xy[a][1] + vertex_xy[b][1]) / 2)
        )

    coast.sort(key=mid_angle)
    slots = _harbour_slots(coast, hex_edges[hex_index[(radius - 1, 0)]][0], radius)

    return Topology(
        radius=radius,
        hex_coords=tuple(hex_coords),
        hex_ring=tuple(hex_ring),
        hex_neighbours=hex_neighbours,
        hex_vertices=hex_vertices,
        hex_edges=hex_edges,
        vertex_hexes=tuple(tuple(x) for x in v_hexes),
        vertex_vertices=tuple(tuple(sorted(x)) for x in v_vertices),
        vertex_edges=tuple(tuple(sorted(x)) for x in v_edges),
        vertex_ring=tuple(vertex_ring_of(k) for k in vkeys),
        vertex_xy=vertex_xy,
        edge_vertices=edge_vertices,
        edge_edges=edge_edges,
        edge_sides=tuple(
            tuple((v, tuple(f for f in v_edges[v] if f != e)) for v in edge_vertices[e])
            for e in range(len(edge_vertices))
        ),
        coast_edges=tuple(coast),
        harbour_slots=slots,
        hex_index=hex_index,
        even_harbour_slots=_even_harbour_slots(coast, radius),
    )
