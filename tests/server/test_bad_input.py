"""Bad input gets a typed error, changes nothing, and keeps the connection."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import msgpack
import pytest
from structlog.testing import capture_logs
from websockets.exceptions import ConnectionClosed

from protocol import SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK
from protocol import messages as m
from protocol.payloads import BuildCity, EndTurn
from protocol.server_session import Limits
from server.app import MAX_FRAME
from server.limits import ServerLimits
from tests.server.client import Client
from tests.server.test_limits import serving
from tests.server.test_play import seated_game

SLOW = Limits(rate=50.0, burst=100.0)
"""A message rate a client outruns by far even on a starved machine (the default's 500 a
second is not always outrun by a test's client sharing a tenth of a core with its server)."""


@pytest.fixture
async def slow_rate_port() -> AsyncIterator[int]:
    """A real server on 127.0.0.1 whose connections may send :data:`SLOW`'s rate."""
    async with serving(ServerLimits(connection=SLOW)) as port:
        yield port


async def first_prompt(c: Client) -> m.Prompt:
    prompt: m.Prompt = await c.expect(m.Prompt)
    return prompt


async def test_frames_that_are_not_messages(server_port: int) -> None:
    c = await Client.open(server_port, SUBPROTOCOL_MSGPACK)
    await c.hello()
    cases = [
        (b"\xc1\xff\x00", m.ErrorCode.BAD_FRAME),  # garbage bytes
        ("{}", m.ErrorCode.BAD_FRAME),  # a text frame on a msgpack connection
        (msgpack.packb([1, 2, 3]), m.ErrorCode.BAD_MESSAGE),  # not an object
        (msgpack.packb({"type": "nope"}), m.ErrorCode.UNKNOWN_TYPE),
        (msgpack.packb({"type": "act", "game": "x", "state_id": "1"}), m.ErrorCode.BAD_MESSAGE),
        (b"\x80" * (MAX_FRAME + 1), m.ErrorCode.TOO_LARGE),
    ]
    for frame, code in cases:
        await c.send_raw(frame)
        assert (await c.expect(m.Error)).code == code
    # Still connected and served.
    await c.send(m.Ping(nonce=3))
    assert (await c.expect(m.Pong)).nonce == 3
    await c.close()


async def test_a_text_frame_is_measured_in_bytes(server_port: int) -> None:
    """A JSON frame of fewer characters than the limit but more bytes (here: 'é' is two
    bytes in UTF-8) is too large; one a byte under the limit is read."""
    c = await Client.open(server_port, SUBPROTOCOL_JSON)
    await c.hello()
    wide = '{"type": "chat", "game": "x", "text": "' + "é" * (MAX_FRAME // 2) + '"}'
    assert len(wide) < MAX_FRAME < len(wide.encode())
    await c.send_raw(wide)
    assert (await c.expect(m.Error)).code == m.ErrorCode.TOO_LARGE
    padded = '{"type": "ping", "nonce": 4}'
    await c.send_raw(padded + " " * (MAX_FRAME - len(padded)))  # exactly at the limit
    assert (await c.expect(m.Pong)).nonce == 4
    await c.close()


async def test_refused_actions_change_nothing(server_port: int) -> None:
    game, clients = await seated_game(server_port, SUBPROTOCOL_JSON)
    p0, p1 = clients[0], clients[1]
    prompt = await first_prompt(p0)  # seat 0 places its first settlement
    state_id = prompt.state_id

    # Out of turn: seat 1 sends seat 0's move.
    await p1.send(m.Act(game=game, state_id=state_id, action=prompt.actions[0]))
    err = await p1.expect(m.Error)
    assert err.code == m.ErrorCode.ILLEGAL_ACTION and err.detail == "not_your_turn"
    # Stale state id.
    await p0.send(m.Act(game=game, state_id=state_id + 5, action=prompt.actions[0]))
    ahead = await p0.expect(m.Error)
    assert ahead.code == m.ErrorCode.STALE_STATE
    assert ahead.message == f"that action names a future state {state_id + 5}; " + (
        f"the game is at state {state_id}"
    )
    # Illegal in this phase.
    await p0.send(m.Act(game=game, state_id=state_id, action=BuildCity(vertex=0)))
    err = await p0.expect(m.Error)
    assert err.code == m.ErrorCode.ILLEGAL_ACTION and err.detail == "wrong_phase"
    # Unknown game; a spectator acting; a bad token.
    await p0.send(m.Act(game="nope", state_id=0, action=EndTurn()))
    assert (await p0.expect(m.Error)).code == m.ErrorCode.UNKNOWN_GAME
    watcher = await Client.open(server_port, SUBPROTOCOL_JSON)
    await watcher.hello()
    await watcher.send(m.Watch(game=game))
    await watcher.expect(m.GameView)
    await watcher.send(m.Act(game=game, state_id=state_id, action=prompt.actions[0]))
    assert (await watcher.expect(m.Error)).code == m.ErrorCode.NOT_A_PLAYER
    await watcher.send(m.Rejoin(game=game, token="not-a-token"))
    assert (await watcher.expect(m.Error)).code == m.ErrorCode.BAD_TOKEN

    # Each refusal names the game its message named, so a client in several can tell.
    await p1.send(m.Act(game=game, state_id=state_id, action=prompt.actions[0]))
    assert (await p1.expect(m.Error)).game == game
    await p0.send(m.Act(game="nope", state_id=0, action=EndTurn()))
    assert (await p0.expect(m.Error)).game == "nope"

    # Nothing changed: the same action is still legal at the same state id.
    await p0.send(m.Act(game=game, state_id=state_id, action=prompt.actions[0]))
    events = await p0.expect(m.Events)
    assert events.state_id == state_id + 1
    for c in [*clients, watcher]:
        await c.close()


async def test_a_flood_waits_in_its_own_socket_after_its_first_refusals(
    slow_rate_port: int,
) -> None:
    """Past its message rate a connection is refused, and the server then reads its frames
    no faster than the rate allows: half a burst of pings past the burst get a handful of
    refusals and their pongs at the rate, not a refusal each to encode and send."""
    c = await Client.open(slow_rate_port, SUBPROTOCOL_MSGPACK)
    await c.hello()
    over = int(SLOW.burst) // 2
    frames = int(SLOW.burst) + over
    for i in range(frames):
        await c.send(m.Ping(nonce=i))
    answers = [await c.recv() for _ in range(frames)]
    limited = sum(isinstance(a, m.Error) for a in answers)
    assert 0 < limited <= over // 5
    assert all(isinstance(a, m.Pong) or a.code == m.ErrorCode.RATE_LIMITED for a in answers)
    await c.close()


async def test_a_flood_that_goes_on_is_cut_off_and_others_are_served(
    slow_rate_port: int,
) -> None:
    """Over its rate again after pause upon pause, a connection is a flood: it is cut off
    (with what it sent that was not read yet), while another connection is served."""
    flood = await Client.open(slow_rate_port, SUBPROTOCOL_MSGPACK)
    await flood.hello()
    other = await Client.open(slow_rate_port, SUBPROTOCOL_MSGPACK)
    await other.hello()
    frame = flood.codec.encode(m.Ping(nonce=1))

    async def read_all() -> None:
        with contextlib.suppress(ConnectionClosed):
            async for _ in flood.ws:
                pass

    with capture_logs() as logs:
        reader = asyncio.create_task(read_all())
        with contextlib.suppress(ConnectionClosed):
            for _ in range(int(SLOW.burst) * 20):
                await flood.send_raw(frame)
        async with asyncio.timeout(30):
            await reader  # the server ends the connection
    assert [e for e in logs if e["event"] == "conn.flood"]
    await other.send(m.Ping(nonce=9))
    assert (await other.expect(m.Pong)).nonce == 9
    await other.close()
