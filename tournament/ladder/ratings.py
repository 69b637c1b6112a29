"""Ratings and the leaderboard of a ladder: openskill's Plackett-Luce model over game outcomes.

Every entrant starts at the model's default rating (mu 25, sigma 25/3) and is updated game by
game, in the order given, with the game's ranks (:func:`tournament.records.ranks`: 1 for the
winner, the others by victory points, tied seats sharing the better rank; openskill treats
equal ranks as a tie). The rating that orders the leaderboard is openskill's ordinal,
mu - 3 sigma: a skill the entrant has about a 99.7% chance of exceeding, so a lucky few games
do not put it on top.

An entrant may hold several seats of a game. For the statistics it counts one game per seat
(:class:`tournament.stats.Totals`, as in the arena's tables). For the rating each seat is its
own team of one, starting from the entrant's rating, and the entrant then takes the mean of
its seats' updated mu and sigma: the seats' results against each other cancel out, and their
results against the other entrants count once on average. A game with fewer than two
distinct entrants (self-play) says nothing about relative strength and leaves the rating as
it was.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from tournament.records import ranks
from tournament.stats import Totals, WinRate, percent


@dataclass(frozen=True)
class Outcome:
    """One finished (or abandoned) game as the ratings see it: the entrant label at each
    seat, victory points per seat, the winning seat or None, and per seat the number of
    decisions and their total seconds when they were measured (None when not).

    Raises ValueError when the per-seat tuples disagree in length, there are no seats, or the
    winner is not a seat."""

    labels: tuple[str, ...]
    points: tuple[int, ...]
    winner: int | None
    decisions: tuple[int, ...] | None = None
    decision_seconds: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        seats = len(self.labels)
        if seats == 0:
            raise ValueError("an outcome needs at least one seat")
        for name, values in (
            ("points", self.points),
            ("decisions", self.decisions),
            ("decision_seconds", self.decision_seconds),
        ):
            if values is not None and len(values) != seats:
                raise ValueError(f"{name} has {len(values)} entries for {seats} seats")
        if self.winner is not None and not 0 <= self.winner < seats:
            raise ValueError(f"winner {self.winner} is not a seat of a {seats}-seat game")


@dataclass(frozen=True)
class Row:
    """One entrant's line of the leaderboard. ``games`` counts seats played (an entrant in
    two seats of a game plays two games); ``ci_low``/``ci_high`` is the 95% Wilson interval
    of the win rate; ``ms_per_decision`` is None if any of its games was not timed (or it
    made no decision); ``mu``/``sigma`` is its openskill rating and ``ordinal`` mu - 3 sigma."""

    label: str
    budget: str
    games: int
    wins: int
    win_rate: float
    ci_low: float
    ci_high: float
    mean_points: float
    mean_rank: float
    ms_per_decision: float | None
    mu: float
    sigma: float
    ordinal: float


def _model() -> PlackettLuce:
    """The rating model, with openskill's defaults."""
    return PlackettLuce()


DEFAULT_MU: float = _model().mu
"""The rating every entrant starts with (openskill's default)."""
DEFAULT_SIGMA: float = _model().sigma
"""The uncertainty every entrant starts with (openskill's default)."""


def _seats(outcome: Outcome) -> dict[str, list[int]]:
    """Each entrant of a game with its seats, in order of first seat."""
    seats: dict[str, list[int]] = {}
    for seat, label in enumerate(outcome.labels):
        seats.setdefault(label, []).append(seat)
    return seats


def _replay(
    outcomes: Sequence[Outcome],
) -> Iterator[tuple[Outcome, dict[str, tuple[float, float]]]]:
    """Each outcome in order with every rating (label -> (mu, sigma)) after it; the dict is
    the live one, updated in place by the next step."""
    model = _model()
    ratings: dict[str, tuple[float, float]] = {}
    for outcome in outcomes:
        seats = _seats(outcome)
        for label in seats:
            ratings.setdefault(label, (model.mu, model.sigma))
        if len(seats) >= 2:
            # A fresh rating object per seat: rate() deep-copies its teams, so one object in
            # two seats would become one copy shared by both, its sigma inflated by tau twice.
            teams = [[model.rating(*ratings[label])] for label in outcome.labels]
            game_ranks = [float(r) for r in ranks(outcome.points, outcome.winner)]
            rated = model.rate(teams, ranks=game_ranks)
            for label, label_seats in seats.items():
                n = len(label_seats)
                mu = sum(rated[s][0].mu for s in label_seats) / n
                sigma = sum(rated[s][0].sigma for s in label_seats) / n
                ratings[label] = (mu, sigma)
        yield outcome, ratings


