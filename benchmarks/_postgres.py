"""Shared by the benchmark scripts: a PostgreSQL server of a run's own."""

from __future__ import annotations

import contextlib
import tempfile
import warnings
from collections.abc import Iterator


@contextlib.contextmanager
def own_postgres() -> Iterator[str]:
    """A PostgreSQL server (pgserver's) in a temporary folder, its URL; stopped and removed
    at the end."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver

    with tempfile.TemporaryDirectory(prefix="pg") as data:
        server = pgserver.get_server(data, cleanup_mode="stop")
        try:
            yield str(server.get_uri())
        finally:
            server.cleanup()
