"""The board reads during play: after a roll, the hexes it produced on are marked."""

from __future__ import annotations

from playwright.async_api import Browser

from protocol.table import seat_view
from server.app import HexhavenServer
from tests.web.test_browser import create_game, next_turn_of, open_page, script_errors, step

_SHOWN = """() => [document.querySelector('#app').dataset.state,
  [...document.querySelectorAll('#board .hex.produced')].map(e => Number(e.dataset.hex))]"""
"""The state the page draws and the hexes it marks, read at once."""


async def test_the_hexes_a_roll_produced_on_are_marked(browser: Browser) -> None:
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        page = await open_page(browser, f"http://127.0.0.1:{srv.port_of(ws_server)}/")
        game = await create_game(page, name="Ana", players=2, bots=1, points=10)
        await page.click("#start")
        checked = 0
        for _ in range(1000):
            if checked >= 3:
                break
            if not await step(page):
                await next_turn_of([page])  # the bot's move: the page's next one comes
            view = seat_view(srv.rooms[game].table.state, None)
            shown, marked = await page.evaluate(_SHOWN)
            if view.dice is None or shown != str(view.state_id):
                continue  # no roll this turn yet, or the page draws another state
            rolled = sum(view.dice)
            expected = [
                h
                for h, token in enumerate(view.board.tokens)
                if token == rolled and h != view.robber
            ]
            assert sorted(marked) == expected
            checked += 1
        assert checked >= 3
        assert script_errors(page) == []
