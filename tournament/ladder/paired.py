"""Two ladders' entrants compared on the same games: ``hexhaven ladder paired``.

Two ladders that differ in one entrant (say a bot and its variant, each against the same
three ``heuristic`` players) and share the game seeds and the seating play the same games
but for that entrant's moves. Compared game by game, the luck of the board and the dice
cancels out of the difference: only the games one of the two won and the other did not say
which is stronger. That is McNemar's test. :func:`pair` checks that the games really are the
same (seed, game options, seats, the other entrants, their agent seeds) before it counts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tournament.ladder.store import StoredGame
from tournament.stats import Z95, WinRate, percent

Entrants = Mapping[str, tuple[dict[str, Any], str]]
"""A ladder's entrants as the store keeps them: (config, budget) by label."""

LadderSide = tuple[str, str, Entrants, Sequence[StoredGame]]
"""One side of a comparison: the ladder's name, the compared entrant's label, the ladder's
entrants and its games."""


class PairingError(Exception):
    """The two ladders cannot be compared game by game; the message says why."""


@dataclass(frozen=True)
class Side(WinRate):
    """One of the compared entrants: its ladder, label, and wins over the paired games."""

    ladder: str
    label: str
    wins: int
    games: int


@dataclass(frozen=True)
class Paired:
    """The comparison of :func:`pair`: A's and B's wins over the games both ladders hold, the
    four ways a game can split, the difference in win rate (A's minus B's) with its 95%
    interval, and McNemar's test of the games only one of the two won."""

    a: Side
    b: Side
    both: int
    only_a: int
    only_b: int
    neither: int
    unpaired: int
    """Games one ladder holds and the other does not (left out)."""
    sat_out: int = 0
    """Games both hold in which neither compared entrant had a seat (left out: a ladder
    with more entrants than seats)."""

    @property
    def games(self) -> int:
        return self.both + self.only_a + self.only_b + self.neither

    @property
    def difference(self) -> float:
        return (self.only_a - self.only_b) / self.games if self.games else 0.0

    @property
    def difference_interval(self) -> tuple[float, float]:
        """The normal-approximation 95% interval of the paired difference in win rate."""
        n = self.games
        if not n:
            return -1.0, 1.0
        discordant = self.only_a + self.only_b
        spread = math.sqrt(max(0.0, discordant - (self.only_a - self.only_b) ** 2 / n)) / n
        d = self.difference
        return max(-1.0, d - Z95 * spread), min(1.0, d + Z95 * spread)

    @property
    def z(self) -> float:
        """McNemar's statistic, signed: (only A - only B) / sqrt(only A + only B)."""
        discordant = self.only_a + self.only_b
        return (self.only_a - self.only_b) / math.sqrt(discordant) if discordant else 0.0

    @property
    def p_value(self) -> float:
        """McNemar's exact two-sided p-value: how likely a split of the discordant games at
        least this uneven is if each went either way with even odds."""
        return sign_test(self.only_a, self.only_b)


def sign_test(k: int, m: int) -> float:
    """The exact two-sided binomial test of ``k`` against ``m`` outcomes at even odds."""
    n = k + m
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(k, m) + 1))
    return min(1.0, 2 * tail / (1 << n))


def compared_label(mine: Entrants, theirs: Entrants, name: str) -> str:
    """The one entrant of ``mine`` that ``theirs`` lacks (by label and table); raises
    :class:`PairingError` when there is none or more than one."""
    own = []
    for label, (config, _) in mine.items():
        other = theirs.get(label)
        if other is None or other[0] != config:
            own.append(label)
    if len(own) != 1:
        found = ", ".join(own) if own else "none"
        raise PairingError(
            f"ladder {name!r} should differ from the other in one entrant (found: {found}); "
            "name the compared entrants (--entrant-a, --entrant-b)"
        )
    return own[0]


def _seats(game: StoredGame, label: str) -> tuple[int, ...]:
    return tuple(seat for seat, held in enumerate(game.labels) if held == label)


def _same_game(a: StoredGame, b: StoredGame, a_label: str, b_label: str) -> str | None:
    """Why games ``a`` and ``b`` (of one index) are not the same game, or None."""
    if (a.seed, a.config) != (b.seed, b.config):
        return "another seed or other game options"
    seats = _seats(a, a_label)
    if seats != _seats(b, b_label):
        return f"{a_label!r} and {b_label!r} are not in the same seats"
    for seat in range(len(a.labels)):
        if seat in seats:
            continue
        if (a.labels[seat], a.agent_seeds[seat]) != (b.labels[seat], b.agent_seeds[seat]):
            return f"seat {seat} is another entrant or seeded otherwise"
    return None


