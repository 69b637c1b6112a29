"""The ladder's ratings and leaderboard against hand-worked small cases."""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest
from openskill.models import PlackettLuce

from tournament.ladder.ratings import (
    ALL_ENTRANTS,
    DEFAULT_MU,
    DEFAULT_SIGMA,
    Outcome,
    Row,
    SeatRecord,
    format_leaderboard,
    format_seat_records,
    leaderboard,
    leaderboard_markdown,
    rating_history,
    seat_records,
)

# Three small games: C and B tie behind A; A holds two seats, one of which wins; an unfinished
# game (no winner, no timing) where C and B tie on points ahead of A.
G1 = Outcome(("A", "B", "C"), (10, 7, 7), 0, (10, 20, 30), (0.1, 0.4, 0.9))
G2 = Outcome(("A", "A", "B"), (5, 10, 8), 1, (5, 5, 10), (0.05, 0.15, 0.2))
G3 = Outcome(("C", "B", "A"), (6, 6, 4), None)


def by_label(rows: list[Row]) -> dict[str, Row]:
    return {r.label: r for r in rows}


def test_defaults_are_openskills() -> None:
    model = PlackettLuce()
    assert (DEFAULT_MU, DEFAULT_SIGMA) == (model.mu, model.sigma) == (25.0, 25.0 / 3.0)


def test_one_two_player_game_moves_mu_as_openskill_does() -> None:
    rows = by_label(leaderboard([Outcome(("W", "L"), (10, 4), 0)]))
    model = PlackettLuce()
    [[winner], [loser]] = model.rate([[model.rating()], [model.rating()]], ranks=[1.0, 2.0])
    assert rows["W"].mu == winner.mu
    assert rows["L"].mu == loser.mu
    assert rows["W"].sigma == winner.sigma == rows["L"].sigma == loser.sigma
    # By hand (Weng & Lin, algorithm 4, two players of equal rating): sigma^2 gains tau^2,
    # c^2 = 2 (sigma^2 + beta^2), and each mu moves by sigma^2 / (2c).
    s2 = (25 / 3) ** 2 + (25 / 300) ** 2
    c = math.sqrt(2 * (s2 + (25 / 6) ** 2))
    assert rows["W"].mu == pytest.approx(25 + s2 / (2 * c), abs=1e-12)
    assert rows["L"].mu == pytest.approx(25 - s2 / (2 * c), abs=1e-12)
    assert rows["W"].mu > DEFAULT_MU > rows["L"].mu
    assert rows["W"].ordinal == pytest.approx(rows["W"].mu - 3 * rows["W"].sigma)


def test_a_tie_leaves_equal_players_equal() -> None:
    rows = by_label(leaderboard([Outcome(("X", "Y"), (6, 6), None)]))
    assert rows["X"].mu == rows["Y"].mu == DEFAULT_MU
    assert rows["X"].sigma == rows["Y"].sigma < DEFAULT_SIGMA
    assert rows["X"].mean_rank == rows["Y"].mean_rank == 1.0
    # In a three-player game the two tied behind the winner stay equal too.
    after_g1 = by_label(leaderboard([G1]))
    assert after_g1["B"].mu == after_g1["C"].mu < DEFAULT_MU < after_g1["A"].mu


def test_statistics_of_three_games_by_hand() -> None:
    rows = by_label(leaderboard([G1, G2, G3], budgets={"A": "1000 rollouts"}))
    a, b, c = rows["A"], rows["B"], rows["C"]
    # Ranks: G1 [1, 2, 2]; G2 [3, 1, 2]; G3 [1, 1, 3].
    assert (a.games, a.wins, a.win_rate) == (4, 2, 0.5)
    assert a.mean_points == (10 + 5 + 10 + 4) / 4
    assert a.mean_rank == (1 + 3 + 1 + 3) / 4
    assert (b.games, b.wins, b.win_rate) == (3, 0, 0.0)
    assert b.mean_points == (7 + 8 + 6) / 3
    assert b.mean_rank == pytest.approx((2 + 2 + 1) / 3)
    assert (c.games, c.wins, c.win_rate) == (2, 0, 0.0)
    assert c.mean_points == (7 + 6) / 2
    assert c.mean_rank == (2 + 1) / 2
    # G3 was not timed, so nobody who played it has a decision time.
    assert a.ms_per_decision is b.ms_per_decision is c.ms_per_decision is None
    assert (a.budget, b.budget, c.budget) == ("1000 rollouts", "", "")


def test_decision_time_over_timed_games() -> None:
    rows = by_label(leaderboard([G1, G2]))
    assert rows["A"].ms_per_decision == pytest.approx(1000 * (0.1 + 0.05 + 0.15) / (10 + 5 + 5))
    assert rows["B"].ms_per_decision == pytest.approx(1000 * (0.4 + 0.2) / (20 + 10))
    assert rows["C"].ms_per_decision == pytest.approx(1000 * 0.9 / 30)


