"""The board widget draws every hex's terrain and token, the robber, harbours and the
pieces of a known position where the topology puts them."""

from __future__ import annotations

import math
import random

import pytest
from rich.color import Color
from rich.style import Style
from rich.text import Text

import engine as eng
from clients.game import LiveView
from clients.narrate import RESOURCE_OF_TERRAIN, harbour_label
from clients.tui.board import (
    CITY,
    HIGHLIGHT,
    SEAT_COLOURS,
    SETTLEMENT,
    Marks,
    layout,
    picture_of,
    render_board,
    spot_cell,
    step_towards,
    token_dots,
)
from engine import BuildCity, GameConfig, apply, view
from engine.topology import topology
from protocol.payloads import view_from_engine
from tests.engine import positions as pos


def _name(color: Color | None) -> str | None:
    """A cell's colour by name (None: no colour)."""
    return None if color is None else color.name


def _grid(text: Text) -> tuple[list[str], list[list[Style]]]:
    """The rendered board as lines of characters and the style of each cell."""
    lines = text.plain.split("\n")
    width = max(len(x) for x in lines)
    styles = [[Style()] * width for _ in lines]
    offsets = []
    at = 0
    for line in lines:
        offsets.append(at)
        at += len(line) + 1
    for span in text.spans:
        style = span.style if isinstance(span.style, Style) else Style.parse(span.style)
        for i in range(span.start, span.end):
            y = max(k for k, o in enumerate(offsets) if o <= i)
            x = i - offsets[y]
            if x < width:
                styles[y][x] = styles[y][x] + style
    return [x.ljust(width) for x in lines], styles


def _position() -> LiveView:
    """The rules tests' standard board after its set-up, with a city for seat 2."""
    state = pos.setup_game(pos.config(players=4))
    pos.main_phase(state, 2)
    pos.give(state, 2, pos.counts(grain=2, ore=3))
    apply(state, BuildCity(2, 16))
    return LiveView.from_payload(view_from_engine(view(state, 0)))


def test_every_hex_shows_its_terrain_token_and_dots() -> None:
    v = _position()
    lay = layout(v.radius)
    lines, styles = _grid(render_board(picture_of(v)))
    names = {"hills": "brick", "forest": "lumber", "pasture": "wool", "fields": "grain"}
    names |= {"mountains": "ore", "desert": "desert"}
    assert len(lines) == lay.height
    for h, (c, y) in enumerate(lay.hex_cells):
        assert names[v.terrain[h]] in lines[y][c - 3 : c + 4]
        token = v.tokens[h]
        top = lines[y - 1][c - 1 : c + 2]
        if token:
            assert top.strip() == str(token), (h, top)
            if token in (6, 8):  # the red tokens stand out
                assert _name(styles[y - 1][c].bgcolor) == "#c01818"
        else:
            assert top.strip() == ""
        bottom = lines[y + 1][c - 2 : c + 3]
        if h == v.robber:
            assert bottom.strip() == "ROB"
        else:
            assert bottom.strip() == token_dots(token)


def test_pieces_sit_on_their_vertices_and_edges_in_their_colours() -> None:
    v = _position()
    lay = layout(v.radius)
    lines, styles = _grid(render_board(picture_of(v)))
    assert v.cities == {16: 2}
    assert len(v.settlements) == 7 and len(v.roads) == 8
    for vertex, seat in v.settlements.items():
        x, y = lay.vertex_cells[vertex]
        assert lines[y][x] == SETTLEMENT
        assert _name(styles[y][x].color) == SEAT_COLOURS[seat]
    x, y = lay.vertex_cells[16]
    assert lines[y][x] == CITY and _name(styles[y][x].color) == SEAT_COLOURS[2]
    for edge, seat in v.roads.items():
        for x, y, _ in lay.edge_cells[edge]:
            assert _name(styles[y][x].bgcolor) == SEAT_COLOURS[seat]
    empty = [e for e in range(len(lay.edge_cells)) if e not in v.roads]
    for x, y, ch in lay.edge_cells[empty[0]]:
        assert lines[y][x] == ch and styles[y][x].bgcolor is None


