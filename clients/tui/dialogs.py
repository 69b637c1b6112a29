"""Dialogs: choosing cards (discard, year of plenty, trade offers and counter-offers),
choosing one of a list (victim, monopoly, bank trade), help, quitting
and the game's end. Each is a modal screen that dismisses with its answer (None when
backed out of with Escape)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from clients.game import LogLine
from clients.narrate import plural
from clients.tui.board import SEAT_COLOURS
from clients.tui.widgets import log_entry
from protocol.payloads import RESOURCE_NAMES

Counts = list[int]


@dataclass(frozen=True)
class Side:
    """One column of a card choice: its heading and the most of each resource."""

    heading: str
    limits: tuple[int, ...]
    held: str = "you have"
    """What the limit is, beside each row: ``(you have 2)``, ``(the bank has 2)``."""


class CardGrid(Widget, can_focus=True):
    """Rows of resources with a count each: ↑/↓ pick a row, ←/→ (or -/+) change it."""

    DEFAULT_CSS = "CardGrid { height: auto; }"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "row(-1)", "up", show=False),
        Binding("down", "row(1)", "down", show=False),
        Binding("left", "change(-1)", "fewer", show=False),
        Binding("right", "change(1)", "more", show=False),
        Binding("minus", "change(-1)", "fewer", show=False),
        Binding("plus", "change(1)", "more", show=False),
        Binding("equals_sign", "change(1)", "more", show=False),
    ]

    def __init__(self, sides: Sequence[Side], initial: Sequence[Counts] | None = None) -> None:
        super().__init__()
        self.sides = list(sides)
        self.counts: list[Counts] = (
            [list(c) for c in initial] if initial is not None else [[0] * 5 for _ in sides]
        )
        self.row = 0
        self.on_change: Callable[[], None] = lambda: None

    @property
    def rows(self) -> int:
        return 5 * len(self.sides)

    def action_row(self, step: int) -> None:
        self.row = (self.row + step) % self.rows
        self.refresh()

    def action_change(self, step: int) -> None:
        side, r = divmod(self.row, 5)
        value = self.counts[side][r] + step
        if 0 <= value <= self.sides[side].limits[r]:
            self.counts[side][r] = value
            self.refresh()
            self.on_change()

    def render(self) -> Text:
        out = Text(no_wrap=True)
        for s, side in enumerate(self.sides):
            if s:
                out.append("\n")
            out.append(f"{side.heading}\n", style="bold underline")
            for r, name in enumerate(RESOURCE_NAMES):
                here = s * 5 + r == self.row
                out.append("▶ " if here else "  ", style="bold #ffe14d")
                out.append(f"{name:<7}", style="bold" if here else "")
                n = self.counts[s][r]
                out.append(" ◀ " if here else "   ", style="#ffe14d")
                out.append(f"{n:>2}", style="bold reverse" if here else "bold")
                out.append(" ▶" if here else "  ", style="#ffe14d")
                limit = side.limits[r]
                out.append(f"   ({side.held} {limit})" if limit < 19 else "", style="dim")
                if r < 4:
                    out.append("\n")
        return out


class Recipients(Static):
    """Whom an offer goes to: every other seat, each one toggled by its number key."""

    def __init__(self, seats: Sequence[tuple[int, str]]) -> None:
        super().__init__(id="recipients")
        self.seats = list(seats)
        self.chosen = {seat for seat, _ in seats}

    def toggle(self, index: int) -> None:
        if 0 <= index < len(self.seats):
            self.chosen ^= {self.seats[index][0]}
            self.draw()

    def to(self) -> list[int] | None:
        """The seats asked: None when that is everyone."""
        if len(self.chosen) == len(self.seats):
            return None
        return sorted(self.chosen)

    def on_mount(self) -> None:
        self.draw()

    def on_resize(self) -> None:
        self.draw()

    def draw(self) -> None:
        """Each player as a box, a colour and a name, kept together on a line."""
        out = Text("To: ", style="bold")
        width = self.content_size.width or 1000
        used = len(out)
        for i, (seat, name) in enumerate(self.seats):
            on = seat in self.chosen
            one = Text(f"{i + 1}", style="dim")
            one.append("☑ " if on else "☐ ", style="bold #ffe14d" if on else "dim")
            one.append("██", style=SEAT_COLOURS[seat % 4])
            one.append(f" {name}", style="bold" if on else "dim strike")
            if i and used + 2 + len(one) > width:
                out.append("\n    ")
                used = 4
            elif i:
                out.append("  ")
                used += 2
            out.append_text(one)
            used += len(one)
        out.append("\n" + ("everyone" if self.to() is None else "only the ticked players"))
        out.append("  · a number ticks or unticks", style="dim")
        self.update(out)


class CardDialog(ModalScreen[list[Counts] | None]):
    """Choose counts of cards in one or more columns; ``check`` says what is wrong with a
    choice (None when it may be sent). With ``recipients`` (an offer), the number keys
    choose whom it goes to (:attr:`to`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "confirm", "confirm"),
        Binding("escape", "cancel", "back"),
        *[Binding(str(k), f"recipient({k - 1})", show=False) for k in range(1, 4)],
    ]

    def __init__(
        self,
        title: str,
        note: str,
        sides: Sequence[Side],
        check: Callable[[list[Counts]], str | None],
        *,
        initial: Sequence[Counts] | None = None,
        confirm: str = "confirm",
        cancel: bool = True,
        recipients: Sequence[tuple[int, str]] = (),
    ) -> None:
        super().__init__()
        self.title_text = title
        self.note = note
        self.grid = CardGrid(sides, initial)
        self.check = check
        self.confirm_label = confirm
        self.can_cancel = cancel
        self.recipients = Recipients(recipients) if recipients else None

    @property
    def to(self) -> list[int] | None:
        """The seats the offer goes to (None: everyone)."""
        return None if self.recipients is None else self.recipients.to()

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text(self.title_text, style="bold"), classes="dialog-title")
            if self.note:
                yield Static(self.note, classes="dialog-note")
            yield self.grid
            if self.recipients is not None:
                yield self.recipients
            yield Static(id="problem")
            keys = f"↑/↓ resource  ←/→ fewer/more  Enter {self.confirm_label}"
            yield Static(keys + ("  Esc back" if self.can_cancel else ""), classes="dialog-keys")

    def on_mount(self) -> None:
        self.grid.on_change = self._update
        self.grid.focus()
        self._update()

    def _problem(self) -> str | None:
        if self.recipients is not None and not self.recipients.chosen:
            return "tick at least one player to offer to"
        return self.check(self.grid.counts)

    def _update(self) -> None:
        problem = self._problem()
        text = Text(problem, style="#ff9d1a") if problem else Text("ready", style="green")
        for line in self.query("#problem").results(Static):  # none once closed
            line.update(text)

    def action_recipient(self, index: int) -> None:
        if self.recipients is not None:
            self.recipients.toggle(index)
            self._update()

    def action_confirm(self) -> None:
        if self._problem() is None:
            self.dismiss([list(c) for c in self.grid.counts])

    def action_cancel(self) -> None:
        if self.can_cancel:
            self.dismiss(None)


