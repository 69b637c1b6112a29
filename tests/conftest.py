"""Fixtures for every test; the stores: a SQLite file, and a real PostgreSQL server
(pgserver ships its binaries) started once for the session, with a fresh database per
test."""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog

_databases = itertools.count()


@pytest.fixture(autouse=True)
def _structlog_defaults_after_each_test() -> Iterator[None]:
    """Commands run in-process (``hexhaven ladder``, ``agent``, ``bot``) configure
    structlog for the whole process, e.g. to warnings only; put the defaults back so that
    a later test sees (and can capture) every event."""
    yield
    structlog.reset_defaults()


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

    name = f"test_{next(_databases)}"
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
