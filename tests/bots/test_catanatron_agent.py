"""The ``catanatron`` bot kind: catanatron's players in Hexhaven seats.

The board mapping both ways, rebuilt positions against catanatron's own move generation,
whole games for each player the package ships (in process, and through a real server with
``hexhaven bot`` processes), hidden cards from the belief sample only, and refusals."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from catanatron.models.actions import generate_playable_actions
from catanatron.models.board import STATIC_GRAPH, get_edges
from catanatron.models.enums import Action as CAction
from catanatron.models.enums import ActionType
from catanatron.models.map import build_map
from catanatron.models.player import Player
from catanatron.state_functions import player_key

import engine
from app.cli import main
from bots import make_agent
from bots.catanatron_agent import (
    COLORS,
    SHIPPED_PLAYERS,
    CatanatronAgent,
    UnsupportedGame,
    check_game,
    load_player,
    to_catan,
)
from bots.catanatron_map import (
    DEV_NAME,
    RESOURCE_NAME,
    TERRAIN_RESOURCE,
    board_map,
    catan_map,
    from_freqdeck,
    to_freqdeck,
)
from clients.sdk import SeatDeclined, Table, play
from engine.constants import HARBOUR_GENERIC, Terrain
from engine.topology import topology
from protocol import messages as m
from protocol.payloads import (
    action_from_engine,
    action_to_engine,
    event_from_engine,
    view_from_engine,
)
from server.app import HexhavenServer
from tests.server.client import Client
from tournament.local import play_local

SHIPPED = sorted(SHIPPED_PLAYERS.values())


# --- the board ------------------------------------------------------------------------------


def test_every_hex_vertex_edge_and_harbour_maps_both_ways() -> None:
    topo = topology(3)
    bm = board_map()
    assert sorted(bm.coord_hex[bm.hex_coord[h]] for h in range(19)) == list(range(19))
    assert sorted(bm.node_vertex[bm.vertex_node[v]] for v in range(54)) == list(range(54))
    assert sorted(bm.vertex_node) == list(range(54))  # catanatron's land nodes are 0-53
    for e, (a, b) in enumerate(topo.edge_vertices):
        pair = bm.edge_pair[e]
        assert set(pair) == {bm.vertex_node[a], bm.vertex_node[b]}
        assert bm.edge_of(pair) == bm.edge_of((pair[1], pair[0])) == e
    # catanatron's land paths are exactly the images of Hexhaven's edges.
    land = {tuple(sorted(edge)) for edge in get_edges(frozenset(range(54)))}
    assert land == set(bm.edge_pair) and len(land) == 72
    for i, (coord, _) in enumerate(bm.slot_port):
        assert bm.port_slot[coord] == i
    assert len(bm.slot_port) == len(topo.harbour_slots) == 9


def test_harbour_slots_are_catanatrons_ports() -> None:
    """Hexhaven's harbour slots lie where catanatron's base map puts its nine ports."""
    topo = topology(3)
    bm = board_map()
    ports = {frozenset(nodes) for nodes in _port_node_pairs(build_map("BASE"))}
    slots = {
        frozenset(bm.vertex_node[v] for v in topo.edge_vertices[e]) for e in topo.harbour_slots
    }
    assert slots == ports


def _port_node_pairs(cmap: Any) -> list[set[int]]:
    """catanatron's ports as the pairs of land nodes each one serves."""
    pairs: list[set[int]] = []
    for nodes in cmap.port_nodes.values():
        left = set(nodes)
        while left:
            a = left.pop()
            b = next(n for n in left if n in STATIC_GRAPH.neighbors(a))
            left.discard(b)
            pairs.append({a, b})
    return pairs