class ChoiceDialog(ModalScreen[int | None]):
    """Choose one of a list (Enter), or back out (Escape)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "back")]

    def __init__(self, title: str, note: str | Text, choices: Sequence[str | Text]) -> None:
        super().__init__()
        self.title_text = title
        self.note = note
        self.choices = list(choices)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text(self.title_text, style="bold"), classes="dialog-title")
            if self.note:
                yield Static(self.note, classes="dialog-note")
            yield OptionList(
                *[Option(c, id=str(i)) for i, c in enumerate(self.choices)], id="choices"
            )
            yield Static("↑/↓ choose  Enter confirm  Esc back", classes="dialog-keys")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option_index)

    def action_cancel(self) -> None:
        self.dismiss(None)


HELP = """\
[b]Playing[/b]
  ↑/↓ Enter, 1-9  choose an action in the list
  arrows, Tab     on the board: the neighbouring legal spot that way, or
                  the next; Enter builds there (or a click), Esc backs off
[b]Any time[/b]
  t  offer a trade (your turn, after the roll; 1-3 tick whom to ask)
  b  trade with the bank     c  chat        l  the whole game log
  e  end the turn            s  start (the host)
  ?  this help               q  quit
[b]The board[/b]
  ▲ settlement  ■ city  bars: roads  ROB: the robber (? where it may go)
  ○ legal spot  ◆ chosen spot  [#35c3e0]•[/] harbour corner  · intersection
  numbers with their dots, 6 and 8 in red; harbours: 3:1, 2:1 ore, ...
"""


class HelpScreen(ModalScreen[None]):
    """The keys and the board's signs, and ``back``, if given: the command that comes back
    to this seat after a quit or a closed terminal."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,enter,q", "close", "close"),
    ]

    def __init__(self, back: str | None = None) -> None:
        super().__init__()
        self.back = back

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Static(Text("Keys", style="bold"), classes="dialog-title")
            yield Static(HELP.rstrip())
            if self.back:
                back = Text.assemble(
                    ("Back to this seat", "bold"),
                    " after a quit or a closed terminal:\n  ",
                    (self.back, "bold #ffe14d"),
                )
                yield Static(back, id="back")
            yield Static("Esc close", classes="dialog-keys")

    def action_close(self) -> None:
        self.dismiss(None)


