"""The main screen's widgets: the board (with keyboard and mouse picking of a spot), the
player panels and the hand."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import pairwise
from typing import Any, ClassVar

from rich.console import Console, ConsoleOptions
from rich.measure import Measurement
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.events import Click, Resize
from textual.geometry import Size
from textual.message import Message
from textual.widget import Widget
from textual.widgets import RichLog, Static

from clients.game import GameModel, LiveView, LogLine, card_names, dev_names
from clients.narrate import plural
from clients.tui.board import (
    SEAT_COLOURS,
    Marks,
    layout,
    nearest,
    picture_of,
    render_board,
    spot_cell,
    step_towards,
)
from protocol.payloads import RESOURCE_NAMES

LOG_STYLES = {
    "event": "",
    "turn": "bold #8a8f98",
    "you": "bold",
    "chat": "#35c3e0",
    "error": "bold #ff4040",
    "info": "italic #8dc95a",
}

SIDE_ROOM = (40, 10)
"""Columns beside and lines under the board that a doubled board must leave free."""
SIDE_WIDE = 56
"""The most columns the panels beside the board use; on a wider screen the board's column
(and the log under it) takes the rest."""


_GLUE = "\ue000"
"""Stands for a space the log must not break at while a line is wrapped (Rich breaks at
every whitespace character, no-break spaces too); it is one cell wide, like the space."""


class LogEntry:
    """A line of the game log that wraps only where a reader would: never beside a number,
    so "lumber 4", "2 ore" and "9 o'clock" stay whole ("rolled 8 (5+3):" too)."""

    def __init__(self, text: Text) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Text]:
        glued = self.text.copy()
        glued.plain = glue_numbers(glued.plain)
        for line in glued.wrap(console, options.max_width):
            line.plain = line.plain.replace(_GLUE, " ")
            yield line

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.text)


def glue_numbers(plain: str) -> str:
    """``plain`` with each space beside a number (a word that is one, or the word after it
    starts with a digit) and each no-break space replaced by the log's glue."""
    words = plain.replace("\u00a0", _GLUE).split(" ")
    out = [words[0]]
    for before, word in pairwise(words):
        out.append(_GLUE if before.isdigit() or word[:1].isdigit() else " ")
        out.append(word)
    return "".join(out)


def log_entry(line: LogLine) -> LogEntry:
    """A log line as the log shows it, styled by its kind."""
    return LogEntry(Text(line.text, style=LOG_STYLES.get(line.kind, "")))


class GameLog(RichLog):
    """The log under the board. Its lines wrap at its whole width, again whenever that
    changes (a line written before the screen was laid out, or before a resize, would
    otherwise keep the width it had then); a resize keeps the latest lines in view."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.entries: list[LogEntry] = []
        self._wrapped_at = 0

    def add(self, entry: LogEntry) -> None:
        """Write one more entry, wrapped at the log's width."""
        self.entries.append(entry)
        width = self.scrollable_content_region.width if self._size_known else 0
        self.write(entry, width=width or None)

    def on_resize(self, event: Resize) -> None:
        super().on_resize(event)
        width = self.scrollable_content_region.width
        if width and width != self._wrapped_at:
            self._wrapped_at = width
            self.clear()
            for entry in self.entries:
                self.write(entry, width=width, scroll_end=False)
        self.call_after_refresh(self.scroll_end, animate=False)

    def restart(self) -> None:
        """Empty the log."""
        self.entries.clear()
        self.clear()


def board_scale(screen: Size, radius: int) -> int:
    """2 when the screen has room for the doubled board and the panels, else 1."""
    big = layout(radius, 2)
    fits = screen.width >= big.width + 1 + SIDE_ROOM[0]
    return 2 if fits and screen.height >= big.height + 2 + SIDE_ROOM[1] else 1