def test_harbours_are_labelled_by_the_coast() -> None:
    v = _position()
    text = render_board(picture_of(v)).plain
    for kind in set(v.harbours):
        assert harbour_label(kind) in text
    assert text.count("3:1") == v.harbours.count("generic")


def test_the_spot_being_chosen_is_highlighted() -> None:
    v = _position()
    lay = layout(v.radius)
    topo = topology(v.radius)
    free = [x for x in range(topo.n_vertices) if x not in v.settlements and x not in v.cities]
    lines, styles = _grid(render_board(picture_of(v), Marks("vertex", tuple(free[:3]), free[1])))
    x, y = lay.vertex_cells[free[1]]
    assert lines[y][x] == "◆" and _name(styles[y][x].bgcolor) == HIGHLIGHT
    x, y = lay.vertex_cells[free[0]]
    assert lines[y][x] == "○"
    lines, styles = _grid(render_board(picture_of(v), Marks("hex", (3, 4), 4)))
    c, y = lay.hex_cells[4]
    assert _name(styles[y][c].bgcolor) == HIGHLIGHT
    edge = next(e for e in range(topo.n_edges) if e not in v.roads)
    lines, styles = _grid(render_board(picture_of(v), Marks("edge", (edge,), edge)))
    for x, y, _ in lay.edge_cells[edge]:
        assert _name(styles[y][x].bgcolor) == HIGHLIGHT


def test_larger_boards_draw_too() -> None:
    from engine import new_game

    state = new_game(GameConfig(players=4, radius=4), 2)
    v = LiveView.from_payload(view_from_engine(view(state, None)))
    lines, _ = _grid(render_board(picture_of(v)))
    lay = layout(4)
    assert len(lines) == lay.height and len(lay.hex_cells) == 37
    for h, (c, y) in enumerate(lay.hex_cells):
        if v.tokens[h]:
            assert lines[y - 1][c - 1 : c + 2].strip() == str(v.tokens[h])


def test_the_doubled_board_keeps_everything_in_its_place() -> None:
    v = _position()
    lay = layout(v.radius, 2)
    small = layout(v.radius)
    assert lay.width > 1.5 * small.width and lay.height > 1.5 * small.height
    lines, styles = _grid(render_board(picture_of(v), scale=2))
    assert len(lines) == lay.height
    outline = {c for c in lay.vertex_cells} | {
        (x, y) for cells in lay.edge_cells for x, y, _ in cells
    }
    seen: set[tuple[int, int]] = set()
    for h, (c, y) in enumerate(lay.hex_cells):
        inside = lay.interior(h)
        assert len(inside) == 77 and not (set(inside) & outline) and not (set(inside) & seen)
        seen |= set(inside)
        assert RESOURCE_OF_TERRAIN[v.terrain[h]] in lines[y][c - 4 : c + 5]
        token = v.tokens[h]
        assert lines[y - 2][c - 1 : c + 2].strip() == (str(token) if token else "")
        assert lines[y - 1][c - 2 : c + 3].strip() == token_dots(token)
        assert (lines[y + 2][c - 2 : c + 3].strip() == "ROB") == (h == v.robber)
        for x, yy in inside:
            if lines[yy][x] == " ":
                assert styles[yy][x].bgcolor is not None  # filled with its terrain's colour
    for vertex, seat in v.settlements.items():
        x, y = lay.vertex_cells[vertex]
        assert lines[y][x] == SETTLEMENT and _name(styles[y][x].color) == SEAT_COLOURS[seat]
    for edge, seat in v.roads.items():
        assert len(lay.edge_cells[edge]) >= 3
        for x, y, _ in lay.edge_cells[edge]:
            assert _name(styles[y][x].bgcolor) == SEAT_COLOURS[seat]
    text = "\n".join(lines)
    assert text.count("3:1") == v.harbours.count("generic")


