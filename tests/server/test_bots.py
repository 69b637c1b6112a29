"""Bots fill empty seats as separate processes that connect back over the protocol."""

from __future__ import annotations

import asyncio
import secrets
import sys

import pytest

from app.cli import build_parser
from protocol import SUBPROTOCOL_JSON
from protocol import messages as m
from server import app as app_module
from server import room as room_module
from server.app import HexhavenServer, bot_command
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


def test_bot_command_keeps_values_that_start_with_a_dash() -> None:
    """Seat tokens are URL-safe base64 and may start with '-'; the bot's command line must
    not let argparse take one for an option (this once stalled a game at random)."""
    command = bot_command("ws://127.0.0.1:1", "g1", "-tok_en", "random", "-name")
    assert command[1:3] == ["-m", "app.cli"]
    args = build_parser().parse_args(command[3:])
    assert (args.url, args.game, args.token, args.kind, args.name) == (
        "ws://127.0.0.1:1",
        "g1",
        "-tok_en",
        "random",
        "-name",
    )


async def _one_person_with_bots(port: int) -> tuple[Client, str]:
    me = await Client.open(port, SUBPROTOCOL_JSON)
    await me.hello()
    options = m.GameOptions(players=3, bots=[m.BotSeat(kind="random")] * 2)
    await me.send(m.CreateGame(options=options))
    game = (await me.expect(m.GameCreated)).game
    await me.send(m.JoinGame(game=game, name="me"))
    await me.expect(m.Joined)
    await me.send(m.StartGame(game=game))
    return me, game


async def test_bot_seats_whose_tokens_start_with_a_dash_connect(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tokens = iter(range(1000))
    monkeypatch.setattr(secrets, "token_urlsafe", lambda n: f"-t{next(tokens)}")
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        me, game = await _one_person_with_bots(srv.port_of(ws_server))
        over = await me.play_randomly(game, seed=3)
        assert over.winner is not None
        rosters = [x for x in me.received if isinstance(x, m.Players)]
        assert any(all(p.connected for p in r.players) for r in rosters)
        assert all(s is not None and s.launches == 0 for s in srv.rooms[game].seats)
        await me.close()


async def test_bot_processes_that_keep_failing_are_retried_then_played_by_the_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def failing(*_: str) -> list[str]:
        return [sys.executable, "-c", "import sys; sys.exit('no luck')"]

    monkeypatch.setattr(app_module, "bot_command", failing)
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        me, game = await _one_person_with_bots(srv.port_of(ws_server))
        over = await me.play_randomly(game, seed=4)
        assert over.winner is not None
        room = srv.rooms[game]
        bots = [s for s in room.seats if s is not None and s.bot is not None]
        assert [s.launches for s in bots] == [room_module.BOT_RELAUNCHES] * 2
        assert room.away >= {1, 2}
        rosters = [x for x in me.received if isinstance(x, m.Players)]
        assert not any(p.connected for r in rosters for p in r.players[1:])
        await me.close()


async def test_a_uct_bot_process_plays_a_game_through_the_server() -> None:
    """`hexhaven bot --kind uct` joins by invite code, searches from its seat's view alone,
    and plays to the end against a server-launched bot."""
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
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "app.cli",
            "bot",
            f"--url=ws://127.0.0.1:{port}",
            f"--invite={created.invite}",
            "--kind=uct",
            "--name=searcher",
            "--param=rollouts=12",
            "--param=trade_optimistic=true",
            "--param=counter_offers=true",
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
            # It tells whoever started it its seat and token, then the result.
            slot = room.seats[0]
            assert slot is not None and slot.name == "searcher"
            game = created.game
            won = f"seat {over.winner}" + (" (this bot)" if over.winner == 0 else "") + " won"
            assert out.decode().splitlines() == [
                f"searcher: seat 0 of game {game}; back to it with --game {game} "
                f"--token {slot.token}",
                f"searcher: game {game} over: {won}; points "
                + ", ".join(str(p) for p in over.points),
            ]
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        await host.close()
