"""Ensemble UCT: several independent trees, their root statistics summed (Equation 2).

Each tree searches its own determinization (a full state guessed from the seat's view) with
its share of the rollouts. With ``processes`` > 1 the trees run in a pool of worker
processes (spawned once and kept); a job carries the view and the guess, not the state, so
little crosses the process boundary. A set-up search (``setup_rollouts``) is shared out over
the same workers, each with its share of the rollouts, and their wins summed.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

from bots.belief import Sample
from bots.uct import RootStats, Search, SearchConfig, setup_wins
from engine.actions import Action
from engine.rebuild import state_from_view
from engine.view import View


@dataclass(frozen=True)
class Guess:
    """The hidden part of a game, as one determinization fills it in."""

    hands: tuple[tuple[int, ...], ...]
    development: tuple[tuple[int, ...], ...]
    deck: tuple[int, ...]
    development_new: tuple[int, ...]

    @classmethod
    def of(cls, sample: Sample, development_new: Sequence[int] | None) -> Guess:
        """A tracker's sample as a guess; ``development_new`` (the cards bought this turn)
        as the view shows them to the current seat, else the sample's."""
        new = sample.development_new if development_new is None else development_new
        return cls(
            hands=tuple(tuple(h) for h in sample.hands),
            development=tuple(tuple(d) for d in sample.development),
            deck=tuple(sample.deck),
            development_new=tuple(new or (0, 0, 0, 0, 0)),
        )


@dataclass(frozen=True)
class TreeJob:
    """One tree's work: search ``view`` filled in by ``guess``, for ``seat``."""

    view: View
    guess: Guess
    seat: int
    config: SearchConfig
    rollouts: int
    deadline: float | None
    """A ``time.monotonic()`` instant (the same clock in every process on one machine)."""
    seed: int
    root_actions: tuple[Action, ...] | None = None
    optimistic: tuple[Action, ...] = ()


def share(total: int, parts: int, index: int) -> int:
    """Part ``index`` of ``total`` split over ``parts`` as evenly as whole numbers allow:
    the first ``total % parts`` parts get one more."""
    return total // parts + (1 if index < total % parts else 0)


def run_tree(job: TreeJob) -> RootStats:
    """Run one job: its tree's root statistics."""
    rnd = random.Random(job.seed)
    g = job.guess
    state = state_from_view(
        job.view,
        g.hands,
        g.development,
        g.deck,
        development_new=g.development_new,
        seed=rnd.getrandbits(63),
    )
    search = Search(state, job.seat, job.config, rnd, job.root_actions, job.optimistic)
    return search.run(job.rollouts, job.deadline)


@dataclass(frozen=True)
class SetupJob:
    """A share of a set-up search (``SearchConfig.setup_rollouts``): ``rollouts`` for each
    of the ``spots`` worthiest set-up spots of ``seat``, on ``view`` filled in by ``guess``."""

    view: View
    guess: Guess
    seat: int
    rollouts: int
    spots: int
    deadline: float | None
    seed: int


def run_setup(job: SetupJob) -> dict[Action, int]:
    """Run one set-up job (:func:`bots.uct.setup_wins`): the seat's wins by spot."""
    rnd = random.Random(job.seed)
    g = job.guess
    state = state_from_view(job.view, g.hands, g.development, g.deck, seed=rnd.getrandbits(63))
    return setup_wins(state, job.seat, job.rollouts, job.spots, rnd, job.deadline)


def exit_with_parent(period: float = 1.0) -> None:
    """Make this worker process end once the process that started it is gone (killed
    without the chance to stop its pool), instead of playing on for nobody: a daemon
    thread checks the parent every ``period`` seconds. An ``initializer`` for pools."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(period)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def exit_without(parent: int, period: float = 1.0) -> None:
    """End this worker once process ``parent`` (the one that started it) is gone, checked
    every ``period`` seconds, or at once if it is gone already (it died while the worker
    started). An ``initializer`` for pools: a worker imports this module, which keeps to
    the engine and the search (no SDK, protocol or logging)."""
    if os.getppid() != parent:
        os._exit(1)
    exit_with_parent(period)


_Job = TypeVar("_Job")
_Result = TypeVar("_Result")


class Ensemble:
    """Runs jobs (tree searches, set-up searches) in-process or in a kept pool of
    ``processes`` workers."""

    def __init__(self, processes: int = 1) -> None:
        self.processes = processes
        self._pool: ProcessPoolExecutor | None = None

    def run(self, jobs: Sequence[TreeJob]) -> RootStats:
        """Every job's root statistics, summed."""
        total = RootStats({}, {})
        for stats in self.map(run_tree, jobs):
            total.add(stats)
        return total

    def setup(self, jobs: Sequence[SetupJob]) -> dict[Action, int]:
        """Every set-up job's wins by spot, summed (the first job's order of spots)."""
        total: dict[Action, int] = {}
        for wins in self.map(run_setup, jobs):
            for action, n in wins.items():
                total[action] = total.get(action, 0) + n
        return total

    def map(self, fn: Callable[[_Job], _Result], jobs: Sequence[_Job]) -> list[_Result]:
        """``fn`` of every job, in order: in this process, or in the pool when there are
        several workers and several jobs."""
        if self.processes <= 1 or len(jobs) <= 1:
            return [fn(job) for job in jobs]
        if self._pool is None:
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(
                self.processes, mp_context=context, initializer=exit_with_parent
            )
        return list(self._pool.map(fn, jobs))

    def close(self) -> None:
        """Stop the worker processes, if any."""
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None
