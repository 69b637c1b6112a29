"""Stores for the ladder tests: a SQLite file, and a real PostgreSQL server (pgserver ships
its binaries) started once for the session with a fresh database per test."""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.threaded_server import server_in_thread

_databases = itertools.count()


@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with warnings.catch_warnings():  # platformdirs: no XDG_RUNTIME_DIR in CI
        warnings.simplefilter("ignore")
        import pgserver

        server = pgserver.get_server(tmp_path_factory.mktemp("pg"), cleanup_mode="stop")
    try:
        yield server
    finally:
        server.cleanup()


@pytest.fixture
def postgres_url(postgres_server: Any) -> str:
    """A fresh, empty PostgreSQL database's URL."""
    import psycopg

    name = f"ladder_{next(_databases)}"
    uri: str = postgres_server.get_uri()
    with psycopg.connect(uri, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return uri.replace("/postgres?", f"/{name}?")


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Each store kind in turn: a SQLite path or a PostgreSQL URL."""
    if request.param == "sqlite":
        return str(tmp_path / "games.db")
    url: str = request.getfixturevalue("postgres_url")
    return url


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
