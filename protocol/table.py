"""The per-seat game table: one game's engine state and history, and every message that
carries the game as one recipient may see it (boardgame.io's master over ``playerView``).

A recipient is a seat, or None for the spectators. Each seat gets its own form of every
view and event (its hand, the card it drew, the card stolen from or by it); spectators get
the public form. The table decides nothing about time, connections or who holds a seat:
the server's rooms, the in-process runner, the replay and the screenshots drive it and
deliver what it returns. Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import TypeAlias

from pydantic import ValidationError

import engine
from engine import constants
from protocol import messages as m
from protocol.messages import ErrorCode
from protocol.payloads import (
    ViewPayload,
    WireModel,
    action_to_engine,
    actions_from_engine,
    assume_valid,
    event_from_engine,
    view_from_engine,
)

HISTORY_CHUNK = 200
"""Actions per ``history`` message."""
KEPT_EVERY = 50
"""Actions between the states a table keeps to replay its game (:meth:`Table.view_at`)."""

Recipient: TypeAlias = int | None
"""Who a message is for: a seat, or None for the spectators."""

Delivery: TypeAlias = tuple[Recipient, m.Events | m.GameOver]
"""One message caused by an action, with the recipient it is for."""


class ActionRefused(Exception):
    """An action the table does not take; the table is unchanged. ``code`` is the stable
    error code, ``message`` a sentence for the player, ``detail`` refines the code (the
    engine's reason for an illegal action, ``game_over`` once the game is over)."""

    def __init__(
        self, code: ErrorCode, message: str, detail: str | None = None, game: str | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.detail = detail
        self.game = game

    def to_message(self) -> m.Error:
        """The ``error`` that tells the player."""
        return m.Error(code=self.code, message=self.message, detail=self.detail, game=self.game)


@dataclass(frozen=True, slots=True)
class Played:
    """One action taken at the table, every event it caused in full form (chance outcomes
    and secrets included), and the state id after it."""

    action: engine.Action
    events: tuple[engine.Event, ...]
    state_id: int


def seat_view(state: engine.GameState, seat: Recipient) -> ViewPayload:
    """The game in ``state`` as ``seat`` may see it (None: a spectator), in wire form."""
    return view_from_engine(engine.view(state, seat))


def seat_events(events: Sequence[engine.Event], seat: Recipient) -> list[WireModel]:
    """``events`` in the form ``seat`` may see them (None: a spectator), in wire form."""
    return [event_from_engine(e.for_seat(seat)) for e in events]


class Table:
    """One game between its seats: the engine state, every action played, and what each
    recipient is told of them.

    The state is the table's own: read it (``table.state``), change it only through
    :meth:`act`. The game is over when the engine says so, or after ``max_actions`` actions
    with nobody having won (it then ends without a winner). Raises engine.ConfigError for a
    configuration that makes no game.
    """

    def __init__(
        self,
        game: str,
        config: engine.GameConfig,
        seed: int,
        *,
        max_actions: int = constants.MAX_ACTIONS,
    ) -> None:
        self.game = game
        self.config = config
        self.seed = seed
        self.max_actions = max_actions
        self.state = engine.new_game(config, seed)
        self._everyone: tuple[Recipient, ...] = (*range(self.state.n), None)
        self._audiences: dict[tuple[Recipient, ...], tuple[Recipient, ...]] = {}
        self._plain_game = _is_game_id(game)
        """Whether ``game`` is an id the messages take as it is (then they are made
        without validating what the table itself made)."""
        self.played: list[Played] = []
        """Every action so far, oldest first (``played[i]`` led to state ``i + 1``)."""
        self._kept: dict[Recipient, list[m.History]] = {}
        """Each recipient's full ``history`` chunks made so far, without chat."""
        self._tail: dict[Recipient, tuple[int, list[m.History]]] = {}
        """Each recipient's last ``history`` messages after its full chunks, with the count
        of actions they were made for."""
        self._first: dict[Recipient, tuple[Sequence[m.ChatAt], m.History, m.History]] = {}
        """Each recipient's last first ``history`` message with chat: the chat, the message
        it was added to, and the result."""
        self._views: dict[Recipient, tuple[int, m.GameView]] = {}
        """Each recipient's last ``view`` message, with the state it was made for (those who
        arrive at one state share one message, and a sender may keep its encoding)."""
        self._kept_states: list[engine.GameState] = []
        """The states after every :data:`KEPT_EVERY` actions, made for replays."""
        self._viewed: dict[Recipient, tuple[m.Events, m.Events]] = {}
        """Each recipient's last ``events`` message with its view: the message without
        the view, and the one with it."""

    @classmethod
    def replay(
        cls,
        game: str,
        config: engine.GameConfig,
        seed: int,
        actions: Iterable[engine.Action],
        *,
        max_actions: int = constants.MAX_ACTIONS,
    ) -> Table:
        """The table of a game after ``actions`` (a stored game's, in order). Raises
        engine.IllegalActionError at the first action that is not legal in its turn."""
        table = cls(game, config, seed, max_actions=max_actions)
        for action in actions:
            table._record(action)
        return table

    # --- facts ------------------------------------------------------------------------------
    @property
    def state_id(self) -> int:
        """How many actions have been played: the id of the current state."""
        return self.state.actions_taken

    @property
    def over(self) -> bool:
        """Whether the game has ended: won, or at ``max_actions`` with nobody able to win."""
        return self.state.is_over or self.state.actions_taken >= self.max_actions

    @property
    def recipients(self) -> list[Recipient]:
        """Everyone an action is told to, in delivery order: each seat, then spectators."""
        return [*self._everyone]

    # --- what a recipient is told -----------------------------------------------------------
    def view(self, seat: Recipient) -> ViewPayload:
        """The game now as ``seat`` may see it (None: a spectator)."""
        return seat_view(self.state, seat)

    def prompt(
        self, seat: int, deadline: float | None = None, *, with_view: bool = False
    ) -> m.Prompt:
        """The ``prompt`` for ``seat`` at the current state: its legal actions (none if it
        has nothing to do), ``deadline`` (seconds left to act, or None) and, when
        ``with_view``, its view."""
        actions = actions_from_engine(engine.legal_actions(self.state, seat))
        view = self.view(seat) if with_view else None
        if (
            self._plain_game
            and type(seat) is int
            and 0 <= seat < self.state.n
            and (deadline is None or type(deadline) is float)
        ):
            values = {
                "type": "prompt",
                "game": self.game,
                "state_id": self.state_id,
                "seat": seat,
                "actions": actions,
                "deadline": deadline,
                "view": view,
            }
            return assume_valid(m.Prompt, values, {*_PROMPT_GIVEN})
        return m.Prompt(
            game=self.game,
            state_id=self.state_id,
            seat=seat,
            actions=actions,
            deadline=deadline,
            view=view,
        )

    def game_over(self) -> m.GameOver:
        """The ``game_over`` everyone is told at the end: final points (hidden victory cards
        included), the winner (None at the action limit) and the seed. Raises ValueError
        while the game goes on."""
        if not self.over:
            raise ValueError(f"game {self.game} is not over: it is at state {self.state_id}")
        state = self.state
        return m.GameOver(
            game=self.game,
            winner=state.winner if state.winner >= 0 else None,
            points=[state.victory_points(q) for q in range(state.n)],
            seed=self.seed,
        )

    def history(
        self, seat: Recipient, from_state: int = 0, chat: Sequence[m.ChatAt] = ()
    ) -> list[m.History]:
        """The actions after state ``from_state``, each with its events in ``seat``'s form
        (what it would have received as ``events``), oldest first, :data:`HISTORY_CHUNK`
        actions per message; ``chat`` rides on the first. At least one message; ``more`` is
        set on all but the last. The whole history's messages are kept and given again
        (the same objects, so a sender may keep their encoding): each recipient's full
        chunks, the rest until the next action, and the first message with chat while the
        chat is the same sequence object. Raises ValueError for a negative ``from_state``."""
        if from_state < 0:
            raise ValueError(f"no state {from_state}: states count from 0")
        if from_state > 0:
            return self._chunks(seat, from_state, len(self.played), chat, last=True)
        played = len(self.played)
        kept = self._kept.setdefault(seat, [])
        full = (played - 1) // HISTORY_CHUNK if played else 0  # chunks before the last
        while len(kept) < full:
            start = len(kept) * HISTORY_CHUNK
            kept.extend(self._chunks(seat, start, start + HISTORY_CHUNK, (), last=False))
        told = self._tail.get(seat)
        if told is None or told[0] != played:
            told = self._tail[seat] = (
                played,
                self._chunks(seat, full * HISTORY_CHUNK, played, (), last=True),
            )
        tail = told[1]
        out = [*kept[:full], *tail]
        if chat:
            first = self._first.get(seat)
            if first is None or first[0] is not chat or first[1] is not out[0]:
                said = out[0].model_copy(update={"chat": list(chat)})
                first = self._first[seat] = (chat, out[0], said)
            out[0] = first[2]
        return out

    def _chunks(
        self, seat: Recipient, start: int, end: int, chat: Sequence[m.ChatAt], *, last: bool
    ) -> list[m.History]:
        """The ``history`` messages of played actions ``start`` to ``end``; ``more`` is set
        on each but the last, and on the last too unless ``last``."""
        batches = [
            m.HistoryBatch(state_id=p.state_id, events=seat_events(p.events, seat))
            for p in self.played[start:end]
        ]
        chunks = [batches[i : i + HISTORY_CHUNK] for i in range(0, len(batches), HISTORY_CHUNK)]
        chunks = chunks or [[]]
        final = len(chunks) - 1
        return [
            m.History(
                game=self.game,
                batches=chunk,
                chat=[] if i else list(chat),
                more=i < final or not last,
            )
            for i, chunk in enumerate(chunks)
        ]

    def welcome(
        self, seat: Recipient, *, history: bool = False, chat: Sequence[m.ChatAt] = ()
    ) -> list[m.GameView | m.History | m.GameOver]:
        """What someone arriving at ``seat`` (None: a spectator) is told of the game, in
        order: its view, the whole history if ``history`` (``chat`` rides on its first
        message), and ``game_over`` if the game is over. Those arriving at the same state
        as the same recipient get the same view message."""
        out: list[m.GameView | m.History | m.GameOver] = [self._view_message(seat)]
        if history:
            out.extend(self.history(seat, chat=chat))
        if self.over:
            out.append(self.game_over())
        return out

    def _view_message(self, seat: Recipient) -> m.GameView:
        """The ``view`` message of ``seat`` at the current state, made once per state."""
        now = self.state_id
        kept = self._views.get(seat)
        if kept is None or kept[0] != now:
            kept = self._views[seat] = (now, m.GameView(game=self.game, view=self.view(seat)))
        return kept[1]

    def view_at(self, seat: Recipient, state_id: int) -> m.GameView:
        """The ``view`` message of ``seat`` (None: the spectators) at an earlier state
        ``state_id``, for a replay: the game is played again from the nearest kept state
        (one kept every :data:`KEPT_EVERY` actions). Raises ValueError for a state the game
        has not reached."""
        now = self.state_id
        if not 0 <= state_id <= now:
            raise ValueError(f"no state {state_id}: the game is at state {now}")
        if state_id == now:
            return self._view_message(seat)
        kept = self._kept_states
        if not kept:
            kept.append(engine.new_game(self.config, self.seed))
        while len(kept) <= state_id // KEPT_EVERY:
            state = kept[-1].copy()
            for p in self.played[(len(kept) - 1) * KEPT_EVERY : len(kept) * KEPT_EVERY]:
                engine.apply(state, p.action)
            kept.append(state)
        state = kept[state_id // KEPT_EVERY].copy()
        for p in self.played[state_id // KEPT_EVERY * KEPT_EVERY : state_id]:
            engine.apply(state, p.action)
        return m.GameView(game=self.game, view=seat_view(state, seat))

    def with_view(self, seat: Recipient, events: m.Events) -> m.Events:
        """``events``, as :meth:`act` made them for ``seat`` (None: the spectators) at the
        current state, with ``seat``'s view after them: for connections that asked for
        views with events. Every such connection of one recipient gets the same message,
        and the view is the one a ``view`` message at this state carries. Raises
        ValueError for events of another state."""
        if events.state_id != self.state_id:
            raise ValueError(
                f"events of state {events.state_id} told with a view at state {self.state_id}"
            )
        kept = self._viewed.get(seat)
        if kept is not None and kept[0] is events:
            return kept[1]
        view = self._view_message(seat).view
        if self._plain_game:
            values = {**dict(events), "view": view}
            viewed = assume_valid(m.Events, values, {*_EVENTS_GIVEN, "view"})
        else:
            viewed = events.model_copy(update={"view": view})
        self._viewed[seat] = (events, viewed)
        return viewed

    # --- acting -----------------------------------------------------------------------------
    def check(self, seat: int, act: m.Act) -> engine.Action:
        """The engine action ``seat`` means by its ``act``, legal now. Raises
        :class:`ActionRefused`: ``illegal_action`` with detail ``game_over`` once the game
        is over, ``stale_state`` for an action chosen for another state (an earlier or a
        future one), ``illegal_action`` with the engine's reason for an illegal action."""
        self._refuse_if_over()
        now = self.state_id
        if act.state_id != now:
            when = "was chosen for" if act.state_id < now else "names a future"
            raise ActionRefused(
                ErrorCode.STALE_STATE,
                f"that action {when} state {act.state_id}; the game is at state {now}",
                game=self.game,
            )
        action = action_to_engine(act.action, seat)
        try:
            engine.check(self.state, action)
        except engine.IllegalActionError as exc:
            raise self._illegal(exc) from exc
        return action

    def act(
        self, seat: int, action: engine.Action, listening: Iterable[Recipient] | None = None
    ) -> list[Delivery]:
        """Play ``seat``'s ``action`` and record it. Returns what each recipient is told, in
        order: the ``events`` in each seat's form, then in the spectators', then, if the
        game has ended, ``game_over`` to each of them; only to the recipients in
        ``listening`` when it is given (nobody else's form is made). Recipients who see the
        same get the same message object (a sender may encode it once). Raises
        :class:`ActionRefused` (the table unchanged) when the game is over or the action is
        illegal, and ValueError for an action of another seat."""
        if action.seat != seat:
            raise ValueError(f"an action of seat {action.seat} played for seat {seat}")
        self._refuse_if_over()
        try:
            played = self._record(action)
        except engine.IllegalActionError as exc:
            raise self._illegal(exc) from exc
        recipients = self._audience(listening)
        out = self._tell(played, recipients)
        if self.over:
            over = self.game_over()
            out.extend((r, over) for r in recipients)
        return out

    def _audience(self, listening: Iterable[Recipient] | None) -> tuple[Recipient, ...]:
        """The recipients of :meth:`act` in delivery order: everyone, or those of
        ``listening`` (the same few come again and again, so each answer is kept)."""
        if listening is None:
            return self._everyone
        key = tuple(listening)
        kept = self._audiences.get(key)
        if kept is None:
            if len(self._audiences) >= 64:
                self._audiences.clear()
            wanted = set(key)
            kept = self._audiences[key] = tuple(r for r in self._everyone if r in wanted)
        return kept

    def _tell(self, played: Played, recipients: Sequence[Recipient]) -> list[Delivery]:
        """The ``events`` of ``played`` for each recipient, in its form: each event as
        ``event.for_seat(recipient)`` gives it (an event of a type without a secret, the
        event itself). Recipients who see alike (the same wire forms) get the same
        message."""
        events = played.events
        whole = [event_from_engine(e) for e in events]
        # Each recipient's events in a form of its own (not the event itself), by index:
        own: list[list[tuple[int, engine.Event]]] | None = None
        for i, event in enumerate(events):
            if type(event) in _PUBLIC:
                continue
            forms = list(map(event.for_seat, recipients))
            if forms.count(event) == len(forms):  # each the event itself, or equal to it
                continue
            if own is None:
                own = [[] for _ in recipients]
            for j, seen in enumerate(forms):
                if seen is not event:
                    own[j].append((i, seen))
        if own is None:  # everyone sees every event whole
            return list(zip(recipients, repeat(self._events(played.state_id, whole))))
        out: list[Delivery] = []
        made: dict[tuple[int, ...], m.Events] = {}
        for r, mine in zip(recipients, own, strict=True):
            form = list(whole)
            for i, seen in mine:
                form[i] = event_from_engine(seen)
            key = tuple(map(id, form))
            told = made.get(key)
            if told is None:
                told = made[key] = self._events(played.state_id, form)
            out.append((r, told))
        return out

    def _events(self, state_id: int, events: list[WireModel]) -> m.Events:
        """The ``events`` message of the wire forms ``events`` at ``state_id``."""
        if self._plain_game:
            values = {
                "type": "events",
                "game": self.game,
                "state_id": state_id,
                "events": events,
                "view": None,
            }
            return assume_valid(m.Events, values, {*_EVENTS_GIVEN})
        return m.Events(game=self.game, state_id=state_id, events=events)

    def _record(self, action: engine.Action) -> Played:
        """Apply ``action`` and keep it. Raises engine.IllegalActionError, state unchanged."""
        events = engine.apply(self.state, action)
        played = Played(action, tuple(events), self.state.actions_taken)
        self.played.append(played)
        return played

    def _refuse_if_over(self) -> None:
        if self.over:
            raise ActionRefused(
                ErrorCode.ILLEGAL_ACTION, "the game is over", "game_over", game=self.game
            )

    def _illegal(self, exc: engine.IllegalActionError) -> ActionRefused:
        return ActionRefused(ErrorCode.ILLEGAL_ACTION, exc.message, exc.code, game=self.game)


_PUBLIC = engine.PUBLIC_EVENT_TYPES
_PROMPT_GIVEN = frozenset({"game", "state_id", "seat", "actions", "deadline", "view"})
_EVENTS_GIVEN = frozenset({"game", "state_id", "events"})
"""The fields a table gives its prompts and events (the type is the default)."""


def _is_game_id(game: str) -> bool:
    """Whether the messages take ``game`` as a game id."""
    try:
        m.Events(game=game, state_id=0, events=[])
    except ValidationError:
        return False
    return True
