"""A room's outbox: what the room says leaves in the order it was made, each message once
every write the room queued before it is committed.

The room queues its writes here (:meth:`Outbox.write`, through
:meth:`server.store.Store.queue`) without waiting, and sends its messages here
(:meth:`Outbox.send`). A message made while none of the room's writes waits, and with
nothing held before it, leaves at once; any other is held, with the number of writes
queued when it was made, until the store's writer says (:meth:`Outbox.stored`, on the event
loop) that those writes are committed. So nobody hears of a state the store does not hold,
and no message overtakes one made before it.

A write that was not stored is the room's to handle (the outbox tells it); when the room
stops (that write failed, or another process plays its game now) it stops its outbox
(:meth:`Outbox.stop`): what it holds is dropped, and nothing more is written or sent
through it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

from protocol.payloads import WireModel
from server.store import Store, Write, WriteFailed

if TYPE_CHECKING:
    from server.room import Peer

__all__ = ["Outbox"]


class Outbox:
    """One room's messages on their way out, and its writes on their way to ``store``.
    ``failed`` is told when a write of the room was not stored (the room stops)."""

    def __init__(self, store: Store, failed: Callable[[BaseException], None]) -> None:
        self._store = store
        self._failed = failed
        self.stopped = False
        """Nothing more is written or sent (:meth:`stop`)."""
        self._queued = 0
        """Writes queued for the store's writer so far..."""
        self._committed = 0
        """...and how many of them it has committed (the first queued first)."""
        self._held: deque[tuple[int, Peer, WireModel | None]] = deque()
        """Messages (None: a close) waiting for the writes queued before them, in order,
        each with how many writes had been queued when it was made."""

    def write(self, write: Write) -> None:
        """Queue a write of the room's game; what the room sends from now on waits for its
        commit. Nothing is written once stopped. Without a writer running the write is
        made at once; if that fails, ``failed`` is told and the error raised."""
        if self.stopped:
            return
        try:
            queued = self._store.queue(write, self)
        except Exception as exc:  # no writer runs, and writing at once failed
            self._failed(exc)
            raise
        if queued:  # else written at once (no writer runs): nothing to wait for
            self._queued += 1

    def send(self, peer: Peer, message: WireModel | None) -> None:
        """Send ``message`` to ``peer`` (None: close it after what it was sent), after what
        the room sent before and once every write queued before it is committed."""
        if self.stopped:
            return
        if self._held or self._committed < self._queued:
            self._held.append((self._queued, peer, message))
        else:
            _out(peer, message)

    def stored(self, count: int, failure: WriteFailed | None) -> None:
        """The store's word on a group commit (on the event loop): ``count`` more of the
        room's writes are committed, so what waited for them is sent, in order; with a
        ``failure``, ``failed`` is told."""
        if self.stopped:
            return
        self._committed += count
        held = self._held
        while held and held[0][0] <= self._committed:
            _, peer, message = held.popleft()
            _out(peer, message)
        if failure is not None:
            self._failed(failure)

    def stop(self) -> int:
        """Write and send nothing more; drop what is held. Returns how many messages were
        dropped."""
        self.stopped = True
        dropped = len(self._held)
        self._held.clear()
        return dropped


def _out(peer: Peer, message: WireModel | None) -> None:
    """Hand a message to its connection now (None: close it)."""
    if message is None:
        peer.close()
    else:
        peer.send(message)