def leaderboard(outcomes: Sequence[Outcome], budgets: Mapping[str, str] | None = None) -> list[Row]:
    """One row per entrant that played, ratings after all ``outcomes`` in the order given,
    sorted by ordinal descending (entrants with equal ordinals in order of first game).
    ``budgets`` gives each label's compute budget as shown ("" for a label it lacks)."""
    model = _model()
    totals: dict[str, Totals] = {}
    ratings: dict[str, tuple[float, float]] = {}
    for outcome, current in _replay(outcomes):
        ratings = current
        game_ranks = ranks(outcome.points, outcome.winner)
        for seat, label in enumerate(outcome.labels):
            totals.setdefault(label, Totals()).add_seat(
                seat,
                outcome.winner,
                outcome.points,
                game_ranks,
                outcome.decisions,
                outcome.decision_seconds,
            )
    rows: list[Row] = []
    for label, t in totals.items():
        low, high = t.interval
        mu, sigma = ratings[label]
        rows.append(
            Row(
                label=label,
                budget=(budgets or {}).get(label, ""),
                games=t.games,
                wins=t.wins,
                win_rate=t.win_rate,
                ci_low=low,
                ci_high=high,
                mean_points=t.mean_points,
                mean_rank=t.mean_rank,
                ms_per_decision=t.ms_per_decision,
                mu=mu,
                sigma=sigma,
                ordinal=model.rating(mu, sigma).ordinal(),
            )
        )
    rows.sort(key=lambda r: -r.ordinal)
    return rows


@dataclass(frozen=True)
class SeatRecord(WinRate):
    """An entrant's games and wins in one seat (``seat`` counts from 0, the first to place)."""

    seat: int
    games: int
    wins: int


ALL_ENTRANTS = "(all)"
"""The label of :func:`seat_records`'s line over every entrant: how often each seat won (no
entrant's name can be it: names start with a letter or digit)."""


def seat_records(outcomes: Sequence[Outcome]) -> dict[str, list[SeatRecord]]:
    """Per entrant (in order of first game), then :data:`ALL_ENTRANTS`, its games and wins
    in each seat up to the largest game's last seat. With seats rotated, a seat that wins
    far more or less often than the others shows an advantage of the seat, not of a
    player; an unfinished game counts as played and not won."""
    if not outcomes:
        return {}
    seats = max(len(o.labels) for o in outcomes)
    keys = [*dict.fromkeys(label for o in outcomes for label in o.labels), ALL_ENTRANTS]
    games = {k: [0] * seats for k in keys}
    wins = {k: [0] * seats for k in keys}
    for outcome in outcomes:
        for seat, label in enumerate(outcome.labels):
            for key in (label, ALL_ENTRANTS):
                games[key][seat] += 1
                wins[key][seat] += outcome.winner == seat
    return {k: [SeatRecord(s, games[k][s], wins[k][s]) for s in range(seats)] for k in keys}


def format_seat_records(records: Mapping[str, Sequence[SeatRecord]]) -> list[str]:
    """:func:`seat_records` as aligned plain-text lines: a header, then per entrant its wins
    over games and win rate in each seat ("-" where it never sat)."""
    seats = max((len(r) for r in records.values()), default=0)
    name_w = max([len("entrant"), *(len(k) for k in records)])
    cells = {
        k: [f"{r.wins}/{r.games} {percent(r.win_rate)}" if r.games else "-" for r in rs]
        for k, rs in records.items()
    }
    cell_w = max([len(f"seat {seats - 1}"), *(len(c) for cs in cells.values() for c in cs)])
    lines = [
        f"{'entrant':<{name_w}}  " + "  ".join(f"{f'seat {i}':>{cell_w}}" for i in range(seats))
    ]
    for k, cs in cells.items():
        lines.append(f"{k:<{name_w}}  " + "  ".join(f"{c:>{cell_w}}" for c in cs))
    return lines


