"""A real server for the ladder tests (the stores, SQLite and PostgreSQL, are in
tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.threaded_server import server_in_thread


@pytest.fixture
def server_url(served: tuple[str, Any]) -> str:
    """The URL of :func:`served`'s server."""
    return served[0]


@pytest.fixture
def served() -> Iterator[tuple[str, Any]]:
    """A real server on 127.0.0.1 on a free port, in its own thread and event loop (the
    ladder runs its own loop), stopped after the test: its URL and the server."""
    with server_in_thread("ladder-test-server") as pair:
        yield pair
