"""The server's tasks, in one tracked set: every task the server starts (a room's, a bot's,
an answer read from the store, a board being made, the background loops) is held here
until it ends, and all of them are cancelled together when the server stops."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

__all__ = ["Tasks"]


class Tasks:
    """Tasks started and not ended yet."""

    def __init__(self) -> None:
        self._running: set[asyncio.Task[None]] = set()

    def start(self, job: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        """Run ``job`` as a task named ``name``, held until it ends."""
        task = asyncio.create_task(job, name=name)
        self._running.add(task)
        task.add_done_callback(self._running.discard)
        return task

    async def cancel(self) -> None:
        """Cancel every task held and wait for them all to end (what they raise is not
        raised here)."""
        for task in self._running:
            task.cancel()
        await asyncio.gather(*self._running, return_exceptions=True)
        self._running.clear()
