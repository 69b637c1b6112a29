"""Mistakes a new user makes with the ``hexhaven`` command (a server URL without ws://, a
database file that is missing or in a missing folder, a port already taken) end with one
plain line and an exit code, never a traceback; ``host`` and ``replay`` say exactly what to
type next."""

from __future__ import annotations

import argparse
import contextlib
import shlex
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.cli import build_parser, main
from app.play import invite_lines
from clients.tui.app import HexhavenApp
from clients.urls import page_url, server_url_problem
from protocol import messages as m
from server.app import HexhavenServer
from server.store import Store
from tests.clients.test_replay import store_game
from tests.server.client import Client
from tests.threaded_server import server_in_thread

ROOT = Path(__file__).resolve().parents[2]


# --- server URLs ------------------------------------------------------------------------
def _with_url(command: str, url: str) -> list[str]:
    """The argv of ``command`` given ``url`` as its server."""
    return {
        "host": ["host", url],
        "join": ["join", url, "CODE"],
        "watch": ["watch", url, "g1"],
        "replay": ["replay", url, "g1"],
        "bot": ["bot", "--url", url, "--invite", "CODE"],
        "agent": ["agent", "--url", url, "--invite", "CODE", "--cmd", "true"],
        "arena": ["arena", "--server", url, "--agents", "random,random"],
    }[command]


