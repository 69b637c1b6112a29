"""The terminal client against a real local server: a whole game against a bot played by
pressing keys, watching a game, and coming back after the connection drops."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from clients.tui.app import HexhavenApp
from clients.tui.dialogs import CardDialog, ChoiceDialog, GameOverScreen
from clients.tui.link import Link, Seating
from clients.tui.widgets import BoardView
from protocol import messages as m
from server.app import HexhavenServer
from server.store import Store
from tests.server.client import Client

SIZE = (100, 30)


async def shown(pilot: Any, condition: Any) -> None:
    """Let the app run until ``condition()`` holds (a minute at most: a hung test fails)."""
    async with asyncio.timeout(60):
        while not condition():
            await pilot.pause(0.02)


def footer_of(app: HexhavenApp) -> str:
    return " ".join(str(k.render()) for k in app.query("FooterKey"))


AVOID = ("offer_trade", "counter_trade", "maritime_trade")
"""Left to the dialog tests: here the player builds, buys and plays cards."""


async def press_on(app: HexhavenApp, pilot: Any) -> None:
    """One key press of a player who always takes the first thing offered (trading
    aside), fills in dialogs row by row, and confirms."""
    screen = app.screen
    if isinstance(screen, CardDialog):
        grid = screen.grid
        side, r = divmod(grid.row, 5)
        if screen.check(grid.counts) is None:
            await pilot.press("enter")
        elif grid.counts[side][r] < grid.sides[side].limits[r]:
            await pilot.press("right")
        else:
            await pilot.press("down")
        return
    if isinstance(screen, ChoiceDialog):
        await pilot.press("enter")
        return
    if app.query_one(BoardView).picking:
        await pilot.press("enter")
        return
    if app.choices and app.sent_for is None:
        kinds = [c.kind for c in app.choices]
        index = next(i for i, k in enumerate(kinds) if k not in AVOID)
        await pilot.press(str(index + 1))


async def test_a_game_against_a_bot_is_played_to_the_end_from_the_keyboard(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "g.db")
    srv = HexhavenServer(store)
    loop = asyncio.get_running_loop()
    async with srv.running("127.0.0.1", 0):
        options = m.GameOptions(players=2, victory_points=3, bots=[m.BotSeat(kind="heuristic")])
        link = Link(srv.url, Seating("create", name="Ana", options=options, start_now=True))
        await link.open()
        app = HexhavenApp(link)
        async with app.run_test(size=SIZE) as pilot:
            deadline = loop.time() + 120
            while not isinstance(app.screen, GameOverScreen):
                assert loop.time() < deadline, "the game did not end"
                await pilot.pause(0.01)
                await press_on(app, pilot)
            screen = app.screen
            over = app.model.over
            assert over is not None and over.winner is not None
            winner = "You won!" if over.winner == 0 else "heuristic-1 won."
            assert screen.headline() == winner
            text = " ".join(str(w.render()) for w in screen.query("Static"))
            assert f"{max(over.points)} points" in text and "matches the hash" in text
            log = [x.text for x in app.model.log]
            assert any(x.startswith("You built a settlement at") for x in log)
            assert any(" rolled " in x for x in log)
            await pilot.press("q")
        await link.close()
    store.close()


async def test_a_spectator_follows_a_game_to_its_end() -> None:
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        port = srv.port_of(ws_server)
        player = await Client.open(port)
        await player.hello()
        options = m.GameOptions(players=2, victory_points=3, bots=[m.BotSeat(kind="random")])
        await player.send(m.CreateGame(options=options))
        created = await player.expect(m.GameCreated)
        await player.send(m.JoinGame(game=created.game, name="Bo"))
        await player.expect(m.Joined)
        link = Link(srv.url, Seating("watch", game=created.game))
        await link.open()
        app = HexhavenApp(link)
        async with app.run_test(size=SIZE) as pilot:
            await player.send(m.StartGame(game=created.game))
            over = await asyncio.wait_for(player.play_randomly(created.game, 5), 60)
            for _ in range(200):
                if isinstance(app.screen, GameOverScreen):
                    break
                await pilot.pause(0.02)
            assert isinstance(app.screen, GameOverScreen)
            assert app.model.spectator and app.choices == []
            assert app.model.over is not None and app.model.over.points == over.points
            v = app.model.view
            assert v is not None and len(v.settlements) + len(v.cities) >= 4
        await link.close()
        await player.close()


async def test_the_client_comes_back_to_its_seat_after_the_connection_drops() -> None:
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0):
        options = m.GameOptions(players=2, victory_points=3, bots=[m.BotSeat(kind="random")])
        link = Link(srv.url, Seating("create", name="Ana", options=options, start_now=True))
        await link.open()
        app = HexhavenApp(link)
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(200):
                if app.model.prompt is not None:
                    break
                await pilot.pause(0.02)
            assert app.model.prompt is not None
            seat, token = app.model.seat, app.model.token
            assert link._ws is not None
            link._ws.transport.abort()  # the network goes away under the client
            for _ in range(300):
                if app.connection == "lost":
                    break
                await pilot.pause(0.01)
            assert app.query_one("#banner").has_class("shown")
            for _ in range(300):
                if app.connection == "connected":
                    break
                await pilot.pause(0.02)
            assert app.connection == "connected"
            for _ in range(200):
                if app.model.prompt is not None and app.sent_for is None:
                    break
                await pilot.pause(0.02)
            assert (app.model.seat, app.model.token) == (seat, token)
            assert app.model.prompt is not None  # the seat is prompted again after rejoining
            assert "reconnected" in " ".join(x.text for x in app.model.log)
            assert not app.query_one("#banner").has_class("shown")
        await link.close()


async def test_a_host_invites_a_friend_and_starts_the_game() -> None:
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0):
        options = m.GameOptions(players=3, private=True, bots=[m.BotSeat(kind="random")])
        link = Link(srv.url, Seating("create", name="Ana", options=options))
        await link.open()
        assert link.created is not None and link.created.invite is not None
        friend = Link(srv.url, Seating("join", name="Bo", invite=link.created.invite))
        await friend.open()  # by invite code, as `hexhaven join URL CODE` does
        assert friend.token is not None and friend.game == link.game
        app = HexhavenApp(link, note="friends type: hexhaven join ...", host=True)
        async with app.run_test(size=SIZE) as pilot:
            await shown(pilot, lambda: "start the game" in footer_of(app))
            assert not app.model.started
            hint = str(app.query_one("#hint").render())
            assert "Waiting to start: 2 of 3 seats taken" in hint and "Press s" in hint
            footer = footer_of(app)
            assert "start the game" in footer and "trade" not in footer, footer
            await pilot.press("s")
            # The prompt reaches the model first; the board takes it up when the app has
            # handled the update (later, on a busy machine).
            await shown(pilot, lambda: app.query_one(BoardView).picking)
            assert app.model.started and app.model.prompt is not None
            assert [p.name for p in app.model.players][:2] == ["Ana", "Bo"]
            await pilot.pause()
            footer = " ".join(str(k.render()) for k in app.query("FooterKey"))
            assert "trade" in footer and "start" not in footer, footer
        await friend.close()
        await link.close()


async def test_a_host_back_by_its_token_can_still_start_the_game() -> None:
    """`hexhaven join URL GAME --token-file F` on the host's seat: the server says this
    connection may start, so the lobby offers `s`; a friend's lobby does not."""
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0):
        options = m.GameOptions(players=3, bots=[m.BotSeat(kind="random")])
        first = Link(srv.url, Seating("create", name="Ana", options=options))
        await first.open()
        game, token = first.game, first.token
        friend = Link(srv.url, Seating("join", name="Bo", game=game))
        await friend.open()
        await first.close()  # the host's terminal went; its seat is kept
        assert game is not None and token is not None
        friend_app = HexhavenApp(friend)
        async with friend_app.run_test(size=SIZE) as pilot:
            await shown(pilot, lambda: "seats taken" in str(friend_app.query_one("#hint").render()))
            assert "Press s" not in str(friend_app.query_one("#hint").render())
            footer = " ".join(str(k.render()) for k in friend_app.query("FooterKey"))
            assert "start" not in footer and "trade" not in footer, footer
        back = Link(srv.url, Seating("rejoin", name="Ana", game=game, token=token))
        app = HexhavenApp(back)  # as `join --token-file` makes it: not told it is the host
        async with app.run_test(size=SIZE) as pilot:
            await shown(pilot, lambda: "Press s" in str(app.query_one("#hint").render()))
            assert app.model.may_start and "Press s" in str(app.query_one("#hint").render())
            await pilot.press("s")
            for _ in range(200):
                if app.model.started:
                    break
                await pilot.pause(0.02)
            assert app.model.started
        await back.close()
        await friend.close()
