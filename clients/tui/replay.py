"""``hexhaven replay``: step through a finished game, move by move, forward and back.

A game's record (:class:`protocol.messages.GameRecord`: its options, seed and actions)
comes from the local store or from a server (``get_record``). :class:`ReplayGame` plays it
again at the protocol's game table (:class:`protocol.table.Table`, as the server played it),
keeping the state after every action, and shows each position as a spectator saw it, or as
one seat saw it (its hand, its drawn cards): every view and event is the table's form for
that recipient, as on the server. :class:`ReplayApp` is the Textual screen: the board, the
players, the log up to the position, and a slider.
"""

from __future__ import annotations

import bisect
import hashlib
from dataclasses import dataclass
from typing import ClassVar

from rich.console import Group
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.events import Click, Resize
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Footer, Static

import engine
from clients.game import GameModel, LiveView, LogLine, log_lines
from clients.narrate import PlaceNames, TableNarrator
from clients.tui.app import HexhavenApp
from clients.tui.dialogs import LogScreen
from clients.tui.widgets import BoardView, GameLog, HandPanel, PlayersPanel, log_entry
from protocol import messages as m
from protocol.options import game_config
from protocol.payloads import action_from_engine, action_to_engine, event_to_engine
from protocol.table import ActionRefused, Table, seat_view

LOG_TAIL = 400
"""Log lines shown under the board (the whole log is one key away)."""


class ReplayError(Exception):
    """A record that cannot be replayed (its actions do not replay on its board and seed)."""


@dataclass(frozen=True)
class Step:
    """One action of the game: who took it and its log lines for the viewer."""

    seat: int
    lines: tuple[LogLine, ...]


class ReplayGame:
    """A finished game, replayed: the state after every action (position 0 is the start,
    position ``len(steps)`` the end), and every action's log lines for ``viewer`` (a seat,
    or None for a spectator). Raises :class:`ReplayError` for a record that does not
    replay, or whose seat ``viewer`` does not exist."""

    def __init__(self, record: m.GameRecord, viewer: int | None = None) -> None:
        self.record = record
        players = record.options.players
        if viewer is not None and not 0 <= viewer < players:
            raise ReplayError(f"the game has seats 0 to {players - 1}, not {viewer}")
        self.viewer = viewer
        try:
            config = game_config(record.options)
        except engine.ConfigError as exc:
            raise ReplayError(f"the game's options do not make a board: {exc}") from exc
        table = Table(record.game, config, record.seed)
        names = {s.seat: s.name for s in record.seats}
        self.names = [names.get(q, f"seat {q}") for q in range(players)]
        first = LiveView.from_payload(table.view(viewer))
        places = PlaceNames(
            first.radius, first.terrain, first.tokens, first.harbours, first.harbour_layout
        )
        narrator = TableNarrator(self.names, viewer, places)
        self.states: list[engine.GameState] = [table.state.copy()]
        self.steps: list[Step] = []
        self.turns: list[int] = [0]
        """The positions where a turn (or a set-up placement of a new seat) begins."""
        for i, recorded in enumerate(record.actions):
            action = action_to_engine(recorded.action, recorded.seat)
            before = table.state.current
            try:
                told = table.act(recorded.seat, action)
            except ActionRefused as exc:
                raise ReplayError(f"action {i + 1} does not replay: {exc.message}") from exc
            seen = next(msg for r, msg in told if r == viewer and isinstance(msg, m.Events))
            mine = [event_to_engine(e) for e in seen.events]
            self.steps.append(Step(recorded.seat, tuple(log_lines(narrator, mine))))
            self.states.append(table.state.copy())
            turned = any(isinstance(e, engine.TurnStarted) for e in mine)
            if (turned or table.state.current != before) and not table.over:
                self.turns.append(i + 1)
        self.over = table.over

    @property
    def length(self) -> int:
        """The number of actions (the last position)."""
        return len(self.steps)

    def view(self, position: int) -> LiveView:
        """The game after ``position`` actions, in the viewer's form."""
        return LiveView.from_payload(seat_view(self.states[position], self.viewer))

    def action_kinds(self, position: int) -> set[str]:
        """The kinds of action (as the protocol names them) the viewer's seat could take
        at ``position``."""
        if self.viewer is None:
            return set()
        legal = engine.legal_actions(self.states[position], self.viewer)
        return {action_from_engine(a).kind for a in legal}

    def lines(self, start: int, stop: int) -> list[LogLine]:
        """The log lines of the actions ``start+1`` to ``stop``."""
        return [line for step in self.steps[start:stop] for line in step.lines]

    def next_turn(self, position: int) -> int:
        """The position where the next turn begins (the end if none)."""
        i = bisect.bisect_right(self.turns, position)
        return self.turns[i] if i < len(self.turns) else self.length

    def previous_turn(self, position: int) -> int:
        """The position where the turn before ``position`` begins (the start if none)."""
        i = bisect.bisect_left(self.turns, position)
        return self.turns[i - 1] if i > 0 else 0

    def seed_check(self) -> str:
        digest = hashlib.sha256(str(self.record.seed).encode()).hexdigest()
        return "seed ✓" if digest == self.record.seed_hash else "seed ✗ (does not match its hash)"