def test_adjacency_agrees() -> None:
    topo = topology(3)
    bm = board_map()
    state = engine.new_game(engine.GameConfig(), 7)
    cmap = catan_map(state.board)
    for v in range(topo.n_vertices):
        node = bm.vertex_node[v]
        assert {bm.vertex_node[w] for w in topo.vertex_vertices[v]} == {
            n for n in STATIC_GRAPH.neighbors(node) if n in cmap.land_nodes
        }
        assert {bm.hex_coord[h] for h in topo.vertex_hexes[v]} == {
            c for c, tile in cmap.land_tiles.items() if node in tile.nodes.values()
        }
    for h in range(topo.n_hexes):
        tile = cmap.land_tiles[bm.hex_coord[h]]
        assert {bm.vertex_node[v] for v in topo.hex_vertices[h]} == set(tile.nodes.values())
        assert {bm.edge_pair[e] for e in topo.hex_edges[h]} == {
            tuple(sorted(edge)) for edge in tile.edges.values()
        }


@pytest.mark.parametrize("edition", [1, 2])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_board_keeps_its_terrain_tokens_and_harbours(seed: int, edition: int) -> None:
    """On either harbour layout: a game stored before the printed frame keeps its slots."""
    board = engine.new_game(engine.GameConfig(setup_edition=edition), seed).board
    bm = board_map(board.harbour_layout)
    cmap = catan_map(board)
    for h in range(19):
        tile = cmap.land_tiles[bm.hex_coord[h]]
        assert tile.resource == TERRAIN_RESOURCE[board.terrain[h]]
        assert tile.number == (None if board.terrain[h] == Terrain.DESERT else board.tokens[h])
    ports: dict[Any, set[int]] = {}
    for v, kind in enumerate(board.vertex_harbour):
        if kind >= 0:
            name = None if kind == HARBOUR_GENERIC else RESOURCE_NAME[kind]
            ports.setdefault(name, set()).add(bm.vertex_node[v])
    assert {k: set(v) for k, v in cmap.port_nodes.items()} == ports
    for coord, tile in cmap.ports_by_id.items():
        del coord
        slot = bm.port_slot[next(c for c, t in cmap.tiles.items() if t is tile)]
        kind = board.harbours[slot]
        assert tile.resource == (None if kind == HARBOUR_GENERIC else RESOURCE_NAME[kind])


def test_counts_convert_both_ways() -> None:
    assert to_freqdeck((1, 2, 3, 4, 5)) == [2, 1, 3, 4, 5]  # WOOD, BRICK, SHEEP, WHEAT, ORE
    assert from_freqdeck(to_freqdeck((1, 2, 3, 4, 5))) == (1, 2, 3, 4, 5)
    assert DEV_NAME == ("KNIGHT", "VICTORY_POINT", "ROAD_BUILDING", "YEAR_OF_PLENTY", "MONOPOLY")


# --- rebuilt positions ----------------------------------------------------------------------

_COMPARED = {
    "setup_settlement": None,  # every kind
    "setup_road": None,
    "move_robber": None,
    "main": {
        ActionType.END_TURN,
        ActionType.BUILD_ROAD,
        ActionType.BUILD_SETTLEMENT,
        ActionType.BUILD_CITY,
        ActionType.MARITIME_TRADE,
    },
}
"""Phases whose listed actions catanatron's own move generation must reproduce on the
rebuilt game, and of which kinds. (Elsewhere the rules differ on purpose: catanatron discards
in one action, lets cards bought this turn be played, and wants road money for free roads.)"""


def _robbed_with_cards(moves: set[Any], view: engine.View) -> set[Any]:
    """Robber moves as (hex, victim holding cards or None): Hexhaven also lets the robber
    name an opponent without cards (who gives nothing), where catanatron names nobody."""
    holding = {COLORS[s.seat] for s in view.seats if s.resource_cards}
    hexes = {a.value[0] for a in moves}
    robbed = {(a.value[0], a.value[1]) for a in moves if a.value[1] in holding}
    return {(h, None) for h in hexes} | robbed


