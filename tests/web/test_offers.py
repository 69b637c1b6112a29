"""An offer never stops the game: nobody answers it on a phone, and when its window ends it
is declined for them and the offerer's turn goes on."""

from __future__ import annotations

from playwright.async_api import Browser

from tests.web.test_browser import (
    offered_to_a_friend,
    refusals,
    script_errors,
)


async def test_an_offer_nobody_answers_closes_when_its_window_ends(
    browser: Browser, server: str
) -> None:
    host, friend = await offered_to_a_friend(browser, server, offer_window="10")

    # Everyone sees how long the offer stays open; the friend says nothing.
    await friend.wait_for_selector("#trade:has-text('Closes in')")
    await host.wait_for_selector("#trade:has-text('Closes in')")
    assert await friend.query_selector("#actions button[data-kind=decline_trade]") is not None
    await host.wait_for_selector("#log li:has-text('Nobody took your offer')", timeout=20_000)
    await friend.wait_for_selector("#trade", state="detached")
    await host.wait_for_selector("#actions button[data-kind=end_turn]")  # the turn goes on
    assert "away" not in await host.inner_text(".players")  # declining by silence is no timeout
    for page in (host, friend):
        assert script_errors(page) == []
        assert await refusals(page) == []
