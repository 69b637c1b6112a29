"""How the project's programs start one another: the ``hexhaven`` command as a child
process (a bot, a bot host, an agent's bridge)."""

from __future__ import annotations

import sys


def hexhaven_command(*args: str) -> list[str]:
    """The command line of ``hexhaven ARGS...`` run by this interpreter. ``-P`` leaves the
    working directory off the import path, so a child started in a clone runs Hexhaven as
    installed (compiled, with a regular install), not the sources beside it."""
    return [sys.executable, "-P", "-m", "app.cli", *args]
