"""A room's task that fails is never silent: the failure is logged with its traceback and
the room goes on (its task started again on the same state and queue)."""

from __future__ import annotations

import pytest
from structlog.testing import capture_logs

from protocol import SUBPROTOCOL_MSGPACK
from protocol import messages as m
from server.room import GameRoom
from tests.server.client import Client


async def test_a_failure_outside_message_handling_is_logged_and_the_game_goes_on(
    server_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_expire = GameRoom._expire
    failed: list[bool] = []

    def expire_failing_once(room: GameRoom) -> None:
        if not failed:
            failed.append(True)
            raise RuntimeError("a bug in the turn timer")
        real_expire(room)

    monkeypatch.setattr(GameRoom, "_expire", expire_failing_once)
    c = await Client.open(server_port, SUBPROTOCOL_MSGPACK)
    await c.hello()
    with capture_logs() as logs:
        options = m.GameOptions(players=2, turn_timer=0.2, bots=[])
        await c.send(m.CreateGame(options=options))
        created = await c.expect(m.GameCreated)
        await c.send(m.JoinGame(game=created.game, name="ana"))
        await c.expect(m.Joined)
        other = await Client.open(server_port, SUBPROTOCOL_MSGPACK)
        await other.hello()
        await other.send(m.JoinGame(game=created.game, name="bo"))
        await other.expect(m.Joined)
        await c.send(m.StartGame(game=created.game))
        # Nobody acts: the timer's first expiry fails, the room's task is started again,
        # and the next expiry plays seat 0's default action.
        events = await c.expect(m.Events)
    assert failed and events.state_id == 1
    failures = [e for e in logs if e["event"] == "room.task_failed"]
    assert len(failures) == 1 and failures[0]["game"] == created.game
    assert isinstance(failures[0]["exc_info"], RuntimeError)
    await c.send(m.Ping(nonce=1))
    assert (await c.expect(m.Pong)).nonce == 1
    await c.close()
    await other.close()
