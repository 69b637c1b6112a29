"""The logs' set-up: JSON lines, each written whole."""

from __future__ import annotations

import json

import structlog

from app.log import configure_logging


class _Writes:
    """A text stream that keeps each call to ``write`` apart."""

    def __init__(self) -> None:
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        return len(text)

    def flush(self) -> None:
        pass


def test_each_record_is_one_write_with_its_newline() -> None:
    """Processes share the log file (the bot host appends to ``hexhaven play``'s): a record
    written in two calls, as a print writes it on unbuffered standard error, lets another
    process's line in between, and the file then holds two records on one line."""
    stream = _Writes()
    before = structlog.get_config()
    try:
        configure_logging("info", stream)  # type: ignore[arg-type]
        log = structlog.get_logger()
        log.info("first.event", seat=1)
        log.warning("second.event", reason="closed")
    finally:
        structlog.configure(**before)
    assert len(stream.writes) == 2, stream.writes
    assert all(w.endswith("\n") and w.count("\n") == 1 for w in stream.writes)
    events = [json.loads(w)["event"] for w in stream.writes]
    assert events == ["first.event", "second.event"]
