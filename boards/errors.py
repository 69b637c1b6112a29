"""The board lab's exceptions. :class:`BoardLabError` is the root of all of them."""

from __future__ import annotations


class BoardLabError(Exception):
    """Root of every error the board lab raises."""


ORTOOLS_HINT = "OR-Tools is not installed; add it with pip install '.[boards]' in Hexhaven's clone"
"""What a command that needs the constraint model says when OR-Tools is missing."""


class ORToolsMissing(BoardLabError, ImportError):
    """The constraint model needs OR-Tools, which the ``boards`` extra installs; the message
    says how to add it."""

    def __init__(self) -> None:
        super().__init__(f"balanced boards need the constraint model: {ORTOOLS_HINT}")


class NoBoardFound(BoardLabError):
    """The constraint model has no solution, or none was found within the time limit."""


class InvalidBoard(BoardLabError, ValueError):
    """A layout breaks a rule it was asked to keep; ``violations`` names every fault."""

    def __init__(self, violations: list[str]) -> None:
        super().__init__("; ".join(violations))
        self.violations = violations


class BoardFileError(BoardLabError, ValueError):
    """A board file cannot be read as a board; the message says why."""


class OutputError(BoardLabError):
    """A file the board lab was asked to write cannot be written; the message names the
    path and why."""
