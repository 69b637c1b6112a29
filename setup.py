"""Build hook: with HEXHAVEN_COMPILE=1 the engine's hot modules and the rollouts
(``bots/playout.py``) are compiled with mypyc.

The engine is plain, typed Python and runs as such by default (editable installs, tests).
A compiled build runs the same source about twice as fast, for bots and benchmarks::

    HEXHAVEN_COMPILE=1 .venv/bin/pip install --no-build-isolation .

(``--no-build-isolation`` uses the mypy already in the environment, from the ``test``
extra.) The action and event dataclasses stay interpreted, so malformed actions still reach
the engine's own checks.
"""

from __future__ import annotations

import os

from setuptools import setup

COMPILED = [
    "engine/board.py",
    "engine/constants.py",
    "engine/defaults.py",
    "engine/errors.py",
    "engine/longest.py",
    "engine/notation.py",
    "engine/pieces.py",
    "engine/replay.py",
    "engine/rng.py",
    "engine/rules.py",
    "engine/state.py",
    "engine/tables.py",
    "engine/topology.py",
    "engine/view.py",
    "bots/playout.py",
]

ext_modules = []
if os.environ.get("HEXHAVEN_COMPILE") == "1":
    from mypyc.build import mypycify

    ext_modules = mypycify(COMPILED, opt_level="3")

setup(ext_modules=ext_modules)
