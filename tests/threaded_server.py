"""A real server in a thread of its own, for tests of commands that run their own event
loop (the arena, the ladder)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from server.app import HexhavenServer
from server.store import Store


@contextlib.contextmanager
def server_in_thread(
    name: str = "test-server", db: Path | None = None
) -> Iterator[tuple[str, HexhavenServer]]:
    """A server on 127.0.0.1 on a free port, in its own thread and event loop, stopped on
    exit: its URL and the server (whose store, in memory or the file ``db``, belongs to
    that thread)."""
    ready = threading.Event()
    state: dict[str, Any] = {}

    async def serve() -> None:
        state["loop"] = asyncio.get_running_loop()
        state["stop"] = asyncio.Event()
        srv = state["server"] = HexhavenServer(Store(db) if db is not None else None)
        async with srv.running("127.0.0.1", 0) as ws_server:
            state["port"] = srv.port_of(ws_server)
            ready.set()
            await state["stop"].wait()

    def run() -> None:
        try:
            asyncio.run(serve())
        except BaseException as exc:  # reported to the test below
            state["error"] = exc
            ready.set()

    thread = threading.Thread(target=run, name=name)
    thread.start()
    try:
        assert ready.wait(10), "the server did not start"
        assert "error" not in state, state.get("error")
        yield f"ws://127.0.0.1:{state['port']}", state["server"]
    finally:
        if "loop" in state:
            state["loop"].call_soon_threadsafe(state["stop"].set)
        thread.join(15)
        assert not thread.is_alive(), "the server did not stop"