def test_an_entrant_in_two_seats_takes_the_mean_of_its_seats_updates() -> None:
    model = PlackettLuce()
    [[a1], [b1], [c1]] = model.rate(
        [[model.rating()], [model.rating()], [model.rating()]], ranks=[1.0, 2.0, 2.0]
    )
    teams = [
        [model.rating(a1.mu, a1.sigma)],
        [model.rating(a1.mu, a1.sigma)],
        [model.rating(b1.mu, b1.sigma)],
    ]
    [[a_lost], [a_won], [b2]] = model.rate(teams, ranks=[3.0, 1.0, 2.0])
    rows = by_label(leaderboard([G1, G2]))
    assert rows["A"].mu == pytest.approx((a_lost.mu + a_won.mu) / 2, abs=1e-12)
    assert rows["A"].sigma == pytest.approx((a_lost.sigma + a_won.sigma) / 2, abs=1e-12)
    assert rows["B"].mu == pytest.approx(b2.mu, abs=1e-12)
    assert rows["B"].sigma == pytest.approx(b2.sigma, abs=1e-12)
    assert rows["C"].mu == pytest.approx(c1.mu, abs=1e-12)  # C sat G2 out


def test_self_play_leaves_the_rating_alone_but_counts_the_games() -> None:
    rows = leaderboard([Outcome(("S", "S", "S"), (10, 3, 2), 0)])
    assert [(r.label, r.games, r.wins, r.mu, r.sigma) for r in rows] == [
        ("S", 3, 1, DEFAULT_MU, DEFAULT_SIGMA)
    ]


def test_wilson_interval_of_seven_wins_in_twenty() -> None:
    outcomes = [
        Outcome(("X", "Y"), (10, 5) if i < 7 else (5, 10), 0 if i < 7 else 1) for i in range(20)
    ]
    x = by_label(leaderboard(outcomes))["X"]
    n, p = 20, 7 / 20
    z = NormalDist().inv_cdf(0.975)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert (x.wins, x.games, x.win_rate) == (7, 20, 0.35)
    assert x.ci_low == pytest.approx(centre - half, abs=1e-9)
    assert x.ci_high == pytest.approx(centre + half, abs=1e-9)
    assert (round(x.ci_low, 4), round(x.ci_high, 4)) == (0.1812, 0.5671)


def test_rows_are_ordered_by_ordinal_not_mu() -> None:
    # P beats R in 6 of 9 games; then newcomer N beats P once. N's mu passes P's, but with
    # one game its sigma is large, so its ordinal (mu - 3 sigma) stays below P's.
    outcomes = [
        Outcome(("P", "R"), (10, 5) if i % 3 else (5, 10), 0 if i % 3 else 1) for i in range(9)
    ]
    outcomes.append(Outcome(("N", "P"), (10, 5), 0))
    rows = leaderboard(outcomes)
    assert [r.label for r in rows] == ["P", "N", "R"]
    p, n, _ = rows
    assert n.mu > p.mu
    assert p.ordinal > n.ordinal
    for r in rows:
        assert r.ordinal == pytest.approx(r.mu - 3 * r.sigma)


def test_rating_history_matches_the_leaderboard() -> None:
    outcomes = [G1, G2, G3]
    history = rating_history(outcomes)
    rows = by_label(leaderboard(outcomes))
    assert list(history) == ["A", "B", "C"]
    assert [g for g, _, _ in history["A"]] == [0, 1, 3, 4]
    assert [g for g, _, _ in history["B"]] == [0, 1, 2, 3]
    assert [g for g, _, _ in history["C"]] == [0, 1, 2]
    for label, points in history.items():
        assert points[0] == (0, DEFAULT_MU, DEFAULT_SIGMA)
        assert points[-1] == (rows[label].games, rows[label].mu, rows[label].sigma)
    after_two = by_label(leaderboard([G1, G2]))
    assert history["A"][2] == (3, after_two["A"].mu, after_two["A"].sigma)


def test_no_games_no_rows() -> None:
    assert leaderboard([]) == []
    assert rating_history([]) == {}


