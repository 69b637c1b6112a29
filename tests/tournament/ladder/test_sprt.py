"""The sequential test: hand-worked log-likelihood ratios, its bounds, and its error rates on
seeded synthetic results."""

from __future__ import annotations

import math
import random

import pytest

from tournament.ladder.sprt import DEFAULT_P0, DEFAULT_P1, SPRT, elo_to_p


def feed(test: SPRT, results: str) -> None:
    """Add results written as W (A won) and L (A lost)."""
    for r in results:
        test.add(r == "W")


def test_bounds_are_walds() -> None:
    test = SPRT(0.5, 0.6)
    assert test.lower == pytest.approx(math.log(0.05 / 0.95))
    assert test.upper == pytest.approx(math.log(0.95 / 0.05))
    assert (round(test.lower, 2), round(test.upper, 2)) == (-2.94, 2.94)
    other = SPRT(0.5, 0.6, alpha=0.1, beta=0.2)
    assert other.lower == pytest.approx(math.log(0.2 / 0.9))
    assert other.upper == pytest.approx(math.log(0.8 / 0.1))


def test_hand_worked_llr() -> None:
    test = SPRT(0.5, 0.6)
    assert (test.llr, test.games, test.decision) == (0.0, 0, None)
    feed(test, "WWL")  # (0.6/0.5)^2 * (0.4/0.5) = 1.2 * 1.2 * 0.8
    assert test.llr == pytest.approx(math.log(1.152))
    assert (test.wins, test.losses, test.games) == (2, 1, 3)
    other = SPRT(0.4, 0.5)
    feed(other, "LL")  # (0.5/0.6)^2
    assert other.llr == pytest.approx(math.log(25 / 36))
    feed(other, "W")  # * 0.5/0.4
    assert other.llr == pytest.approx(math.log(25 / 36 * 5 / 4))


def test_decides_h1_on_the_first_result_past_the_upper_bound() -> None:
    # Each win adds log 1.2 = 0.182; log 19 = 2.944 needs 17 wins (16 give 2.917).
    test = SPRT(0.5, 0.6)
    feed(test, "W" * 16)
    assert test.decision is None
    feed(test, "W")
    assert test.decision == "H1"
    assert test.llr == pytest.approx(17 * math.log(1.2))


def test_decides_h0_on_the_first_result_past_the_lower_bound() -> None:
    # Each loss adds log 0.8 = -0.223; -2.944 needs 14 losses (13 give -2.901).
    test = SPRT(0.5, 0.6)
    feed(test, "L" * 13)
    assert test.decision is None
    feed(test, "L")
    assert test.decision == "H0"


def test_stays_decided() -> None:
    test = SPRT(0.5, 0.6)
    feed(test, "W" * 17)
    feed(test, "L" * 40)
    assert test.llr < test.lower
    assert test.decision == "H1"
    assert (test.wins, test.losses) == (17, 40)


def test_status_line() -> None:
    test = SPRT(0.5, 0.6)
    feed(test, "WWL")
    assert test.status() == "games 3  A 2-1  LLR 0.14 in [-2.94, 2.94]"
    feed(test, "W" * 16)
    assert test.status().endswith("  decided H1")


def _decide(p: float, p0: float, p1: float, seed: int) -> str | None:
    """Run one test on Bernoulli(p) results from a seeded generator until it decides."""
    rng = random.Random(seed)
    test = SPRT(p0, p1)
    for _ in range(100_000):
        test.add(rng.random() < p)
        if test.decision is not None:
            return test.decision
    return None


RUNS = 200


def test_decides_h1_when_a_is_stronger() -> None:
    decisions = [_decide(0.7, 0.5, 0.65, seed) for seed in range(RUNS)]
    assert None not in decisions
    # Wald: P(H0 | p = p1) <= about beta = 0.05; p = 0.7 is further from p0 still.
    assert decisions.count("H0") < 2 * 0.05 * RUNS
    assert decisions.count("H1") > RUNS // 2


def test_decides_h0_when_there_is_no_difference() -> None:
    decisions = [_decide(0.5, 0.5, 0.65, 10_000 + seed) for seed in range(RUNS)]
    assert None not in decisions
    # Wald: P(H1 | p = p0) <= about alpha = 0.05.
    assert decisions.count("H1") < 2 * 0.05 * RUNS
    assert decisions.count("H0") > RUNS // 2


def test_elo_to_p() -> None:
    assert elo_to_p(0) == 0.5
    assert elo_to_p(400) == pytest.approx(10 / 11)
    assert elo_to_p(-400) == pytest.approx(1 / 11)
    assert elo_to_p(35) + elo_to_p(-35) == pytest.approx(1.0)
    test = SPRT.from_elo(0, 70)
    assert test.p0 == 0.5
    assert test.p1 == pytest.approx(1 / (1 + 10 ** (-70 / 400)))


def test_recommended_defaults_are_a_valid_test() -> None:
    test = SPRT(DEFAULT_P0, DEFAULT_P1)
    assert (test.p0, test.p1, test.alpha, test.beta) == (0.5, 0.6, 0.05, 0.05)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0.0, 0.6), "p0"),
        ((0.5, 1.0), "p1"),
        ((-0.1, 0.6), "p0"),
        ((0.6, 0.6), "greater than p0"),
        ((0.6, 0.5), "greater than p0"),
        ((0.5, 0.6, 0.0), "alpha"),
        ((0.5, 0.6, 0.5), "alpha"),
        ((0.5, 0.6, 0.05, 0.0), "beta"),
        ((0.5, 0.6, 0.05, 0.7), "beta"),
    ],
)
def test_bad_parameters_raise(args: tuple[float, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SPRT(*args)


def test_elo_hypotheses_must_be_in_order() -> None:
    with pytest.raises(ValueError, match="greater than p0"):
        SPRT.from_elo(35, 0)
