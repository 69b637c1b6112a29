"""The terminal client in a real terminal (tmux): ``hexhaven play`` opens, a settlement and
a road are placed from the keyboard, and quitting keeps the game for ``--resume``; a
``hexhaven join`` whose terminal is killed comes back to its seat with the same command."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.debian import installed

TMUX = ("tmux", "-L", f"hexhaven-test-{os.getpid()}")
"""tmux on a server of this test process's own: the default one is shared, and it exits
when its last session ends, under another process's test starting one."""


@pytest.fixture(scope="module", autouse=True)
def tmux() -> Iterator[str]:
    """tmux, installed first if it is missing, its server held up by a session of its own.

    A tmux server exits when its last session is killed; a test's next ``new-session`` sent
    while it is exiting fails with "server exited unexpectedly". The keeper session is
    never killed by a test, so the server stays up until the module is done."""
    path = installed(Path("/usr/bin/tmux"), "tmux")
    subprocess.run([*TMUX, "new-session", "-d", "-s", "keeper", "sleep 3600"], check=True)
    try:
        yield path
    finally:
        subprocess.run([*TMUX, "kill-server"], check=False, capture_output=True)


def _screen(session: str) -> str:
    out = subprocess.run(
        [*TMUX, "capture-pane", "-t", session, "-p"], capture_output=True, text=True, check=False
    )
    return out.stdout


def _wait_for(session: str, text: str, seconds: float = 30.0) -> str:
    deadline = time.monotonic() + seconds
    screen = ""
    while time.monotonic() < deadline:
        screen = _screen(session)
        if text in screen:
            return screen
        time.sleep(0.2)
    raise AssertionError(f"{text!r} never appeared; the screen was:\n{screen}")


def test_hexhaven_play_in_a_real_terminal(tmp_path: Path) -> None:
    session = f"hexhaven-test-{uuid.uuid4().hex[:8]}"
    hexhaven = Path(sys.executable).with_name("hexhaven")
    # The environment goes in the command: a tmux server already running would not pass
    # this process's environment on to the new session, and COLUMNS (set under pytest)
    # would override the terminal's real size.
    data = shlex.quote(str(tmp_path))
    command = (
        f"env -u COLUMNS -u LINES XDG_DATA_HOME={data} TERM=xterm-256color "
        f"{hexhaven} play --bots 1 --vp 5; sleep 5"
    )
    subprocess.run(
        [*TMUX, "new-session", "-d", "-s", session, "-x", "100", "-y", "30", command],
        check=True,
    )
    try:
        subprocess.run(
            [*TMUX, "resize-window", "-t", session, "-x", "100", "-y", "30"],
            check=False,
            capture_output=True,
        )
        _wait_for(session, "Place a settlement")
        subprocess.run([*TMUX, "send-keys", "-t", session, "Enter"], check=True)
        _wait_for(session, "You built a settlement at")
        _wait_for(session, "Place a road")
        subprocess.run([*TMUX, "send-keys", "-t", session, "Enter"], check=True)
        screen = _wait_for(session, "You built a road ")
        assert "1 VP" in screen and "? help" in screen
        subprocess.run([*TMUX, "send-keys", "-t", session, "q"], check=True)
        _wait_for(session, "Leave the game?")
        subprocess.run([*TMUX, "send-keys", "-t", session, "y"], check=True)
        _wait_for(session, "hexhaven play --resume")
        assert (tmp_path / "hexhaven" / "games.db").exists()
        assert (tmp_path / "hexhaven" / "last_game.json").exists()
    finally:
        subprocess.run([*TMUX, "kill-session", "-t", session], check=False, capture_output=True)


