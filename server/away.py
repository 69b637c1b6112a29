"""How a room's seats are played when no person plays them: its away policy.

A seat is away when its player has been disconnected past the grace period
(:attr:`AwayPolicy.grace`), has let its time run out :data:`AWAY_AFTER_TIMEOUTS` times in a
row, or is a bot seat whose process has gone. While a seat is away the server plays it: a
person's seat by a stand-in bot (:data:`STANDIN_KIND`, started with a token of its own
that is never stored, if the caps on bot seats leave room for one), a bot seat by its
process started again (up to :data:`BOT_RELAUNCHES` times); the seat waits
:data:`PROCESS_WAIT` seconds for a process started for it to connect, and meanwhile, or
without one, the room plays its default actions (:meth:`AwayPolicy.autoplay`) as long as
someone present still plays. A person who rejoins, or acts in person, takes the seat back
and their stand-in is closed.

The policy also starts the processes of a game's bot seats when it starts (or resumes:
:meth:`AwayPolicy.launch_bots`). Each process gets a fresh token, whose hash replaces the
seat's in memory and in the store: the room never keeps a token.

It keeps its own facts (who is away, timeouts in a row, since when a seat is disconnected)
and the per-seat facts of stand-ins and bot processes on the room's seats
(:class:`~server.room.SeatSlot`); it acts on the event loop, when the room handles a
message or reads its clock, or when the server has the room start its bots.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import engine
from server.store import seat_set
from server.tokens import hash_token, new_token

if TYPE_CHECKING:
    from server.room import GameRoom, Peer, ProcessExited, SeatSlot

__all__ = [
    "AUTOPLAY_LIMIT",
    "AWAY_AFTER_TIMEOUTS",
    "BOT_RELAUNCHES",
    "PROCESS_WAIT",
    "STANDIN_KIND",
    "AwayPolicy",
    "Launcher",
]

AWAY_AFTER_TIMEOUTS = 2
"""A seat that lets its time run out this many times in a row is marked away."""
STANDIN_KIND = "heuristic"
"""The bot kind that plays a person's seat while they are away."""
AUTOPLAY_LIMIT = 500
"""Default actions played for away seats in one go, at most, before the room reads its queue."""
BOT_RELAUNCHES = 3
"""How many times a bot seat's process is started again after it exits early; after
that the server plays the seat with default actions."""
PROCESS_WAIT = 15.0
"""Seconds an away seat waits for the process started to play it (a bot takes a second or
two to connect) before the server plays the seat's default actions itself; without the wait
a table of bots would play a whole game of defaults for the seat in the meantime."""

Launcher = Callable[[str, str, str, str, bool], None]
"""Starts a bot for a seat: (game, token, kind, name, whether it stands in for an away
person)."""


