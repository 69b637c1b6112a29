"""The terminal client: a Textual app that shows one game and plays one seat of it.

It is a client of the protocol only. What it shows comes from the server's views and
events (:mod:`clients.game`); what it offers is the prompt's list of legal actions,
grouped by kind, plus domestic offers and counter-offers, which the protocol lets a seat
make without listing them. Actions placed on the board are chosen on the map. The
connection (:class:`~clients.tui.link.Transport`) runs as a worker in the app's own event
loop, so nothing blocks it.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.events import Resize
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from clients.game import GameModel, LogLine, card_names
from clients.narrate import PlaceNames, plural
from clients.tui.board import SEAT_COLOURS
from clients.tui.dialogs import (
    CardDialog,
    ChoiceDialog,
    ConfirmScreen,
    GameOverScreen,
    HelpScreen,
    LogScreen,
    Side,
)
from clients.tui.link import SeatLost, Transport
from clients.tui.widgets import (
    COMPACT,
    BoardView,
    GameLog,
    HandPanel,
    PlayersPanel,
    fit_name,
    log_entry,
    ratios_text,
)
from protocol import messages as m
from protocol.payloads import (
    Cards,
    ConfirmTrade,
    CounterTrade,
    Discard,
    MaritimeTrade,
    MoveRobber,
    OfferTrade,
    PlayMonopoly,
    PlayYearOfPlenty,
    WireModel,
)

KIND_ORDER = (
    "roll_dice",
    "play_knight",
    "place_settlement",
    "place_road",
    "discard",
    "move_robber",
    "build_settlement",
    "build_city",
    "build_road",
    "buy_dev_card",
    "play_road_building",
    "play_year_of_plenty",
    "play_monopoly",
    "accept_trade",
    "counter_trade",
    "decline_trade",
    "confirm_trade",
    "cancel_trade",
    "maritime_trade",
    "offer_trade",
    "end_turn",
)
"""The order of the action list (``counter_trade`` and ``offer_trade`` are not listed by
prompts: they are offered when the prompt shows an offer can be answered or made)."""

PLACEMENTS: dict[str, tuple[str, str, str]] = {
    "place_settlement": ("vertex", "Place a settlement", "place"),
    "place_road": ("edge", "Place a road", "place"),
    "build_settlement": ("vertex", "Build a settlement", "place"),
    "build_city": ("vertex", "Build a city", "settlement"),
    "build_road": ("edge", "Build a road", "place"),
    "move_robber": ("hex", "Move the robber", "hex"),
}
"""Actions chosen on the map: what is picked, the label, and what the spots are called."""
SHORT_PLACEMENTS = {
    "place_settlement": "Settlement",
    "place_road": "Road",
    "build_settlement": "Settlement",
    "build_city": "City",
    "build_road": "Road",
    "move_robber": "Robber",
}
"""Their labels in few columns."""

ANSWER_MARKS = {"accepted": "✓ yes", "declined": "✗ no", "countered": "⇄ counter"}
"""An answer to an offer in a narrow hint (pending stays as it is)."""
FULL_KEYS = "arrows/Tab move · Enter choose · Esc back"
"""The picking hint's line of keys, where it fits (else shorter)."""
NARROW_HINT = 30
"""Below this many columns the hint, while a spot is picked, gives the spot and short keys
only (at 80 columns it has 16)."""
CONDITIONAL_KEYS = ("offer", "bank", "start", "end_turn")
"""The actions whose keys the footer shows only when they can do something."""


@dataclass(frozen=True)
class Choice:
    """One line of the action list."""

    label: str | Text
    run: Callable[[], None]
    kind: str
    short: str | None = None
    """The label in few columns (the action list narrower than :data:`COMPACT`)."""


def _spot_of(action: Any) -> int:
    for name in ("vertex", "edge", "hex"):
        if hasattr(action, name):
            value: int = getattr(action, name)
            return value
    raise ValueError(f"{action!r} is not placed on the board")


def swap_problem(sides: list[list[int]]) -> str | None:
    """What is wrong with a domestic offer or counter-offer of (give, get), as the server
    would refuse it; None when it may be sent."""
    give, get = sides
    if not any(give) or not any(get):
        return "choose cards to give and cards to get"
    if any(g and w for g, w in zip(give, get, strict=True)):
        return "a resource cannot be on both sides"
    return None


