"""The island's graph: counts, numbering, adjacency tables, coast, harbour slots, spiral."""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations, pairwise

import pytest

from engine.topology import DIRECTIONS, Topology, hex_distance, topology

RADII = (3, 4, 5, 6, 7)


def centre_angle(q: int, r: int) -> float:
    """Angle of a hex centre from the island's centre, counter-clockwise from east, in [0, 2pi).

    Pointy-top axial coordinates: ``q`` east, ``r`` south-east; y grows to the north.
    """
    x = math.sqrt(3) * (q + r / 2)
    y = -1.5 * r
    return math.atan2(y, x) % (2 * math.pi)


def is_outer_corner(topo: Topology, h: int) -> bool:
    """A hex of the outer ring lying on one of the three axes through the centre."""
    return topo.hex_coords[h] in {
        (d[0] * (topo.radius - 1), d[1] * (topo.radius - 1)) for d in DIRECTIONS
    }


@pytest.fixture(scope="module")
def std() -> Topology:
    return topology(3)


# --- the standard island -------------------------------------------------------------------


def test_standard_island_counts(std: Topology) -> None:
    assert std.radius == 3
    assert std.n_hexes == 19
    assert std.n_vertices == 54
    assert std.n_edges == 72
    assert len(std.coast_edges) == 30
    assert len(set(std.coast_edges)) == 30
    assert len(std.harbour_slots) == 9
    assert len(set(std.harbour_slots)) == 9


def test_table_lengths_match_the_counts(std: Topology) -> None:
    for table in (std.hex_coords, std.hex_ring, std.hex_neighbours, std.hex_vertices):
        assert len(table) == std.n_hexes
    assert len(std.hex_edges) == std.n_hexes
    for table in (std.vertex_hexes, std.vertex_vertices, std.vertex_edges, std.vertex_ring):
        assert len(table) == std.n_vertices
    assert len(std.vertex_xy) == std.n_vertices
    assert len(std.edge_edges) == std.n_edges


def test_hex_ids_ring_by_ring(std: Topology) -> None:
    # Thesis 4.3.1: ids 0, 1-6 and 7-18 for rings 0, 1 and 2.
    assert std.hex_ring == (0,) + (1,) * 6 + (2,) * 12
    assert std.hex_coords[0] == (0, 0)
    for h, (q, r) in enumerate(std.hex_coords):
        assert hex_distance((q, r)) == std.hex_ring[h]
    assert len(set(std.hex_coords)) == 19
    for h, c in enumerate(std.hex_coords):
        assert std.hex_index[c] == h


def test_each_ring_starts_east_and_runs_counter_clockwise() -> None:
    for radius in RADII:
        topo = topology(radius)
        for k in range(1, radius):
            ring = [h for h in range(topo.n_hexes) if topo.hex_ring[h] == k]
            assert ring == list(range(ring[0], ring[0] + 6 * k)), "a ring's ids are contiguous"
            assert topo.hex_coords[ring[0]] == (k, 0), "each ring starts at its eastmost hex"
            angles = [centre_angle(*topo.hex_coords[h]) for h in ring]
            assert angles[0] == pytest.approx(0.0)
            assert all(a < b for a, b in pairwise(angles))


def test_hex_two_is_up_and_left_of_hex_one(std: Topology) -> None:
    # Thesis 4.3.1: hex 1 is immediately right of hex 0, hex 2 up and to the left of hex 1.
    assert std.hex_coords[1] == (1, 0)
    x1, y1 = math.sqrt(3) * 1, 0.0
    q2, r2 = std.hex_coords[2]
    x2, y2 = math.sqrt(3) * (q2 + r2 / 2), -1.5 * r2
    assert x2 < x1
    assert y2 > y1
    assert 2 in std.hex_neighbours[1]


def test_vertex_rings_have_the_thesis_sizes(std: Topology) -> None:
    # Thesis 4.3.1-4.3.2: ring i has (2i + 1) * 6 intersections: ids 0-5, 6-23, 24-53.
    assert std.vertex_ring == (0,) * 6 + (1,) * 18 + (2,) * 30
    for radius in RADII:
        sizes = Counter(topology(radius).vertex_ring)
        assert sizes == {i: (2 * i + 1) * 6 for i in range(radius)}


# --- adjacency tables -----------------------------------------------------------------------


