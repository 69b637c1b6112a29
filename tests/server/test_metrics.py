"""A running server answers ``/healthz`` and ``/metrics`` over plain HTTP on its own port,
beside the websocket: the metrics, scraped and parsed as Prometheus would, count what the
server saw (connections, games, actions, commits, refusals by code and limit)."""

from __future__ import annotations

import asyncio
import gc
import urllib.error
import urllib.request

from prometheus_client.parser import text_string_to_metric_families
from structlog.testing import capture_logs

from protocol import SUBPROTOCOL_MSGPACK
from protocol import messages as m
from server.app import HexhavenServer
from server.limits import ServerLimits
from server.metrics import CONTENT_TYPE
from tests.server.client import Client
from tests.server.test_play import seated_game


def get(port: int, path: str) -> tuple[int, str, str]:
    """A plain HTTP GET on the server's port: status, content type and body."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as reply:
            return reply.status, reply.headers["Content-Type"], reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read().decode()


async def scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """The server's metrics: each sample's value by its name and labels."""
    status, kind, text = await asyncio.to_thread(get, port, "/metrics")
    assert status == 200 and kind == CONTENT_TYPE
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


async def test_health_and_metrics_are_served_beside_the_websocket() -> None:
    srv = HexhavenServer(limits=ServerLimits(unstarted_per_connection=1))
    async with srv.running("127.0.0.1", 0) as ws_server:
        port = srv.port_of(ws_server)
        assert await asyncio.to_thread(get, port, "/healthz") == (
            200,
            "text/plain; charset=utf-8",
            "ok\n",
        )
        game, players = await seated_game(port, SUBPROTOCOL_MSGPACK, players=2)
        await asyncio.gather(*(c.play_randomly(game, seed=i) for i, c in enumerate(players)))
        played = srv.rooms[game].table.state_id
        prompt = next(x for x in players[0].received if isinstance(x, m.Prompt))
        await players[0].send(m.Act(game=game, state_id=0, action=prompt.actions[0]))
        assert (await players[0].expect(m.Error)).code == m.ErrorCode.ILLEGAL_ACTION  # over
        lobby = await Client.open(port, SUBPROTOCOL_MSGPACK)
        await lobby.hello()
        for _ in range(2):  # the second is over this connection's cap
            await lobby.send(m.CreateGame(options=m.GameOptions(players=2)))
        assert (await lobby.expect(m.Error)).detail == "unstarted_per_connection"

        now = await scrape(port)
        assert now[("hexhaven_connections", ())] == 3
        assert now[("hexhaven_games", (("state", "over"),))] == 1
        assert now[("hexhaven_games", (("state", "lobby"),))] == 1
        assert now[("hexhaven_actions_total", ())] == played
        assert now[("hexhaven_store_reachable", ())] == 1
        assert now[("hexhaven_store_commit_seconds_count", ())] >= 1
        assert now[("hexhaven_store_commit_writes_sum", ())] >= played
        refusals = {
            labels: value
            for (name, labels), value in now.items()
            if name == "hexhaven_refusals_total"
        }
        # Random play may be refused too (stale_state, rate_limited); these two are ours.
        assert refusals[(("code", "illegal_action"), ("limit", ""))] == 1
        assert refusals[(("code", "limit_reached"), ("limit", "unstarted_per_connection"))] == 1
        for c in (*players, lobby):
            await c.close()
        status, _, _ = await asyncio.to_thread(get, port, "/elsewhere")
        assert status == 404  # no such page (a websocket handshake goes on at any path)


def test_the_collectors_pauses_are_timed_by_generation_and_long_ones_logged() -> None:
    metrics = HexhavenServer().metrics
    with capture_logs() as logs, metrics.collector_pauses(long=0.0):
        gc.collect()  # a full collection
        gc.collect(0)
    gc.collect()  # after the block: not timed
    counts = {
        s.labels["generation"]: s.value
        for family in text_string_to_metric_families(metrics.text().decode())
        for s in family.samples
        if s.name == "hexhaven_gc_pause_seconds_count"
    }
    assert counts["2"] >= 1 and counts["0"] >= 1
    pauses = [e for e in logs if e["event"] == "gc.pause"]
    assert {e["generation"] for e in pauses} >= {0, 2} and all(e["ms"] >= 0 for e in pauses)
