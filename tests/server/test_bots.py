"""Bots fill empty seats as separate processes that connect back over the protocol."""

from __future__ import annotations

from protocol import SUBPROTOCOL_JSON
from protocol import messages as m
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
