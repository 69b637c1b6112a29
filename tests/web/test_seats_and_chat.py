"""Who may sit down and who said what, in the web client against a real server: a private
game seats only those with its invite link (its id, taken from the watch link, is refused in
a sentence, with a watch offered instead), and a chat line shows who said it in marks no
name can imitate: the seat's chip and number, the viewer's own "you" badge, a spectator's
mark; the log's sentences tell a player named "you" with its seat."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Browser, Page

from protocol import messages as m
from server.app import HexhavenServer
from tests.server.client import Client
from tests.web.test_browser import create_game, open_page, refusals, script_errors

SEATED = ".players li.player:not(.empty) .name"
"""The names the roster shows for the seats taken."""


async def take_seat(page: Page, name: str) -> None:
    """Sit down from the seat offer of an invite link, under ``name``."""
    await page.wait_for_selector("#take-seat")
    await page.fill("#name", name)
    await page.click("#take-seat")


async def test_a_private_game_seats_only_by_its_invite_link(browser: Browser, server: str) -> None:
    host = await open_page(browser, server)
    game = await create_game(host, name="Ana", players=3, bots=0, points=10)
    link = await host.get_attribute("#invite-link", "value")
    assert link is not None
    code = link.partition("#invite=")[2]
    assert re.fullmatch("[A-Z0-9]{10}", code), link
    assert game not in link
    assert "private" in await host.inner_text("#waiting")

    # The watch link turned into a join link: refused in a sentence, with a watch offered.
    stranger = await open_page(browser, f"{server}#join={game}")
    await take_seat(stranger, "Eve")
    refused = await stranger.wait_for_selector("#seat-refused[data-code=invite_required]")
    assert refused is not None
    said = await refused.inner_text()
    assert f"Game {game} is private" in said and "invite link" in said, said
    assert await refused.get_attribute("role") == "alert"
    assert await stranger.query_selector("#take-seat") is None
    assert await stranger.evaluate("localStorage.getItem('hexhaven.seats')") is None
    await stranger.click("#watch-instead")
    await stranger.wait_for_selector("header:has-text('watching')")
    assert stranger.url.endswith(f"#watch={game}")

    # The invite link seats; the roster then holds the host and the friend, nobody else. The
    # friend asked for the host's name: the server numbers it, and the page shows its name.
    friend = await open_page(browser, link)
    await take_seat(friend, "ana")
    await friend.wait_for_selector("header:has-text('you are')")
    await host.wait_for_selector(f"{SEATED}:has-text('ana (2)')")
    assert await host.eval_on_selector_all(SEATED, "els => els.map(e => e.textContent)") == [
        "Ana",
        "ana (2)",
    ]
    await stranger.wait_for_selector(f"{SEATED}:has-text('ana (2)')")
    assert "Eve" not in await stranger.inner_text(".players")

    # Back after a reload, the host shows the same invite link.
    await host.reload()
    await host.wait_for_selector("#invite-link")
    assert await host.get_attribute("#invite-link", "value") == link
    for page in (host, stranger, friend):
        assert script_errors(page) == []
    for page in (host, friend):
        assert await refusals(page) == []


async def test_chat_lines_show_who_said_them_by_seat_not_by_name(
    browser: Browser, server: str
) -> None:
    host = await open_page(browser, server)
    game = await create_game(
        host, name="Ana", players=2, bots=0, points=10, private=False, spectator_chat=True
    )
    joker = await open_page(browser, f"{server}#join={game}")
    await take_seat(joker, "you")  # a player who names themself "you"
    await joker.wait_for_selector("header:has-text('you are')")
    spectator = await open_page(browser, f"{server}#watch={game}")
    await spectator.wait_for_selector("header:has-text('watching')")
    await host.wait_for_selector(f"{SEATED}:has-text('you')")

    for page, text in ((host, "hello from Ana"), (joker, "hello from you"), (spectator, "hi all")):
        await page.fill("#chat-text", text)
        await page.press("#chat-text", "Enter")
        await host.wait_for_selector(f"#log li.chat:has-text('{text}')")

    # The host's page: its own line marked by the page, the line of "you" with seat 2's
    # chip and no "you" badge, the spectator's with the spectator's mark and no seat.
    lines = await host.eval_on_selector_all(
        "#log li.chat",
        """els => els.map(li => ({
            seat: li.dataset.seat,
            mine: li.dataset.mine ?? null,
            chip: li.querySelector('.badge[class*="seat-"]')?.className ?? null,
            number: li.querySelector('.badge[class*="seat-"]')?.textContent ?? null,
            name: li.querySelector('.name')?.textContent ?? null,
            you: li.querySelector('.badge.self') !== null,
            spectator: li.querySelector('.badge.spectator') !== null,
            heard: li.querySelector('.hidden').textContent,
            said: li.querySelector('.said').textContent,
        }))""",
    )
    assert lines == [
        {
            "seat": "0",
            "mine": "true",
            "chip": "badge seat-0",
            "number": "1",
            "name": "Ana",
            "you": True,
            "spectator": False,
            "heard": "you, seat 1, ",
            "said": ": hello from Ana",
        },
        {
            "seat": "1",
            "mine": None,
            "chip": "badge seat-1",
            "number": "2",
            "name": "you",
            "you": False,
            "spectator": False,
            "heard": "seat 2, ",
            "said": ": hello from you",
        },
        {
            "seat": "spectator",
            "mine": None,
            "chip": None,
            "number": None,
            "name": None,
            "you": False,
            "spectator": True,
            "heard": "spectator",
            "said": ": hi all",
        },
    ]
    # The chip has the board's colour for its seat.
    chip = await host.eval_on_selector(
        "#log li.chat[data-seat='1'] .badge", "e => getComputedStyle(e).backgroundColor"
    )
    assert chip == "rgb(0, 114, 178)"  # board.js's SEAT_COLOURS[1], #0072b2

    # The roster marks the same way: the "you" badge on the host's own seat only.
    assert await host.query_selector(".players li[data-seat='0'] .badge.self") is not None
    assert await host.query_selector(".players li[data-seat='1'] .badge.self") is None
    assert await host.inner_text(".players li[data-seat='1'] .name") == "you"

    # The joker's page marks the joker's own line by seat; the spectator's marks none.
    await joker.wait_for_selector("#log li.chat:has-text('hi all')")
    mine = await joker.eval_on_selector_all(
        "#log li.chat[data-mine=true]", "els => els.map(e => e.dataset.seat)"
    )
    assert mine == ["1"]
    await spectator.wait_for_selector("#log li.chat:has-text('hi all')")
    assert await spectator.query_selector("#log li.chat[data-mine]") is None
    assert await spectator.query_selector("#log .badge.self") is None

    # In the game, the log tells the player named "you" with its seat, never as the viewer.
    await host.click("#start")
    for kind in ("vertex", "edge"):  # the host's first settlement and road
        await host.click(f"#board .spot.{kind}")
        await host.wait_for_selector(f"#board .spot.{kind}", state="detached")
    await host.wait_for_selector("header:has-text('you (seat 2) places a settlement')")
    await joker.click("#board .spot.vertex")
    told = await host.wait_for_selector("#log li:has-text('you (seat 2) built a settlement')")
    assert told is not None and await told.get_attribute("class") == "event"
    await joker.wait_for_selector("#log li.you:has-text('You built a settlement')")
    for page in (host, joker, spectator):
        assert script_errors(page) == []
        assert await refusals(page) == []


@pytest.mark.parametrize("private", [False, True], ids=["join-link", "invite-link"])
async def test_the_link_of_a_game_under_way_offers_to_watch_not_a_seat(
    browser: Browser, private: bool
) -> None:
    """A game's link opened after its start says so before anyone asks for a seat (a public
    game's join link from the lobby's list, a private game's invite link from the server's
    answer to find_game): no seat is offered, and watching it works."""
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        port = srv.port_of(ws_server)
        players = [await Client.open(port) for _ in range(2)]
        for c in players:
            await c.hello()
        await players[0].send(m.CreateGame(options=m.GameOptions(players=2, private=private)))
        created = await players[0].expect(m.GameCreated)
        game = created.game
        for i, c in enumerate(players):
            await c.send(m.JoinGame(game=game, invite=created.invite, name=f"p{i}"))
            await c.expect(m.Joined)
        await players[0].send(m.StartGame(game=game))
        await players[0].expect(m.Prompt)
        link = f"#invite={created.invite}" if private else f"#join={game}"
        page = await open_page(browser, f"http://127.0.0.1:{port}/{link}")
        await page.wait_for_selector("#seat-offer h2:has-text('This game has started')")
        assert await page.query_selector("#take-seat") is None
        assert "you can watch it" in await page.inner_text("#no-seat")
        await page.click("#watch-instead")
        await page.wait_for_selector("header:has-text('watching')")
        assert script_errors(page) == []
        assert await refusals(page) == []
        for c in players:
            await c.close()
