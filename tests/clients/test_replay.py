"""``hexhaven replay``: a finished game from the local store, stepped through with keys in
Textual's pilot; hidden cards stay hidden from a spectator's replay; the command lists
finished games and refuses unfinished ones."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from rich.text import Text
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Static

import engine
from app.cli import main
from clients.tui.replay import ReplayApp, ReplayError, ReplayGame, Slider
from clients.tui.widgets import BoardView, HandPanel, PlayersPanel
from protocol import messages as m
from protocol.options import seed_hash
from protocol.payloads import view_from_engine
from server.store import Store, game_record

NAMES = ("Ana", "Bo", "Cy", "Di")
OPTIONS = m.GameOptions(players=4, victory_points=6, bots=[m.BotSeat()] * 3, setup_edition=2)


def store_game(
    store: Store, game_id: str, seed: int, *, finish: bool = True, bots: bool = True
) -> int:
    """A game played by random builders (to the end, or 100 actions when not
    ``finish``) written to the store as the server writes it, seats 1-3 marked as bots
    unless not ``bots``; returns its action count."""
    config = engine.GameConfig(players=4, victory_points=6)
    state = engine.new_game(config, seed)
    store.create_game(game_id, OPTIONS, seed, seed_hash(seed), None)
    for q, name in enumerate(NAMES):
        bot = "heuristic" if bots and q else None
        store.set_seat(game_id, q, f"token-{q}", name, bot)
    store.start_game(game_id)
    rnd = random.Random(seed)
    while not state.is_over and (finish or state.actions_taken < 100):
        acts = engine.legal_actions(state)
        busy = [
            a
            for a in acts
            if not isinstance(a, engine.EndTurn | engine.MaritimeTrade | engine.OfferTrade)
        ]
        action = rnd.choice(busy if busy and rnd.random() < 0.85 else acts)
        index = state.actions_taken
        events = engine.apply(state, action)
        dice = next((e.dice for e in events if isinstance(e, engine.DiceRolled)), None)
        store.append_action(game_id, index, action, dice)
    if finish:
        points = [state.victory_points(q) for q in range(state.n)]
        store.finish_game(game_id, state.winner, points)
    return state.actions_taken


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "games.db")
    store_game(s, "done1", seed=3)
    return s


def record(store: Store, game_id: str = "done1") -> m.GameRecord:
    stored = store.load(game_id)
    assert stored is not None
    return game_record(stored)


def test_a_replay_reaches_the_recorded_end_and_shows_each_position(store: Store) -> None:
    rec = record(store)
    game = ReplayGame(rec)
    assert game.over and game.length == len(rec.actions)
    end = game.view(game.length)
    assert end.winner == rec.winner and end.final_points == rec.points
    start = game.view(0)
    assert start.settlements == {} and start.roads == {}
    # Every position is the engine's own spectator view of the state after that many actions.
    config = engine.GameConfig(players=4, victory_points=6)
    state = engine.new_game(config, rec.seed)
    for k in (0, 1, 17, game.length // 2):
        state, _ = engine.replay(config, rec.seed, [game_action(rec, i) for i in range(k)])
        assert view_from_engine(engine.view(state, None)) == view_from_engine(
            engine.view(game.states[k], None)
        )
    # Turns begin where a new seat acts; the turn keys stop there.
    assert game.turns[0] == 0 and game.turns == sorted(game.turns)
    t = game.next_turn(0)
    assert 0 < t < game.length and game.previous_turn(t) == 0
    assert game.next_turn(game.length) == game.length
    assert game.seed_check() == "seed ✓"


def game_action(rec: m.GameRecord, i: int) -> engine.Action:
    from protocol.payloads import action_to_engine

    return action_to_engine(rec.actions[i].action, rec.actions[i].seat)


def test_a_spectators_replay_never_names_a_drawn_or_stolen_card(store: Store) -> None:
    rec = record(store)
    spectator = ReplayGame(rec, None)
    text = [line.text for step in spectator.steps for line in step.lines]
    bought = [t for t in text if " bought " in t]
    stolen = [t for t in text if " stole " in t]
    assert bought and stolen, "the seeded game buys and steals"
    assert all(t.endswith("bought a development card") for t in bought)
    assert all(" stole a card from " in t for t in stolen)
    assert all(v is None for k in range(0, spectator.length, 25) for v in [spectator.view(k).hand])
    # Seen by a seat, its own draws are named, and only its own.
    seat = next(q for q in range(4) if any(f"{NAMES[q]} bought" in t for t in bought))
    mine = ReplayGame(rec, seat)
    own = [line.text for s in mine.steps for line in s.lines if line.text.startswith("You bought")]
    assert own and all("development card" not in t for t in own)
    others = [
        line.text
        for s in mine.steps
        for line in s.lines
        if " bought " in line.text and not line.text.startswith("You")
    ]
    assert all(t.endswith("bought a development card") for t in others)
    assert mine.view(mine.length // 2).hand is not None


def test_a_record_that_does_not_replay_is_refused(store: Store) -> None:
    rec = record(store)
    broken = rec.model_copy(update={"actions": [rec.actions[1], *rec.actions]})
    with pytest.raises(ReplayError, match="action 1 does not replay"):
        ReplayGame(broken)
    with pytest.raises(ReplayError, match="seats 0 to 3"):
        ReplayGame(rec, 4)


def plain(widget: Widget) -> str:
    rendered = widget.render()
    return rendered.plain if isinstance(rendered, Text) else str(rendered)


def drawn(widget: Widget) -> str:
    """The widget's text as drawn, its lines joined."""
    lines = widget.render_lines(Region(0, 0, *widget.outer_size))
    return "\n".join(strip.text.rstrip() for strip in lines)


