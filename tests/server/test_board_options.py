"""Games on the board lab's boards: ``board`` = balanced, fair, preset or a given layout,
through a real server; the board is made once, kept with the game, and bad board options
are refused without creating a game."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator

import pytest

import engine
from boards.fairness import FairnessParams, FairnessScorer
from boards.options import BalanceOptions
from boards.presets import load_preset
from boards.validate import layout_violations
from engine.board import Board
from protocol import SUBPROTOCOL_JSON
from protocol import messages as m
from protocol.payloads import board_from_payload, board_to_payload
from server.app import HexhavenServer
from server.limits import ServerLimits
from server.verify import verify_game
from tests.server.client import Client


@pytest.fixture
async def server() -> AsyncIterator[tuple[HexhavenServer, int]]:
    """A server whose one address may leave several games unstarted (each test makes a
    few, one connection each)."""
    srv = HexhavenServer(limits=ServerLimits(unstarted_per_address=10))
    async with srv.running("127.0.0.1", 0) as ws_server:
        yield srv, srv.port_of(ws_server)


async def _board_of(port: int, options: m.GameOptions) -> tuple[str, Board, Client]:
    """Create a game with ``options``, take seat 0 and return the board the view shows."""
    c = await Client.open(port, SUBPROTOCOL_JSON)
    await c.hello()
    await c.send(m.CreateGame(options=options))
    created = await c.expect(m.GameCreated)
    await c.send(m.JoinGame(game=created.game, name="ana"))
    await c.expect(m.Joined)
    view = (await c.expect(m.GameView)).view
    return created.game, Board.from_layout(**board_from_payload(view.board)), c


async def _refused(port: int, options: m.GameOptions) -> str:
    c = await Client.open(port, SUBPROTOCOL_JSON)
    await c.hello()
    await c.send(m.CreateGame(options=options))
    error = await c.expect(m.Error)
    assert error.code == m.ErrorCode.BAD_OPTIONS
    await c.close()
    return str(error.message)


async def test_balanced_board_keeps_the_constraints_asked_for(
    server: tuple[HexhavenServer, int],
) -> None:
    srv, port = server
    rules = m.BalanceRules(max_pips=12, distinct_tokens=False)
    game, board, c = await _board_of(port, m.GameOptions(board="balanced", balance=rules))
    asked = BalanceOptions(max_pips=12, distinct_tokens=False)
    assert layout_violations(board.terrain, board.tokens, 3, asked) == []
    # The board is kept with the game, so a reload or a replay needs no solver.
    stored = srv.store.load(game)
    assert stored is not None and stored.options.layout is not None
    assert Board.from_layout(**board_from_payload(stored.options.layout)) == board
    assert stored.options.board == "balanced"
    await c.close()


async def test_each_game_draws_its_own_balanced_board(server: tuple[HexhavenServer, int]) -> None:
    _, port = server
    boards = []
    for _ in range(3):
        _, board, c = await _board_of(port, m.GameOptions(board="balanced"))
        assert layout_violations(board.terrain, board.tokens, 3, BalanceOptions()) == []
        boards.append(board)
        await c.close()
    assert len({(b.terrain, b.tokens) for b in boards}) == 3


async def test_fair_board_clears_the_threshold_for_the_players_seated(
    server: tuple[HexhavenServer, int],
) -> None:
    _, port = server
    _, board, c = await _board_of(port, m.GameOptions(players=3, board="fair", min_fairness=0.96))
    scorer = FairnessScorer(3, FairnessParams(players=3))
    assert scorer.fairness(board.terrain, board.tokens, board.harbours) >= 0.96
    await c.close()


async def test_preset_and_layout_boards_are_played_as_given(
    server: tuple[HexhavenServer, int],
) -> None:
    _, port = server
    preset = load_preset("balanced-247")
    _, board, c = await _board_of(port, m.GameOptions(board="preset", preset="balanced-247"))
    assert board == preset
    await c.close()
    own = engine.spiral_board(engine.Rng(5))
    layout = board_to_payload(own.to_dict())
    _, board, c = await _board_of(port, m.GameOptions(board="layout", layout=layout))
    assert board == own
    await c.close()


async def test_a_whole_game_on_a_balanced_board_verifies(
    server: tuple[HexhavenServer, int],
) -> None:
    srv, port = server
    clients = [await Client.open(port, SUBPROTOCOL_JSON) for _ in range(2)]
    for c in clients:
        await c.hello()
    await clients[0].send(m.CreateGame(options=m.GameOptions(players=2, board="balanced")))
    created = await clients[0].expect(m.GameCreated)
    for i, c in enumerate(clients):
        await c.send(m.JoinGame(game=created.game, name=f"p{i}"))
        await c.expect(m.Joined)
    await clients[0].send(m.StartGame(game=created.game))
    overs = await asyncio.gather(
        *(c.play_randomly(created.game, seed=i) for i, c in enumerate(clients))
    )
    assert overs[0].winner is not None
    stored = srv.store.load(created.game)
    assert stored is not None and verify_game(stored).ok
    for c in clients:
        await c.close()


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (m.GameOptions(board="preset", preset="no-such-board"), "no preset 'no-such-board'"),
        (
            m.GameOptions(board="preset", preset="balanced-226"),
            "no longer shipped (the presets were chosen again with the harbours on the printed "
            "frame's slots); there are balanced-183, balanced-227, balanced-229",
        ),
        (m.GameOptions(board="preset"), "needs a preset name"),
        (m.GameOptions(board="layout"), "needs the board in layout"),
        (m.GameOptions(board="random", preset="balanced-227"), "preset is an option of"),
        (m.GameOptions(board="balanced", min_fairness=0.9), "min_fairness is an option of"),
        (m.GameOptions(board="balanced", balance=m.BalanceRules(max_pips=5)), "loosen"),
        (m.GameOptions(board="preset", preset="balanced-227", radius=4), "radius"),
    ],
)
async def test_bad_board_options_are_refused_and_create_nothing(
    server: tuple[HexhavenServer, int], options: m.GameOptions, says: str
) -> None:
    srv, port = server
    assert says in await _refused(port, options)
    assert srv.rooms == {}


async def test_an_illegal_layout_is_refused(server: tuple[HexhavenServer, int]) -> None:
    srv, port = server
    good = board_to_payload(load_preset("balanced-227").to_dict())
    # Two deserts and one hills fewer: not the tiles of the island.
    terrain = ["desert", *good.terrain[1:]] if good.terrain[0] != "desert" else good.terrain
    bad = good.model_copy(update={"terrain": [*terrain[:-1], "desert"]})
    message = await _refused(port, m.GameOptions(board="layout", layout=bad))
    assert "not a legal board" in message
    assert srv.rooms == {}


async def test_a_ping_is_answered_while_a_large_random_board_is_prepared(
    server: tuple[HexhavenServer, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The counts a random board of a larger island draws from are built off the event loop:
    held up there, they keep no other connection waiting."""
    release = threading.Event()
    prepared = engine.prepare_random_boards

    def held_up(radius: int) -> None:
        assert release.wait(30), "the ping was not answered while the board was prepared"
        prepared(radius)

    monkeypatch.setattr(engine, "prepare_random_boards", held_up)
    _, port = server
    maker, other = await Client.open(port, SUBPROTOCOL_JSON), await Client.open(port)
    await maker.hello()
    await other.hello()
    await maker.send(m.CreateGame(options=m.GameOptions(radius=8)))
    await other.send(m.Ping(nonce=5))
    assert (await other.expect(m.Pong)).nonce == 5
    release.set()
    created = await maker.expect(m.GameCreated)
    await maker.send(m.JoinGame(game=created.game, name="ana"))
    view = (await maker.expect(m.GameView)).view
    board = Board.from_layout(**board_from_payload(view.board))
    assert board.radius == 8
    engine.check_board(board)
    await maker.close()
    await other.close()
