"""The terminal client coming into a game from the side: a seat resumed with its token or a
watch, into a game started but not yet moved in (not the lobby), into a lobby again after
a reconnection (not a started game), or into a game already over (its end at once)."""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest

import engine
from clients.tui.app import HexhavenApp
from clients.tui.dialogs import GameOverScreen
from clients.tui.link import Link, Seating
from clients.tui.offline import OfflineTransport
from clients.tui.widgets import PlayersPanel
from protocol import messages as m
from protocol.payloads import view_from_engine
from server.app import HexhavenServer
from tests.clients.test_tui_dialogs import GAME, NAMES, SIZE
from tests.clients.test_tui_history import history
from tests.server.client import Client

SEED = 77


def seats(n: int, *, started: bool, bots: tuple[int, ...] = ()) -> m.Players:
    return m.Players(
        game=GAME,
        players=[
            m.PlayerInfo(seat=q, name=NAMES[q], bot=q in bots, connected=True, away=False)
            for q in range(n)
        ],
        started=started,
    )


def taken(
    state: engine.GameState, seat: int | None, players: m.Players, seed_hash: str | None = None
) -> list[Any]:
    """What the server sends a seat taken, resumed or watched: joined, players, view."""
    return [
        m.Joined(game=GAME, seat=seat, token=None if seat is None else "tok", seed_hash=seed_hash),
        players,
        m.GameView(game=GAME, view=view_from_engine(engine.view(state, seat))),
    ]


def status(app: HexhavenApp) -> str:
    return str(app.query_one("#status").render())


def hint(app: HexhavenApp) -> str:
    return str(app.query_one("#hint").render())


def assert_lobby(app: HexhavenApp) -> None:
    assert not app.model.started
    assert "waiting to start" in status(app) and "Waiting to start" in hint(app)


def assert_playing(app: HexhavenApp) -> None:
    assert app.model.started
    assert "turn 0" in status(app) and "to act: Ana" in status(app)
    assert "waiting to start" not in status(app) and "Waiting to start" not in hint(app)


CLOCK = m.Clock(game=GAME, state_id=0, seats=[m.SeatClock(seat=0, left=55.0)])


@pytest.mark.parametrize(
    ("players", "more"),
    [
        (seats(3, started=True, bots=(2,)), []),
        (seats(3, started=True), []),
        (seats(3, started=False), [CLOCK]),
    ],
    ids=["with-a-bot", "all-people", "a-turn-timer"],
)
@pytest.mark.parametrize("seat", [1, None], ids=["resumed", "watching"])
async def test_a_game_started_but_not_yet_moved_in_is_not_shown_as_the_lobby(
    seat: int | None, players: m.Players, more: list[Any]
) -> None:
    state = engine.new_game(engine.GameConfig(players=3), SEED)  # the host to place
    messages = [*taken(state, seat, players), history([], seat), *more]
    app = HexhavenApp(OfflineTransport(messages))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert_playing(app)
        assert app.choices == []
        if seat is None:
            assert "You are watching this game." in hint(app)
        else:
            assert "Waiting for Ana" in hint(app)


@pytest.mark.parametrize("bots", [(2,), ()], ids=["with-a-bot", "all-people"])
async def test_a_lobby_reconnected_to_is_still_the_lobby_until_the_start(
    bots: tuple[int, ...],
) -> None:
    state = engine.new_game(engine.GameConfig(players=3), SEED)
    before = seats(3 - len(bots), started=False)
    transport = OfflineTransport(taken(state, 1, before))
    app = HexhavenApp(transport)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert_lobby(app)
        transport.push(*taken(state, 1, before))  # the connection dropped; the seat resumed
        await pilot.pause()
        assert_lobby(app)
        view = m.GameView(game=GAME, view=view_from_engine(engine.view(state, 1)))
        transport.push(seats(3, started=True, bots=bots), view)  # the start: players, then view
        await pilot.pause()
        assert_playing(app)


async def test_a_seat_resumed_on_a_server_after_the_start_sees_the_game() -> None:
    """The reported case: ``hexhaven join URL GAME --token-file F`` into a game the host has
    started (a bot in the third seat) and not yet placed in."""
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        port = srv.port_of(ws_server)
        host, friend = await Client.open(port), await Client.open(port)
        for c in (host, friend):
            await c.hello()
        options = m.GameOptions(players=3, bots=[m.BotSeat(kind="random")])
        await host.send(m.CreateGame(options=options))
        game = (await host.expect(m.GameCreated)).game
        for c, name in ((host, "Ana"), (friend, "Bo")):
            await c.send(m.JoinGame(game=game, name=name))
            await c.expect(m.Joined)
        await host.send(m.StartGame(game=game))
        await host.expect(m.Prompt)
        await friend.close()
        resumed = Link(srv.url, Seating("rejoin", game=game, token=friend.token()))
        watcher = Link(srv.url, Seating("watch", game=game))
        for link in (resumed, watcher):
            await link.open()
            app = HexhavenApp(link)
            async with app.run_test(size=SIZE) as pilot:
                for _ in range(100):
                    if app.model.view is not None and app.model.players:
                        break
                    await pilot.pause(0.02)
                await pilot.pause()
                assert_playing(app)
            await link.close()
        await host.close()


def finished(seed: int) -> tuple[engine.GameState, list[tuple[int, list[engine.Event]]]]:
    """A 3-seat game to 5 points played to its end by random builders, with its events."""
    state = engine.new_game(engine.GameConfig(players=3, victory_points=5), seed)
    rnd = random.Random(seed)
    done: list[tuple[int, list[engine.Event]]] = []
    while not state.is_over:
        acts = engine.legal_actions(state)
        busy = [a for a in acts if not isinstance(a, engine.EndTurn | engine.MaritimeTrade)]
        action = rnd.choice(busy if busy and rnd.random() < 0.85 else acts)
        done.append((state.actions_taken + 1, engine.apply(state, action)))
    return state, done


