"""The ladder's schedule: rotation blocks on one seed, every seat to every entrant, and
opponents balanced."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest

from tournament.ladder.ab import a_won, ab_schedule, ab_seatings
from tournament.ladder.schedule import block_size, make_ladder_schedule
from tournament.records import ScheduledGame


def _blocks(games: list[ScheduledGame]) -> dict[int, list[ScheduledGame]]:
    blocks: dict[int, list[ScheduledGame]] = {}
    for game in games:
        blocks.setdefault(game.block, []).append(game)
    return blocks


@pytest.mark.parametrize(
    ("entrants", "players"), [(4, 4), (5, 4), (6, 4), (7, 3), (5, 2), (3, 4), (2, 2), (9, 4)]
)
def test_every_chosen_entrant_sits_in_every_seat_once_per_block(
    entrants: int, players: int
) -> None:
    size = block_size(entrants, players)
    games = make_ladder_schedule(entrants, players, 12 * size, seed=5)
    assert [g.index for g in games] == list(range(12 * size))
    for block, in_block in _blocks(games).items():
        assert len(in_block) == size
        assert {g.seed for g in in_block} == {5 + block}, "a block shares one game seed"
        assert len({g.agent_seeds for g in in_block}) == 1
        members = set(in_block[0].seating)
        assert len(members) == size
        for seat in range(players):
            assert Counter(g.seating[seat] for g in in_block) == Counter({e: 1 for e in members}), (
                f"block {block} seat {seat}"
            )
        if entrants >= players:
            assert all(len(set(g.seating)) == players for g in in_block), "no entrant twice"


@pytest.mark.parametrize(("entrants", "players"), [(5, 4), (6, 4), (7, 4), (6, 3), (5, 2)])
def test_pairs_meet_equally_often_over_a_full_cycle(entrants: int, players: int) -> None:
    cycle = math.comb(entrants, players)  # every combination of entrants once
    for seed in (1, 2):
        games = make_ladder_schedule(entrants, players, 2 * cycle * players, seed=seed)
        met: Counter[tuple[int, int]] = Counter()
        played: Counter[int] = Counter()
        for block, in_block in sorted(_blocks(games).items()):
            members = sorted(set(in_block[0].seating))
            played.update(members)
            met.update(itertools.combinations(members, 2))
            if (block + 1) % cycle == 0:
                counts = [met[p] for p in itertools.combinations(range(entrants), 2)]
                assert max(counts) - min(counts) == 0, (seed, block, counts)
                assert len(set(played.values())) == 1
            else:  # within a cycle those who played least are preferred
                assert max(played.values()) - min(played[e] for e in range(entrants)) <= 2


def test_the_schedule_is_reproducible_and_a_prefix_of_a_longer_one() -> None:
    short = make_ladder_schedule(6, 4, 30, seed=9)
    assert make_ladder_schedule(6, 4, 30, seed=9) == short
    assert make_ladder_schedule(6, 4, 90, seed=9)[:30] == short
    assert make_ladder_schedule(6, 4, 30, seed=10) != short
    assert [g.seed for g in short[:8]] == [9] * 4 + [10] * 4
    with pytest.raises(ValueError):
        make_ladder_schedule(6, 4, 0, seed=1)


def test_many_entrants_are_chosen_one_at_a_time_and_still_balanced() -> None:
    games = make_ladder_schedule(40, 4, 4 * 100, seed=3)  # C(40, 4) is too many to list
    played = Counter(e for g in games[::4] for e in g.seating)
    assert set(played) == set(range(40)) and max(played.values()) - min(played.values()) <= 1


@pytest.mark.parametrize(
    ("players", "seatings"),
    [
        (2, [(0, 1), (1, 0)]),
        (4, [(0, 1, 0, 1), (1, 0, 1, 0)]),
        (3, [(0, 1, 0), (1, 0, 0), (0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 0)]),
    ],
)
def test_ab_seats_alternate_and_balance(players: int, seatings: list[tuple[int, ...]]) -> None:
    assert ab_seatings(players) == seatings
    for seat in range(players):
        assert Counter(s[seat] for s in seatings) == Counter(
            {0: len(seatings) // 2, 1: len(seatings) // 2}
        )
    games = ab_schedule(players, 3 * len(seatings), seed=4)
    assert [g.seed for g in games[:: len(seatings)]] == [4, 5, 6]


def test_a_is_ahead_when_its_best_seat_ranks_better() -> None:
    labels = ("A", "B", "A", "B")
    assert a_won(labels, (3, 10, 4, 2), 1, "A", "B") is False
    assert a_won(labels, (3, 2, 10, 2), 2, "A", "B") is True
    assert a_won(labels, (5, 7, 2, 3), None, "A", "B") is False  # B's 7 is best
    assert a_won(labels, (7, 7, 2, 3), None, "A", "B") is None  # best seats tie
