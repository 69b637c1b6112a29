"""A game stored before boards said their harbour layout (its board's options without
``harbour_layout``) keeps its harbours on the slots it was played on: it resumes, replays and
verifies with the harbour trades it recorded."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from engine.constants import HARBOUR_LAYOUT_EVEN
from protocol import SUBPROTOCOL_MSGPACK
from protocol import messages as m
from protocol.options import game_config, seed_hash
from protocol.payloads import board_to_payload
from server.app import HexhavenServer
from server.store import Store, hash_token
from server.verify import verify_game
from tests.server.client import Client

ROOT = Path(__file__).resolve().parents[2]
GAME = "oldharbour"
SEED = 4242


_WAITING = (
    engine.RollDice,
    engine.EndTurn,
    engine.Discard,
    engine.MoveRobber,
    engine.PlaceRoad,
)


def _harbour_vertices(board: engine.Board) -> set[int]:
    return {v for e in board.harbour_slots for v in board.topo.edge_vertices[e]}


def _played_on_old_slots(
    kind: str = "layout",
) -> tuple[str, list[engine.Action], list[tuple[int, int] | None], int]:
    """A two-player game on a board of the first harbour layout, cut off some actions after
    seat 0 traded with the bank at a harbour that only that layout has: the options JSON as
    a server stored it before (a ``layout`` board without its harbour layout, or a
    ``random`` board dealt by the first set-up edition, without ``setup_edition``), the
    actions with their dice, and the index of the harbour trade."""
    if kind == "layout":
        base = engine.random_board(engine.Rng(7))
        old = engine.Board.from_layout(
            **{**base.to_dict(), "harbour_layout": HARBOUR_LAYOUT_EVEN}  # type: ignore[arg-type]
        )
        config = engine.GameConfig.with_board(old, players=2)
        options = m.GameOptions(players=2, board="layout", layout=board_to_payload(old.to_dict()))
    else:
        config = engine.GameConfig(players=2, setup_edition=1)
        old = config.make_board(SEED)
        base = engine.Board.from_layout(old.terrain, old.tokens, old.harbours)
        options = m.GameOptions(players=2)
    assert old.harbour_layout == HARBOUR_LAYOUT_EVEN
    only_old = _harbour_vertices(old) - _harbour_vertices(base)
    generic_old = {
        v for v in only_old if old.vertex_harbour[v] == engine.constants.HARBOUR_GENERIC
    } or only_old
    state = engine.new_game(config, SEED)
    rnd = random.Random(1)
    actions: list[engine.Action] = []
    dice: list[tuple[int, int] | None] = []
    traded = -1
    while len(actions) < traded + 40 or traded < 0:
        assert state.phase != engine.Phase.GAME_OVER and len(actions) < 5000
        legal = engine.legal_actions(state)
        mine = [a for a in legal if a.seat == 0]
        harbour_trades = [a for a in mine if isinstance(a, engine.MaritimeTrade) and a.ratio < 4]
        if traded < 0 and harbour_trades:
            action: engine.Action = harbour_trades[0]
            traded = len(actions)
        elif traded < 0 and mine:
            # Seat 0 settles on harbours of the first layout only, then keeps its cards
            # until it can trade at one.
            if state.phase == engine.Phase.SETUP_SETTLEMENT:
                legal = [a for a in mine if getattr(a, "vertex", -1) in generic_old] or [
                    a for a in mine if getattr(a, "vertex", -1) in only_old
                ]
            else:
                legal = [a for a in mine if isinstance(a, _WAITING)] or mine
            action = rnd.choice(legal)
        else:
            action = rnd.choice(legal)
        events = engine.apply(state, action)
        actions.append(action)
        rolled = [e.dice for e in events if isinstance(e, engine.DiceRolled)]
        dice.append(rolled[0] if rolled else None)
    stored = json.loads(options.model_dump_json())
    del stored["setup_edition"]  # as written before games said it
    if kind == "layout":
        del stored["layout"]["harbour_layout"]  # as written before boards said it
    return json.dumps(stored), actions, dice, traded


def _store_game(
    db: str, tokens: list[str], kind: str = "layout"
) -> tuple[list[engine.Action], int]:
    """Store the cut-off game as a server had it, seated by ``tokens``; returns its actions
    and the index of the harbour trade."""
    options_json, actions, dice, traded = _played_on_old_slots(kind)
    store = Store(db)
    store._execute(
        "INSERT INTO games (id, options, seed, seed_hash, created, started) VALUES (?,?,?,?,?,1)",
        (GAME, options_json, SEED, seed_hash(SEED), 0.0),
    )
    for seat, token in enumerate(tokens):
        store.set_seat(GAME, seat, hash_token(token), f"p{seat}")
    for i, (action, rolled) in enumerate(zip(actions, dice, strict=True)):
        store.append_action(GAME, i, action, rolled)
    store.close()
    return actions, traded


def test_an_old_layout_board_puts_its_harbours_on_the_old_slots() -> None:
    options_json, actions, _, traded = _played_on_old_slots()
    options = m.GameOptions.model_validate_json(options_json)
    assert options.layout is not None and options.layout.harbour_layout == HARBOUR_LAYOUT_EVEN
    assert options.setup_edition == 1
    trade = actions[traded]
    assert isinstance(trade, engine.MaritimeTrade) and trade.ratio < 4
    state, _ = engine.replay(game_config(options), SEED, actions)
    assert state.actions_taken == len(actions)
    # On the printed frame's slots the same trade is refused.
    fresh = options.layout.model_copy(update={"harbour_layout": 2})
    moved = options.model_copy(update={"layout": fresh})
    with pytest.raises(engine.IllegalActionError):
        engine.replay(game_config(moved), SEED, actions)


def test_a_random_board_stored_before_is_dealt_as_it_was() -> None:
    """A random game stored without ``setup_edition`` gets the first edition's board again
    (the same seed deals the current edition another board)."""
    options_json, actions, _, _ = _played_on_old_slots("random")
    options = m.GameOptions.model_validate_json(options_json)
    assert options.setup_edition == 1 and options.layout is None
    state, _ = engine.replay(game_config(options), SEED, actions)
    assert state.actions_taken == len(actions)
    assert state.board == engine.GameConfig(setup_edition=1).make_board(SEED)
    current = options.model_copy(update={"setup_edition": 2})
    assert engine.new_game(game_config(current), SEED).board != state.board


async def test_a_new_game_is_dealt_by_the_current_set_up_edition(server_port: int) -> None:
    c = await Client.open(server_port)
    await c.hello()
    await c.send(m.CreateGame(options=m.GameOptions(players=2)))
    created = await c.expect(m.GameCreated)
    await c.send(m.JoinGame(game=created.game, name="ana"))
    view = (await c.expect(m.GameView)).view
    await c.close()
    assert view.board.harbour_layout == 2  # the first edition's boards have layout 1


@pytest.mark.parametrize("kind", ["layout", "random"])
async def test_a_game_stored_with_the_old_harbour_layout_resumes_and_verifies(
    tmp_path: Path, kind: str
) -> None:
    db = str(tmp_path / "games.db")
    tokens = ["old-layout-token-0", "old-layout-token-1"]
    actions, traded = _store_game(db, tokens, kind)
    store = Store(db)
    srv = HexhavenServer(store)
    async with srv.running("127.0.0.1", 0) as ws_server:
        port = srv.port_of(ws_server)
        back = [await Client.open(port, SUBPROTOCOL_MSGPACK) for _ in tokens]
        for seat, (c, token) in enumerate(zip(back, tokens, strict=True)):
            await c.hello()
            await c.send(m.Rejoin(game=GAME, token=token))
            joined = await c.expect(m.Joined)
            assert joined.seat == seat
            view = (await c.expect(m.GameView)).view
            assert view.state_id == len(actions)
            assert view.board.harbour_layout == HARBOUR_LAYOUT_EVEN
        overs = await asyncio.gather(*(c.play_randomly(GAME, i) for i, c in enumerate(back)))
        for c in back:
            await c.close()
    store.close()

    store = Store(db)
    stored = store.load(GAME)
    store.close()
    assert stored is not None and stored.finished
    assert stored.actions[traded] == actions[traded]
    state, _ = engine.replay(game_config(stored.options), stored.seed, stored.actions)
    assert state.winner == overs[0].winner
    verdict = verify_game(stored)
    assert verdict.ok, verdict.problems
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "verify", GAME, "--db", db],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "rolls match" in done.stdout, done.stdout + done.stderr
