"""Fixtures for every test; the stores: a SQLite file, and a real PostgreSQL server (the one
$HEXHAVEN_TEST_POSTGRES names, else a pgserver started once for the session), with a fresh
database per test; the hypothesis profiles; the markers of tests that start things."""

from __future__ import annotations

import itertools
import os
import secrets
import warnings
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
import structlog
from hypothesis import settings

from app.collector import short_collections

_databases = itertools.count()

# Property tests draw the same examples on every run (derandomized: a run fails or passes as
# the one before it did); HYPOTHESIS_PROFILE=explore draws new ones each run and keeps the
# failures it finds in .hypothesis/ to try first next time (docs/testing.md).
settings.register_profile("ci", derandomize=True, deadline=None, database=None, print_blob=True)
settings.register_profile("explore", derandomize=False, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: half as many workers again as cores (3 on 2 cores). Many tests spend
    much of their time waiting on servers, bot processes and browsers they started; a third
    worker keeps the cores busy meanwhile (the suite took 434 s on 2 cores against 503 s
    with a worker a core)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, (cores or 1) * 3 // 2)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Once every test module is imported: the garbage collector as a server sets it
    (:func:`app.collector.short_collections`). A worker's heap grows to hundreds of
    megabytes (libraries, terminal apps, examples drawn), and with the default thresholds
    its full collections took up to 3 s each and a fifth of the TUI tests' CPU time
    (tests/clients: 209 s of CPU in one process, 159 s like this)."""
    short_collections()


@pytest.fixture(autouse=True)
def _structlog_defaults_after_each_test() -> Iterator[None]:
    """Commands run in-process (``hexhaven ladder``, ``agent``, ``bot``) configure
    structlog for the whole process, e.g. to warnings only; put the defaults back so that
    a later test sees (and can capture) every event."""
    yield
    structlog.reset_defaults()


POSTGRES_ENV = "HEXHAVEN_TEST_POSTGRES"
"""A PostgreSQL URL whose role may create databases: the tests use that server instead of
starting their own (docs/testing.md)."""


@pytest.fixture(scope="session")
def postgres_admin_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A PostgreSQL server for the session: the one ``$HEXHAVEN_TEST_POSTGRES`` names (the
    databases the tests create there are dropped at the end), else a pgserver started here."""
    given = os.environ.get(POSTGRES_ENV)
    if given:
        created: list[str] = []
        _created[given] = created
        yield given
        _drop(given, created)
        return
    with warnings.catch_warnings():  # platformdirs: no XDG_RUNTIME_DIR in CI
        warnings.simplefilter("ignore")
        import pgserver

        server = pgserver.get_server(tmp_path_factory.mktemp("pg"), cleanup_mode="stop")
    try:
        yield str(server.get_uri())
    finally:
        server.cleanup()


_created: dict[str, list[str]] = {}


def _drop(url: str, names: list[str]) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        for name in names:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
def postgres_url(postgres_admin_url: str) -> str:
    """A fresh, empty PostgreSQL database's URL."""
    import psycopg

    name = f"test_{os.getpid()}_{next(_databases)}_{secrets.token_hex(3)}"
    with psycopg.connect(postgres_admin_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    _created.get(postgres_admin_url, []).append(name)
    return urlunsplit(urlsplit(postgres_admin_url)._replace(path=f"/{name}"))


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Each store kind in turn: a SQLite path or a PostgreSQL URL."""
    if request.param == "sqlite":
        return str(tmp_path / "games.db")
    url: str = request.getfixturevalue("postgres_url")
    return url


# The tests that start things, by file (markers registered in pyproject.toml): select or
# leave them out with -m, e.g. -m "not browser and not terminal". ``postgres`` is added below
# to every test that takes a PostgreSQL database.
_STARTS: dict[str, tuple[str, ...]] = {
    "agents/test_bridge.py": ("server", "subprocess"),
    "agents/test_catanatron.py": ("server",),
    "agents/test_examples.py": ("server", "subprocess"),
    "agents/test_mcp.py": ("server", "subprocess"),
    "agents/test_sdk_play.py": ("server",),
    "app/test_cli_errors.py": ("server", "subprocess"),
    "app/test_install.py": ("subprocess",),
    "app/test_position_cli.py": ("subprocess",),
    "app/test_tokens.py": ("server", "subprocess"),
    "bots/test_catanatron_agent.py": ("server",),
    "bots/test_uct.py": ("subprocess",),
    "bots/test_uct_agent.py": ("subprocess",),
    "clients/test_replay.py": ("server", "subprocess"),
    "clients/test_sdk.py": ("server", "subprocess"),
    "clients/test_sdk_reconnect.py": ("server", "subprocess"),
    "clients/test_tls.py": ("server",),
    "clients/test_tui_game.py": ("server", "subprocess"),
    "clients/test_tui_history.py": ("server",),
    "clients/test_tui_rejoin.py": ("server", "subprocess"),
    "clients/test_tui_tmux.py": ("server", "subprocess", "terminal"),
    "server/test_bad_input.py": ("server",),
    "server/test_board_options.py": ("server",),
    "server/test_bots.py": ("server", "subprocess"),
    "server/test_database_restart.py": ("server", "subprocess", "postgres"),
    "server/test_failover.py": ("server",),
    "server/test_fencing.py": ("server",),
    "server/test_history.py": ("server",),
    "server/test_idle.py": ("server",),
    "server/test_limits.py": ("server", "subprocess"),
    "server/test_lobby.py": ("server", "subprocess"),
    "server/test_metrics.py": ("server",),
    "server/test_play.py": ("server",),
    "server/test_reconnect.py": ("server",),
    "server/test_restart.py": ("server", "subprocess"),
    "server/test_room_failure.py": ("server",),
    "server/test_shared_lobby.py": ("server", "subprocess"),
    "server/test_store_writer.py": ("server", "subprocess"),
    "server/test_timer.py": ("server",),
    "server/test_tls.py": ("server", "subprocess"),
    "server/test_tokens.py": ("server", "subprocess"),
    "server/test_web.py": ("server", "subprocess"),
    "test_engine_docs.py": ("subprocess",),
    "tournament/ladder/test_archive.py": ("subprocess",),
    "tournament/ladder/test_run.py": ("subprocess",),
    "tournament/ladder/test_server.py": ("server", "subprocess"),
    "tournament/test_arena.py": ("server",),
    "web/test_browser.py": ("server", "subprocess", "browser"),
    "web/test_shared.py": ("server", "subprocess", "browser"),
}
_TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        where = item.path.resolve()
        names = (
            _STARTS.get(where.relative_to(_TESTS).as_posix(), ())
            if where.is_relative_to(_TESTS)
            else ()
        )
        for name in names:
            item.add_marker(name)
        callspec = getattr(item, "callspec", None)
        takes_db = callspec is not None and callspec.params.get("db") == "postgres"
        fixtures = set(getattr(item, "fixturenames", ()))
        if takes_db or {"postgres_url", "postgres_admin_url"} & fixtures:
            item.add_marker("postgres")