@pytest.mark.parametrize("radius", RADII)
def test_vertex_degrees(radius: int) -> None:
    topo = topology(radius)
    for v in range(topo.n_vertices):
        land = topo.vertex_hexes[v]
        assert 1 <= len(land) <= 3
        assert len(set(land)) == len(land)
        assert 2 <= len(topo.vertex_edges[v]) <= 3
        assert len(topo.vertex_vertices[v]) == len(topo.vertex_edges[v])
        # A vertex on one land hex has two paths; on two or three, three.
        assert len(topo.vertex_edges[v]) == (2 if len(land) == 1 else 3)


@pytest.mark.parametrize("radius", RADII)
def test_vertex_vertices_symmetric_and_irreflexive(radius: int) -> None:
    topo = topology(radius)
    for v, others in enumerate(topo.vertex_vertices):
        assert v not in others
        assert len(set(others)) == len(others)
        for w in others:
            assert v in topo.vertex_vertices[w]


@pytest.mark.parametrize("radius", RADII)
def test_edges_and_vertices_agree(radius: int) -> None:
    topo = topology(radius)
    assert len(set(topo.edge_vertices)) == topo.n_edges, "no two edges join the same vertices"
    for e, (a, b) in enumerate(topo.edge_vertices):
        assert a != b
        assert e in topo.vertex_edges[a]
        assert e in topo.vertex_edges[b]
        assert b in topo.vertex_vertices[a]
        assert topo.edge_between(a, b) == e
        assert topo.edge_between(b, a) == e
    for v, edges in enumerate(topo.vertex_edges):
        for e in edges:
            assert v in topo.edge_vertices[e]
        ends = sorted(w for e in edges for w in topo.edge_vertices[e] if w != v)
        assert ends == sorted(topo.vertex_vertices[v])


def test_edge_between_non_neighbours_is_none(std: Topology) -> None:
    for a, b in combinations(range(std.n_vertices), 2):
        if b not in std.vertex_vertices[a]:
            assert std.edge_between(a, b) is None


@pytest.mark.parametrize("radius", RADII)
def test_edge_edges_share_a_vertex(radius: int) -> None:
    topo = topology(radius)
    for e, others in enumerate(topo.edge_edges):
        assert e not in others
        want = {f for v in topo.edge_vertices[e] for f in topo.vertex_edges[v]} - {e}
        assert set(others) == want
        assert 2 <= len(others) <= 4


@pytest.mark.parametrize("radius", RADII)
def test_hexes_vertices_and_edges_agree(radius: int) -> None:
    topo = topology(radius)
    for h in range(topo.n_hexes):
        vs = topo.hex_vertices[h]
        es = topo.hex_edges[h]
        assert len(set(vs)) == 6
        assert len(set(es)) == 6
        for e in es:
            a, b = topo.edge_vertices[e]
            assert a in vs and b in vs
        # The six vertices go round the hex: each joined to the next by one of its edges.
        ring_edges = {topo.edge_between(vs[i], vs[(i + 1) % 6]) for i in range(6)}
        assert ring_edges == set(es)
    for v, hexes in enumerate(topo.vertex_hexes):
        assert set(hexes) == {h for h in range(topo.n_hexes) if v in topo.hex_vertices[h]}


@pytest.mark.parametrize("radius", RADII)
def test_hex_neighbours(radius: int) -> None:
    topo = topology(radius)
    for h in range(topo.n_hexes):
        ns = topo.hex_neighbours[h]
        assert h not in ns
        assert len(set(ns)) == len(ns)
        # Inner hexes have six land neighbours; outer corners three; other outer hexes four.
        if topo.hex_ring[h] < radius - 1:
            assert len(ns) == 6
        else:
            assert len(ns) == (3 if is_outer_corner(topo, h) else 4)
        for n in ns:
            assert h in topo.hex_neighbours[n]
            assert hex_distance(topo.hex_coords[h], topo.hex_coords[n]) == 1


def test_neighbouring_hexes_share_two_vertices_and_one_edge(std: Topology) -> None:
    for a, b in combinations(range(std.n_hexes), 2):
        shared_v = set(std.hex_vertices[a]) & set(std.hex_vertices[b])
        shared_e = set(std.hex_edges[a]) & set(std.hex_edges[b])
        if b in std.hex_neighbours[a]:
            assert len(shared_v) == 2
            assert len(shared_e) == 1
            (e,) = shared_e
            assert set(std.edge_vertices[e]) == shared_v
        else:
            assert not shared_v
            assert not shared_e


