"""The policy bot: a policy over the encoding seated where bots sit, over the protocol
and in local games, reading the same encoding and index as the environments."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest

from bots import make_agent
from bots.policy import FORMAT, MaskedMLP, PolicyAgent
from clients.sdk import Agent, SeatDeclined, play
from engine import GameConfig
from features import action_index, encoding
from protocol import messages as m
from server.app import HexhavenServer
from tests.server.client import Client
from tournament.local import play_local


def tiny_policy(tmp_path: Path, players: int, seed: int = 0) -> Path:
    """A small random-weight policy file, as the example trainer writes one."""
    rng = np.random.default_rng(seed)
    size, actions = encoding(3, players).size, action_index(3, players).size
    weights = [
        (rng.normal(0, 0.05, (size, 16)).astype(np.float32), np.zeros(16, np.float32)),
        (rng.normal(0, 0.5, (16, actions)).astype(np.float32), np.zeros(actions, np.float32)),
    ]
    scale = np.full(size, 0.1, np.float32)
    header = {"format": FORMAT, "players": players, "radius": 3, "clip": 3.0, "name": "tiny"}
    path = tmp_path / f"tiny{players}.npz"
    MaskedMLP(weights, scale, header).save(path)
    return path


async def test_a_policy_plays_a_whole_game_over_the_protocol(tmp_path: Path) -> None:
    agent = make_agent("policy", 1, {"weights": str(tiny_policy(tmp_path, 2))})
    assert isinstance(agent, PolicyAgent) and agent.name == "tiny"
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        port = srv.port_of(ws_server)
        host = await Client.open(port)
        await host.hello()
        options = m.GameOptions(players=2, victory_points=5, bots=[m.BotSeat(kind="random")])
        await host.send(m.CreateGame(options=options))
        created = await host.expect(m.GameCreated)
        game = asyncio.create_task(play(agent, f"ws://127.0.0.1:{port}", created.game))
        async with asyncio.timeout(60):
            while srv.rooms[created.game].seated < 1:
                await asyncio.sleep(0.02)
        await host.send(m.StartGame(game=created.game))
        over = await asyncio.wait_for(game, 120)
        assert over is not None and over.winner is not None
        await host.close()


def test_policies_play_local_games_and_keep_to_the_offer_bound(tmp_path: Path) -> None:
    path = tiny_policy(tmp_path, 3, seed=4)
    offers: list[tuple[int, int]] = []
    index = action_index(3, 3)
    agents: list[Agent] = []
    for q in range(2):
        mlp = MaskedMLP.load(path, greedy=False, seed=q)

        def watched(obs: np.ndarray, mask: np.ndarray, mlp: MaskedMLP = mlp) -> int:
            choice = mlp(obs, mask)
            if index.kind(choice) == "offer":
                turn = int(encoding(3, 3).named(obs)["turn"][0])
                offers.append((turn, choice))
            return choice

        agents.append(PolicyAgent(watched, players=3, max_offers=2))
    agents.append(make_agent("random", 3))
    played = play_local(agents, GameConfig(players=3, victory_points=5), seed=8)
    assert played.over is not None and played.over.winner is not None
    assert all(d > 20 for d in played.decisions[:2])
    per_turn: dict[int, int] = {}
    for turn, _ in offers:
        per_turn[turn] = per_turn.get(turn, 0) + 1
    assert offers and max(per_turn.values()) <= 2


async def test_a_policy_for_other_player_counts_declines_the_seat(tmp_path: Path) -> None:
    agent = make_agent("policy", 1, {"weights": str(tiny_policy(tmp_path, 4))})
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        port = srv.port_of(ws_server)
        host = await Client.open(port)
        await host.hello()
        options = m.GameOptions(players=2, bots=[m.BotSeat(kind="random")])
        await host.send(m.CreateGame(options=options))
        created = await host.expect(m.GameCreated)
        with pytest.raises(SeatDeclined, match="4-player games, not 2-player"):
            await asyncio.wait_for(play(agent, f"ws://127.0.0.1:{port}", created.game), 30)
        await host.close()


def test_bad_policy_parameters_and_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="needs weights=FILE"):
        make_agent("policy", 0, {})
    with pytest.raises(ValueError, match="not depth"):
        make_agent("policy", 0, {"weights": "x", "depth": "3"})
    with pytest.raises(ValueError, match="cannot read the policy file"):
        make_agent("policy", 0, {"weights": str(tmp_path / "missing.npz")})
    junk = tmp_path / "junk.npz"
    np.savez(junk, header='{"format": "other", "players": 2, "layers": 0}', scale=np.ones(1))
    with pytest.raises(ValueError, match="is not a hexhaven-masked-mlp/1 file"):
        MaskedMLP.load(junk)
    with pytest.raises(ValueError, match="greedy is true or false"):
        make_agent("policy", 0, {"weights": str(tiny_policy(tmp_path, 2)), "greedy": "maybe"})