@pytest.mark.parametrize(
    "kwargs",
    [
        {"labels": (), "points": (), "winner": None},
        {"labels": ("A", "B"), "points": (1,), "winner": None},
        {"labels": ("A", "B"), "points": (1, 2), "winner": 2},
        {"labels": ("A", "B"), "points": (1, 2), "winner": None, "decisions": (1,)},
        {"labels": ("A", "B"), "points": (1, 2), "winner": 0, "decision_seconds": (1.0,)},
    ],
)
def test_malformed_outcomes_raise(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        Outcome(**kwargs)  # type: ignore[arg-type]


def test_format_leaderboard_is_an_aligned_table() -> None:
    rows = leaderboard([G1, G2], budgets={"A": "1000 rollouts", "B": "200 ms"})
    lines = format_leaderboard(rows)
    assert len(lines) == 1 + len(rows)
    header = lines[0]
    for column in ("entrant", "budget", "games", "wins", "win rate", "95% CI", "mean VP"):
        assert column in header
    for column in ("mean rank", "ms/decision", "rating", "ordinal"):
        assert column in header
    assert len({len(line) for line in lines}) == 1
    first = lines[1]
    top = rows[0]
    assert first.startswith(f"1  {top.label} ")
    assert f"{100 * top.win_rate:.1f}%" in first
    assert f"{top.mu:.2f} ± {top.sigma:.2f}" in first
    assert first.endswith(f"{top.ordinal:.2f}")
    # Numbers end under the end of their column's header.
    games_end = header.index("games") + len("games") - 1
    for line, row in zip(lines[1:], rows, strict=True):
        assert line[games_end - len(str(row.games)) + 1 : games_end + 1] == str(row.games)
    assert len(format_leaderboard([])) == 1


def test_untimed_rows_show_na() -> None:
    line = format_leaderboard(leaderboard([G3]))[1]
    assert "n/a" in line


def test_leaderboard_markdown() -> None:
    rows = leaderboard([G1, G2], budgets={"A": "1000 rollouts"})
    text = leaderboard_markdown(rows)
    lines = text.splitlines()
    assert text.endswith("\n")
    assert len(lines) == 2 + len(rows)
    assert lines[0].startswith("| # | entrant | budget | games |")
    cells = {line.count("|") for line in lines}
    assert cells == {12}
    a = next(line for line in lines if "| A |" in line)
    assert "| A | 1000 rollouts | 3 | 2 | 66.7% [" in a
    assert "| 15.000 |" in a  # (0.1 + 0.05 + 0.15) s over 20 decisions


def test_seat_records_of_three_games_by_hand() -> None:
    records = seat_records([G1, G2, G3])
    assert list(records) == ["A", "B", "C", ALL_ENTRANTS]
    # A: seat 0 in G1 (won) and G2 (lost), seat 1 in G2 (won), seat 2 in G3 (unfinished).
    assert records["A"] == [SeatRecord(0, 2, 1), SeatRecord(1, 1, 1), SeatRecord(2, 1, 0)]
    assert records["B"] == [SeatRecord(0, 0, 0), SeatRecord(1, 2, 0), SeatRecord(2, 1, 0)]
    assert records["C"] == [SeatRecord(0, 1, 0), SeatRecord(1, 0, 0), SeatRecord(2, 1, 0)]
    assert records[ALL_ENTRANTS] == [SeatRecord(0, 3, 1), SeatRecord(1, 3, 1), SeatRecord(2, 3, 0)]
    # Per seat, the entrants add up to the line over all of them.
    for seat in range(3):
        for field in ("games", "wins"):
            assert sum(getattr(records[k][seat], field) for k in ("A", "B", "C")) == getattr(
                records[ALL_ENTRANTS][seat], field
            )


def test_seat_records_span_the_largest_game() -> None:
    records = seat_records(
        [Outcome(("X", "Y"), (10, 3), 0), Outcome(("Y", "X", "Z"), (2, 4, 10), 2)]
    )
    assert records["X"] == [SeatRecord(0, 1, 1), SeatRecord(1, 1, 0), SeatRecord(2, 0, 0)]
    assert records["Z"] == [SeatRecord(0, 0, 0), SeatRecord(1, 0, 0), SeatRecord(2, 1, 1)]
    assert seat_records([]) == {}


def test_format_seat_records_is_an_aligned_table() -> None:
    lines = format_seat_records(seat_records([G1, G2, G3]))
    assert lines[0].split() == ["entrant", "seat", "0", "seat", "1", "seat", "2"]
    assert lines[1].split() == ["A", "1/2", "50.0%", "1/1", "100.0%", "0/1", "0.0%"]
    assert lines[2].split() == ["B", "-", "0/2", "0.0%", "0/1", "0.0%"]
    assert lines[4].split() == [ALL_ENTRANTS, "1/3", "33.3%", "1/3", "33.3%", "0/3", "0.0%"]
    assert len({len(line) for line in lines}) == 1


def test_a_leaderboard_of_self_play_says_its_counts_are_per_seat() -> None:
    """An entrant in two seats of G2 plays "two games" there: a reader is told."""
    from tournament.ladder.ratings import is_self_play

    assert is_self_play([G1, G2, G3]) and not is_self_play([G1, G3])