# --- counts for every radius ----------------------------------------------------------------


@pytest.mark.parametrize("radius", RADII)
def test_euler_type_counts(radius: int) -> None:
    topo = topology(radius)
    r2 = radius * radius
    assert topo.n_hexes == 3 * r2 - 3 * radius + 1
    assert topo.n_vertices == 6 * r2
    assert topo.n_edges == 9 * r2 - 3 * radius
    assert len(topo.coast_edges) == 12 * radius - 6
    # Euler's formula for the island as a plane graph (the sea is the outer face).
    assert topo.n_vertices - topo.n_edges + topo.n_hexes == 1
    # Every hex has six sides; inner paths are shared by two hexes, coast paths by one.
    assert 6 * topo.n_hexes == 2 * topo.n_edges - len(topo.coast_edges)


def test_euler_formulas_give_the_standard_numbers() -> None:
    r = 3
    assert (3 * r * r - 3 * r + 1, 6 * r * r, 9 * r * r - 3 * r) == (19, 54, 72)


# --- coast and harbours ---------------------------------------------------------------------


@pytest.mark.parametrize("radius", RADII)
def test_coast_edges_touch_one_land_hex(radius: int) -> None:
    topo = topology(radius)
    sides = Counter(e for es in topo.hex_edges for e in es)
    assert set(sides.values()) == {1, 2}
    assert set(topo.coast_edges) == {e for e, n in sides.items() if n == 1}
    coast_vertices = {v for e in topo.coast_edges for v in topo.edge_vertices[e]}
    assert coast_vertices == {v for v in range(topo.n_vertices) if len(topo.vertex_hexes[v]) < 3}
    # The coast is the outer intersection ring of the thesis: (2(R-1) + 1) * 6 intersections.
    assert coast_vertices == {
        v for v in range(topo.n_vertices) if topo.vertex_ring[v] == radius - 1
    }
    assert len(coast_vertices) == (2 * (radius - 1) + 1) * 6


@pytest.mark.parametrize("radius", RADII)
def test_coast_runs_round_the_island_counter_clockwise(radius: int) -> None:
    topo = topology(radius)
    coast = topo.coast_edges
    for i, e in enumerate(coast):
        nxt = coast[(i + 1) % len(coast)]
        assert set(topo.edge_vertices[e]) & set(topo.edge_vertices[nxt]), "consecutive coast"

    def mid_angle(e: int) -> float:
        a, b = topo.edge_vertices[e]
        x = (topo.vertex_xy[a][0] + topo.vertex_xy[b][0]) / 2
        y = (topo.vertex_xy[a][1] + topo.vertex_xy[b][1]) / 2
        return math.atan2(y, x) % (2 * math.pi)

    angles = [mid_angle(e) for e in coast]
    assert all(a < b for a, b in pairwise(angles))


@pytest.mark.parametrize("radius", RADII)
def test_harbour_slots_are_apart_on_the_coast(radius: int) -> None:
    topo = topology(radius)
    slots = topo.harbour_slots
    assert set(slots) <= set(topo.coast_edges)
    assert len(set(slots)) == len(slots)
    for a, b in combinations(slots, 2):
        assert not set(topo.edge_vertices[a]) & set(topo.edge_vertices[b])
    positions = [topo.coast_edges.index(s) for s in slots]
    assert positions == sorted(positions), "slots listed counter-clockwise"


def test_harbour_slots_are_the_printed_frames(std: Topology) -> None:
    # The printed frame: three harbours at the tips of the east (7), north-west (11) and
    # south-west (15) corner hexes, both intersections on that hex alone; the other six on
    # the coast hexes either side of the other corners (9, 13, 17), one intersection on
    # two land hexes.
    lands = [[std.vertex_hexes[v] for v in std.edge_vertices[e]] for e in std.harbour_slots]
    tips = [hs[0][0] for hs in lands if hs[0] == hs[1] and len(hs[0]) == 1]
    assert tips == [7, 11, 15]
    flanked = Counter(
        h
        for hs in lands
        if hs[0] != hs[1]
        for ends in hs
        if len(ends) == 2
        for h in ends
        if h in (9, 13, 17)
    )
    assert flanked == {9: 2, 13: 2, 17: 2}
    gaps = [
        (std.coast_edges.index(b) - std.coast_edges.index(a)) % len(std.coast_edges)
        for a, b in pairwise((*std.harbour_slots, std.harbour_slots[0]))
    ]
    assert gaps == [3, 4, 3] * 3