async def test_keys_step_through_the_game_forward_and_back(store: Store) -> None:
    game = ReplayGame(record(store), viewer=None)
    app = ReplayApp(game)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.position == 0
        assert f"action 0 of {game.length}" in plain(app.query_one(Slider))
        await pilot.press("right", "right", "n")
        assert app.position == 3
        board = app.query_one(BoardView)
        assert board.view is not None and len(board.view.settlements) == 2
        assert "Action 3: Bo" in drawn(app.query_one("#now", Static))
        await pilot.press("left", "p")
        assert app.position == 1
        await pilot.press("end")
        assert app.position == game.length
        status = plain(app.query_one("#status", Static))
        assert f"action {game.length} of {game.length}" in status
        assert f"{game.names[record(store).winner or 0]} won" in status
        await pilot.press("home", "pagedown")
        assert app.position == game.next_turn(0) > 0
        await pilot.press("shift+right")
        assert app.position == game.next_turn(game.next_turn(0))
        await pilot.press("shift+left", "pageup")
        assert app.position == 0
        # The log under the board holds the lines up to the position, no more.
        await pilot.press("end", "pageup")
        log = app.query_one("#log")
        shown = [str(line.text) for line in log.lines]  # type: ignore[attr-defined]
        assert shown and "won!" not in " ".join(shown)
        await pilot.press("end")
        shown = [str(line.text) for line in log.lines]  # type: ignore[attr-defined]
        assert "won!" in " ".join(shown[-3:])
        # A click on the bar jumps there.
        slider = app.query_one(Slider)
        await pilot.click(Slider, offset=(slider.size.width // 2, 1))
        assert abs(app.position - game.length // 2) <= game.length // 20 + 1
        panel = plain(app.query_one(PlayersPanel))
        assert all(name in panel for name in NAMES)
        assert "Watching" in plain(app.query_one(HandPanel))


async def test_a_seats_replay_shows_its_hand(store: Store) -> None:
    game = ReplayGame(record(store), viewer=2)
    app = ReplayApp(game, position=game.length // 2)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        hand = plain(app.query_one(HandPanel))
        assert hand.startswith("Hand")
        assert "Cy's view" in plain(app.query_one("#status", Static))
        # What the seat could build then, from the rules at that position.
        k = next(k for k in range(game.length) if "build_road" in game.action_kinds(k))
        app.go(k)
        await pilot.pause()
        assert "Build road" in plain(app.query_one(HandPanel))
        idle = next(k for k in range(game.length) if not game.action_kinds(k))
        app.go(idle)  # not Cy's move: nothing to build
        await pilot.pause()
        assert "Build nothing now" in plain(app.query_one(HandPanel))


def test_the_command_lists_finished_games_and_refuses_others(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store_game(store, "going1", seed=5, finish=False)
    store.close()
    db = str(tmp_path / "games.db")
    assert main(["replay", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "done1" in out and "going1" not in out and " won (" in out
    assert main(["replay", "going1", "--db", db]) == 2
    assert "not played to its end" in capsys.readouterr().err
    assert main(["replay", "nosuch", "--db", db]) == 2
    assert "no game 'nosuch'" in capsys.readouterr().err
    assert main(["replay", "done1", "--db", db, "--seat", "7"]) == 2
    assert "seats 0 to 3" in capsys.readouterr().err
    assert main(["replay", "--db", str(tmp_path / "none.db")]) == 2


async def test_a_record_is_fetched_from_a_server_and_refused_while_unfinished(
    tmp_path: Path,
) -> None:
    from clients.tui.link import SeatLost, fetch_record
    from server.app import HexhavenServer

    store = Store(tmp_path / "served.db")
    store_game(store, "done1", seed=3)
    store_game(store, "going1", seed=5, finish=False, bots=False)  # resumed: no bots to start
    srv = HexhavenServer(store)
    async with srv.running("127.0.0.1", 0):
        fetched = await fetch_record(srv.url, "done1")
        assert fetched == record(store)
        game = ReplayGame(fetched, viewer=None)
        assert game.over and game.view(game.length).winner == fetched.winner
        for game_id, code in (("going1", "game_not_over"), ("nosuch", "unknown_game")):
            with pytest.raises(SeatLost) as refused:
                await fetch_record(srv.url, game_id)
            assert refused.value.error.code == code
    store.close()


async def test_the_whole_log_so_far_is_one_key_away(store: Store) -> None:
    from clients.tui.dialogs import LogScreen

    game = ReplayGame(record(store))
    app = ReplayApp(game, position=40)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("l")
        await pilot.pause()
        assert isinstance(app.screen, LogScreen)
        shown = [line.text for line in app.screen.lines]
        assert shown == [line.text for line in game.lines(0, 40)]
        await pilot.press("escape")
        assert not isinstance(app.screen, LogScreen)


def test_the_command_reports_a_server_it_cannot_reach(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "ws://127.0.0.1:9", "g1"]) == 2
    assert "cannot reach the server" in capsys.readouterr().err
    assert main(["replay", "ws://127.0.0.1:9"]) == 2
    assert "give the game id" in capsys.readouterr().err
