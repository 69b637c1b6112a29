"""Shared by the benchmark scripts: run on one core, so figures compare run to run."""

from __future__ import annotations

import os


def pin_to_one_core() -> str:
    """Restrict this process to one CPU (where the OS allows it); names the core."""
    if hasattr(os, "sched_getaffinity") and hasattr(os, "sched_setaffinity"):
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"pinned to cpu {cpu}"
    return "not pinned (no sched_setaffinity on this platform)"
