"""``hexhaven serve``'s event loop: uvloop's where it is installed, asyncio's on request or
where it is not."""

from __future__ import annotations

import asyncio
import sys

import pytest
import uvloop

from app.commands.serve import event_loop


def test_uvloop_is_the_default_and_asyncio_is_on_request() -> None:
    factory = event_loop("uvloop")
    assert factory is not None
    with asyncio.Runner(loop_factory=factory) as runner:
        assert isinstance(runner.get_loop(), uvloop.Loop)
    assert event_loop("asyncio") is None


def test_without_uvloop_the_server_says_so_and_runs_on_asyncio(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # an import of it now fails
    assert event_loop("uvloop") is None
    assert "uvloop is not installed" in capsys.readouterr().err
