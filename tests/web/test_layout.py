"""One screen of play: on a 1280x800 laptop and on a 390x844 phone, during a game against
bots, the controls to roll, to end the turn and to answer an offer lie inside the window
without scrolling; whose turn it is, the clock and the dice are in sight; the phone holds
its moves in a bar fixed at the bottom of the screen."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from tests.web.test_browser import (
    PHONE,
    create_game,
    offered_to_a_friend,
    open_page,
    play_until,
    script_errors,
)

LAPTOP = {"width": 1280, "height": 800}


async def in_window(page: Page, selector: str) -> bool:
    """Whether the element ``selector`` names comes to lie wholly inside the window as the
    page is scrolled now (it is never scrolled here): waited for while the page renders
    what the bots just did, for up to five seconds."""
    await page.wait_for_selector(selector)
    try:
        await page.wait_for_function(
            """selector => {
                const box = document.querySelector(selector)?.getBoundingClientRect();
                return !!box && box.left >= 0 && box.top >= 0
                    && box.right <= window.innerWidth && box.bottom <= window.innerHeight;
            }""",
            arg=selector,
            timeout=5000,
        )
    except PlaywrightTimeout:
        return False
    return True


async def not_scrolled(page: Page) -> bool:
    scrolled: bool = await page.evaluate("window.scrollX === 0 && window.scrollY === 0")
    return scrolled


async def roll_in_sight(page: Page) -> None:
    """Play until the page offers a roll, and check it is in the window without scrolling,
    with whose turn it is and the clock beside it."""
    await page.evaluate("window.scrollTo(0, 0)")
    await play_until([page], "#actions button[data-kind=roll_dice]")
    await page.evaluate("window.scrollTo(0, 0)")
    assert await in_window(page, "#actions button[data-kind=roll_dice]")
    assert await in_window(page, "#whose")
    assert "to roll" in await page.inner_text("#whose")


@pytest.mark.parametrize("size", [LAPTOP, PHONE], ids=["laptop", "phone"])
async def test_the_moves_whose_turn_and_the_dice_are_in_the_window(
    browser: Browser, server: str, size: dict[str, int]
) -> None:
    page = await open_page(browser, server, size)
    await create_game(page, name="Ana", players=3, bots=2, points=10, timer="120")
    await page.click("#start")
    await page.wait_for_selector("#board .spot.vertex")
    await roll_in_sight(page)
    await page.wait_for_selector("#turn .timer:has-text('s left')")
    await page.click("#actions button[data-kind=roll_dice]")
    end = "#actions button[data-kind=end_turn]"
    await play_until([page], end)
    await page.evaluate("window.scrollTo(0, 0)")
    for shown in (end, "#whose", "#dice", "#actions button[data-kind=offer_trade]"):
        assert await in_window(page, shown), shown
    assert await page.eval_on_selector("#dice", "e => e.querySelectorAll('.die').length") == 2
    afford = await page.inner_text("#afford")
    assert afford.startswith("You can afford")
    assert await page.query_selector("#costs li[data-cost=city]") is not None
    bar = await page.eval_on_selector("#actions", "e => getComputedStyle(e).position")
    if size is PHONE:
        assert bar == "fixed"  # the bar of moves at the bottom of the screen
        actions = await page.wait_for_selector("#actions")
        assert actions is not None
        box = await actions.bounding_box()
        assert box is not None and box["y"] + box["height"] == pytest.approx(size["height"], abs=1)
        # The other panels open one at a time.
        assert not await page.is_visible("#log")
        await page.click(".tabs button[aria-controls=panel-log]")
        await page.wait_for_selector("#log", state="visible")
        assert not await page.is_visible("#hand")
    else:
        assert bar != "fixed"
        assert await page.evaluate("document.documentElement.scrollHeight") <= size["height"]
        assert await in_window(page, "#log")
        assert await in_window(page, "#hand")
    assert await not_scrolled(page)
    await page.click(end)
    await roll_in_sight(page)
    assert script_errors(page) == []


@pytest.mark.parametrize("size", [LAPTOP, PHONE], ids=["laptop", "phone"])
async def test_an_offer_and_its_answers_are_in_the_window(
    browser: Browser, server: str, size: dict[str, int]
) -> None:
    host, friend = await offered_to_a_friend(
        browser, server, offer_window="60", host_size=size, friend_size=size
    )
    await friend.wait_for_selector("#actions button[data-kind=decline_trade]")
    await friend.evaluate("window.scrollTo(0, 0)")
    for shown in (
        "#trade",
        "#actions button[data-kind=decline_trade]",
        "#actions button[data-kind=counter_trade]",
    ):
        assert await in_window(friend, shown), shown
    accept = await friend.query_selector("#actions button[data-kind=accept_trade]")
    if accept is not None:
        assert await in_window(friend, "#actions button[data-kind=accept_trade]")
    assert "Closes in" in await friend.inner_text("#trade")
    assert await in_window(host, "#trade")
    await friend.click("#actions button[data-kind=decline_trade]")
    await host.wait_for_selector("#log li:has-text('Nobody took your offer')", state="attached")
    for page in (host, friend):
        assert script_errors(page) == []


async def test_a_whole_game_is_played_by_clicking_on_a_phone(browser: Browser, server: str) -> None:
    """From the new-game form to the end, every move made by clicking what the phone's page
    offers (its bar of moves, the board, its dialogs)."""
    page = await open_page(browser, server, PHONE)
    await create_game(page, name="Ana", players=3, bots=2, points=3)
    await page.click("#start")
    await play_until([page], "#game-over")
    assert "matches the hash published at the start" in await page.inner_text("#seed-check")
    assert script_errors(page) == []
