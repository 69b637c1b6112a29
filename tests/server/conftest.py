from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.app import HexhavenServer
from tests.server.client import ManualClock


@pytest.fixture
async def server_port() -> AsyncIterator[int]:
    """A real server on 127.0.0.1 on a free port, stopped after the test."""
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        yield srv.port_of(ws_server)


@pytest.fixture
async def clocked() -> AsyncIterator[tuple[HexhavenServer, ManualClock, int]]:
    """A real server whose games' clock the test moves (:func:`tests.server.client.advance`),
    and its port."""
    clock = ManualClock()
    srv = HexhavenServer(clock=clock)
    async with srv.running("127.0.0.1", 0) as ws_server:
        yield srv, clock, srv.port_of(ws_server)
