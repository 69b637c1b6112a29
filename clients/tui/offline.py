"""A transport with no server: it delivers the messages it is given and keeps what the UI
sends. For tests, screenshots and demonstrations of positions built with the engine."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

from protocol.payloads import WireModel


class OfflineTransport:
    """See the module docstring. :meth:`push` delivers messages while the UI runs."""

    def __init__(self, messages: Iterable[Any] = ()) -> None:
        self.pending: list[Any] = list(messages)
        self.sent: list[WireModel] = []
        self.connected = True
        self._deliver: Callable[[Any], None] | None = None
        self._status: Callable[[str, str], None] | None = None
        self._stop = asyncio.Event()

    async def run(self, deliver: Callable[[Any], None], status: Callable[[str, str], None]) -> None:
        self._deliver, self._status = deliver, status
        status("connected", "offline")
        for message in self.pending:
            deliver(message)
        self.pending.clear()
        await self._stop.wait()

    def push(self, *messages: Any) -> None:
        """Deliver messages now (or as soon as the UI runs)."""
        if self._deliver is None:
            self.pending.extend(messages)
            return
        for message in messages:
            self._deliver(message)

    def set_status(self, state: str, note: str = "") -> None:
        """Pretend the connection was lost (``lost``) or is back (``connected``)."""
        self.connected = state == "connected"
        if self._status is not None:
            self._status(state, note)

    async def send(self, message: WireModel) -> bool:
        if not self.connected:
            return False
        self.sent.append(message)
        return True

    def stop(self) -> None:
        self._stop.set()
