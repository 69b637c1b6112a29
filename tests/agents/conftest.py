from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.app import HexhavenServer
from tests.agents.helpers import Served


@pytest.fixture
async def served() -> AsyncIterator[Served]:
    """A real server on 127.0.0.1 on a free port, stopped after the test."""
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        yield Served(srv, srv.port_of(ws_server))
