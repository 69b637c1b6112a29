"""The browser the web client's tests drive: Debian's Chromium, installed with apt-get the
first time it is missing (it takes about half a minute), driven by Playwright's Python
package; Playwright's own browsers are never downloaded."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, async_playwright

from server.app import HexhavenServer
from tests.debian import installed

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def chromium() -> str:
    """The path of the Chromium the tests drive, installed first if it is missing."""
    return installed(CHROMIUM, "chromium")


@pytest.fixture
async def browser(chromium: str) -> AsyncIterator[Browser]:
    async with async_playwright() as pw:
        launched = await pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            await launched.close()


@pytest.fixture
def shots() -> Path | None:
    """Where to save the documentation's screenshots: the folder ``HEXHAVEN_WEB_SCREENSHOTS``
    names (``docs/screenshots`` to remake them), or nowhere."""
    folder = os.environ.get("HEXHAVEN_WEB_SCREENSHOTS")
    return Path(folder) if folder else None


@pytest.fixture
async def server() -> AsyncIterator[str]:
    """A real server on a free port; its page's address."""
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        yield f"http://127.0.0.1:{srv.port_of(ws_server)}/"
