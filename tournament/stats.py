"""Per-entrant totals and win rates with their 95% Wilson intervals: one set of totals for
the arena's tables and the ladder's leaderboard. An entrant that fills several seats of a
game counts one game per seat."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tournament.entrants import Entrant
from tournament.records import GameRecord

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""


def percent(x: float) -> str:
    """A rate as a percentage with one decimal: 0.3975 -> "39.8%"."""
    return f"{100 * x:.1f}%"


def wilson_interval(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a win rate (95% by default); (0, 1) with no games."""
    if games <= 0:
        return 0.0, 1.0
    p = wins / games
    z2 = z * z
    denom = 1 + z2 / games
    center = (p + z2 / (2 * games)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / games + z2 / (4 * games * games))
    low = 0.0 if wins <= 0 else max(0.0, center - half)  # exact at the ends, not 1e-17 off
    high = 1.0 if wins >= games else min(1.0, center + half)
    return low, high


class WinRate:
    """For a record of ``wins`` out of ``games``: the win rate and its Wilson interval."""

    wins: int
    games: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)


@dataclass
class Totals(WinRate):
    """An entrant's totals over the seats it held: games (one per seat), wins, victory
    points, ranks, and its decisions with their seconds while every game was timed."""

    games: int = 0
    wins: int = 0
    points: int = 0
    rank_sum: int = 0
    decisions: int = 0
    decision_seconds: float = 0.0
    timed: bool = True

    def add_seat(
        self,
        seat: int,
        winner: int | None,
        points: Sequence[int],
        ranks: Sequence[int],
        decisions: Sequence[int] | None,
        decision_seconds: Sequence[float] | None,
    ) -> None:
        """Count one seat of a game: ``points`` and ``ranks`` per seat, decisions and their
        seconds per seat or None when the game was not timed."""
        self.games += 1
        self.wins += winner == seat
        self.points += points[seat]
        self.rank_sum += ranks[seat]
        if decisions is None or decision_seconds is None:
            self.timed = False
        else:
            self.decisions += decisions[seat]
            self.decision_seconds += decision_seconds[seat]

    @property
    def mean_points(self) -> float:
        return self.points / self.games if self.games else 0.0

    @property
    def mean_rank(self) -> float:
        return self.rank_sum / self.games if self.games else 0.0

    @property
    def ms_per_decision(self) -> float | None:
        """Milliseconds per decision; None if a game was not timed or none was made."""
        if not self.timed or not self.decisions:
            return None
        return 1000.0 * self.decision_seconds / self.decisions


@dataclass
class Standing:
    """An arena table's line: the totals of an entrant or a spec (its ``entrants``)."""

    name: str
    spec: str
    entrants: list[str]
    totals: Totals = field(default_factory=Totals)

    def add(self, record: GameRecord, seat: int) -> None:
        self.totals.add_seat(
            seat,
            record.winner,
            record.points,
            record.ranks,
            record.decisions,
            record.decision_seconds,
        )

    def to_json(self) -> dict[str, Any]:
        t = self.totals
        low, high = t.interval
        return {
            "name": self.name,
            "spec": self.spec,
            "entrants": self.entrants,
            "games": t.games,
            "wins": t.wins,
            "win_rate": t.win_rate,
            "ci95": [low, high],
            "mean_vp": t.mean_points,
            "mean_rank": t.mean_rank,
            "decisions": t.decisions if t.timed else None,
            "ms_per_decision": t.ms_per_decision,
        }


def standings(
    entrants: Sequence[Entrant], records: Sequence[GameRecord]
) -> tuple[list[Standing], list[Standing]]:
    """Totals per entrant (in entrant order) and per distinct spec (in order of first
    appearance)."""
    by_label = {e.label: Standing(e.label, e.spec, [e.label]) for e in entrants}
    by_spec: dict[str, Standing] = {}
    for e in entrants:
        by_spec.setdefault(e.spec, Standing(e.spec, e.spec, [])).entrants.append(e.label)
    for record in records:
        for seat, index in enumerate(record.seating):
            entrant = entrants[index]
            by_label[entrant.label].add(record, seat)
            by_spec[entrant.spec].add(record, seat)
    return list(by_label.values()), list(by_spec.values())
