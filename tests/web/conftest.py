"""The browser the web client's tests drive: Debian's Chromium, installed with apt-get the
first time it is missing (it takes about half a minute), driven by Playwright's Python
package; Playwright's own browsers are never downloaded."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, async_playwright

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


def _install_chromium() -> None:
    """apt-get install chromium, timed; raises when it cannot be installed."""
    if shutil.which("apt-get") is None:
        raise RuntimeError(f"{CHROMIUM} is missing and there is no apt-get to install it")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    began = time.monotonic()
    subprocess.run(["apt-get", "update", "-q"], check=True, env=env, stdout=subprocess.DEVNULL)
    subprocess.run(
        ["apt-get", "install", "-y", "-q", "chromium"],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )
    print(f"installed chromium in {time.monotonic() - began:.1f} s", file=sys.stderr)


@pytest.fixture(scope="session")
def chromium() -> str:
    """The path of the Chromium the tests drive, installed first if it is missing."""
    if not CHROMIUM.exists():
        # The test workers each ask: one installs while the others wait for it.
        with open(Path(tempfile.gettempdir()) / "hexhaven-chromium.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not CHROMIUM.exists():
                _install_chromium()
    return str(CHROMIUM)


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
