"""One game on the server: a room that owns the game's table, fed by a queue and a clock.

The room is policy and I/O around the protocol's table (:class:`protocol.table.Table`):
seats and tokens, the turn timer, chat, the roster and the clock. What it writes and says
goes through its outbox (:mod:`server.outbox`); who plays the seats no person plays now
(away seats, their stand-ins, bot seats' processes, the server's default actions) is its
away policy's (:mod:`server.away`); its chat's limits and the lines it keeps are its
chat's (:mod:`server.chat`). A seat is known by the hash of its token
(:func:`server.tokens.hash_token`), in the store and in memory alike; a token itself is
only handed out (``joined``, or to a bot process the room starts) and compared
(``rejoin``). Every message that carries the game as one recipient may see it (a view, a
prompt, events, history, game over) comes from the table; the room only delivers it.

Messages reach the room through :meth:`GameRoom.submit`: handled there and then when the
room's task waits with nothing queued, else queued for the task (:meth:`GameRoom.run`),
which handles them one by one and plays the default actions of seats whose time runs out.
So the game changes only in the room's own methods, on the event loop, one message at a
time.

What the room writes to the store it queues (:meth:`server.store.Store.queue`) without
waiting, and what it says waits for the store instead: every message leaves the room in the
order the room made it, and only once every write the room queued before it is committed.
So an action's events, the game over and the prompts after them leave once the action is
stored; a ``joined`` once its seat is; a chat line once it is; and whatever else follows
(a newcomer's view, ``players``, a refusal) waits behind them, so nobody hears of a state
the store does not hold and no message overtakes one made before it. The game itself moves
on meanwhile: the next action is checked against the new state and timers play defaults.

A write that fails stops the game: what waits to be sent is dropped, every connection of
the game is told (``internal``), and the room takes nothing more (a connection may still
leave). Nothing of the game is written after the failed write, so after a restart the game
resumes from its last stored action.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import structlog

import engine
from protocol import messages as m
from protocol.messages import ErrorCode
from protocol.options import game_config, seed_hash
from protocol.payloads import WireModel
from protocol.table import ActionRefused, Delivery, Table
from server.away import AwayPolicy, Launcher
from server.chat import CHAT_PER_GAME, CHAT_PER_SPEAKER, RoomChat
from server.outbox import Outbox
from server.store import (
    LeaseLost,
    Store,
    StoredGame,
    Write,
    WriteFailed,
    action_played,
    chat_said,
    game_created,
    game_finished,
    game_started,
    seat_freed,
    seat_set,
)
from server.tokens import hash_token, new_token, token_matches


class Peer(Protocol):
    """A connection as a room sees it: something to send messages to."""

    id: str

    @property
    def wants_views(self) -> bool:
        """Whether prompts to this connection carry the seat's current view."""

    @property
    def wants_event_views(self) -> bool:
        """Whether ``events`` to this connection carry the recipient's view after them."""

    def send(self, message: WireModel) -> None: ...

    def close(self) -> None:
        """Close the connection (after what was already sent)."""


class _ServerPeer:
    """The server itself as the sender of room messages no connection sent."""

    id = "server"
    wants_views = False
    wants_event_views = False

    def send(self, message: WireModel) -> None:
        """Nothing to deliver: the server logs what concerns it."""

    def close(self) -> None:
        """Nothing to close."""


SERVER_PEER: Peer = _ServerPeer()


@dataclass
class SeatSlot:
    """A seat: the hash of its secret token, its player's name and the connections playing
    it."""

    token_hash: str
    name: str
    peers: set[Peer] = field(default_factory=set)
    bot: str | None = None
    """The bot the server runs for this seat, ``kind`` or ``kind:strength``; None for a
    person."""
    standin_hash: str | None = None
    """While a person is away: the hash of the token of the bot process standing in for
    them (never stored: a stand-in lasts as long as the server)."""
    standin: Peer | None = None
    """The stand-in's connection, once it has joined."""
    running: int = 0
    """How many processes the server has started for this bot seat that have not exited."""
    launches: int = 0
    """How many times the server has started this bot seat's process again."""
    launched_at: float | None = None
    """When the server started a process to play this away seat (a stand-in, or the bot
    seat's own again) that has not connected yet; the seat waits for it a while."""

    def owners(self) -> set[Peer]:
        """The connections of the seat's own player (not a stand-in)."""
        return {p for p in self.peers if p is not self.standin}


