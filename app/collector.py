"""The garbage collector's settings for the long-running processes: ``hexhaven serve``, the
terminal UI (with ``hexhaven play``'s embedded server), and the test suite's workers."""

from __future__ import annotations

import gc

GC_THRESHOLDS = (10_000, 5, 400)
"""The garbage collector's thresholds: young objects collected after 10,000 allocations (not
700); the middle generation after 5 young collections (not 10), so that it stays small; a
full collection considered after 400 middle ones (not 10)."""


def short_collections() -> None:
    """Keep the garbage collector's pauses short and rare in a long-running process. A full
    collection scans every object and stops everything meanwhile: 50-150 ms in a server
    with a few hundred games open (benchmarks/server_load.py), about 110 ms in the terminal
    UI during a game, up to 3 s in a test worker. So what start-up made (modules, models,
    resumed games) is frozen out of the scans, and full collections are rare
    (:data:`GC_THRESHOLDS`). A middle collection scans what the last young ones kept
    (games' new actions and events): after 20 young ones it took up to 100 ms with 240
    games playing, after 5 it takes up to about 30."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
