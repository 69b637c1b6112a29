"""The game's own random numbers: SplitMix64, whose whole state is one 64-bit int.

The state lives in the game state, so copying a game copies its RNG for free and a game
replays bit for bit from its seed on any Python version. Nothing in the engine uses the
global ``random`` module. A game state holds it as two 32-bit halves (``rng_hi``,
``rng_lo``, with ``rng`` the whole), which the compiled build keeps unboxed, and the rules
draw through :func:`draw_split` and :func:`draw_two_split`.

Two ways compute the same numbers. The plain formula on 64-bit ints is the faster one
interpreted. Compiled (``setup.py``), a 64-bit int is a heap object and each operation on it
a call into the interpreter, so the compiled build works in 32-bit halves held in native
64-bit ints instead (:func:`_step_halves`), and :func:`draw` and :func:`draw_two` reduce
the output without ever rebuilding it. The tests check that the two ways agree.
"""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import TYPE_CHECKING, Final, TypeVar

if TYPE_CHECKING:
    from mypy_extensions import i64

_MASK: Final = (1 << 64) - 1
_GAMMA: Final = 0x9E3779B97F4A7C15
_MIX1: Final = 0xBF58476D1CE4E5B9
_MIX2: Final = 0x94D049BB133111EB
_LOW32: Final = 0xFFFFFFFF
_GAMMA_HI: Final = _GAMMA >> 32
_GAMMA_LO: Final = _GAMMA & _LOW32
_SMALL: Final = 1 << 31  # the moduli that :func:`draw` takes
T = TypeVar("T")


def _step_whole(state: int) -> tuple[int, int]:
    """SplitMix64 on whole ints: ``(new_state, 64-bit output)``."""
    state = (state + _GAMMA) & _MASK
    z = state
    z = ((z ^ (z >> 30)) * _MIX1) & _MASK
    z = ((z ^ (z >> 27)) * _MIX2) & _MASK
    return state, z ^ (z >> 31)


def _times(zh: i64, zl: i64, c3: i64, c2: i64, c1: i64, c0: i64) -> tuple[i64, i64]:
    """``(zh:zl) * c mod 2**64`` in 32-bit halves, ``c`` given as four 16-bit pieces
    (``c3`` the highest). No intermediate value reaches 2**51."""
    b = zl * c1
    low = zl * c0 + ((b & 0xFFFF) << 16)
    top = (
        (low >> 32)
        + (b >> 16)
        + zh * c0  # zh * (c1:c0), mod 2**32
        + (((zh * c1) & 0xFFFF) << 16)
        + zl * c2  # zl * (c3:c2), mod 2**32
        + (((zl * c3) & 0xFFFF) << 16)
    )
    return top & _LOW32, low & _LOW32


def _step_halves(state: int) -> tuple[int, int, int]:
    """SplitMix64 in 32-bit halves: ``(new_state, high half, low half of the output)``."""
    hi, lo, out_hi, out_lo = _step_split(state >> 32, state & _LOW32)
    return (hi << 32) | lo, out_hi, out_lo


def _step_split(state_hi: int, state_lo: int) -> tuple[int, int, int, int]:
    """SplitMix64 on a state given as its high and low 32 bits: ``(new state's high half,
    its low half, the output's high half, its low half)``."""
    hi: i64 = state_hi
    lo: i64 = state_lo + _GAMMA_LO
    hi = (hi + _GAMMA_HI + (lo >> 32)) & _LOW32
    lo &= _LOW32
    zh: i64 = hi ^ (hi >> 30)  # z ^= z >> 30
    zl: i64 = lo ^ (((hi << 2) & _LOW32) | (lo >> 30))
    zh, zl = _times(zh, zl, 0xBF58, 0x476D, 0x1CE4, 0xE5B9)  # _MIX1
    zl ^= ((zh << 5) & _LOW32) | (zl >> 27)  # z ^= z >> 27
    zh ^= zh >> 27
    zh, zl = _times(zh, zl, 0x94D0, 0x49BB, 0x1331, 0x11EB)  # _MIX2
    out_lo = zl ^ (((zh << 1) & _LOW32) | (zl >> 31))  # z ^ (z >> 31)
    out_hi = zh ^ (zh >> 31)
    return int(hi), int(lo), int(out_hi), int(out_lo)


def _mod(hi: int, lo: int, n: int) -> int:
    """``(hi * 2**32 + lo) % n`` for halves below 2**32 and ``0 < n < 2**31`` (in native
    ints when compiled: no value here reaches 2**63)."""
    m: i64 = n
    part: i64 = 0x10000 % m
    wrap: i64 = part * part % m  # 2**32 % n
    h: i64 = hi
    low: i64 = lo
    return int((h % m * wrap + low) % m)


def _mod_shifted(hi: int, lo: int, n: int) -> int:
    """``((hi * 2**32 + lo) >> 8) % n``, as :func:`_mod`."""
    return _mod(hi >> 8, ((hi & 0xFF) << 24) | (lo >> 8), n)


# Compiled functions have no ``__code__``: the halves are faster there, whole ints here.
_HALVES: Final = not hasattr(_step_whole, "__code__")


