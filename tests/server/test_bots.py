"""Bots fill empty seats as separate processes that connect back over the protocol."""

from __future__ import annotations

import asyncio
import secrets
import stat
import sys
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from app.cli import build_parser
from protocol import SUBPROTOCOL_JSON
from protocol import messages as m
from server import away as away_module
from server import bot_launcher as bot_launcher_module
from server.app import HexhavenServer
from server.bot_launcher import bot_command
from server.store import hash_token
from tests.server.client import Client


async def test_one_person_and_three_bot_processes_finish_a_game(server_port: int) -> None:
    me = await Client.open(server_port, SUBPROTOCOL_JSON)
    await me.hello()
    options = m.GameOptions(players=4, bots=[m.BotSeat(kind="random")] * 3)
    await me.send(m.CreateGame(options=options))
    game = (await me.expect(m.GameCreated)).game
    await me.send(m.JoinGame(game=game, name="me"))
    assert (await me.expect(m.Joined)).seat == 0
    await me.send(m.StartGame(game=game))
    over = await me.play_randomly(game, seed=5)
    assert over.winner is not None
    rosters = [x for x in me.received if isinstance(x, m.Players)]
    final = rosters[-1].players
    assert [p.bot for p in final] == [False, True, True, True]
    # The bots took their seats over their own connections.
    assert any(all(p.connected for p in r.players) for r in rosters)
    await me.close()


async def test_unknown_bot_kinds_and_too_few_players_are_refused(server_port: int) -> None:
    me = await Client.open(server_port, SUBPROTOCOL_JSON)
    await me.hello()
    await me.send(m.CreateGame(options=m.GameOptions(bots=[m.BotSeat(kind="oracle")])))
    err = await me.expect(m.Error)
    assert err.code == m.ErrorCode.BAD_OPTIONS and "oracle" in err.message
    await me.send(m.CreateGame(options=m.GameOptions(bots=[m.BotSeat(strength="max")])))
    err = await me.expect(m.Error)
    assert err.code == m.ErrorCode.BAD_OPTIONS and "strength" in err.message
    await me.send(m.CreateGame(options=m.GameOptions(players=4, bots=[m.BotSeat()])))
    game = (await me.expect(m.GameCreated)).game
    await me.send(m.JoinGame(game=game, name="me"))
    await me.expect(m.Joined)
    await me.send(m.StartGame(game=game))
    err = await me.expect(m.Error)
    assert err.code == m.ErrorCode.NOT_STARTED and "3 seat(s) are empty" in err.message
    await me.close()


def test_bot_command_keeps_values_that_start_with_a_dash_and_reads_its_token() -> None:
    """The bot's command line must not let argparse take a value that starts with '-' for
    an option; it carries no token, only where to read one: standard input."""
    command = bot_command("ws://127.0.0.1:1", "g1", "random", "-name")
    assert command[1:4] == ["-P", "-m", "app.cli"]  # the installed package, not the sources
    args = build_parser().parse_args(command[4:])
    assert (args.url, args.game, args.token_file, args.kind, args.name) == (
        "ws://127.0.0.1:1",
        "g1",
        "-",
        "random",
        "-name",
    )


async def game_with_me(
    port: int, bots: list[m.BotSeat], victory_points: int = 10
) -> tuple[Client, str]:
    """A started game with a person at seat 0 (who acts first) and ``bots``."""
    me = await Client.open(port, SUBPROTOCOL_JSON)
    await me.hello()
    options = m.GameOptions(players=1 + len(bots), victory_points=victory_points, bots=bots)
    await me.send(m.CreateGame(options=options))
    game = (await me.expect(m.GameCreated)).game
    await me.send(m.JoinGame(game=game, name="me"))
    await me.expect(m.Joined)
    await me.send(m.StartGame(game=game))
    return me, game