class HexhavenApp(App[None]):
    """See the module docstring. ``note`` is shown in the lobby (e.g. how friends join);
    ``back`` is the command that comes back to the seat, shown in the help."""

    TITLE = "Hexhaven"
    ENABLE_COMMAND_PALETTE = False
    CSS = """
    Screen { layout: vertical; }
    #status { height: 1; background: $panel; color: $text; padding: 0 1; }
    #banner { height: auto; background: #a01818; color: white; padding: 0 1; display: none; }
    #banner.shown { display: block; }
    #body { height: 1fr; }
    #left { width: 64; height: 1fr; }
    #board { margin: 0 1 0 0; }
    #log { height: 1fr; min-height: 3; border: none; background: $surface; scrollbar-size: 1 1;
           scrollbar-gutter: stable; }
    #right { width: 1fr; min-width: 16; height: 1fr; }
    #players { height: auto; }
    #hand { height: auto; border-top: solid $panel-lighten-2; }
    #hint { height: auto; max-height: 6; border-top: solid $panel-lighten-2; color: $text; }
    #hint.lobby { max-height: 100%; }
    #hint.picking { max-height: 8; }
    #actions { height: 1fr; border: none; padding: 0; scrollbar-size: 1 1; }
    #actions:focus { border: none; }
    #chat { dock: bottom; display: none; }
    #chat.shown { display: block; }
    .dialog { width: 64; max-width: 100%; height: auto; max-height: 100%; padding: 0 2;
              background: $panel; border: thick $accent; }
    .dialog.wide { width: 90; }
    .dialog.tall { height: 90%; }
    .dialog-title { margin-bottom: 1; }
    .dialog-note { margin-bottom: 1; color: $text-muted; }
    .dialog-keys { margin-top: 1; color: $text-muted; }
    #choices { height: auto; max-height: 16; }
    #full-log { height: 1fr; }
    ModalScreen { align: center middle; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "help"),
        Binding("t", "offer", "offer trade"),
        Binding("b", "bank", "bank trade"),
        Binding("c", "chat", "chat"),
        Binding("l", "log", "log"),
        Binding("s", "start", "start the game"),
        Binding("e", "end_turn", "end turn"),
        Binding("q", "quit_game", "quit"),
        *[Binding(str(k), f"number({k})", str(k), show=False) for k in range(1, 10)],
    ]

    def __init__(
        self,
        transport: Transport,
        *,
        note: str = "",
        host: bool = False,
        back: str | None = None,
    ) -> None:
        super().__init__()
        self.transport = transport
        self.model = GameModel()
        self.note = note
        self.host = host
        self.back = back
        self.choices: list[Choice] = []
        self._labels: list[str] = []
        self._footer_shows: tuple[bool | None, ...] | None = None
        """What :meth:`check_action` said of the footer's conditional keys when it was last
        rebuilt (each rebuild makes its key widgets anew)."""
        self._short = False
        self.sent_for: int | None = None
        """The state id of the prompt an action was sent for (nothing more is offered for
        it until the server answers)."""
        self.connection = "connecting"
        self.connection_note = ""
        self.picked: Callable[[int], None] | None = None
        self.shown_over = False
        self.failure: str | None = None
        self.waiting = False
        """Whether the hint says whom the game waits for (and how long, updated)."""
        self.asking: tuple[ModalScreen[Any], str] | None = None
        """The open dialog that will send an action, and the kind of action it needs."""

    # --- layout -------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(id="status")
        yield Static(id="banner")
        with Horizontal(id="body"):
            with Vertical(id="left"):
                yield BoardView(id="board")
                yield GameLog(id="log", wrap=True, markup=False, min_width=20)
            with Vertical(id="right"):
                yield PlayersPanel(id="players")
                yield HandPanel(id="hand")
                yield Static(id="hint")
                yield OptionList(id="actions")
        yield Input(placeholder="say something to the table (Enter sends, Esc closes)", id="chat")
        yield Footer()

    def on_mount(self) -> None:
        self.run_worker(self._connect(), name="link", exclusive=True)
        self.set_interval(1.0, self._tick)
        self.query_one("#actions", OptionList).focus()
        if self.note:
            self.say("info", " ".join(self.note.split()))  # one line to copy, at any width
        self.refresh_all()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer shows the keys that can do something (:data:`CONDITIONAL_KEYS`): the
        trade keys to a seated player in a game under way, the start key to the host in the
        lobby, the end of the turn when it is offered."""
        model = self.model
        if action in ("offer", "bank"):
            return not model.spectator and model.started and model.over is None
        if action == "start":
            return (self.host or model.may_start) and not model.started
        if action == "end_turn":
            return bool(self.current_actions("end_turn"))
        return True

    def on_resize(self, event: Resize) -> None:
        self.query_one(BoardView).fit(event.size)  # doubled on a large screen
        self.call_after_refresh(self.refresh_hint)  # its wording depends on its width
        self.call_after_refresh(self._show_choices)  # and the action list's

    async def _connect(self) -> None:
        try:
            await self.transport.run(self._quietly(self.deliver), self._quietly(self.on_status))
        except SeatLost as exc:
            self.failure = exc.error.message
            self._quietly(self._show_failure)("the server refused", "The server refused the seat")
        except Exception as exc:
            self.failure = str(exc) or type(exc).__name__
            self._quietly(self._show_failure)("cannot reach the server", "Cannot reach the server")

    def _show_failure(self, logged: str, banner: str) -> None:
        self.say("error", f"{logged}: {self.failure}")
        self.set_banner(f"{banner}: {self.failure}")

    def _quietly(self, show: Callable[..., None]) -> Callable[..., None]:
        """Wrap a transport callback: while the app closes its widgets go away, and a
        message arriving then is dropped instead of failing the link's worker."""

        def call(*args: Any) -> None:
            try:
                show(*args)
            except NoMatches:
                if self.is_running:  # a missing widget in a running app is a bug
                    raise

        return call

    # --- messages from the server --------------------------------------------------------------
    def deliver(self, message: Any) -> None:
        """Fold in one server message and show the result."""
        lines = self.model.handle(message)
        if isinstance(message, m.Error):
            self.sent_for = None
            if message.code in (m.ErrorCode.STALE_STATE, m.ErrorCode.ILLEGAL_ACTION):
                self.notify(message.message, severity="warning", timeout=4)
        if isinstance(message, m.Events | m.Prompt | m.GameView) and self.sent_for is not None:
            prompt = self.model.prompt
            if prompt is None or prompt.state_id != self.sent_for:
                self.sent_for = None
        self.write_log(lines)
        self.refresh_all()
        if isinstance(message, m.GameOver):
            self.show_game_over()

    def on_status(self, state: str, note: str) -> None:
        was = self.connection
        self.connection, self.connection_note = state, note
        if state == "lost":
            if self.model.spectator:
                self.set_banner(f"Connection lost: {note}. Reconnecting…")
            else:
                self.set_banner(f"Connection lost: {note}. Your seat is kept; rejoining…")
        else:
            self.set_banner(None)
            if was == "lost":
                self.say(
                    "info", "reconnected" + ("" if self.model.spectator else ": back in your seat")
                )
        self.refresh_status()

    def set_banner(self, text: str | None) -> None:
        banner = self.query_one("#banner", Static)
        banner.update(text or "")
        banner.set_class(text is not None, "shown")

    def say(self, kind: str, text: str) -> None:
        """Add a line of the client's own to the game log."""
        line = LogLine(kind, text)
        self.model.log.append(line)
        self.write_log([line])

    def write_log(self, lines: Sequence[LogLine]) -> None:
        log = self.query_one("#log", GameLog)
        for line in lines:
            log.add(log_entry(line))

    # --- showing ---------------------------------------------------------------------------
    def refresh_all(self) -> None:
        model = self.model
        self._close_stale_dialog()
        board = self.query_one(BoardView)
        board.show(model.view)
        if board.picking and not self._still_prompted():
            self.stop_picking()
        before = self._labels
        self.choices = self.build_choices()
        self._show_choices()
        if self._labels != before:
            self._auto_open()
        kinds = {c.kind for c in self.choices}
        footer = tuple(self.check_action(a, ()) for a in CONDITIONAL_KEYS)
        if footer != self._footer_shows:  # the footer's keys (see check_action) changed
            self._footer_shows = footer
            self.refresh_bindings()
        self.query_one(PlayersPanel).show(model)
        self.query_one(HandPanel).show(model, kinds)
        self.refresh_hint()
        self.refresh_status()

    def _auto_open(self) -> None:
        """A prompt with one thing to do, placed on the board (the set-up's road, the
        robber) or a discard, opens it at once."""
        if len(self.choices) != 1 or isinstance(self.screen, HexhavenScreenTypes):
            return
        kind = self.choices[0].kind
        if kind in PLACEMENTS or kind == "discard":
            self.call_later(self._open_alone, kind)

    def _open_alone(self, kind: str) -> None:
        """Open the one thing to do if it still is: the messages that came after its
        prompt may have answered it (the server plays an away seat), or ended the game."""
        if isinstance(self.screen, HexhavenScreenTypes):
            return
        if [c.kind for c in self.choices] == [kind]:
            self.choices[0].run()

    def _still_prompted(self) -> bool:
        return self.model.prompt is not None and self.sent_for is None

    def _show_choices(self) -> None:
        """Show the choices in the action list (their short labels in few columns)."""
        actions = self.query_one("#actions", OptionList)
        labels = [str(c.label) for c in self.choices]
        short = 0 < actions.size.width < COMPACT
        if labels == self._labels and short == self._short:
            return
        same = labels == self._labels
        self._labels, self._short = labels, short
        highlighted = actions.highlighted
        actions.clear_options()
        options = []
        for i, c in enumerate(self.choices):
            label = Text(f"{i + 1} " if i < 9 else "  ", style="dim")
            shown = c.short if short and c.short else c.label
            label.append_text(shown if isinstance(shown, Text) else Text(shown))
            options.append(Option(label, id=str(i)))
        actions.add_options(options)
        if options:
            actions.highlighted = highlighted if same and highlighted is not None else 0

    def refresh_status(self) -> None:
        model = self.model
        v = model.view
        out = Text(no_wrap=True, overflow="ellipsis")
        out.append("Hexhaven ", style="bold")
        # What must not be cut off on a narrow screen comes first; the game id last.
        if self.connection == "lost":
            out.append("  [offline]", style="bold #ff4040")
        left = model.deadline_left()
        if left is not None and self._still_prompted():
            out.append(f"  ⏱ {left:.0f} s", style="bold #ff9d1a")
        if model.spectator:
            out.append("  [watching]", style="bold #35c3e0")
        if v is not None and model.started:
            out.append(f"  turn {v.turn}")
            if v.dice is not None:
                out.append(f"  rolled {sum(v.dice)}", style="bold")
                out.append(f" ({v.dice[0]}+{v.dice[1]})", style="dim")
            acting = [q for q in v.to_act if q < v.players]
            if acting and v.winner is None:
                names = ", ".join("you" if q == model.seat else model.name(q) for q in acting)
                out.append(f"  to act: {names}", style="bold #ffe14d")
            out.append(f"  first to {v.victory_points}", style="dim")
        elif not model.started:
            out.append("  waiting to start", style="bold #ffe14d")
        out.append("  ? help", style="dim")
        if model.game:
            out.append(f"  game {model.game}", style="dim")
        self.query_one("#status", Static).update(out)

    def refresh_hint(self) -> None:
        """What the player should know now: the spot being chosen, the open offer, the
        lobby, or whose turn it is."""
        model, v = self.model, self.model.view
        out = Text()
        board = self.query_one(BoardView)
        self.waiting = False
        if board.picking and v is not None and board.current is not None:
            places = PlaceNames(v.radius, v.terrain, v.tokens, v.harbours, v.harbour_layout)
            where = {"vertex": places.vertex, "edge": places.edge, "hex": places.hex}[board.kind]
            spot = where(board.current)
            if board.kind == "hex":
                spot += self._victims_at(board.current)
            which = f"{board.index + 1} of {len(board.spots)}"
            width = self.query_one("#hint").content_size.width or len(FULL_KEYS)
            if self._narrow_hint():
                # The action list names what is placed; the spot and the keys come first.
                out.append(spot + "\n", style="bold #ffe14d")
                out.append(f"{which} · Tab, Enter, Esc", style="dim")
            else:
                out.append(f"{self._pick_label} ", style="bold")
                out.append(f"({which})\n", style="dim")
                out.append(spot + "\n", style="bold #ffe14d")
                keys = FULL_KEYS
                if width < len(FULL_KEYS):
                    keys = "Tab · Enter choose · Esc back"
                out.append(keys, style="dim")
        elif model.over is not None:
            out.append("The game is over. ", style="bold")
            out.append("q quit", style="dim")
        elif not model.started:
            seated = len(model.players)
            total = v.players if v is not None else "?"
            out.append(f"Waiting to start: {seated} of {total} seats taken.\n", style="bold")
            if self.note:
                out.append(self.note + "\n")
            if self.host or model.may_start:
                out.append(
                    "Press s to start (the seats still empty go to the game's bots).",
                    style="#ffe14d",
                )
            else:
                out.append("The host starts the game.", style="dim")
        elif v is not None and v.trade is not None and self._narrow_hint():
            t = v.trade  # in a few short lines: the swap, then a mark per answer
            out.append(f"{card_names(t.give)} → {card_names(t.get)}", style="bold")
            for q, a in enumerate(t.answers):
                if a != "not_asked" and q != t.offerer:
                    name = "you" if q == model.seat else fit_name(model.name(q), 9)
                    out.append(f"\n{name} {ANSWER_MARKS.get(a, a)}")
        elif v is not None and v.trade is not None:
            t = v.trade
            who = "You offer" if t.offerer == model.seat else f"{model.name(t.offerer)} offers"
            asked = [q for q, a in enumerate(t.answers) if a != "not_asked" and q != t.offerer]
            if len(asked) < v.players - 1:
                who_to = " to " + ", ".join(
                    "you" if q == model.seat else model.name(q) for q in asked
                )
            else:
                who_to = ""
            out.append(
                f"{who} {card_names(t.give)} for {card_names(t.get)}{who_to}\n", style="bold"
            )
            answers = []
            for q, a in enumerate(t.answers):
                if a == "not_asked" or q == t.offerer:
                    continue
                name = "you" if q == model.seat else model.name(q)
                text = f"{name}: {a}"
                counter = t.counters[q]
                if a == "countered" and counter is not None:
                    text += f" (gives {card_names(counter[0])} for {card_names(counter[1])})"
                answers.append(text)
            out.append("; ".join(answers))
            lefts = [model.time_left(q) for q, a in enumerate(t.answers) if a == "pending"]
            left = max((x for x in lefts if x is not None), default=None)
            if left is not None:  # the seats asked have the offer's window to answer
                out.append(f"\ncloses in {math.ceil(left)} s", style="dim")
        elif model.spectator:
            out.append("You are watching this game.", style="dim")
        elif model.prompt is None or self.sent_for is not None:
            if v is not None and v.to_act:
                names = ", ".join(model.name(q) for q in v.to_act if q != model.seat)
                out.append(f"Waiting for {names or 'the server'}…", style="dim")
                self.waiting = True
                waited = int(model.waited())
                if waited >= 1:
                    out.append(f" {waited} s", style="bold")
        else:
            out.append("Your move", style="bold #ffe14d")
            if not self._narrow_hint():
                out.append(" (↑/↓ Enter, or 1-9)", style="dim")
        hint = self.query_one("#hint", Static)
        hint.set_class(not model.started, "lobby")  # the invite, whole even in 80 columns
        hint.set_class(board.picking, "picking")  # the list below is not in use meanwhile
        hint.update(out)

    def _tick(self) -> None:
        """Once a second: the clocks, and how long the game has waited. Nothing once the
        game's widgets are gone (a tick may still come while the app closes, as they go)."""
        if not self.query(BoardView):
            return
        try:
            if self.model.deadline_left() is not None or self.model.clock:
                self.refresh_status()
                self.query_one(PlayersPanel).redraw()
            if self.waiting:
                self.refresh_hint()  # how long it has waited
        except NoMatches:  # the screen is being taken down: some widgets are gone already
            return

    # --- the action list --------------------------------------------------------------------
    def build_choices(self) -> list[Choice]:
        """The prompt's legal actions, grouped by kind, in :data:`KIND_ORDER`."""
        prompt, v, model = self.model.prompt, self.model.view, self.model
        if prompt is None or v is None or self.sent_for is not None or model.over is not None:
            return []
        by_kind: dict[str, list[Any]] = {}
        for a in prompt.actions:
            by_kind.setdefault(a.kind, []).append(a)
        if "end_turn" in by_kind:
            by_kind["offer_trade"] = []  # the main phase: offers may be made
        if "decline_trade" in by_kind:
            by_kind["counter_trade"] = []  # asked: a counter-offer may be made
        out: list[Choice] = []
        for kind in KIND_ORDER:
            if kind not in by_kind:
                continue
            acts = by_kind[kind]
            out.extend(self._choices_for(kind, acts))
        return out

    def _choices_for(self, kind: str, acts: list[Any]) -> list[Choice]:
        v = self.model.view
        assert v is not None
        if kind in PLACEMENTS:
            what, label, _ = PLACEMENTS[kind]
            if kind == "build_road" and v.phase == "road_building":
                label = "Build a free road"
            spots = sorted({_spot_of(a) for a in acts})
            count = plural(len(spots), "place" if what != "hex" else "hex")
            if what == "hex":
                count = plural(len(spots), "hex").replace("hexs", "hexes")
            short = SHORT_PLACEMENTS[kind]
            if kind == "build_road" and v.phase == "road_building":
                short = "Free road"
            run = partial(self.start_picking, kind, acts)
            return [Choice(f"{label} ({count})…", run, kind, f"{short} ({len(spots)})…")]
        match kind:
            case "roll_dice":
                return [Choice("Roll the dice", lambda: self.act(acts[0]), kind)]
            case "play_knight":
                label = "Play a knight (move the robber)"
                return [Choice(label, lambda: self.act(acts[0]), kind, "Play knight")]
            case "buy_dev_card":
                label = "Buy a development card"
                return [Choice(label, lambda: self.act(acts[0]), kind, "Buy dev card")]
            case "play_road_building":
                label = "Play road building"
                return [Choice(label, lambda: self.act(acts[0]), kind, "Road building")]
            case "play_year_of_plenty":
                run = partial(self.year_of_plenty, acts)
                return [Choice("Play year of plenty…", run, kind, "Year of plenty…")]
            case "play_monopoly":
                run = partial(self.monopoly, acts)
                return [Choice("Play monopoly…", run, kind, "Monopoly…")]
            case "discard":
                owed = self.discard_owed()
                if not owed:
                    return []  # answered meanwhile: the events came before a new prompt
                label = f"Discard {plural(owed, 'card')}…"
                return [Choice(label, lambda: self.discard(), kind, f"Discard {owed}…")]
            case "maritime_trade":
                run = partial(self.bank_trade, acts)
                return [Choice("Trade with the bank…", run, kind, "Bank trade…")]
            case "offer_trade":
                return [Choice("Offer a trade to the players…", self.offer, kind, "Offer trade…")]
            case "accept_trade":
                t = v.trade
                label = "Accept the offer"
                if t is not None:
                    label += f": give {card_names(t.get)}, get {card_names(t.give)}"
                return [Choice(label, lambda: self.act(acts[0]), kind)]
            case "decline_trade":
                return [Choice("Decline the offer", lambda: self.act(acts[0]), kind, "Decline")]
            case "counter_trade":
                return [Choice("Counter-offer…", lambda: self.counter(), kind)]
            case "confirm_trade":
                out = []
                for a in acts:
                    out.append(Choice(self._confirm_label(a), partial(self.act, a), kind))
                return out
            case "cancel_trade":
                return [
                    Choice("Cancel your offer", lambda: self.act(acts[0]), kind, "Cancel offer")
                ]
            case "end_turn":
                return [Choice("End the turn", lambda: self.act(acts[0]), kind, "End turn")]
        return [Choice(kind.replace("_", " "), lambda: self.act(acts[0]), kind)]

    def _confirm_label(self, action: ConfirmTrade) -> str:
        v = self.model.view
        name = self.model.name(action.partner)
        if v is None or v.trade is None:
            return f"Trade with {name}"
        t = v.trade
        give, get = t.give, t.get
        counter = t.counters[action.partner]
        if t.answers[action.partner] == "countered" and counter is not None:
            give, get = counter[1], counter[0]
        return f"Trade with {name}: give {card_names(give)}, get {card_names(get)}"

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id != "actions":
            return
        event.stop()
        index = event.option_index
        if 0 <= index < len(self.choices):
            self.choices[index].run()

    def action_number(self, n: int) -> None:
        if isinstance(self.screen, HexhavenScreenTypes) or self.query_one(BoardView).picking:
            return
        if self.query_one("#chat", Input).has_focus:
            return
        if 0 < n <= len(self.choices):
            self.choices[n - 1].run()

    # --- acting -----------------------------------------------------------------------------
    def act(self, action: Any) -> None:
        """Send an action for the current prompt."""
        prompt, game = self.model.prompt, self.model.game
        if prompt is None or game is None or self.sent_for is not None:
            self.notify("Not now: it is not your move.", severity="warning", timeout=3)
            return
        self.sent_for = prompt.state_id
        self.stop_picking()
        message = m.Act(game=game, state_id=prompt.state_id, action=action)
        self.run_worker(self._send(message), group="send")
        self.refresh_all()

    async def _send(self, message: WireModel) -> None:
        if not await self.transport.send(message):
            self.sent_for = None
            self.notify("Not sent: the connection is down.", severity="error", timeout=4)
            self.refresh_all()

    def current_actions(self, kind: str) -> list[Any]:
        """The current prompt's actions of a kind (the prompt may have changed while a
        dialog was open)."""
        prompt = self.model.prompt
        if prompt is None or self.sent_for is not None:
            return []
        return [a for a in prompt.actions if a.kind == kind]

    # --- picking on the board ----------------------------------------------------------------
    _pick_label = ""

    def start_picking(self, kind: str, acts: list[Any]) -> None:
        what, label, _ = PLACEMENTS[kind]
        self._pick_label = label
        board = self.query_one(BoardView)
        spots = sorted({_spot_of(a) for a in acts})

        def chosen(spot: int) -> None:
            current = [a for a in self.current_actions(kind) if _spot_of(a) == spot]
            if not current:
                self.notify("That is no longer possible.", severity="warning")
                self.stop_picking()
                return
            if kind == "move_robber":
                self.choose_victim(current)
            else:
                self.act(current[0])

        self.picked = chosen
        board.pick(what, spots)
        self.refresh_hint()

    def stop_picking(self) -> None:
        board = self.query_one(BoardView)
        if board.picking:
            board.stop()
            self.picked = None
            self.query_one("#actions", OptionList).focus()
            self.refresh_hint()

    def on_board_view_chosen(self, event: BoardView.Chosen) -> None:
        if self.picked is not None:
            self.picked(event.spot)

    def on_board_view_cancelled(self, event: BoardView.Cancelled) -> None:
        self.stop_picking()

    def on_board_view_moved(self, event: BoardView.Moved) -> None:
        self.refresh_hint()

    def _narrow_hint(self) -> bool:
        """Whether the hint is too narrow for its sentences (16 columns at 80x24)."""
        return 0 < self.query_one("#hint").content_size.width < NARROW_HINT

    def _victims_at(self, hex_id: int) -> str:
        """Whom the robber could rob on a hex: ``" · rob Bo or Cy"``."""
        victims = [
            a.victim
            for a in self.current_actions("move_robber")
            if a.hex == hex_id and a.victim is not None
        ]
        if not victims:
            return " · nobody to rob"
        return " · rob " + " or ".join(self.model.name(q) for q in victims)

    def choose_victim(self, moves: list[MoveRobber]) -> None:
        if len(moves) == 1:
            self.act(moves[0])
            return
        v = self.model.view
        assert v is not None
        labels = []
        for a in moves:
            if a.victim is None:
                labels.append(Text("Rob nobody"))
                continue
            label = Text("██ ", style=SEAT_COLOURS[a.victim % 4])
            cards = plural(v.seats[a.victim].cards, "card")
            label.append(f"Rob {self.model.name(a.victim)} ({cards})")
            labels.append(label)

        def done(index: int | None) -> None:
            if index is not None:
                self.act(moves[index])

        self.ask(ChoiceDialog("Whom to rob?", "", labels), "move_robber", done)

    # --- dialogs ---------------------------------------------------------------------------
    def discard_owed(self) -> int:
        """How many cards this seat still owes to a seven: 0 when none, when the game is
        over, or when the last prompt has no discard in it."""
        model, v = self.model, self.model.view
        if model.over is not None or v is None or v.seat is None or v.hand is None:
            return 0
        prompt = model.prompt
        if prompt is not None and not any(a.kind == "discard" for a in prompt.actions):
            return 0
        return v.seats[v.seat].discards_owed

    def ask(self, dialog: ModalScreen[Any], kind: str, done: Callable[[Any], None]) -> None:
        """Open a dialog that ends in an action of ``kind``; it closes by itself once this
        seat is no longer asked for one (see :meth:`_close_stale_dialog`)."""

        def finish(result: Any) -> None:
            if self.asking is not None and self.asking[0] is dialog:
                self.asking = None
            done(result)

        self.asking = (dialog, kind)
        self.push_screen(dialog, finish)

    def _still_asked(self, kind: str) -> bool:
        """Whether this seat may still send an action of ``kind``: the game goes on, the
        seat is among those to act, and the last prompt (if its successor has not come
        yet, the one before) has such an action."""
        model, v = self.model, self.model.view
        if model.over is not None or v is None or v.seat is None or v.seat not in v.to_act:
            return False
        if kind == "discard" and not self.discard_owed():
            return False
        prompt = model.prompt
        return prompt is None or any(a.kind == kind for a in prompt.actions)

    def _close_stale_dialog(self) -> None:
        """Close the open dialog once the game has moved past it (the turn timer ran out
        and the server acted for this seat, the offer was withdrawn, the game ended); the
        choice made so far is dropped."""
        if self.asking is None:
            return
        dialog, kind = self.asking
        if self._still_asked(kind):
            return
        self.asking = None
        if self.screen is dialog:
            dialog.dismiss(None)
            if self.model.over is None:
                said = "The game moved on."
                if kind == "discard":
                    said = "The discard was made for you."
                self.notify(said, timeout=4)

    def discard(self) -> None:
        """Open the discard dialog, if this seat owes cards and is prompted to give them."""
        v = self.model.view
        owed = self.discard_owed()
        if v is None or v.hand is None or not owed or not self.current_actions("discard"):
            return
        if isinstance(self.screen, HexhavenScreenTypes):
            return
        hand = tuple(v.hand)

        def check(sides: list[list[int]]) -> str | None:
            chosen = sum(sides[0])
            if chosen != owed:
                return f"choose {owed} cards: {chosen} chosen"
            return None

        def done(sides: list[list[int]] | None) -> None:
            if sides is None:
                return
            if self.current_actions("discard"):
                self.act(Discard(cards=Cards.of(sides[0])))
            else:
                self.notify("Not sent: the game moved on. Choose again.", severity="warning")

        note = f"A seven: give back {plural(owed, 'card')} of your {sum(hand)}."
        dialog = CardDialog(
            f"Discard {plural(owed, 'card')}",
            note,
            [Side("You give back", hand)],
            check,
            confirm="discard",
        )
        self.ask(dialog, "discard", done)

    def year_of_plenty(self, acts: list[PlayYearOfPlenty]) -> None:
        options = {a.cards.counts() for a in acts}
        v = self.model.view
        bank = tuple(v.bank) if v is not None else (19,) * 5
        take = sum(next(iter(options)))

        def check(sides: list[list[int]]) -> str | None:
            if tuple(sides[0]) in options:
                return None
            return f"choose {plural(take, 'card')} the bank has"

        def done(sides: list[list[int]] | None) -> None:
            if sides is None:
                return
            for a in self.current_actions("play_year_of_plenty"):
                if list(a.cards.counts()) == sides[0]:
                    self.act(a)
                    return

        dialog = CardDialog(
            "Year of plenty",
            f"Take {plural(take, 'card')} from the bank.",
            [Side("You take", tuple(min(2, b) for b in bank), held="at most")],
            check,
            confirm="take them",
        )
        self.ask(dialog, "play_year_of_plenty", done)

    def monopoly(self, acts: list[PlayMonopoly]) -> None:
        def done(index: int | None) -> None:
            if index is not None:
                self.act(acts[index])

        labels = [f"All the {a.resource} of the others" for a in acts]
        self.ask(ChoiceDialog("Monopoly: which resource?", "", labels), "play_monopoly", done)

    def bank_trade(self, acts: list[MaritimeTrade]) -> None:
        v = self.model.view
        note = ""
        if v is not None and v.ratios is not None:
            note = "Your ratios: " + ratios_text(v.ratios)
        labels = [f"Give {a.ratio} {a.give}, get 1 {a.get}" for a in acts]

        def done(index: int | None) -> None:
            if index is not None:
                self.act(acts[index])

        self.ask(ChoiceDialog("Trade with the bank", note, labels), "maritime_trade", done)

    def action_bank(self) -> None:
        if isinstance(self.screen, HexhavenScreenTypes):
            return
        acts = self.current_actions("maritime_trade")
        if acts:
            self.bank_trade(acts)
        elif self.current_actions("end_turn"):
            self.notify("No bank trade now: it takes 4 of one resource (fewer at a harbour).")
        else:
            self.notify(self._why_no_trade())

    def _why_no_trade(self) -> str:
        """Why this seat cannot trade now, in the words of what comes first."""
        v, seat = self.model.view, self.model.seat
        if v is None or seat is None or v.phase == "game_over":
            return "There is no trading now."
        if v.phase.startswith("setup"):
            return "Trades start after the set-up."
        if v.current != seat:
            return "Trades are made in your turn, after the roll."
        return {
            "pre_roll": "Roll first: trades come after the roll.",
            "discard": "The discards come first; trades come after.",
            "move_robber": "Move the robber first; trades come after.",
            "road_building": "Place your free roads first; trades come after.",
            "trade": "Your offer is open: trade with one who accepted, or cancel it.",
        }.get(v.phase, "Trades are made in your turn, after the roll.")

    def offer(self) -> None:
        v = self.model.view
        if v is None or v.hand is None:
            return
        hand = tuple(v.hand)

        def done(sides: list[list[int]] | None) -> None:
            if sides is None:
                return
            if not self.current_actions("end_turn"):
                self.notify(self._why_no_trade(), severity="warning")
                return
            give, get = Cards.of(sides[0]), Cards.of(sides[1])
            self.act(OfferTrade(give=give, get=get, to=dialog.to))

        others = [(q, self.model.name(q)) for q in range(v.players) if q != v.seat]
        dialog = CardDialog(
            "Offer a trade",
            "Those asked answer; then you trade with one, or cancel.",
            [Side("You give", hand), Side("You get", (19,) * 5)],
            swap_problem,
            confirm="offer",
            recipients=others,
        )
        self.ask(dialog, "end_turn", done)

    def action_offer(self) -> None:
        if isinstance(self.screen, HexhavenScreenTypes):
            return
        if self.current_actions("end_turn"):
            self.offer()
        else:
            self.notify(self._why_no_trade())

    def counter(self) -> None:
        v = self.model.view
        if v is None or v.hand is None or v.trade is None:
            return
        t = v.trade
        hand = tuple(v.hand)

        def done(sides: list[list[int]] | None) -> None:
            if sides is None or not self.current_actions("decline_trade"):
                return
            self.act(CounterTrade(give=Cards.of(sides[0]), get=Cards.of(sides[1])))

        offerer = self.model.name(t.offerer)
        dialog = CardDialog(
            f"Counter {offerer}'s offer",
            f"{offerer} offers {card_names(t.give)} for {card_names(t.get)}.",
            [Side("You give", hand), Side("You get", (19,) * 5)],
            swap_problem,
            initial=[[min(a, b) for a, b in zip(t.get, hand, strict=True)], list(t.give)],
            confirm="counter",
        )
        self.ask(dialog, "decline_trade", done)

    # --- other keys ---------------------------------------------------------------------------
    def action_help(self) -> None:
        if not isinstance(self.screen, HexhavenScreenTypes):
            self.push_screen(HelpScreen(None if self.model.spectator else self.back))

    def action_log(self) -> None:
        if not isinstance(self.screen, HexhavenScreenTypes):
            self.push_screen(LogScreen(self.model.log))

    def action_chat(self) -> None:
        if self.model.game is None:
            return
        chat = self.query_one("#chat", Input)
        chat.add_class("shown")
        chat.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        event.input.value = ""
        event.input.remove_class("shown")
        self.query_one("#actions", OptionList).focus()
        if text and self.model.game is not None:
            self.run_worker(self._send(m.Chat(game=self.model.game, text=text[:500])))

    def on_key(self, event: Any) -> None:
        chat = self.query_one("#chat", Input)
        if event.key == "escape" and chat.has_focus:
            chat.value = ""
            chat.remove_class("shown")
            self.query_one("#actions", OptionList).focus()
            event.stop()

    def action_end_turn(self) -> None:
        """End the turn, when the prompt lets this seat (the footer shows the key then)."""
        if isinstance(self.screen, HexhavenScreenTypes) or self.query_one(BoardView).picking:
            return
        acts = self.current_actions("end_turn")
        if acts:
            self.act(acts[0])

    def action_start(self) -> None:
        host = self.host or self.model.may_start
        if host and not self.model.started and self.model.game is not None:
            self.run_worker(self._send(m.StartGame(game=self.model.game)))

    def action_quit_game(self) -> None:
        if self.model.over is not None or self.failure is not None:
            self.exit()
            return

        def done(yes: bool | None) -> None:
            if yes:
                self.exit()

        if self.model.spectator:
            question = "Stop watching this game?"
        else:
            question = "Leave the game? Your seat is kept for you."
        self.push_screen(ConfirmScreen(question), done)

    def show_game_over(self) -> None:
        over = self.model.over
        if over is None or self.shown_over:
            return
        self.shown_over = True
        v = self.model.view

        def done(quit_app: bool | None) -> None:
            if quit_app:
                self.exit()

        screen = GameOverScreen(
            self.model.names(),
            over.points,
            over.winner,
            self.model.seat,
            over.seed,
            self.model.seed_hash,
            v.victory_cards if v is not None else None,
        )
        with contextlib.suppress(Exception):
            while isinstance(self.screen, HexhavenScreenTypes):
                self.pop_screen()
        self.push_screen(screen, done)


HexhavenScreenTypes = (
    CardDialog,
    ChoiceDialog,
    HelpScreen,
    LogScreen,
    ConfirmScreen,
    GameOverScreen,
)
"""The app's modal screens: while one is up, the main screen's keys do nothing."""