@pytest.mark.parametrize("radius", RADII)
def test_harbour_slots_start_at_the_east_tip_and_are_spread_evenly(radius: int) -> None:
    topo = topology(radius)
    east = topo.hex_index[(radius - 1, 0)]
    first = topo.harbour_slots[0]
    assert [topo.vertex_hexes[v] for v in topo.edge_vertices[first]] == [(east,), (east,)]
    n, length = len(topo.harbour_slots), len(topo.coast_edges)
    at = [topo.coast_edges.index(s) - topo.coast_edges.index(first) for s in topo.harbour_slots]
    assert all(abs(p - i * length / n) <= 0.5 for i, p in enumerate(at))


@pytest.mark.parametrize("radius", RADII)
def test_harbour_count_follows_the_port_ratio(radius: int) -> None:
    # Thesis 4.3.8: 60% of the coast intersections touch a port, made even, two per port.
    coast_vertices = (2 * (radius - 1) + 1) * 6
    touching = math.floor(coast_vertices * 6 / 10)
    touching -= touching % 2
    assert len(topology(radius).harbour_slots) == touching // 2


def test_standard_harbour_spacing_is_3_3_4(std: Topology) -> None:
    positions = [std.coast_edges.index(s) for s in std.harbour_slots]
    n = len(std.coast_edges)
    gaps = [(positions[(i + 1) % 9] - positions[i]) % n for i in range(9)]
    assert sum(gaps) == n
    rotations = [tuple(gaps[i:] + gaps[:i]) for i in range(9)]
    assert (3, 3, 4) * 3 in rotations


@pytest.mark.parametrize("radius", RADII)
def test_harbour_slots_spread_evenly(radius: int) -> None:
    topo = topology(radius)
    n = len(topo.coast_edges)
    k = len(topo.harbour_slots)
    positions = [topo.coast_edges.index(s) for s in topo.harbour_slots]
    gaps = [(positions[(i + 1) % k] - positions[i]) % n for i in range(k)]
    assert sum(gaps) == n
    assert set(gaps) <= {n // k, -(-n // k)}


# --- caching and bad radii ------------------------------------------------------------------


def test_topology_is_cached() -> None:
    assert topology(3) is topology(3)
    assert topology(5) is topology(5)
    assert topology(3) is not topology(4)


@pytest.mark.parametrize("radius", [2, 1, 0, -1])
def test_small_radius_raises(radius: int) -> None:
    with pytest.raises(ValueError):
        topology(radius)


def test_tables_are_immutable(std: Topology) -> None:
    for table in (
        std.hex_coords,
        std.hex_neighbours,
        std.hex_vertices,
        std.vertex_hexes,
        std.vertex_edges,
        std.edge_vertices,
        std.coast_edges,
        std.harbour_slots,
    ):
        assert isinstance(table, tuple)
        assert all(isinstance(row, tuple | int) for row in table)


# --- the spiral -----------------------------------------------------------------------------


@pytest.mark.parametrize("radius", RADII)
def test_spiral_visits_every_hex_once_from_a_corner_to_the_centre(radius: int) -> None:
    topo = topology(radius)
    starts = set()
    for corner in range(6):
        path = topo.spiral(corner)
        assert sorted(path) == list(range(topo.n_hexes))
        assert is_outer_corner(topo, path[0])
        assert path[-1] == 0
        rings = [topo.hex_ring[h] for h in path]
        assert rings == sorted(rings, reverse=True), "outer rings first"
        for a, b in pairwise(path):
            assert b in topo.hex_neighbours[a], "the spiral is one unbroken path"
        starts.add(path[0])
    assert len(starts) == 6, "the six start corners are the six outer corners"
    assert topo.spiral() == topo.spiral(0)
    assert topo.spiral(6) == topo.spiral(0)


def test_spiral_runs_counter_clockwise(std: Topology) -> None:
    path = std.spiral(0)
    outer = [centre_angle(*std.hex_coords[h]) for h in path[:12]]
    assert outer[0] == pytest.approx(0.0)
    assert all(a < b for a, b in pairwise(outer))
