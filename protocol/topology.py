"""The island's ids for agents written without the engine: which hexes, intersections
(vertices) and paths (edges) touch which, as plain JSON.

A ``view`` names places by id (``board.terrain[h]``, ``settlements[v]``, an action's
``vertex`` or ``edge``) but carries no adjacency, since it is the same for every game of a
radius. ``hexhaven board topology --radius R`` prints these tables; the standard island's
are committed as ``docs/topology/radius-3.json`` (``python -m protocol.topology`` rewrites
them; a test keeps them in step with the engine).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from engine.constants import HARBOUR_LAYOUTS
from engine.topology import topology

TOPOLOGY_DIR = Path(__file__).resolve().parent.parent / "docs" / "topology"
COMMITTED_RADII = (3,)
"""The radii whose tables are committed under ``docs/topology``."""
MIN_RADIUS, MAX_RADIUS = 3, 8
"""The radii a game may have (``create_game``'s ``radius``)."""


def topology_tables(radius: int) -> dict[str, Any]:
    """Every adjacency table of a radius, as lists indexed by id (see docs/protocol.md)."""
    topo = topology(radius)
    edge_hexes = [
        sorted(set(topo.vertex_hexes[a]) & set(topo.vertex_hexes[b])) for a, b in topo.edge_vertices
    ]
    return {
        "radius": radius,
        "hex_coords": [list(c) for c in topo.hex_coords],
        "hex_ring": list(topo.hex_ring),
        "hex_neighbours": [list(x) for x in topo.hex_neighbours],
        "hex_vertices": [list(x) for x in topo.hex_vertices],
        "hex_edges": [list(x) for x in topo.hex_edges],
        "vertex_hexes": [list(x) for x in topo.vertex_hexes],
        "vertex_vertices": [list(x) for x in topo.vertex_vertices],
        "vertex_edges": [list(x) for x in topo.vertex_edges],
        "vertex_xy": [[round(x, 6), round(y, 6)] for x, y in topo.vertex_xy],
        "edge_vertices": [list(x) for x in topo.edge_vertices],
        "edge_hexes": edge_hexes,
        "coast_edges": list(topo.coast_edges),
        "harbour_slots": list(topo.harbour_slots),
        "harbour_vertices": [list(topo.edge_vertices[e]) for e in topo.harbour_slots],
        "layout_harbour_slots": {
            str(layout): list(topo.harbour_slots_of(layout)) for layout in HARBOUR_LAYOUTS
        },
    }


def render(tables: dict[str, Any]) -> str:
    """The JSON text: one table per line group, small enough to read."""
    lines = ["{"]
    items = list(tables.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        lines.append(f"  {json.dumps(key)}: {json.dumps(value, separators=(',', ':'))}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def file_name(radius: int) -> str:
    return f"radius-{radius}.json"


def write(directory: Path = TOPOLOGY_DIR) -> list[Path]:
    """Write the committed radii's files; returns the files written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for radius in COMMITTED_RADII:
        path = directory / file_name(radius)
        path.write_text(render(topology_tables(radius)), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    paths = write()
    print(f"wrote {len(paths)} topology file(s) to {TOPOLOGY_DIR}", file=sys.stderr)
