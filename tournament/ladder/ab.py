"""``hexhaven ladder ab CONFIG A B``: a sequential probability ratio test between two of a
ladder's entrants, stopping as soon as it decides.

Seats: A and B alternate around the table (A, B, A, B in four-player games, so two seats
each). A block is every distinct rotation of that pattern and of the one starting with B,
all on one game seed: ``(A, B), (B, A)`` with two players; ``(A, B, A, B), (B, A, B, A)``
with four; six games with three (A holds two seats in half of them, B in the others). So
each entrant sits in each seat equally often per block, and the luck of the seat order
cancels out.

A game is one comparison for the test: A wins it when A's best seat finishes ahead of B's
best seat (by rank: 1 for the winner, the others by victory points). With a winner this is
simply whether A or B won; a game without winner whose best seats tie is left out.

The games are stored like a ladder's, under the ladder ``NAME:ab:A:B``, so a test stopped
at any point goes on from the games it had when run again (stored games are counted first,
in game order); a test that has decided says so and plays nothing more.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tournament.ladder.config import EntrantConfig, LadderConfig
from tournament.ladder.games import GameTask, make_tasks
from tournament.ladder.run import Backend, LadderRefused, Progress, describe, run_tasks, say
from tournament.ladder.sprt import SPRT
from tournament.ladder.store import LadderStore
from tournament.records import GameRecord, ScheduledGame, agent_seed, ranks


def ab_seatings(players: int) -> list[tuple[int, ...]]:
    """The seatings of one block, 0 for A and 1 for B (see the module docstring)."""
    seatings: list[tuple[int, ...]] = []
    for first in (0, 1):
        pattern = [(first + s) % 2 for s in range(players)]
        for shift in range(players):
            seating = tuple(pattern[(shift + s) % players] for s in range(players))
            if seating not in seatings:
                seatings.append(seating)
    return seatings


def ab_schedule(players: int, games: int, seed: int) -> list[ScheduledGame]:
    """The first ``games`` games of an A/B test: block ``b`` on game seed ``seed + b``."""
    seatings = ab_seatings(players)
    schedule = []
    for index in range(games):
        block, j = divmod(index, len(seatings))
        schedule.append(
            ScheduledGame(
                index=index,
                block=block,
                seed=seed + block,
                seating=seatings[j],
                agent_seeds=tuple(agent_seed(seed, block, s) for s in range(players)),
            )
        )
    return schedule


def a_won(
    labels: Sequence[str], points: Sequence[int], winner: int | None, a: str, b: str
) -> bool | None:
    """Whether A's best seat finished ahead of B's (None: they tie, no comparison)."""
    game_ranks = ranks(points, winner)
    best_a = min(r for r, label in zip(game_ranks, labels, strict=True) if label == a)
    best_b = min(r for r, label in zip(game_ranks, labels, strict=True) if label == b)
    if best_a == best_b:
        return None
    return best_a < best_b


@dataclass
class ABResult:
    """How a test ended: its decision (None if ``max_games`` came first), the test, the
    games stored under ``name``."""

    name: str
    decision: str | None
    test: SPRT
    games: int


def ab_name(config: LadderConfig, a: str, b: str) -> str:
    return f"{config.ladder.name}:ab:{a}:{b}"


def run_ab(
    config: LadderConfig,
    store: LadderStore,
    a: str,
    b: str,
    test: SPRT,
    *,
    max_games: int = 1000,
    workers: int = 1,
    backend: Backend = "process",
    address: str | None = None,
    server: str | None = None,
    fresh: bool = False,
    bar: bool | None = None,
    out: Callable[[str], None] = say,
) -> ABResult:
    """Run the test (see the module docstring), printing the log-likelihood ratio after
    each game. Raises :class:`~tournament.ladder.run.LadderRefused` for unknown entrants and
    :class:`~tournament.ladder.run.LadderError` for a game that fails."""
    by_name = {e.name: e for e in config.entrant}
    for label in (a, b):
        if label not in by_name:
            raise LadderRefused(
                f"no entrant {label!r} in the ladder; entrants: {', '.join(by_name)}"
            )
    if a == b:
        raise LadderRefused("name two different entrants")
    if max_games < 1:
        raise LadderRefused("--max-games must be at least 1")
    pair: list[EntrantConfig] = [by_name[a], by_name[b]]
    if backend != "server" and any(e.way == "connect" for e in pair):
        raise LadderRefused("an entrant that connects to a server itself needs --server URL")
    name = ab_name(config, a, b)
    identity: dict[str, Any] = config.identity()
    identity["entrants"] = [e for e in identity["entrants"] if e["name"] in (a, b)]
    identity["ab"] = [a, b]
    budgets = config.budgets()
    rows = {e.name: (e.model_dump(mode="json"), budgets[e.name]) for e in pair}
    store.open_ladder(name, identity, rows, fresh=fresh)
    stored = store.games(name)
    for game in stored:
        result = a_won(game.labels, game.points, game.winner, a, b)
        if result is not None:
            test.add(result)
    out(
        f"ab {a} vs {b}: p0 {test.p0:.3f}, p1 {test.p1:.3f}, alpha {test.alpha}, "
        f"beta {test.beta}; {len(stored)} game(s) stored" + (f": {test.status()}" if stored else "")
    )
    if test.decision is None and len(stored) < max_games:
        done = {g.index for g in stored}
        schedule = ab_schedule(config.ladder.players, max_games, config.ladder.seed)
        todo = [g for g in schedule if g.index not in done]
        tasks = make_tasks(config, todo, pair)
        progress = Progress(max_games, len(done), bar=bar, out=out, title=f"{a} vs {b}")

        def on_result(task: GameTask, record: GameRecord) -> bool:
            store.add_game(
                name, record, task.labels, task.game.agent_seeds, task.config_json, backend
            )
            stored_games.append(record)
            result = a_won(task.labels, record.points, record.winner, a, b)
            if result is not None:
                test.add(result)
            verdict = {True: f"{a} ahead", False: f"{b} ahead", None: "tie, not counted"}[result]
            progress.advance(f"{describe(task, record)}  {verdict}  {test.status()}")
            return test.decision is not None

        stored_games: list[GameRecord] = []
        try:
            run_tasks(
                tasks, on_result, backend=backend, workers=workers, address=address, server=server
            )
        finally:
            progress.close()
        total = len(stored) + len(stored_games)
    else:
        total = len(stored)
    if test.decision == "H1":
        out(f"ab: H1 accepted: {a} is stronger than {b} (p >= {test.p1:.3f}); {test.status()}")
    elif test.decision == "H0":
        out(
            f"ab: H0 accepted: {a} is not shown stronger than {b} by that margin "
            f"(p <= {test.p0:.3f}); {test.status()}"
        )
    else:
        out(f"ab: no decision after {total} games; {test.status()}")
    return ABResult(name, test.decision, test, total)
