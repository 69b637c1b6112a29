"""The island's ids for outside agents (``hexhaven board topology``, docs/topology/): the
committed file is the generated one, and the tables agree with each other and with the
geometry the docs state, at every radius a game may have."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from app.cli import main
from protocol.topology import (
    COMMITTED_RADII,
    MAX_RADIUS,
    MIN_RADIUS,
    TOPOLOGY_DIR,
    file_name,
    render,
    topology_tables,
)

RADII = range(MIN_RADIUS, MAX_RADIUS + 1)


def test_the_committed_files_are_the_generated_ones() -> None:
    assert {p.name for p in TOPOLOGY_DIR.iterdir()} == {file_name(r) for r in COMMITTED_RADII}
    for radius in COMMITTED_RADII:
        text = (TOPOLOGY_DIR / file_name(radius)).read_text(encoding="utf-8")
        assert text == render(topology_tables(radius)), "run python -m protocol.topology"
        assert json.loads(text) == topology_tables(radius)


def test_the_standard_island_has_the_rulebooks_counts() -> None:
    t = topology_tables(3)
    assert (len(t["hex_coords"]), len(t["vertex_xy"]), len(t["edge_vertices"])) == (19, 54, 72)
    assert len(t["harbour_slots"]) == 9 and len(t["coast_edges"]) == 30


def _centre(q: int, r: int) -> tuple[float, float]:
    """A hex's centre as the docs state it: x east, y north, hex size 1, r to the south-east."""
    return (math.sqrt(3) * (q + r / 2), -1.5 * r)


@pytest.mark.parametrize("radius", RADII)
def test_the_tables_agree_with_each_other_and_with_the_stated_geometry(radius: int) -> None:
    t: dict[str, Any] = topology_tables(radius)
    n_hexes, n_vertices = len(t["hex_coords"]), len(t["vertex_xy"])
    assert n_hexes == 3 * radius * (radius - 1) + 1
    for h, (q, r) in enumerate(t["hex_coords"]):
        assert t["hex_ring"][h] == max(abs(q), abs(r), abs(q + r))
        cx, cy = _centre(q, r)
        for i, v in enumerate(t["hex_vertices"][h]):  # from the corner at 30°, anticlockwise
            x, y = t["vertex_xy"][v]
            angle = math.radians(30 + 60 * i)
            assert (x, y) == pytest.approx((cx + math.cos(angle), cy + math.sin(angle)), abs=1e-5)
            assert h in t["vertex_hexes"][v]
        for i, e in enumerate(t["hex_edges"][h]):  # from the east side: corners i-1 and i
            corners = {t["hex_vertices"][h][i - 1], t["hex_vertices"][h][i]}
            assert set(t["edge_vertices"][e]) == corners
            assert h in t["edge_hexes"][e]
        for g in t["hex_neighbours"][h]:
            assert len(set(t["hex_edges"][h]) & set(t["hex_edges"][g])) == 1
    for v in range(n_vertices):
        assert 1 <= len(t["vertex_hexes"][v]) <= 3
        assert all(v in t["hex_vertices"][h] for h in t["vertex_hexes"][v])
        for w, e in zip(t["vertex_vertices"][v], t["vertex_edges"][v], strict=True):
            assert t["edge_vertices"][e] == sorted((v, w))
    for e, (a, b) in enumerate(t["edge_vertices"]):
        assert a < b and e in t["vertex_edges"][a] and e in t["vertex_edges"][b]
        on_either_side = [h for h in range(n_hexes) if e in t["hex_edges"][h]]
        assert t["edge_hexes"][e] == on_either_side and 1 <= len(on_either_side) <= 2
    assert t["coast_edges"] == sorted(t["coast_edges"], key=lambda e: _mid_angle(t, e))
    assert {e for e, hexes in enumerate(t["edge_hexes"]) if len(hexes) == 1} == set(
        t["coast_edges"]
    )
    assert set(t["harbour_slots"]) <= set(t["coast_edges"])
    assert t["harbour_vertices"] == [t["edge_vertices"][e] for e in t["harbour_slots"]]


def _mid_angle(t: dict[str, Any], e: int) -> float:
    (ax, ay), (bx, by) = (t["vertex_xy"][v] for v in t["edge_vertices"][e])
    return math.atan2((ay + by) / 2, (ax + bx) / 2) % (2 * math.pi)


def test_the_command_prints_the_tables_and_refuses_a_radius_no_game_has(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["board", "topology", "--radius", "4"]) == 0
    assert json.loads(capsys.readouterr().out) == topology_tables(4)
    with pytest.raises(SystemExit) as exit_info:
        main(["board", "topology", "--radius", "2"])
    assert exit_info.value.code == 2
    assert "give 3 to 8, not 2" in capsys.readouterr().err
