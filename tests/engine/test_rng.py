"""The game's RNG: SplitMix64, computed on whole ints or in 32-bit halves (the compiled
build's way), with the same numbers either way. CI runs this file in both builds."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import rng

states = st.integers(min_value=0, max_value=(1 << 64) - 1)
edges = st.sampled_from([0, 1, (1 << 32) - 1, 1 << 32, (1 << 62) - 1, 1 << 63, (1 << 64) - 1])
moduli = st.integers(min_value=1, max_value=(1 << 31) - 1)


def test_the_first_outputs_from_state_zero_are_splitmix64s() -> None:
    # The reference generator (Steele, Lea and Flood; Vigna's splitmix64.c) from x = 0.
    state = 0
    outputs = []
    for _ in range(3):
        state, out = rng.step(state)
        outputs.append(out)
    assert outputs == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


@given(states | edges)
def test_the_halves_give_the_whole_ints_state_and_output(state: int) -> None:
    new, hi, lo = rng._step_halves(state)
    assert 0 <= hi < 1 << 32 and 0 <= lo < 1 << 32
    assert (new, (hi << 32) | lo) == rng._step_whole(state)
    assert rng.step(state) == rng._step_whole(state)


@given(states | edges, moduli | st.integers(min_value=1, max_value=60))
def test_draws_reduce_the_output(state: int, n: int) -> None:
    new, out = rng._step_whole(state)
    assert rng.draw(state, n) == rng._draw_halves(state, n) == (new, out % n)
    expected = (new, out % n, (out >> 8) % n)
    assert rng.draw_two(state, n) == rng._draw_two_halves(state, n) == expected


def test_a_walk_of_draws_matches_the_whole_ints() -> None:
    a = b = rng.seed_state(7)
    for i in range(2000):
        n = 6 if i % 3 else 1 + i % 25
        a, x = rng.draw(a, n)
        b, out = rng._step_whole(b)
        assert (a, x) == (b, out % n)


@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_the_rng_shuffles_alike_from_a_seed(seed: int) -> None:
    first, second = list(range(30)), list(range(30))
    rng.Rng(seed).shuffle(first)
    rng.Rng(seed).shuffle(second)
    assert first == second and sorted(first) == list(range(30)) and first != list(range(30))