def step(state: int) -> tuple[int, int]:
    """Advance a SplitMix64 state; returns ``(new_state, 64-bit output)``."""
    if _HALVES:
        state, hi, lo = _step_halves(state)
        return state, (hi << 32) | lo
    return _step_whole(state)


def draw(state: int, n: int) -> tuple[int, int]:
    """:func:`step`, with the output taken modulo ``n`` (``0 < n < 2**31``)."""
    if _HALVES:
        return _draw_halves(state, n)
    state, out = _step_whole(state)
    return state, out % n


def draw_two(state: int, n: int) -> tuple[int, int, int]:
    """:func:`step`, with two numbers taken from the output: the output modulo ``n``, and
    the output without its lowest byte modulo ``n`` (``0 < n < 2**31``)."""
    if _HALVES:
        return _draw_two_halves(state, n)
    state, out = _step_whole(state)
    return state, out % n, (out >> 8) % n


def step_split(hi: int, lo: int) -> tuple[int, int, int, int]:
    """:func:`step` on a state given as its high and low 32 bits: ``(new state's high half,
    its low half, the output's high half, its low half)``."""
    if _HALVES:
        return _step_split(hi, lo)
    state, out = _step_whole((hi << 32) | lo)
    return state >> 32, state & _LOW32, out >> 32, out & _LOW32


def draw_split(hi: int, lo: int, n: int) -> tuple[int, int, int]:
    """:func:`draw` on a state given as its high and low 32 bits (as a game state holds
    it): ``(new state's high half, its low half, the output modulo n)``."""
    if _HALVES:
        hi, lo, out_hi, out_lo = _step_split(hi, lo)
        return hi, lo, _mod(out_hi, out_lo, n)
    state, out = _step_whole((hi << 32) | lo)
    return state >> 32, state & _LOW32, out % n


def draw_two_split(hi: int, lo: int, n: int) -> tuple[int, int, int, int]:
    """:func:`draw_two` on a state given as its high and low 32 bits: ``(new state's high
    half, its low half, the first number, the second)``."""
    if _HALVES:
        hi, lo, out_hi, out_lo = _step_split(hi, lo)
        return hi, lo, _mod(out_hi, out_lo, n), _mod_shifted(out_hi, out_lo, n)
    state, out = _step_whole((hi << 32) | lo)
    return state >> 32, state & _LOW32, out % n, (out >> 8) % n


def _draw_halves(state: int, n: int) -> tuple[int, int]:
    state, hi, lo = _step_halves(state)
    return state, _mod(hi, lo, n)


def _draw_two_halves(state: int, n: int) -> tuple[int, int, int]:
    state, hi, lo = _step_halves(state)
    return state, _mod(hi, lo, n), _mod_shifted(hi, lo, n)


def halves(state: int) -> tuple[int, int]:
    """A 64-bit state as its high and low 32 bits (as game states and :class:`Rng` hold it)."""
    return (state >> 32) & _LOW32, state & _LOW32


def whole(hi: int, lo: int) -> int:
    """The 64-bit state whose halves are ``hi`` and ``lo``."""
    return (hi << 32) | lo


def seed_state(seed: int, stream: int = 0) -> int:
    """A starting state for a seed; different ``stream`` values give independent sequences."""
    _, out = step((seed * 0x2545F4914F6CDD1D + stream * _GAMMA) & _MASK)
    return out


class Rng:
    """A small seeded generator over :func:`step`, for board set-up and tests. Its state is
    held in 32-bit halves, as a game state holds its own (``state`` is the whole)."""

    __slots__ = ("hi", "lo")

    hi: int
    lo: int

    def __init__(self, seed: int, stream: int = 0) -> None:
        self.state = seed_state(seed, stream)

    @property
    def state(self) -> int:
        """The SplitMix64 state, a 64-bit int."""
        return whole(self.hi, self.lo)

    @state.setter
    def state(self, value: int) -> None:
        self.hi, self.lo = halves(value)

    def next64(self) -> int:
        self.hi, self.lo, out_hi, out_lo = step_split(self.hi, self.lo)
        return (out_hi << 32) | out_lo

    def randrange(self, n: int) -> int:
        """A uniform int in ``[0, n)``; ``n`` must be positive and far below 2**64."""
        if n < _SMALL:
            self.hi, self.lo, out = draw_split(self.hi, self.lo, n)
            return out
        return self.next64() % n

    def randbelow(self, n: int) -> int:
        """A uniform int in ``[0, n)`` for any positive ``n``, however large (exact: draws
        whole 64-bit words and rejects values past ``n``)."""
        bits = n.bit_length()
        if bits <= 32:  # the top bits of the output's high half
            while True:
                self.hi, self.lo, out_hi, _ = step_split(self.hi, self.lo)
                x = out_hi >> (32 - bits)
                if x < n:
                    return x
        words = (bits + 63) // 64
        while True:
            x = 0
            for _ in range(words):
                x = (x << 64) | self.next64()
            x >>= 64 * words - bits
            if x < n:
                return x

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher-Yates shuffle in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.randrange(i + 1)
            items[i], items[j] = items[j], items[i]
