"""A dropped connection takes its seat back with the token; hidden cards stay hidden."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from engine import DevCardBought, Stolen
from protocol import SUBPROTOCOL_MSGPACK
from protocol import messages as m
from tests.server.client import Client
from tests.server.test_play import seated_game


async def test_drop_and_rejoin_mid_game(server_port: int) -> None:
    game, clients = await seated_game(server_port, SUBPROTOCOL_MSGPACK)
    tokens = [c.token() for c in clients]
    dropper = clients[2]
    stop = asyncio.Event()

    async def play(c: Client, seed: int) -> Any:
        return await c.play_randomly(game, seed)

    # Seat 2 plays until its 30th prompt, then drops; the others keep playing.
    async def play_then_drop() -> None:
        rnd = random.Random(2)
        prompts = 0
        while prompts < 30:
            message = await dropper.recv()
            if isinstance(message, m.Prompt):
                prompts += 1
                if prompts < 30:
                    action = rnd.choice(message.actions)
                    await dropper.send(m.Act(game=game, state_id=message.state_id, action=action))
        await dropper.close()
        stop.set()

    others = [asyncio.create_task(play(c, i)) for i, c in enumerate(clients) if i != 2]
    await play_then_drop()
    await stop.wait()
    back = await Client.open(server_port, SUBPROTOCOL_MSGPACK)
    await back.hello()
    await back.send(m.Rejoin(game=game, token=tokens[2]))
    joined = await back.expect(m.Joined)
    assert joined.seat == 2
    view = (await back.expect(m.GameView)).view
    assert view.seat == 2 and view.hand is not None
    over = await back.play_randomly(game, seed=22)
    results = await asyncio.gather(*others)
    assert all(r == over for r in results)
    for c in (*clients[:2], clients[3], back):
        await c.close()


async def test_no_message_carries_another_seats_cards(server_port: int) -> None:
    game, clients = await seated_game(server_port, SUBPROTOCOL_MSGPACK)
    await asyncio.gather(*(c.play_randomly(game, seed=10 + i) for i, c in enumerate(clients)))
    for seat, c in enumerate(clients):
        over = next(x for x in c.received if isinstance(x, m.GameOver))
        before_end = c.received[: c.received.index(over)]
        # The seed (which fixes the deck and the dice) is revealed only at the end.
        assert all(str(over.seed) not in x.model_dump_json() for x in before_end)
        for message in c.received:
            if isinstance(message, m.GameView):
                assert message.view.seat == seat
            if isinstance(message, m.Prompt):
                assert message.seat == seat
        for e in c.events():
            if isinstance(e, Stolen) and seat not in (e.thief, e.victim):
                assert e.resource is None
            if isinstance(e, DevCardBought) and e.seat != seat:
                assert e.card is None
    for c in clients:
        await c.close()