class Probe(CatanatronAgent):
    """Checks every rebuilt position against catanatron's move generation."""

    def __init__(self, player: str, seed: int) -> None:
        super().__init__(player, seed)
        self.compared = 0

    def decide(self, view: engine.View, seat: int, legal: list[engine.Action]) -> Any:
        action = super().decide(view, seat, legal)
        kinds = _COMPARED.get(view.phase, set())
        if self.last_game is not None and kinds != set() and view.trade is None:
            mine = {a for a in map(to_catan, legal) if a is not None}
            state = self.last_game.state
            theirs = set(generate_playable_actions(state))
            if kinds is not None:
                mine = {a for a in mine if a.action_type in kinds}
                theirs = {a for a in theirs if a.action_type in kinds}
            if view.phase == "move_robber":
                mine, theirs = _robbed_with_cards(mine, view), _robbed_with_cards(theirs, view)
            assert mine == theirs, (view.state_id, view.phase, mine ^ theirs)
            self.compared += 1
        return action


@pytest.mark.parametrize("players", [2, 4])
def test_rebuilt_positions_list_the_same_moves_as_catanatron(players: int) -> None:
    probes = [Probe("victory_point", seed) for seed in range(players)]
    for seed in range(2):
        game = play_local(probes, engine.GameConfig(players=players), seed)
        assert game.state.is_over
    assert all(p.compared > 30 and p.fallbacks == 0 for p in probes)


def _true_game(seed: int, agent: CatanatronAgent, seat: int, players: int) -> list[bool]:
    """Play a game with ``agent`` at ``seat`` and random bots elsewhere, straight on the
    engine (as :func:`tournament.local.play_local` does), and after each of the agent's decisions
    compare the rebuilt game with the sample and the truth. Returns, per decision, whether
    the rebuilt opponents' cards differed from the true ones."""
    state = engine.new_game(engine.GameConfig(players=players), seed)
    others = {q: make_agent("random", seed + q) for q in range(players) if q != seat}
    table = Table(game="t", seat=seat, view=view_from_engine(engine.view(state, seat)))
    differed: list[bool] = []
    for _ in range(20_000):
        if state.is_over:
            break
        q = engine.seats_to_act(state)[0]
        actions = [action_from_engine(a) for a in engine.legal_actions(state, q)]
        prompt = m.Prompt(
            game="t",
            state_id=state.actions_taken,
            seat=q,
            actions=actions,
            view=view_from_engine(engine.view(state, q)),
        )
        if q == seat:
            table.view, table.events = prompt.view, []
            before = agent.decisions
            payload = agent.choose(prompt, table)
            if agent.decisions > before and agent.last_game is not None:
                differed.append(_compare(agent, state, seat))
        else:
            payload = others[q].choose(prompt, Table(game="t", seat=q))
        for event in engine.apply(state, action_to_engine(payload, q)):
            wire = event_from_engine(event.for_seat(seat))
            table.events.append(wire)
            agent.on_event(wire, table)
    assert state.is_over
    return differed


def _compare(agent: CatanatronAgent, state: engine.GameState, seat: int) -> bool:
    """The rebuilt game holds the sample's cards for every opponent and the true cards for
    the agent's own seat; returns whether the sample differs from the truth."""
    game, sample = agent.last_game, agent.last_sample
    assert game is not None and sample is not None
    ps = game.state.player_state
    differs = False
    for q in range(state.n):
        key = player_key(game.state, COLORS[q])
        hand = tuple(ps[f"{key}_{RESOURCE_NAME[r]}_IN_HAND"] for r in range(5))
        dev = tuple(ps[f"{key}_{DEV_NAME[k]}_IN_HAND"] for k in range(5))
        true_hand = tuple(state.hand[q * 5 : q * 5 + 5])
        true_dev = tuple(state.dev[q * 5 : q * 5 + 5])
        if q == seat:
            assert (hand, dev) == (true_hand, true_dev)
            continue
        assert hand == tuple(sample.hands[q]) and dev == tuple(sample.development[q])
        differs |= (hand, dev) != (true_hand, true_dev)
    deck = sorted(game.state.development_listdeck)
    assert deck == sorted(DEV_NAME[k] for k in range(5) for _ in range(sample.deck[k]))
    return differs


def test_hidden_cards_come_from_the_belief_sample_never_the_truth() -> None:
    differed: list[bool] = []
    for seed in range(3):
        agent = CatanatronAgent("victory_point", seed)
        differed += _true_game(seed, agent, seat=seed % 4, players=4)
    # The guesses match the truth where the events tell everything, and not elsewhere.
    assert len(differed) > 100 and 0 < sum(differed) < len(differed)


