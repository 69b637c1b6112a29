"""Fixtures for every test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import structlog


@pytest.fixture(autouse=True)
def _structlog_defaults_after_each_test() -> Iterator[None]:
    """Commands run in-process (``hexhaven ladder``, ``agent``, ``bot``) configure
    structlog for the whole process, e.g. to warnings only; put the defaults back so that
    a later test sees (and can capture) every event."""
    yield
    structlog.reset_defaults()