def test_hexhaven_replay_in_a_small_real_terminal(tmp_path: Path) -> None:
    from server.store import Store
    from tests.clients.test_replay import store_game

    db = tmp_path / "games.db"
    store = Store(db)
    length = store_game(store, "done1", seed=3)
    store.close()
    session = f"hexhaven-test-{uuid.uuid4().hex[:8]}"
    hexhaven = Path(sys.executable).with_name("hexhaven")
    command = (
        f"env -u COLUMNS -u LINES TERM=xterm-256color "
        f"{hexhaven} replay done1 --db {shlex.quote(str(db))} --seat 0; sleep 5"
    )
    subprocess.run(
        [*TMUX, "new-session", "-d", "-s", session, "-x", "80", "-y", "24", command], check=True
    )
    try:
        subprocess.run(
            [*TMUX, "resize-window", "-t", session, "-x", "80", "-y", "24"],
            check=False,
            capture_output=True,
        )
        _wait_for(session, f"action 0 of {length}")
        screen = _wait_for(session, "Hand (0)")  # the compact hand of 80 columns
        assert "[Ana's view]" in screen
        subprocess.run([*TMUX, "send-keys", "-t", session, "Right", "Right", "n"], check=True)
        _wait_for(session, f"action 3 of {length}")
        subprocess.run([*TMUX, "send-keys", "-t", session, "End"], check=True)
        screen = _wait_for(session, f"action {length} of {length}")
        assert " won" in screen
        subprocess.run([*TMUX, "send-keys", "-t", session, "q"], check=True)
        deadline = time.monotonic() + 10
        while "Replay" in _screen(session) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert "Replay" not in _screen(session)
    finally:
        subprocess.run([*TMUX, "kill-session", "-t", session], check=False, capture_output=True)


def test_a_killed_terminal_comes_back_to_its_seat_with_the_same_join(tmp_path: Path) -> None:
    """``hexhaven join URL CODE`` in a terminal that is then killed mid-game (no farewell):
    the same command in a new terminal takes the seat back, and its help names it."""
    import asyncio

    from protocol import messages as m
    from tests.server.client import Client
    from tests.threaded_server import server_in_thread

    hexhaven = Path(sys.executable).with_name("hexhaven")
    data = shlex.quote(str(tmp_path))

    def terminal(session: str, args: str) -> None:
        command = (
            f"env -u COLUMNS -u LINES XDG_DATA_HOME={data} TERM=xterm-256color "
            f"{hexhaven} {args}; sleep 5"
        )
        subprocess.run(
            [*TMUX, "new-session", "-d", "-s", session, "-x", "80", "-y", "24", command],
            check=True,
        )
        subprocess.run(
            [*TMUX, "resize-window", "-t", session, "-x", "80", "-y", "24"],
            check=False,
            capture_output=True,
        )

    def kill(session: str) -> None:
        subprocess.run([*TMUX, "kill-session", "-t", session], check=False, capture_output=True)

    async def scenario(url: str) -> None:
        host = await Client.open(int(url.rsplit(":", 1)[1]))
        await host.hello()
        await host.send(m.CreateGame(options=m.GameOptions(players=2, private=True)))
        created = await host.expect(m.GameCreated)
        await host.send(m.JoinGame(game=created.game, name="Ana"))
        await host.expect(m.Joined)
        first, second = (f"hexhaven-test-{uuid.uuid4().hex[:8]}" for _ in range(2))
        join = f"join {url} {created.invite}"
        try:
            terminal(first, f"{join} --name Bo")
            await asyncio.to_thread(_wait_for, first, "waiting to start")
            await host.send(m.StartGame(game=created.game))
            await host.expect(m.Prompt)
            await asyncio.to_thread(_wait_for, first, "to act: Ana")
            kill(first)  # the terminal goes, and the client with it
            terminal(second, join)
            await asyncio.to_thread(_wait_for, second, "to act: Ana")
            subprocess.run([*TMUX, "send-keys", "-t", second, "?"], check=True)
            screen = await asyncio.to_thread(_wait_for, second, "Back to this seat")
            assert f"hexhaven {join}" in screen
            assert "watch it instead" not in screen
        finally:
            kill(first)
            kill(second)
            await host.close()

    with server_in_thread() as (url, server):
        asyncio.run(scenario(url))
        room = next(iter(server.rooms.values()))
        assert [s.name for s in room.seats if s is not None] == ["Ana", "Bo"]