async def test_bot_processes_get_their_tokens_on_standard_input_not_their_command_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With a process a bot seat (``hexhaven serve --bot-processes``), the server's bot
    processes connect with the tokens it writes to their standard input
    (these start with '-', as URL-safe base64 may); while they play, no token is in their
    command lines, which any local user can read in /proc."""
    issued: list[str] = []

    def token(n: int) -> str:
        issued.append(f"-secret{len(issued):025d}")
        return issued[-1]

    monkeypatch.setattr(secrets, "token_urlsafe", token)
    srv = HexhavenServer(bot_launcher="process")
    with capture_logs() as logs:
        async with srv.running("127.0.0.1", 0) as ws_server:
            me, game = await game_with_me(srv.port_of(ws_server), [m.BotSeat(kind="random")] * 2)
            room = srv.rooms[game]
            async with asyncio.timeout(30):  # seat 0 acts first: the bots wait, connected
                while not all(s is not None and s.owners() for s in room.seats):
                    await asyncio.sleep(0.05)
            pids = [e["pid"] for e in logs if e["event"] == "bot.started"]
            assert len(pids) == 2
            for pid in pids:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
                assert "--token-file=-" in argv and "bot" in argv
                assert not any(t in arg for t in issued for arg in argv), argv
            over = await me.play_randomly(game, seed=3)
            assert over.winner is not None
            assert all(s is not None and s.launches == 0 for s in room.seats)
            await me.close()
    assert len(issued) >= 3  # the person's and one for each bot process, at least


async def test_bot_processes_that_keep_failing_are_retried_then_played_by_the_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def failing(*_: str) -> list[str]:
        return [sys.executable, "-c", "import sys; sys.exit('no luck')"]

    monkeypatch.setattr(bot_launcher_module, "bot_command", failing)
    srv = HexhavenServer(bot_launcher="process")
    async with srv.running("127.0.0.1", 0) as ws_server:
        me, game = await game_with_me(srv.port_of(ws_server), [m.BotSeat(kind="random")] * 2)
        over = await me.play_randomly(game, seed=4)
        assert over.winner is not None
        room = srv.rooms[game]
        bots = [s for s in room.seats if s is not None and s.bot is not None]
        assert [s.launches for s in bots] == [away_module.BOT_RELAUNCHES] * 2
        assert room.away >= {1, 2}
        rosters = [x for x in me.received if isinstance(x, m.Players)]
        assert not any(p.connected for r in rosters for p in r.players[1:])
        await me.close()


async def test_a_uct_bot_process_plays_a_game_through_the_server(tmp_path: Path) -> None:
    """`hexhaven bot --kind uct` joins by invite code, searches from its seat's view alone,
    and plays to the end against a server-launched bot; it saves its token where asked
    (for its owner alone) and says so."""
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        port = srv.port_of(ws_server)
        host = await Client.open(port, SUBPROTOCOL_JSON)
        await host.hello()
        options = m.GameOptions(
            players=2, victory_points=5, private=True, bots=[m.BotSeat(kind="heuristic")]
        )
        await host.send(m.CreateGame(options=options))
        created = await host.expect(m.GameCreated)
        saved = tmp_path / "tokens" / "searcher.token"
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "app.cli",
            "bot",
            f"--url=ws://127.0.0.1:{port}",
            f"--invite={created.invite}",
            f"--save-token={saved}",
            "--kind=uct",
            "--name=searcher",
            "--param=rollouts=12",
            "--param=trade_optimistic=true",
            stdout=asyncio.subprocess.PIPE,
        )
        try:
            async with asyncio.timeout(60):
                while srv.rooms[created.game].seated < 1:
                    await asyncio.sleep(0.05)
            await host.send(m.Watch(game=created.game))
            await host.send(m.StartGame(game=created.game))
            over = await asyncio.wait_for(host.expect(m.GameOver), 120)
            assert over.winner is not None
            out, _ = await asyncio.wait_for(proc.communicate(), 30)
            assert proc.returncode == 0  # it saw the end and left
            room = srv.rooms[created.game]
            assert room.state.is_over and not room.away  # nobody had to stand in for it
            # It tells whoever started it its seat and the file of its token, then the result.
            slot = room.seats[0]
            assert slot is not None and slot.name == "searcher"
            assert hash_token(saved.read_text().strip()) == slot.token_hash
            assert stat.S_IMODE(saved.stat().st_mode) == 0o600
            game = created.game
            won = f"seat {over.winner}" + (" (this bot)" if over.winner == 0 else "") + " won"
            assert out.decode().splitlines() == [
                f"searcher: seat 0 of game {game}; back to it with --game {game} "
                f"--token-file {saved}",
                f"searcher: game {game} over: {won}; points "
                + ", ".join(str(p) for p in over.points),
            ]
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        await host.close()


async def test_a_bot_started_by_hand_comes_back_to_its_seat_with_its_token_file(
    tmp_path: Path,
) -> None:
    """`hexhaven bot --save-token FILE` keeps the token of the seat it takes; stopped, the
    same command with `--game GAME --token-file FILE` takes the seat back, and says how to
    come back again without showing the token."""
    saved = tmp_path / "seat.token"
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        port = srv.port_of(ws_server)
        host = await Client.open(port, SUBPROTOCOL_JSON)
        await host.hello()
        options = m.GameOptions(players=2, private=True, bots=[m.BotSeat(kind="random")])
        await host.send(m.CreateGame(options=options))
        created = await host.expect(m.GameCreated)
        game, url = created.game, f"--url=ws://127.0.0.1:{port}"
        bot = ["-m", "app.cli", "bot", url, "--kind=random"]
        first = await asyncio.create_subprocess_exec(
            sys.executable, *bot, f"--invite={created.invite}", f"--save-token={saved}"
        )
        room = srv.rooms[game]
        try:
            async with asyncio.timeout(30):
                while not saved.exists() or room.seated < 1:
                    await asyncio.sleep(0.05)
        finally:
            first.kill()
            await first.wait()
        slot = room.seats[0]
        assert slot is not None and hash_token(saved.read_text().strip()) == slot.token_hash
        back = await asyncio.create_subprocess_exec(
            sys.executable,
            *bot,
            f"--game={game}",
            f"--token-file={saved}",
            stdout=asyncio.subprocess.PIPE,
        )
        try:
            async with asyncio.timeout(30):
                while not slot.owners():
                    await asyncio.sleep(0.05)
            await host.send(m.Watch(game=game))
            await host.send(m.StartGame(game=game))
            over = await asyncio.wait_for(host.expect(m.GameOver), 120)
            out, _ = await asyncio.wait_for(back.communicate(), 30)
        finally:
            if back.returncode is None:
                back.kill()
                await back.wait()
        assert back.returncode == 0 and over.winner is not None
        lines = out.decode().splitlines()
        assert lines[0] == (
            f"random: seat 0 of game {game}; back to it with --game {game} --token-file {saved}"
        )
        assert saved.read_text().strip() not in out.decode()
        await host.close()
