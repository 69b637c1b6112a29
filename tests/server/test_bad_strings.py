"""Text a frame cannot carry back is refused with a typed error, and the connection goes on
being served (a refusal that echoed it would have killed the connection's sending side)."""

from __future__ import annotations

from protocol import SUBPROTOCOL_JSON
from protocol import messages as m
from tests.server.client import Client


async def test_an_unpaired_surrogate_is_refused_and_the_connection_still_answers(
    server_port: int,
) -> None:
    c = await Client.open(server_port, SUBPROTOCOL_JSON)
    await c.hello()
    for frame in (
        '{"type": "watch", "game": "\\ud800"}',
        '{"type": "create_game", "options": {"name": "\\udfff"}}',
        '{"type": "rejoin", "game": "\\udbff", "token": "t"}',
    ):
        await c.send_raw(frame)
        error = await c.expect(m.Error)
        assert error.code == m.ErrorCode.BAD_MESSAGE and "unpaired surrogate" in error.message
    await c.send(m.Ping(nonce=7))
    assert (await c.expect(m.Pong)).nonce == 7
    await c.send(m.ListGames())
    assert isinstance(await c.expect(m.GameList), m.GameList)
    await c.close()
