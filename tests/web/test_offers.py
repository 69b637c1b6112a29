"""An offer never stops the game: nobody answers it on a phone, and when its window ends it
is declined for them and the offerer's turn goes on."""

from __future__ import annotations

from playwright.async_api import Browser

from tests.web.test_browser import (
    PHONE,
    RESOURCES,
    create_game,
    hand_of,
    open_page,
    play_until,
    refusals,
    script_errors,
)


async def test_an_offer_nobody_answers_closes_when_its_window_ends(
    browser: Browser, server: str
) -> None:
    host = await open_page(browser, server)
    await create_game(host, name="Ana", players=2, bots=0, points=10, offer_window="10")
    link = await host.get_attribute("#invite-link", "value")
    assert link is not None
    friend = await open_page(browser, link, PHONE)
    await friend.fill("#name", "Bo")
    await friend.click("#take-seat")
    await friend.wait_for_selector("header:has-text('you are')")
    await host.click("#start")
    await play_until([host, friend], "#actions button[data-kind=end_turn]")
    while not any((await hand_of(host)).values()):  # a card to offer, on a later turn if need be
        await host.click("#actions button[data-kind=end_turn]")
        await play_until([host, friend], "#actions button[data-kind=end_turn]")
    held = await hand_of(host)
    give = next(r for r in RESOURCES if held[r])
    get = next(r for r in RESOURCES if r != give)
    await host.click("#actions button[data-kind=offer_trade]")
    await host.click(f"#give-{give}-more")
    await host.click(f"#get-{get}-more")
    await host.click("#send-offer")

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