# --- whole games ----------------------------------------------------------------------------


@pytest.mark.parametrize("player", SHIPPED)
def test_each_shipped_player_plays_whole_games_against_the_built_in_bots(player: str) -> None:
    for seed, players in ((1, 2), (2, 3), (3, 4)):
        agents: list[Any] = [make_agent("catanatron", seed, {"player": player})]
        agents += [make_agent(("heuristic", "random")[q % 2], seed + q) for q in range(1, players)]
        agents = agents[seed % players :] + agents[: seed % players]  # not always seat 0
        game = play_local(agents, engine.GameConfig(players=players), seed)
        assert game.state.is_over and game.state.winner >= 0
        [ours] = [a for a in agents if isinstance(a, CatanatronAgent)]
        assert ours.player_path == player and type(ours.player).__name__ == player.split(":")[1]
        assert ours.decisions > 10 and ours.fallbacks == 0


def test_a_seeded_agent_replays_its_games() -> None:
    def one() -> tuple[int, int]:
        agents = [make_agent("catanatron", 5, {"player": "random"}), make_agent("heuristic", 5)]
        state = play_local(agents, engine.GameConfig(players=2), 5).state
        return state.winner, state.actions_taken

    assert one() == one()


class Stubborn(Player):  # type: ignore[misc]
    """Chooses something that is never playable."""

    def decide(self, game: Any, playable_actions: Any) -> Any:
        return CAction(self.color, ActionType.END_TURN, "not an action")


class Failing(Player):  # type: ignore[misc]
    def decide(self, game: Any, playable_actions: Any) -> Any:
        raise RuntimeError("a bug in the player")


@pytest.mark.parametrize("player", ["Stubborn", "Failing"])
def test_a_choice_that_is_not_playable_falls_back_to_the_first_action(player: str) -> None:
    agent = CatanatronAgent(f"{__name__}:{player}", 1)
    config = engine.GameConfig(players=2, victory_points=4)
    game = play_local([agent, make_agent("heuristic", 1)], config, 1)
    assert game.state.is_over
    assert agent.fallbacks == agent.decisions > 0


def test_offers_to_it_are_declined() -> None:
    state = engine.new_game(engine.GameConfig(players=2), 1)
    view = view_from_engine(engine.view(state, 0))
    offered: list[Any] = [
        action_from_engine(engine.AcceptTrade(0)),
        action_from_engine(engine.DeclineTrade(0)),
    ]
    prompt = m.Prompt(game="t", state_id=0, seat=0, actions=offered, view=view)
    agent = CatanatronAgent("random", 1)
    assert agent.choose(prompt, Table(game="t", seat=0, view=view)) == offered[1]
    assert agent.decisions == 0  # the player is not asked


def test_players_are_found_by_path_or_short_name_and_bad_ones_are_refused() -> None:
    assert load_player("random").__name__ == "RandomPlayer"
    assert load_player("catanatron.players.search.VictoryPointPlayer").__name__ == (
        "VictoryPointPlayer"
    )
    for path, problem in (
        ("no.such.module:Player", "cannot import"),
        ("catanatron.models.player:Color", "not a catanatron Player"),
        ("catanatron", "write module:Class"),
    ):
        with pytest.raises(ValueError, match=problem):
            make_agent("catanatron", 1, {"player": path})
    with pytest.raises(ValueError, match="takes only player"):
        make_agent("catanatron", 1, {"rollouts": "5"})
    default = make_agent("catanatron", 1, {})
    assert isinstance(default, CatanatronAgent)
    assert default.player_path == SHIPPED_PLAYERS["weighted_random"]


def test_only_the_standard_island_can_be_rebuilt() -> None:
    config = engine.GameConfig(players=2, radius=4)
    with pytest.raises(UnsupportedGame, match="radius 4"):
        check_game(engine.view(engine.new_game(config, 1), 0))
    check_game(engine.view(engine.new_game(engine.GameConfig(players=4), 1), 0))