def pair(a: LadderSide, b: LadderSide) -> Paired:
    """Compare entrant A of one ladder with entrant B of another on the games of the same
    index that both hold. Each side is (ladder name, compared label, entrants, games).

    Raises :class:`PairingError` if the other entrants differ between the ladders, or if a
    game both hold is not the same game: a comparison on different games would mislead.
    """
    a_name, a_label, a_entrants, a_games = a
    b_name, b_label, b_entrants, b_games = b
    for name, label, entrants in ((a_name, a_label, a_entrants), (b_name, b_label, b_entrants)):
        if label not in entrants:
            raise PairingError(f"ladder {name!r} has no entrant {label!r}")
    a_field = {k: v[0] for k, v in a_entrants.items() if k != a_label}
    b_field = {k: v[0] for k, v in b_entrants.items() if k != b_label}
    if a_field != b_field:
        differ = sorted(
            k for k in a_field.keys() | b_field.keys() if a_field.get(k) != b_field.get(k)
        )
        raise PairingError(
            f"the other entrants differ between {a_name!r} and {b_name!r}: {', '.join(differ)}"
        )
    theirs = {g.index: g for g in b_games}
    counts = {(True, True): 0, (True, False): 0, (False, True): 0, (False, False): 0}
    paired = sat_out = 0
    for game in a_games:
        other = theirs.get(game.index)
        if other is None:
            continue
        why = _same_game(game, other, a_label, b_label)
        if why is not None:
            raise PairingError(f"game {game.index} is not the same game in both ladders: {why}")
        paired += 1
        seats = _seats(game, a_label)
        if not seats:
            sat_out += 1
            continue
        counts[(game.winner in seats, other.winner in seats)] += 1
    unpaired = len(a_games) + len(b_games) - 2 * paired
    played = paired - sat_out
    if not played:
        raise PairingError(
            f"ladders {a_name!r} and {b_name!r} hold no game of the same index "
            f"in which {a_label!r} and {b_label!r} play"
        )
    a_wins = counts[(True, True)] + counts[(True, False)]
    b_wins = counts[(True, True)] + counts[(False, True)]
    return Paired(
        a=Side(a_name, a_label, a_wins, played),
        b=Side(b_name, b_label, b_wins, played),
        both=counts[(True, True)],
        only_a=counts[(True, False)],
        only_b=counts[(False, True)],
        neither=counts[(False, False)],
        unpaired=unpaired,
        sat_out=sat_out,
    )


def format_paired(result: Paired) -> list[str]:
    """The comparison as plain-text lines."""
    sides = (result.a, result.b)
    width = max(len("entrant"), *(len(s.label) for s in sides))
    ladder_w = max(len("ladder"), *(len(s.ladder) for s in sides))
    left_out = [
        f"{result.unpaired} in only one" if result.unpaired else "",
        f"{result.sat_out} in which neither played" if result.sat_out else "",
    ]
    why = ", ".join(x for x in left_out if x)
    lines = [
        f"{result.games} game(s) in both ladders" + (f" ({why}: left out)" if why else ""),
        f"   {'entrant':<{width}}  {'ladder':<{ladder_w}}   wins  win rate  95% CI",
    ]
    for key, side in zip("AB", sides, strict=True):
        low, high = side.interval
        lines.append(
            f"{key}  {side.label:<{width}}  {side.ladder:<{ladder_w}}  {side.wins:>5}  "
            f"{percent(side.win_rate):>8}  [{percent(low)}, {percent(high)}]"
        )
    low, high = result.difference_interval
    lines += [
        f"both won {result.both}, only A {result.only_a}, only B {result.only_b}, "
        f"neither {result.neither}",
        f"A - B: {100 * result.difference:+.1f} points [{100 * low:+.1f}, {100 * high:+.1f}]; "
        f"McNemar z = {result.z:.2f}, exact p = {result.p_value:.3f}",
    ]
    return lines


def paired_document(result: Paired) -> dict[str, Any]:
    """The comparison as JSON-ready data."""
    low, high = result.difference_interval

    def side(s: Side) -> dict[str, Any]:
        s_low, s_high = s.interval
        return {
            "ladder": s.ladder,
            "entrant": s.label,
            "wins": s.wins,
            "win_rate": s.win_rate,
            "ci": [s_low, s_high],
        }

    return {
        "games": result.games,
        "unpaired": result.unpaired,
        "sat_out": result.sat_out,
        "a": side(result.a),
        "b": side(result.b),
        "both": result.both,
        "only_a": result.only_a,
        "only_b": result.only_b,
        "neither": result.neither,
        "difference": result.difference,
        "difference_ci": [low, high],
        "z": result.z,
        "p_value": result.p_value,
    }
