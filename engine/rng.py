"""The game's own random numbers: SplitMix64, whose whole state is one 64-bit int.

The state lives in the game state, so copying a game copies its RNG for free and a game
replays bit for bit from its seed on any Python version. Nothing in the engine uses the
global ``random`` module.
"""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import Final, TypeVar

_MASK: Final = (1 << 64) - 1
_GAMMA: Final = 0x9E3779B97F4A7C15
T = TypeVar("T")


def step(state: int) -> tuple[int, int]:
    """Advance a SplitMix64 state; returns ``(new_state, 64-bit output)``."""
    state = (state + _GAMMA) & _MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return state, z ^ (z >> 31)


def seed_state(seed: int, stream: int = 0) -> int:
    """A starting state for a seed; different ``stream`` values give independent sequences."""
    _, out = step((seed * 0x2545F4914F6CDD1D + stream * _GAMMA) & _MASK)
    return out


class Rng:
    """A small seeded generator over :func:`step`, for board set-up and tests."""

    __slots__ = ("state",)

    def __init__(self, seed: int, stream: int = 0) -> None:
        self.state = seed_state(seed, stream)

    def next64(self) -> int:
        self.state, out = step(self.state)
        return out

    def randrange(self, n: int) -> int:
        """A uniform int in ``[0, n)``; ``n`` must be positive and far below 2**64."""
        return self.next64() % n

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher-Yates shuffle in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.randrange(i + 1)
            items[i], items[j] = items[j], items[i]
