"""Stores for the ladder tests: a SQLite file, and a real PostgreSQL server (pgserver ships
its binaries) started once for the session with a fresh database per test."""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

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
    import asyncio
    import threading

    from server.app import HexhavenServer

    ready = threading.Event()
    state: dict[str, Any] = {}

    async def serve() -> None:
        state["loop"] = asyncio.get_running_loop()
        state["stop"] = asyncio.Event()
        srv = state["server"] = HexhavenServer()
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

    thread = threading.Thread(target=run, name="ladder-test-server")
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
