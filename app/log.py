"""Structured logs: one JSON object per line, with the game id and seat where they apply."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import structlog

LIBRARIES = ("psycopg", "mcp")
"""The libraries whose warnings are logged as JSON lines beside the project's: the
PostgreSQL driver (its pool's connection attempts) and the MCP SDK (``hexhaven mcp``)."""
LOG_FILE_ENV = "HEXHAVEN_LOG_FILE"
"""The environment variable that sends the logs of the processes a program starts (the
embedded server's bot host and its search workers) to a file instead of the standard error
they share with it: ``hexhaven play`` sets it to its ``play.log``, so that nothing but the
terminal UI writes to the terminal."""


def _foreign_handler(stream: TextIO) -> logging.Handler:
    """A handler that writes standard-library log records as JSON lines on ``stream``."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(
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
    return handler


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
        # one write a line, its newline included: with unbuffered standard error
        # (PYTHONUNBUFFERED) a print writes the two apart, and a line another process
        # appends to the same file meanwhile lands between them
        logger_factory=structlog.WriteLoggerFactory(stream or sys.stderr),
        cache_logger_on_first_use=stream is None,
    )
    driver = _foreign_handler(stream or sys.stderr)
    for name in LIBRARIES:
        library = logging.getLogger(name)
        library.handlers = [driver]
        library.setLevel(max(logging.WARNING, logging.getLevelNamesMapping()[level.upper()]))
        library.propagate = False


def stderr_to_log_file() -> None:
    """Where :data:`LOG_FILE_ENV` names a file, point this process's standard error at it
    (appending; the file is created if need be), so that its logs, its tracebacks and the
    output of the processes it starts go there. Nothing happens when it is unset, or when
    the file cannot be opened (the logs stay on standard error)."""
    path = os.environ.get(LOG_FILE_ENV)
    if not path:
        return
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    except OSError:
        return
    sys.stderr.flush()
    os.dup2(fd, sys.stderr.fileno())
    os.close(fd)


@contextlib.contextmanager
def logs_in_file(path: Path, level: str = "info") -> Iterator[TextIO]:
    """Within the block, this process's logs (structlog's, and the warnings of every
    standard-library logger) go to ``path`` as JSON lines, and so do those of the
    processes started meanwhile (:data:`LOG_FILE_ENV`); standard error is left to the
    program. The file is open (appending) in the block; after it, the file is closed and
    the logging set-up is as it was before."""
    file = path.open("a", encoding="utf-8")
    before_env = os.environ.get(LOG_FILE_ENV)
    before_structlog = structlog.get_config()
    libraries = [logging.getLogger(name) for name in LIBRARIES]
    before_libraries = [(lib.handlers, lib.level, lib.propagate) for lib in libraries]
    root = logging.getLogger()
    handler = _foreign_handler(file)
    handler.setLevel(logging.WARNING)
    os.environ[LOG_FILE_ENV] = str(path)
    root.addHandler(handler)
    try:
        configure_logging(level, file)
        yield file
    finally:
        root.removeHandler(handler)
        for lib, (handlers, lib_level, propagate) in zip(libraries, before_libraries, strict=True):
            lib.handlers, lib.propagate = handlers, propagate
            lib.setLevel(lib_level)
        structlog.configure(**before_structlog)
        if before_env is None:
            os.environ.pop(LOG_FILE_ENV, None)
        else:
            os.environ[LOG_FILE_ENV] = before_env
        file.close()