COMMANDS = ("host", "join", "watch", "replay", "bot", "agent", "arena")


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(
    ("url", "example"),
    [
        ("127.0.0.1:8765", "ws://127.0.0.1:8765"),
        ("http://example.org:8765", "ws://example.org:8765"),
        ("https://example.org", "wss://example.org"),
    ],
)
def test_a_url_without_ws_is_one_line_naming_it_and_the_form_that_works(
    command: str, url: str, example: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_with_url(command, url)) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"hexhaven {command}: {url!r} is not a server URL: it must start with ws:// or "
        f"wss://, e.g. {example}"
    )


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("ws://", "it names no host"),
        ("ws://127.0.0.1:port", "its port must be a number from 1 to 65535"),
        ("ws://127.0.0.1:99999", "its port must be a number from 1 to 65535"),
    ],
)
@pytest.mark.parametrize("command", ["join", "bot"])
def test_a_ws_url_that_cannot_be_used_is_refused_before_connecting(
    command: str, url: str, why: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_with_url(command, url)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{url!r} is not a server URL: {why}" in err


def test_good_urls_pass_and_a_bad_one_gets_a_usable_example() -> None:
    for url in ("ws://127.0.0.1:8765", "wss://example.org/hexhaven", "ws://[::1]:8765"):
        assert server_url_problem(url) is None
    problem = server_url_problem("no server")
    assert problem is not None and problem.endswith("e.g. ws://127.0.0.1:8765")


@contextlib.contextmanager
def _not_a_websocket_server() -> Iterator[str]:
    """A URL of 127.0.0.1 where a plain HTTP server answers 404 to everything."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.2)
    stop = threading.Event()

    def answer() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(5)
                with contextlib.suppress(OSError):
                    conn.recv(4096)
                    conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")

    thread = threading.Thread(target=answer, name="not-websocket")
    thread.start()
    try:
        yield f"ws://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(10)
        listener.close()


def test_a_server_that_does_not_speak_websocket_is_reported_not_raised(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with _not_a_websocket_server() as url:
        assert main(["join", url, "CODE"]) == 2
        assert f"hexhaven: cannot connect to {url}: " in capsys.readouterr().err
        assert main(["replay", url, "g1"]) == 2
        assert f"hexhaven replay: cannot connect to {url}: " in capsys.readouterr().err


# --- databases --------------------------------------------------------------------------
def test_verify_reports_a_missing_file_and_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "mistyped.db"
    assert main(["verify", "g1", "--db", str(db)]) == 2
    assert capsys.readouterr().err.strip() == f"hexhaven verify: no such file: {db}"
    assert list(tmp_path.iterdir()) == []


def test_verify_and_replay_report_a_file_that_is_not_a_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database\n")
    assert main(["verify", "g1", "--db", str(notes)]) == 2
    assert f"hexhaven verify: cannot open the database {notes}: " in capsys.readouterr().err
    assert main(["replay", "--db", str(notes)]) == 2
    assert f"hexhaven replay: cannot open the database {notes}: " in capsys.readouterr().err
    assert notes.read_text() == "not a database\n"


@pytest.mark.parametrize("argv", [["replay"], ["replay", "g1"]])
def test_replay_reports_a_missing_db_and_creates_nothing(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "mistyped.db"
    assert main([*argv, "--db", str(db)]) == 2
    assert capsys.readouterr().err.strip() == f"hexhaven replay: no such file: {db}"
    assert list(tmp_path.iterdir()) == []


def test_serve_reports_a_db_folder_that_does_not_exist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "no" / "such"
    db = folder / "games.db"
    assert main(["serve", "--port", "0", "--db", str(db), "--log-level", "warning"]) == 2
    err = capsys.readouterr().err.strip()
    assert (
        err == f"hexhaven serve: cannot open the database {db}: the folder {folder} does not exist"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["serve", "--bot-workers", "0"], "hexhaven serve: --bot-workers takes a count of 1"),
        (["serve", "--bot-search-seconds", "0"], "hexhaven serve: --bot-search-seconds takes"),
        (
            ["bot-host", "--url", "ws://127.0.0.1:1", "--workers", "0"],
            "hexhaven bot-host: --workers takes a count of 1",
        ),
    ],
)
def test_bot_host_settings_out_of_range_are_refused(
    argv: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*argv, *(["--db", str(tmp_path / "g.db")] if argv[0] == "serve" else [])]) == 2
    assert capsys.readouterr().err.startswith(said)
    assert list(tmp_path.iterdir()) == []


def test_serve_reports_a_port_already_taken(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        serve = [
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--db",
            str(tmp_path / "g.db"),
        ]
        done = subprocess.run(
            [sys.executable, "-m", "app.cli", *serve],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"hexhaven serve: cannot listen on 127.0.0.1:{port}: the port is already in use "
        "(by another server?); choose another with --port"
    )
    assert list(tmp_path.iterdir()) == []  # no empty database left for a server that never ran


@pytest.mark.parametrize("port", ["99999", "-5", "http"])
def test_serve_refuses_a_port_out_of_range(
    port: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--port", port, "--db", str(tmp_path / "g.db")])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "argument --port: a port is " in err and port in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("limit", "said"),
    [
        ("gmaes=5", "no limit 'gmaes'; the limits are"),
        ("chat=10", "PER_MINUTE/BURST"),
        ("games", "--limit takes NAME=VALUE"),
    ],
)
def test_serve_refuses_a_limit_it_does_not_know_or_cannot_read(
    limit: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["serve", "--port", "0", "--db", str(tmp_path / "g.db"), "--limit", limit])
    assert code == 2
    assert said in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # refused before anything was made


def test_verify_names_a_missing_game_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "games.db"
    Store(db).close()
    assert main(["verify", "nope", "--db", str(db)]) == 2
    out = capsys.readouterr()
    assert (out.out, out.err) == ("", f"hexhaven verify: no game 'nope' in {db}\n")


# --- what to type next ------------------------------------------------------------------
def _hint(out: str) -> list[str]:
    line = next(x for x in out.splitlines() if x.startswith("Replay one with: "))
    return shlex.split(line.removeprefix("Replay one with: "))


def test_the_replay_hint_names_the_db_it_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "my games" / "old.db"
    db.parent.mkdir()
    store = Store(db)
    store_game(store, "done1", seed=3)
    store.close()
    assert main(["replay", "--db", str(db)]) == 0
    hint = _hint(capsys.readouterr().out)
    assert hint == ["hexhaven", "replay", "done1", "--db", str(db)]
    assert build_parser().parse_args(hint[1:]).db == str(db)


def test_the_replay_hint_leaves_out_the_default_db(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    (tmp_path / "hexhaven").mkdir()
    store = Store(tmp_path / "hexhaven" / "games.db")
    store_game(store, "done1", seed=3)
    store.close()
    assert main(["replay"]) == 0
    assert _hint(capsys.readouterr().out) == ["hexhaven", "replay", "done1"]


def test_replay_before_any_local_game_lists_none_and_a_game_asked_for_says_where_to_look(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    db = tmp_path / "hexhaven" / "games.db"
    assert main(["replay"]) == 0  # no store yet is no games, as an empty store
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"Finished games in {db}:" and out[1].startswith("  none yet: ")
    assert main(["replay", "done1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"hexhaven replay: no games yet in {db}") and "--db" in err
    assert not db.exists()  # looking created nothing


@pytest.mark.parametrize(
    ("players", "bots", "said"),
    [
        (
            4,
            1,
            "4 seats (--players), 1 bot (--bots): press s once 2 friends have joined; "
            "the seats still empty then go to the bots.",
        ),
        (
            3,
            1,
            "3 seats (--players), 1 bot (--bots): press s once 1 friend has joined; "
            "the seats still empty then go to the bots.",
        ),
        (
            2,
            1,
            "2 seats (--players), 1 bot (--bots): press s to start when you like; "
            "the seats still empty then go to the bots.",
        ),
        (
            4,
            0,
            "4 seats (--players), no bots (--bots): press s once 3 friends have joined; "
            "every seat needs a person.",
        ),
    ],
)
def test_host_says_how_many_friends_the_game_waits_for(players: int, bots: int, said: str) -> None:
    options = m.GameOptions(players=players, bots=[m.BotSeat()] * bots)
    assert invite_lines("ws://example.org:8765", "K7", options)[-1] == said


async def test_the_server_starts_the_game_exactly_when_host_says_it_can() -> None:
    options = m.GameOptions(players=3, bots=[m.BotSeat(kind="random")], private=True)
    assert "once 1 friend has joined" in invite_lines("ws://h:1", "K7", options)[-1]
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        port = srv.port_of(ws_server)
        host, friend = await Client.open(port), await Client.open(port)
        await host.hello()
        await friend.hello()
        await host.send(m.CreateGame(options=options))
        created = await host.expect(m.GameCreated)
        await host.send(m.JoinGame(game=created.game, name="Ana"))
        await host.expect(m.Joined)
        await host.send(m.StartGame(game=created.game))
        refused = await host.expect(m.Error)
        assert refused.code == m.ErrorCode.NOT_STARTED
        await friend.send(m.JoinGame(invite=created.invite, name="Bo"))
        await friend.expect(m.Joined)
        await host.send(m.StartGame(game=created.game))
        while True:
            roster = await host.expect(m.Players)
            if any(p.bot for p in roster.players):
                break
        assert [(p.name, p.bot) for p in roster.players] == [
            ("Ana", False),
            ("Bo", False),
            ("random-2", True),
        ]
        await host.close()
        await friend.close()


def test_host_prints_the_join_line_and_tells_to_replace_a_loopback_address(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))  # where the host's token is kept
    notes: list[str] = []

    async def no_ui(app: HexhavenApp) -> None:
        notes.append(app.note)  # what the lobby shows under the board

    monkeypatch.setattr(HexhavenApp, "run_async", no_ui)
    with server_in_thread() as (url, _):
        assert url.startswith("ws://127.0.0.1:")
        assert main(["host", url, "--players", "3", "--bots", "1", "--name", "Ana"]) == 0
    out = capsys.readouterr().out.splitlines()  # with the server thread's log lines
    created = next(x for x in out if x.startswith("Game ") and "; invite code " in x)
    code = created.removesuffix(".").rsplit(" ", 1)[-1]
    game = created.split()[1]
    port = url.rsplit(":", 1)[-1]
    told = [
        f"  hexhaven join {url} {code} --name NAME",
        f"  or in a browser: http://127.0.0.1:{port}/#invite={code}&game={game}",
        "  (127.0.0.1 is this machine itself: friends on other machines use its network "
        f"address instead, ws://<this machine's address>:{port})",
        "3 seats (--players), 1 bot (--bots): press s once 1 friend has joined; "
        "the seats still empty then go to the bots.",
    ]
    at = [out.index(x) for x in [created, "Friends join with:", *told]]
    assert at == sorted(at)
    assert notes == [f"Invite code {code}. Friends type:\n" + "\n".join(told)]


@pytest.mark.parametrize(
    "url", ["ws://localhost:8765", "ws://[::1]:8765", "ws://127.1.2.3:8765", "wss://LOCALHOST"]
)
def test_every_loopback_address_gets_the_line_for_other_machines(url: str) -> None:
    lines = invite_lines(url, "K7", m.GameOptions())
    assert lines[0] == f"  hexhaven join {url} K7 --name NAME"
    assert lines[1].startswith("  or in a browser: http") and lines[1].endswith("/#invite=K7")
    assert "friends on other machines use its network address" in lines[2]


def test_a_network_address_needs_no_such_line() -> None:
    for url in ("ws://192.168.1.20:8765", "ws://game.example.org:8765"):
        lines = invite_lines(url, "K7", m.GameOptions())
        assert len(lines) == 3 and "other machines" not in "".join(lines)
        assert lines[1] == f"  or in a browser: {url.replace('ws://', 'http://')}/#invite=K7"


def test_host_help_says_what_bots_and_players_do() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    host = sub.choices["host"]
    assert "empty seats get the bots" not in host.format_help()
    text = " ".join(host.format_help().split())
    assert "--players seats (default 4) and --bots bots (default 0)" in text
    assert "once PLAYERS - BOTS people, you included, have sat" in text
    assert "the game cannot start with more seats empty" in text


@pytest.mark.parametrize("command", ["join"])
def test_a_closed_game_is_named_with_the_replay_command_for_this_server(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Joining a game over and closed names the replay (watching it opens it again: its
    end and its history)."""
    db = tmp_path / "games.db"
    store = Store(db)
    store_game(store, "done1", seed=3)
    store.close()
    extra = ["--name", "Zed"] if command == "join" else []
    with server_in_thread(db=db) as (url, _):
        assert main([command, url, "done1", *extra]) == 2
        err = capsys.readouterr().err.splitlines()
        assert err == [
            "hexhaven: game 'done1' is over and closed; its record is public (get_record)",
            f"It replays with: hexhaven replay {url} done1",
        ]
        assert main([command, url, "nosuch", *extra]) == 2  # no game: nothing to replay
        assert capsys.readouterr().err.splitlines() == ["hexhaven: there is no game 'nosuch'"]


def test_bot_says_why_it_has_no_seat_or_cannot_reach_the_server(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = f"ws://127.0.0.1:{s.getsockname()[1]}"  # bound, not listening
        bot = ["bot", "--url", closed, "--invite", "NOSUCH", "--kind", "heuristic"]
        assert main(bot) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(
        f"hexhaven bot: cannot reach the server at {closed}: "
    )
    with server_in_thread() as (url, _):
        assert main(["bot", "--url", url, "--invite", "NOSUCH", "--kind", "heuristic"]) == 1
        err = capsys.readouterr().err.splitlines()
        assert err == ["hexhaven bot: the server refused the seat: no game has that invite code"]


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--vp", "30"], "--vp 30: the points to win must be 3 to 20"),
        (
            ["--timer", "0"],
            "--timer 0: the seconds per action must be more than 0 and at most 3600",
        ),
        (
            ["--offer-window", "2"],
            "--offer-window 2: the seconds to answer an offer must be 5 to 600",
        ),
        (
            ["--board", "fair", "--min-fairness", "2"],
            "--min-fairness 2: the fairness the board reaches must be 0 to 0.99",
        ),
        (
            ["--bot-kind", "heuristic", "--strength", "hard"],
            "--strength is for uct bots: add --bot-kind uct (the bots are heuristic now, which "
            "have no strengths)",
        ),
    ],
    ids=["vp", "timer", "offer-window", "min-fairness", "strength"],
)
@pytest.mark.parametrize("command", ["play", "host"])
def test_game_options_out_of_range_are_told_as_a_sentence_naming_the_option(
    command: str, argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    where = ["ws://127.0.0.1:9"] if command == "host" else []
    assert main([command, *where, *argv]) == 2
    err = capsys.readouterr().err
    assert err == f"hexhaven {command}: {said}\n"
    assert "Input should" not in err


def test_an_unknown_board_lists_the_boards(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--board", "nosuch"]) == 2
    err = capsys.readouterr().err
    for board in ("random", "spiral", "balanced", "fair", "preset:NAME", "balanced-227"):
        assert board in err


@pytest.mark.parametrize(
    ("url", "page"),
    [
        ("ws://127.0.0.1:8765", "http://127.0.0.1:8765/#invite=K7"),
        ("wss://play.example.org/a/", "https://play.example.org/a/#invite=K7"),
        ("wss://play.example.org/a", "https://play.example.org/a/#invite=K7"),
        ("ws://[::1]:8765", "http://[::1]:8765/#invite=K7"),
    ],
)
def test_the_browser_link_is_the_servers_own_address_and_path(url: str, page: str) -> None:
    assert page_url(url, "invite=K7") == page


@pytest.mark.parametrize(("argv", "window"), [([], 20.0), (["--offer-window", "45"], 45.0)])
def test_the_offer_window_of_a_terminal_game_is_the_one_asked_for(
    argv: list[str], window: float
) -> None:
    from app.cli import build_parser
    from app.commands.terminal import _tui_options

    args = build_parser().parse_args(["play", *argv])
    args.bots = 1 if args.bots is None else args.bots
    assert _tui_options(args).offer_window == window
