"""Seat tokens on a person's machine: the commands read them from a file or standard input,
never from their command line, and keep the token of a seat they take in a file only its
owner can read, which the way back names instead of the token."""

from __future__ import annotations

import asyncio
import io
import json
import stat
import sys
from pathlib import Path
from typing import cast

import pytest

from app.bot import TellingAgent
from app.cli import main
from app.tokens import (
    TokenError,
    keep_seat,
    kept_seat,
    read_token,
    save_token,
    seat_file,
    write_private,
)
from bots.random_player import RandomAgent
from clients.sdk import Table
from clients.tui.app import HexhavenApp
from clients.tui.link import Link
from protocol import messages as m
from server.store import hash_token
from tests.server.client import Client
from tests.threaded_server import server_in_thread


def test_a_token_is_the_first_line_of_its_file_or_of_standard_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "seat.token"
    file.write_text("  abc-DEF_123 \nsomething else\n")
    assert read_token(str(file)) == "abc-DEF_123"
    monkeypatch.setattr(sys, "stdin", io.StringIO("from-stdin\n"))
    assert read_token("-") == "from-stdin"


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (None, "cannot read the token from {file}: No such file or directory"),
        ("\nlater\n", "no token in {file} (its first line is empty)"),
        ("x" * 129, "the first line of {file} is not a token (too long)"),
    ],
    ids=["missing", "empty", "too long"],
)
def test_a_file_without_a_token_is_said_so(tmp_path: Path, content: str | None, why: str) -> None:
    file = tmp_path / "seat.token"
    if content is not None:
        file.write_text(content)
    with pytest.raises(TokenError) as info:
        read_token(str(file))
    assert str(info.value) == why.format(file=file)


def test_a_saved_token_is_for_its_owner_alone(tmp_path: Path) -> None:
    file = tmp_path / "new" / "seat.token"
    save_token(file, "tok-1")
    assert file.read_text() == "tok-1\n" and stat.S_IMODE(file.stat().st_mode) == 0o600
    file.chmod(0o644)  # a file that was there, open to all
    save_token(file, "tok-2")
    assert file.read_text() == "tok-2\n" and stat.S_IMODE(file.stat().st_mode) == 0o600


def test_a_token_file_is_replaced_whole_or_not_at_all(tmp_path: Path) -> None:
    """A reader (another process waiting for the file) never finds part of a token: a
    write that fails half-way leaves the file as it was, and nothing beside it."""
    file = tmp_path / "seat.token"
    save_token(file, "tok-1")
    with pytest.raises(UnicodeEncodeError):
        write_private(file, "tok-\ud800\n")  # fails in the write, after the file is open
    assert file.read_text() == "tok-1\n"
    assert [p.name for p in tmp_path.iterdir()] == ["seat.token"]


def test_the_file_of_a_seat_stays_in_the_data_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    seats = tmp_path / "hexhaven" / "seats"
    assert seat_file("g7Qx", 2) == seats / "g7Qx-2.token"
    assert seat_file("../../.profile", 0) == seats / "_______profile-0.token"


def test_no_command_takes_a_token_on_its_command_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for argv in (
        ["bot", "--url", "ws://127.0.0.1:9", "--invite", "C", "--token", "T"],
        ["agent", "--url", "ws://127.0.0.1:9", "--game", "g", "--token", "T", "--cmd", "x"],
        ["join", "ws://127.0.0.1:9", "g", "--token", "T"],
    ):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2
        assert "unrecognized arguments: --token T" in capsys.readouterr().err


