"""Many bot seats in one process: the search workers they share, and the heuristic's move
when a search cannot answer in time.

:class:`PoolEnsemble` is an :class:`~bots.ensemble.Ensemble` for every ``uct`` seat of a
process at once: their tree and set-up jobs run in one bounded pool of worker processes
(spawned as needed, kept, ended with the process). Each decision's jobs get a deadline
(their own, from the turn timer, or ``search_seconds`` from now, whichever is sooner), and
the decision waits for them no longer: jobs still queued then are dropped and the search
answers from those that finished. A worker that dies breaks the pool; it is replaced at
once and the lost jobs are run again while their time lasts. A search left with no job
done raises :class:`SearchFailed`, and :class:`FallbackAgent` plays the heuristic's move.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

import structlog

from bots.ensemble import Ensemble, exit_without
from bots.heuristic import HeuristicAgent
from clients.sdk import Agent, Table
from protocol import messages as m

SEARCH_SECONDS = 10.0
"""The longest a decision's search may take when no turn timer bounds it sooner."""
GRACE = 2.0
GRACE_SHARE = 0.3
"""Seconds past its jobs' deadline that a decision waits for them (their start, the last
rollouts they began before it and the way back), at most; this share of the search's own
time when that is less (a search under a turn timer ends at 70% of the time left less
0.3 s, so the answer still comes in time)."""
RETRY_LEFT = 0.2
"""Seconds that must be left before a deadline to run jobs lost with a worker again."""

_Job = TypeVar("_Job")
_Result = TypeVar("_Result")
_log = structlog.get_logger("hexhaven.bots.pool")


class SearchFailed(Exception):
    """No job of a search finished in its time (the workers were busy, or died)."""


class PoolEnsemble(Ensemble):
    """One bounded pool of ``processes`` search workers for every seat of a process
    (see the module docstring); safe to use from many threads at once."""

    def __init__(self, processes: int, search_seconds: float = SEARCH_SECONDS) -> None:
        super().__init__(max(1, processes))
        self.search_seconds = search_seconds
        self._lock = threading.Lock()
        self.replaced = 0
        """How many times a broken pool (a worker died) was replaced."""
        self.done = 0
        """How many jobs finished in their time."""
        self._closed = False

    def _executor(self) -> ProcessPoolExecutor:
        """The pool, started if need be. Raises :class:`SearchFailed` once closed."""
        with self._lock:
            if self._closed:
                raise SearchFailed("the search workers have been stopped")
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    self.processes,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=exit_without,
                    initargs=(os.getpid(),),
                )
            return self._pool

    def warm(self) -> None:
        """Start the workers now, without waiting for them (a worker takes a second or
        more to start: better before the first search than during it). Nothing if they
        run already."""
        if self._pool is not None:
            return
        with contextlib.suppress(BrokenProcessPool, RuntimeError, SearchFailed):
            pool = self._executor()
            for _ in range(self.processes):
                pool.submit(os.getpid)

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        """Put a fresh pool in place of ``broken``, unless another thread already has."""
        with self._lock:
            if self._pool is not broken:
                return
            self._pool = None
            self.replaced += 1
        broken.shutdown(wait=False, cancel_futures=True)
        _log.warning("pool.worker_lost", replaced=self.replaced)

    def map(self, fn: Callable[[_Job], _Result], jobs: Sequence[_Job]) -> list[_Result]:
        """``fn`` of each job that finished within its deadline, in the jobs' order (some
        may be missing). Raises :class:`SearchFailed` if none did, or the pool is
        closed."""
        now = time.monotonic()
        cap = now + self.search_seconds
        timed = [_bounded(job, cap) for job in jobs]
        end = max(_deadline(job, cap) for job in timed) if timed else now
        end += max(0.05, min(GRACE, (end - now) * GRACE_SHARE))
        results: dict[int, _Result] = {}
        pending = list(range(len(timed)))
        while pending and time.monotonic() < end:
            pool = self._executor()
            try:
                futures = {pool.submit(fn, timed[i]): i for i in pending}
            except (BrokenProcessPool, RuntimeError):
                self._replace(pool)
                continue
            broken = self._collect(futures, end, results)
            pending = [i for i in pending if i not in results]
            if not broken:
                break
            self._replace(pool)
            left = min(_deadline(timed[i], cap) for i in pending) if pending else 0.0
            if left - time.monotonic() < RETRY_LEFT:
                break
        with self._lock:
            self.done += len(results)
        if timed and not results:
            raise SearchFailed(f"no search job of {len(timed)} finished in its time")
        return [results[i] for i in sorted(results)]

    @staticmethod
    def _collect(
        futures: dict[Future[_Result], int], end: float, results: dict[int, _Result]
    ) -> bool:
        """Wait for ``futures`` until ``end``, keeping each result; cancel what is left.
        Whether the pool broke meanwhile."""
        waiting = set(futures)
        broken = False
        while waiting:
            done, waiting = wait(
                waiting, timeout=max(0.0, end - time.monotonic()), return_when=FIRST_EXCEPTION
            )
            for future in done:
                try:
                    results[futures[future]] = future.result()
                except BrokenProcessPool:
                    broken = True
                except Exception:
                    _log.exception("pool.job_failed")
            if broken or time.monotonic() >= end:
                break
        for future in waiting:
            future.cancel()
        return broken

    def close(self) -> None:
        """End the workers at once, searching or not (the process is done with them: a
        search they hold is no one's now). They are this process's only multiprocessing
        children."""
        with self._lock:
            pool, self._pool = self._pool, None
            self._closed = True
        if pool is None:
            return
        for child in multiprocessing.active_children():
            child.terminate()
        pool.shutdown(wait=True, cancel_futures=True)


def _deadline(job: Any, cap: float) -> float:
    deadline = getattr(job, "deadline", None)
    return cap if deadline is None else float(deadline)


def _bounded(job: _Job, cap: float) -> _Job:
    """``job`` with a deadline no later than ``cap`` (jobs with no deadline get ``cap``)."""
    deadline = getattr(job, "deadline", None)
    if dataclasses.is_dataclass(job) and (deadline is None or deadline > cap):
        return dataclasses.replace(job, deadline=cap)  # type: ignore[type-var]
    return job


class FallbackAgent(Agent):
    """Plays as ``inner`` does, but answers with the heuristic's move when ``inner``'s
    search fails (:class:`SearchFailed`)."""

    def __init__(self, inner: Agent) -> None:
        self.inner = inner
        self.name = inner.name
        self.fallback = HeuristicAgent()
        self.fallbacks = 0
        """Decisions the heuristic made instead."""

    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        try:
            return self.inner.choose(prompt, table)
        except SearchFailed as exc:
            self.fallbacks += 1
            _log.warning("pool.fallback", game=table.game, seat=table.seat, why=str(exc))
            return self.fallback.choose(prompt, table)

    def on_seated(self, table: Table) -> None:
        self.inner.on_seated(table)

    def on_event(self, event: Any, table: Table) -> None:
        self.inner.on_event(event, table)

    def on_error(self, error: m.Error, table: Table) -> None:
        self.inner.on_error(error, table)
