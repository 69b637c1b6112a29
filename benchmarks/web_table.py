"""The web page as a table to play at: one whole game against bots at a laptop's window and
at a phone's, played by clicking what the page offers, and what that took.

Run it from the repository root (about two minutes; Debian's Chromium, as the browser
tests use)::

    .venv/bin/python benchmarks/web_table.py
    .venv/bin/python benchmarks/web_table.py --points 10 --shots docs/screenshots

It starts a real server (``server.app.HexhavenServer``) on 127.0.0.1 at a free port, and
for each size (a 1280x800 laptop, a 390x844 phone) opens the page in a browser context of
its own, makes a three-player game to ``--points`` against two ``heuristic`` bots in the
page's form, and plays it to its end as a person would: each time the page offers
something, it clicks the first of the moves the browser tests take (a spot on the board,
a dialog's button, roll, build, decline an offer, end the turn), and once, on its first
turn with a card in hand, offers a trade to the bots. Before every click it asks where the
control lies (Playwright's ``bounding_box``, in the window's coordinates): a control not
wholly inside the window is one the person had to scroll to. Every offer made to the
page's seat is checked to be shown in the window with its countdown ("Closes in …").

It prints, per size: the clicks, how many needed a scroll, the offers to the person and how
many came without a countdown in sight, the game's length, and the time to the first board
(ms from a reload of the seat's page to the board's first hex drawn, median of three on the
loopback server); then the page's weight (the bytes of the files the server serves from
``server/webclient``, raw and gzipped). With ``--shots DIR`` it saves a screenshot of each
phase (the set-up, a turn, the offer, the end) as ``DIR/table-SIZE-PHASE.png``.
Benchmarks print figures; nothing here is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from playwright.async_api import Browser, ElementHandle, Page, async_playwright
from playwright.async_api import Error as PlaywrightError

from app.log import configure_logging
from server.app import HexhavenServer

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"]
SIZES = {"laptop": (1280, 800), "phone": (390, 844)}
WEBCLIENT = Path(__file__).resolve().parent.parent / "server" / "webclient"
SERVED = ("index.html", "app.js", "app.css")
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
"""The moves taken, the first one offered of these (as the browser tests take them)."""
RESOURCES = ("brick", "lumber", "wool", "grain", "ore")
ANYTHING = "#board .spot, #actions button[data-kind], #dialog, #game-over"
ASKED = """() => {
  if (!document.querySelector('#actions button[data-kind=decline_trade]')) return null;
  const trade = document.querySelector('#trade');
  const text = trade?.textContent ?? '';
  const box = trade?.getBoundingClientRect();
  const inside = box && box.top >= 0 && box.left >= 0 && box.bottom <= innerHeight
    && box.right <= innerWidth;
  const turn = document.querySelector('#turn .turn-no')?.textContent ?? '';
  const shown = Boolean(inside && text.includes('Closes in'));
  return {offer: `${turn}: ${text.split('.')[0]}`, shown};
}"""
"""An offer to the page's seat, as it is shown now: which (the turn and its first sentence)
and whether it is in the window with its countdown; null if none is made to the seat."""


@dataclass
class Played:
    """What one game at one size took."""

    clicks: int = 0
    scrolled: int = 0
    offers: int = 0
    offers_unshown: int = 0
    seconds: float = 0.0
    first_board_ms: float = 0.0


async def in_window(page: Page, element: ElementHandle) -> bool:
    """Whether ``element`` lies wholly inside the window, as the page is scrolled now."""
    box = await element.bounding_box()
    size = page.viewport_size
    if box is None or size is None:
        return False
    return (
        box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= size["width"]
        and box["y"] + box["height"] <= size["height"]
    )


async def click(page: Page, element: ElementHandle | None, played: Played) -> bool:
    """Click ``element``, counted, and counted as scrolled to if it lay outside the window;
    False if the page was drawn anew first (nothing was clicked)."""
    if element is None:
        return False
    try:
        outside = not await in_window(page, element)
        await element.click()
    except PlaywrightError as error:
        if "not attached" in error.message:
            return False
        raise
    played.clicks += 1
    played.scrolled += outside
    return True


async def step(page: Page, played: Played) -> bool:
    """Do one thing the page offers now, if anything; whether it did."""
    if await page.query_selector("#dialog") is not None:
        if await page.query_selector("#send-discard") is not None:
            while await page.is_disabled("#send-discard"):
                more = "#dialog button[id^=discard-][id$='-more']:not([disabled])"
                if not await click(page, await page.query_selector(more), played):
                    return True
            return await click(page, await page.query_selector("#send-discard"), played)
        return await click(page, await page.query_selector("#dialog .buttons button"), played)
    spot = await page.query_selector("#board .spot")
    if spot is not None:
        return await click(page, spot, played)
    for kind in CLICKS:
        button = await page.query_selector(f"#actions button[data-kind={kind}]")
        if button is not None:
            return await click(page, button, played)
    return False


async def offer_once(
    page: Page, played: Played, shot: Callable[[], Awaitable[bytes]] | None
) -> bool:
    """Offer the bots one card of the hand for one of another resource, ``shot`` taken
    before it is sent; whether the hand held a card to offer."""
    held = {r: int(await page.inner_text(f"#hand .res.{r} .n")) for r in RESOURCES}
    give = next((r for r in RESOURCES if held[r]), None)
    if give is None:
        return False
    get = next(r for r in RESOURCES if r != give)
    for selector in ("#actions button[data-kind=offer_trade]", f"#give-{give}-more"):
        await click(page, await page.wait_for_selector(selector), played)
    await click(page, await page.wait_for_selector(f"#get-{get}-more"), played)
    if shot:
        await shot()
    await click(page, await page.wait_for_selector("#send-offer"), played)
    # The bots answer at once: the offer waits for the page's confirmation, or closes.
    await page.wait_for_selector("#trade, #log li:has-text('took your offer')", state="attached")
    return True


async def first_board_ms(page: Page) -> float:
    """Milliseconds from a reload of the page to its board's first hex drawn."""
    start = time.perf_counter()
    await page.reload()
    await page.wait_for_selector("#board polygon", state="attached")
    return (time.perf_counter() - start) * 1000