# --- through a real server ------------------------------------------------------------------


async def test_a_game_it_cannot_play_is_refused_when_it_sits_down() -> None:
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        port = srv.port_of(ws_server)
        host = await Client.open(port)
        await host.hello()
        options = m.GameOptions(players=2, radius=4, bots=[m.BotSeat(kind="random")])
        await host.send(m.CreateGame(options=options))
        created = await host.expect(m.GameCreated)
        agent = CatanatronAgent("random", 1)
        with pytest.raises(SeatDeclined, match="radius 4"):
            await asyncio.wait_for(play(agent, f"ws://127.0.0.1:{port}", created.game), 30)
        room = srv.rooms[created.game]
        async with asyncio.timeout(10):
            while room.seated:  # its leave frees the seat
                await asyncio.sleep(0.02)
        await host.close()


async def test_the_sdk_plays_it_through_a_server() -> None:
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        port = srv.port_of(ws_server)
        host = await Client.open(port)
        await host.hello()
        options = m.GameOptions(players=3, victory_points=6, bots=[m.BotSeat(kind="heuristic")])
        await host.send(m.CreateGame(options=options))
        created = await host.expect(m.GameCreated)
        url = f"ws://127.0.0.1:{port}"
        agents = [CatanatronAgent(p, i) for i, p in enumerate(("victory_point", "random"))]
        games = [asyncio.create_task(play(a, url, created.game)) for a in agents]
        async with asyncio.timeout(60):
            while srv.rooms[created.game].seated < 2:
                await asyncio.sleep(0.02)
        await host.send(m.StartGame(game=created.game))
        overs = await asyncio.wait_for(asyncio.gather(*games), 240)
        assert all(o is not None and o.winner is not None for o in overs)
        assert all(a.decisions > 10 and a.fallbacks == 0 for a in agents)
        await host.close()


@pytest.fixture
def server_url() -> Iterator[str]:
    """A real server in its own thread and event loop (the arena runs its own loop)."""
    ready = threading.Event()
    state: dict[str, Any] = {}

    async def serve() -> None:
        state["loop"] = asyncio.get_running_loop()
        state["stop"] = asyncio.Event()
        srv = HexhavenServer()
        async with srv.running("127.0.0.1", 0) as ws_server:
            state["port"] = srv.port_of(ws_server)
            ready.set()
            await state["stop"].wait()

    thread = threading.Thread(target=lambda: asyncio.run(serve()), name="catanatron-server")
    thread.start()
    try:
        assert ready.wait(10), "the server did not start"
        yield f"ws://127.0.0.1:{state['port']}"
    finally:
        state["loop"].call_soon_threadsafe(state["stop"].set)
        thread.join(15)


def test_hexhaven_bot_processes_play_it_on_a_server_in_the_arena(
    server_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``hexhaven arena --server`` seats every entrant with a ``hexhaven bot --kind KIND
    --param ...`` process: here catanatron's VictoryPointPlayer against the heuristic bot."""
    path = tmp_path / "arena.json"
    entrant = "catanatron:player=catanatron.players.search:VictoryPointPlayer"
    args = ["--agents", f"{entrant},heuristic", "--games", "2", "--vp", "5"]
    code = main(["arena", *args, "--server", server_url, "--json", str(path)])
    out = capsys.readouterr().out
    assert code == 0, out
    document = json.loads(path.read_text())
    assert document["mode"] == "server" and document["error"] is None
    records = document["records"]
    assert [sorted(r["seating"]) for r in records] == [[entrant, "heuristic"]] * 2
    assert all(r["winner"] in (entrant, "heuristic") and r["actions"] > 0 for r in records)


def test_an_arena_run_in_process_takes_it_as_an_entrant(capsys: pytest.CaptureFixture[str]) -> None:
    agents = "catanatron:player=weighted_random,heuristic"
    code = main(["arena", "--agents", agents, "--games", "2", "--vp", "6", "--seed", "1"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "catanatron:player=weighted_random" in out
