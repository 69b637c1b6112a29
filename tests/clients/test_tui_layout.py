"""The terminal client at several sizes: from 80x24 up, the whole board, every player, the
hand and the action list are on the screen, and nothing essential is cut off; the offer
dialog and the replay fit too."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from textual.app import App
from textual.geometry import Region, Size
from textual.pilot import Pilot
from textual.widget import Widget

from clients.tui.app import HexhavenApp
from clients.tui.board import layout
from clients.tui.dialogs import CardDialog
from clients.tui.offline import OfflineTransport
from clients.tui.replay import ReplayApp, ReplayGame, Slider
from clients.tui.screenshot import NAMES, _messages, _position, save
from clients.tui.widgets import (
    SIDE_WIDE,
    BoardView,
    GameLog,
    HandPanel,
    Panel,
    PlayersPanel,
    board_scale,
)
from engine import events as ev
from server.store import Store, game_record
from tests.clients.test_replay import store_game

SIZES = [(80, 24), (90, 30), (100, 30), (120, 40), (160, 50)]


async def settle(pilot: Pilot[None]) -> None:
    """Wait until the screen is laid out and every panel drawn for its width: a panel
    redraws after the refresh that follows a resize, which a loaded machine may delay past
    one pause. Settled: no panel waits to redraw, and a pause (each one lays the screen out
    anew) moved none of them, so the layout a redraw asked for has been made."""
    last: list[Region] | None = None
    for _ in range(100):
        await pilot.pause()
        panels = list(pilot.app.query(Panel))
        regions = [panel.region for panel in panels]
        if not any(panel.resizing for panel in panels) and regions == last:
            return
        last = regions
        await pilot.pause(0.02)
    raise AssertionError("the panels never settled")


def board_size(size: tuple[int, int]) -> tuple[int, int]:
    """The board's size on a screen: doubled when there is room."""
    lay = layout(3, board_scale(Size(*size), 3))
    return (lay.width, lay.height)


def inside(app: App[None], widget: Widget, size: tuple[int, int]) -> Region:
    """The widget's region, checked to be on the screen above the footer."""
    region = widget.region
    width, height = size
    assert region.width > 0 and region.height > 0, widget
    assert region.right <= width and region.bottom <= height - 1, (widget, region)
    return region


def lines_fit(widget: Widget) -> list[str]:
    """The widget's lines as drawn on the screen, checked to hold all of its text: every
    character, in order (words longer than the width fold), nothing cut off at the right
    or the bottom."""
    rendered = widget.render()
    text = getattr(rendered, "plain", str(rendered)).replace("\u00a0", " ")
    drawn = widget.render_lines(Region(0, 0, *widget.outer_size))
    shown = [strip.text.rstrip() for strip in drawn if strip.text.strip("─ ")]  # no border
    assert "".join("".join(shown).split()) == "".join(text.split()), (widget, shown)
    return shown


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_game_screen_at_each_size(size: tuple[int, int]) -> None:
    table, history = _position(26, 24)
    app = HexhavenApp(OfflineTransport(_messages(table, history)))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        board = inside(app, app.query_one(BoardView), size)
        assert (board.width, board.height) == board_size(size)  # never clipped
        players = lines_fit(app.query_one(PlayersPanel))
        text = "\n".join(players)
        for name in NAMES:
            row = next(line for line in players if name in line)
            assert "VP" in row, row
        assert "▶" in text  # who is to act
        hand = lines_fit(app.query_one(HandPanel))
        assert hand[0].startswith("Hand") and "lumber" in " ".join(hand)
        inside(app, app.query_one("#hint"), size)
        actions = inside(app, app.query_one("#actions"), size)
        assert actions.height >= 3
        assert app.choices and app.query_one("#actions").highlighted == 0  # type: ignore[attr-defined]
        inside(app, app.query_one("#log"), size)
        # More room, more of it used: the log and the side column grow with the screen.
        if size[0] >= 100:
            assert "Hand " in hand[0] and "(you)" in text  # the full forms
        # The offer dialog fits as a whole, its keys line included.
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, CardDialog)
        box = app.screen.query_one(".dialog")
        assert box.region.bottom <= size[1] and box.region.right <= size[0]
        keys = app.screen.query_one(".dialog-keys")
        assert keys.region.bottom <= size[1] - 1 and keys.region.height >= 1


