"""Running a ladder's games: the backends, the driver that stores every result, progress.

Backends take tasks lazily, keep a few games in flight per worker and hand each finished
game to the driver (``on_result``) in the order they finish; the driver writes it to the
store in its own transaction and may ask to stop (the sequential test does), which cancels
what has not started. Only the driver writes to the store. A signal (SIGINT, SIGTERM) under
:func:`stop_on_signals` stops the run at once: the games in flight are dropped (they are
played again when the ladder resumes), and :class:`LadderStopped` says what the run did.

- ``process`` (default): ``workers`` local processes (spawned); one worker plays in the
  driver's own process.
- ``ray``: each game a Ray task (``num_cpus`` = the processes its search uses), on the
  cluster at ``address`` or on a local Ray instance started for the run (and stopped
  after). Every node needs Hexhaven installed.
- ``server``: each game a private game on a real server, every seat its own process
  (``hexhaven bot``, ``hexhaven agent --cmd`` or the entrant's ``connect`` command);
  ``workers`` games at once. The server picks the game seeds.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from types import FrameType
from typing import TYPE_CHECKING, Any, Literal

from websockets.exceptions import WebSocketException

from bots.ensemble import exit_with_parent
from protocol import messages as m
from protocol.payloads import board_to_payload
from tournament.ladder.config import LadderConfig, search_processes
from tournament.ladder.games import (
    GameError,
    GameTask,
    make_tasks,
    play_game,
    quiet_logs,
    seat_command,
)
from tournament.ladder.schedule import block_size, make_ladder_schedule
from tournament.ladder.store import LadderStore
from tournament.records import ArenaError, GameRecord
from tournament.server_runner import server_game

if TYPE_CHECKING:
    from tournament.ladder.ratings import Outcome

Backend = Literal["process", "ray", "server"]
OnResult = Callable[[GameTask, GameRecord], bool]
"""Called with each finished game; returning True stops the run."""
IN_FLIGHT = 2
"""Games queued per worker, so a worker never waits for the driver."""


def say(line: str) -> None:
    """Print a line now (a pipe or a CI log sees each game as it finishes)."""
    print(line, flush=True)


class LadderError(Exception):
    """A ladder that cannot run: a bad option, a game that could not be played (the games
    stored so far are kept), a backend that cannot start."""


class LadderRefused(LadderError):
    """A ladder refused before any game was played: how it was asked to run cannot work
    (running it again the same way fails the same way)."""


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
"""The signals that stop a run with its summary: Ctrl-C, and ``kill``'s default."""


