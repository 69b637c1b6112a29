"""What the event loop spends on one queued write of the games store: the write queued,
the writer's word back once its group commit is made, and the room told.

Run it from the repository root (a few seconds)::

    .venv/bin/python benchmarks/store_acks.py
    .venv/bin/python benchmarks/store_acks.py --rooms 16 --rounds 1500

An in-memory store with its writer thread running; each of ``--rooms`` rooms (stand-ins that
only count what they are told) queues one write a round, and the next round starts once
every room has heard of its write, ``--rounds`` times. The event loop's thread's CPU time
(``time.thread_time``) is divided by the writes. The writer's own thread is not counted.

The last line is ``loop_us_per_write: X``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from protocol import messages as m
from server.store import Store, WriteFailed, chat_said


class _Room:
    """Counts the writes the store says are stored; sets ``heard`` when none is left."""

    def __init__(self, waiting: list[int], heard: asyncio.Event) -> None:
        self.waiting = waiting
        self.heard = heard

    def stored(self, count: int, failure: WriteFailed | None) -> None:
        if failure is not None:
            raise failure
        self.waiting[0] -= count
        if self.waiting[0] == 0:
            self.heard.set()


async def _run(rooms: int, rounds: int) -> float:
    store = Store(":memory:")
    for r in range(rooms):
        store.create_game(f"g{r}", m.GameOptions(players=2), 1, "h", None)
    heard = asyncio.Event()
    waiting = [0]
    listeners = [_Room(waiting, heard) for _ in range(rooms)]
    async with store.writing():
        began = time.thread_time()
        for _ in range(rounds):
            heard.clear()
            waiting[0] = rooms
            for r, room in enumerate(listeners):
                store.queue(chat_said(f"g{r}", 0, "p0", "a line"), room)
            await heard.wait()
        spent = time.thread_time() - began
    store.close()
    return spent / (rooms * rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--rooms", type=int, default=16, help="rooms writing at once")
    parser.add_argument("--rounds", type=int, default=1500, help="writes per room")
    args = parser.parse_args()
    per_write = asyncio.run(_run(args.rooms, args.rounds))
    print(f"loop_us_per_write: {1e6 * per_write:.1f}")


if __name__ == "__main__":
    main()