class Slider(Widget):
    """Where the replay is: ``action 57 of 412`` and a bar; a click on the bar jumps."""

    DEFAULT_CSS = "Slider { height: 2; }"

    class Jump(Message):
        """Go to ``position``."""

        def __init__(self, position: int) -> None:
            super().__init__()
            self.position = position

    def __init__(self, length: int, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.length = length
        self.position = 0

    def set(self, position: int) -> None:
        self.position = position
        self.refresh()

    def _bar_width(self) -> int:
        return max(4, self.size.width - 2)

    def render(self) -> Text:
        width = self._bar_width()
        filled = 0 if self.length == 0 else round(width * self.position / self.length)
        out = Text(no_wrap=True, overflow="ellipsis")
        label = f"action {self.position} of {self.length}"
        if len(label) > self.size.width:
            label = f"{self.position}/{self.length}"
        out.append(label + "\n", style="bold")
        out.append("━" * filled, style="bold #ffe14d")
        out.append("●" if filled < width else "", style="bold #ffe14d")
        out.append("─" * max(0, width - filled - 1), style="#6c7a89")
        return out

    def on_click(self, event: Click) -> None:
        if event.y >= 1 and self.length:
            x = min(max(event.x, 0), self._bar_width())
            self.post_message(self.Jump(round(x * self.length / self._bar_width())))


HELP = """\
←/→ n/p    one action
Shift+←/→  one turn (PgUp/PgDn)
Home/End   the start/the end
l the log · q quit · click: jump"""


class ReplayApp(App[None]):
    """The replay screen: see the module docstring."""

    TITLE = "Hexhaven replay"
    ENABLE_COMMAND_PALETTE = False
    CSS = (
        HexhavenApp.CSS
        + """
    #now { height: 1fr; min-height: 2; border-top: solid $panel-lighten-2; }
    #where { dock: bottom; height: auto; }
    #slider { border-top: solid $panel-lighten-2; height: 3; }
    #keys { height: auto; color: $text-muted; border-top: solid $panel-lighten-2; }
    .short #keys { display: none; }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,n", "step(1)", "next", priority=True),
        Binding("left,p", "step(-1)", "back", priority=True),
        Binding("shift+right,pagedown", "turn(1)", "next turn", priority=True),
        Binding("shift+left,pageup", "turn(-1)", "previous turn", priority=True),
        Binding("home", "go(0)", "start", priority=True),
        Binding("end", "go(-1)", "end", priority=True),
        Binding("l", "log", "log"),
        Binding("q", "quit", "quit"),
    ]

    def __init__(self, game: ReplayGame, position: int = 0) -> None:
        super().__init__()
        self.game = game
        self.position = max(0, min(position, game.length))
        record = game.record
        self.model = GameModel(
            game=record.game,
            seat=game.viewer,
            spectator=game.viewer is None,
            seed_hash=record.seed_hash,
            players=[
                m.PlayerInfo(seat=s.seat, name=s.name, bot=s.bot, connected=True, away=False)
                for s in sorted(record.seats, key=lambda s: s.seat)
            ],
            started=True,
        )
        self._logged = 0
        """The position the log under the board shows the lines up to."""

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        with Horizontal(id="body"):
            with Vertical(id="left"):
                yield BoardView(id="board")
                yield GameLog(id="log", wrap=True, markup=False, min_width=20)
            with Vertical(id="right"):
                yield PlayersPanel(id="players")
                yield HandPanel(id="hand")
                yield Static(id="now")
                with Vertical(id="where"):
                    yield Slider(self.game.length, id="slider")
                    yield Static(HELP, id="keys")
        yield Footer()

    def on_mount(self) -> None:
        self.show()

    def on_resize(self, event: Resize) -> None:
        self.screen.set_class(event.size.height < 30, "short")  # the footer has the keys
        self.query_one(BoardView).fit(event.size)  # doubled on a large screen

    # --- moving -------------------------------------------------------------------------------
    def go(self, position: int) -> None:
        """Show the game after ``position`` actions (clamped to the game)."""
        self.position = max(0, min(position, self.game.length))
        self.show()

    def action_step(self, delta: int) -> None:
        self.go(self.position + delta)

    def action_turn(self, direction: int) -> None:
        g = self.game
        self.go(g.next_turn(self.position) if direction > 0 else g.previous_turn(self.position))

    def action_go(self, position: int) -> None:
        self.go(self.game.length if position < 0 else position)

    def on_slider_jump(self, event: Slider.Jump) -> None:
        self.go(event.position)

    def action_log(self) -> None:
        if isinstance(self.screen, LogScreen):
            return
        lines = self.game.lines(0, self.position)
        self.push_screen(LogScreen(lines))

    # --- showing ------------------------------------------------------------------------------
    def show(self) -> None:
        g, k = self.game, self.position
        view = g.view(k)
        self.model.view = view
        self.query_one(BoardView).show(view)
        self.query_one(PlayersPanel).show(self.model)
        self.query_one(HandPanel).show(self.model, g.action_kinds(k))
        self.query_one(Slider).set(k)
        self._show_log()
        self._show_now()
        self._show_status(view)

    def _show_log(self) -> None:
        log = self.query_one("#log", GameLog)
        k = self.position
        if k >= self._logged and k - self._logged <= LOG_TAIL:
            new = self.game.lines(self._logged, k)
        else:
            log.restart()
            new = self.game.lines(0, k)[-LOG_TAIL:]
        for line in new:
            log.add(log_entry(line))
        self._logged = k

    def _show_now(self) -> None:
        g, k = self.game, self.position
        if k == 0:
            now = Text("The start: the board before the first placement.", style="dim")
            self.query_one("#now", Static).update(now)
            return
        step = g.steps[k - 1]
        head = Text(f"Action {k}: {self.model.name(step.seat)}", style="bold")
        self.query_one("#now", Static).update(Group(head, *map(log_entry, step.lines)))

    def _show_status(self, view: LiveView) -> None:
        g, k = self.game, self.position
        record = g.record
        out = Text(no_wrap=True, overflow="ellipsis")
        out.append("Replay ", style="bold")
        out.append(f" game {record.game}", style="dim")
        out.append(f"  action {k} of {g.length}", style="bold #ffe14d")
        out.append(f"  turn {view.turn}")
        if view.dice is not None:
            out.append(f"  rolled {sum(view.dice)}", style="bold")
        if k == g.length and record.winner is not None:
            out.append(f"  {self.model.name(record.winner)} won", style="bold #ffe14d")
        out.append(f"  {g.seed_check()}", style="dim")
        if g.viewer is None:
            out.append("  [spectator's view]", style="bold #35c3e0")
        else:
            out.append(f"  [{self.model.name(g.viewer)}'s view]", style="bold #35c3e0")
        self.query_one("#status", Static).update(out)
