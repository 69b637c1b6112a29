"""The island drawn with characters: hexes with terrain, tokens and the robber, harbours,
roads, settlements and cities in their owners' colours, and the spots a player is choosing
among.

Geometry comes from :func:`engine.topology.topology` (pure geometry, no rules): every
vertex and hex centre is placed on a character grid from its coordinates, so any board
radius draws. A hex is nine columns wide and five lines high; neighbouring hexes share
their outline::

      /·\\
    ·/  8  \\·
    │ grain │
    ·\\•••••/·
      \\·/

(drawn with the box-drawing diagonals U+2571 and U+2572). At ``scale=2`` (for large
terminals) every distance doubles: a hex is seventeen columns wide and nine lines high,
with room inside for its name, token, dots and the robber on lines of their own.

What a board shows comes from a :class:`~clients.game.LiveView` (:func:`picture_of`);
nothing here knows a rule of the game.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from rich.style import Style
from rich.text import Text

from clients.game import LiveView
from clients.narrate import RESOURCE_OF_TERRAIN, harbour_label
from engine.constants import DICE_DOTS, HARBOUR_LAYOUT, HARBOUR_LAYOUTS
from engine.topology import topology

COLUMNS_PER_UNIT = 8 / math.sqrt(3)
"""A hex is eight columns from side to side."""
LINES_PER_UNIT = 2
"""...and four lines from its top corner to its bottom corner."""

TERRAIN_COLOURS: dict[str, str] = {
    "hills": "#b5562e",
    "forest": "#2f6b2f",
    "pasture": "#8dc95a",
    "fields": "#e0b93a",
    "mountains": "#8a8f98",
    "desert": "#d8c8a0",
}
TERRAIN_TEXT: dict[str, str] = {
    "hills": "#ffffff",
    "forest": "#ffffff",
    "pasture": "#000000",
    "fields": "#000000",
    "mountains": "#000000",
    "desert": "#000000",
}
SEAT_COLOURS: tuple[str, ...] = ("#ff4040", "#4f8cff", "#f2f2f2", "#ff9d1a")
"""Red, blue, white and orange, as at the table."""
RISING = "\u2571"
FALLING = "\u2572"
SETTLEMENT = "▲"
CITY = "■"
EMPTY_VERTEX = "·"
HARBOUR_COLOUR = "#35c3e0"
OUTLINE = Style(color="#6c7a89")
HIGHLIGHT = "#ffe14d"


@dataclass(frozen=True)
class Layout:
    """Where everything of a board of one radius (at one scale) goes on the character
    grid."""

    radius: int
    width: int
    height: int
    hex_cells: tuple[tuple[int, int], ...]
    """Per hex, its centre (column, line)."""
    vertex_cells: tuple[tuple[int, int], ...]
    edge_cells: tuple[tuple[tuple[int, int, str], ...], ...]
    """Per edge, the cells of its line: (column, line, character)."""
    harbour_anchors: tuple[tuple[int, int, str], ...]
    """Per harbour slot: (column, line, alignment) of its label; alignment is ``left``
    (the label starts there), ``right`` (ends there) or ``centre``."""

    scale: int = 1
    interiors: tuple[tuple[tuple[int, int], ...], ...] = ()
    """Per hex, the cells inside its outline, line by line."""

    def interior(self, hex_id: int) -> list[tuple[int, int]]:
        """The cells inside a hex, line by line (5, 7 and 5 cells at scale 1)."""
        return list(self.interiors[hex_id])


def _cell(x: float, y: float, scale: int = 1) -> tuple[int, int]:
    return (round(x * COLUMNS_PER_UNIT * scale), round(-y * LINES_PER_UNIT * scale))


def _edge_line(a: tuple[int, int], b: tuple[int, int]) -> tuple[tuple[int, int, str], ...]:
    """A side of a hex is one vertical bar; a slanted edge is a diagonal next to each of
    its ends, so the hexes above and below it keep the same room."""
    (x1, y1), (x2, y2) = sorted((a, b))
    if x1 == x2:
        return ((x1, min(y1, y2) + 1, "│"),)
    ch = RISING if y2 < y1 else FALLING
    return ((x1 + 1, y1, ch), (x2 - 1, y2, ch))


def _long_edge_line(a: tuple[int, int], b: tuple[int, int]) -> tuple[tuple[int, int, str], ...]:
    """An edge at a larger scale: a bar on every line between the ends of a side, and a
    run of diagonals along a slanted edge, one cell per column between its ends."""
    (x1, y1), (x2, y2) = sorted((a, b))
    if x1 == x2:
        return tuple((x1, y, "│") for y in range(min(y1, y2) + 1, max(y1, y2)))
    ch = RISING if y2 < y1 else FALLING
    return tuple((x, round(y1 + (x - x1) * (y2 - y1) / (x2 - x1)), ch) for x in range(x1 + 1, x2))


def _interior(centre: int, outline: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """The cells strictly inside a hex's outline (its corners and edge cells), the hex's
    centre being in column ``centre``."""
    c = centre
    by_line: dict[int, list[int]] = {}
    for x, y in outline:
        by_line.setdefault(y, []).append(x)
    top, bottom = min(by_line), max(by_line)
    cells: list[tuple[int, int]] = []
    for y in range(top + 1, bottom):
        left = max(x for x in by_line[y] if x < c)
        right = min(x for x in by_line[y] if x > c)
        cells.extend((x, y) for x in range(left + 1, right))
    return tuple(cells)


_LABEL_ROOM = len(harbour_label("lumber"))


@cache
def layout(radius: int, scale: int = 1, harbour_layout: int = HARBOUR_LAYOUT) -> Layout:
    """The grid layout of a board radius at a scale, 1 or 2, with the harbour slots of a
    harbour layout (computed once)."""
    topo = topology(radius)
    vertices = [_cell(x, y, scale) for x, y in topo.vertex_xy]
    hexes = []
    for q, r in topo.hex_coords:
        hexes.append(_cell(math.sqrt(3) * (q + r / 2), -1.5 * r, scale))

    def anchors_of(slots: tuple[int, ...]) -> list[tuple[int, int, str]]:
        anchors: list[tuple[int, int, str]] = []
        for e in slots:
            a, b = topo.edge_vertices[e]
            (xa, ya), (xb, yb) = topo.vertex_xy[a], topo.vertex_xy[b]
            mx, my = (xa + xb) / 2, (ya + yb) / 2
            norm = math.hypot(mx, my) or 1.0
            dx, dy = mx / norm, my / norm
            col, line = _cell(mx + dx * 0.75, my + dy * 0.75, scale)
            if dx > 0.5:
                align = "left"
                col = max(vertices[a][0], vertices[b][0]) + 2
            elif dx < -0.5:
                align = "right"
                col = min(vertices[a][0], vertices[b][0]) - 2
            else:
                align = "centre"
            anchors.append((col, line, align))
        return anchors

    anchors = anchors_of(topo.harbour_slots_of(harbour_layout))
    # The frame holds every layout's labels, so spots lie on the same cells whatever it is.
    framed = [a for layout in HARBOUR_LAYOUTS for a in anchors_of(topo.harbour_slots_of(layout))]
    min_x = min(x for x, _ in vertices) - _LABEL_ROOM - 1
    max_x = max(x for x, _ in vertices) + _LABEL_ROOM + 1
    min_y = min(min(y for _, y in vertices), *(y for _, y, _ in framed))
    max_y = max(max(y for _, y in vertices), *(y for _, y, _ in framed))

    def shift(cell: tuple[int, int]) -> tuple[int, int]:
        return (cell[0] - min_x, cell[1] - min_y)

    line_of = _edge_line if scale == 1 else _long_edge_line
    edges = tuple(
        tuple((x - min_x, y - min_y, ch) for x, y, ch in line_of(vertices[a], vertices[b]))
        for a, b in topo.edge_vertices
    )
    vertex_cells = tuple(shift(v) for v in vertices)
    hex_cells = tuple(shift(h) for h in hexes)
    interiors = []
    for h, centre in enumerate(hex_cells):
        outline = [vertex_cells[v] for v in topo.hex_vertices[h]]
        outline.extend((x, y) for e in topo.hex_edges[h] for x, y, _ in edges[e])
        interiors.append(_interior(centre[0], outline))
    return Layout(
        radius=radius,
        width=max_x - min_x + 1,
        height=max_y - min_y + 1,
        hex_cells=hex_cells,
        vertex_cells=vertex_cells,
        edge_cells=edges,
        harbour_anchors=tuple((x - min_x, y - min_y, al) for x, y, al in anchors),
        scale=scale,
        interiors=tuple(interiors),
    )


@dataclass(frozen=True)
class BoardPicture:
    """What to draw: the board and the pieces on it (ids are the engine's)."""

    radius: int
    terrain: Sequence[str]
    tokens: Sequence[int]
    harbours: Sequence[str]
    robber: int
    settlements: dict[int, int]  # vertex -> seat
    cities: dict[int, int]
    roads: dict[int, int]  # edge -> seat
    harbour_layout: int = HARBOUR_LAYOUT


def picture_of(view: LiveView) -> BoardPicture:
    """What to draw of a seat's game: its board and the pieces on it now."""
    return BoardPicture(
        radius=view.radius,
        terrain=view.terrain,
        tokens=view.tokens,
        harbours=view.harbours,
        harbour_layout=view.harbour_layout,
        robber=view.robber,
        settlements=view.settlements,
        cities=view.cities,
        roads=view.roads,
    )


@dataclass(frozen=True)
class Marks:
    """The spots being chosen among, and the one chosen now."""

    kind: str = ""  # "vertex", "edge" or "hex"; "" for none
    spots: tuple[int, ...] = ()
    current: int | None = None


class _Grid:
    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.chars = [[" "] * width for _ in range(height)]
        self.styles: list[list[Style]] = [[Style()] * width for _ in range(height)]

    def put(self, x: int, y: int, ch: str, style: Style) -> None:
        if 0 <= y < self.height and 0 <= x < self.width:
            self.chars[y][x] = ch
            self.styles[y][x] = style

    def write(self, x: int, y: int, text: str, style: Style) -> None:
        for i, ch in enumerate(text):
            self.put(x + i, y, ch, style)

    def text(self) -> Text:
        out = Text(no_wrap=True, overflow="crop")
        for y in range(self.height):
            run, run_style = "", self.styles[y][0]
            for ch, style in zip(self.chars[y], self.styles[y], strict=True):
                if style != run_style:
                    out.append(run, run_style)
                    run, run_style = "", style
                run += ch
            out.append(run.rstrip() if run_style == Style() else run, run_style)
            if y < self.height - 1:
                out.append("\n")
        return out


def _centred(text: str, width: int) -> str:
    return text.center(width)[:width]


def token_dots(token: int) -> str:
    """The dots printed on a number token (five on a 6 or an 8)."""
    return "•" * DICE_DOTS.get(token, 0) if token else ""


@dataclass(frozen=True)
class _HexFace:
    """Where a hex's labels go, in lines from its centre, at one scale."""

    token: int
    dots: int
    robber: int
    name_width: int
    mark: int
    """Columns from the centre of the ``?`` on a hex that may be chosen."""


_FACES = {
    1: _HexFace(token=-1, dots=1, robber=1, name_width=7, mark=-3),
    2: _HexFace(token=-2, dots=-1, robber=2, name_width=9, mark=-6),
}


def render_board(picture: BoardPicture, marks: Marks = Marks(), scale: int = 1) -> Text:
    """The board as styled text, ``layout(radius, scale).width`` columns wide."""
    lay = layout(picture.radius, scale, picture.harbour_layout)
    face = _FACES[scale]
    topo = topology(picture.radius)
    grid = _Grid(lay.width, lay.height)
    chosen_hex = marks.current if marks.kind == "hex" else None
    hex_spots = set(marks.spots) if marks.kind == "hex" else set()
    for h, (c, line) in enumerate(lay.hex_cells):
        terrain = picture.terrain[h]
        bg = TERRAIN_COLOURS[terrain]
        fg = TERRAIN_TEXT[terrain]
        if h == chosen_hex:
            bg, fg = HIGHLIGHT, "#000000"
        base = Style(color=fg, bgcolor=bg)
        for x, y in lay.interior(h):
            grid.put(x, y, " ", base)
        token = picture.tokens[h]
        hot = token in (6, 8)
        token_style = base + Style(bold=True)
        if token:
            label = _centred(str(token), 3)
            if hot and h != chosen_hex:
                grid.write(
                    c - 1,
                    line + face.token,
                    label,
                    Style(color="#ffffff", bgcolor="#c01818", bold=True),
                )
            else:
                grid.write(c - 1, line + face.token, label, token_style)
        width = face.name_width
        name = _centred(RESOURCE_OF_TERRAIN[terrain], width)
        grid.write(c - width // 2, line, name, base)
        dots_style = token_style + Style(color="#c01818") if hot else token_style
        grid.write(c - 2, line + face.dots, _centred(token_dots(token), 5), dots_style)
        if h == picture.robber:
            robber = Style(color="#ffffff", bgcolor="#000000", bold=True)
            grid.write(c - 2, line + face.robber, " ROB ", robber)
        if h in hex_spots and h != chosen_hex:
            mark = base + Style(bold=True, color=HIGHLIGHT, bgcolor="#000000")
            grid.put(c + face.mark, line, "?", mark)
    edge_spots = set(marks.spots) if marks.kind == "edge" else set()
    for e, cells in enumerate(lay.edge_cells):
        owner = picture.roads.get(e)
        if marks.kind == "edge" and e == marks.current:
            style = Style(color="#000000", bgcolor=HIGHLIGHT, bold=True)
        elif owner is not None:
            style = Style(color="#000000", bgcolor=SEAT_COLOURS[owner % 4], bold=True)
        elif e in edge_spots:
            style = Style(color=HIGHLIGHT, bold=True)
        else:
            style = OUTLINE
        for x, y, ch in cells:
            grid.put(x, y, ch, style)
    slots = topo.harbour_slots_of(picture.harbour_layout)
    harbour_vertices = {v for e in slots for v in topo.edge_vertices[e]}
    vertex_spots = set(marks.spots) if marks.kind == "vertex" else set()
    for v, (x, y) in enumerate(lay.vertex_cells):
        if v in picture.cities:
            ch, style = CITY, Style(color=SEAT_COLOURS[picture.cities[v] % 4], bold=True)
        elif v in picture.settlements:
            ch, style = SETTLEMENT, Style(color=SEAT_COLOURS[picture.settlements[v] % 4], bold=True)
        elif v in harbour_vertices:
            ch, style = "•", Style(color=HARBOUR_COLOUR, bold=True)
        else:
            ch, style = EMPTY_VERTEX, OUTLINE
        if marks.kind == "vertex" and v == marks.current:
            ch = "◆" if ch in (EMPTY_VERTEX, "•") else ch
            style = Style(color="#000000", bgcolor=HIGHLIGHT, bold=True)
        elif v in vertex_spots:
            ch = "○" if ch in (EMPTY_VERTEX, "•") else ch
            style = style + Style(color=HIGHLIGHT, bold=True)
        grid.put(x, y, ch, style)
    for slot, (x, y, align) in enumerate(lay.harbour_anchors):
        if slot >= len(picture.harbours):
            break
        label = harbour_label(picture.harbours[slot])
        start = {"left": x, "right": x - len(label) + 1, "centre": x - len(label) // 2}[align]
        grid.write(start, y, label, Style(color=HARBOUR_COLOUR, bold=True))
    return grid.text()


def nearest(
    cells: Iterable[tuple[int, tuple[int, int]]], x: int, y: int
) -> tuple[int, float] | None:
    """The id whose cell is closest to (x, y) on screen (lines count double), with its
    distance; None when there are no cells."""
    best: tuple[int, float] | None = None
    for ident, (cx, cy) in cells:
        d = math.hypot(cx - x, (cy - y) * 2)
        if best is None or d < best[1]:
            best = (ident, d)
    return best


def edge_centre(radius: int, edge: int, scale: int = 1) -> tuple[int, int]:
    """The middle cell of an edge's line."""
    cells = layout(radius, scale).edge_cells[edge]
    x, y, _ = cells[len(cells) // 2]
    return (x, y)


def spot_cell(kind: str, radius: int, spot: int, scale: int = 1) -> tuple[int, int]:
    """Where a spot (``vertex``, ``edge`` or ``hex``) is on the grid: a vertex's cell, an
    edge's middle cell, a hex's centre."""
    lay = layout(radius, scale)
    if kind == "vertex":
        return lay.vertex_cells[spot]
    if kind == "edge":
        return edge_centre(radius, spot, scale)
    return lay.hex_cells[spot]


TURN_COST = 45.0
"""Degrees off the arrow's direction that weigh as much as one step further on the island."""


def _steps(kind: str, radius: int, start: int) -> dict[int, int]:
    """Steps on the island from ``start`` to every spot of its kind: vertices along paths,
    paths by shared ends, hexes by shared sides."""
    topo = topology(radius)
    links = {"vertex": topo.vertex_vertices, "edge": topo.edge_edges, "hex": topo.hex_neighbours}
    graph = links[kind]
    steps = {start: 0}
    todo = deque([start])
    while todo:
        here = todo.popleft()
        for there in graph[here]:
            if there not in steps:
                steps[there] = steps[here] + 1
                todo.append(there)
    return steps


def step_towards(
    kind: str, radius: int, spots: Sequence[int], current: int, dx: int, dy: int, scale: int = 1
) -> int | None:
    """The spot an arrow key moves to from ``current``, among ``spots``: a neighbour on the
    island, the one whose direction on the screen (lines counting double) is closest to
    (``dx``, ``dy``) (y down). Each spot less than 90 degrees off the arrow is weighed by its
    steps from ``current`` on the island plus a step per :data:`TURN_COST` degrees off; the
    lightest wins. None when no spot lies that way."""
    steps = _steps(kind, radius, current)
    x0, y0 = spot_cell(kind, radius, current, scale)
    heading = math.atan2(dy, dx)
    best: tuple[float, float, int] | None = None
    for spot in spots:
        x, y = spot_cell(kind, radius, spot, scale)
        ex, ey = x - x0, (y - y0) * 2
        if spot == current or (ex == 0 and ey == 0):
            continue
        off = abs(math.degrees(math.atan2(ey, ex) - heading)) % 360
        off = min(off, 360 - off)
        if off >= 90:
            continue
        weight = (steps.get(spot, len(steps)) + off / TURN_COST, math.hypot(ex, ey), spot)
        if best is None or weight < best:
            best = weight
    return None if best is None else best[2]
