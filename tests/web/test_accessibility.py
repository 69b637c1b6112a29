"""The page checked by an accessibility checker (axe-core, in Chromium) in the lobby and
in a game, on a laptop and on a phone, and every control it draws reachable by keyboard."""

from __future__ import annotations

from typing import Any

import pytest
from axe_playwright_python.async_playwright import Axe
from playwright.async_api import Browser, Page

from tests.web.test_browser import PHONE, WIDE, create_game, open_page, play_until, script_errors

SERIOUS = ("serious", "critical")

_UNREACHABLE = """() => [...document.querySelectorAll(
  'button:not([disabled]), input, select, textarea, a[href], #board .spot')]
  .filter(e => e.tabIndex < 0 || e.closest('[inert]'))
  .map(e => e.outerHTML.slice(0, 120))"""


async def _violations(page: Page) -> list[tuple[str, str, list[str]]]:
    """The checker's serious and critical findings on the page now: (rule, impact, the
    first elements it names)."""
    results = await Axe().run(page)
    found: list[dict[str, Any]] = results.response["violations"]
    return [
        (v["id"], v["impact"], [n["html"][:120] for n in v["nodes"][:3]])
        for v in found
        if v["impact"] in SERIOUS
    ]


@pytest.mark.parametrize("size", [WIDE, PHONE], ids=["laptop", "phone"])
async def test_the_page_has_no_serious_accessibility_violations(
    browser: Browser, server: str, size: dict[str, int]
) -> None:
    page = await open_page(browser, server, size)
    await page.wait_for_selector("#create")
    assert await _violations(page) == []
    assert await page.evaluate(_UNREACHABLE) == []
    await create_game(page, name="Ana", players=3, bots=2, points=5)
    assert await _violations(page) == []  # the waiting room
    await page.click("#start")
    await page.wait_for_selector("#board .spot.vertex")
    assert await _violations(page) == []  # choosing a spot on the board
    assert await page.evaluate(_UNREACHABLE) == []
    await play_until([page], "#actions button[data-kind=end_turn]")
    assert await _violations(page) == []  # the turn's moves, the hand, the log
    assert await page.evaluate(_UNREACHABLE) == []
    await page.click("#actions button[data-kind=offer_trade]")
    await page.wait_for_selector("#dialog")
    assert await _violations(page) == []  # a dialog
    assert await page.evaluate(_UNREACHABLE) == []
    assert script_errors(page) == []


async def test_after_a_spot_is_clicked_enter_chooses_the_next_one(
    browser: Browser, server: str
) -> None:
    """A settlement placed with the mouse: the road spots that follow have the focus, so
    Enter places the road with no Tab first."""
    page = await open_page(browser, server)
    await create_game(page, name="Ana", players=2, bots=1, points=5)
    await page.click("#start")
    await page.click("#board .spot.vertex")
    await page.wait_for_selector("#board .spot.edge")
    await page.wait_for_function("document.activeElement?.matches('#board .spot.edge')")
    await page.keyboard.press("Enter")
    await page.wait_for_selector("#board .road.seat-0")
    assert script_errors(page) == []