class BoardView(Widget, can_focus=True):
    """The island, doubled in size on a large screen. While a spot is being picked, arrows
    move between neighbouring legal spots (Tab and Shift+Tab cycle in reading order), Enter
    or a click chooses, Escape backs off. Its container is made as wide as the board, or wider
    when the screen leaves the side panels more than they need."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1, 0)", "left", show=False),
        Binding("right", "move(1, 0)", "right", show=False),
        Binding("up", "move(0, -1)", "up", show=False),
        Binding("down", "move(0, 1)", "down", show=False),
        Binding("tab", "cycle(1)", "next spot", show=False),
        Binding("shift+tab", "cycle(-1)", "previous spot", show=False),
        Binding("enter", "choose", "choose", show=False),
        Binding("escape", "cancel", "back", show=False),
    ]

    class Chosen(Message):
        """A spot was chosen."""

        def __init__(self, kind: str, spot: int) -> None:
            super().__init__()
            self.kind = kind
            self.spot = spot

    class Cancelled(Message):
        """The picking was abandoned."""

    class Moved(Message):
        """The highlighted spot changed."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view: LiveView | None = None
        self.kind = ""
        self.spots: list[int] = []
        self.index = 0
        self.scale = 1
        self.screen_size: Size | None = None
        """The terminal's size, as the last resize said (else the app's)."""

    # --- what it shows ----------------------------------------------------------------------
    def fit(self, screen: Size) -> None:
        """The terminal is now ``screen`` large: draw at the scale it has room for."""
        self.screen_size = screen
        self.show(self.view)

    def show(self, view: LiveView | None) -> None:
        """Show a view, at the scale the screen has room for."""
        self.view = view
        if view is not None:
            self.scale = board_scale(self.screen_size or self.app.size, view.radius)
            lay = layout(view.radius, self.scale, view.harbour_layout)
            self.styles.width = lay.width
            self.styles.height = lay.height
            if isinstance(self.parent, Widget):
                screen = self.screen_size or self.app.size
                self.parent.styles.width = max(lay.width + 1, screen.width - SIDE_WIDE)
        self.refresh()

    def marks(self) -> Marks:
        if not self.kind or not self.spots:
            return Marks()
        return Marks(self.kind, tuple(self.spots), self.spots[self.index])

    def render(self) -> Text:
        if self.view is None:
            return Text("waiting for the board…")
        return render_board(picture_of(self.view), self.marks(), self.scale)

    # --- picking ------------------------------------------------------------------------------
    @property
    def picking(self) -> bool:
        return bool(self.kind)

    @property
    def current(self) -> int | None:
        return self.spots[self.index] if self.kind and self.spots else None

    def _cell(self, spot: int) -> tuple[int, int]:
        assert self.view is not None
        return spot_cell(self.kind, self.view.radius, spot, self.scale)

    def pick(self, kind: str, spots: Sequence[int]) -> None:
        """Start picking one of ``spots`` (``vertex``, ``edge`` or ``hex`` ids)."""
        self.kind = kind
        cells = {s: self._cell(s) for s in spots}
        self.spots = sorted(spots, key=lambda s: (cells[s][1], cells[s][0]))
        self.index = 0
        self.refresh()
        self.focus()

    def stop(self) -> None:
        self.kind = ""
        self.spots = []
        self.index = 0
        self.refresh()

    def action_cycle(self, step: int) -> None:
        if self.picking:
            self.index = (self.index + step) % len(self.spots)
            self.refresh()
            self.post_message(self.Moved())

    def action_move(self, dx: int, dy: int) -> None:
        """To the neighbouring spot on the island whose direction on screen is closest to
        the arrow's (:func:`~clients.tui.board.step_towards`)."""
        if not self.picking or self.view is None:
            return
        here = self.spots[self.index]
        there = step_towards(self.kind, self.view.radius, self.spots, here, dx, dy, self.scale)
        if there is not None:
            self.index = self.spots.index(there)
            self.refresh()
            self.post_message(self.Moved())

    def action_choose(self) -> None:
        if self.picking:
            self.post_message(self.Chosen(self.kind, self.spots[self.index]))

    def action_cancel(self) -> None:
        if self.picking:
            self.post_message(self.Cancelled())

    def on_click(self, event: Click) -> None:
        if not self.picking:
            return
        found = nearest(((i, self._cell(s)) for i, s in enumerate(self.spots)), event.x, event.y)
        if found is None or found[1] > 6 * self.scale:
            return
        if found[0] == self.index:
            self.action_choose()
        else:
            self.index = found[0]
            self.refresh()
            self.post_message(self.Moved())


