"""The web client in a real browser (Chromium, through Playwright) against a real server on
127.0.0.1: a whole game against two bots played by clicking what the page offers; a friend who
sits down through the invite link, a domestic offer between the two, a reload that comes back
to its seat, and a spectator who follows the game through the watch link; games made with a
preset or balanced board and search bots of a chosen strength; and a game the server closed
after its end, opened again by its watch link and replayed."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from playwright.async_api import Browser, BrowserContext, ElementHandle, Page
from playwright.async_api import Error as PlaywrightError

from boards.presets import load_preset, preset_names
from engine.topology import topology
from protocol import messages as m
from protocol.payloads import board_to_payload
from server.app import HexhavenServer
from tests.server.client import Client

ANYTHING = "#board .spot, #actions button[data-kind], #dialog, #game-over"
"""Whatever a page may offer its player to do, or the end."""
CLICKS = (
    "roll_dice",
    "discard",
    "move_robber",
    "place_settlement",
    "place_road",
    "build_city",
    "build_settlement",
    "build_road",
    "decline_trade",
    "cancel_trade",
    "end_turn",
)
"""The actions the tests take, the first one offered of these."""
RESOURCES = ("brick", "lumber", "wool", "grain", "ore")
WIDE = {"width": 1200, "height": 900}
PHONE = {"width": 390, "height": 844}


async def open_page(browser: Browser, url: str, viewport: dict[str, int] = WIDE) -> Page:
    """A page in a browser context of its own (its own localStorage)."""
    context = await browser.new_context(viewport=viewport)  # type: ignore[arg-type]
    return await open_in(context, url)


async def open_in(context: BrowserContext, url: str) -> Page:
    """A new page of ``context`` (a browser's profile), failing the test on any script
    error."""
    page = await context.new_page()
    errors: list[str] = []
    sockets: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("websocket", lambda ws: sockets.append(ws.url))
    setattr(page, "script_errors", errors)  # noqa: B010
    setattr(page, "sockets", sockets)  # noqa: B010
    await page.goto(url)
    return page


def script_errors(page: Page) -> list[str]:
    errors: list[str] = getattr(page, "script_errors")  # noqa: B009
    return errors


def sockets_of(page: Page) -> list[str]:
    """The addresses of the websockets the page opened, oldest first (across the documents
    it went to)."""
    sockets: list[str] = getattr(page, "sockets")  # noqa: B009
    return sockets


async def refusals(page: Page) -> list[str]:
    """What the server refused of what the page sent, as the page's log told it."""
    return [await line.inner_text() for line in await page.query_selector_all("#log li.error")]


async def create_game(
    page: Page,
    *,
    name: str,
    players: int,
    bots: int,
    points: int,
    timer: str = "",
    private: bool = True,
    spectator_chat: bool = False,
    kind: str | None = "heuristic",
    offer_window: str = "20",
) -> str:
    """Fill in the new-game form and create the game, seated at it as host; its id (from its
    watch link: a private game's invite link names its invite code instead). The bots are
    of ``kind`` (the quick ones, unless a test plays against the page's default: None)."""
    await page.fill("#name", name)
    await page.select_option("#players", str(players))
    await page.select_option("#bots", str(bots))
    if kind is not None:
        await page.select_option("#bot-kind", kind)
    await page.fill("#points", str(points))
    await page.select_option("#timer", timer)
    await page.select_option("#offer-window", offer_window)
    await page.set_checked("#private", private)
    await page.set_checked("#spectator-chat", spectator_chat)
    await page.click("#create-game")
    await page.wait_for_selector("#start")
    link = await page.get_attribute("#invite-link", "value")
    watch = await page.get_attribute("#watch-link", "href")
    assert link is not None and watch is not None and "#watch=" in watch
    game = watch.partition("#watch=")[2]
    assert link.endswith(f"#join={game}") != private
    return game


async def hand_of(page: Page) -> dict[str, int]:
    """The cards the page shows in its player's hand."""
    return {r: int(await page.inner_text(f"#hand .res.{r} .n")) for r in RESOURCES}


async def step(page: Page) -> bool:
    """Do one thing the page offers now, if it offers anything; whether it did."""
    dialog = await page.query_selector("#dialog")
    if dialog is not None:
        if await page.query_selector("#send-discard") is not None:
            while await page.is_disabled("#send-discard"):
                more = await page.query_selector("#dialog button[id$='-more']:not([disabled])")
                assert more is not None, await page.inner_text("#dialog")
                await more.click()
            await page.click("#send-discard")
        else:
            await page.click("#dialog .buttons button")
        return True
    spot = await page.query_selector("#board .spot")
    if spot is not None:
        return await clicked(spot)
    for kind in CLICKS:
        button = await page.query_selector(f"#actions button[data-kind={kind}]")
        if button is not None:
            return await clicked(button)
    return False


async def offered_to_a_friend(
    browser: Browser,
    server: str,
    *,
    offer_window: str,
    host_size: dict[str, int] = WIDE,
    friend_size: dict[str, int] = PHONE,
) -> tuple[Page, Page]:
    """Ana hosts a game for two with the given offer window and Bo sits down by its invite
    link; once both have placed, Ana offers a card she holds for another (on a later turn if
    she holds none yet). The two pages, Ana's first."""
    host = await open_page(browser, server, host_size)
    await create_game(host, name="Ana", players=2, bots=0, points=10, offer_window=offer_window)
    link = await host.get_attribute("#invite-link", "value")
    assert link is not None
    friend = await open_page(browser, link, friend_size)
    await friend.fill("#name", "Bo")
    await friend.click("#take-seat")
    await friend.wait_for_selector("header:has-text('you are')")
    await host.click("#start")
    await play_until([host, friend], "#actions button[data-kind=end_turn]")
    while not any((await hand_of(host)).values()):  # a card to offer
        await host.click("#actions button[data-kind=end_turn]")
        await play_until([host, friend], "#actions button[data-kind=end_turn]")
    held = await hand_of(host)
    give = next(r for r in RESOURCES if held[r])
    get = next(r for r in RESOURCES if r != give)
    await host.click("#actions button[data-kind=offer_trade]")
    await host.click(f"#give-{give}-more")
    await host.click(f"#get-{get}-more")
    await host.click("#send-offer")
    return host, friend


async def clicked(element: ElementHandle) -> bool:
    """Click ``element``; False if the page was drawn anew first (a message came), so the
    element is gone and nothing was clicked."""
    try:
        await element.click()
    except PlaywrightError as error:
        if "not attached" in error.message:
            return False
        raise
    return True


async def next_turn_of(pages: list[Page]) -> None:
    """Wait until one of the pages offers something to do, or shows the end."""
    waits = [asyncio.create_task(p.wait_for_selector(ANYTHING, timeout=30_000)) for p in pages]
    try:
        done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            task.result()
    finally:
        for task in waits:
            task.cancel()
        await asyncio.gather(*waits, return_exceptions=True)


async def play_until(pages: list[Page], done: str, limit: int = 2000) -> None:
    """Click what the pages offer until the first of them shows ``done``."""
    for _ in range(limit):
        if await pages[0].query_selector(done) is not None:
            return
        if not any([await step(page) for page in pages]):
            await next_turn_of(pages)
    raise AssertionError(f"{done} never came")


async def test_a_whole_game_against_bots(browser: Browser, server: str, shots: Path | None) -> None:
    page = await open_page(browser, server)
    await page.wait_for_selector("#create")
    if shots:
        await page.fill("#name", "Ana")
        await page.screenshot(path=shots / "web-lobby.png")
    await create_game(page, name="Ana", players=3, bots=2, points=3)
    assert await page.get_attribute("#invite-link", "value") is not None
    await page.click("#start")
    await page.wait_for_selector("#board .spot.vertex")
    spots = await page.eval_on_selector_all(
        "#board .spot.vertex",
        "els => els.map(g => [Number(g.dataset.vertex), Number(g.querySelector('circle')"
        ".getAttribute('cx')), Number(g.querySelector('circle').getAttribute('cy'))])",
    )
    # Every intersection is free at first, each drawn where the engine's topology puts it.
    xy = topology(3).vertex_xy
    assert sorted(v for v, _, _ in spots) == list(range(len(xy)))
    for v, x, y in spots:
        assert (x, y) == pytest.approx((xy[v][0] * 40, -xy[v][1] * 40), abs=1e-6)
    assert await page.get_attribute("#board .spot", "tabindex") == "0"
    await page.focus("#board .spot")
    await page.keyboard.press("Enter")  # the keyboard places the first settlement
    await page.wait_for_selector("#board .settlement.seat-0")
    await page.fill("#chat-text", "good luck")
    await page.press("#chat-text", "Enter")
    await page.wait_for_selector("#log li.chat[data-mine=true]:has-text('good luck')")
    await play_until([page], "#actions button[data-kind=end_turn]")
    if shots:
        await page.screenshot(path=shots / "web-turn.png")
    await play_until([page], "#game-over")
    assert "matches the hash published at the start" in await page.inner_text("#seed-check")
    assert "bot" in await page.inner_text(".players")
    log = await page.inner_text("#log")
    assert "Game over:" in log and "rolled" in log and "built a settlement at" in log
    if shots:
        await page.screenshot(path=shots / "web-end.png", full_page=True)

    # The replay steps through the game this page was told, from the empty island to the end.
    pieces = "#board .settlement, #board .city, #board .road"
    drawn = "els => els.map(e => e.outerHTML).sort()"
    final = await page.eval_on_selector_all(pieces, drawn)
    await page.click("#replay-open")
    await page.wait_for_selector("#replay h2:has-text('action 0 of')")
    assert await page.query_selector(pieces) is None
    await page.click("#replay-forward")
    await page.wait_for_selector("#board .settlement.seat-0")
    await page.click("#replay-end")
    heading = await page.inner_text("#replay h2")
    assert heading.startswith("Replay: action ")
    assert await page.eval_on_selector_all(pieces, drawn) == final
    assert "won" in await page.inner_text("#replay-said")
    await page.keyboard.press("ArrowLeft")
    last = int(heading.split()[-1])
    await page.wait_for_selector(f"#replay h2:has-text('action {last - 1} of {last}')")
    assert script_errors(page) == []
    assert await refusals(page) == []


async def test_a_friend_joins_by_the_invite_link_and_a_spectator_watches(
    browser: Browser, server: str, shots: Path | None
) -> None:
    host = await open_page(browser, server)
    await create_game(host, name="Ana", players=2, bots=0, points=10, timer="120")
    link = await host.get_attribute("#invite-link", "value")
    watch_link = await host.get_attribute("#watch-link", "href")
    assert link is not None and "#invite=" in link and watch_link is not None

    friend = await open_page(browser, link, PHONE)
    await friend.wait_for_selector("#take-seat")
    await friend.fill("#name", "Bo")
    await friend.click("#take-seat")
    await friend.wait_for_selector("header:has-text('you are')")
    await host.wait_for_selector(".players:has-text('Bo')")
    spectator = await open_page(browser, watch_link)
    await spectator.wait_for_selector("header:has-text('watching')")

    # Under a path prefix (as behind a reverse proxy), a bad invite code is told in a sentence.
    # (told on arrival: the page asks what game the code opens before offering a seat).
    stranger = await open_page(browser, server + "hexhaven/a/#invite=NOSUCHCODE")
    await stranger.wait_for_selector("#status:has-text('No game has that invite code')")
    await stranger.wait_for_selector("#create")  # back in the lobby

    await host.click("#start")
    await host.wait_for_selector("#board .spot.vertex")
    # The turn timer runs for the seat to act, as everyone sees it.
    await friend.wait_for_selector("li[data-seat='0'] .timer:has-text('s left')")
    assert await friend.query_selector("li[data-seat='1'] .timer") is None
    saved = json.loads(await friend.evaluate("localStorage.getItem('hexhaven.seats')"))
    assert [seat["seat"] for seat in saved.values()] == [1]
    await friend.reload()  # back to the same seat, from the token the browser kept
    await friend.wait_for_selector("header:has-text('you are')")
    assert (await friend.inner_text("header .badge")) == "2"
    # A closed tab: the invite link, opened again in the same browser, leads to the seat.
    assert script_errors(friend) == []
    await friend.close()
    friend = await open_in(friend.context, link)
    await friend.wait_for_selector("header:has-text('you are')")
    assert (await friend.inner_text("header .badge")) == "2"

    # Both place their settlements and roads, then the host rolls and offers a card.
    await play_until([host, friend], "#actions button[data-kind=end_turn]")
    await spectator.wait_for_selector("#board .settlement.seat-1")
    if shots:
        await friend.screenshot(path=shots / "web-phone.png", full_page=True)
    # The host gives a card it holds for one the friend holds, so the friend may accept
    # (on a later turn, if the cards do not allow it yet).
    while True:
        held = [await hand_of(page) for page in (host, friend)]
        pairs = [(g, w) for g in RESOURCES for w in RESOURCES if held[0][g] and held[1][w]]
        pairs = [(g, w) for g, w in pairs if g != w]
        if pairs:
            give, get = pairs[0]
            break
        await host.click("#actions button[data-kind=end_turn]")
        await play_until([host, friend], "#actions button[data-kind=end_turn]")
    await host.click("#actions button[data-kind=offer_trade]")
    await host.keyboard.press("Escape")  # not yet: back to the moves
    await host.wait_for_selector("#dialog", state="detached")
    await host.click("#actions button[data-kind=offer_trade]")
    await host.click(f"#give-{give}-more")
    await host.click(f"#get-{get}-more")
    assert await host.is_checked("#ask-1")
    if shots:
        await host.screenshot(path=shots / "web-offer.png")
    await host.click("#send-offer")
    accept = f"#actions button[data-kind=accept_trade]:has-text('get 1 {give}')"
    await friend.wait_for_selector(accept)
    await friend.wait_for_selector("#actions button[data-kind=counter_trade]")
    await spectator.wait_for_selector(f"#log li:has-text('Ana offers 1 {give} for 1 {get}')")
    await friend.click("#actions button[data-kind=decline_trade]")
    await host.wait_for_selector("#log li:has-text('Nobody took your offer')")

    # Offered again, to the friend by name; the friend counters with the same cards, from
    # the keyboard, and the host takes the counter-offer.
    await host.click("#actions button[data-kind=offer_trade]")
    await host.click(f"#give-{give}-more")
    await host.click(f"#get-{get}-more")
    await host.click("#send-offer")
    await friend.click("#actions button[data-kind=counter_trade]")
    await friend.focus(f"#give-{get}-more")
    await friend.keyboard.press("Enter")
    await friend.focus(f"#get-{give}-more")
    await friend.keyboard.press("Space")
    await friend.click("#send-offer")
    confirm = f"#actions button[data-kind=confirm_trade]:has-text('give 1 {give}, get 1 {get}')"
    await host.click(confirm)
    await host.wait_for_selector(f"#log li:has-text('You traded 1 {give} to Bo for 1 {get}')")
    await spectator.wait_for_selector(f"#log li:has-text('Ana traded 1 {give} to Bo')")
    after = await hand_of(host)
    assert after[give] == held[0][give] - 1 and after[get] == held[0][get] + 1
    await host.wait_for_selector("#actions button[data-kind=end_turn]")
    for page in (host, friend, spectator, stranger):
        assert script_errors(page) == []
    for page in (host, friend, spectator):
        assert await refusals(page) == []


async def test_the_new_game_form_offers_the_servers_boards_and_bot_strengths(
    browser: Browser,
) -> None:
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        url = f"http://127.0.0.1:{srv.port_of(ws_server)}/"
        page = await open_page(browser, url)
        preset = preset_names()[0]
        await page.wait_for_selector(
            f"#board-kind option[value='preset:{preset}']", state="attached"
        )
        # The page's default bots are the terminal's: uct, quick.
        assert await page.eval_on_selector("#bot-kind", "s => s.value") == "uct"
        assert await page.eval_on_selector("#bot-strength", "s => s.value") == "quick"
        offered = await page.eval_on_selector_all(
            "#bot-strength option", "os => os.map(o => o.value)"
        )
        assert offered == ["", *m.BOT_KINDS["uct"]]
        await page.select_option("#bot-strength", "easy")
        await page.select_option("#board-kind", f"preset:{preset}")
        assert await page.query_selector("#radius") is None  # the preset's radius is its own
        game = await create_game(page, name="Ana", players=3, bots=2, points=10, kind=None)
        options = srv.rooms[game].options
        assert (options.board, options.preset, options.radius) == ("preset", preset, 3)
        assert options.layout == board_to_payload(load_preset(preset).to_dict())
        assert options.bots == [m.BotSeat(kind="uct", strength="easy")] * 2

        # A balanced board takes the server a moment: the page says the game is being made.
        other = await open_page(browser, url)
        await other.wait_for_selector("#board-kind option[value=balanced]", state="attached")
        await other.select_option("#board-kind", "balanced")
        await other.evaluate(
            "window.sawMaking = '';"
            "new MutationObserver(() => { const m = document.querySelector('#making');"
            " if (m) window.sawMaking = m.textContent; })"
            ".observe(document.body, {childList: true, subtree: true})"
        )
        balanced = await create_game(other, name="Bo", players=2, bots=1, points=10, kind=None)
        assert "balanced board" in await other.evaluate("window.sawMaking")
        options = srv.rooms[balanced].options
        assert options.board == "balanced" and options.layout is not None
        assert options.bots == [m.BotSeat(kind="uct", strength="quick")]
        for p in (page, other):
            assert script_errors(p) == []
            assert await refusals(p) == []


async def test_a_game_closed_after_its_end_is_watched_and_replayed_by_its_link(
    browser: Browser,
) -> None:
    srv = HexhavenServer(idle_timeout=0.2)
    async with srv.running("127.0.0.1", 0) as ws_server:
        port = srv.port_of(ws_server)
        players = [await Client.open(port) for _ in range(2)]
        for c in players:
            await c.hello()
        await players[0].send(m.CreateGame(options=m.GameOptions(players=2, victory_points=3)))
        game = (await players[0].expect(m.GameCreated)).game
        for i, c in enumerate(players):
            await c.send(m.JoinGame(game=game, name=f"p{i}"))
            await c.expect(m.Joined)
        await players[0].send(m.StartGame(game=game))
        overs = await asyncio.gather(*(c.play_randomly(game, i) for i, c in enumerate(players)))
        for c in players:
            await c.close()
        async with asyncio.timeout(10):  # closed once nobody is left in it
            while game in srv.rooms:
                await asyncio.sleep(0.02)

        page = await open_page(browser, f"http://127.0.0.1:{port}/#watch={game}")
        await page.wait_for_selector("#game-over")
        assert await page.inner_text("#winner") == f"p{overs[0].winner} won."
        assert "matches the hash published at the start" in await page.inner_text("#seed-check")
        pieces = "#board .settlement, #board .city, #board .road"
        drawn = "els => els.map(e => e.outerHTML).sort()"
        final = await page.eval_on_selector_all(pieces, drawn)
        await page.click("#replay-open")
        await page.wait_for_selector("#replay h2:has-text('action 0 of')")
        # the board before the first action, once the page has drawn it: no piece left
        await page.wait_for_selector(pieces, state="detached")
        assert await page.query_selector(pieces) is None
        await page.click("#replay-forward")
        await page.wait_for_selector("#board .settlement.seat-0")
        await page.click("#replay-end")
        assert await page.eval_on_selector_all(pieces, drawn) == final
        assert "won" in await page.inner_text("#replay-said")
        assert script_errors(page) == []
        assert await refusals(page) == []


async def test_a_game_stored_before_boards_said_their_harbour_layout_shows_its_harbours(
    browser: Browser, tmp_path: Path
) -> None:
    """The page draws a board's harbours on the slots of its harbour layout: a game stored
    with the evenly spaced slots, watched, has its piers at those slots' intersections."""
    from server.store import Store
    from tests.server.test_harbour_layout import GAME, _store_game

    db = str(tmp_path / "games.db")
    _store_game(db, ["old-layout-token-0", "old-layout-token-1"])
    topo = topology(3)
    expected = {
        (round(40 * topo.vertex_xy[v][0], 1), round(-40 * topo.vertex_xy[v][1], 1))
        for e in topo.harbour_slots_of(1)
        for v in topo.edge_vertices[e]
    }
    assert expected != {
        (round(40 * topo.vertex_xy[v][0], 1), round(-40 * topo.vertex_xy[v][1], 1))
        for e in topo.harbour_slots
        for v in topo.edge_vertices[e]
    }
    store = Store(db)
    srv = HexhavenServer(store)
    async with srv.running("127.0.0.1", 0) as ws_server:
        page = await open_page(browser, f"http://127.0.0.1:{srv.port_of(ws_server)}/#watch={GAME}")
        await page.wait_for_selector("#board .harbours line.pier", state="attached")
        piers = await page.eval_on_selector_all(
            "#board .harbours line.pier",
            "els => els.map(e => [Number(e.getAttribute('x1')), Number(e.getAttribute('y1'))])",
        )
        assert {(round(x, 1), round(y, 1)) for x, y in piers} == expected
        assert script_errors(page) == []
    store.close()