class Signalled(KeyboardInterrupt):
    """Raised by :func:`stop_on_signals` when one of :data:`STOP_SIGNALS` arrives (a
    ``KeyboardInterrupt``, so that nothing that catches ``Exception`` swallows it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class LadderStopped(Signalled):
    """A run stopped by a signal once it had begun to play: what it had done (``result``;
    the games it finished are stored)."""

    def __init__(self, signum: int, result: RunResult) -> None:
        super().__init__(signum)
        self.result = result


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """Within the block, the first of :data:`STOP_SIGNALS` raises :class:`Signalled` (in
    the main thread, wherever it is) and any later one is ignored, so that what the block
    does on its way out (a summary) is not cut short; the handlers before are restored
    after it. Outside the main thread, where signals cannot be handled, it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    fired = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal fired
        if not fired:
            fired = True
            raise Signalled(signum)

    before = {sig: signal.signal(sig, stop) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def default_workers(config: LadderConfig) -> int:
    """One game per core, fewer when an entrant's search runs several processes itself
    (so searches do not fight over cores): cores // the most processes one search uses."""
    cores = os.cpu_count() or 1
    most = max(search_processes(e) for e in config.entrant)
    return max(1, cores // most)


# --- backends ---------------------------------------------------------------------------


def _start_worker() -> None:
    """A worker's set-up: quiet logs, Ctrl-C left to the driver (which stops the workers
    itself, :func:`_stop_workers`), and an end when the driver is gone."""
    quiet_logs()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent()


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """End the pool's worker processes now (SIGTERM), with the games they are playing: at
    its exit the driver would otherwise wait for those games to finish. The pool keeps its
    processes in ``_processes`` (Python 3.14 adds ``terminate_workers`` for this)."""
    processes: dict[int, multiprocessing.Process] = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        with contextlib.suppress(ProcessLookupError):
            process.terminate()


def _process_backend(tasks: Iterable[GameTask], workers: int, on_result: OnResult) -> None:
    if workers <= 1:
        for task in tasks:
            if on_result(task, play_game(task)):
                return
        return
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker)
    running: dict[Future[GameRecord], GameTask] = {}
    source = iter(tasks)
    try:
        while True:
            for task in source:
                running[pool.submit(play_game, task)] = task
                if len(running) >= workers * IN_FLIGHT:
                    break
            if not running:
                return
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                task = running.pop(future)
                if on_result(task, future.result()):
                    return
    except BaseException:  # a signal, a game that failed: the games in flight are dropped
        _stop_workers(pool)
        raise
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _ray_backend(
    tasks: Iterable[GameTask], workers: int, address: str | None, on_result: OnResult
) -> None:
    try:
        import ray
    except ImportError as exc:
        raise LadderError("the ray backend needs Ray: pip install '.[ray]'") from exc
    started = False
    if not ray.is_initialized():
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        started = True
    running: dict[Any, GameTask] = {}
    try:
        remote = ray.remote(_ray_game)
        resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
        capacity = max(workers, int(resources.get("CPU", workers)))
        source = iter(tasks)
        while True:
            for task in source:
                cpus = max(search_processes_of(task), 1)
                running[remote.options(num_cpus=cpus, max_retries=0).remote(task)] = task
                if len(running) >= capacity * IN_FLIGHT:
                    break
            if not running:
                return
            done, _ = ray.wait(list(running), num_returns=1)
            for ref in done:
                task = running.pop(ref)
                try:
                    record = ray.get(ref)
                except ray.exceptions.RayTaskError as exc:
                    cause = exc.cause if isinstance(exc.cause, Exception) else exc
                    raise LadderError(str(cause)) from None
                if on_result(task, record):
                    return
    finally:
        for ref in running:
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()


def _ray_game(task: GameTask) -> GameRecord:
    quiet_logs()
    return play_game(task)


def search_processes_of(task: GameTask) -> int:
    """The most processes a search of the task's seats runs in."""
    from bots.uct_agent import UCTAgent

    most = 1
    for spec in task.seats:
        if spec.way == "bot" and spec.kind == "uct":
            c = UCTAgent.from_params(dict(spec.params)).config
            most = max(most, min(c.processes, c.trees))
    return most


async def _server_games(
    url: str, tasks: Iterable[GameTask], workers: int, on_result: OnResult
) -> None:
    source = iter(tasks)
    stop = asyncio.Event()

    async def play(task: GameTask) -> tuple[GameTask, GameRecord]:
        if task.board in ("random", "spiral"):
            board: dict[str, Any] = {"board": task.board}
        else:  # the block's own board, made here so that the whole block shares it
            layout = board_to_payload(task.engine_config().make_board(task.game.seed).to_dict())
            board = {"board": "layout", "layout": layout}
        options = m.GameOptions(
            players=task.players,
            victory_points=task.victory_points,
            private=True,
            **board,
        )
        game = task.game
        record = await server_game(
            url,
            task.labels,
            lambda seat, invite: seat_command(
                task.seats[seat], url, invite, game.agent_seeds[seat]
            ),
            game,
            options,
            check_names=[s.way != "connect" for s in task.seats],
        )
        return task, record

    running: set[asyncio.Task[tuple[GameTask, GameRecord]]] = set()
    try:
        while not stop.is_set():
            for task in source:
                running.add(asyncio.create_task(play(task)))
                if len(running) >= workers:
                    break
            if not running:
                return
            done, running = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            # Every failure is looked at (one unread would be reported again at exit);
            # the first is raised.
            failures = [f.exception() for f in done if not f.cancelled()]
            first = next((e for e in failures if e is not None), None)
            if first is not None:
                raise first
            for finished in done:
                task, record = finished.result()
                if on_result(task, record):
                    stop.set()
                    break
    finally:
        for pending in running:
            pending.cancel()
        await asyncio.gather(*running, return_exceptions=True)


def run_tasks(
    tasks: Iterable[GameTask],
    on_result: OnResult,
    *,
    backend: Backend = "process",
    workers: int = 1,
    address: str | None = None,
    server: str | None = None,
) -> None:
    """Play the tasks on a backend, each finished game to ``on_result`` (see the module
    docstring). Raises :class:`LadderError` when a game cannot be played or the backend
    cannot start."""
    try:
        if backend == "process":
            _process_backend(tasks, workers, on_result)
        elif backend == "ray":
            _ray_backend(tasks, workers, address, on_result)
        elif backend == "server":
            if not server:
                raise LadderError("the server backend needs a server URL (--server URL)")
            asyncio.run(_server_games(server, tasks, workers, on_result))
        else:
            raise LadderError(f"unknown backend {backend!r}; backends: process, ray, server")
    except GameError as exc:
        raise LadderError(str(exc)) from exc
    except ArenaError as exc:
        raise LadderError(f"on the server: {exc}") from exc
    except (OSError, WebSocketException) as exc:
        where = f" {server}" if server else ""
        raise LadderError(f"cannot play on the server{where}: {exc}") from exc


# --- progress ---------------------------------------------------------------------------


def describe(task: GameTask, record: GameRecord) -> str:
    """One line for a finished game: number, seed, seats, winner, time taken."""
    if record.winner is None:
        winner = "none (unfinished)"
    else:
        winner = f"{task.labels[record.winner]} (seat {record.winner})"
    return (
        f"game {record.index + 1}  seed {record.seed}  seats {', '.join(task.labels)}  "
        f"winner {winner}  points {list(record.points)}  {record.elapsed:.1f}s"
    )


class Progress:
    """Games done out of the total, games per second and time left: a rich progress bar
    on a terminal, else one plain line per game (``out``)."""

    def __init__(
        self,
        total: int,
        done: int,
        *,
        bar: bool | None = None,
        out: Callable[[str], None] = say,
        title: str = "ladder",
    ) -> None:
        self.total = total
        self.done = done
        self.first = done
        self.out = out
        self.start = time.monotonic()
        self.bar = sys.stdout.isatty() if bar is None else bar
        self._rich: Any = None
        self._task: Any = None
        if self.bar:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as RichProgress

            self._rich = RichProgress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"),
                TimeElapsedColumn(),
                TextColumn("elapsed,"),
                TimeRemainingColumn(),
                TextColumn("left"),
            )
            self._task = self._rich.add_task(title, total=total, completed=done, rate="")
            self._rich.start()

    def rate(self) -> float:
        """Games per second finished in this run."""
        elapsed = time.monotonic() - self.start
        return (self.done - self.first) / elapsed if elapsed > 0 else 0.0

    def left(self) -> float | None:
        """Seconds left at this run's rate, or None before the first game."""
        rate = self.rate()
        return (self.total - self.done) / rate if rate > 0 else None

    def advance(self, line: str) -> None:
        self.done += 1
        rate = self.rate()
        if self._rich is not None:
            self._rich.update(self._task, completed=self.done, rate=speed(rate))
            self._rich.console.print(line, highlight=False)
            return
        left = self.left()
        eta = "?" if left is None else _duration(left)
        self.out(f"[{self.done}/{self.total}  {speed(rate)}  {eta} left]  {line}")

    def close(self) -> None:
        if self._rich is not None:
            self._rich.stop()
            self._rich = None