def test_a_token_file_needs_its_game_and_a_token(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "nope.token"
    url = "ws://127.0.0.1:9"
    assert main(["bot", "--url", url, "--token-file", str(missing)]) == 2
    assert capsys.readouterr().err == "hexhaven bot: --token-file needs --game\n"
    assert main(["bot", "--url", url, "--game", "g", "--token-file", str(missing)]) == 2
    assert capsys.readouterr().err == (
        f"hexhaven bot: cannot read the token from {missing}: No such file or directory\n"
    )
    agent = ["agent", "--url", url, "--game", "g", "--token-file", str(missing), "--cmd", "x"]
    assert main(agent) == 2
    assert "hexhaven agent: cannot read the token from" in capsys.readouterr().err
    assert main(["join", url, "g", "--token-file", str(missing)]) == 2
    assert "hexhaven join: cannot read the token from" in capsys.readouterr().err
    monkeypatch.setattr(sys, "stdin", io.StringIO("tok\n"))  # not a terminal
    assert main(["join", url, "g", "--token-file", "-"]) == 2
    assert "standard input is not one" in capsys.readouterr().err


async def _private_game(url: str) -> m.GameCreated:
    host = await Client.open(int(url.rsplit(":", 1)[1]))
    await host.hello()
    await host.send(m.CreateGame(options=m.GameOptions(players=2, private=True)))
    created: m.GameCreated = await host.expect(m.GameCreated)
    await host.close()
    return created


def test_join_keeps_the_token_in_a_file_and_comes_back_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``join`` by invite keeps the seat's token in the data directory and says how to
    come back with that file; ``join GAME --token-file FILE`` takes the seat back. Neither
    shows the token."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))

    backs: list[str | None] = []

    async def no_ui(app: HexhavenApp) -> None:  # the person quits at once
        link = cast(Link, app.transport)
        app.model.game, app.model.seat, app.model.token = link.game, 0, link.token
        backs.append(app.back)

    monkeypatch.setattr(HexhavenApp, "run_async", no_ui)
    with server_in_thread() as (url, server):
        created = asyncio.run(_private_game(url))
        game = created.game
        assert main(["join", url, str(created.invite), "--name", "Bo"]) == 0
        kept = tmp_path / "hexhaven" / "seats" / f"{game}-0.token"
        slot = server.rooms[game].seats[0]
        assert slot is not None and slot.name == "Bo"
        token = kept.read_text().splitlines()[0]
        assert hash_token(token) == slot.token_hash
        assert stat.S_IMODE(kept.stat().st_mode) == 0o600
        out = capsys.readouterr().out  # with the server thread's log lines
        lines = out.splitlines()
        at = lines.index("Your seat is kept. Back with:")
        assert lines[at + 1] == f"  hexhaven join {url} {created.invite}"
        assert f"  hexhaven join {url} {game} --token-file FILE)" in lines
        assert f"The token is in {kept}." in lines
        mine = tmp_path / "mine.token"
        mine.write_text(token + "\n")
        assert main(["join", url, game, "--token-file", str(mine)]) == 0
        again = capsys.readouterr().out
        assert f"  hexhaven join {url} {game} --token-file {mine}" in again.splitlines()
        assert token not in out + again
    assert backs == [  # what the help shows
        f"hexhaven join {url} {created.invite}",
        f"hexhaven join {url} {game} --token-file {mine}",
    ]


def test_the_same_join_comes_back_to_the_seat_after_a_closed_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A terminal killed in a started game (no farewell): ``hexhaven join URL CODE`` again
    takes the same seat back with the token kept for that code, and the help names that
    command; a kept token the server no longer knows is dropped and the invite used."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    seen: list[tuple[int | None, str | None, str | None]] = []

    async def killed(app: HexhavenApp) -> None:  # the terminal goes before any farewell
        link = cast(Link, app.transport)
        seen.append((link.session.seat, link.token, app.back))
        raise KeyboardInterrupt

    monkeypatch.setattr(HexhavenApp, "run_async", killed)

    async def scenario(url: str) -> None:
        host = await Client.open(int(url.rsplit(":", 1)[1]))
        await host.hello()
        options = m.GameOptions(players=2, private=True)
        await host.send(m.CreateGame(options=options))
        created = await host.expect(m.GameCreated)
        await host.send(m.JoinGame(game=created.game, name="Ana"))
        await host.expect(m.Joined)
        code = str(created.invite)
        assert await asyncio.to_thread(main, ["join", url, code, "--name", "Bo"]) == 130
        await host.send(m.StartGame(game=created.game))
        await host.expect(m.Prompt)
        assert await asyncio.to_thread(main, ["join", url, code]) == 130
        await host.close()

    with server_in_thread() as (url, server):
        asyncio.run(scenario(url))
        game = next(iter(server.rooms))
        slot = server.rooms[game].seats[1]
        assert slot is not None and slot.name == "Bo"
    assert len(seen) == 2
    (seat, token, back), (seat_again, token_again, back_again) = seen
    assert seat == seat_again == 1 and token == token_again and token is not None
    invite = back.split()[-1] if back else ""
    assert back == back_again == f"hexhaven join {url} {invite}"
    assert "Back in your seat of game" in capsys.readouterr().out
    kept = tmp_path / "hexhaven" / "seats" / f"{game}-1.token"
    assert kept.read_text().splitlines()[0] == token


def test_a_kept_seat_the_server_does_not_know_gives_way_to_the_invite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    seats: list[int | None] = []

    async def no_ui(app: HexhavenApp) -> None:
        seats.append(cast(Link, app.transport).session.seat)

    monkeypatch.setattr(HexhavenApp, "run_async", no_ui)
    with server_in_thread() as (url, _server):
        created = asyncio.run(_private_game(url))
        stale = keep_seat(url + "/", created.game, 1, "not-a-token", str(created.invite))
        assert kept_seat(url, str(created.invite)) is not None  # the same server
        assert main(["join", url, str(created.invite), "--name", "Bo"]) == 0
    assert seats == [0]
    err = capsys.readouterr().err
    assert f"the seat kept in {stale} is no longer yours" in err
    assert "that token is not a seat of this game" in err
    assert not stale.exists()


def test_a_bot_started_by_hand_says_the_way_back_to_its_seat(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With a file, the file; from standard input, that; with neither (or a file it could
    not write), the token itself, once, on standard output."""
    table = Table(game="g1", seat=2, token="tok-123")
    TellingAgent(RandomAgent(1), token_file="-").on_seated(table)
    TellingAgent(RandomAgent(1), token_file="my seat.token").on_seated(table)
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    TellingAgent(RandomAgent(1), save_to=blocked / "seat.token").on_seated(table)
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        "random: seat 2 of game g1; back to it with --game g1 --token-file - "
        "(its token on standard input)",
        "random: seat 2 of game g1; back to it with --game g1 --token-file 'my seat.token'",
        "random: seat 2 of game g1; its token is tok-123 (keep it secret): back to it with "
        "--game g1 --token-file FILE holding it, or - to give it on standard input",
    ]
    assert err.startswith(f"hexhaven bot: cannot save the token to {blocked / 'seat.token'}: ")


def test_play_keeps_its_game_from_the_start_for_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``hexhaven play`` writes what ``--resume`` needs before the UI draws: a terminal
    closed mid-game (no clean quit) leaves it behind; the help names ``--resume``."""
    from app.play import SAVED, game_options, play

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    saved = tmp_path / "hexhaven" / SAVED
    seen: list[tuple[bool, bool, str | None]] = []

    async def killed(app: HexhavenApp) -> None:
        link = cast(Link, app.transport)
        kept = json.loads(saved.read_text())
        seen.append((kept["game"] == link.game, kept["token"] == link.token, app.back))
        raise KeyboardInterrupt

    monkeypatch.setattr(HexhavenApp, "run_async", killed)
    options = game_options(
        players=2, bots=1, bot_kind="random", strength=None, vp=5, board="random", timer=None
    )
    assert play(options=options, name="you", resume=False) == 130
    assert seen == [(True, True, "hexhaven play --resume")]
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
