"""Structured logs: one JSON object per line, with the game id and seat where they apply."""

from __future__ import annotations

import logging
import sys
from typing import TextIO

import structlog

LIBRARIES = ("psycopg", "mcp")
"""The libraries whose warnings are logged as JSON lines beside the project's: the
PostgreSQL driver (its pool's connection attempts) and the MCP SDK (``hexhaven mcp``)."""


def configure_logging(level: str = "info", stream: TextIO | None = None) -> None:
    """Send structlog's events as JSON lines to standard error (or ``stream``), and the
    warnings of the :data:`LIBRARIES` as JSON lines beside them."""
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]
        ),
        logger_factory=structlog.PrintLoggerFactory(stream or sys.stderr),
        cache_logger_on_first_use=stream is None,
    )
    driver = logging.StreamHandler(stream or sys.stderr)
    driver.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.JSONRenderer(),
            ],
            foreign_pre_chain=[
                structlog.stdlib.add_log_level,
                structlog.stdlib.add_logger_name,
                structlog.processors.TimeStamper(fmt="iso", utc=True),
            ],
        )
    )
    for name in LIBRARIES:
        library = logging.getLogger(name)
        library.handlers = [driver]
        library.setLevel(max(logging.WARNING, logging.getLevelNamesMapping()[level.upper()]))
        library.propagate = False
