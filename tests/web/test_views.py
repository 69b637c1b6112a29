"""The page draws the server's view: after every action of a seeded game, the board, the
players' counts and the bank it shows are the engine's spectator view of that state."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from playwright.async_api import Browser, Page

import engine
from clients.narrate import cards_text, plural
from protocol import messages as m
from protocol.payloads import ViewPayload, action_from_engine
from protocol.table import seat_view
from server.app import HexhavenServer
from tests.server.client import Client
from tests.web.test_browser import open_page, script_errors

ACTIONS = 160
"""Actions of the game checked one by one (set-up, rolls, robbers, builds and trades)."""

_SHOWN = """app => ({
  state: app.dataset.state,
  pieces: [...app.querySelectorAll('#board .settlement, #board .city, #board .road')].map(
    e => [e.classList[0], Number(e.dataset.vertex ?? e.dataset.edge), e.classList[1]]),
  robber: app.querySelector('#board .robber')?.dataset.hex ?? null,
  counts: [...app.querySelectorAll('li.player')].map(
    e => [Number(e.dataset.seat), e.querySelector('.counts')?.textContent ?? null]),
  bank: [...app.querySelectorAll('p.small')].map(e => e.textContent).find(
    t => t.startsWith('Bank: ')) ?? null,
})"""


def _expected(v: ViewPayload) -> dict[str, Any]:
    """What the page must show of the spectators' view ``v``."""
    pieces = [
        *(["settlement", x, f"seat-{q}"] for x, q in v.settlements),
        *(["city", x, f"seat-{q}"] for x, q in v.cities),
        *(["road", x, f"seat-{q}"] for x, q in v.roads),
    ]
    counts = []
    for s in v.seats:
        text = (
            f"{plural(s.points, 'point')} · {plural(s.resource_cards, 'card')} · "
            f"{s.development_cards} development · {plural(s.knights, 'knight')} · "
            f"road {s.longest_road}"
        )
        text += " · longest road" if s.has_longest_road else ""
        text += " · largest army" if s.has_largest_army else ""
        text += f" · owes {s.discards_owed}" if s.discards_owed else ""
        counts.append([s.seat, text])
    deck = f"{v.development_deck} development cards left"
    return {
        "state": str(v.state_id),
        "pieces": sorted(pieces),
        "robber": str(v.robber),
        "counts": counts,
        "bank": f"Bank: {cards_text(v.bank.counts())} · {deck}",
    }


async def _shown(page: Page, state_id: int) -> dict[str, Any]:
    """What the page draws once it draws state ``state_id``."""
    await page.wait_for_selector(f"#app[data-state='{state_id}']")
    shown: dict[str, Any] = await page.eval_on_selector("#app", _SHOWN)
    shown["pieces"] = sorted(shown["pieces"])
    if shown["bank"] is not None:  # the dice and the goal follow the deck
        shown["bank"] = shown["bank"].partition(" · first to ")[0]
    return shown


async def test_the_page_draws_the_servers_view_after_every_action(browser: Browser) -> None:
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        port = srv.port_of(ws_server)
        players = [await Client.open(port) for _ in range(3)]
        for c in players:
            await c.hello()
        await players[0].send(m.CreateGame(options=m.GameOptions(players=3)))
        game = (await players[0].expect(m.GameCreated)).game
        for i, c in enumerate(players):
            await c.send(m.JoinGame(game=game, name=f"p{i}"))
            await c.expect(m.Joined)
        page = await open_page(browser, f"http://127.0.0.1:{port}/#watch={game}")
        await page.wait_for_selector("li.player[data-seat='2']")
        await players[0].send(m.StartGame(game=game))

        async def drain(c: Client) -> None:
            while True:
                await c.recv()

        readers = [asyncio.create_task(drain(c)) for c in players]
        table = srv.rooms[game].table
        rnd = random.Random(5)
        try:
            assert await _shown(page, 0) == _expected(seat_view(table.state, None))
            for _ in range(ACTIONS):
                state = table.state
                seat = rnd.choice(engine.seats_to_act(state))
                action = rnd.choice(engine.legal_actions(state, seat))
                act = m.Act(
                    game=game, state_id=state.actions_taken, action=action_from_engine(action)
                )
                await players[seat].send(act)
                shown = await _shown(page, state.actions_taken + 1)
                assert shown == _expected(seat_view(table.state, None)), action
        finally:
            for task in readers:
                task.cancel()
        assert table.state_id == ACTIONS
        assert script_errors(page) == []
        for c in players:
            await c.close()
