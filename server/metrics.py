"""What a running server reports about itself: ``/healthz`` and Prometheus metrics
(``/metrics``), answered on the server's own port (a plain HTTP request there is not a
websocket).

The counts that change on the hot path are kept where they happen (a room's actions, a
connection's refusals) and read when the metrics are scraped; only the store's commit
times are observed as they come (on the writer's thread)."""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Protocol

import structlog
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
"""Prometheus' text format."""
LONG_PAUSE = 0.05
"""Pauses of the garbage collector this long or longer are logged (``gc.pause``)."""


class Observed(Protocol):
    """What the metrics read of a server when scraped."""

    def census(self) -> Census: ...


@dataclass
class Census:
    """A server's counts at one moment."""

    connections: int = 0
    games: dict[str, int] = field(default_factory=dict)
    """Open games by state: ``lobby``, ``playing``, ``over``, ``stopped``."""
    actions: int = 0
    """Actions played since the server started."""
    room_queue: int = 0
    """Messages waiting in the rooms' queues, all together."""
    store_queue: int = 0
    """Jobs waiting for the store's writer."""
    store_reachable: bool = True
    bot_seats: int = 0
    leases: int = 0
    """Games whose leases the process held at its last renewal (PostgreSQL)."""


class _Live(Collector):
    """The counts read from the server at each scrape."""

    def __init__(self, server: Observed) -> None:
        self._server = server

    def collect(self) -> Iterator[Metric]:
        now = self._server.census()
        yield GaugeMetricFamily(
            "hexhaven_connections", "Websocket connections open.", value=now.connections
        )
        games = GaugeMetricFamily("hexhaven_games", "Games open, by state.", labels=["state"])
        for state in ("lobby", "playing", "over", "stopped"):
            games.add_metric([state], now.games.get(state, 0))
        yield games
        yield CounterMetricFamily(
            "hexhaven_actions", "Actions played since the server started.", value=now.actions
        )
        yield GaugeMetricFamily(
            "hexhaven_room_queue",
            "Messages waiting in the games' queues, all together.",
            value=now.room_queue,
        )
        yield GaugeMetricFamily(
            "hexhaven_store_queue", "Writes and reads waiting for the store.", value=now.store_queue
        )
        yield GaugeMetricFamily(
            "hexhaven_store_reachable",
            "1 while the database is there, 0 while the server waits for it to come back.",
            value=int(now.store_reachable),
        )
        yield GaugeMetricFamily(
            "hexhaven_bot_seats",
            "Bot seats the server plays (in its bot host, or a process each).",
            value=now.bot_seats,
        )
        yield GaugeMetricFamily(
            "hexhaven_leases_held",
            "Games this process held the leases of at its last renewal (PostgreSQL).",
            value=now.leases,
        )


class ServerMetrics:
    """One server's metrics, in a registry of their own (several servers may run in one
    process, as in the tests)."""

    def __init__(self, server: Observed) -> None:
        self.registry = CollectorRegistry()
        self.registry.register(_Live(server))
        self.refusals = Counter(
            "hexhaven_refusals",
            "Requests refused, by error code and, for limit_reached, the limit.",
            ["code", "limit"],
            registry=self.registry,
        )
        self.commit_seconds = Histogram(
            "hexhaven_store_commit_seconds",
            "Time of each group commit of the store's writer.",
            buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0),
            registry=self.registry,
        )
        self.commit_writes = Histogram(
            "hexhaven_store_commit_writes",
            "Writes in each group commit of the store's writer.",
            buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256, 1000),
            registry=self.registry,
        )

        self.gc_pause_seconds = Histogram(
            "hexhaven_gc_pause_seconds",
            "Pauses of the garbage collector (every game waits meanwhile), by generation.",
            ["generation"],
            buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0),
            registry=self.registry,
        )

    def committed(self, writes: int, seconds: float) -> None:
        """A group commit of ``writes`` that took ``seconds`` (the store's ``on_commit``)."""
        self.commit_seconds.observe(seconds)
        self.commit_writes.observe(writes)

    def refused(self, code: str, limit: str | None) -> None:
        """Count one refusal (an ``error`` sent) with this code and limit."""
        self.refusals.labels(code, limit or "").inc()

    @contextlib.contextmanager
    def collector_pauses(self, long: float = LONG_PAUSE) -> Iterator[None]:
        """Time each pause of the garbage collector while the block runs (into
        ``hexhaven_gc_pause_seconds``), and log each one of ``long`` seconds or more
        (``gc.pause``, with its generation and what it freed)."""
        log = structlog.get_logger("hexhaven.server")
        began = 0.0

        def timed(phase: str, info: dict[str, int]) -> None:
            nonlocal began
            if phase == "start":
                began = time.perf_counter()
                return
            took = time.perf_counter() - began
            generation = info.get("generation", 2)
            self.gc_pause_seconds.labels(str(generation)).observe(took)
            if took >= long:
                log.warning(
                    "gc.pause",
                    generation=generation,
                    ms=round(1000 * took, 1),
                    collected=info.get("collected", 0),
                )

        gc.callbacks.append(timed)
        try:
            yield
        finally:
            gc.callbacks.remove(timed)

    def text(self) -> bytes:
        """The metrics in Prometheus' text format."""
        return generate_latest(self.registry)
