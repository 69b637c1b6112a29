"""Whole games over the protocol, through a real server and real websocket clients."""

from __future__ import annotations

import asyncio

import pytest

from protocol import SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK
from protocol import messages as m
from protocol.options import seed_hash
from tests.server.client import Client


async def seated_game(port: int, subprotocol: str, players: int = 4) -> tuple[str, list[Client]]:
    clients = [await Client.open(port, subprotocol) for _ in range(players)]
    for c in clients:
        await c.hello()
    host = clients[0]
    await host.send(m.CreateGame(options=m.GameOptions(players=players)))
    created = await host.expect(m.GameCreated)
    for i, c in enumerate(clients):
        await c.send(m.JoinGame(game=created.game, name=f"p{i}"))
        joined = await c.expect(m.Joined)
        assert joined.seat == i and joined.token
    await host.send(m.StartGame(game=created.game))
    return created.game, clients


@pytest.mark.parametrize("subprotocol", [SUBPROTOCOL_MSGPACK, SUBPROTOCOL_JSON])
async def test_four_clients_play_a_full_game(server_port: int, subprotocol: str) -> None:
    game, clients = await seated_game(server_port, subprotocol)
    overs = await asyncio.gather(*(c.play_randomly(game, seed=i) for i, c in enumerate(clients)))
    first = overs[0]
    assert all(o == first for o in overs)
    assert first.winner is not None and first.points[first.winner] >= 10
    created = next(x for x in clients[0].received if isinstance(x, m.GameCreated))
    assert seed_hash(first.seed) == created.seed_hash
    # Everyone saw the same number of event batches, ending at the same state.
    last_ids = {max(e.state_id for e in c.received if isinstance(e, m.Events)) for c in clients}
    assert len(last_ids) == 1
    for c in clients:
        await c.close()


async def test_version_and_handshake_errors(server_port: int) -> None:
    c = await Client.open(server_port, SUBPROTOCOL_JSON)
    await c.send(m.ListGames())
    assert (await c.expect(m.Error)).code == m.ErrorCode.HELLO_FIRST
    await c.send(m.Hello(protocol=99))
    err = await c.expect(m.Error)
    assert err.code == m.ErrorCode.UNSUPPORTED_VERSION and "1" in err.message
    await c.hello()
    await c.send(m.Ping(nonce=7))
    assert (await c.expect(m.Pong)).nonce == 7
    await c.close()


async def test_private_games_join_by_invite_and_stay_unlisted(server_port: int) -> None:
    host = await Client.open(server_port, SUBPROTOCOL_JSON)
    guest = await Client.open(server_port, SUBPROTOCOL_JSON)
    for c in (host, guest):
        await c.hello()
    await host.send(m.CreateGame(options=m.GameOptions(players=2, private=True)))
    created = await host.expect(m.GameCreated)
    assert created.invite
    await guest.send(m.ListGames())
    assert (await guest.expect(m.GameList)).games == []
    await guest.send(m.JoinGame(invite="NOPE42", name="g"))
    assert (await guest.expect(m.Error)).code == m.ErrorCode.UNKNOWN_GAME
    await guest.send(m.JoinGame(invite=created.invite, name="g"))
    joined = await guest.expect(m.Joined)
    assert joined.game == created.game and joined.seat == 0
    for c in (host, guest):
        await c.close()


async def test_prompts_carry_the_current_view_when_asked(server_port: int) -> None:
    game, clients = await seated_game(server_port, SUBPROTOCOL_MSGPACK, players=2)
    asker, plain = clients
    # A second hello updates the session: the first connection now asks for views.
    await asker.send(m.Hello(protocol=1, views=True))
    await asker.expect(m.Welcome)
    await asyncio.gather(asker.play_randomly(game, 1), plain.play_randomly(game, 2))
    asked = [x for x in asker.received if isinstance(x, m.Prompt)]
    unasked = [x for x in plain.received if isinstance(x, m.Prompt)]
    assert asked and unasked
    assert all(p.view is None for p in unasked)
    later = [p for p in asked if p.view is not None]
    assert len(later) >= len(asked) - 1  # every prompt after the second hello
    for p in later:
        assert p.view is not None
        assert p.view.seat == p.seat and p.view.state_id == p.state_id
        assert p.view.hand is not None
    for c in clients:
        await c.close()


async def test_logs_carry_game_ids_but_no_tokens(server_port: int) -> None:
    from structlog.testing import capture_logs

    with capture_logs() as logs:
        game, clients = await seated_game(server_port, SUBPROTOCOL_MSGPACK, players=2)
        await asyncio.gather(*(c.play_randomly(game, i) for i, c in enumerate(clients)))
    tokens = [c.token() for c in clients]
    assert any(entry.get("game") == game for entry in logs)
    text = repr(logs)
    assert all(t not in text for t in tokens)
    for c in clients:
        await c.close()