MAX_ACTIONS = engine.constants.MAX_ACTIONS
"""Actions after which a game nobody has won ends without a winner (local play has the same
cap); a name of the room's own, so a test can lower it."""


class GameRoom:
    """A game and its seats. Its state changes only in its own methods, on the event loop,
    one message at a time: a message handed in with :meth:`submit` is handled there when
    the room's task waits with nothing queued, else by the task (:meth:`run`) in its turn;
    time running out is played by the task, or by :meth:`wake` after the clock jumps. The
    server also opens the room (:meth:`open`), starts its bots (:meth:`launch_bots`) and
    hands its game over to another process (:meth:`hand_over`); the store's word on the
    room's writes reaches its outbox on the event loop too, and a failure stops the game.

    The order rule: what the room says leaves in the order it was made, each message once
    every write queued before it is committed (:class:`~server.outbox.Outbox`; the module
    says more)."""

    def __init__(
        self,
        game_id: str,
        options: m.GameOptions,
        seed: int,
        host: Peer | None,
        store: Store,
        invite: str | None = None,
        away_grace: float = 30.0,
        launcher: Launcher | None = None,
        chat_limit: int = CHAT_PER_GAME,
        clock: Callable[[], float] = time.monotonic,
        chat_rate: int = CHAT_PER_SPEAKER,
    ) -> None:
        self.id = game_id
        self._now = clock
        """Seconds, for turn timers, grace periods and idleness; one that jumps (a test's)
        is followed by :meth:`wake`."""
        self.chat = RoomChat(clock, chat_limit, chat_rate)
        """The chat said in this room since the server started, and its limits."""
        self.actions = 0
        """Actions played in this room since the server started."""
        self.options = options
        self.seed = seed
        self.table = Table(game_id, game_config(options), seed, max_actions=MAX_ACTIONS)
        """The game itself, and every per-seat message about it."""
        self.invite = invite
        self.host_id = None if host is None else host.id
        self.host_peer = host
        """The creating connection, told of the lobby's seats even when it neither sits nor
        watches (an agent's host program starts the game once its agents have sat down)."""
        self.host_seat: int | None = None
        """The seat the host took, if it sat down: whoever rejoins it with its token (the
        host's own client after a lost connection) may start the game too."""
        self.outbox = Outbox(store, self._stop)
        """Where the room's writes and messages go: each message leaves once the writes
        queued before it are committed (:mod:`server.outbox`)."""
        self.seats: list[SeatSlot | None] = [None] * options.players
        self.spectators: set[Peer] = set()
        self.started = False
        self.inbox: asyncio.Queue[tuple[Peer, Any]] = asyncio.Queue()
        self.deadlines: dict[int, float] = {}  # seat -> when its time to act runs out
        self.offer_closes: float | None = None
        """When the open offer's window closes (None: no offer waits for answers): a seat
        asked that has not answered by then has declined."""
        self.answering: set[int] = set()
        """The seats whose deadline is the offer's window (its close is no timeout)."""
        self.away_policy = AwayPolicy(self, clock, away_grace, launcher)
        """Who plays the seats no person plays now: stand-ins, bot processes, defaults."""
        self.last_active = self._now()
        self.on_empty: Callable[[str, bool], None] | None = None
        """Told the game's id, and whether its creator's connection left, when the last
        seat of a game not started is given up with ``leave`` and nobody watches (the
        server closes it unless its creator is still there, waiting for others)."""
        self.on_stop: Callable[[str], None] | None = None
        """Told the game's id when the room stops (the server ends its bot processes)."""
        self.on_lost: Callable[[str, str | None], None] | None = None
        """Told the game's id, and where it is played now (None: not known), when a write
        is refused because this process no longer holds the game's lease (the server gives
        the game up: :meth:`hand_over`). Without it the room stops as for a failed write."""
        self._timer: asyncio.Timeout | None = None
        """While the room's task waits for a message: the timeout of that wait (the next
        turn's end), moved when a message handled meanwhile changes it."""
        self._busy = False
        """Whether a message is being handled (one handed in meanwhile waits its turn)."""
        self._roster: tuple[object, m.Players] | None = None
        """The last ``players`` message, with the roster it was made for."""
        self.log = structlog.get_logger("hexhaven.room").bind(game=game_id)

    @classmethod
    def restore(
        cls, stored: StoredGame, store: Store, clock: Callable[[], float] = time.monotonic
    ) -> GameRoom:
        """A room for a stored game, at the state its recorded actions lead to. Its seats
        wait for the tokens whose hashes the store holds (a bot seat gets a fresh one when
        :meth:`launch_bots` starts its process); after a restart any seated player may
        start the game."""
        room = cls(stored.id, stored.options, stored.seed, None, store, stored.invite, clock=clock)
        room.table = Table.replay(
            stored.id, room.table.config, stored.seed, stored.actions, max_actions=MAX_ACTIONS
        )
        for seat, (token_hash, name, bot) in stored.seats.items():
            room.seats[seat] = SeatSlot(token_hash=token_hash, name=name, bot=bot)
        room.started = stored.started
        room.log.info("room.restored", state_id=room.table.state_id)
        return room

    def open(self, host: Peer, *also: Write, then: Sequence[Write] = ()) -> None:
        """Store this new game (after ``also``, such as its lease: the game is held before
        it exists for anyone else; and before ``then``, such as its lobby entry); ``host``
        is told ``game_created`` once all are stored, before anything else the room says.
        Call once, before the room's task runs."""
        hashed = seed_hash(self.seed)
        for write in also:
            self.outbox.write(write)
        self.outbox.write(game_created(self.id, self.options, self.seed, hashed, self.invite))
        for write in then:
            self.outbox.write(write)
        self.outbox.send(host, m.GameCreated(game=self.id, invite=self.invite, seed_hash=hashed))

    # --- facts for the lobby ------------------------------------------------------------
    @property
    def state(self) -> engine.GameState:
        """The game's engine state (read only: the table changes it)."""
        return self.table.state

    @property
    def over(self) -> bool:
        """Won, or ended at :data:`MAX_ACTIONS` with nobody able to win."""
        return self.table.over

    @property
    def away(self) -> set[int]:
        """Seats the server plays until their owner returns."""
        return self.away_policy.away

    @property
    def stopped(self) -> bool:
        """A write of the game failed, or another process plays it now: the room takes
        nothing more (see the module)."""
        return self.outbox.stopped

    def connected(self) -> bool:
        """Whether any connection plays or watches this game."""
        return bool(self.spectators) or any(s is not None and s.peers for s in self.seats)

    @property
    def seated(self) -> int:
        return sum(s is not None for s in self.seats)

    def summary(self) -> m.GameSummary:
        return m.GameSummary(
            game=self.id,
            name=self.options.name,
            players=self.options.players,
            seated=self.seated,
            victory_points=self.options.victory_points,
            board=self.options.board,
            started=self.started,
        )

    # --- the room's task ------------------------------------------------------------------
    def _error(self, code: ErrorCode, message: str, detail: str | None = None) -> m.Error:
        """A refusal of a message to this game, naming it."""
        return m.Error(code=code, message=message, detail=detail, game=self.id)

    def submit(self, peer: Peer, message: Any) -> None:
        """Hand the room a message (a protocol message or :class:`Disconnected`): handled at
        once when the room's task waits with nothing queued (no hop to that task), else
        queued behind what waits."""
        timer = self._idle()
        if timer is None:
            self.inbox.put_nowait((peer, message))
            return
        self._take(peer, message)
        self._reschedule(timer)  # the message may have started or ended a turn's timer

    def wake(self) -> None:
        """Read the clock again: what ran out meanwhile is played now, before this returns
        when the room's task is waiting (else that task reads the clock when it next
        waits). The room's own waits follow the clock as it runs; one that jumps, as a
        test's does, calls this."""
        timer = self._idle()
        if timer is None:
            return
        self._busy = True
        try:
            self._expire()
        finally:
            self._busy = False
        self._reschedule(timer)

    def _idle(self) -> asyncio.Timeout | None:
        """The timeout of the room task's wait while it waits with nothing queued and
        nothing being handled (work may then be done here at once), else None."""
        timer = self._timer
        if timer is None or timer.expired() or self._busy or not self.inbox.empty():
            return None
        return timer

    def _reschedule(self, timer: asyncio.Timeout) -> None:
        """Move the wait's timeout to the next deadline by the room's clock."""
        wait = self._next_deadline()
        if wait is None:
            if timer.when() is not None:
                timer.reschedule(None)
            return
        timer.reschedule(asyncio.get_running_loop().time() + max(0.0, wait - self._now()))

    async def run(self) -> None:
        """Handle queued messages one by one until cancelled, and play the default action
        for seats whose time runs out. A failure handling one message is logged and
        reported to its sender; the game goes on."""
        while True:
            try:
                peer, message = self.inbox.get_nowait()  # no timer to set while busy
            except asyncio.QueueEmpty:
                wait = self._next_deadline()
                try:
                    async with asyncio.timeout(
                        None if wait is None else max(0.0, wait - self._now())
                    ) as self._timer:
                        peer, message = await self.inbox.get()
                except TimeoutError:
                    self._expire()
                    continue
                finally:
                    self._timer = None
            self._take(peer, message)

    def _take(self, peer: Peer, message: Any) -> None:
        """Handle one message; a failure is logged and reported to its sender."""
        self.last_active = self._now()
        self._busy = True
        try:
            self._handle(peer, message)
        except Exception:
            self.log.exception("room.failure", message_type=type(message).__name__)
            self.outbox.send(
                peer, self._error(ErrorCode.INTERNAL, "the server failed on that message")
            )
        finally:
            self._busy = False

    # --- time -------------------------------------------------------------------------------
    def _next_deadline(self) -> float | None:
        if self.stopped:
            return None
        times = [*self.deadlines.values(), *self.away_policy.deadlines()]
        return min(times) if times else None

    def _expire(self) -> None:
        """Seats out of time get the engine's default action; repeat offenders, and seats
        disconnected past the grace period, are marked away (played by the server until
        their owner returns)."""
        now = self._now()
        self.away_policy.expire(now)
        for seat, deadline in list(self.deadlines.items()):
            if self.over:
                return
            if deadline <= now and seat in engine.seats_to_act(self.state):
                if seat in self.answering:  # the offer's window closed: declined, no timeout
                    self.log.info("room.offer_window_closed", seat=seat)
                else:
                    self.away_policy.timed_out(seat)
                self.play(seat, engine.default_action(self.state, seat))
        self.away_policy.autoplay()

    def _handle(self, peer: Peer, message: Any) -> None:
        if self.stopped:
            self._handle_stopped(peer, message)
            return
        match message:
            case m.Act():  # the common case first
                self._act(peer, message)
            case m.JoinGame():
                self._join(peer, message)
            case m.Rejoin():
                self._rejoin(peer, message)
            case m.Watch():
                self.spectators.add(peer)
                self.outbox.send(peer, self._joined(peer, None, None))
                self.outbox.send(peer, self._players())
                self._welcome(peer, None, history=message.history)
                self._send_clock(peer)
            case m.Leave():
                self._drop(peer, left=True)
            case Disconnected():
                self._drop(peer, left=False)
            case ProcessExited():
                self.away_policy.process_exited(message)
            case m.StartGame():
                self._start(peer)
            case m.Chat():
                self._chat(peer, message)
            case m.ViewAt():
                self._view_at(peer, message)
            case _:
                self.outbox.send(
                    peer, self._error(ErrorCode.BAD_MESSAGE, "that message does not go to a game")
                )

    # --- seats ----------------------------------------------------------------------------
    def seat_of(self, peer: Peer) -> int | None:
        for i, slot in enumerate(self.seats):
            if slot is not None and peer in slot.peers:
                return i
        return None

    def _join(self, peer: Peer, msg: m.JoinGame) -> None:
        """Seat ``peer`` (a private game only for its creator or with its invite code), under
        its name made unique in the game (:func:`protocol.messages.unique_name`)."""
        invited = (msg.invite or "").strip().upper() == self.invite
        if self.invite is not None and peer.id != self.host_id and not invited:
            self.outbox.send(
                peer,
                self._error(
                    ErrorCode.INVITE_REQUIRED,
                    f"game {self.id} is private: join it with its invite code (ask its "
                    "host for the invite link), or watch it",
                ),
            )
            return
        if self.started:
            self.outbox.send(
                peer,
                self._error(ErrorCode.ALREADY_STARTED, "the game has started; watch it instead"),
            )
            return
        if self.seat_of(peer) is not None:
            self.outbox.send(
                peer, self._error(ErrorCode.SEAT_TAKEN, "this connection already has a seat here")
            )
            return
        if msg.seat is not None:
            if msg.seat >= len(self.seats):
                self.outbox.send(
                    peer,
                    self._error(
                        ErrorCode.BAD_MESSAGE, f"this game has seats 0-{len(self.seats) - 1}"
                    ),
                )
                return
            if self.seats[msg.seat] is not None:
                self.outbox.send(
                    peer,
                    self._error(ErrorCode.SEAT_TAKEN, f"seat {msg.seat} is taken; pick another"),
                )
                return
            seat = msg.seat
        else:
            free = [i for i, s in enumerate(self.seats) if s is None]
            if not free:
                self.outbox.send(
                    peer, self._error(ErrorCode.GAME_FULL, "every seat is taken; watch instead")
                )
                return
            seat = free[0]
        token = new_token()
        name = m.unique_name(msg.name, (s.name for s in self.seats if s is not None))
        slot = SeatSlot(token_hash=hash_token(token), name=name, peers={peer})
        self.seats[seat] = slot
        if peer.id == self.host_id:
            self.host_seat = seat
        self.outbox.write(seat_set(self.id, seat, slot.token_hash, slot.name))
        self.log.info("room.joined", seat=seat)
        self.outbox.send(peer, self._joined(peer, seat, token))
        self.broadcast_players()
        self._welcome(peer, seat)

    def _rejoin(self, peer: Peer, msg: m.Rejoin) -> None:
        """Seat ``peer`` at the seat whose token ``msg`` presents (the token's hash against
        each seat's: any string at all that is no seat's token is ``bad_token``)."""
        for seat, slot in enumerate(self.seats):
            if (
                slot is not None
                and slot.standin_hash is not None
                and token_matches(slot.standin_hash, msg.token)
            ):
                slot.standin = peer
                slot.peers.add(peer)
                slot.launched_at = None
                self.log.info("room.stand_in", seat=seat)
                self.outbox.send(peer, self._joined(peer, seat, msg.token))
                self._welcome(peer, seat)  # with game over if it came too late
                self._prompt(only=peer)
                return
            if slot is not None and token_matches(slot.token_hash, msg.token):
                slot.peers.add(peer)
                self.away_policy.returned(seat)
                self.log.info("room.rejoined", seat=seat)
                self.outbox.send(peer, self._joined(peer, seat, msg.token))
                self.broadcast_players()
                self._welcome(peer, seat, history=msg.history)
                self._send_clock(peer)
                self._prompt(only=peer)
                return
        self.outbox.send(
            peer, self._error(ErrorCode.BAD_TOKEN, "that token is not a seat of this game")
        )

    def _drop(self, peer: Peer, *, left: bool) -> None:
        """A connection went: ``left`` when it said ``leave``, else it was lost. Before the
        start only a seat given up with ``leave`` is free again; a lost one waits for its
        owner's ``rejoin``."""
        self.spectators.discard(peer)
        self.chat.forget(peer)
        seat = self.seat_of(peer)
        if seat is None:
            return
        slot = self.seats[seat]
        assert slot is not None
        slot.peers.discard(peer)
        if peer is slot.standin:
            self.away_policy.stand_in_gone(slot)
        elif not self.started and not slot.peers and left:
            self.seats[seat] = None  # a seat given up before the start is free again
            self.outbox.write(seat_freed(self.id, seat))
            if seat == self.host_seat:
                self.host_seat = None
            if self.seated == 0 and not self.spectators and self.on_empty is not None:
                self.on_empty(self.id, peer.id == self.host_id)  # the lobby is empty
        elif self.started and not slot.owners() and not self.over:
            self.away_policy.owner_gone(seat, slot)
        self.broadcast_players()

    def _is_host(self, peer: Peer) -> bool:
        """Whether ``peer`` may start the game: the connection that created it, whoever holds
        the seat it took, or, in a game resumed after a restart, any seated connection."""
        seat = self.seat_of(peer)
        return (
            peer.id == self.host_id
            or (seat is not None and seat == self.host_seat)
            or (self.host_id is None and seat is not None)
        )

    def _joined(self, peer: Peer, seat: int | None, token: str | None) -> m.Joined:
        host = not self.started and self._is_host(peer)
        return m.Joined(
            game=self.id,
            seat=seat,
            token=token,
            seed_hash=seed_hash(self.seed),
            host=host,
            invite=None if seat is None else self.invite,
        )

    def _start(self, peer: Peer) -> None:
        if not self._is_host(peer):
            self.outbox.send(
                peer,
                self._error(ErrorCode.NOT_HOST, "only the player who created the game starts it"),
            )
            return
        if self.started:
            self.outbox.send(
                peer, self._error(ErrorCode.ALREADY_STARTED, "the game has already started")
            )
            return
        empty = [i for i, s in enumerate(self.seats) if s is None]
        if len(empty) > len(self.options.bots):
            self.outbox.send(
                peer,
                self._error(
                    ErrorCode.NOT_STARTED,
                    f"{len(empty)} seat(s) are empty and the game has "
                    f"{len(self.options.bots)} bot(s); wait for players to join",
                ),
            )
            return
        for seat, bot in zip(empty, self.options.bots, strict=False):
            spec = bot.kind if bot.strength is None else f"{bot.kind}:{bot.strength}"
            name = m.unique_name(f"{bot.kind}-{seat}", (s.name for s in self.seats if s))
            slot = SeatSlot(hash_token(new_token()), name, bot=spec)
            self.seats[seat] = slot  # its process, started below, gets a token of its own
            self.outbox.write(seat_set(self.id, seat, slot.token_hash, slot.name, spec))
        for seat, held in enumerate(self.seats):
            if held is not None and held.bot is None and not held.owners():
                self.away_policy.disconnected(seat)  # lost in the lobby: away after the grace
        self.started = True
        self.outbox.write(game_started(self.id))
        self.log.info("room.started", players=len(self.seats), bots=len(empty))
        self.launch_bots()
        self.broadcast_players()  # a host that neither sits nor watches hears it too
        for p, viewer in self._audience():
            self._welcome(p, viewer)
        self._prompt()

    def launch_bots(self) -> None:
        """Start a process for every bot seat of a running game (they connect back with
        their tokens like any player; :meth:`AwayPolicy.launch_bots`)."""
        self.away_policy.launch_bots()

    # --- play -------------------------------------------------------------------------------
    def _act(self, peer: Peer, msg: m.Act) -> None:
        seat = self.seat_of(peer)
        if seat is None:
            self.outbox.send(
                peer,
                self._error(
                    ErrorCode.NOT_A_PLAYER, "only a seated player acts; rejoin with your token"
                ),
            )
            return
        if not self.started:
            self.outbox.send(peer, self._error(ErrorCode.NOT_STARTED, "the game has not started"))
            return
        try:
            action = self.table.check(seat, msg)
        except ActionRefused as refused:
            self.outbox.send(peer, refused.to_message())
            return
        slot = self.seats[seat]
        if slot is None or peer is not slot.standin:
            self.away_policy.acted(seat)  # acting in person takes the seat back
        self.play(seat, action)
        self.away_policy.autoplay()

    def play(self, seat: int, action: engine.Action) -> None:
        """Play a legal action at the table, queue it for the store, and tell everyone
        (once it is stored)."""
        if self.stopped:
            return
        table = self.table
        index = table.state_id
        told = table.act(seat, action, self._listening())
        self.actions += 1
        # Stored before anyone hears of it: a restart resumes from exactly here.
        events = table.played[-1].events
        dice = next((e.dice for e in events if isinstance(e, engine.DiceRolled)), None)
        self.outbox.write(action_played(self.id, index, action, dice))
        if self.deadlines:
            self.deadlines.pop(seat, None)  # the turn timer is per action: it starts afresh
        self.log.debug("room.action", seat=seat, kind=type(action).__name__, state_id=index + 1)
        ended = table.over
        if ended:  # at the limit nobody could win: it ends without a winner
            over = table.game_over()
            limit = not table.state.is_over
            self.log.info("room.over", winner=over.winner, points=over.points, limit=limit)
            self.outbox.write(game_finished(self.id, over.winner, over.points))
            self.deadlines.clear()
        self._deliver(told)
        if not ended:
            self._prompt()

    def _chat(self, peer: Peer, msg: m.Chat) -> None:
        seat = self.seat_of(peer)
        if seat is None and not (self.options.spectator_chat and peer in self.spectators):
            why = (
                "spectators do not chat in this game"
                if peer in self.spectators
                else ("only the game's players and spectators chat; join or watch it first")
            )
            self.outbox.send(peer, self._error(ErrorCode.NOT_A_PLAYER, why))
            return
        refusal = self.chat.refusal(peer if seat is None else seat, spectator=seat is None)
        if refusal is not None:
            why, limit = refusal
            self.outbox.send(peer, self._error(ErrorCode.LIMIT_REACHED, why, limit))
            return
        slot = self.seats[seat] if seat is not None else None
        name = slot.name if slot is not None else "spectator"
        self.outbox.write(chat_said(self.id, seat, name, msg.text))
        said = m.ChatAt(state_id=self.table.state_id, seat=seat, name=name, text=msg.text)
        self.chat.said(said)
        self._broadcast(m.ChatMessage(game=self.id, seat=seat, name=name, text=msg.text))

    def _view_at(self, peer: Peer, msg: m.ViewAt) -> None:
        """A view of the finished game at an earlier state, in the form of the asker's
        seat (a spectator's: the public form)."""
        seat = self.seat_of(peer)
        if seat is None and peer not in self.spectators:
            why = "only the game's players and spectators replay it; join or watch it first"
            self.outbox.send(peer, self._error(ErrorCode.NOT_A_PLAYER, why))
        elif not self.over:
            why = "a game is replayed once it is over"
            self.outbox.send(peer, self._error(ErrorCode.GAME_NOT_OVER, why))
        elif msg.state_id > self.table.state_id:
            why = f"the game ended at state {self.table.state_id}; it has no state {msg.state_id}"
            self.outbox.send(peer, self._error(ErrorCode.BAD_MESSAGE, why))
        else:
            self.outbox.send(peer, self.table.view_at(seat, msg.state_id))

    def _prompt(self, only: Peer | None = None) -> None:
        """Prompt the seats that must act (only ``only``, if given), starting their turn
        timers; then, unless prompting one connection, tell everyone the clock."""
        table = self.table
        if not self.started or table.over:
            return
        to_act = engine.seats_to_act(table.state)
        timer = self.options.turn_timer
        for seat in list(self.deadlines):
            if seat not in to_act:
                del self.deadlines[seat]
        now = self._now()
        self._offer_window(to_act, now)
        for seat in to_act:
            slot = self.seats[seat]
            if slot is None:
                continue
            if timer is not None and seat not in self.deadlines:
                self.deadlines[seat] = now + timer
            if seat in self.answering:
                assert self.offer_closes is not None
                self.deadlines[seat] = min(
                    self.deadlines.get(seat, self.offer_closes), self.offer_closes
                )
            deadline = self.deadlines.get(seat)
            left = None if deadline is None else max(0.0, deadline - now)
            peers = [p for p in slot.peers if only is None or p is only]
            plain: m.Prompt | None = None
            viewed: m.Prompt | None = None
            for p in peers:
                if p.wants_views:
                    if viewed is None:
                        viewed = table.prompt(seat, left, with_view=True)
                    self.outbox.send(p, viewed)
                else:
                    if plain is None:
                        plain = table.prompt(seat, left)
                    self.outbox.send(p, plain)
        clock = self._clock() if only is None else None
        if clock is not None:
            self._broadcast(clock)  # everyone sees who is on the clock, and for how long

    def _offer_window(self, to_act: Sequence[int], now: float) -> None:
        """Open the window of an offer that has just been made (its asked seats must answer
        within ``offer_window`` seconds), and close it once nobody owes an answer."""
        state = self.table.state
        if state.phase == engine.Phase.TRADE:
            self.answering = {q for q in to_act if q != state.current}
        else:
            self.answering = set()
        if not self.answering:
            self.offer_closes = None
        elif self.offer_closes is None:
            self.offer_closes = now + self.options.offer_window

    # --- the store, and what leaves the room ------------------------------------------------
    def _stop(self, error: BaseException) -> None:
        """A write was not stored (``error`` says why): drop what waits to be sent, tell
        every connection of the game, and take nothing more (see the module)."""
        if self.stopped:
            return
        if isinstance(error, LeaseLost) and self.on_lost is not None:
            self.on_lost(self.id, error.url)
            return
        dropped = self.outbox.stop()
        self.deadlines.clear()
        write = error.write.what if isinstance(error, WriteFailed) else None
        self.log.error("room.stopped", write=write, error=repr(error), unsent=dropped)
        notice = self._stopped_notice()
        told = {p for p, _ in self._audience()}
        if self.host_peer is not None:
            told.add(self.host_peer)
        for p in told:
            p.send(notice)
        if self.on_stop is not None:
            self.on_stop(self.id)

    def hand_over(self, url: str) -> None:
        """Another server process plays this game now (at ``url``): tell every connection
        of the game, and write nothing more of it here."""
        self.outbox.stop()
        self.deadlines.clear()
        notice = self._error(
            ErrorCode.INTERNAL,
            f"another server plays this game now ({url}); rejoin it there with your token",
        )
        for p, _ in self._audience():
            p.send(notice)

    def _stopped_notice(self) -> m.Error:
        return self._error(
            ErrorCode.INTERNAL,
            "the server could not save this game, so it has stopped; it goes on from its "
            "last saved move when the server restarts",
        )

    def _handle_stopped(self, peer: Peer, message: Any) -> None:
        """A stopped game only lets its connections go; anything else is refused."""
        match message:
            case m.Leave() | Disconnected():
                self.spectators.discard(peer)
                for slot in self.seats:
                    if slot is not None:
                        slot.peers.discard(peer)
            case ProcessExited():
                pass
            case _:
                peer.send(self._stopped_notice())

    # --- what leaves the room ---------------------------------------------------------------
    def _audience(self) -> list[tuple[Peer, int | None]]:
        """Every connection with the seat whose eyes it has (None: a spectator)."""
        out: list[tuple[Peer, int | None]] = []
        for seat, slot in enumerate(self.seats):
            if slot is not None:
                out.extend((p, seat) for p in slot.peers)
        out.extend((p, None) for p in self.spectators)
        return out

    def _broadcast(self, message: WireModel) -> None:
        for p, _ in self._audience():
            self.outbox.send(p, message)

    def _listening(self) -> list[int | None]:
        """The recipients with a connection to tell: seats with one, and the spectators if
        anyone watches."""
        out: list[int | None] = [q for q, s in enumerate(self.seats) if s is not None and s.peers]
        if self.spectators:
            out.append(None)
        return out

    def _deliver(self, told: list[Delivery]) -> None:
        """Send each message of the table to the connections of its recipient (a seat's,
        or the spectators)."""
        table = self.table
        for recipient, message in told:
            if recipient is None:
                peers = self.spectators
            else:
                slot = self.seats[recipient]
                peers = set() if slot is None else slot.peers
            for p in peers:
                if p.wants_event_views and type(message) is m.Events:
                    self.outbox.send(p, table.with_view(recipient, message))
                else:
                    self.outbox.send(p, message)

    def _welcome(self, peer: Peer, seat: int | None, *, history: bool = False) -> None:
        """Tell an arriving connection the game as ``seat`` sees it (its view, the history
        if asked, with the chat, and game over if it is over: someone arriving just after
        the last action would otherwise wait for a game that goes on no more)."""
        for message in self.table.welcome(seat, history=history, chat=self.chat.lines):
            self.outbox.send(peer, message)

    def broadcast_players(self) -> None:
        """``players`` to everyone in the game; until the start, and at it, to the host's
        connection too when it neither sits nor watches."""
        roster = self._players()
        audience = self._audience()
        for p, _ in audience:
            self.outbox.send(p, roster)
        host = self.host_peer
        if host is not None and all(p is not host for p, _ in audience):
            self.outbox.send(host, roster)
            if self.started:
                self.host_peer = None  # told of the start: its part is done

    def _clock(self) -> m.Clock | None:
        """Who must act and their time left: in a game with a turn timer, and while an
        offer waits for answers (the seats asked, until its window closes)."""
        if (self.options.turn_timer is None and not self.deadlines) or not self.started:
            return None
        if self.over:
            return None
        now = self._now()
        seats = [
            m.SeatClock(seat=seat, left=max(0.0, deadline - now))
            for seat, deadline in sorted(self.deadlines.items())
        ]
        return m.Clock(game=self.id, state_id=self.table.state_id, seats=seats)

    def _send_clock(self, peer: Peer) -> None:
        clock = self._clock()
        if clock is not None:
            self.outbox.send(peer, clock)

    def _players(self) -> m.Players:
        """The roster now: the same message object while it is unchanged (a sender keeps
        its encoding for those who arrive meanwhile)."""
        now = (
            self.started,
            tuple(
                (i, s.name, s.bot is not None, bool(s.owners()), i in self.away_policy.away)
                for i, s in enumerate(self.seats)
                if s is not None
            ),
        )
        kept = self._roster
        if kept is not None and kept[0] == now:
            return kept[1]
        roster = m.Players(
            game=self.id,
            players=[
                m.PlayerInfo(seat=i, name=name, bot=bot, connected=connected, away=away)
                for i, name, bot, connected, away in now[1]
            ],
            started=self.started,
        )
        self._roster = (now, roster)
        return roster


@dataclass(frozen=True)
class ProcessExited:
    """Queued by the server when a bot process it started for the room exits; it names
    the process by the hash of the token it was given."""

    token_hash: str
    code: int


@dataclass(frozen=True)
class Disconnected:
    """Queued by the server when a connection of the room closes."""