def swatch(seat: int) -> Text:
    return Text("██", style=SEAT_COLOURS[seat % 4])


COMPACT = 30
"""Panels narrower than this many columns use their compact form."""


class Panel(Static):
    """A panel drawn from the model, again when its width changes."""

    resizing = False
    """Whether a redraw for a new width is still to come (after the next refresh)."""

    def _width(self) -> int:
        return self.size.width or 36

    def on_resize(self) -> None:
        self.resizing = True
        self.call_after_refresh(self._redraw_resized)  # the new width's form, laid out anew

    def _redraw_resized(self) -> None:
        self.resizing = False
        self.redraw()

    def redraw(self) -> None:
        """Draw again from what was last shown."""


def fit_name(name: str, room: int) -> str:
    """``name`` in ``room`` columns: cut in the middle, so that names that differ only at
    the end (heuristic-1, heuristic-2) stay apart."""
    if len(name) <= room:
        return name
    tail = min(3, room // 3)
    return name[: room - tail - 1] + "…" + name[-tail:]


class PlayersPanel(Panel):
    """A block per seat: name and colour, public points, cards, development cards,
    knights, longest road and largest army, who is to act and their time left (every
    seat's, in a game with a turn timer), who is a bot, away or gone."""

    _model: GameModel | None = None

    def show(self, model: GameModel) -> None:
        self._model = model
        self.redraw()

    def redraw(self) -> None:
        model = self._model
        if model is None:
            return
        v = model.view
        if v is None or not model.started:
            names = (
                ", ".join(
                    p.name + ("" if p.connected else " (not connected)") for p in model.players
                )
                or "nobody yet"
            )
            self.update(Text(f"Seated: {names}"))
            return
        width = self._width()
        compact = width < COMPACT
        out = Text(no_wrap=True, overflow="ellipsis")
        rows = [self._row(model, v, q) for q in range(len(v.seats))]
        # In few columns the points go under the names when a name would be cut beside them.
        below = compact and any(
            4 + len(name) + len(clock) + 4 > width for _, name, clock, _ in rows
        )
        for s, (acting, name, clock, points) in zip(v.seats, rows, strict=True):
            info = model.player(s.seat)
            line_start = len(out.plain)
            out.append("▶" if acting else " ", style="bold #ffe14d")
            out.append("" if compact else " ")
            out.append_text(swatch(s.seat))
            if s.seat == model.seat and name.lower() != "you" and not compact:
                name += " (you)"
            used = len(out.plain) - line_start
            if below:
                room = max(3, width - used - 1 - len(clock))
                out.append(f" {fit_name(name, room)}", style="bold" if acting else "")
            else:
                room = width - used - 1 - (4 if compact else 6) - len(clock)
                room = max(3, min(19, room))
                out.append(
                    f" {fit_name(name, room)}".ljust(room + 1), style="bold" if acting else ""
                )
                out.append(f"{points:>2}VP" if compact else f"{points:>3} VP", style="bold")
            if clock:
                out.append(clock, style="bold #ffe14d")
            if below:
                out.append(f"\n{points}VP ", style="bold")
            else:
                out.append("\n" + ("\u00a0" if compact else "\u00a0" * 4))
            if compact:
                out.append(f"{s.cards}c {s.dev_cards}d")
                out.append(f" ⚔{s.knights}" if s.knights else "")
            else:
                out.append(f"{s.cards:>2} {'card ' if s.cards == 1 else 'cards'} {s.dev_cards} dev")
                out.append(f" ⚔{s.knights}" if s.knights else "   ")
            if s.longest_road:
                out.append(" LR", style="bold #35c3e0")
            if s.largest_army:
                out.append(" LA", style="bold #35c3e0")
            if info is not None and info.away:
                out.append(" away", style="bold #ff9d1a")
            elif info is not None and not info.connected and not info.bot:
                out.append(" gone", style="bold #ff4040")
            elif info is not None and info.bot:
                out.append(" bot", style="dim")
            if s.discards_owed:
                out.append(f" owes {s.discards_owed}", style="bold #ff9d1a")
            out.append("\n")
        out.rstrip()
        self.update(out)

    @staticmethod
    def _row(model: GameModel, v: LiveView, seat: int) -> tuple[bool, str, str, int]:
        """Of a seat: whether it is to act, its name, its clock (`` ⏱42s``, or empty) and
        the points shown (its own with its victory cards, all of them at the end)."""
        acting = seat in v.to_act and v.winner is None
        left = model.time_left(seat) if acting else None
        clock = "" if left is None else f" ⏱{left:.0f}s"
        points = v.seats[seat].points
        if seat == model.seat and v.own_points is not None:
            points = v.own_points
        if v.final_points is not None:
            points = v.final_points[seat]
        return acting, model.name(seat), clock, points


BUILD_KINDS = (
    ("build_road", "road"),
    ("build_settlement", "settlement"),
    ("build_city", "city"),
    ("buy_dev_card", "dev card"),
)


ROOMY = 36
"""Screens at least this many lines tall also show the bank in the hand panel."""


def _counts_lines(title: str, counts: Sequence[int], tail: str) -> Text:
    """``Hand  0 brick  2 lumber  2 wool`` and the other two resources under them."""
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append(f"{title:<5}", style="bold")
    for r, name in enumerate(RESOURCE_NAMES):
        if r == 3:
            out.append("\n     ")
        out.append(f" {counts[r]}", style="bold" if counts[r] else "dim")
        out.append(f" {name} ", style="" if counts[r] else "dim")
    out.append(f"  ({tail})", style="dim")
    return out


class HandPanel(Panel):
    """Your cards, development cards and what you can build now; on a tall
    screen, the bank and the development cards left too."""

    _shown: tuple[GameModel, set[str]] | None = None

    def show(self, model: GameModel, kinds: set[str]) -> None:
        self._shown = (model, kinds)
        self.redraw()

    def redraw(self) -> None:
        if self._shown is None:
            return
        model, kinds = self._shown
        v = model.view
        self.display = model.started  # nothing in hand before the start
        bank = Text()
        if v is not None and self.app.size.height >= ROOMY and self._width() >= COMPACT:
            bank = Text("\n").append_text(_counts_lines("Bank", v.bank, plural(v.deck, "dev card")))
        if v is None or v.hand is None:
            watching = Text("Watching: hands are hidden.", style="dim") if model.spectator else ""
            self.update(Text.assemble(watching, bank) if bank else watching)
            return
        held = v.development or [0] * 5
        new = v.development_new or [0] * 5
        old = [max(0, h - n) for h, n in zip(held, new, strict=True)]
        can = [label for kind, label in BUILD_KINDS if kind in kinds]
        if self._width() < COMPACT:
            self.update(self._compact(v.hand, old, new))
            return
        out = _counts_lines("Hand", v.hand, plural(sum(v.hand), "card"))
        out.append("\nDev  ", style="bold")
        out.append(dev_names(old))
        if any(new):
            out.append(f"  new: {dev_names(new)}", style="dim")
        out.append("\nBuild ", style="bold")
        out.append(", ".join(can) if can else "nothing now", style="" if can else "dim")
        self.update(out.append_text(bank))

    @staticmethod
    def _compact(hand: Sequence[int], old: Sequence[int], new: Sequence[int]) -> Text:
        """The hand in few columns: only what is held, wrapped (what can be built is left
        to the action list)."""
        out = Text()
        out.append(f"Hand ({sum(hand)}): ", style="bold")
        out.append(card_names(hand) if any(hand) else "no cards")
        out.append("\nDev: ", style="bold")
        out.append(dev_names(old))
        if any(new):
            out.append(f" (new: {dev_names(new)})", style="dim")
        return out  # what can be built: the action list says it


def ratios_text(ratios: Sequence[int]) -> str:
    """``"brick 4:1  lumber 4:1  wool 2:1 ..."``."""
    return "  ".join(f"{name} {ratios[r]}:1" for r, name in enumerate(RESOURCE_NAMES))


__all__ = ["BoardView", "GameLog", "HandPanel", "PlayersPanel", "card_names", "ratios_text"]
