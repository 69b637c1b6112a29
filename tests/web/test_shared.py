"""The web client where two ``hexhaven serve`` processes share one PostgreSQL database: the
page served by B lists a game played by A, and its invite and watch links, opened at B,
and its lobby's Watch button follow the server's ``moved`` answer to A's page, where the seat
is taken and played and the game watched; a private game's invite link (its code) opened at
B seats its friend at A too."""

from __future__ import annotations

from playwright.async_api import Browser, Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from tests.server.test_restart import free_port, server_process
from tests.web.test_browser import (
    create_game,
    open_page,
    play_until,
    refusals,
    script_errors,
    sockets_of,
)


async def listed(page: Page, game: str) -> None:
    """Wait until the page's lobby lists ``game``, asking for the lobby again until then."""
    for _ in range(30):
        try:
            await page.wait_for_selector(f"#games li:has-text('{game}')", timeout=500)
            return
        except PlaywrightTimeout:
            await page.click("button:has-text('Refresh')")
    raise AssertionError(f"the lobby never listed {game}")


async def test_a_game_played_at_one_process_is_joined_and_watched_through_the_other(
    browser: Browser, postgres_url: str
) -> None:
    port_a, port_b = free_port(), free_port()
    at_a, at_b = f"http://127.0.0.1:{port_a}/", f"http://127.0.0.1:{port_b}/"
    async with server_process(postgres_url, port_a), server_process(postgres_url, port_b):
        host = await open_page(browser, at_a)
        game = await create_game(host, name="Ana", players=3, bots=1, points=10, private=False)
        lobby = await open_page(browser, at_b)
        await listed(lobby, game)

        # B's invite link: the seat is asked for at B, which answers moved; the page goes
        # to A's page, sits down there under the name given at B, and plays from there.
        friend = await open_page(browser, f"{at_b}#join={game}")
        await friend.fill("#name", "Bo")
        await friend.click("#take-seat")
        await friend.wait_for_selector("header:has-text('you are')")
        assert friend.url == f"{at_a}#play={game}"
        assert sockets_of(friend) == [f"ws://127.0.0.1:{port_b}/", f"ws://127.0.0.1:{port_a}/"]
        assert (await friend.inner_text("header .badge")) == "2"
        await host.wait_for_selector(".players:has-text('Bo')")
        await host.click("#start")
        await play_until([host, friend], "#actions button[data-kind=end_turn]")
        await friend.wait_for_selector("#board .settlement.seat-1")
        await friend.wait_for_selector("#board .road.seat-2", state="attached")  # the bot's

        # B's watch link watches the game at A.
        watcher = await open_page(browser, f"{at_b}#watch={game}")
        await watcher.wait_for_selector("header:has-text('watching')")
        assert watcher.url == f"{at_a}#watch={game}"
        assert sockets_of(watcher)[-1] == f"ws://127.0.0.1:{port_a}/"
        await watcher.wait_for_selector("#board .settlement.seat-1")
        # So does the Watch button of B's lobby.
        await lobby.click(f"#games li:has-text('{game}') button:has-text('Watch')")
        await lobby.wait_for_selector("header:has-text('watching')")
        assert lobby.url == f"{at_a}#watch={game}"
        await lobby.wait_for_selector("#board .settlement.seat-1", state="attached")

        # A private game's invite link, opened at B: the code is found at A, and the seat
        # is taken there with the code (its id alone would be refused).
        other = await open_page(browser, at_a)
        private = await create_game(other, name="Cy", players=2, bots=0, points=10)
        link = await other.get_attribute("#invite-link", "value")
        assert link is not None and link.startswith(f"{at_a}#invite=")
        invited = await open_page(browser, link.replace(at_a, at_b))
        # On arrival the page asks B what game the code opens, and follows it to A.
        await invited.wait_for_url(f"{at_a}#invite=*")
        await invited.wait_for_selector("#take-seat")
        await invited.fill("#name", "Di")
        await invited.click("#take-seat")
        await invited.wait_for_selector("header:has-text('you are')")
        assert invited.url == f"{at_a}#play={private}"
        await other.wait_for_selector(".players:has-text('Di')")
        for page in (host, lobby, friend, watcher, other, invited):
            assert script_errors(page) == []
            assert await refusals(page) == []
