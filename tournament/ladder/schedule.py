"""The ladder's schedule: rotation blocks on one game seed, opponents balanced.

A block is ``P`` games (``P`` seats) on one game seed (board and dice), ``seed + b`` for
block ``b``. Its ``P`` entrants sit in a seeded order, and in the block's game ``j`` seat
``s`` holds the block's entrant ``(j + s) mod P``: each of them sits in every seat once,
so the luck of the board, of the dice and of the seat order cancels out.

With more entrants than seats each block takes ``P`` of them. A cycle plays every
combination of ``P`` entrants once (up to :data:`MAX_COMBINATIONS` of them), so at the end
of a cycle every entrant has played as often as every other and every pair has met equally
often; within a cycle the next combination is the one whose entrants have played least,
then whose most-met pair has met least, then whose pairs have met least in all, ties broken
by an order drawn from the seed (so within a cycle entrants' block counts stay within 2 of
each other). With more combinations than that, each block is built
greedily one entrant at a time by the same measures. With fewer entrants than seats
(self-play) a block has one game per entrant and an entrant fills several seats, as in
``hexhaven arena``.

The schedule of ``n`` games is the first ``n`` games of any longer one, so a ladder can be
extended by asking for more games.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator, Sequence

from tournament.records import ScheduledGame, agent_seed

MAX_COMBINATIONS = 5000
"""Above this many ways to choose a block's entrants, they are chosen one at a time."""


def _choose_exhaustive(
    combos: Sequence[tuple[int, ...]], played: list[int], met: list[list[int]]
) -> tuple[int, ...]:
    def cost(combo: tuple[int, ...]) -> tuple[int, int, int]:
        pairs = [met[a][b] for a, b in itertools.combinations(combo, 2)]
        return sum(played[e] for e in combo), max(pairs), sum(pairs)

    return min(combos, key=cost)


def _choose_greedy(
    order: Sequence[int], players: int, played: list[int], met: list[list[int]]
) -> tuple[int, ...]:
    chosen: list[int] = []
    for _ in range(players):
        rest = [e for e in order if e not in chosen]
        chosen.append(
            min(
                rest,
                key=lambda e: (played[e], sum(met[e][c] for c in chosen), -len(chosen)),
            )
        )
    return tuple(sorted(chosen))


def block_entrants(entrants: int, players: int, seed: int) -> Iterator[tuple[int, ...]]:
    """The entrants of each block in seat order of its first game, block after block
    (endless). Raises ValueError for fewer than one entrant or seat."""
    if entrants < 1 or players < 1:
        raise ValueError("a ladder needs at least one entrant and one seat")
    rnd = random.Random(f"hexhaven-ladder:{seed}:{entrants}:{players}")
    if entrants <= players:
        everyone = list(range(entrants))
        while True:
            yield tuple(everyone)
    played = [0] * entrants
    met = [[0] * entrants for _ in range(entrants)]
    exhaustive = math.comb(entrants, players) <= MAX_COMBINATIONS
    cycle: list[tuple[int, ...]] = []
    while True:
        order = list(range(entrants))
        rnd.shuffle(order)
        if exhaustive:
            if not cycle:
                cycle = list(itertools.combinations(range(entrants), players))
                rnd.shuffle(cycle)
            chosen = _choose_exhaustive(cycle, played, met)
            cycle.remove(chosen)
        else:
            chosen = _choose_greedy(order, players, played, met)
        for a, b in itertools.combinations(chosen, 2):
            met[a][b] += 1
            met[b][a] += 1
        for e in chosen:
            played[e] += 1
        seats = list(chosen)
        rnd.shuffle(seats)
        yield tuple(seats)


def block_size(entrants: int, players: int) -> int:
    """Games per block: one per seat, or one per entrant when there are fewer entrants."""
    return min(entrants, players)


def make_ladder_schedule(entrants: int, players: int, games: int, seed: int) -> list[ScheduledGame]:
    """The first ``games`` games of the ladder's schedule (see the module docstring);
    ``seating`` holds entrant indexes per seat. Raises ValueError for counts below 1."""
    if games < 1:
        raise ValueError("a ladder needs at least one game")
    size = block_size(entrants, players)
    schedule: list[ScheduledGame] = []
    for block, members in enumerate(block_entrants(entrants, players, seed)):
        for j in range(size):
            index = block * size + j
            if index >= games:
                return schedule
            schedule.append(
                ScheduledGame(
                    index=index,
                    block=block,
                    seed=seed + block,
                    seating=tuple(members[(j + s) % size] for s in range(players)),
                    agent_seeds=tuple(agent_seed(seed, block, s) for s in range(players)),
                )
            )
    raise AssertionError("unreachable")  # pragma: no cover (the blocks never end)
