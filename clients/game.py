"""One client-side model of a seat's game, from the server's messages alone.

The server says in every ``view`` and, for a client that asks for ``event_views`` in its
hello, in every ``events`` message what the game looks like to this seat (or to the
spectators) now. :class:`LiveView` is that view in the forms the displays use: the terminal
UI, the MCP seat and the demonstration draw and describe it; nothing here works out what an
event changed. :class:`GameModel` folds every server message in: the view, the players, the
prompt to answer, the clocks, the game log (events told as sentences) and the chat. Nothing
here decides what is legal either: that is the prompt's list.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from clients.narrate import Discarding, PlaceNames, TableNarrator, cards_text
from engine import events as ev
from engine.constants import HARBOUR_LAYOUT
from protocol import messages as m
from protocol.payloads import (
    DEV_CARD_NAMES,
    RESOURCE_NAMES,
    DevCards,
    ViewPayload,
    event_to_engine,
)


def _dev_list(cards: DevCards | None) -> list[int] | None:
    if cards is None:
        return None
    return [getattr(cards, name) for name in DEV_CARD_NAMES]


@dataclass
class SeatLive:
    """What everyone sees of one seat, kept up to date."""

    seat: int
    points: int
    cards: int
    dev_cards: int
    knights: int
    roads_left: int
    settlements_left: int
    cities_left: int
    road_length: int
    longest_road: bool
    largest_army: bool
    discards_owed: int


@dataclass
class TradeLive:
    """The open domestic offer: the offerer's terms and each seat's answer (``not_asked``,
    ``pending``, ``accepted``, ``declined``, ``countered``)."""

    offerer: int
    give: list[int]
    get: list[int]
    answers: list[str]
    counters: list[tuple[list[int], list[int]] | None]


@dataclass
class LiveView:
    """The game as this client's seat (or a spectator) sees it, from the server's view of
    one state (:meth:`from_payload`), in the forms the displays use."""

    seat: int | None
    state_id: int
    players: int
    victory_points: int
    radius: int
    terrain: list[str]
    tokens: list[int]
    harbours: list[str]
    phase: str
    turn: int
    current: int
    to_act: list[int]
    dice: tuple[int, int] | None
    robber: int
    settlements: dict[int, int]
    cities: dict[int, int]
    roads: dict[int, int]
    bank: list[int]
    deck: int
    dev_card_played: bool
    free_roads: int
    seats: list[SeatLive]
    trade: TradeLive | None
    winner: int | None
    hand: list[int] | None
    development: list[int] | None
    """Every development card held, those bought this turn included."""
    development_new: list[int] | None
    own_points: int | None
    ratios: list[int] | None
    final_points: list[int] | None = None
    victory_cards: list[int] | None = None
    harbour_layout: int = HARBOUR_LAYOUT

    @classmethod
    def from_payload(cls, v: ViewPayload) -> LiveView:
        trade = None
        if v.trade is not None:
            t = v.trade
            trade = TradeLive(
                offerer=t.offerer,
                give=list(t.give.counts()),
                get=list(t.get.counts()),
                answers=list(t.answers),
                counters=[
                    None if c is None else (list(c.give.counts()), list(c.get.counts()))
                    for c in t.counters
                ],
            )
        return cls(
            seat=v.seat,
            state_id=v.state_id,
            players=v.players,
            victory_points=v.victory_points,
            radius=v.board.radius,
            terrain=list(v.board.terrain),
            tokens=list(v.board.tokens),
            harbours=list(v.board.harbours),
            phase=v.phase,
            turn=v.turn,
            current=v.current,
            to_act=list(v.to_act),
            dice=None if v.dice is None else (v.dice[0], v.dice[1]),
            robber=v.robber,
            settlements={x[0]: x[1] for x in v.settlements},
            cities={x[0]: x[1] for x in v.cities},
            roads={x[0]: x[1] for x in v.roads},
            bank=list(v.bank.counts()),
            deck=v.development_deck,
            dev_card_played=v.dev_card_played,
            free_roads=v.free_roads,
            seats=[
                SeatLive(
                    seat=p.seat,
                    points=p.points,
                    cards=p.resource_cards,
                    dev_cards=p.development_cards,
                    knights=p.knights,
                    roads_left=p.roads_left,
                    settlements_left=p.settlements_left,
                    cities_left=p.cities_left,
                    road_length=p.longest_road,
                    longest_road=p.has_longest_road,
                    largest_army=p.has_largest_army,
                    discards_owed=p.discards_owed,
                )
                for p in v.seats
            ],
            trade=trade,
            winner=v.winner,
            hand=None if v.hand is None else list(v.hand.counts()),
            development=_dev_list(v.development),
            development_new=_dev_list(v.development_new),
            own_points=v.own_points,
            ratios=None if v.trade_ratios is None else list(v.trade_ratios.counts()),
            final_points=None if v.final_points is None else list(v.final_points),
            victory_cards=None if v.victory_cards is None else list(v.victory_cards),
            harbour_layout=v.board.harbour_layout,
        )


# ======================================================================================
# The model
# ======================================================================================


@dataclass
class LogLine:
    """A line of the game log: ``kind`` is ``event``, ``turn``, ``chat``, ``you`` (about
    this seat), ``error`` or ``info``."""

    kind: str
    text: str


@dataclass
class GameModel:
    """Everything the client shows, from the messages it received."""

    game: str | None = None
    seat: int | None = None
    token: str | None = None
    spectator: bool = False
    invite: str | None = None
    seed_hash: str | None = None
    players: list[m.PlayerInfo] = field(default_factory=list)
    view: LiveView | None = None
    prompt: m.Prompt | None = None
    prompt_at: float = 0.0
    log: list[LogLine] = field(default_factory=list)
    over: m.GameOver | None = None
    started: bool = False
    may_start: bool = False
    """Whether the server says this connection may start the game (its host)."""
    """Whether the game has started: the players list says so (and a view past the first
    state, a clock, a prompt, events or the end imply it)."""
    last_error: m.Error | None = None
    narrated: int = 0
    """The state id the log has told the game up to."""
    clock: dict[int, float] = field(default_factory=dict)
    """Seat -> when (``now``) its time to act runs out, from the last ``clock``."""
    now: Callable[[], float] = time.monotonic
    """The clock that measures deadlines and how long the game has waited (a test's own)."""
    moved_at: float | None = None
    """When (``now``) the game last moved: a view, events or a prompt came."""
    _pending_chat: list[m.ChatAt] = field(default_factory=list)
    _discarding: Discarding = field(default_factory=Discarding)
    _told_winner: bool = False

    def name(self, seat: int) -> str:
        for p in self.players:
            if p.seat == seat:
                return p.name
        return f"seat {seat}"

    def names(self) -> list[str]:
        n = self.view.players if self.view is not None else len(self.players)
        return [self.name(q) for q in range(n)]

    def player(self, seat: int) -> m.PlayerInfo | None:
        return next((p for p in self.players if p.seat == seat), None)

    def narrator(self) -> TableNarrator | None:
        if self.view is None:
            return None
        v = self.view
        places = PlaceNames(v.radius, v.terrain, v.tokens, v.harbours, v.harbour_layout)
        return TableNarrator(self.names(), self.seat, places, self._discarding)

    def deadline_left(self) -> float | None:
        """Seconds left to answer the prompt, if the game has a turn timer."""
        if self.prompt is None or self.prompt.deadline is None:
            return None
        return max(0.0, self.prompt.deadline - (self.now() - self.prompt_at))

    def waited(self) -> float:
        """Seconds since the game last moved (0 before it has)."""
        return 0.0 if self.moved_at is None else max(0.0, self.now() - self.moved_at)

    def time_left(self, seat: int) -> float | None:
        """Seconds ``seat`` has left to act, if it must act in a game with a turn timer."""
        if seat == self.seat and self.prompt is not None and self.prompt.deadline is not None:
            return self.deadline_left()
        deadline = self.clock.get(seat)
        return None if deadline is None else max(0.0, deadline - self.now())

    def _history(self, message: m.History) -> list[LogLine]:
        """The log lines of the actions (and chat) this client has not told yet."""
        out: list[LogLine] = []
        narrator = self.narrator()
        since = self.narrated
        self._pending_chat.extend(c for c in message.chat if c.state_id >= since)
        for batch in message.batches:
            out.extend(self._chat_before(batch.state_id))
            if batch.state_id <= self.narrated or narrator is None:
                continue
            events = [event_to_engine(e) for e in batch.events]
            out.extend(log_lines(narrator, events))
            self._told_winner |= any(isinstance(e, ev.GameWon) for e in events)
            self.narrated = batch.state_id
        if not message.more:
            out.extend(self._chat_before(None))
        self.log.extend(out)
        return out

    def _chat_before(self, state_id: int | None) -> list[LogLine]:
        """The kept chat lines said before the game reached ``state_id`` (all: None)."""
        said = [c for c in self._pending_chat if state_id is None or c.state_id < state_id]
        self._pending_chat = [c for c in self._pending_chat if c not in said]
        return [LogLine("chat", f"{self._speaker(c.seat, c.name)}: {c.text}") for c in said]

    def _speaker(self, seat: int | None, name: str) -> str:
        return "you" if seat is not None and seat == self.seat else name

    def _say(self, kind: str, text: str) -> LogLine:
        line = LogLine(kind, text)
        self.log.append(line)
        return line

    def handle(self, message: Any) -> list[LogLine]:
        """Fold one server message in; returns the log lines it added."""
        out: list[LogLine] = []
        if isinstance(message, m.GameView | m.Events | m.Prompt):
            self.moved_at = self.now()
        match message:
            case m.GameCreated():
                self.game, self.invite, self.seed_hash = (
                    message.game,
                    message.invite,
                    message.seed_hash,
                )
            case m.Joined():
                self.game, self.seat, self.token = message.game, message.seat, message.token
                self.spectator = message.seat is None
                self.may_start = message.host
                if message.seed_hash is not None:
                    self.seed_hash = message.seed_hash
            case m.Players():
                self.players = sorted(message.players, key=lambda p: p.seat)
                if message.started:
                    self.started = True
            case m.GameView():
                self.view = LiveView.from_payload(message.view)
                if self.prompt is not None and self.prompt.state_id != message.view.state_id:
                    self.prompt = None
                if message.view.state_id > 0:
                    self.started = True
            case m.Events():
                self.started = True
                engine_events = [event_to_engine(e) for e in message.events]
                if message.view is not None:  # the game after the events, as the server says
                    self.view = LiveView.from_payload(message.view)
                if self.prompt is not None and self.prompt.state_id != message.state_id:
                    self.prompt = None
                self.clock.clear()  # the next clock says who is on it now
                narrator = self.narrator()
                if narrator is not None and message.state_id > self.narrated:
                    for line in log_lines(narrator, engine_events):
                        self.log.append(line)
                        out.append(line)
                    self._told_winner |= any(isinstance(e, ev.GameWon) for e in engine_events)
                self.narrated = max(self.narrated, message.state_id)
            case m.History():
                out.extend(self._history(message))
            case m.Clock():
                self.started = True  # clocks run in a started game only
                now = self.now()
                self.clock = {c.seat: now + c.left for c in message.seats}
            case m.Prompt():
                if message.seat == self.seat:
                    self.started = True
                    self.prompt = message
                    self.prompt_at = self.now()
                    if message.view is not None:
                        self.view = LiveView.from_payload(message.view)
            case m.ChatMessage():
                who = self._speaker(message.seat, message.name)
                out.append(self._say("chat", f"{who}: {message.text}"))
            case m.GameOver():
                again = self.over is not None  # told again after a reconnection
                self.over = message
                self.started = True
                self.prompt = None
                if self.view is not None:
                    self.view.winner = message.winner
                    self.view.final_points = list(message.points)
                    self.view.phase = "game_over"
                    self.view.to_act = []
                names = self.names()
                winner = (
                    "nobody"
                    if message.winner is None
                    else ("you" if message.winner == self.seat else names[message.winner])
                )
                if not again:  # the winner and the points were told with the last action
                    head = "Game over." if self._told_winner else f"Game over: {winner} won."
                    out.append(self._say("turn", f"{head} The seed was {message.seed}."))
            case m.Error():
                self.last_error = message
                out.append(self._say("error", f"refused: {message.message}"))
        return out


def log_lines(narrator: TableNarrator, events: Sequence[ev.Event]) -> list[LogLine]:
    """The log lines of one action's events (in the narrator's viewer's form)."""
    out = []
    for text in narrator.batch(events):
        kind = "turn" if text.startswith("-- ") else "event"
        if narrator.viewer is not None and kind == "event" and _about_you(text):
            kind = "you"
        out.append(LogLine(kind, text))
    return out


def _about_you(text: str) -> bool:
    lowered = f" {text.lower()} "
    return any(w in lowered for w in (" you ", " you;", " you,", " you.", " your "))


def card_names(counts: Sequence[int]) -> str:
    """``"2 brick, 1 ore"`` (``"nothing"`` when empty)."""
    return cards_text(counts)


def dev_names(counts: Sequence[int]) -> str:
    parts = [f"{c} {DEV_CARD_NAMES[k].replace('_', ' ')}" for k, c in enumerate(counts) if c]
    return ", ".join(parts) if parts else "none"


__all__ = [
    "RESOURCE_NAMES",
    "GameModel",
    "LiveView",
    "LogLine",
    "SeatLive",
    "TradeLive",
    "card_names",
    "dev_names",
    "log_lines",
]
