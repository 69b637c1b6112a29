"""Keeping a seat's :class:`~bots.belief.HandTracker` up to date from the SDK's hooks."""

from __future__ import annotations

from typing import Any

from bots.belief import HandTracker
from clients.sdk import Table
from protocol.payloads import event_to_engine, view_to_engine


def track(tracker: HandTracker | None, event: Any, table: Table) -> HandTracker | None:
    """The tracker after ``event`` (a wire event the seat saw). The first time the table
    holds a seat's view, a tracker starts from it and the events since it (this one
    included); before that there is none."""
    if tracker is not None:
        tracker.observe(event_to_engine(event))
        return tracker
    if table.view is None or table.view.seat is None:
        return None
    tracker = HandTracker(view_to_engine(table.view))
    for e in table.events:
        tracker.observe(event_to_engine(e))
    return tracker
