"""Hexhaven's standard island (radius 3) in the terms of the ``catanatron`` library, both ways.

catanatron 3.x numbers its board once, from a fixed list of cube coordinates
(``BASE_MAP_TEMPLATE.topology``): tiles get cube coordinates ``(x, y, z)``, intersections
(nodes) integer ids in the order the tiles are laid, paths (edges) the pair of their nodes,
and harbours (ports) sit on water tiles facing the land. Hexhaven's axial ``(q, r)`` is the
cube ``(q, -q - r, r)``; a vertex is the node at the same corner of the same hex (found by
the corner's angle from the hex's centre); an edge is the sorted pair of its vertices'
nodes; a harbour slot is the water tile beside its coastal edge, with the direction that
faces that edge. :func:`board_map` builds this once; :func:`catan_map` lays a Hexhaven
board (terrain, tokens, harbour kinds) on it as a catanatron ``CatanMap``.

Only radius 3 exists in catanatron: other radii raise :class:`UnsupportedBoard`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from catanatron.models.coordinate_system import UNIT_VECTORS, Direction, add
from catanatron.models.enums import BRICK, ORE, SHEEP, WHEAT, WOOD
from catanatron.models.map import (
    BASE_MAP_TEMPLATE,
    PORT_DIRECTION_TO_NODEREFS,
    CatanMap,
    LandTile,
    MapTemplate,
    NodeRef,
    Port,
    Water,
    initialize_tiles,
)

from engine.board import Board
from engine.constants import (
    HARBOUR_GENERIC,
    HARBOUR_LAYOUT,
    N_RESOURCES,
    STANDARD_RADIUS,
    DevCard,
    Terrain,
)
from engine.topology import Topology, topology

Coordinate = tuple[int, int, int]
NodePair = tuple[int, int]

RESOURCE_NAME: tuple[str, ...] = (BRICK, WOOD, SHEEP, WHEAT, ORE)
"""catanatron's name of each Hexhaven resource, by :class:`engine.constants.Resource`."""
FREQDECK_ORDER: tuple[int, ...] = (1, 0, 2, 3, 4)
"""Hexhaven's resource at each position of a catanatron count list (WOOD, BRICK, SHEEP,
WHEAT, ORE)."""
DEV_NAME: tuple[str, ...] = (
    "KNIGHT",
    "VICTORY_POINT",
    "ROAD_BUILDING",
    "YEAR_OF_PLENTY",
    "MONOPOLY",
)
"""catanatron's name of each development card, by :class:`engine.constants.DevCard`."""
assert DEV_NAME[DevCard.YEAR_OF_PLENTY] == "YEAR_OF_PLENTY"
TERRAIN_RESOURCE: dict[int, str | None] = {
    Terrain.HILLS: BRICK,
    Terrain.FOREST: WOOD,
    Terrain.PASTURE: SHEEP,
    Terrain.FIELDS: WHEAT,
    Terrain.MOUNTAINS: ORE,
    Terrain.DESERT: None,
}

_CORNER_ANGLE = {
    NodeRef.NORTHEAST: 30.0,
    NodeRef.NORTH: 90.0,
    NodeRef.NORTHWEST: 150.0,
    NodeRef.SOUTHWEST: -150.0,
    NodeRef.SOUTH: -90.0,
    NodeRef.SOUTHEAST: -30.0,
}
"""Where each of a pointy-top tile's corners lies, in degrees from east, counter-clockwise."""


class UnsupportedBoard(ValueError):
    """A board catanatron cannot represent (only the radius-3 island exists there)."""


def to_freqdeck(counts: tuple[int, ...] | list[int]) -> list[int]:
    """A Hexhaven count vector as a catanatron count list (WOOD, BRICK, SHEEP, WHEAT, ORE)."""
    return [counts[r] for r in FREQDECK_ORDER]


def from_freqdeck(deck: list[int] | tuple[int, ...]) -> tuple[int, int, int, int, int]:
    """A catanatron count list as a Hexhaven count vector."""
    out = [0] * N_RESOURCES
    for i, r in enumerate(FREQDECK_ORDER):
        out[r] = deck[i]
    return (out[0], out[1], out[2], out[3], out[4])


@dataclass(frozen=True)
class BoardMap:
    """The radius-3 topology's ids and catanatron's, both ways (see the module docstring).

    ``slot_port[i]`` is the water tile and facing of Hexhaven's harbour slot ``i``;
    ``node_edges`` is catanatron's node graph restricted to land (its paths)."""

    hex_coord: tuple[Coordinate, ...]
    coord_hex: dict[Coordinate, int]
    vertex_node: tuple[int, ...]
    node_vertex: dict[int, int]
    edge_pair: tuple[NodePair, ...]
    pair_edge: dict[NodePair, int]  # both orders of each pair
    slot_port: tuple[tuple[Coordinate, Direction], ...]
    port_slot: dict[Coordinate, int]

    def edge_of(self, pair: tuple[int, int]) -> int:
        """Hexhaven's edge for a catanatron edge (either order). Raises KeyError."""
        return self.pair_edge[(pair[0], pair[1])]


def _base_tiles() -> dict[Coordinate, Any]:
    """catanatron's base tiles with its node and edge numbering (the contents are dummies)."""
    template = BASE_MAP_TEMPLATE
    lands = sum(1 for t in template.topology.values() if t is LandTile)
    ports = sum(1 for t in template.topology.values() if isinstance(t, tuple))
    tiles: dict[Coordinate, Any] = initialize_tiles(
        template,
        shuffled_numbers_param=[2] * (lands - 1),
        shuffled_port_resources_param=[None] * ports,
        shuffled_tile_resources_param=[None] + [WOOD] * (lands - 1),
    )
    return tiles


