"""Pictures of boards: SVG written here, PNG through cairosvg when it is installed.

Hexes are drawn pointy-top in their terrain's colour with the number token and its dots
(6 and 8 in red), harbours as labelled flags off the coast joined to their two
intersections, and, when placements are given, each simulated settlement as a disc in its
player's colour numbered in placement order.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
from collections.abc import Sequence
from pathlib import Path
from xml.sax.saxutils import escape

from boards.errors import BoardLabError
from boards.fairness import Placement
from boards.files import check_output, write_output
from engine.board import Board
from engine.constants import DICE_DOTS, HARBOUR_GENERIC, RED_TOKENS

TERRAIN_COLOURS = ("#c8643c", "#2f6f3a", "#9ccc65", "#f2c94c", "#8d8d99", "#e8d6a8")
TERRAIN_NAMES = ("hills", "forest", "pasture", "fields", "mountains", "desert")
HARBOUR_LABELS = ("brick", "lumber", "wool", "grain", "ore")
PLAYER_COLOURS = ("#d32f2f", "#1565c0", "#ef6c00", "#f5f5f5")
_SEA = "#5fa8d3"
_UNIT = 56.0  # pixels per hex size (centre to corner)
_SQRT3 = math.sqrt(3.0)
PICTURE_SUFFIXES = (".svg", ".png")
"""The kinds of picture :func:`write_picture` writes, by file name ending."""
_NO_CAIROSVG = "PNG needs cairosvg (pip install '.[png]'); write .svg instead"


def _centre(q: int, r: int) -> tuple[float, float]:
    """Centre of a hex of unit size, x east and y down (screen coordinates)."""
    return (_SQRT3 * (q + r / 2), 1.5 * r)


def board_svg(
    board: Board,
    placements: Sequence[Placement] = (),
    title: str = "",
) -> str:
    """The board as an SVG document (a string)."""
    topo = board.topo
    centres = [_centre(q, r) for q, r in topo.hex_coords]
    # vertex_xy has y pointing north; flip it to the screen's downward y
    vertices = [(x, -y) for x, y in topo.vertex_xy]
    reach = max(math.hypot(x, y) for x, y in vertices) + 1.6
    size = 2 * reach * _UNIT
    top_margin = 28.0 if title else 0.0

    def px(x: float, y: float) -> tuple[float, float]:
        return ((x + reach) * _UNIT, (y + reach) * _UNIT + top_margin)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size:.0f}" '
        f'height="{size + top_margin:.0f}" viewBox="0 0 {size:.0f} {size + top_margin:.0f}" '
        'font-family="DejaVu Sans, Arial, sans-serif">',
        f'<rect width="100%" height="100%" fill="{_SEA}"/>',
    ]
    if title:
        out.append(
            f'<text x="{size / 2:.1f}" y="20" text-anchor="middle" font-size="16" '
            f'fill="#ffffff">{escape(title)}</text>'
        )
    for h, (cx, cy) in enumerate(centres):
        corners = []
        for i in range(6):
            a = math.radians(60 * i - 30)
            corners.append(px(cx + math.cos(a), cy + math.sin(a)))
        points = " ".join(f"{x:.1f},{y:.1f}" for x, y in corners)
        t = int(board.terrain[h])
        out.append(
            f'<polygon points="{points}" fill="{TERRAIN_COLOURS[t]}" stroke="#f4ecd8" '
            f'stroke-width="3"><title>hex {h}: {TERRAIN_NAMES[t]}</title></polygon>'
        )
        n = board.tokens[h]
        x, y = px(cx, cy)
        if n:
            colour = "#c62828" if n in RED_TOKENS else "#222222"
            out.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{0.36 * _UNIT:.1f}" fill="#fbf3dc" '
                'stroke="#6d5d3a" stroke-width="1.5"/>'
            )
            out.append(
                f'<text x="{x:.1f}" y="{y + 0.06 * _UNIT:.1f}" text-anchor="middle" '
                f'font-size="{0.3 * _UNIT:.0f}" font-weight="bold" fill="{colour}">{n}</text>'
            )
            dots = DICE_DOTS[n]
            for d in range(dots):
                dx = (d - (dots - 1) / 2) * 0.075 * _UNIT
                out.append(
                    f'<circle cx="{x + dx:.1f}" cy="{y + 0.2 * _UNIT:.1f}" '
                    f'r="{0.025 * _UNIT:.1f}" fill="{colour}"/>'
                )
        else:
            out.append(
                f'<text x="{x:.1f}" y="{y + 0.05 * _UNIT:.1f}" text-anchor="middle" '
                f'font-size="{0.18 * _UNIT:.0f}" fill="#6d5d3a">desert</text>'
            )
    for slot, kind in zip(board.harbour_slots, board.harbours, strict=True):
        a, b = topo.edge_vertices[slot]
        (ax, ay), (bx, by) = vertices[a], vertices[b]
        mx, my = (ax + bx) / 2, (ay + by) / 2
        norm = math.hypot(mx, my) or 1.0
        fx, fy = mx + 0.75 * mx / norm, my + 0.75 * my / norm
        colour = "#ffffff" if kind == HARBOUR_GENERIC else TERRAIN_COLOURS[kind]
        label = "3:1" if kind == HARBOUR_GENERIC else f"2:1 {HARBOUR_LABELS[kind]}"
        for vx, vy in ((ax, ay), (bx, by)):
            x1, y1 = px(vx, vy)
            x2, y2 = px(fx, fy)
            out.append(
                f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                'stroke="#6d4c2f" stroke-width="4"/>'
            )
        x, y = px(fx, fy)
        out.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{0.3 * _UNIT:.1f}" fill="{colour}" '
            'stroke="#6d4c2f" stroke-width="2"/>'
        )
        text_colour = "#222222" if kind in (2, 3, HARBOUR_GENERIC) else "#ffffff"
        for word, dy in _label_lines(label):
            out.append(
                f'<text x="{x:.1f}" y="{y + dy * _UNIT:.1f}" text-anchor="middle" '
                f'font-size="{0.15 * _UNIT:.0f}" fill="{text_colour}">{word}</text>'
            )
    for i, p in enumerate(placements):
        x, y = px(*vertices[p.vertex])
        colour = PLAYER_COLOURS[p.seat % len(PLAYER_COLOURS)]
        text_colour = "#222222" if colour == "#f5f5f5" else "#ffffff"
        out.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{0.2 * _UNIT:.1f}" fill="{colour}" '
            f'stroke="#111111" stroke-width="2"><title>pick {i + 1}: seat {p.seat + 1}, '
            f"score {p.score:.2f}</title></circle>"
        )
        out.append(
            f'<text x="{x:.1f}" y="{y + 0.07 * _UNIT:.1f}" text-anchor="middle" '
            f'font-size="{0.2 * _UNIT:.0f}" font-weight="bold" fill="{text_colour}">'
            f"{i + 1}</text>"
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _label_lines(label: str) -> list[tuple[str, float]]:
    words = label.split(" ")
    if len(words) == 1:
        return [(words[0], 0.05)]
    return [(words[0], -0.02), (words[1], 0.14)]


def check_picture_path(path: str | Path) -> None:
    """Raise :class:`BoardLabError` unless a picture can be written to ``path``: its folder
    exists (else :class:`~boards.errors.OutputError`, as :func:`boards.files.check_output`)
    and its name ends in .svg or .png (.png only with cairosvg installed)."""
    check_output(path)
    suffix = Path(path).suffix.lower()
    if suffix not in PICTURE_SUFFIXES:
        raise BoardLabError(
            f"cannot write {path}: a picture is a .svg or .png file"
            + (f", not {suffix}" if suffix else "")
        )
    if suffix == ".png" and importlib.util.find_spec("cairosvg") is None:
        raise BoardLabError(_NO_CAIROSVG)


def write_picture(svg: str, path: str | Path) -> None:
    """Write an SVG document to ``path``: as SVG when the name ends in .svg, as PNG when it
    ends in .png.

    Raises :class:`BoardLabError` for any other name, when PNG is asked for and cairosvg is
    not installed, and (:class:`~boards.errors.OutputError`) when the file cannot be written.
    """
    check_picture_path(path)
    if Path(path).suffix.lower() == ".svg":
        write_output(path, svg)
        return
    try:
        cairosvg = importlib.import_module("cairosvg")
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise BoardLabError(_NO_CAIROSVG) from exc
    png: bytes = cairosvg.svg2png(bytestring=svg.encode())
    write_output(path, png)
