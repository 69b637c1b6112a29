"""The search workers that many seats of one process share, and the heuristic's move
when a search cannot answer."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bots.pool import FallbackAgent, PoolEnsemble, SearchFailed
from bots.uct import SearchConfig
from bots.uct_agent import UCTAgent
from clients.sdk import Agent, Table
from engine import GameConfig, new_game
from protocol import messages as m
from tests.bots.prompts import prompt_for
from tournament.local import play_local


@dataclass(frozen=True)
class Job:
    value: int
    marker: str
    deadline: float | None = None


def die_once(job: Job) -> int:
    """The job's value, but the first job run anywhere ends its worker instead."""
    try:
        os.close(os.open(job.marker, os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return job.value
    os._exit(1)


def die(job: Job) -> int:
    os._exit(1)


def deadline_of(job: Job) -> float | None:
    return job.deadline


def test_a_worker_that_dies_mid_search_is_replaced_and_its_jobs_run_again(
    tmp_path: Path,
) -> None:
    pool = PoolEnsemble(2, search_seconds=60)
    try:
        marker = str(tmp_path / "died")
        assert pool.map(die_once, [Job(i, marker) for i in range(4)]) == [0, 1, 2, 3]
        assert pool.replaced == 1
        assert pool.map(die_once, [Job(7, marker)]) == [7]  # the fresh pool goes on
    finally:
        pool.close()


def test_a_search_worker_loads_the_search_and_not_the_sdk() -> None:
    """A worker starts by importing what its initializer and jobs live in: the engine and
    the search, not the SDK, the protocol's models or the logging (about half a second of
    start-up CPU a worker)."""
    pool = PoolEnsemble(1, search_seconds=60)
    try:
        # eval, a built-in, runs in the worker without importing anything of its own
        [loaded] = pool.map(eval, ["sorted(__import__('sys').modules)"])
    finally:
        pool.close()
    assert {"bots.ensemble", "bots.uct", "engine.rules"} <= set(loaded)
    for unneeded in ("bots.pool", "clients.sdk", "protocol", "pydantic", "structlog"):
        assert unneeded not in loaded


def test_a_search_whose_workers_keep_dying_fails_once_its_time_is_out() -> None:
    pool = PoolEnsemble(1, search_seconds=4.0)
    try:
        with pytest.raises(SearchFailed, match="no search job of 2 finished"):
            pool.map(die, [Job(0, ""), Job(1, "")])
        assert pool.replaced >= 1
    finally:
        pool.close()


def test_every_job_gets_a_deadline_no_later_than_the_search_seconds() -> None:
    pool = PoolEnsemble(1, search_seconds=5.0)
    try:
        now = time.monotonic()
        late, soon = now + 100, now + 1
        got = pool.map(deadline_of, [Job(0, ""), Job(1, "", late), Job(2, "", soon)])
        assert all(d is not None and now < d <= now + 5.5 for d in got[:2])
        assert got[2] == soon
    finally:
        pool.close()


class Failing(Agent):
    """A searcher whose search never answers."""

    name = "failing"

    def __init__(self) -> None:
        self.events: list[Any] = []

    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        raise SearchFailed("no search job of 10 finished in its time")

    def on_event(self, event: Any, table: Table) -> None:
        self.events.append(event)


def test_a_failed_search_is_answered_with_the_heuristics_move() -> None:
    state = new_game(GameConfig(players=3), seed=5)
    prompt = prompt_for(state, 0)
    inner = Failing()
    agent = FallbackAgent(inner)
    table = Table(game="t", seat=0, view=prompt.view)
    action = agent.choose(prompt, table)
    assert action in prompt.actions and agent.fallbacks == 1
    agent.on_event("an event", table)
    assert inner.events == ["an event"] and agent.name == "failing"


def test_uct_seats_that_share_one_pool_play_a_game_to_its_end() -> None:
    pool = PoolEnsemble(2, search_seconds=5.0)
    try:
        agents: list[Agent] = []
        for seed in range(3):
            agent = UCTAgent(SearchConfig(rollouts=12, trees=2), seed)
            agent.ensemble = pool
            agents.append(agent)
        game = play_local(agents, GameConfig(players=3, victory_points=4), 3)
        assert game.state.winner is not None
        assert pool.done > 0 and pool.replaced == 0  # the searches ran in its workers
    finally:
        pool.close()


def test_a_closed_pool_searches_no_more() -> None:
    pool = PoolEnsemble(1)
    pool.warm()
    pool.close()
    with pytest.raises(SearchFailed, match="stopped"):
        pool.map(deadline_of, [Job(0, "")])
