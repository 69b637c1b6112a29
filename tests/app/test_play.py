"""``hexhaven play``'s bots: by default the server seats ``uct`` bots at the default
strength, ``--bot-kind`` still picks another kind, and ``--agent`` seats bots of any kind
(a trained policy among them) in the command's own process; a quit mid-game leaves the
terminal to the UI (every log goes to ``play.log``), and the UI names the engine's build."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from pathlib import Path
from typing import cast

import pytest

import engine.rules
from app.cli import main
from app.engine_build import COMPILED, INTERPRETED, is_compiled
from app.log import LOG_FILE_ENV
from app.play import PLAY_LOG, SAVED, game_options
from clients.tui.app import HexhavenApp
from clients.tui.link import Link
from protocol import messages as m
from server.store import Store
from tests.bots.test_policy import tiny_policy


def _played(argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Store, str]:
    """Run ``hexhaven play ARGV`` until the bot the server started for the game sits at
    the table (then quit as a closed terminal does); the store its embedded server wrote,
    and the game's id."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    games: list[str] = []

    async def closed(app: HexhavenApp) -> None:
        link = cast(Link, app.transport)
        seated = asyncio.Event()

        def deliver(message: object) -> None:
            if isinstance(message, m.Players) and any(
                p.bot and p.connected for p in message.players
            ):
                seated.set()

        running = asyncio.create_task(link.run(deliver, lambda _what, _why: None))
        try:
            async with asyncio.timeout(120):
                await seated.wait()
        finally:
            running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running
        games.append(str(link.game))
        raise KeyboardInterrupt

    monkeypatch.setattr(HexhavenApp, "run_async", closed)
    assert main(["play", *argv]) == 130
    [game] = games
    return Store(tmp_path / "hexhaven" / "games.db"), game


@pytest.mark.parametrize(
    ("argv", "spec"),
    [
        (["--bots", "3"], "expert:expert"),
        (["--bots", "1"], "uct:quick"),
        (["--bots", "1", "--strength", "easy"], "uct:easy"),
        (["--bots", "1", "--bot-kind", "heuristic"], "heuristic"),
    ],
    ids=["default", "two-players", "strength", "heuristic"],
)
def test_play_seats_the_bots_asked_for_and_the_strongest_by_default(
    argv: list[str], spec: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, game = _played(["--vp", "5", *argv], tmp_path, monkeypatch)
    try:
        stored = store.load(game)
        assert stored is not None and stored.started
        kind, _, strength = spec.partition(":")
        count = int(argv[1])
        assert stored.options.bots == [m.BotSeat(kind=kind, strength=strength or None)] * count
        bots = [bot for _, _, bot in stored.seats.values() if bot is not None]
        assert bots == [spec] * count  # the seats the server gave its bot processes
    finally:
        store.close()


def test_play_seats_agents_of_any_kind_in_its_own_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    weights = tiny_policy(tmp_path, players=3)
    argv = ["--agent", f"policy:weights={weights}", "--bots", "1", "--vp", "5"]
    store, game = _played(argv, tmp_path, monkeypatch)
    try:
        stored = store.load(game)
        assert stored is not None and stored.started
        assert stored.options.players == 3 and len(stored.options.bots) == 1
        names = {name for _, name, _ in stored.seats.values()}
        assert "tiny" in names  # the policy's own name, at a seat of its own
        saved = json.loads((tmp_path / "hexhaven" / SAVED).read_text())
        [agent] = saved["agents"]
        assert agent["spec"] == f"policy:weights={weights}" and agent["token"]
    finally:
        store.close()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--agent", "nobody"], "--agent nobody: unknown bot kind"),
        (["--agent", "heuristic", "--players", "4", "--bots", "1"], "4 seats are not you"),
        (["--agent", "policy"], "needs weights=FILE"),
    ],
)
def test_play_refuses_agents_it_cannot_seat(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", *argv]) == 2
    assert message in capsys.readouterr().err


def test_a_quit_mid_game_writes_nothing_but_its_farewell_and_the_logs_go_to_play_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """The UI runs headless (it writes nothing), quits with ``q`` ``y`` once the bots are
    seated and the game waits for the person's move; the bot host's seats then lose their
    connections as the embedded server stops, which they log."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.delenv(LOG_FILE_ENV, raising=False)
    notes: list[str] = []

    async def quit_mid_game(app: HexhavenApp) -> None:
        model = app.model

        def mid_game() -> bool:
            bots = [p for p in model.players if p.bot]
            return model.prompt is not None and len(bots) == 2 and all(p.connected for p in bots)

        async with app.run_test(size=(100, 30)) as pilot:
            async with asyncio.timeout(120):
                while not mid_game():
                    await pilot.pause(0.02)
            notes.extend(line.text for line in model.log if line.kind == "info")
            await pilot.press("q")
            await pilot.press("y")

    monkeypatch.setattr(HexhavenApp, "run_async", quit_mid_game)
    assert main(["play", "--bots", "2", "--vp", "5"]) == 0
    out, err = capfd.readouterr()
    assert (out, err) == ("The game is saved: `hexhaven play --resume` goes on with it.\n", "")
    build = COMPILED if is_compiled(engine.rules) else INTERPRETED
    assert build in notes  # in the game log the UI shows
    lines = (tmp_path / "hexhaven" / PLAY_LOG).read_text().splitlines()
    logged = [json.loads(line) for line in lines]
    assert logged[0]["event"] == "play.started" and logged[0]["engine"] == build
    events = {entry["event"] for entry in logged}
    assert "agent.connection_lost" in events  # the bot host's, in the file, not the terminal
    assert LOG_FILE_ENV not in os.environ


@pytest.mark.parametrize(
    ("players", "kind", "strength", "seated"),
    [
        (4, None, None, ("expert", "expert")),  # a network is shipped for four players
        (3, None, None, ("uct", "quick")),  # and for no other count
        (2, None, None, ("uct", "quick")),
        (4, None, "hard", ("uct", "hard")),  # a strength names its kind
        (3, None, "fast", ("expert", "fast")),
        (4, "uct", None, ("uct", "quick")),
        (4, "heuristic", None, ("heuristic", None)),
    ],
)
def test_the_default_bots_are_the_strongest_that_play_the_player_count(
    players: int, kind: str | None, strength: str | None, seated: tuple[str, str | None]
) -> None:
    options = game_options(
        players=players, bots=1, bot_kind=kind, strength=strength, vp=10, board="random", timer=None
    )
    assert options.bots == [m.BotSeat(kind=seated[0], strength=seated[1])]