def rating_history(outcomes: Sequence[Outcome]) -> dict[str, list[tuple[int, float, float]]]:
    """For each entrant (in order of first game), (games played so far, mu, sigma): first
    (0, default mu, default sigma), then one point after each game it played. Games are
    counted as in :func:`leaderboard` (one per seat held), so the last point's count is the
    entrant's ``Row.games``."""
    history: dict[str, list[tuple[int, float, float]]] = {}
    for outcome, ratings in _replay(outcomes):
        for label, label_seats in _seats(outcome).items():
            points = history.setdefault(label, [(0, DEFAULT_MU, DEFAULT_SIGMA)])
            mu, sigma = ratings[label]
            points.append((points[-1][0] + len(label_seats), mu, sigma))
    return history


def _ms(row: Row) -> str:
    return "n/a" if row.ms_per_decision is None else f"{row.ms_per_decision:.3f}"


SELF_PLAY_NOTE = (
    "self-play: some entrants held several seats of a game. Their games and wins count "
    "seats, so a win rate is per seat held (alone in every seat, an entrant wins 1 in "
    "players), and its interval, which takes each seat for a game of its own, is too narrow."
)
"""Said under a leaderboard whose games seated an entrant more than once."""


def is_self_play(outcomes: Sequence[Outcome]) -> bool:
    """Whether any game seated one entrant in several seats."""
    return any(len(set(o.labels)) < len(o.labels) for o in outcomes)


def format_leaderboard(rows: Sequence[Row]) -> list[str]:
    """The leaderboard as aligned plain-text lines (a header, then one line per row in the
    order given, numbered from 1), in the look of :func:`tournament.arena.format_table`."""
    name_w = max([len("entrant"), *(len(r.label) for r in rows)])
    budget_w = max([len("budget"), *(len(r.budget) for r in rows)])
    rank_w = max(1, len(str(len(rows))))
    lines = [
        f"{'#':>{rank_w}}  {'entrant':<{name_w}}  {'budget':<{budget_w}}  games   wins  "
        "win rate  95% CI            mean VP  mean rank  ms/decision  rating          ordinal"
    ]
    for i, r in enumerate(rows, 1):
        lines.append(
            f"{i:>{rank_w}}  {r.label:<{name_w}}  {r.budget:<{budget_w}}  {r.games:>5}  "
            f"{r.wins:>5}  {percent(r.win_rate):>8}  "
            f"[{percent(r.ci_low):>6}, {percent(r.ci_high):>6}]  "
            f"{r.mean_points:>7.2f}  {r.mean_rank:>9.2f}  {_ms(r):>11}  "
            f"{r.mu:>6.2f} ± {r.sigma:<5.2f}  {r.ordinal:>7.2f}"
        )
    return lines


def leaderboard_markdown(rows: Sequence[Row]) -> str:
    """The leaderboard as a Markdown table (for docs/results.md), rows numbered from 1 in the order
    given, ending in a newline."""
    lines = [
        "| # | entrant | budget | games | wins | win rate [95% CI] | mean VP | mean rank "
        "| ms/decision | rating mu ± sigma | ordinal |",
        "|--:|:--|:--|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for i, r in enumerate(rows, 1):
        label = r.label.replace("|", "\\|")
        budget = r.budget.replace("|", "\\|")
        lines.append(
            f"| {i} | {label} | {budget} | {r.games} | {r.wins} | "
            f"{percent(r.win_rate)} [{percent(r.ci_low)}, {percent(r.ci_high)}] | "
            f"{r.mean_points:.2f} | {r.mean_rank:.2f} | {_ms(r)} | "
            f"{r.mu:.2f} ± {r.sigma:.2f} | {r.ordinal:.2f} |"
        )
    return "\n".join(lines) + "\n"