async def play(browser: Browser, url: str, size: str, points: int, shots: Path | None) -> Played:
    """One whole game at ``size`` against two heuristic bots, clicked through."""
    width, height = SIZES[size]
    context = await browser.new_context(viewport={"width": width, "height": height})
    page = await context.new_page()
    played = Played()

    def shot(phase: str) -> Callable[[], Awaitable[bytes]] | None:
        if shots is None:
            return None
        return lambda: page.screenshot(path=shots / f"table-{size}-{phase}.png")

    await page.goto(url)
    await page.fill("#name", "Ana")
    await page.select_option("#players", "3")
    await page.select_option("#bots", "2")
    await page.select_option("#bot-kind", "heuristic")
    await page.fill("#points", str(points))
    await page.select_option("#timer", "120")
    await page.click("#create-game")
    await page.click("#start")
    await page.wait_for_selector("#board .spot.vertex")
    played.first_board_ms = statistics.median([await first_board_ms(page) for _ in range(3)])
    await page.wait_for_selector("#board .spot.vertex")
    if setup := shot("setup"):
        await setup()
    start = time.perf_counter()
    turn_shot = offered = False
    counted: set[str] = set()
    while await page.query_selector("#game-over") is None:
        asked = await page.evaluate(ASKED)
        if asked is not None and asked["offer"] not in counted:  # an offer to this seat
            counted.add(asked["offer"])
            played.offers += 1
            played.offers_unshown += not asked["shown"]
        end = await page.query_selector("#actions button[data-kind=end_turn]")
        if end is not None and not turn_shot:
            turn_shot = True
            if turn := shot("turn"):
                await turn()
        if end is not None and not offered and await page.query_selector("#hand") is not None:
            offered = await offer_once(page, played, shot("offer"))
            if offered:
                continue
        if not await step(page, played):
            try:
                await page.wait_for_selector(ANYTHING, timeout=60_000)
            except PlaywrightError:
                break
    played.seconds = time.perf_counter() - start
    await page.wait_for_selector("#game-over")
    if last := shot("end"):
        await last()
    await context.close()
    return played


async def main(points: int, shots: Path | None) -> None:
    configure_logging("warning")
    if shots:
        shots.mkdir(parents=True, exist_ok=True)
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server, async_playwright() as pw:
        url = f"http://127.0.0.1:{srv.port_of(ws_server)}/"
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for size, (width, height) in SIZES.items():
                p = await play(browser, url, size, points, shots)
                print(
                    f"{size} {width}x{height}: clicks {p.clicks} scrolled {p.scrolled} "
                    f"scrolls_per_action {p.scrolled / max(p.clicks, 1):.3f} "
                    f"offers_to_person {p.offers} without_countdown {p.offers_unshown} "
                    f"game_s {p.seconds:.1f} first_board_ms {p.first_board_ms:.0f}"
                )
        finally:
            await browser.close()
    raw = {name: (WEBCLIENT / name).read_bytes() for name in SERVED}
    sizes = " ".join(f"{name} {len(data)}" for name, data in raw.items())
    print(
        f"page_weight_bytes {sum(map(len, raw.values()))} "
        f"gzipped {sum(len(gzip.compress(d)) for d in raw.values())} ({sizes})"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    parser.add_argument("--points", type=int, default=8, help="the game's victory points")
    parser.add_argument("--shots", type=Path, default=None, help="where to save screenshots")
    args = parser.parse_args()
    asyncio.run(main(args.points, args.shots))