class LogScreen(ModalScreen[None]):
    """The whole game log, scrollable."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,l,q", "close", "close")]

    def __init__(self, lines: Sequence[LogLine]) -> None:
        super().__init__()
        self.lines = list(lines)

    def compose(self) -> ComposeResult:
        from textual.widgets import RichLog

        with Vertical(classes="dialog wide tall"):
            yield Static(Text("Game log", style="bold"), classes="dialog-title")
            log = RichLog(wrap=True, id="full-log", min_width=20)
            yield log
            yield Static("↑/↓ PgUp/PgDn scroll  Esc close", classes="dialog-keys")

    def on_mount(self) -> None:
        from textual.widgets import RichLog

        log = self.query_one(RichLog)
        for line in self.lines:
            log.write(log_entry(line))
        log.focus()

    def action_close(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,enter", "answer(True)", "yes"),
        Binding("n,escape", "answer(False)", "no"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.question)
            yield Static("y yes  n no", classes="dialog-keys")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


def seed_check(seed: int, published: str | None) -> str:
    """Whether the revealed seed hashes to the hash published when the game was made."""
    digest = hashlib.sha256(str(seed).encode()).hexdigest()
    if published is None:
        return f"seed {seed}: sha256 {digest[:16]}…"
    if digest == published:
        return f"seed {seed}: matches the hash published at the start ({digest[:16]}…)"
    return f"seed {seed}: does NOT match the published hash {published[:16]}…"


class GameOverScreen(ModalScreen[bool]):
    """Scores, the winner and the seed check. Enter looks at the board again; q quits."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter", "close(False)", "look at the board"),
        Binding("q", "close(True)", "quit"),
    ]

    def __init__(
        self,
        names: Sequence[str],
        points: Sequence[int],
        winner: int | None,
        you: int | None,
        seed: int,
        seed_hash: str | None,
        victory_cards: Sequence[int] | None = None,
    ) -> None:
        super().__init__()
        self.names = list(names)
        self.points = list(points)
        self.winner = winner
        self.you = you
        self.seed = seed
        self.seed_hash = seed_hash
        self.victory_cards = victory_cards

    def headline(self) -> str:
        if self.winner is None:
            return "The game is over: nobody won."
        if self.winner == self.you:
            return "You won!"
        return f"{self.names[self.winner]} won."

    def scores(self) -> Text:
        """The table of final points, best first."""
        table = Text()
        order = sorted(range(len(self.points)), key=lambda q: -self.points[q])
        for rank, q in enumerate(order, 1):
            table.append(f" {rank}. ")
            table.append("██", style=SEAT_COLOURS[q % 4])
            you = q == self.you and self.names[q] != "you"
            name = self.names[q] + (" (you)" if you else "")
            table.append(f" {name:<22}", style="bold" if q == self.winner else "")
            table.append(f"{self.points[q]:>3} points", style="bold")
            if self.victory_cards is not None and self.victory_cards[q]:
                cards = plural(self.victory_cards[q], "victory point card")
                table.append(f"  ({cards})", style="dim")
            if q == self.winner:
                table.append("  winner", style="bold #ffe14d")
            table.append("\n")
        return table

    def compose(self) -> ComposeResult:
        table = self.scores()
        with Vertical(classes="dialog wide", id="game-over"):
            yield Static(
                Text("Game over — " + self.headline(), style="bold"), classes="dialog-title"
            )
            yield Static(table)
            yield Static(seed_check(self.seed, self.seed_hash), classes="dialog-note")
            yield Static("Enter look at the board  q quit", classes="dialog-keys")

    def action_close(self, quit_app: bool) -> None:
        self.dismiss(quit_app)