async def test_a_large_screen_doubles_the_board_and_a_click_still_picks_a_spot() -> None:
    from clients.tui.app import HexhavenApp
    from clients.tui.offline import OfflineTransport
    from clients.tui.widgets import BoardView
    from engine import legal_actions, new_game
    from tests.clients.test_tui_dialogs import opening, prompt

    state = new_game(GameConfig(players=3), 4)
    app = HexhavenApp(OfflineTransport([*opening(state, 0), prompt(state, 0)]))
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        board = app.query_one(BoardView)
        big = layout(3, 2)
        assert board.scale == 2 and board.region.size == (big.width, big.height)
        assert app.query_one("#left").region.width == big.width + 1
        assert board.picking and board.kind == "vertex"  # the set-up's first settlement
        target = next(s for s in board.spots if s != board.current)
        x, y = big.vertex_cells[target]
        await pilot.click(BoardView, offset=(x, y))
        assert board.current == target
        await pilot.click(BoardView, offset=(x, y))
        await pilot.pause()
        act = app.transport.sent[-1]  # type: ignore[attr-defined]
        assert act.action.vertex == target
        assert any(getattr(a, "vertex", None) == target for a in legal_actions(state, 0))
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert board.scale == 1 and board.region.size == (layout(3).width, layout(3).height)


def _placements(seeds: range) -> set[tuple[str, frozenset[int]]]:
    """The sets of spots offered on the board (placing, building, the robber) in games of
    random actions: what a person picks among."""
    kinds = (
        (eng.PlaceSettlement, "vertex"),
        (eng.BuildSettlement, "vertex"),
        (eng.BuildCity, "vertex"),
        (eng.PlaceRoad, "edge"),
        (eng.BuildRoad, "edge"),
        (eng.MoveRobber, "hex"),
    )
    out: set[tuple[str, frozenset[int]]] = set()
    for seed in seeds:
        state = eng.new_game(GameConfig(players=4), seed)
        rnd = random.Random(seed)
        for _ in range(1500):
            if state.is_over:
                break
            acts = eng.legal_actions(state)
            for cls, kind in kinds:
                spots = frozenset(getattr(a, kind) for a in acts if isinstance(a, cls))
                if len(spots) > 1:
                    out.add((kind, spots))
            busy = [a for a in acts if not isinstance(a, eng.EndTurn | eng.MaritimeTrade)]
            apply(state, rnd.choice(busy if busy and rnd.random() < 0.85 else acts))
    return out


ARROWS = ((1, 0), (-1, 0), (0, 1), (0, -1))


@pytest.mark.parametrize("scale", [1, 2])
def test_arrows_reach_every_spot_offered(scale: int) -> None:
    for kind, spots in _placements(range(30)):
        start = min(spots)
        reached, todo = {start}, [start]
        while todo:
            here = todo.pop()
            for dx, dy in ARROWS:
                there = step_towards(kind, 3, sorted(spots), here, dx, dy, scale)
                if there is not None and there not in reached:
                    reached.add(there)
                    todo.append(there)
        assert reached == spots, (kind, sorted(spots), sorted(spots - reached))


@pytest.mark.parametrize("scale", [1, 2])
def test_arrows_move_to_a_neighbour_on_the_island_in_their_direction(scale: int) -> None:
    """Among all the spots, an arrow with a neighbour on the island less than 45 degrees
    off its direction on screen (lines count double) goes to the closest such neighbour:
    up the side above a corner, right along the slant to the right."""
    topo = topology(3)
    for kind, links in (
        ("vertex", topo.vertex_vertices),
        ("edge", topo.edge_edges),
        ("hex", topo.hex_neighbours),
    ):
        spots = list(range(len(links)))
        for here in spots:
            x0, y0 = spot_cell(kind, 3, here, scale)
            for dx, dy in ARROWS:
                offs = []
                for n in links[here]:
                    x, y = spot_cell(kind, 3, n, scale)
                    turn = math.degrees(math.atan2((y - y0) * 2, x - x0) - math.atan2(dy, dx))
                    offs.append((min(abs(turn) % 360, 360 - abs(turn) % 360), n))
                there = step_towards(kind, 3, spots, here, dx, dy, scale)
                closest = min(offs)
                if closest[0] < 45:
                    assert there in [n for off, n in offs if off == closest[0]], (
                        kind,
                        here,
                        (dx, dy),
                        there,
                    )
                if closest[0] < 90:
                    assert there is not None