def speed(rate: float) -> str:
    """Games per second as a short text: per hour when under one game in ten seconds, as in
    ladders of long searches, where games per second would round to 0.01."""
    if 0 < rate < 0.1:
        return f"{rate * 3600:.1f} games/h"
    return f"{rate:.2f} games/s"


def _duration(seconds: float) -> str:
    hours, rest = divmod(round(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


# --- the ladder -------------------------------------------------------------------------


@dataclass
class RunResult:
    """What a run did: games planned, stored before it began, played in it."""

    name: str
    planned: int
    before: int
    played: int = 0
    errors: list[str] = field(default_factory=list)


def outcomes(store: LadderStore, name: str) -> list[Outcome]:
    """The ladder's stored games as outcomes for the ratings, in game order."""
    from tournament.ladder.ratings import Outcome

    return [
        Outcome(
            labels=g.labels,
            points=g.points,
            winner=g.winner,
            decisions=g.decisions,
            decision_seconds=g.decision_seconds,
        )
        for g in store.games(name)
    ]


def entrant_rows(config: LadderConfig) -> dict[str, tuple[dict[str, Any], str]]:
    """Each entrant's stored config and budget, by label."""
    budgets = config.budgets()
    return {e.name: (e.model_dump(mode="json"), budgets[e.name]) for e in config.entrant}


def run_ladder(
    config: LadderConfig,
    store: LadderStore,
    *,
    games: int | None = None,
    workers: int | None = None,
    backend: Backend = "process",
    address: str | None = None,
    server: str | None = None,
    fresh: bool = False,
    bar: bool | None = None,
    out: Callable[[str], None] = say,
) -> RunResult:
    """Play what the ladder's schedule still lacks and store each game as it finishes.
    ``games`` overrides the file's count (more extends the ladder). Raises
    :class:`LadderError` (the games stored so far stay),
    :class:`tournament.ladder.store.StoreError` (a name that holds another configuration),
    and, for a :class:`Signalled` stop once the ladder is open, :class:`LadderStopped`."""
    name = config.ladder.name
    total = games if games is not None else config.ladder.games
    if total < 1:
        raise LadderRefused("--games must be at least 1")
    if backend != "server":
        connecting = [e.name for e in config.entrant if e.way == "connect"]
        if connecting:
            raise LadderRefused(
                f"{', '.join(connecting)} connect(s) to a server itself: run with --server URL"
            )
    workers = workers or config.ladder.workers or default_workers(config)
    most = max(search_processes(e) for e in config.entrant)
    if backend == "process" and workers * most > (os.cpu_count() or 1):
        out(
            f"ladder {name}: note: {workers} workers x up to {most} search processes each is "
            f"more than the {os.cpu_count()} cores; decision times will suffer"
        )
    before = store.open_ladder(name, config.identity(), entrant_rows(config), fresh=fresh)
    schedule = make_ladder_schedule(
        len(config.entrant), config.ladder.players, total, config.ladder.seed
    )
    done = store.done(name)
    beyond = sorted(i for i in done if i >= total)
    todo = [g for g in schedule if g.index not in done]
    result = RunResult(name, total, before)
    size = block_size(len(config.entrant), config.ladder.players)
    out(
        f"ladder {name}: {total} games in blocks of {size}, {len(done) - len(beyond)} stored, "
        f"{len(todo)} to play; {backend} backend"
        + (f" on {server}" if backend == "server" else "")
        + (f" at {address}" if backend == "ray" and address else "")
        + f", {workers} worker{'s' if workers != 1 else ''}; store {store.where}"
    )
    if beyond:
        out(f"ladder {name}: {len(beyond)} stored game(s) lie beyond game {total}; kept")
    if total % size:
        out(f"ladder {name}: the last block is partial ({total % size} of {size} games)")
    if not todo:
        return result
    tasks = make_tasks(config, todo, config.entrant)
    progress = Progress(len(schedule), len(schedule) - len(todo), bar=bar, out=out, title=name)

    def on_result(task: GameTask, record: GameRecord) -> bool:
        store.add_game(name, record, task.labels, task.game.agent_seeds, task.config_json, backend)
        result.played += 1
        progress.advance(describe(task, record))
        return False

    try:
        run_tasks(
            tasks, on_result, backend=backend, workers=workers, address=address, server=server
        )
    except Signalled as exc:
        raise LadderStopped(exc.signum, result) from None
    finally:
        progress.close()
    return result