@pytest.mark.parametrize("seat", [1, None], ids=["resumed", "watching"])
async def test_a_game_over_before_the_client_came_shows_its_end_at_once(seat: int | None) -> None:
    state, done = finished(SEED)
    points = [state.victory_points(q) for q in range(3)]
    over = m.GameOver(game=GAME, winner=state.winner, points=points, seed=SEED)
    # What the server sends on a rejoin or a watch of a finished game: no prompt, no clock.
    digest = hashlib.sha256(str(SEED).encode()).hexdigest()
    roster = seats(3, started=True, bots=(2,))
    came = [*taken(state, seat, roster, digest), history(done, seat), over]
    transport = OfflineTransport(came)
    app = HexhavenApp(transport)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, GameOverScreen)
        winner = NAMES[state.winner]
        assert screen.headline() == ("You won!" if state.winner == seat else f"{winner} won.")
        text = " ".join(str(w.render()) for w in screen.query("Static"))
        assert "matches the hash published at the start" in text  # told it on joining
        assert f"{max(points)} points" in text
        assert app.model.started and app.choices == [] and app.model.prompt is None
        assert "The game is over" in hint(app) and "waiting to start" not in status(app)
        told = [x.text for x in app.model.log if x.text.startswith("Game over")]
        assert told == [f"Game over. The seed was {SEED}."]  # who won: with the last action
        assert sum(" won! Final points" in x.text for x in app.model.log) == 1
        await pilot.press("enter")  # look at the board
        await pilot.pause()
        assert not isinstance(app.screen, GameOverScreen)
        transport.push(*came)  # reconnected again: told the same end once more
        await pilot.pause()
        assert not isinstance(app.screen, GameOverScreen)
        assert sum(x.text.startswith("Game over") for x in app.model.log) == 1
        await pilot.press("q")  # over: q quits at once
        await pilot.pause()
        assert app.return_code == 0


async def test_the_lobby_shows_who_lost_their_connection() -> None:
    state = engine.new_game(engine.GameConfig(players=3), SEED)
    roster = m.Players(
        game=GAME,
        players=[
            m.PlayerInfo(seat=0, name="Ana", bot=False, connected=True, away=False),
            m.PlayerInfo(seat=1, name="Bo", bot=False, connected=False, away=False),
        ],
    )
    app = HexhavenApp(OfflineTransport(taken(state, 0, roster)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert_lobby(app)
        seated = str(app.query_one(PlayersPanel).render())
        assert "Ana," in seated and "Ana (not connected)" not in seated
        assert "Bo (not connected)" in seated


async def test_the_wait_for_another_seat_counts_its_seconds() -> None:
    state = engine.new_game(engine.GameConfig(players=3), SEED)  # Ana (seat 0) to place
    roster = seats(3, started=True, bots=(0,))
    transport = OfflineTransport([*taken(state, 1, roster), history([], 1)])
    app = HexhavenApp(transport)
    now = [1000.0]
    app.model.now = lambda: now[0]
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert hint(app) == "Waiting for Ana…"
        now[0] += 7.2
        app._tick()  # the app's timer, once a second
        assert hint(app) == "Waiting for Ana… 7 s"
        now[0] += 5
        app._tick()
        assert hint(app) == "Waiting for Ana… 12 s"
        view = m.GameView(game=GAME, view=view_from_engine(engine.view(state, 1)))
        transport.push(view)  # the game moved: the count starts again
        await pilot.pause()
        assert hint(app) == "Waiting for Ana…"


async def test_a_spectator_is_not_told_of_a_seat() -> None:
    from clients.tui.dialogs import ConfirmScreen

    state = engine.new_game(engine.GameConfig(players=3), SEED)
    transport = OfflineTransport([*taken(state, None, seats(3, started=True)), history([], None)])
    app = HexhavenApp(transport)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        transport.set_status("lost", "the server went away")
        await pilot.pause()
        banner = str(app.query_one("#banner").render())
        assert "Reconnecting" in banner and "seat" not in banner
        transport.set_status("connected")
        await pilot.pause()
        assert app.model.log[-1].text == "reconnected"
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question == "Stop watching this game?"
        await pilot.press("y")
        await pilot.pause()
        assert app.return_code == 0


async def test_the_help_shows_the_way_back_to_the_seat_even_at_80x24() -> None:
    from clients.tui.dialogs import HelpScreen

    back = "hexhaven join ws://192.168.1.20:8765 A1B2C3"
    state = engine.new_game(engine.GameConfig(players=3), SEED)
    transport = OfflineTransport([*taken(state, 1, seats(3, started=True)), history([], 1)])
    app = HexhavenApp(transport, back=back)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        shown = app.screen.query_one("#back")
        assert back in str(shown.render())
        box = app.screen.query_one(".dialog").region
        assert box.bottom <= 24 and shown.region.bottom <= box.bottom
        assert app.screen.query_one(".dialog-keys").region.bottom <= box.bottom


async def test_a_tick_while_the_app_closes_changes_nothing() -> None:
    """The once-a-second tick may come after the game's widgets are gone (the app closing);
    it must not look for them."""
    state = engine.new_game(engine.GameConfig(players=3), SEED)
    transport = OfflineTransport(taken(state, 1, seats(3, started=True)))
    app = HexhavenApp(transport)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.waiting  # seat 0 places first; this seat waits for it
        await app.screen.query("*").remove()
        app._tick()  # the timer's callback, as it runs