async def test_the_log_and_the_side_column_grow_with_the_screen() -> None:
    heights = {}
    widths = {}
    hands = {}
    table, history = _position(26, 24)
    for size in ((100, 30), (160, 50)):
        app = HexhavenApp(OfflineTransport(_messages(table, history)))
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            heights[size] = app.query_one("#log").region.height
            widths[size] = app.query_one("#actions").region.width
            hands[size] = "\n".join(lines_fit(app.query_one(HandPanel)))
    assert heights[(160, 50)] > heights[(100, 30)] and widths[(160, 50)] > widths[(100, 30)]
    # A tall screen shows the bank and the development cards left as well.
    bank = table.state.bank
    assert "Bank" not in hands[(100, 30)]
    assert f"Bank  {bank[0]} brick" in hands[(160, 50)]
    assert f"({sum(table.state.deck)} dev cards)" in hands[(160, 50)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_hint_shows_the_whole_spot_and_the_keys_while_picking(
    size: tuple[int, int],
) -> None:
    """Even in the 16 columns beside the board at 80x24: the spot's name (a place with three
    hexes and a harbour is the longest) and the keys, nothing cut off."""
    import engine
    from clients.narrate import PlaceNames
    from tests.clients.test_tui_dialogs import client, prompt

    state = engine.new_game(engine.GameConfig(players=4), 4)
    app, _ = client(state, 0, prompt(state, 0))
    b = state.board
    places = PlaceNames(b.radius, [t.name.lower() for t in b.terrain], b.tokens, [])
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        board = app.query_one(BoardView)
        names = {s: places.vertex(s) for s in board.spots}
        longest = max(board.spots, key=lambda s: len(names[s]))
        # To the spot before it at once, then Tab (a press per spot redraws the screen
        # each time, for nothing this test looks at).
        board.action_cycle(board.spots.index(longest) - board.index - 1)
        await pilot.press("tab")
        assert board.current == longest
        await settle(pilot)
        text = " ".join(lines_fit(app.query_one("#hint")))
        assert " ".join(names[longest].split(" (")[0].split()) in " ".join(text.split())
        assert "Enter" in text and "Esc" in text


@pytest.mark.parametrize("size", [(150, 40), (200, 60)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_wide_screen_gives_its_spare_columns_to_the_log(size: tuple[int, int]) -> None:
    """The panels beside the board stop at SIDE_WIDE columns; the log under the board takes
    the rest, so its lines do not wrap at the board's width (150x40 is too short for the
    doubled board)."""
    table, history = _position(26, 24)
    app = HexhavenApp(OfflineTransport(_messages(table, history)))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        board = app.query_one(BoardView).region
        log = inside(app, app.query_one("#log"), size)
        right = inside(app, app.query_one("#right"), size)
        assert right.width == SIDE_WIDE and right.right == size[0]
        assert log.width == size[0] - SIDE_WIDE - 1 > board.width


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_replay_at_each_size(size: tuple[int, int]) -> None:
    store = Store()
    store_game(store, "done1", seed=3)
    stored = store.load("done1")
    assert stored is not None
    game = ReplayGame(game_record(stored), viewer=1)
    app = ReplayApp(game, position=game.length // 2)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        board = inside(app, app.query_one(BoardView), size)
        assert (board.width, board.height) == board_size(size)
        players = lines_fit(app.query_one(PlayersPanel))
        assert all(any(name in line for line in players) for name in ("Ana", "Bo", "Cy", "Di"))
        inside(app, app.query_one(HandPanel), size)
        slider = app.query_one(Slider)
        inside(app, slider, size)
        shown = str(slider.render())
        assert f"{game.length // 2} of {game.length}" in shown or (
            f"{game.length // 2}/{game.length}" in shown
        )
        assert "━" in shown or "●" in shown  # the bar itself is visible
        inside(app, app.query_one("#now"), size)
    store.close()


async def test_the_lobby_shows_the_whole_invite_in_80_columns() -> None:
    import engine
    from protocol import messages as m
    from protocol.payloads import view_from_engine

    state = engine.new_game(engine.GameConfig(players=4), 1)
    join = "hexhaven join ws://192.168.1.20:8765 A1B2C3 --name NAME"
    messages = [
        m.GameCreated(game="g1", invite="A1B2C3", seed_hash="ab" * 32),
        m.Joined(game="g1", seat=0, token="tok"),
        m.Players(
            game="g1",
            players=[m.PlayerInfo(seat=0, name="Ana", bot=False, connected=True, away=False)],
        ),
        m.GameView(game="g1", view=view_from_engine(engine.view(state, 0))),
    ]
    app = HexhavenApp(
        OfflineTransport(messages), note=f"Invite code A1B2C3. Friends type:\n  {join}", host=True
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        hint = app.query_one("#hint")
        inside(app, hint, (80, 24))
        shown = " ".join(lines_fit(hint))
        assert "A1B2C3" in shown and "Press s to start" in shown
        assert "".join(join.split()) in "".join(shown.split())


async def test_a_larger_island_gets_a_wider_board_column() -> None:
    import engine
    from tests.clients.test_tui_dialogs import opening

    state = engine.new_game(engine.GameConfig(players=4, radius=4), 3)
    app = HexhavenApp(OfflineTransport(opening(state, 0)))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        board = inside(app, app.query_one(BoardView), (100, 30))
        assert (board.width, board.height) == (layout(4).width, layout(4).height)
        assert app.query_one("#left").region.width == layout(4).width + 1
        lines_fit(app.query_one(PlayersPanel))


def _breaks_beside_a_number(lines: list[str]) -> list[tuple[str, str]]:
    """Each place where ``lines`` break between a number and the word beside it."""
    return [
        (a, b) for a, b in itertools.pairwise(lines) if a.split()[-1].isdigit() or b[:1].isdigit()
    ]


async def test_the_log_never_breaks_a_line_beside_a_number() -> None:
    """'lumber 4', '2 ore' and '9 o'clock' stay on one line at every width; the line's words
    and style come through whole."""
    from rich.console import Console
    from rich.style import Style

    from clients.tui.widgets import LOG_STYLES, glue_numbers, log_entry

    table, history = _position(26, 24)
    app = HexhavenApp(OfflineTransport(_messages(table, history)))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        narrator = app.model.narrator()
        assert narrator is not None
        for v in range(54):  # a settlement at every intersection: long place names
            told = narrator.describe(ev.SettlementBuilt(seat=1, vertex=v, free=False))
            app.say("event", told or "")
        await settle(pilot)
        log = app.query_one("#log")
        drawn = [strip.text.rstrip() for strip in log.lines]  # type: ignore[attr-defined]
        entries = list(app.model.log)
    assert len(drawn) > len(entries)  # some entries wrapped at 80x24
    for line in entries:  # the drawn lines of each entry, in turn
        words, rows = line.text.split(), list[str]()
        while len(" ".join(rows).split()) < len(words):
            rows.append(drawn.pop(0))
        assert " ".join(rows).split() == words
        assert not _breaks_beside_a_number(rows), rows
    console = Console(width=200, color_system=None)
    for line in entries:
        longest = max(len(unit) for unit in glue_numbers(line.text).split())
        for width in range(longest, 64, 3):
            rendered = list(
                console.render_lines(
                    log_entry(line), console.options.update_width(width), pad=False
                )
            )
            texts = ["".join(seg.text for seg in row).rstrip() for row in rendered]
            assert all(len(t) <= width for t in texts)
            assert " ".join(texts) == " ".join(line.text.split())
            assert not _breaks_beside_a_number(texts), (width, texts)
            styles = {seg.style or Style() for row in rendered for seg in row if seg.text.strip()}
            assert styles == {Style.parse(LOG_STYLES[line.kind])}, (line, styles)


BOT_NAMES = ["you", "heuristic-1", "heuristic-2", "heuristic-3"]


def _named(messages: list[object], names: list[str]) -> list[object]:
    """The messages with the players renamed (as ``hexhaven play`` names its bots)."""
    from protocol import messages as m

    out: list[object] = []
    for x in messages:
        if isinstance(x, m.Players):
            renamed = [p.model_copy(update={"name": names[p.seat]}) for p in x.players]
            x = m.Players(game=x.game, players=renamed, started=x.started)
        out.append(x)
    return out


async def test_at_80x24_the_whole_action_list_and_whole_names_show() -> None:
    """The end of the turn is in view in the action list (and its key in the footer), and
    the bots' names are not cut."""
    table, history = _position(26, 24)
    app = HexhavenApp(OfflineTransport(_named(_messages(table, history), BOT_NAMES)))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert [c.kind for c in app.choices][-1] == "end_turn"
        actions = inside(app, app.query_one("#actions"), (80, 24))
        shown = [strip.text for strip in app.screen._compositor.render_strips()]
        listed = [line[actions.x : actions.right].strip() for line in shown]
        listed = listed[actions.y : actions.bottom]
        assert f"{len(app.choices)} End turn" in listed, listed
        players = "\n".join(lines_fit(app.query_one(PlayersPanel)))
        for name in BOT_NAMES:
            assert name in players
        assert "…" not in players
        footer = shown[-1]
        assert "e end turn" in footer
        await pilot.press("e")
        await pilot.pause()
        sent = app.transport.sent  # type: ignore[attr-defined]
        assert sent and sent[-1].action.kind == "end_turn"


@pytest.mark.parametrize("size", [(160, 40), (100, 30)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_log_wraps_at_its_whole_width_after_a_resize_too(size: tuple[int, int]) -> None:
    """Lines written before the screen was laid out (the history) and after it wrap at the
    log's width, and again at the new width after a resize."""
    from protocol import messages as m

    table, history = _position(26, 24)
    messages = _messages(table, history)
    said = " ".join(f"word{i}" for i in range(60))
    messages.append(m.ChatMessage(game="g1", seat=1, name="Bo", text=said))
    app = HexhavenApp(OfflineTransport(messages))

    def widest() -> tuple[int, int]:
        log = app.query_one(GameLog)
        return max(len(s.text.rstrip()) for s in log.lines), log.scrollable_content_region.width

    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.say("info", said)
        drawn, room = widest()
        assert room - 8 <= drawn <= room
        await pilot.resize_terminal(*size)
        await settle(pilot)
        drawn, room = widest()
        assert room >= 62 and room - 8 <= drawn <= room


async def test_the_screenshots_are_made(tmp_path: Path) -> None:
    """``python -m clients.tui.screenshot`` saves its five pictures; the finished game it
    replays was played on the board its record's options deal."""
    saved = await save(tmp_path)
    assert sorted(p.name for p in saved) == [
        "large.svg",
        "narrow.svg",
        "offer.svg",
        "play.svg",
        "replay.svg",
    ]
    for path in saved:
        assert path.parent == tmp_path and path.read_text().startswith("<svg")
    assert "Replay" in (tmp_path / "replay.svg").read_text()