def _centre(topo: Topology, h: int) -> tuple[float, float]:
    vs = topo.hex_vertices[h]
    return (
        sum(topo.vertex_xy[v][0] for v in vs) / len(vs),
        sum(topo.vertex_xy[v][1] for v in vs) / len(vs),
    )


def _corner(dx: float, dy: float) -> NodeRef:
    angle = math.degrees(math.atan2(dy, dx))
    return min(
        _CORNER_ANGLE, key=lambda ref: abs((angle - _CORNER_ANGLE[ref] + 180.0) % 360.0 - 180.0)
    )


@cache
def board_map(harbour_layout: int = HARBOUR_LAYOUT) -> BoardMap:
    """The mapping of the standard island with its harbours on the slots of
    ``harbour_layout`` (built once each). Raises AssertionError if the two numberings do not
    describe the same island (they do for catanatron 3.x)."""
    topo = topology(STANDARD_RADIUS)
    tiles = _base_tiles()
    hex_coord = tuple((q, -q - r, r) for q, r in topo.hex_coords)
    assert set(hex_coord) == {c for c, t in tiles.items() if isinstance(t, LandTile)}
    vertex_node: dict[int, int] = {}
    for h, coord in enumerate(hex_coord):
        cx, cy = _centre(topo, h)
        nodes = tiles[coord].nodes
        for v in topo.hex_vertices[h]:
            x, y = topo.vertex_xy[v]
            node = nodes[_corner(x - cx, y - cy)]
            assert vertex_node.setdefault(v, node) == node, f"vertex {v} is two nodes"
    assert len(vertex_node) == topo.n_vertices == len(set(vertex_node.values()))
    vn = tuple(vertex_node[v] for v in range(topo.n_vertices))
    edge_pair = tuple((min(vn[a], vn[b]), max(vn[a], vn[b])) for a, b in topo.edge_vertices)
    pair_edge: dict[NodePair, int] = {}
    for e, (a, b) in enumerate(edge_pair):
        pair_edge[(a, b)] = pair_edge[(b, a)] = e
    slot_port: list[tuple[Coordinate, Direction]] = []
    for e in topo.harbour_slots_of(harbour_layout):
        ends = set(edge_pair[e])
        [land] = [h for h in range(topo.n_hexes) if e in topo.hex_edges[h]]
        found = [
            (add(hex_coord[land], UNIT_VECTORS[d]), d)
            for d in Direction
            if add(hex_coord[land], UNIT_VECTORS[d]) not in set(hex_coord)
        ]
        port = None
        for water, _ in found:
            tile = tiles[water]
            for facing in Direction:
                a, b = PORT_DIRECTION_TO_NODEREFS[facing]
                if {tile.nodes[a], tile.nodes[b]} == ends:
                    port = (water, facing)
        assert port is not None, f"no water tile faces harbour edge {e}"
        slot_port.append(port)
    port_slot = {coord: i for i, (coord, _) in enumerate(slot_port)}
    assert len(port_slot) == len(slot_port), "two harbours on one water tile"
    return BoardMap(
        hex_coord=hex_coord,
        coord_hex={c: h for h, c in enumerate(hex_coord)},
        vertex_node=vn,
        node_vertex={n: v for v, n in enumerate(vn)},
        edge_pair=edge_pair,
        pair_edge=pair_edge,
        slot_port=tuple(slot_port),
        port_slot=port_slot,
    )


def check_board(board: Board) -> None:
    """Raises :class:`UnsupportedBoard` unless catanatron can represent ``board``."""
    if board.radius != STANDARD_RADIUS:
        raise UnsupportedBoard(
            f"catanatron plays only the standard island (radius {STANDARD_RADIUS}), "
            f"not radius {board.radius}"
        )


@lru_cache(maxsize=8)
def catan_map(board: Board) -> CatanMap:
    """``board`` as a catanatron map: the same terrain, number tokens and harbours on
    catanatron's numbering. Raises :class:`UnsupportedBoard`."""
    check_board(board)
    bm = board_map(board.harbour_layout)
    base = BASE_MAP_TEMPLATE.topology
    layout: dict[Coordinate, Any] = {}
    for coord in base:
        if coord in bm.port_slot:
            layout[coord] = (Port, bm.slot_port[bm.port_slot[coord]][1])
        elif coord in bm.coord_hex:
            layout[coord] = LandTile
        else:
            layout[coord] = Water
    # initialize_tiles pops its lists from the end, in the template's order.
    lands = [bm.coord_hex[c] for c, k in layout.items() if k is LandTile]
    resources = [TERRAIN_RESOURCE[board.terrain[h]] for h in lands]
    numbers = [board.tokens[h] for h in lands if board.terrain[h] != Terrain.DESERT]
    ports = [
        None
        if board.harbours[bm.port_slot[c]] == HARBOUR_GENERIC
        else RESOURCE_NAME[board.harbours[bm.port_slot[c]]]
        for c, k in layout.items()
        if isinstance(k, tuple)
    ]
    template = MapTemplate(numbers, ports, resources, layout)
    tiles = initialize_tiles(
        template,
        shuffled_numbers_param=numbers[::-1],
        shuffled_port_resources_param=ports[::-1],
        shuffled_tile_resources_param=resources[::-1],
    )
    return CatanMap.from_tiles(tiles)