class AwayPolicy:
    """The away seats of ``room`` and what plays them. ``clock``: the room's, in seconds;
    ``grace``: seconds a disconnected seat waits for its player; ``launcher``: how bots are
    started (None: never, the room plays away seats itself)."""

    def __init__(
        self,
        room: GameRoom,
        clock: Callable[[], float],
        grace: float,
        launcher: Launcher | None = None,
    ) -> None:
        self._room = room
        self._now = clock
        self.grace = grace
        """Seconds a seat may stay disconnected before the server plays it."""
        self.launcher = launcher
        """Starts a bot for a seat (in the server's bot host, or a process of its own);
        its end comes back to the room as :class:`~server.room.ProcessExited` naming the
        hash of that token."""
        self.stop_bot: Callable[[str, str], None] | None = None
        """Called with the game's id and a stand-in's token hash when its person comes
        back: the bot that plays it is stopped (it would otherwise try to come back to a
        seat that is no longer its own)."""
        self.may_stand_in: Callable[[str], bool] | None = None
        """Asked before a stand-in bot is started for an away seat, with the game's id:
        whether the server's caps on bot seats leave room for one (the server counts it
        from then until its bot ends). Without room, the server plays the seat's default
        actions instead."""
        self.away: set[int] = set()
        """Seats the server plays until their owner returns."""
        self.timeouts: dict[int, int] = {}
        """Each seat's timeouts since it last acted itself."""
        self.disconnected_at: dict[int, float | None] = {}
        """When each seat's player lost its connection (None: marked away since)."""

    # --- time -------------------------------------------------------------------------------
    def deadlines(self) -> list[float]:
        """When the policy must next look at the clock: grace periods and waits for
        processes running out."""
        times: list[float] = []
        if self.disconnected_at:
            grace = self.grace
            times.extend(t + grace for t in self.disconnected_at.values() if t is not None)
        for slot in self._room.seats:
            if slot is not None and slot.launched_at is not None:
                times.append(slot.launched_at + PROCESS_WAIT)
        return times

    def expire(self, now: float) -> None:
        """Seats disconnected past the grace period are marked away; seats whose process
        has not connected within :data:`PROCESS_WAIT` wait for it no more."""
        room = self._room
        for seat, t in list(self.disconnected_at.items()):
            if t is not None and t + self.grace <= now:
                self.disconnected_at[seat] = None
                self.set_away(seat, True)
        for seat, slot in enumerate(room.seats):
            if slot is None or slot.launched_at is None or slot.launched_at + PROCESS_WAIT > now:
                continue
            slot.launched_at = None  # it did not come: the server plays the seat
            room.log.warning("room.process_late", seat=seat, waited=PROCESS_WAIT)

    def timed_out(self, seat: int) -> None:
        """``seat``'s time ran out (the room plays its default action): one more timeout in
        a row, and away after :data:`AWAY_AFTER_TIMEOUTS`."""
        self.timeouts[seat] = self.timeouts.get(seat, 0) + 1
        if self.timeouts[seat] >= AWAY_AFTER_TIMEOUTS:
            self.set_away(seat, True)
        self._room.log.info("room.timeout", seat=seat, timeouts=self.timeouts[seat])

    # --- who is away ------------------------------------------------------------------------
    def set_away(self, seat: int, away: bool) -> None:
        """Mark ``seat`` away (and start what plays it) or back (and close its stand-in);
        everyone is told the roster."""
        if (seat in self.away) == away:
            return
        room = self._room
        slot = room.seats[seat]
        if away:
            self.away.add(seat)
            if slot is not None and self.launcher is not None and not room.over:
                if slot.bot is not None:  # a bot seat lost its process: start it again
                    self._relaunch(seat)
                elif self.may_stand_in is None or self.may_stand_in(room.id):
                    token = new_token()
                    slot.standin_hash = hash_token(token)
                    slot.launched_at = self._now()
                    self.launcher(room.id, token, STANDIN_KIND, f"{slot.name}-bot", True)
                else:  # the server's bot seats are all taken: it plays the seat itself
                    room.log.warning("room.no_stand_in", seat=seat)
        else:
            self.away.discard(seat)
            self.timeouts[seat] = 0
            if slot is not None and slot.standin_hash is not None and self.stop_bot is not None:
                self.stop_bot(room.id, slot.standin_hash)  # ended, not left to come back
            if slot is not None and slot.standin is not None:
                slot.peers.discard(slot.standin)
                room.outbox.send(slot.standin, None)  # the owner is back: the stand-in goes
            if slot is not None:
                slot.standin = slot.standin_hash = slot.launched_at = None
        room.log.info("room.away", seat=seat, away=away)
        room.broadcast_players()

    def disconnected(self, seat: int) -> None:
        """``seat``'s player has no connection left: away if not back within the grace
        period."""
        self.disconnected_at[seat] = self._now()

    def returned(self, seat: int) -> None:
        """``seat``'s player rejoined: the seat is theirs again."""
        self.disconnected_at.pop(seat, None)
        self.set_away(seat, False)

    def acted(self, seat: int) -> None:
        """``seat``'s player acted in person: the seat is theirs again, and its timeouts
        in a row start afresh."""
        self.set_away(seat, False)
        self.timeouts[seat] = 0  # away after timeouts in a row only

    def owner_gone(self, seat: int, slot: SeatSlot) -> None:
        """The last connection of ``seat``'s own player went in a game going on: the
        server's own bot seat is played by the server at once; a person's seat after the
        grace period."""
        if slot.bot is not None:
            self.set_away(seat, True)
            self.autoplay()
        else:
            self.disconnected(seat)

    def stand_in_gone(self, slot: SeatSlot) -> None:
        """The stand-in of ``slot`` lost its connection: the server plays the seat
        meanwhile."""
        slot.standin = None
        self.autoplay()

    def autoplay(self) -> None:
        """Play the default action for away seats that must act, while someone present
        still plays (a table of absent players waits for one to return)."""
        if not self.away:
            return
        room = self._room
        for _ in range(AUTOPLAY_LIMIT):
            if room.stopped:
                return
            present = [i for i in range(len(room.seats)) if i not in self.away]
            if room.over or not present or not room.started:
                return
            due = [
                q
                for q in engine.seats_to_act(room.state)
                if q in self.away and self._stand_in(q) is None and not self._awaiting(q)
            ]
            if not due:
                return
            room.play(due[0], engine.default_action(room.state, due[0]))

    def _awaiting(self, seat: int) -> bool:
        """Whether the seat waits for a process started to play it (see PROCESS_WAIT)."""
        slot = self._room.seats[seat]
        return slot is not None and slot.launched_at is not None

    def _stand_in(self, seat: int) -> Peer | None:
        slot = self._room.seats[seat]
        return None if slot is None else slot.standin

    # --- the bots' processes ----------------------------------------------------------------
    def process_exited(self, msg: ProcessExited) -> None:
        """A bot process of this room ended. Before the game is over that is a failure
        (a crash, or it could not connect): its seat becomes away, so the server plays it,
        and a bot seat's process is started again a few times."""
        room = self._room
        for seat, slot in enumerate(room.seats):
            if slot is None:
                continue
            if slot.bot is not None and slot.token_hash == msg.token_hash:
                slot.running = max(0, slot.running - 1)
                slot.launched_at = None
                if room.over or slot.owners():
                    return  # finished, or still connected: its drop will follow
                room.log.warning("room.bot_exited", seat=seat, code=msg.code)
                if seat in self.away:
                    self._relaunch(seat)
                else:
                    self.set_away(seat, True)
                self.autoplay()
                return
            if slot.standin_hash == msg.token_hash and slot.standin is None:
                slot.launched_at = None  # it never connected: the server plays the seat
                if room.over:
                    room.log.info("room.stand_in_exited", seat=seat, code=msg.code)
                    return
                room.log.warning("room.stand_in_exited", seat=seat, code=msg.code)
                self.autoplay()
                return

    def _relaunch(self, seat: int) -> None:
        """Start a bot seat's process again, unless one is still running or it has
        failed too often."""
        slot = self._room.seats[seat]
        if slot is None or slot.bot is None or self.launcher is None or slot.running > 0:
            return
        if slot.launches >= BOT_RELAUNCHES:
            self._room.log.warning("room.bot_given_up", seat=seat, launches=slot.launches)
            return
        slot.launches += 1
        slot.launched_at = self._now()
        self._launch(seat)

    def launch_bots(self) -> None:
        """Start a process for every bot seat of a running game (they connect back with
        their tokens like any player)."""
        room = self._room
        if self.launcher is None or not room.started or room.over:
            return
        for seat, slot in enumerate(room.seats):
            if slot is not None and slot.bot is not None:
                self._launch(seat)

    def _launch(self, seat: int) -> None:
        """Start a process for a bot seat with a fresh token, whose hash replaces the
        seat's (in memory and in the store): the room never keeps a token, so each process
        it starts is given one of its own."""
        room = self._room
        slot = room.seats[seat]
        assert slot is not None and slot.bot is not None and self.launcher is not None
        token = new_token()
        slot.token_hash = hash_token(token)
        room.outbox.write(seat_set(room.id, seat, slot.token_hash, slot.name, slot.bot))
        slot.running += 1
        self.launcher(room.id, token, slot.bot, slot.name, False)
